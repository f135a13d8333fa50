package netconf

import (
	"errors"
	"net/netip"
	"strings"
	"testing"
)

func mustPrefixes(ss ...string) []netip.Prefix {
	out := make([]netip.Prefix, len(ss))
	for i, s := range ss {
		out[i] = netip.MustParsePrefix(s)
	}
	return out
}

// TestCheckClusterReference ports go-controller/pkg/util/multi_network_test.go
// TestSubnetOverlapCheck (its cluster settings: cluster 10.128.0.0/14 and
// fe00::/16, services 172.30.0.0/16 and fe01::/16, masquerade
// 169.254.169.0/29 and fd69::/125, join 100.64.0.0/16 and fd98::/64) and
// TestNewNetInfo (a network's families against the cluster's).
func TestCheckClusterReference(t *testing.T) {
	c := Cluster{PodSubnets: mustPrefixes("10.128.0.0/14", "fe00::/16"), ServiceCIDRs: mustPrefixes("172.30.0.0/16", "fe01::/16"),
		MasqueradeSubnets: mustPrefixes("169.254.169.0/29", "fd69::/125"), JoinSubnets: mustPrefixes("100.64.0.0/16", "fd98::/64")}
	for _, tc := range []struct {
		name, conf, want string
	}{
		{"return error when IPv4 POD subnet in net-attach-def overlaps other subnets",
			`{"name":"tenantred","type":"ovn-k8s-cni-overlay","topology":"layer2","subnets":"10.129.0.0/16","joinSubnet":"100.65.0.0/24","role":"primary","netAttachDefName":"ns1/nad1"}`,
			`user defined subnet "10.129.0.0/16" overlaps cluster subnet "10.128.0.0/14"`},
		{"return error when IPv6 POD subnet in net-attach-def overlaps other subnets",
			`{"name":"tenantred","type":"ovn-k8s-cni-overlay","topology":"layer2","subnets":"192.168.0.0/16,fe01::/24","joinSubnet":"100.65.0.0/24","role":"primary","netAttachDefName":"ns1/nad1"}`,
			`user defined subnet "fe01::/24" overlaps service subnet "fe01::/16"`},
		{"excluded subnet should not be considered for overlap check",
			`{"name":"tenantred","type":"ovn-k8s-cni-overlay","topology":"layer2","subnets":"10.0.0.0/8","excludeSubnets":"10.128.0.0/14","joinSubnet":"100.65.0.0/24","role":"primary","netAttachDefName":"ns1/nad1"}`,
			""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			nc, err := ParseNetConf([]byte(tc.conf))
			if err != nil {
				t.Fatal(err)
			}
			n, err := nc.Network()
			if err != nil {
				t.Fatal(err)
			}
			err = CheckCluster(n, c)
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if !errors.Is(err, ErrInvalidSpec) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
	// The reference's second and fourth cases put a join subnet in the
	// default join subnet and in the masquerade subnet, which udnkit's own
	// validation refuses before any cluster check (with the defaults); the
	// check says the same of such networks.
	for _, jc := range []struct{ join, want string }{
		{"100.64.0.0/24", `user defined join subnet "100.64.0.0/24" overlaps built-in join subnet "100.64.0.0/16"`},
		{"fd69::/112", `user defined join subnet "fd69::/112" overlaps masquerade subnet "fd69::/125"`},
	} {
		n := &Network{Name: "tenantred", Topology: TopologyLayer2, Role: RolePrimary,
			Subnets:     []Subnet{{CIDR: netip.MustParsePrefix("192.168.0.0/16")}, {CIDR: netip.MustParsePrefix("fe02::/24")}},
			JoinSubnets: mustPrefixes(jc.join)}
		if err := CheckCluster(n, c); err == nil || !strings.Contains(err.Error(), jc.want) {
			t.Errorf("join subnet %s: %v", jc.join, err)
		}
	}

	for _, tc := range []struct {
		name       string
		subnets    []string
		ipv4, ipv6 bool
		want       string
	}{
		{"ipv4 primary network in ipv4 cluster", []string{"192.168.200.0/16"}, true, false, ""},
		{"ipv4 primary network in ipv6 cluster", []string{"192.168.200.0/16"}, false, true, "attempting to use ipv4 subnets but the cluster does not support ipv4"},
		{"ipv4 primary network in dualstack cluster", []string{"192.168.200.0/16"}, true, true, ""},
		{"ipv6 primary network in ipv4 cluster", []string{"fda6::/48"}, true, false, "attempting to use ipv6 subnets but the cluster does not support ipv6"},
		{"ipv6 primary network in ipv6 cluster", []string{"fda6::/48"}, false, true, ""},
		{"ipv6 primary network in dualstack cluster", []string{"fda6::/48"}, true, true, ""},
		{"dualstack primary network in ipv4 cluster", []string{"192.168.200.0/16", "fda6::/48"}, true, false, "attempting to use ipv6 subnets but the cluster does not support ipv6"},
		{"dualstack primary network in ipv6 cluster", []string{"192.168.200.0/16", "fda6::/48"}, false, true, "attempting to use ipv4 subnets but the cluster does not support ipv4"},
		{"dualstack primary network in dualstack cluster", []string{"192.168.200.0/16", "fda6::/48"}, true, true, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := &Network{Name: "l3-network", Topology: TopologyLayer3, Role: RolePrimary}
			for _, s := range tc.subnets {
				n.Subnets = append(n.Subnets, Subnet{CIDR: netip.MustParsePrefix(s)})
			}
			err := CheckCluster(n, Cluster{IPv4: tc.ipv4, IPv6: tc.ipv6})
			if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
}

// TestLayer3SeveralSubnetsPerFamily: a spec holds at most two subnets, of
// different families (seed 000 lines 494-495 and the reference's CRD); a
// Layer3 NetConf may list several of a family (the reference's parser),
// that do not overlap; other topologies keep one per family.
func TestLayer3SeveralSubnetsPerFamily(t *testing.T) {
	spec := func(topo Topology, subnets ...string) *UserDefinedNetwork {
		u := &UserDefinedNetwork{}
		u.Namespace, u.Name = "ns1", "blue"
		u.Spec = UserDefinedNetworkSpec{Topology: topo, Role: RolePrimary, Subnets: subnets}
		return u
	}
	n, err := NetworkFromUDN(spec(TopologyLayer3, "10.128.0.0/16/24", "fd00::/48/64"))
	if err != nil || len(n.Subnets) != 2 || len(n.JoinSubnets) != 2 {
		t.Fatalf("dual-stack Layer3 subnets: %v %v", n, err)
	}
	for _, bad := range []*UserDefinedNetwork{
		spec(TopologyLayer3, "10.128.0.0/16/24", "10.129.0.0/16/24"),
		spec(TopologyLayer3, "10.128.0.0/16/24", "10.128.5.0/24/26"),
		spec(TopologyLayer2, "10.128.0.0/24", "10.129.0.0/24"),
		spec(TopologyLayer3, "10.128.0.0/16/24", "10.129.0.0/16/24", "10.130.0.0/16/24"),
	} {
		if _, err := NetworkFromUDN(bad); !errors.Is(err, ErrInvalidSpec) {
			t.Errorf("%v: %v", bad.Spec.Subnets, err)
		}
	}
	nc, err := ParseNetConf([]byte(`{"cniVersion":"1.1.0","type":"ovn-k8s-cni-overlay","name":"ns1_blue","netAttachDefName":"ns1/blue",
		"topology":"layer3","role":"primary","subnets":"10.128.0.0/16/24,10.129.0.0/16/24,10.130.0.0/16/24,fd00::/48/64"}`))
	if err != nil {
		t.Fatal(err)
	}
	if n, err := nc.Network(); err != nil || len(n.Subnets) != 4 {
		t.Errorf("a NetConf with three IPv4 subnets: %v %v", n, err)
	}
}
