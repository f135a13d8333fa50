package netconf

import (
	"net/netip"
	"testing"

	"github.com/udnkit/udnkit/ipam"
	"github.com/udnkit/udnkit/topology"
)

// checkPlansWithPod is the property issue 22 asks of the validators: a
// network that validates plans on a node (topology.Plan, the node's zone),
// and its first subnet (a Layer3 network's first host subnet) has an
// address for a pod.
func checkPlansWithPod(t *testing.T, n *Network) {
	t.Helper()
	if n.IPAMDisabled || len(n.Subnets) == 0 {
		return
	}
	n = n.Clone()
	n.ID = 1
	nd := topology.Node{Name: "node1", ID: ipam.MinNodeID, Chassis: "chassis-1",
		Addresses: []netip.Prefix{netip.MustParsePrefix("172.18.0.2/16"), netip.MustParsePrefix("fc00::2/64")},
		NextHops:  []netip.Addr{netip.MustParseAddr("172.18.0.1"), netip.MustParseAddr("fc00::1")}}
	in := topology.Input{Network: n, Nodes: []topology.Node{nd}, Zone: "node1"}
	var pool []netip.Prefix
	switch n.Topology {
	case TopologyLayer3:
		hs := map[bool]bool{}
		in.HostSubnets = map[string][]netip.Prefix{}
		for _, s := range n.Subnets {
			h := netip.PrefixFrom(s.CIDR.Addr(), s.HostPrefix)
			pool = append(pool, h)
			if !hs[h.Addr().Is4()] {
				hs[h.Addr().Is4()] = true
				in.HostSubnets["node1"] = append(in.HostSubnets["node1"], h)
			}
			// Any node may be given the host subnets excludeSubnets touch.
			for _, ex := range n.ExcludeSubnets {
				if s.CIDR.Contains(ex.Addr()) {
					x, _ := ex.Addr().Prefix(s.HostPrefix)
					pool = append(pool, x)
				}
			}
		}
	case TopologyLayer2:
		in.TunnelKeys = []int{ipam.DynamicTunnelKeyFirst}
		if n.IsPrimary() {
			in.TunnelKeys = append(in.TunnelKeys, ipam.DynamicTunnelKeyFirst+1)
		}
		fallthrough
	default:
		pool = n.SubnetPrefixes()
	}
	if _, err := topology.Plan(in); err != nil {
		t.Fatalf("%s validated but does not plan on a node: %v", n, err)
	}
	for _, p := range pool {
		ips, err := ipam.NewIPPool(p, n.ExcludeSubnets...)
		if err != nil {
			t.Fatalf("%s: pool %s: %v", n, p, err)
		}
		if _, err := ips.Allocate(); err != nil {
			t.Fatalf("%s validated but %s holds no pod: %v", n, p, err)
		}
	}
}

// TestValidatedNetworksPlanWithPod runs the list through the
// property: each is refused, or plans and holds a pod.
func TestValidatedNetworksPlanWithPod(t *testing.T) {
	for _, tc := range []struct {
		topo                   Topology
		role                   Role
		subnets, exclude, join []string
	}{
		{TopologyLayer2, RoleSecondary, []string{"10.0.0.0/32"}, nil, nil},
		{TopologyLayer2, RoleSecondary, []string{"10.0.0.0/31"}, nil, nil},
		{TopologyLayer2, RoleSecondary, []string{"10.0.0.0/30"}, nil, nil},
		{TopologyLayer2, RoleSecondary, []string{"fd00::/128"}, nil, nil},
		{TopologyLayer2, RoleSecondary, []string{"fd00::/127"}, nil, nil},
		{TopologyLayer2, RolePrimary, []string{"10.0.0.0/30"}, nil, nil},
		{TopologyLayer3, RolePrimary, []string{"10.128.0.0/16/30"}, nil, nil},
		{TopologyLayer3, RoleSecondary, []string{"10.128.0.0/16/29"}, nil, nil},
		{TopologyLayer2, RoleSecondary, []string{"10.0.0.0/24"}, []string{"10.0.0.0/24"}, nil},
		{TopologyLayer3, RolePrimary, []string{"10.0.0.0/16/24"}, []string{"10.0.5.0/24"}, nil},
		{TopologyLayer3, RolePrimary, []string{"10.0.0.0/16/24"}, []string{"10.0.5.0/25", "10.0.5.128/25"}, nil},
		{TopologyLayer3, RoleSecondary, []string{"10.0.0.0/16/24"}, []string{"10.0.4.0/23"}, nil},
		{TopologyLayer2, RolePrimary, []string{"10.0.0.0/24"}, nil, []string{"100.65.0.0/32"}},
		{TopologyLayer2, RolePrimary, []string{"10.0.0.0/24"}, nil, []string{"100.65.0.0/31"}},
		{TopologyLayer2, RolePrimary, []string{"fd00::/64"}, nil, []string{"fd99::/128"}},
	} {
		u := validUDN()
		u.Spec = UserDefinedNetworkSpec{Topology: tc.topo, Role: tc.role, Subnets: tc.subnets, ExcludeSubnets: tc.exclude, JoinSubnets: tc.join}
		if n, err := NetworkFromUDN(u); err == nil {
			checkPlansWithPod(t, n)
		}
	}
}
