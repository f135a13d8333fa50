package netconf

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestLocalnetCRDScenarios ports the reference's CUDN Localnet CRD
// scenarios (OVN-Kubernetes 8871cd9c, test/e2e/testscenario/cudn/
// {invalid-scenarios-localnet-subnets,-mtu,-vlan,-role,valid-scenarios-
// localnet}.go), each case naming its file and Description. The
// reference's per-topology structs (localnet.vlan.mode, .access.id) are
// udnkit's localnet.vlanID; want is a fragment of udnkit's error, ""
// means valid.
func TestLocalnetCRDScenarios(t *testing.T) {
	const (
		sub = "invalid-scenarios-localnet-subnets.go: "
		mtu = "invalid-scenarios-localnet-mtu.go: "
		vln = "invalid-scenarios-localnet-vlan.go: "
		rol = "invalid-scenarios-localnet-role.go: "
		val = "valid-scenarios-localnet.go: "
	)
	type spec = UserDefinedNetworkSpec
	ln := func(s spec) spec {
		s.Topology = TopologyLocalnet
		if s.Role == "x" {
			s.Role = ""
		} else if s.Role == "" {
			s.Role = RoleSecondary
		}
		if s.Localnet == nil {
			s.Localnet = &LocalnetSpec{PhysicalNetworkName: "localnet1"}
		}
		return s
	}
	disabled := &IPAMSpec{Mode: IPAMDisabled}
	for _, tc := range []struct {
		name, want string
		spec       spec
	}{
		{sub + "unset subnets, and ipam.mode is unset", "spec.template.spec.subnets: Required value", ln(spec{})},
		{sub + "ipam.mode is Enabled but subnets is unset", "spec.template.spec.subnets: Required value", ln(spec{IPAM: &IPAMSpec{Mode: IPAMEnabled}})},
		{sub + "subnets is set but ipam.mode is Disabled", "must be omitted when ipam.mode is Disabled", ln(spec{Subnets: []string{"10.0.0.0/24"}, IPAM: disabled})},
		{sub + "subnets is empty", "spec.template.spec.subnets: Required value", ln(spec{Subnets: []string{}})},
		{sub + "excludeSubnets is set, subnets is unset", "spec.template.spec.excludeSubnets[0]", ln(spec{ExcludeSubnets: []string{"10.0.0.1/24"}})},
		{sub + "excludeSubnets is set, ipam.mode is Disabled", "spec.template.spec.excludeSubnets[0]", ln(spec{ExcludeSubnets: []string{"10.0.0.1/24"}, IPAM: disabled})},
		{sub + "subnets & excludeSubnets are set, but ipam.mode is Disabled", "must be omitted when ipam.mode is Disabled",
			ln(spec{Subnets: []string{"10.0.0.0/24"}, ExcludeSubnets: []string{"10.0.0.1/32"}, IPAM: disabled})},
		{sub + "invalid subnets - invalid IPv4 CIDR", `spec.template.spec.subnets[0]: Invalid value: "300.0.0.0/24"`, ln(spec{Subnets: []string{"300.0.0.0/24"}})},
		{sub + "invalid subnets - invalid IPv6 CIDR", `spec.template.spec.subnets[0]: Invalid value: "2014:100:200::0/300"`, ln(spec{Subnets: []string{"2014:100:200::0/300"}})},
		{sub + "invalid subnets - two IPv4 CIDRs", "at most one subnet per IP family", ln(spec{Subnets: []string{"10.10.0.0/24", "10.20.0.0/24"}})},
		{sub + "invalid subnets - two IPv6 CIDRs", "at most one subnet per IP family", ln(spec{Subnets: []string{"2001:aaa::/64", "2001:bbb::/64"}})},
		// Departure: an empty excludeSubnets list is read as unset (the
		// CRD's minItems 1 refuses it).
		{sub + "invalid excludeSubnets - empty slice (accepted here)", "", ln(spec{Subnets: []string{"10.0.0.0/24"}, ExcludeSubnets: []string{}})},
		{sub + "invalid excludeSubnets - invalid IPv4 CIDR", `spec.template.spec.excludeSubnets[0]: Invalid value: "10.0.0.0/300"`,
			ln(spec{Subnets: []string{"10.0.0.0/24"}, ExcludeSubnets: []string{"10.0.0.0/300"}})},
		{sub + "invalid excludeSubnets - invalid IPv6 CIDR", `spec.template.spec.excludeSubnets[0]: Invalid value: "2014:100:200::0/300"`,
			ln(spec{Subnets: []string{"10.0.0.0/24"}, ExcludeSubnets: []string{"2014:100:200::0/300"}})},
		{sub + "ipam.lifecycle is Persistent but ipam.mode is Disabled", "Persistent requires IPAM",
			ln(spec{IPAM: &IPAMSpec{Mode: IPAMDisabled, Lifecycle: IPAMPersistent}})},
		{mtu + "invalid MTU - higher than 65536", "spec.template.spec.mtu", ln(spec{MTU: 65537, IPAM: disabled})},
		{mtu + "invalid MTU - lower than 576", "spec.template.spec.mtu", ln(spec{MTU: 575, Subnets: []string{"10.0.0.0/24"}})},
		{mtu + "invalid MTU - when IPv6 subnet is set, should be at least 1280", "at least 1280", ln(spec{MTU: 1279, Subnets: []string{"2001:dbb::/64"}})},
		{mtu + "invalid MTU - when dualstack subnet is set, should be at least 1280", "at least 1280",
			ln(spec{MTU: 1279, Subnets: []string{"192.168.0.0/16", "2001:dbb::/64"}})},
		{vln + "invalid VLAN - vlan access id is 4095", "spec.template.spec.localnet.vlanID",
			ln(spec{Subnets: []string{"192.168.0.0/16"}, Localnet: &LocalnetSpec{PhysicalNetworkName: "localnet1", VLANID: 4095}})},
		{rol + "role unset", "spec.template.spec.role: Required value", ln(spec{Role: "x", Subnets: []string{"10.0.0.0/24"}})},
		{rol + "role is primary", "spec.template.spec.role", ln(spec{Role: RolePrimary, Subnets: []string{"10.0.0.0/24"}})},
		{val + "should create localnet topology successfully - minimal", "", ln(spec{Subnets: []string{"10.0.0.0/24"}})},
		{val + "should create localnet topology successfully - ipam persistent", "",
			ln(spec{IPAM: &IPAMSpec{Lifecycle: IPAMPersistent}, Subnets: []string{"192.168.0.0/16", "2001:dbb::/64"},
				ExcludeSubnets: []string{"192.168.0.1/32", "2001:dbb::1/128"}, MTU: 9000, Localnet: &LocalnetSpec{PhysicalNetworkName: "localnet1", VLANID: 3}})},
		{val + "should create localnet topology successfully - ipam disabled", "",
			ln(spec{IPAM: disabled, MTU: 9000, Localnet: &LocalnetSpec{PhysicalNetworkName: "localnet1", VLANID: 4094}})},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &ClusterUserDefinedNetwork{
				ObjectMeta: metav1.ObjectMeta{Name: "localnet", UID: "uid"},
				Spec: ClusterUserDefinedNetworkSpec{
					NamespaceSelector: metav1.LabelSelector{MatchLabels: map[string]string{"kubernetes.io/metadata.name": "red"}},
					Template:          &UserDefinedNetworkTemplateSpec{Spec: tc.spec},
				},
			}
			errs := ValidateCUDN(c)
			got := errs.ToAggregate()
			switch {
			case tc.want == "" && len(errs) > 0:
				t.Fatalf("unexpected error: %v", got)
			case tc.want != "" && (got == nil || !strings.Contains(got.Error(), tc.want)):
				t.Fatalf("err = %v, want one containing %q", got, tc.want)
			}
			if tc.want == "" {
				// Valid scenarios also render under the reference profile
				// and read back.
				r, err := refOpts.RenderCUDN(c, 1, []string{"red"})
				if err != nil {
					t.Fatal(err)
				}
				checkRoundTrip(t, r)
			}
		})
	}
}
