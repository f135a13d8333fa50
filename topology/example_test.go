package topology_test

import (
	"fmt"
	"net/netip"

	"github.com/udnkit/udnkit/ipam"
	"github.com/udnkit/udnkit/netconf"
	"github.com/udnkit/udnkit/topology"
)

func Example() {
	node := func(name string, id int, ip string) topology.Node {
		return topology.Node{Name: name, ID: id, Chassis: "chassis-" + name,
			Addresses: []netip.Prefix{netip.MustParsePrefix(ip + "/16")},
			NextHops:  []netip.Addr{netip.MustParseAddr("172.18.0.1")}}
	}
	n := &netconf.Network{Name: "tenant_blue", ID: 1, Topology: netconf.TopologyLayer2,
		Role: netconf.RolePrimary, Subnets: []netconf.Subnet{{CIDR: netip.MustParsePrefix("203.203.0.0/24")}}}
	// The switch's and the transit router's tunnel keys.
	keys, err := ipam.NewTunnelKeyAllocator().Allocate(n.Name, 2)
	if err != nil {
		panic(err)
	}
	in := topology.Input{
		Network:    n,
		Nodes:      []topology.Node{node("node-a", 2, "172.18.0.2"), node("node-b", 3, "172.18.0.3")},
		Zone:       "node-a", // interconnect: each node is its own zone
		TunnelKeys: keys,
	}
	desired, err := topology.PlanLayer2(in)
	if err != nil {
		panic(err)
	}
	for _, o := range desired.ObjectsOf(topology.KindRouterPort) {
		p := o.(topology.RouterPort)
		fmt.Println(p.Router, p.Name, p.Networks, p.Options)
	}

	// A third node joins: only its peer port and route appear.
	in.Nodes = append(in.Nodes, node("node-c", 4, "172.18.0.4"))
	next, err := topology.PlanLayer2(in)
	if err != nil {
		panic(err)
	}
	for _, c := range topology.Diff(desired, next) {
		fmt.Println(c)
	}
	// Output:
	// GR_tenant_blue_node-a rtoe-GR_tenant_blue_node-a [172.18.0.2/16] {}
	// GR_tenant_blue_node-a rtotr-GR_tenant_blue_node-a [100.65.0.2/16 100.88.0.6/30] {gateway_mtu=1400}
	// tenant_blue_transit_router trtor-GR_tenant_blue_node-a [100.88.0.5/30] {requested-tnl-key=2}
	// tenant_blue_transit_router trtor-GR_tenant_blue_node-b [100.88.0.9/30] {requested-chassis=chassis-node-b, requested-tnl-key=3}
	// tenant_blue_transit_router trtos-tenant_blue_ovn_layer2_switch [203.203.0.1/24] {}
	// create router_port trtor-GR_tenant_blue_node-c
	// create static_route tenant_blue_transit_router||dst-ip|100.65.0.4/32|100.88.0.14
}

// Another planner package (a connect controller, say) emits rows of its
// own controller onto the network planners' routers: Diff against its
// State touches its rows only.
func ExampleEmitter() {
	const connect topology.Controller = "udnkit-connect"
	own := topology.Owner{Controller: connect, Network: "tenant_blue"}
	var e topology.Emitter
	e.Own(connect, "tenant_blue")
	for i, node := range []string{"node-a", "node-b"} {
		subnet := netip.PrefixFrom(netip.AddrFrom4([4]byte{10, 200, byte(i), 0}), 24)
		e.Policy(topology.Policy{Owner: own, Router: "tenant_blue_ovn_cluster_router", Priority: 9001,
			Action: topology.PolicyReroute, Nexthops: e.Addrs(netip.AddrFrom4([4]byte{192, 168, 0, byte(2 * i)}))},
			"inport == ", e.Quote(e.Cat("rtos-tenant_blue_", node)), " && ip4.dst == ", e.Prefix(subnet))
	}
	desired, err := e.State()
	if err != nil {
		panic(err)
	}
	fmt.Println(desired.Controllers(), desired.Len())
	for _, c := range topology.Diff(topology.State{}, desired) {
		fmt.Println(c)
	}
	// Output:
	// [udnkit-connect] 2
	// create policy tenant_blue_ovn_cluster_router|9001|inport == "rtos-tenant_blue_node-a" && ip4.dst == 10.200.0.0/24
	// create policy tenant_blue_ovn_cluster_router|9001|inport == "rtos-tenant_blue_node-b" && ip4.dst == 10.200.1.0/24
}
