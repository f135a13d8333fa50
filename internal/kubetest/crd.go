package kubetest

import (
	"context"
	"fmt"
	"testing"
	"time"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/yaml"
)

// InstallCRDs creates the CRDs (or updates those that exist) and waits
// until the API server serves every one of them.
func InstallCRDs(tb testing.TB, cfg *rest.Config, crds ...*apiextv1.CustomResourceDefinition) {
	tb.Helper()
	if err := installCRDs(context.Background(), cfg, crds); err != nil {
		tb.Fatalf("kubetest: %v", err)
	}
}

func installCRDs(ctx context.Context, cfg *rest.Config, crds []*apiextv1.CustomResourceDefinition) error {
	cs, err := apiextclient.NewForConfig(cfg)
	if err != nil {
		return err
	}
	api := cs.ApiextensionsV1().CustomResourceDefinitions()
	for _, crd := range crds {
		_, err := api.Create(ctx, crd, metav1.CreateOptions{})
		if apierrors.IsAlreadyExists(err) {
			old, gerr := api.Get(ctx, crd.Name, metav1.GetOptions{})
			if gerr != nil {
				return gerr
			}
			upd := crd.DeepCopy()
			upd.ResourceVersion = old.ResourceVersion
			_, err = api.Update(ctx, upd, metav1.UpdateOptions{})
		}
		if err != nil {
			return fmt.Errorf("CustomResourceDefinition %s: %w", crd.Name, err)
		}
	}
	for _, crd := range crds {
		err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
			got, err := api.Get(ctx, crd.Name, metav1.GetOptions{})
			if err != nil {
				return false, err
			}
			for _, c := range got.Status.Conditions {
				if c.Type == apiextv1.Established && c.Status == apiextv1.ConditionTrue {
					return true, nil
				}
			}
			return false, nil
		})
		if err != nil {
			return fmt.Errorf("CustomResourceDefinition %s: not established: %w", crd.Name, err)
		}
	}
	// Discovery lags the Established condition a little: wait until the
	// group versions are listed, so that REST mappers find the kinds.
	dc := cs.Discovery()
	for _, crd := range crds {
		gv := crd.Spec.Group + "/" + crd.Spec.Versions[0].Name
		err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, time.Minute, true, func(context.Context) (bool, error) {
			rl, err := dc.ServerResourcesForGroupVersion(gv)
			if err != nil {
				return false, nil
			}
			for _, r := range rl.APIResources {
				if r.Name == crd.Spec.Names.Plural {
					return true, nil
				}
			}
			return false, nil
		})
		if err != nil {
			return fmt.Errorf("CustomResourceDefinition %s: %s not discovered: %w", crd.Name, gv, err)
		}
	}
	return nil
}

// DecodeCRD decodes a CustomResourceDefinition from YAML.
func DecodeCRD(data []byte) (*apiextv1.CustomResourceDefinition, error) {
	var crd apiextv1.CustomResourceDefinition
	if err := yaml.UnmarshalStrict(data, &crd); err != nil {
		return nil, fmt.Errorf("CustomResourceDefinition: %w", err)
	}
	return &crd, nil
}

// NADCRD returns the NetworkAttachmentDefinition CRD (k8s.cni.cncf.io/v1),
// for API servers without Multus: spec.config is the CNI configuration as
// a JSON string, as Multus's own CRD has it.
func NADCRD() *apiextv1.CustomResourceDefinition {
	str := apiextv1.JSONSchemaProps{Type: "string"}
	return &apiextv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "network-attachment-definitions.k8s.cni.cncf.io"},
		Spec: apiextv1.CustomResourceDefinitionSpec{
			Group: "k8s.cni.cncf.io",
			Scope: apiextv1.NamespaceScoped,
			Names: apiextv1.CustomResourceDefinitionNames{
				Plural: "network-attachment-definitions", Singular: "network-attachment-definition",
				Kind: "NetworkAttachmentDefinition", ListKind: "NetworkAttachmentDefinitionList",
				ShortNames: []string{"net-attach-def"},
			},
			Versions: []apiextv1.CustomResourceDefinitionVersion{{
				Name: "v1", Served: true, Storage: true,
				Schema: &apiextv1.CustomResourceValidation{OpenAPIV3Schema: &apiextv1.JSONSchemaProps{
					Type: "object",
					Properties: map[string]apiextv1.JSONSchemaProps{
						"apiVersion": str,
						"kind":       str,
						"metadata":   {Type: "object"},
						"spec": {Type: "object", Properties: map[string]apiextv1.JSONSchemaProps{
							"config": str,
						}},
					},
				}},
			}},
		},
	}
}
