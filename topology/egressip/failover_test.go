package egressip_test

import (
	"net/netip"
	"testing"

	"github.com/udnkit/udnkit/topology"
	"github.com/udnkit/udnkit/topology/egressip"
)

// TestFailoverRows: the egress node (node2, remote to zone node1) goes;
// Assign moves its IP to node1, and the zone's rows change only where the
// egress node shows: the local pod's reroute gets node1's next hop, and
// node1's gateway router gains the served pods' priority-95 policies. The
// sets and the 102 policies stay.
func TestFailoverRows(t *testing.T) {
	in := syncInput(l3Network())
	in.Nodes = append(in.Nodes, topology.Node{Name: "node3", ID: 4})
	eip := &in.EgressIPs[0]
	eip.IPs = addrs("192.168.126.101")
	nodes := []egressip.Node{egressNode("node1", "192.168.126.202/24"), egressNode("node2", "192.168.126.51/24"), egressNode("node3", "192.168.126.52/24")}
	eip.Status = []egressip.Assignment{{Node: "node2", IP: netip.MustParseAddr("192.168.126.101")}}
	st, _ := egressip.Assign(in.EgressIPs, nodes)
	if st[0].Items[0].Node != "node2" {
		t.Fatalf("the status moved before the failover: %v", st)
	}
	before, err := egressip.Plan(in)
	if err != nil {
		t.Fatal(err)
	}
	st, un := egressip.Assign(in.EgressIPs, []egressip.Node{nodes[0], nodes[2]})
	if len(un) != 0 || st[0].Items[0].Node != "node1" {
		t.Fatalf("failover: %v %v", st, un)
	}
	eip.Status = st[0].Items
	after, err := egressip.Plan(in)
	if err != nil {
		t.Fatal(err)
	}
	var updates, creates int
	for _, c := range topology.Diff(before, after) {
		p, ok := c.Object.(topology.Policy)
		switch {
		case ok && c.Op == topology.OpUpdate && p.Priority == egressip.PriorityReroute:
			if len(p.Nexthops) != 1 || p.Nexthops[0] != netip.MustParseAddr("100.65.0.2") {
				t.Errorf("reroute next hops %v, want node1's join IP", p.Nexthops)
			}
			updates++
		case ok && c.Op == topology.OpCreate && p.Priority == egressip.PriorityGateway && p.Router == "GR_ns2_network1_node1":
			creates++
		default:
			t.Errorf("unexpected change %v %v", c.Op, c.Object)
		}
	}
	if updates != 1 || creates != 2 {
		t.Errorf("%d reroute updates and %d gateway policies, want 1 and 2", updates, creates)
	}
}
