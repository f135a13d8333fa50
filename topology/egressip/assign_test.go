package egressip_test

import (
	"fmt"
	"net/netip"
	"slices"
	"testing"

	"github.com/udnkit/udnkit/topology/egressip"
)

func addrs(s ...string) []netip.Addr {
	out := make([]netip.Addr, len(s))
	for i, v := range s {
		out[i] = netip.MustParseAddr(v)
	}
	return out
}

// egressNode is an assignable, ready node with primary address cidr.
func egressNode(name, cidr string) egressip.Node {
	p := netip.MustParsePrefix(cidr)
	return egressip.Node{Name: name, Assignable: true, Ready: true, Subnets: []netip.Prefix{p}, HostIPs: []netip.Addr{p.Addr()}}
}

func eip(name string, ips ...string) egressip.EgressIP {
	return egressip.EgressIP{Name: name, IPs: addrs(ips...)}
}

func render(st []egressip.Status, un []egressip.Unassigned) string {
	s := ""
	for _, x := range st {
		s += x.EgressIP + ":"
		for _, a := range x.Items {
			s += " " + a.String()
		}
		s += "\n"
	}
	for _, u := range un {
		s += "unassigned " + u.String() + "\n"
	}
	return s
}

// TestAssign ports the reference's assignment expectations
// (go-controller/pkg/clustermanager/egressip_controller_test.go) and adds
// one case per reason.
func TestAssign(t *testing.T) {
	n1 := egressNode("node1", "192.168.126.202/24")
	n2 := egressNode("node2", "192.168.126.51/24")
	v6a := egressNode("node1", "0:0:0:0:0:feff:c0a8:8e0c/64")
	v6b := egressNode("node2", "0:0:0:0:0:fedf:c0a8:8e0c/64")
	notReady := n2
	notReady.Ready = false
	unlabelled := n2
	unlabelled.Assignable = false
	full := n1
	full.Capacity = 1
	withStatus := func(e egressip.EgressIP, items ...egressip.Assignment) egressip.EgressIP {
		e.Status = items
		return e
	}
	at := func(node, ip string) egressip.Assignment {
		return egressip.Assignment{Node: node, IP: netip.MustParseAddr(ip)}
	}
	tests := []struct {
		name  string
		eips  []egressip.EgressIP
		nodes []egressip.Node
		want  string
	}{
		// egressip_controller_test.go "should be able to allocate non-conflicting IP on node with lowest amount of allocations"
		{"fewest allocations first", []egressip.EgressIP{eip("a", "192.168.126.101"), eip("b", "192.168.126.102"), eip("c", "192.168.126.103")},
			[]egressip.Node{n1, n2}, "a: node1=192.168.126.101\nb: node2=192.168.126.102\nc: node1=192.168.126.103\n"},
		// "should not be able to allocate node IP"
		{"node IP refused", []egressip.EgressIP{eip("a", "192.168.126.51")}, []egressip.Node{n1, n2},
			"a:\nunassigned a 192.168.126.51: NodeIP\n"},
		// "should not be able to allocate conflicting compressed IPv6 IP" (one IP of an EgressIP per node; two IPs, two nodes)
		{"one IP of an EgressIP per node", []egressip.EgressIP{eip("a", "192.168.126.101", "192.168.126.102", "192.168.126.103")},
			[]egressip.Node{n1, n2}, "a: node1=192.168.126.101 node2=192.168.126.102\nunassigned a 192.168.126.103: NodesTaken\n"},
		// "should be able to allocate several EgressIPs and avoid the same node" / "Dual-stack assignment"
		{"IPv6 on IPv6 subnets", []egressip.EgressIP{eip("a", "0:0:0:0:0:feff:c0a8:8e32", "0:0:0:0:0:feff:c0a8:8e33")},
			[]egressip.Node{v6a, v6b}, "a: node1=::feff:c0a8:8e32 node2=::feff:c0a8:8e33\n"},
		// "should not be able to allocate IP outside of node subnets"
		{"outside every subnet", []egressip.EgressIP{eip("a", "10.0.0.1")}, []egressip.Node{n1, n2},
			"a:\nunassigned a 10.0.0.1: NoMatchingSubnet\n"},
		// "should return the already allocated IP with the same node if it is allocated again" (status kept)
		{"status kept though another node has fewer", []egressip.EgressIP{withStatus(eip("a", "192.168.126.101"), at("node2", "192.168.126.101")), eip("b", "192.168.126.102")},
			[]egressip.Node{n1, n2}, "a: node2=192.168.126.101\nb: node1=192.168.126.102\n"},
		// "should re-assign EgressIPs when a node is no longer ready" (egress_node not ready)
		{"not ready node loses its IP", []egressip.EgressIP{withStatus(eip("a", "192.168.126.101"), at("node2", "192.168.126.101"))},
			[]egressip.Node{n1, notReady}, "a: node1=192.168.126.101\n"},
		// "should remove the assignment when the egress-assignable label is removed"
		{"unlabelled node loses its IP", []egressip.EgressIP{withStatus(eip("a", "192.168.126.101"), at("node2", "192.168.126.101"))},
			[]egressip.Node{unlabelled}, "a:\nunassigned a 192.168.126.101: NoEgressNode\n"},
		{"no egress node", []egressip.EgressIP{eip("a", "192.168.126.101")}, nil, "a:\nunassigned a 192.168.126.101: NoEgressNode\n"},
		{"capacity", []egressip.EgressIP{eip("a", "192.168.126.101"), eip("b", "192.168.126.102")}, []egressip.Node{full},
			"a: node1=192.168.126.101\nb:\nunassigned b 192.168.126.102: CapacityExhausted\n"},
		// "should not be able to allocate an IP that another EgressIP has"
		{"conflict: the first by name wins", []egressip.EgressIP{eip("b", "192.168.126.101"), eip("a", "192.168.126.101")},
			[]egressip.Node{n1, n2}, "a: node1=192.168.126.101\nb:\nunassigned b 192.168.126.101: Conflict\n"},
		{"stale status: IP no longer in spec", []egressip.EgressIP{withStatus(eip("a", "192.168.126.102"), at("node1", "192.168.126.101"))},
			[]egressip.Node{n1, n2}, "a: node1=192.168.126.102\n"},
		{"stale status: node gone", []egressip.EgressIP{withStatus(eip("a", "192.168.126.101"), at("node9", "192.168.126.101"))},
			[]egressip.Node{n2}, "a: node2=192.168.126.101\n"},
		{"stale status: two IPs on one node", []egressip.EgressIP{withStatus(eip("a", "192.168.126.101", "192.168.126.102"),
			at("node1", "192.168.126.101"), at("node1", "192.168.126.102"))},
			[]egressip.Node{n1, n2}, "a: node1=192.168.126.101 node2=192.168.126.102\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := slices.Clone(tc.eips)
			got := render(egressip.Assign(tc.eips, tc.nodes))
			if got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
			if fmt.Sprint(in) != fmt.Sprint(tc.eips) {
				t.Error("Assign modified its input")
			}
		})
	}
}

// TestAssignStable: assigning again from the status just written moves
// nothing, whatever the input order; a removed node's IPs move and only
// they (failover).
func TestAssignStable(t *testing.T) {
	nodes := []egressip.Node{egressNode("n1", "10.0.0.11/24"), egressNode("n2", "10.0.0.12/24"), egressNode("n3", "10.0.0.13/24")}
	var eips []egressip.EgressIP
	for i := range 20 {
		eips = append(eips, eip(fmt.Sprintf("e%02d", i), fmt.Sprintf("10.0.0.%d", 100+2*i), fmt.Sprintf("10.0.0.%d", 101+2*i)))
	}
	st, un := egressip.Assign(eips, nodes)
	if len(un) != 0 {
		t.Fatalf("unassigned: %v", un)
	}
	for i := range eips {
		eips[i].Status = st[i].Items
	}
	slices.Reverse(eips)
	st2, _ := egressip.Assign(eips, []egressip.Node{nodes[2], nodes[0], nodes[1]})
	if render(st2, nil) != render(st, nil) {
		t.Errorf("replan moved IPs:\n%s\nwas\n%s", render(st2, nil), render(st, nil))
	}
	// Failover: n2 goes; only its IPs move.
	st3, un3 := egressip.Assign(eips, []egressip.Node{nodes[0], nodes[2]})
	if len(un3) != 0 {
		t.Fatalf("unassigned after failover: %v", un3)
	}
	for i := range st {
		for j, a := range st[i].Items {
			b := st3[i].Items[j]
			if a.IP != b.IP {
				t.Fatalf("%s: items reordered", st[i].EgressIP)
			}
			if a.Node != "n2" && a != b {
				t.Errorf("%s: %v moved to %v though its node stayed", st[i].EgressIP, a, b)
			}
			if b.Node == "n2" {
				t.Errorf("%s: %v still on the removed node", st[i].EgressIP, b)
			}
		}
	}
}
