package crds

import (
	"context"
	"fmt"
	"time"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"
)

// Install creates the CRDs on the API server of cfg (or updates those
// that exist) and waits until the server serves every one of them. A CRD
// of crds that exists already and is not one of All's (Multus's NAD CRD,
// say) is left as it is.
func Install(ctx context.Context, cfg *rest.Config, crds ...*apiextv1.CustomResourceDefinition) error {
	cs, err := apiextclient.NewForConfig(cfg)
	if err != nil {
		return err
	}
	own, err := All()
	if err != nil {
		return err
	}
	ours := map[string]bool{}
	for _, c := range own {
		ours[c.Name] = true
	}
	api := cs.ApiextensionsV1().CustomResourceDefinitions()
	for _, crd := range crds {
		_, err := api.Create(ctx, crd, metav1.CreateOptions{})
		if apierrors.IsAlreadyExists(err) {
			if !ours[crd.Name] {
				continue
			}
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

// NAD returns a NetworkAttachmentDefinition CRD (k8s.cni.cncf.io/v1) for
// API servers without Multus: spec.config is the CNI configuration as a
// JSON string, as Multus's own CRD has it.
func NAD() *apiextv1.CustomResourceDefinition {
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
