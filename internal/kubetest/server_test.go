package kubetest

import (
	"context"
	"testing"

	nadv1 "github.com/k8snetworkplumbingwg/network-attachment-definition-client/pkg/apis/k8s.cni.cncf.io/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// TestServer starts the API server, checks that the administrator token
// is required and works, and round-trips a NetworkAttachmentDefinition
// through the NAD CRD.
func TestServer(t *testing.T) {
	s := Start(t)
	ctx := context.Background()
	cs := kubernetes.NewForConfigOrDie(s.Config)
	v, err := cs.Discovery().ServerVersion()
	if err != nil {
		t.Fatal(err)
	}
	if v.GitVersion != KubeVersion {
		t.Errorf("server version %s, want %s", v.GitVersion, KubeVersion)
	}

	anon := rest.CopyConfig(s.Config)
	anon.BearerToken = "not-the-token"
	_, err = kubernetes.NewForConfigOrDie(anon).CoreV1().Namespaces().List(ctx, metav1.ListOptions{})
	if !apierrors.IsUnauthorized(err) {
		t.Errorf("a wrong token listed namespaces: err %v, want Unauthorized", err)
	}

	InstallCRDs(t, s.Config, NADCRD())
	dyn := dynamic.NewForConfigOrDie(s.Config)
	gvr := schema.GroupVersionResource{Group: "k8s.cni.cncf.io", Version: "v1", Resource: "network-attachment-definitions"}
	nad := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "k8s.cni.cncf.io/v1", "kind": "NetworkAttachmentDefinition",
		"metadata": map[string]any{"name": "n1", "namespace": "default"},
		"spec":     map[string]any{"config": `{"cniVersion":"1.1.0","type":"ovn-k8s-cni-overlay"}`},
	}}
	if _, err := dyn.Resource(gvr).Namespace("default").Create(ctx, nad, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	got, err := dyn.Resource(gvr).Namespace("default").Get(ctx, "n1", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var typed nadv1.NetworkAttachmentDefinition
	if err := runtimeConvert(got, &typed); err != nil {
		t.Fatal(err)
	}
	if typed.Spec.Config != `{"cniVersion":"1.1.0","type":"ovn-k8s-cni-overlay"}` {
		t.Errorf("spec.config = %q", typed.Spec.Config)
	}
	// Starting and serving took processor time; a stopped server has none.
	if s.CPU() <= 0 {
		t.Errorf("CPU() = %v after serving requests", s.CPU())
	}
	s.Stop()
	if s.CPU() != 0 {
		t.Errorf("CPU() = %v after Stop", s.CPU())
	}
}
