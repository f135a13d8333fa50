package netconf

import (
	"strings"
	"testing"

	nadv1 "github.com/k8snetworkplumbingwg/network-attachment-definition-client/pkg/apis/k8s.cni.cncf.io/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// maxEcho bounds what an error may print for one bad input: a few quoted
// prefixes and details, never the input.
const maxEcho = 8 << 10

var tenMB = strings.Repeat("a", 10<<20)

// TestBoundedMessages: every error that echoes a 10 MB field stays a few
// KiB (the cases), and still names the field.
func TestBoundedMessages(t *testing.T) {
	udn := func(edit func(u *UserDefinedNetwork)) *UserDefinedNetwork { u := validUDN(); edit(u); return u }
	cudn := func(edit func(c *ClusterUserDefinedNetwork)) *ClusterUserDefinedNetwork {
		c := validCUDN()
		edit(c)
		return c
	}
	for _, tc := range []struct {
		name, field string
		udn         *UserDefinedNetwork
		cudn        *ClusterUserDefinedNetwork
	}{
		{"UDN name", "metadata.name", udn(func(u *UserDefinedNetwork) { u.Name = tenMB }), nil},
		{"UDN namespace", "metadata.namespace", udn(func(u *UserDefinedNetwork) { u.Namespace = tenMB }), nil},
		{"UDN subnet", "spec.subnets[0]", udn(func(u *UserDefinedNetwork) { u.Spec.Subnets = []string{tenMB} }), nil},
		{"UDN excludeSubnets", "spec.excludeSubnets[0]", udn(func(u *UserDefinedNetwork) { u.Spec.ExcludeSubnets = []string{tenMB} }), nil},
		{"UDN joinSubnets", "spec.joinSubnets[0]", udn(func(u *UserDefinedNetwork) { u.Spec.JoinSubnets = []string{tenMB} }), nil},
		{"UDN topology", "spec.topology", udn(func(u *UserDefinedNetwork) { u.Spec.Topology = Topology(tenMB) }), nil},
		{"UDN ipamLifecycle", "spec.ipamLifecycle", udn(func(u *UserDefinedNetwork) { u.Spec.IPAMLifecycle = IPAMLifecycle(tenMB) }), nil},
		{"CUDN name", "metadata.name", nil, cudn(func(c *ClusterUserDefinedNetwork) { c.Name = tenMB })},
		{"CUDN selector value", "spec.namespaceSelector", nil, cudn(func(c *ClusterUserDefinedNetwork) {
			c.Spec.NamespaceSelector.MatchLabels = map[string]string{"k": tenMB}
		})},
		{"CUDN selector key", "spec.namespaceSelector", nil, cudn(func(c *ClusterUserDefinedNetwork) {
			c.Spec.NamespaceSelector.MatchExpressions = []metav1.LabelSelectorRequirement{{Key: tenMB, Operator: "In", Values: []string{tenMB}}}
		})},
		{"CUDN vrf", "spec.vrf", nil, cudn(func(c *ClusterUserDefinedNetwork) { c.Spec.VRF = tenMB })},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var errs field.ErrorList
			var err error
			if tc.udn != nil {
				errs = ValidateUDN(tc.udn)
				_, err = NetworkFromUDN(tc.udn)
			} else {
				errs = ValidateCUDN(tc.cudn)
				_, err = NetworkFromCUDN(tc.cudn, 1)
			}
			if len(errs) == 0 || err == nil {
				t.Fatalf("accepted: %d errors, %v", len(errs), err)
			}
			for _, e := range errs {
				if len(e.Error()) > maxEcho {
					t.Errorf("%d-byte error: %.300s", len(e.Error()), e.Error())
				}
			}
			if len(err.Error()) > maxEcho || !strings.Contains(err.Error(), tc.field) {
				t.Errorf("Network error: %d bytes, naming %s: %.300s", len(err.Error()), tc.field, err)
			}
			if m := errorsMessage(errs); !strings.Contains(m, tc.field) || len(m) > MaxMessageLength {
				t.Errorf("condition message: %d bytes, naming %s: %.300s", len(m), tc.field, m)
			}
		})
	}
}

// TestErrorsMessageKeepsOversizeFirstError: a first error longer than a
// condition message is cut, not dropped ("... and 1 more errors" alone
// named no field).
func TestErrorsMessageKeepsOversizeFirstError(t *testing.T) {
	errs := field.ErrorList{field.Invalid(field.NewPath("spec", "subnets").Index(0), "x", tenMB[:64<<10])}
	m := errorsMessage(errs)
	if !strings.HasPrefix(m, "spec.subnets[0]") || len(m) > MaxMessageLength {
		t.Errorf("errorsMessage of one 64 KiB error: %d bytes: %.100s", len(m), m)
	}
	errs = append(errs, field.Required(field.NewPath("spec", "topology"), ""))
	m = errorsMessage(errs)
	if !strings.HasPrefix(m, "[spec.subnets[0]") || !strings.Contains(m, "and 1 more errors]") || len(m) > MaxMessageLength {
		t.Errorf("errorsMessage of two: %d bytes: %.100s ... %s", len(m), m, m[max(0, len(m)-60):])
	}
}

// TestNADBindingBounded: the NAD binding errors quote bounded prefixes
// of the NetConf's name and the NAD's key.
func TestNADBindingBounded(t *testing.T) {
	nad := &nadv1.NetworkAttachmentDefinition{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "blue"}}
	for _, c := range []*NetConf{{Name: "cluster_udn_" + tenMB, NetAttachDefName: "ns/blue"}, {Name: tenMB, NetAttachDefName: "ns/blue"},
		{Name: "ns_blue", NetAttachDefName: tenMB}} {
		err := CheckNADBinding(nad, c)
		if err == nil || len(err.Error()) > maxEcho {
			t.Errorf("CheckNADBinding: %d bytes", len(err.Error()))
		}
	}
}
