package crds_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/udnkit/udnkit/netconf/podnetwork"
)

// Seed 003's examples (the KEP writes apiVersion v1; as CRDs they are
// k8s.ovn.org/v1).
const (
	seedPodNetwork = `apiVersion: v1
kind: PodNetwork
metadata:
  name: dataplane
spec:
  enabled: true
  provider: "k8s.cni.cncf.io/multus"
  parametersRefs:
  - group: k8s.cni.cncf.io
    kind: network-attachment-definitions
    name: parametersA
    namespace: default
  - group: k8s.cni.cncf.io
    kind: network-attachment-definitions
    name: complementaryParametersB
    namespace: default
`
	seedPodNetworkAttachment = `apiVersion: v1
kind: PodNetworkAttachment
metadata:
  name: pod1
  namespace: default
spec:
  podNetworkName: "dataplane"
  parametersRefs:
  - group: k8s.cni.cncf.io
    kind: podParams
    name: parametersA
    namespace: default
`
)

// asCR returns a PodNetwork or PodNetworkAttachment as the API server's
// object of the CRD.
func asCR(t *testing.T, obj runtime.Object, kind string) *unstructured.Unstructured {
	t.Helper()
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		t.Fatal(err)
	}
	u := &unstructured.Unstructured{Object: m}
	u.SetAPIVersion("k8s.ovn.org/v1")
	u.SetKind(kind)
	unstructured.RemoveNestedField(u.Object, "status")
	unstructured.RemoveNestedField(u.Object, "metadata", "creationTimestamp")
	return u
}

// admitPodNetworks: the seed's PodNetwork and PodNetworkAttachment are
// admitted; each invalid one (and each forbidden update) is refused by the
// API server and by the SDK's validation with the same message.
func admitPodNetworks(t *testing.T, c client.Client) {
	ctx := context.Background()
	pn, err := podnetwork.DecodePodNetwork([]byte(seedPodNetwork))
	if err != nil {
		t.Fatal(err)
	}
	pna, err := podnetwork.DecodePodNetworkAttachment([]byte(seedPodNetworkAttachment))
	if err != nil {
		t.Fatal(err)
	}
	if errs := append(podnetwork.ValidatePodNetwork(pn), podnetwork.ValidatePodNetworkAttachment(pna)...); len(errs) > 0 {
		t.Fatalf("the SDK refuses seed 003's examples: %v", errs)
	}
	seedPN, seedPNA := asCR(t, pn, podnetwork.KindPodNetwork), asCR(t, pna, podnetwork.KindPodNetworkAttachment)
	for _, u := range []*unstructured.Unstructured{seedPN, seedPNA} {
		if err := c.Create(ctx, u, client.FieldValidation("Strict")); err != nil {
			t.Fatalf("the API server refused seed 003's %s: %v", u.GetKind(), err)
		}
	}

	type tc struct {
		name, message string
		obj           runtime.Object
		validate      func() field.ErrorList
	}
	var cases []tc
	addPN := func(name, msg string, mut func(*podnetwork.PodNetwork)) {
		o := &podnetwork.PodNetwork{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: podnetwork.PodNetworkSpec{Provider: "foo.io/bar"}}
		mut(o)
		cases = append(cases, tc{name, msg, o, func() field.ErrorList { return podnetwork.ValidatePodNetwork(o) }})
	}
	addPNA := func(name, msg string, mut func(*podnetwork.PodNetworkAttachment)) {
		o := &podnetwork.PodNetworkAttachment{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name},
			Spec: podnetwork.PodNetworkAttachmentSpec{PodNetworkName: "dataplane"}}
		mut(o)
		cases = append(cases, tc{name, msg, o, func() field.ErrorList { return podnetwork.ValidatePodNetworkAttachment(o) }})
	}
	ref := podnetwork.ParametersRef{Group: "k8s.cni.cncf.io", Kind: "network-attachment-definitions", Name: "a", Namespace: "default"}
	addPN("pn-provider-blank", "must not contain blanks or control characters", func(o *podnetwork.PodNetwork) {
		o.Spec.Provider = "foo.io/my bar"
	})
	addPN("pn-provider-long", "may not be more than 253 bytes", func(o *podnetwork.PodNetwork) {
		o.Spec.Provider = strings.Repeat("p", 254)
	})
	addPN("pn-ref-no-name", "parametersRefs need group, kind and name", func(o *podnetwork.PodNetwork) {
		r := ref
		r.Name = ""
		o.Spec.ParametersRefs = []podnetwork.ParametersRef{r}
	})
	addPN("pn-ref-blank-kind", "must not contain blanks or control characters", func(o *podnetwork.PodNetwork) {
		r := ref
		r.Kind = "network attachment"
		o.Spec.ParametersRefs = []podnetwork.ParametersRef{r}
	})
	addPN("pn-ref-twice", "Duplicate value", func(o *podnetwork.PodNetwork) {
		o.Spec.ParametersRefs = []podnetwork.ParametersRef{ref, ref}
	})
	addPN("pn-ref-namespace", "a lowercase RFC 1123 label must consist of", func(o *podnetwork.PodNetwork) {
		r := ref
		r.Namespace = "Team_A"
		o.Spec.ParametersRefs = []podnetwork.ParametersRef{r}
	})
	addPN("pn-refs-too-many", "must have at most 16 items", func(o *podnetwork.PodNetwork) {
		for i := range 17 {
			r := ref
			r.Name = fmt.Sprintf("p%d", i)
			o.Spec.ParametersRefs = append(o.Spec.ParametersRefs, r)
		}
	})
	addPN("pn-ref-kind-long", "may not be more than 253 bytes", func(o *podnetwork.PodNetwork) {
		r := ref
		r.Kind = strings.Repeat("k", 254)
		o.Spec.ParametersRefs = []podnetwork.ParametersRef{r}
	})
	addPNA("pna-no-podnetwork", "the PodNetwork to attach to is required", func(o *podnetwork.PodNetworkAttachment) {
		o.Spec.PodNetworkName = ""
	})
	addPNA("pna-podnetwork-name", "a lowercase RFC 1123 subdomain must consist of", func(o *podnetwork.PodNetworkAttachment) {
		o.Spec.PodNetworkName = "Data_Plane"
	})
	addPNA("pna-ref-twice", "Duplicate value", func(o *podnetwork.PodNetworkAttachment) {
		o.Spec.ParametersRefs = []podnetwork.ParametersRef{ref, ref}
	})
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if sdk := tc.validate().ToAggregate(); sdk == nil || !strings.Contains(sdk.Error(), tc.message) {
				t.Errorf("SDK: %v, want %q", sdk, tc.message)
			}
			kind := podnetwork.KindPodNetwork
			if _, ok := tc.obj.(*podnetwork.PodNetworkAttachment); ok {
				kind = podnetwork.KindPodNetworkAttachment
			}
			err := c.Create(ctx, asCR(t, tc.obj, kind), client.FieldValidation("Strict"))
			if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), tc.message) {
				t.Errorf("API server: %v, want Invalid with %q", err, tc.message)
			}
		})
	}

	t.Run("pn-updates", func(t *testing.T) {
		get := func() *unstructured.Unstructured {
			u := &unstructured.Unstructured{}
			u.SetAPIVersion("k8s.ovn.org/v1")
			u.SetKind(podnetwork.KindPodNetwork)
			if err := c.Get(ctx, client.ObjectKey{Name: "dataplane"}, u); err != nil {
				t.Fatal(err)
			}
			return u
		}
		// spec.enabled may change, in both.
		disabled := pn.DeepCopy()
		disabled.Spec.Enabled = ptr.To(false)
		if errs := podnetwork.ValidatePodNetworkUpdate(pn, disabled); len(errs) > 0 {
			t.Errorf("SDK refuses disabling: %v", errs)
		}
		u := get()
		if err := unstructured.SetNestedField(u.Object, false, "spec", "enabled"); err != nil {
			t.Fatal(err)
		}
		if err := c.Update(ctx, u); err != nil {
			t.Errorf("API server refuses disabling: %v", err)
		}
		const immutable = "immutable: only spec.enabled of a PodNetwork may change"
		moved := pn.DeepCopy()
		moved.Spec.Provider = "foo.io/other"
		if errs := podnetwork.ValidatePodNetworkUpdate(pn, moved).ToAggregate(); errs == nil || !strings.Contains(errs.Error(), immutable) {
			t.Errorf("SDK update: %v, want %q", errs, immutable)
		}
		u = get()
		if err := unstructured.SetNestedField(u.Object, "foo.io/other", "spec", "provider"); err != nil {
			t.Fatal(err)
		}
		if err := c.Update(ctx, u); !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), immutable) || !strings.Contains(err.Error(), "spec.provider") {
			t.Errorf("API server update of spec.provider: %v, want Invalid with %q", err, immutable)
		}
		u = get()
		unstructured.RemoveNestedField(u.Object, "spec", "parametersRefs")
		if err := c.Update(ctx, u); !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), immutable) {
			t.Errorf("API server update of spec.parametersRefs: %v, want Invalid with %q", err, immutable)
		}
		// Conditions through the status subresource: at most 5.
		u = get()
		var conds []any
		for _, typ := range []string{"Ready", "ParamsReady", "A", "B", "C", "D"} {
			conds = append(conds, map[string]any{"type": typ, "status": "True", "reason": "Test", "message": "",
				"lastTransitionTime": "2026-01-01T00:00:00Z"})
		}
		if err := unstructured.SetNestedSlice(u.Object, conds, "status", "conditions"); err != nil {
			t.Fatal(err)
		}
		six := pn.DeepCopy()
		for range 6 {
			six.Status.Conditions = append(six.Status.Conditions, metav1.Condition{Type: "T" + strings.Repeat("x", len(six.Status.Conditions))})
		}
		const tooMany = "must have at most 5 items"
		if errs := podnetwork.ValidatePodNetwork(six).ToAggregate(); errs == nil || !strings.Contains(errs.Error(), tooMany) {
			t.Errorf("SDK: %v, want %q", errs, tooMany)
		}
		if err := c.Status().Update(ctx, u); !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), tooMany) {
			t.Errorf("API server status update: %v, want Invalid with %q", err, tooMany)
		}
	})
	t.Run("pna-update", func(t *testing.T) {
		const immutable = "a PodNetworkAttachment is immutable; delete and recreate it"
		moved := pna.DeepCopy()
		moved.Spec.PodNetworkName = "other"
		if errs := podnetwork.ValidatePodNetworkAttachmentUpdate(pna, moved).ToAggregate(); errs == nil || !strings.Contains(errs.Error(), immutable) {
			t.Errorf("SDK update: %v, want %q", errs, immutable)
		}
		u := &unstructured.Unstructured{}
		u.SetAPIVersion("k8s.ovn.org/v1")
		u.SetKind(podnetwork.KindPodNetworkAttachment)
		if err := c.Get(ctx, client.ObjectKey{Namespace: "default", Name: "pod1"}, u); err != nil {
			t.Fatal(err)
		}
		if err := unstructured.SetNestedField(u.Object, "other", "spec", "podNetworkName"); err != nil {
			t.Fatal(err)
		}
		if err := c.Update(ctx, u); !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), immutable) {
			t.Errorf("API server update: %v, want Invalid with %q", err, immutable)
		}
	})
}
