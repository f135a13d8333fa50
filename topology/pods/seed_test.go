package pods

import (
	"net/netip"
	"slices"
	"strings"
	"testing"

	"github.com/udnkit/udnkit/netconf"
	"github.com/udnkit/udnkit/netconf/udn"
)

// routeTable renders a pod's routes as `ip route show` lists them in seed
// 000: the primary network's gateway as default route, every route via
// its network's interface, and each interface's connected subnet.
func routeTable(p Planned, ifaces []string, keys []string) string {
	var lines []string
	for i, key := range keys {
		n := p.Annotation[key]
		dev := ifaces[i]
		if n.Role == netconf.PodRolePrimary {
			for _, gw := range n.Gateways {
				lines = append(lines, "default via "+gw.String()+" dev "+dev)
			}
		}
		for _, r := range n.Routes {
			lines = append(lines, r.Dest.String()+" via "+r.NextHop.String()+" dev "+dev)
		}
		for _, ip := range n.IPs {
			lines = append(lines, ip.Masked().String()+" dev "+dev+" proto kernel scope link src "+ip.Addr().String())
		}
	}
	slices.SortStableFunc(lines, func(a, b string) int {
		da, db := strings.HasPrefix(a, "default"), strings.HasPrefix(b, "default")
		switch {
		case da && !db:
			return -1
		case db && !da:
			return 1
		}
		pa, pb := netip.MustParsePrefix(strings.Fields(a)[0]), netip.MustParsePrefix(strings.Fields(b)[0])
		return pa.Addr().Compare(pb.Addr())
	})
	return strings.Join(lines, "\n")
}

// TestSeedRoutingTable reproduces seed 000's pod connected to the default
// network (infrastructure-locked), a Layer3 primary network and a Layer2
// secondary one. One line of the seed is not planned, deliberately:
// "100.66.0.0/16 via 10.246.0.1 dev eth2", a join subnet of the secondary
// network — secondary networks have no join subnet and no gateway (DESIGN,
// the reference), so the pod has no route through them.
func TestSeedRoutingTable(t *testing.T) {
	l3 := &udn.Network{Name: "ns_l3", ID: 1, Topology: udn.TopologyLayer3, Role: udn.RolePrimary,
		Subnets: []udn.Subnet{{CIDR: netip.MustParsePrefix("10.245.0.0/16"), HostPrefix: 24}}, JoinSubnets: []netip.Prefix{netip.MustParsePrefix("100.65.0.0/16")}}
	l2 := &udn.Network{Name: "ns_l2", ID: 2, Topology: udn.TopologyLayer2, Role: udn.RoleSecondary,
		Subnets: []udn.Subnet{{CIDR: netip.MustParsePrefix("10.246.0.0/16")}}}
	p, err := PlanPod(Input{
		Pod: Pod{Namespace: "ns", Name: "pod3", Node: "node1"},
		Attachments: []Attachment{
			{Role: netconf.PodRoleInfrastructureLocked, IPs: []netip.Prefix{netip.MustParsePrefix("10.244.0.8/24")},
				HostSubnets: []netip.Prefix{netip.MustParsePrefix("10.244.0.0/24")}},
			{Network: l3, NAD: "ns/l3", Role: netconf.PodRolePrimary, IPs: []netip.Prefix{netip.MustParsePrefix("10.245.0.8/24")},
				HostSubnets: []netip.Prefix{netip.MustParsePrefix("10.245.0.0/24")}},
			{Network: l2, NAD: "ns/l2", Role: netconf.PodRoleSecondary, IPs: []netip.Prefix{netip.MustParsePrefix("10.246.0.8/16")}},
		},
		Nodes: nodes(), Zone: "node1",
		ServiceCIDRs:   []netip.Prefix{netip.MustParsePrefix("10.96.0.0/16")},
		ClusterSubnets: []netip.Prefix{netip.MustParsePrefix("10.244.0.0/16")},
	})
	if err != nil {
		t.Fatal(err)
	}
	got := routeTable(p, []string{"eth0", "eth1", "eth2"}, []string{netconf.DefaultNetworkKey, "ns/l3", "ns/l2"})
	seed := `default via 10.245.0.1 dev eth1
10.96.0.0/16 via 10.245.0.1 dev eth1
10.244.0.0/16 via 10.244.0.1 dev eth0
10.244.0.0/24 dev eth0 proto kernel scope link src 10.244.0.8
10.245.0.0/16 via 10.245.0.1 dev eth1
10.245.0.0/24 dev eth1 proto kernel scope link src 10.245.0.8
10.246.0.0/16 dev eth2 proto kernel scope link src 10.246.0.8
100.64.0.0/16 via 10.244.0.1 dev eth0
100.65.0.0/16 via 10.245.0.1 dev eth1`
	if got != seed {
		t.Errorf("routing table\n%s\nwant (seed 000, without its secondary join route)\n%s", got, seed)
	}
}
