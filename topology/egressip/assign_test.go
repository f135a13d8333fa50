package egressip_test

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"
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

// held returns EgressIPs that already hold IPs on nodes (the reference
// tests' setupNode allocations, map of IP to EgressIP name): each counts
// toward its node's allocations and claims its IP.
func held(node string, ips map[string]string) []egressip.EgressIP {
	var out []egressip.EgressIP
	for ip, name := range ips {
		a := netip.MustParseAddr(ip)
		out = append(out, egressip.EgressIP{Name: name, IPs: []netip.Addr{a}, Status: []egressip.Assignment{{Node: node, IP: a}}})
	}
	return out
}

// TestAssign ports the reference's assignment expectations, each citing
// its test in go-controller/pkg/clustermanager/egressip_controller_test.go
// (cm:), and adds one case per reason. Each case checks the new
// EgressIP "egressip"'s status and why IPs stay unassigned.
func TestAssign(t *testing.T) {
	v6n1 := egressNode("node1", "0:0:0:0:0:feff:c0a8:8e0c/64")
	v6n2 := egressNode("node2", "0:0:0:0:0:fedf:c0a8:8e0c/64")
	v6held := func() []egressip.EgressIP {
		return append(held("node1", map[string]string{"0:0:0:0:0:feff:c0a8:8e32": "bogus1", "0:0:0:0:0:feff:c0a8:8e1e": "bogus2"}),
			held("node2", map[string]string{"0:0:0:0:0:feff:c0a8:8e23": "bogus3"})...)
	}
	v4n1 := egressNode("node1", "192.168.126.12/24")
	v4n2 := egressNode("node2", "192.168.126.51/24")
	v4held := func() []egressip.EgressIP {
		return append(held("node1", map[string]string{"192.168.126.102": "bogus1", "192.168.126.111": "bogus2"}),
			held("node2", map[string]string{"192.168.126.68": "bogus3"})...)
	}
	hostCIDR := v6n1
	hostCIDR.Subnets = []netip.Prefix{netip.MustParsePrefix("0:0:0:0:0:fedf:c0a8:8e0b/64"), netip.MustParsePrefix("0:0:0:0:0:feff:c0a8:8e0a/64")}
	hostCIDR.HostIPs = addrs("::fedf:c0a8:8e0b", "::feff:c0a8:8e0a")
	notReady := v4n2
	notReady.Ready = false
	unlabelled := v4n2
	unlabelled.Assignable = false
	full := v4n1
	full.Capacity = 1
	at := func(node, ip string) egressip.Assignment {
		return egressip.Assignment{Node: node, IP: netip.MustParseAddr(ip)}
	}
	with := func(e egressip.EgressIP, items ...egressip.Assignment) egressip.EgressIP {
		e.Status = items
		return e
	}
	tests := []struct {
		name  string
		eips  []egressip.EgressIP
		nodes []egressip.Node
		want  string // "egressip"'s items, then "unassigned ..." lines
	}{
		{"cm: IPv6 assignment: should be able to allocate non-conflicting IP on node with lowest amount of allocations",
			append(v6held(), eip("egressip", "0:0:0:0:0:feff:c0a8:8e0f")), []egressip.Node{v6n1, v6n2}, "node2=::feff:c0a8:8e0f"},
		{"cm: IPv6 assignment: should not be able to allocate node IP",
			append(v6held(), eip("egressip", "0:0:0:0:0:feff:c0a8:8e0c")), []egressip.Node{v6n1, v6n2}, "\nunassigned egressip ::feff:c0a8:8e0c: NodeIP"},
		{"cm: IPv6 assignment: should not be able to allocate EgressIP equal to an address in host-cidrs annotation",
			append(v6held(), eip("egressip", "0:0:0:0:0:feff:c0a8:8e0a")), []egressip.Node{hostCIDR, v6n2}, "\nunassigned egressip ::feff:c0a8:8e0a: NodeIP"},
		{"cm: IPv6 assignment: should not be able to allocate conflicting compressed IP",
			append(v6held(), eip("egressip", "::feff:c0a8:8e32")), []egressip.Node{v6n1, v6n2}, "\nunassigned egressip ::feff:c0a8:8e32: Conflict"},
		{"cm: IPv6 assignment: should not be able to allocate IPv4 IP on nodes which can only host IPv6",
			append(v6held(), eip("egressip", "192.168.126.16")), []egressip.Node{v6n1, v6n2}, "\nunassigned egressip 192.168.126.16: NoMatchingSubnet"},
		{"cm: IPv6 assignment: should be able to allocate non-conflicting compressed uppercase IP",
			append(v6held(), eip("egressip", "::FEFF:C0A8:8D32")), []egressip.Node{v6n1, v6n2}, "node2=::feff:c0a8:8d32"},
		{"cm: IPv6 assignment: should not be able to allocate conflicting compressed uppercase IP",
			append(v6held(), eip("egressip", "::FEFF:C0A8:8E32")), []egressip.Node{v6n1, v6n2}, "\nunassigned egressip ::feff:c0a8:8e32: Conflict"},
		{"cm: Dual-stack assignment: should be able to allocate non-conflicting IPv4 on node which can host it, even if it happens to be the node with more assignments",
			append(append(held("node1", map[string]string{"0:0:0:0:0:feff:c0a8:8e23": "bogus1"}), held("node2", map[string]string{"192.168.126.68": "bogus1b", "192.168.126.102": "bogus2"})...),
				eip("egressip", "192.168.126.99")), []egressip.Node{v6n1, egressNode("node2", "192.168.126.51/24")}, "node2=192.168.126.99"},
		{"cm: syncEgressIP for IPv4: should update invalid assignments on duplicated node",
			append(held("node2", map[string]string{"192.168.126.68": "bogus3"}), with(eip("egressip", "192.168.126.101", "192.168.126.100"),
				at("node1", "192.168.126.101"), at("node1", "192.168.126.100"))), []egressip.Node{v4n1, v4n2}, "node2=192.168.126.100 node1=192.168.126.101"},
		{"cm: syncEgressIP for IPv4: should update invalid assignments with unhostable IP on a node",
			append(v4held(), with(eip("egressip", "192.168.126.101"), at("node1", "192.168.123.2"))), []egressip.Node{v4n1, v4n2}, "node2=192.168.126.101"},
		{"cm: syncEgressIP for IPv4: should not update valid assignment",
			append(held("node2", map[string]string{"192.168.126.68": "bogus3"}), append(held("node1", map[string]string{"192.168.126.111": "bogus2"}),
				with(eip("egressip", "192.168.126.101"), at("node1", "192.168.126.101")))...), []egressip.Node{v4n1, v4n2}, "node1=192.168.126.101"},
		{"cm: AddEgressIP for IPv4: should not create two EgressIPs with same egress IP value (the second gets nothing)",
			append(v4held(), eip("egressip", "192.168.126.101"), eip("egressip2", "192.168.126.101")), []egressip.Node{v4n1, v4n2}, "node2=192.168.126.101"},
		{"cm: WatchEgressNodes: ensure only one egressIP is assigned to the given node while rest of the IPs go into pending state",
			[]egressip.EgressIP{eip("egressip", "192.168.126.25", "192.168.126.30"), eip("egressip2", "192.168.126.35")},
			[]egressip.Node{egressNode("node1", "192.168.126.12/24"), func() egressip.Node {
				n := egressNode("node2", "192.168.126.13/24")
				n.Assignable = false
				return n
			}()}, "node1=192.168.126.25\nunassigned egressip 192.168.126.30: NodesTaken"},
		{"cm: WatchEgressNodes running with WatchEgressIP: should only get assigned EgressIPs which matches their subnet when the node is tagged",
			[]egressip.EgressIP{eip("egressip", "192.168.126.101")}, []egressip.Node{egressNode("node1", "192.168.128.202/24"), v4n2}, "node2=192.168.126.101"},
		{"the status of a node no longer ready moves", []egressip.EgressIP{with(eip("egressip", "192.168.126.101"), at("node2", "192.168.126.101"))},
			[]egressip.Node{v4n1, notReady}, "node1=192.168.126.101"},
		{"an unlabelled node's IP has nowhere to go", []egressip.EgressIP{with(eip("egressip", "192.168.126.101"), at("node2", "192.168.126.101"))},
			[]egressip.Node{unlabelled}, "\nunassigned egressip 192.168.126.101: NoEgressNode"},
		{"no node at all", []egressip.EgressIP{eip("egressip", "192.168.126.101")}, nil, "\nunassigned egressip 192.168.126.101: NoEgressNode"},
		{"capacity", []egressip.EgressIP{eip("a", "192.168.126.101"), eip("egressip", "192.168.126.102")}, []egressip.Node{full},
			"\nunassigned egressip 192.168.126.102: CapacityExhausted"},
		{"a status naming a node that is gone", []egressip.EgressIP{with(eip("egressip", "192.168.126.101"), at("node9", "192.168.126.101"))},
			[]egressip.Node{v4n2}, "node2=192.168.126.101"},
		{"a status of an IP no longer in the spec", []egressip.EgressIP{with(eip("egressip", "192.168.126.102"), at("node1", "192.168.126.101"))},
			[]egressip.Node{v4n1, v4n2}, "node1=192.168.126.102"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := fmt.Sprint(tc.eips)
			st, un := egressip.Assign(tc.eips, tc.nodes)
			got := ""
			for _, x := range st {
				if x.EgressIP == "egressip" {
					for i, a := range x.Items {
						if i > 0 {
							got += " "
						}
						got += a.String()
					}
				}
			}
			for _, u := range un {
				if u.EgressIP == "egressip" {
					got += "\nunassigned " + u.String()
				}
			}
			if want := strings.ReplaceAll(tc.want, `\n`, "\n"); got != want {
				t.Errorf("got %q, want %q\nall: %s", got, want, render(st, un))
			}
			if fmt.Sprint(tc.eips) != in {
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
