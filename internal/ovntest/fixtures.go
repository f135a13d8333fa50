package ovntest

import (
	"fmt"
	"net/netip"
	"strconv"

	"github.com/udnkit/udnkit/ipam"
	"github.com/udnkit/udnkit/netconf"
	"github.com/udnkit/udnkit/topology"
)

// Nodes returns n nodes called node1..nodeN with node IDs 2.., chassis
// chassis-1.., external addresses 172.18.0.(ID)/16, all in zone; zone ""
// gives every node its own zone (interconnect: node1's zone is "node1").
// A primary Layer2 network is planned for one node's zone: it supports one
// node per zone.
func Nodes(n int, zone string) []topology.Node {
	nodes := make([]topology.Node, n)
	for i := range nodes {
		id := ipam.MinNodeID + i
		nodes[i] = topology.Node{
			Name: fmt.Sprintf("node%d", i+1), ID: id, Zone: zone, Chassis: fmt.Sprintf("chassis-%d", i+1),
			Addresses: []netip.Prefix{netip.PrefixFrom(netip.AddrFrom4([4]byte{172, 18, byte(id >> 8), byte(id)}), 16)},
			NextHops:  []netip.Addr{netip.MustParseAddr("172.18.0.1")},
		}
	}
	return nodes
}

// Layer3Network is the primary Layer3 network ns1_blue (network ID 1),
// pod subnet 10.128.0.0/16 with /24 per node.
func Layer3Network() *netconf.Network {
	return &netconf.Network{Name: "ns1_blue", ID: 1, Topology: netconf.TopologyLayer3, Role: netconf.RolePrimary,
		Subnets:     []netconf.Subnet{{CIDR: netip.MustParsePrefix("10.128.0.0/16"), HostPrefix: 24}},
		JoinSubnets: ipam.DefaultJoinSubnets()[:1], TransitSubnets: ipam.DefaultTransitSubnets()[:1]}
}

// Layer2Network is the primary Layer2 network ns2_red (network ID 2) whose
// pod subnet 10.128.0.0/16 overlaps Layer3Network's.
func Layer2Network() *netconf.Network {
	return &netconf.Network{Name: "ns2_red", ID: 2, Topology: netconf.TopologyLayer2, Role: netconf.RolePrimary,
		Subnets:     []netconf.Subnet{{CIDR: netip.MustParsePrefix("10.128.0.0/16")}},
		JoinSubnets: ipam.DefaultJoinSubnets()[:1], TransitSubnets: ipam.DefaultTransitSubnets()[:1]}
}

// Layer3HostSubnet is node i's (1-based) host subnet of Layer3Network:
// 10.128.i.0/24.
func Layer3HostSubnet(i int) netip.Prefix {
	return netip.PrefixFrom(netip.AddrFrom4([4]byte{10, 128, byte(i), 0}), 24)
}

// PlanInput returns the planner input for network on nodes, programming
// zone.
func PlanInput(network *netconf.Network, nodes []topology.Node, zone string) topology.Input {
	in := topology.Input{Network: network, Nodes: nodes, Zone: zone,
		Cluster: topology.Cluster{ServiceIPs: []netip.Addr{netip.MustParseAddr("10.96.0.1"), netip.MustParseAddr("10.96.0.10")}}}
	switch network.Topology {
	case netconf.TopologyLayer3:
		in.HostSubnets = map[string][]netip.Prefix{}
		for i, n := range nodes {
			in.HostSubnets[n.Name] = []netip.Prefix{Layer3HostSubnet(i + 1)}
		}
	case netconf.TopologyLayer2:
		in.TunnelKeys = Layer2TunnelKeys(network.ID)
	}
	return in
}

// Layer2TunnelKeys returns the switch and transit router tunnel keys of the
// Layer2 network with the given ID: the keys an ipam.TunnelKeyAllocator
// hands the id-th network when networks 1..id each take theirs in turn.
func Layer2TunnelKeys(networkID int) []int {
	a := ipam.NewTunnelKeyAllocator()
	var keys []int
	for id := 1; id <= networkID; id++ {
		var err error
		if keys, err = a.Allocate(strconv.Itoa(id), ipam.Layer2TunnelKeys); err != nil {
			panic(err)
		}
	}
	return keys
}

// RemotePod returns a pod of a Layer2 network running on a node of another
// zone, as a pod controller writes it: a remote port on the network's
// switch, bound to the node's chassis. addresses is "MAC IP...".
func RemotePod(own topology.Owner, name, sw, addresses string, node topology.Node) topology.SwitchPort {
	own.Node = node.Name
	return topology.SwitchPort{Owner: own, Name: name, Switch: sw, Type: topology.PortRemote, Addresses: []string{addresses},
		Options: topology.NewOptions(topology.OptRequestedChassis, node.Chassis)}
}

// Plan plans network on nodes for zone.
func Plan(network *netconf.Network, nodes []topology.Node, zone string) (topology.State, error) {
	return topology.Plan(PlanInput(network, nodes, zone))
}

// Seed004Input is the planner input of seed 004's Layer2 example: network
// test12_namespace-scoped (ID 1), dual-stack 203.203.0.0/16 and
// 2010:100:200::/60, default join and transit subnets, nodes
// ovn-control-plane (ID 4, the zone programmed), ovn-worker (2) and
// ovn-worker2 (3), each in its own zone.
func Seed004Input() topology.Input {
	node := func(name string, id int, chassis string, last byte) topology.Node {
		return topology.Node{Name: name, ID: id, Chassis: chassis,
			Addresses: []netip.Prefix{netip.PrefixFrom(netip.AddrFrom4([4]byte{172, 18, 0, last}), 16),
				netip.MustParsePrefix(fmt.Sprintf("fc00:f853:ccd:e793::%d/64", last))},
			NextHops: []netip.Addr{netip.MustParseAddr("172.18.0.1"), netip.MustParseAddr("fc00:f853:ccd:e793::1")}}
	}
	return topology.Input{
		Network: &netconf.Network{Name: "test12_namespace-scoped", ID: 1, Topology: netconf.TopologyLayer2,
			Role: netconf.RolePrimary, MTU: 1400,
			Subnets:        []netconf.Subnet{{CIDR: netip.MustParsePrefix("203.203.0.0/16")}, {CIDR: netip.MustParsePrefix("2010:100:200::/60")}},
			JoinSubnets:    ipam.DefaultJoinSubnets(),
			TransitSubnets: ipam.DefaultTransitSubnets()},
		Nodes: []topology.Node{node("ovn-control-plane", 4, "chassis-cp", 3), node("ovn-worker", 2, "chassis-w1", 2),
			node("ovn-worker2", 3, "chassis-w2", 4)},
		Zone:       "ovn-control-plane",
		TunnelKeys: Layer2TunnelKeys(1),
		Cluster:    topology.Cluster{ServiceIPs: []netip.Addr{netip.MustParseAddr("10.96.0.1"), netip.MustParseAddr("10.96.0.10")}},
	}
}
