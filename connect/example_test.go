package connect_test

import (
	"fmt"
	"net/netip"

	"github.com/udnkit/udnkit/connect"
	"github.com/udnkit/udnkit/ipam"
	"github.com/udnkit/udnkit/netconf"
	"github.com/udnkit/udnkit/netconf/udn"
	"github.com/udnkit/udnkit/topology"
)

// Connect two primary Layer3 networks on one node: accept the connect,
// allocate its subnets and plan its rows.
func Example() {
	c, err := connect.Decode([]byte(`
kind: ClusterNetworkConnect
metadata: {name: blue-green}
spec:
  networkSelectors:
  - networkSelectionType: PrimaryUserDefinedNetworks
    primaryUserDefinedNetworkSelector: {namespaceSelector: {matchLabels: {connect: "yes"}}}
  connectSubnets: [{cidr: 192.168.0.0/16, networkPrefix: 24}]
  connectivityEnabled: [PodNetwork]
`))
	if err != nil {
		panic(err)
	}
	if errs := connect.Validate(c); len(errs) > 0 {
		panic(errs.ToAggregate())
	}
	network := func(ns string, id int, cidr string) connect.Network {
		return connect.Network{UDN: ns + "/net", Namespaces: []string{ns}, Network: &udn.Network{
			Name: ns + "_net", ID: id, Topology: udn.TopologyLayer3, Role: udn.RolePrimary,
			Subnets: []udn.Subnet{{CIDR: netip.MustParsePrefix(cidr), HostPrefix: 24}}}}
	}
	cluster := connect.Cluster{
		Networks: []connect.Network{network("blue", 1, "10.1.0.0/16"), network("green", 2, "10.2.0.0/16")},
		Namespaces: []netconf.Namespace{{Name: "blue", Labels: map[string]string{"connect": "yes"}},
			{Name: "green", Labels: map[string]string{"connect": "yes"}}},
	}
	acc := connect.Accept(c, cluster)
	fmt.Println(acc.Condition.Type, acc.Condition.Status, acc.Condition.Reason)

	var nets []*udn.Network
	for _, n := range acc.Networks {
		nets = append(nets, n.Network)
	}
	alloc, err := connect.NewAllocator(c, ipam.NewTunnelKeyAllocator())
	if err != nil {
		panic(err)
	}
	al, err := alloc.Allocate(nets)
	if err != nil {
		panic(err)
	}
	node := topology.Node{Name: "node1", ID: 2, Chassis: "chassis-1"}
	desired, err := connect.Plan(connect.Input{Connect: c, Networks: nets, Allocation: al,
		Nodes: []topology.Node{node}, Zone: "node1",
		HostSubnets: map[string]map[string][]netip.Prefix{
			"blue_net":  {"node1": {netip.MustParsePrefix("10.1.1.0/24")}},
			"green_net": {"node1": {netip.MustParsePrefix("10.2.1.0/24")}},
		}})
	if err != nil {
		panic(err)
	}
	for o := range desired.Objects() {
		if p, ok := o.(topology.RouterPort); ok {
			fmt.Println(p.Router, p.Name, p.Networks[0])
		}
	}
	// Output:
	// Accepted True ValidationSucceeded
	// connect-router-blue-green blue-green-to-blue_net-node1 192.168.0.5/31
	// connect-router-blue-green blue-green-to-green_net-node1 192.168.1.5/31
	// blue_net_ovn_cluster_router blue_net-node1-to-blue-green 192.168.0.4/31
	// green_net_ovn_cluster_router green_net-node1-to-blue-green 192.168.1.4/31
}

// Link the two primary networks of namespace ns1, a Layer3 and a Layer2
// one, in node1's zone: each gets a pair to the zone's link router, which
// routes to it, and its router reroutes the other's subnet there.
func ExamplePlanPrimaryLinks() {
	network := func(name string, id int, t udn.Topology, cidr string) *udn.Network {
		return &udn.Network{Name: name, ID: id, Topology: t, Role: udn.RolePrimary,
			Subnets: []udn.Subnet{{CIDR: netip.MustParsePrefix(cidr), HostPrefix: 24}}}
	}
	a := network("ns1_a", 1, udn.TopologyLayer3, "10.1.0.0/16")
	b := network("ns1_b", 2, udn.TopologyLayer2, "10.2.0.0/16")
	b.Subnets[0].HostPrefix = 0
	desired, err := connect.PlanPrimaryLinks(connect.PrimaryLinksInput{Name: "ns1", Networks: []*udn.Network{a, b},
		Nodes: []topology.Node{{Name: "node1", ID: 2}}, Zone: "node1"})
	if err != nil {
		panic(err)
	}
	for o := range desired.Objects() {
		switch o := o.(type) {
		case topology.RouterPort:
			fmt.Println(o.Router, o.Name, o.Networks[0])
		case topology.StaticRoute:
			fmt.Println(o.Router, o.Prefix, "via", o.Nexthop)
		case topology.Policy:
			fmt.Println(o.Router, o.Priority, o.Match, "reroute", o.Nexthops[0])
		}
	}
	// Output:
	// ns1_a_ovn_cluster_router ns1_a-to-primary_links_ns1 169.254.128.2/31
	// ns1_b_transit_router ns1_b-to-primary_links_ns1 169.254.128.4/31
	// primary_links_ns1 primary_links_ns1-to-ns1_a 169.254.128.3/31
	// primary_links_ns1 primary_links_ns1-to-ns1_b 169.254.128.5/31
	// primary_links_ns1 10.1.0.0/16 via 169.254.128.2
	// primary_links_ns1 10.2.0.0/16 via 169.254.128.4
	// ns1_a_ovn_cluster_router 9002 inport == "rtos-ns1_a_node1" && ip4.dst == 10.2.0.0/16 reroute 169.254.128.3
	// ns1_b_transit_router 9002 inport == "trtos-ns1_b_ovn_layer2_switch" && ip4.dst == 10.1.0.0/16 reroute 169.254.128.5
}
