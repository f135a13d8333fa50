package netconf

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// TestLayer3HostSubnetShared: the subnets of one IP family of a Layer3
// network share one host-subnet length, as the reference requires. A spec
// follows its CRD's rule (go-controller/pkg/crd/userdefinednetwork/v1/
// shared.go:38 at 8871cd9, "Subnets from the same IP family must use the
// same hostSubnet value": both unset, or both set to one value), for a UDN
// and a CUDN, in the flat form and the CRD's; a NetConf follows its parser
// (pkg/config/utils.go:110-119, ParseClusterSubnetEntriesWithDefaults: the
// lengths with the defaults filled). Each family is checked on its own:
// a dual-stack network's IPv4 and IPv6 subnets have lengths of their own.
func TestLayer3HostSubnetShared(t *testing.T) {
	for _, tc := range []struct {
		subnets []string
		bad     int // index of the subnet the message names, -1 for none
	}{
		{[]string{"10.0.0.0/16/24", "fd00::/48/64"}, -1},
		{[]string{"10.0.0.0/16/24", "fd00::/48"}, -1},
		{[]string{"10.0.0.0/16", "fd00::/48/64"}, -1},
		{[]string{"10.0.0.0/16/26", "fd00::/48"}, -1},
		{[]string{"10.0.0.0/16/24", "10.1.0.0/16/26"}, 1},
		{[]string{"10.0.0.0/16/24", "10.1.0.0/16"}, 1},
		{[]string{"10.0.0.0/16", "10.1.0.0/16/24"}, 1},
		{[]string{"fd00::/48", "fd01::/48/64"}, 1},
	} {
		for _, role := range []Role{RolePrimary, RoleSecondary} {
			spec := UserDefinedNetworkSpec{Topology: TopologyLayer3, Role: role, Subnets: tc.subnets}
			u := &UserDefinedNetwork{ObjectMeta: metav1.ObjectMeta{Name: "n", Namespace: "ns"}, Spec: spec}
			c := &ClusterUserDefinedNetwork{ObjectMeta: metav1.ObjectMeta{Name: "n"}, Spec: ClusterUserDefinedNetworkSpec{
				NamespaceSelector: metav1.LabelSelector{MatchLabels: map[string]string{"a": "b"}},
				Template:          &UserDefinedNetworkTemplateSpec{Spec: spec}}}
			for kind, errs := range map[string]field.ErrorList{"UDN": ValidateUDN(u), "CUDN": ValidateCUDN(c)} {
				agg := errs.ToAggregate()
				got := agg != nil && strings.Contains(agg.Error(), HostSubnetMismatchMessage)
				if got != (tc.bad >= 0) {
					t.Errorf("%s %s %v: %v, want the host-subnet message %v", kind, role, tc.subnets, agg, tc.bad >= 0)
				}
				if tc.bad >= 0 {
					want := "spec.subnets[1]"
					if kind == "CUDN" {
						want = "spec.template.spec.subnets[1]"
					}
					if !strings.Contains(agg.Error(), want+`: Invalid value: "`+tc.subnets[1]+`": `+HostSubnetMismatchMessage) {
						t.Errorf("%s %s %v: %v, want the message at %s", kind, role, tc.subnets, agg, want)
					}
				}
			}
		}
	}

	// The reference CRD's form: the same rule on spec.layer3.subnets.
	u, err := DecodeUDN([]byte("metadata: {name: n, namespace: ns}\nspec:\n  topology: Layer3\n  layer3:\n    role: Primary\n" +
		"    subnets: [{cidr: 10.0.0.0/16, hostSubnet: 24}, {cidr: 10.1.0.0/16, hostSubnet: 26}, {cidr: 'fd00::/48'}]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if agg := ValidateUDN(u).ToAggregate(); agg == nil || !strings.Contains(agg.Error(), HostSubnetMismatchMessage) {
		t.Errorf("CRD form: %v, want %q", agg, HostSubnetMismatchMessage)
	}

	// A NetConf may hold several subnets of a family: their lengths, the
	// defaults filled, must agree, per family.
	for subnets, ok := range map[string]bool{
		"10.0.0.0/16/24,10.1.0.0/16/24,fd00::/48,fd01::/48/64": true,
		"10.0.0.0/16/24,10.1.0.0/16,fd00::/48":                 true, // the default is /24
		"10.0.0.0/16/26,10.1.0.0/16/26,fd00::/48":              true,
		"10.0.0.0/16/24,10.1.0.0/16/26,fd00::/48":              false,
		"10.0.0.0/16,10.1.0.0/16/26":                           false,
		"fd00::/48,10.0.0.0/16/26,10.1.0.0/16/25":              false,
	} {
		conf := `{"cniVersion":"1.1.0","name":"ns_n","type":"ovn-k8s-cni-overlay","topology":"layer3","role":"primary","netAttachDefName":"ns/n","subnets":"` + subnets + `"}`
		_, err := ParseNetConf([]byte(conf))
		if (err == nil) != ok {
			t.Errorf("NetConf subnets %s: %v, want valid %v", subnets, err, ok)
		}
		if err != nil && !strings.Contains(err.Error(), HostSubnetMismatchMessage) {
			t.Errorf("NetConf subnets %s: %v, want %q", subnets, err, HostSubnetMismatchMessage)
		}
	}
}
