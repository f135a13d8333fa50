package egressip_test

import (
	"net/netip"
	"testing"

	"github.com/udnkit/udnkit/topology/egressip"
)

// FuzzParseMark: what parses is in range and formats back to the input.
func FuzzParseMark(f *testing.F) {
	for _, s := range []string{"50000", "54999", "55000", "-1", "0x1", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m, err := egressip.ParseMark(s)
		if err != nil {
			if len(err.Error()) > 300 {
				t.Errorf("error of %d bytes", len(err.Error()))
			}
			return
		}
		if m < egressip.MarkFirst || m > egressip.MarkLast || egressip.FormatMark(m) != s {
			t.Errorf("ParseMark(%q) = %d", s, m)
		}
	})
}

// FuzzParseBridgeIPs: what parses formats and parses back to itself.
func FuzzParseBridgeIPs(f *testing.F) {
	for _, s := range []string{`["192.168.126.101"]`, `[]`, `["fd00::1","10.0.0.1","10.0.0.1"]`, `["fe80::1%eth0"]`, `{}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ips, err := egressip.ParseBridgeIPs(s)
		if err != nil {
			if len(err.Error()) > 400 {
				t.Errorf("error of %d bytes", len(err.Error()))
			}
			return
		}
		again, err := egressip.ParseBridgeIPs(egressip.FormatBridgeIPs(ips))
		if err != nil || len(again) != len(ips) {
			t.Fatalf("round trip of %v: %v %v", ips, again, err)
		}
		for i := range ips {
			if again[i] != ips[i] || i > 0 && ips[i-1].Compare(ips[i]) >= 0 {
				t.Errorf("round trip %v -> %v not sorted and equal", ips, again)
			}
		}
	})
}

// FuzzAssign: any nodes and IPs give an assignment that keeps the rules.
func FuzzAssign(f *testing.F) {
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8}, uint8(3))
	f.Fuzz(func(t *testing.T, data []byte, nNodes uint8) {
		var nodes []egressip.Node
		for i := range int(nNodes % 6) {
			n := egressNode(string(rune('a'+i)), netip.AddrFrom4([4]byte{10, 0, byte(i % 2), byte(10 + i)}).String()+"/24")
			n.Capacity = i % 3
			n.Ready = i != 4
			nodes = append(nodes, n)
		}
		var eips []egressip.EgressIP
		for i := 0; i+1 < len(data) && i < 40; i += 2 {
			name := string(rune('a' + int(data[i])%5))
			ip := netip.AddrFrom4([4]byte{10, 0, data[i] % 3, data[i+1]})
			for j := range eips {
				if eips[j].Name == name {
					eips[j].IPs = append(eips[j].IPs, ip)
					name = ""
				}
			}
			if name != "" {
				eips = append(eips, egressip.EgressIP{Name: name, IPs: []netip.Addr{ip}})
			}
		}
		st, un := egressip.Assign(eips, nodes)
		count := map[string]int{}
		owner := map[netip.Addr]string{}
		for _, s := range st {
			seen := map[string]bool{}
			for _, a := range s.Items {
				if seen[a.Node] {
					t.Errorf("%s: two IPs on %s", s.EgressIP, a.Node)
				}
				seen[a.Node] = true
				count[a.Node]++
				if o, ok := owner[a.IP]; ok {
					t.Errorf("%v assigned to %s and %s", a.IP, o, s.EgressIP)
				}
				owner[a.IP] = s.EgressIP
			}
		}
		for _, n := range nodes {
			if n.Capacity > 0 && count[n.Name] > n.Capacity || !n.Ready && count[n.Name] > 0 {
				t.Errorf("node %s: %d IPs (capacity %d, ready %v)", n.Name, count[n.Name], n.Capacity, n.Ready)
			}
		}
		_ = un
	})
}

// FuzzPlan: any pods, EgressIPs and assignments plan without a panic,
// twice to the same text, and every node's incremental plan overlaid on the
// network-wide one gives the full plan.
func FuzzPlan(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, true)
	f.Fuzz(func(t *testing.T, data []byte, layer3 bool) {
		n := l2Network()
		if layer3 {
			n = l3Network()
		}
		in := syncInput(n)
		in.Pods = nil
		for i := 0; i+2 < len(data) && i < 60; i += 3 {
			ip := netip.AddrFrom4([4]byte{20, 128, data[i] % 4, data[i+1]})
			if !layer3 {
				ip = netip.AddrFrom4([4]byte{10, 100, data[i] % 4, data[i+1]})
			}
			var l Labels
			if data[i+2]%2 == 0 {
				l = egressPodLabel
			}
			in.Pods = append(in.Pods, egressip.Pod{Namespace: "egressip-namespace2", Name: string(rune('a' + i/3)),
				Node: []string{"node1", "node2", "node3"}[data[i+2]%3], Labels: l, IPs: []netip.Addr{ip}})
		}
		if len(data) > 0 && data[0]%2 == 1 {
			in.EgressIPs[0].Status = in.EgressIPs[0].Status[:1]
		}
		if len(data) > 1 { // statuses Assign would not write: any node, two IPs on one
			for i := range in.EgressIPs[0].Status {
				in.EgressIPs[0].Status[i].Node = []string{"node1", "node2"}[(int(data[1])>>i)%2]
			}
		}
		a, err := egressip.Plan(in)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := egressip.Plan(in)
		if a.String() != b.String() {
			t.Fatal("two plans differ")
		}
		wide, err := egressip.PlanNodes(in, "")
		if err != nil {
			t.Fatal(err)
		}
		got := wide
		for _, nd := range []string{"node1", "node2"} {
			p, err := egressip.PlanNodes(in, nd)
			if err != nil {
				t.Fatal(err)
			}
			got = got.Overlay(p)
		}
		if !got.Equal(a) {
			t.Errorf("overlaid partial plans differ from the full plan:\n%s\nfull:\n%s", got, a)
		}
	})
}

type Labels = egressip.Labels
