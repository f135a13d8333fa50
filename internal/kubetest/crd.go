package kubetest

import (
	"context"
	"fmt"
	"testing"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/yaml"

	"github.com/udnkit/udnkit/crds"
)

// InstallCRDs creates the CRDs (or updates those that exist) and waits
// until the API server serves every one of them.
func InstallCRDs(tb testing.TB, cfg *rest.Config, all ...*apiextv1.CustomResourceDefinition) {
	tb.Helper()
	if err := crds.Install(context.Background(), cfg, all...); err != nil {
		tb.Fatalf("kubetest: %v", err)
	}
}

// DecodeCRD decodes a CustomResourceDefinition from YAML.
func DecodeCRD(data []byte) (*apiextv1.CustomResourceDefinition, error) {
	var crd apiextv1.CustomResourceDefinition
	if err := yaml.UnmarshalStrict(data, &crd); err != nil {
		return nil, fmt.Errorf("CustomResourceDefinition: %w", err)
	}
	return &crd, nil
}

// NADCRD returns the NetworkAttachmentDefinition CRD (k8s.cni.cncf.io/v1)
// for API servers without Multus (crds.NAD).
func NADCRD() *apiextv1.CustomResourceDefinition { return crds.NAD() }
