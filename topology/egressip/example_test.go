package egressip_test

import (
	"fmt"
	"net/netip"

	"github.com/udnkit/udnkit/netconf/udn"
	"github.com/udnkit/udnkit/topology"
	"github.com/udnkit/udnkit/topology/egressip"
)

// An EgressIP selecting the pods labelled app=web: assigned, marked and
// planned for node1's zone.
func Example() {
	web := egressip.Selector{Requirements: []egressip.Requirement{{Key: "app", Op: egressip.OpIn, Values: []string{"web"}}}}
	eips := []egressip.EgressIP{{Name: "web", IPs: []netip.Addr{netip.MustParseAddr("172.18.0.100")}, PodSelector: web}}
	var marks egressip.MarkAllocator
	eips[0].Mark, _ = marks.Allocate("web")
	status, _ := egressip.Assign(eips, []egressip.Node{
		{Name: "node1", Assignable: true, Ready: true, Subnets: []netip.Prefix{netip.MustParsePrefix("172.18.0.2/16")}},
		{Name: "node2", Ready: true, Subnets: []netip.Prefix{netip.MustParsePrefix("172.18.0.3/16")}},
	})
	eips[0].Status = status[0].Items
	fmt.Println("status:", eips[0].Status, "mark:", eips[0].Mark)

	n := &udn.Network{Name: "ns1_blue", ID: 1, Topology: udn.TopologyLayer3, Role: udn.RolePrimary,
		Subnets:        []udn.Subnet{{CIDR: netip.MustParsePrefix("10.128.0.0/16"), HostPrefix: 24}},
		JoinSubnets:    []netip.Prefix{netip.MustParsePrefix("100.65.0.0/16")},
		TransitSubnets: []netip.Prefix{netip.MustParsePrefix("100.88.0.0/16")}}
	rows, err := egressip.Plan(egressip.Input{Network: n, Zone: "node2",
		Nodes:     []topology.Node{{Name: "node1", ID: 2}, {Name: "node2", ID: 3}},
		EgressIPs: eips, Namespaces: []egressip.Namespace{{Name: "ns1"}},
		Pods: []egressip.Pod{{Namespace: "ns1", Name: "web-1", Node: "node2", Labels: egressip.NewLabels("app", "web"),
			IPs: []netip.Addr{netip.MustParseAddr("10.128.3.5")}}}})
	if err != nil {
		panic(err)
	}
	for _, o := range rows.ObjectsOf(topology.KindPolicy) {
		if p := o.(topology.Policy); p.Priority == egressip.PriorityReroute {
			fmt.Println(p.Router, p.Match, p.Nexthops, p.Options)
		}
	}
	// Output:
	// status: [node1=172.18.0.100] mark: 50000
	// ns1_blue_ovn_cluster_router ip4.src == 10.128.3.5 [100.88.0.2] {pkt_mark=50000}
}
