package netconf

import (
	"errors"
	"strings"
	"testing"
)

// TestValidateReferenceGaps: rules the reference implementation enforces
// (OVN-Kubernetes 8871cd9c) that udnkit lacked. Each case names its
// source; want is a fragment of the error, "" means valid.
func TestValidateReferenceGaps(t *testing.T) {
	const (
		phy = "test/e2e/testscenario/cudn/invalid-scenarios-localnet-phynetname.go: "
		crd = "crd/userdefinednetwork/v1/shared.go JoinSubnets rule: "
		soc = "util/multi_network.go SubnetOverlapCheck (masquerade subnets): "
	)
	long := "ycx7b6dhkhytzva3wrma0cu6mjhqpo2ty20cmpdg9ptvmt1mo9dfnrs56nr0bvg6z6zha5y208js6e2iwk6xb97sp2sojg48lu9d5vxbzzq40rwj1wchae3ju3dpj6qfsjbzjzmc0k489bloe49z4857kds43rqpeca3p5z2dfz562qu59qqb8qa3vo6pmwuaume581dqhlsz57yvbvgu5hmmmzremac7w7l4rmuirkk91767llw0vskanlc33"
	localnet := func(phys string) UserDefinedNetworkSpec {
		return UserDefinedNetworkSpec{Topology: TopologyLocalnet, Role: RoleSecondary, Subnets: []string{"10.0.0.0/24"},
			Localnet: &LocalnetSpec{PhysicalNetworkName: phys}}
	}
	for _, tc := range []struct {
		name, want string
		spec       UserDefinedNetworkSpec
	}{
		{phy + "unset PhysicalNetworkName", "spec.localnet.physicalNetworkName: Required value", localnet("")},
		{phy + "invalid PhysicalNetworkName - too long (254 bytes)", "spec.localnet.physicalNetworkName: Too long: may not be more than 253 bytes", localnet(long)},
		{phy + "253 bytes is accepted", "", localnet(long[:253])},
		{phy + "invalid PhysicalNetworkName - contain `:` chars", "spec.localnet.physicalNetworkName: Invalid value", localnet("t:est")},
		{phy + "invalid PhysicalNetworkName - contain `,` chars", "spec.localnet.physicalNetworkName: Invalid value", localnet("tes,t")},
		{phy + "invalid PhysicalNetworkName - start with `:` char", "spec.localnet.physicalNetworkName: Invalid value", localnet(":test")},
		{phy + "invalid PhysicalNetworkName - start with `,` char", "spec.localnet.physicalNetworkName: Invalid value", localnet(",test")},
		{phy + "invalid PhysicalNetworkName - ends with `:` char", "spec.localnet.physicalNetworkName: Invalid value", localnet("test:")},
		{phy + "invalid PhysicalNetworkName - ends with `,` char", "spec.localnet.physicalNetworkName: Invalid value", localnet("test,")},

		{crd + "Layer2 Secondary", "spec.joinSubnets: Forbidden: JoinSubnets is only supported for Primary network",
			UserDefinedNetworkSpec{Topology: TopologyLayer2, Role: RoleSecondary, Subnets: []string{"10.0.0.0/24"}, JoinSubnets: []string{"100.70.0.0/16"}}},
		{crd + "Layer3 Secondary", "spec.joinSubnets: Forbidden",
			UserDefinedNetworkSpec{Topology: TopologyLayer3, Role: RoleSecondary, Subnets: []string{"10.0.0.0/16"}, JoinSubnets: []string{"100.70.0.0/16"}}},
		{crd + "Localnet (always secondary)", "spec.joinSubnets: Forbidden",
			UserDefinedNetworkSpec{Topology: TopologyLocalnet, Role: RoleSecondary, Subnets: []string{"10.0.0.0/24"}, JoinSubnets: []string{"100.70.0.0/16"},
				Localnet: &LocalnetSpec{PhysicalNetworkName: "physnet"}}},
		{crd + "Layer2 Primary", "",
			UserDefinedNetworkSpec{Topology: TopologyLayer2, Role: RolePrimary, Subnets: []string{"10.0.0.0/24"}, JoinSubnets: []string{"100.70.0.0/16"}}},

		{soc + "primary Layer2 pod subnet inside 169.254.0.0/17", "spec.subnets[0]: Invalid value: \"169.254.0.0/24\": overlaps the masquerade subnet 169.254.0.0/17",
			UserDefinedNetworkSpec{Topology: TopologyLayer2, Role: RolePrimary, Subnets: []string{"169.254.0.0/24"}}},
		{soc + "secondary Layer3 pod subnet covering 169.254.0.0/17", "overlaps the masquerade subnet 169.254.0.0/17",
			UserDefinedNetworkSpec{Topology: TopologyLayer3, Role: RoleSecondary, Subnets: []string{"169.254.0.0/16/24"}}},
		{soc + "IPv6 pod subnet covering fd69::/112", "overlaps the masquerade subnet fd69::/112",
			UserDefinedNetworkSpec{Topology: TopologyLayer2, Role: RoleSecondary, Subnets: []string{"fd69::/64"}}},
		{soc + "pod subnet next to the masquerade subnet", "",
			UserDefinedNetworkSpec{Topology: TopologyLayer2, Role: RolePrimary, Subnets: []string{"169.254.128.0/24"}}},
		{soc + "Localnet is not checked (the reference skips it)", "",
			UserDefinedNetworkSpec{Topology: TopologyLocalnet, Role: RoleSecondary, Subnets: []string{"169.254.0.0/24"}, Localnet: &LocalnetSpec{PhysicalNetworkName: "physnet"}}},
		{soc + "join subnet inside 169.254.0.0/17", "spec.joinSubnets[0]: Invalid value: \"169.254.64.0/24\": overlaps the masquerade subnet 169.254.0.0/17",
			UserDefinedNetworkSpec{Topology: TopologyLayer3, Role: RolePrimary, Subnets: []string{"10.0.0.0/16"}, JoinSubnets: []string{"169.254.64.0/24"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u := validUDN()
			u.Spec = tc.spec
			errs := ValidateUDN(u)
			got := errs.ToAggregate()
			switch {
			case tc.want == "" && len(errs) > 0:
				t.Fatalf("unexpected error: %v", got)
			case tc.want != "" && (got == nil || !strings.Contains(got.Error(), tc.want)):
				t.Fatalf("err = %v, want one containing %q", got, tc.want)
			}
		})
	}
}

// TestSubnetOverlapCheckReference ports the NetConf cases of
// go-controller/pkg/util/multi_network_test.go TestSubnetOverlapCheck that
// need no cluster settings; TestCheckClusterReference has those that do.
func TestSubnetOverlapCheckReference(t *testing.T) {
	for _, tc := range []struct {
		name, config, want string
		is                 error
	}{
		{"return error when IPv4 join subnet in net-attach-def overlaps other subnets",
			`{"name":"tenantred","type":"ovn-k8s-cni-overlay","topology":"layer2","subnets":"192.168.0.0/16","joinSubnet":"100.64.0.0/24","primaryNetwork":true,"netAttachDefName":"ns1/nad1"}`,
			"overlaps the default network's join subnet 100.64.0.0/16", nil},
		{"return error when IPv6 join subnet in net-attach-def overlaps other subnets",
			`{"name":"tenantred","type":"ovn-k8s-cni-overlay","topology":"layer2","subnets":"192.168.0.0/16,fe02::/24","joinSubnet":"100.65.0.0/24,fd69::/112","primaryNetwork":true,"netAttachDefName":"ns1/nad1"}`,
			"joinSubnet[1]: Invalid value: \"fd69::/112\": overlaps the masquerade subnet fd69::/112", nil},
		{"return error when the network is not ovnk", `{"name":"test","type":"sriov-cni"}`, "not managed by OVN", ErrNotOVNManaged},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseNetConf([]byte(tc.config))
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("err = %v, want one containing %q", err, tc.want)
			case tc.is != nil && !errors.Is(err, tc.is):
				t.Fatalf("err = %v, want it to wrap %v", err, tc.is)
			}
		})
	}
}
