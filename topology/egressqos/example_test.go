package egressqos_test

import (
	"fmt"
	"net/netip"

	"github.com/udnkit/udnkit/netconf/udn"
	"github.com/udnkit/udnkit/topology"
	"github.com/udnkit/udnkit/topology/egressqos"
)

// A namespace's EgressQoS marks its pods' traffic to 203.0.113.0/24 with
// DSCP 46 on its primary network's switch.
func Example() {
	n := &udn.Network{Name: "tenant-a_blue", ID: 1, Topology: udn.TopologyLayer2, Role: udn.RolePrimary,
		Subnets: []udn.Subnet{{CIDR: netip.MustParsePrefix("10.100.0.0/16")}}}
	p, err := egressqos.PlanZone(egressqos.Input{
		Networks:  []egressqos.Network{{Network: n, Namespaces: []string{"tenant-a"}}},
		Nodes:     []topology.Node{{Name: "node1", ID: 2}},
		Zone:      "node1",
		EgressQoS: []egressqos.EgressQoS{{Namespace: "tenant-a", Rules: []egressqos.Rule{{DSCP: 46, DstCIDR: netip.MustParsePrefix("203.0.113.0/24")}}}},
		Pods: []egressqos.Pod{{Namespace: "tenant-a", Name: "web", Node: "node1",
			IPs: []egressqos.NetworkIPs{{Network: n.Name, IPs: []netip.Addr{netip.MustParseAddr("10.100.0.5")}}}}},
	})
	if err != nil {
		panic(err)
	}
	for _, o := range p.ObjectsOf(topology.KindQoS) {
		q := o.(topology.QoS)
		fmt.Println(q.Switch, q.Direction, q.Priority, q.Action)
	}
	for _, o := range p.ObjectsOf(topology.KindAddressSet) {
		fmt.Println(o.(topology.AddressSet).Addresses)
	}
	// Output:
	// tenant.a_blue_ovn_layer2_switch to-lport 1000 {dscp=46}
	// [10.100.0.5/32]
}
