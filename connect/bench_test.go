package connect

import (
	"errors"
	"fmt"
	"math"
	"net/netip"
	"testing"

	"github.com/udnkit/udnkit/ipam"
	"github.com/udnkit/udnkit/netconf/udn"
	"github.com/udnkit/udnkit/topology"
)

// scaleInput connects nets Layer3 networks on nodes nodes (interconnect,
// planned for node 0's zone) through 10.0.0.0/8 with /20 blocks (node IDs
// up to 2047).
func scaleInput(tb testing.TB, nets, nodes int) Input {
	tb.Helper()
	var ns []*udn.Network
	hs := map[string]map[string][]netip.Prefix{}
	var nds []topology.Node
	for i := range nodes {
		nds = append(nds, topology.Node{Name: fmt.Sprintf("node%d", i), ID: ipam.MinNodeID + i, Chassis: fmt.Sprintf("chassis-%d", i)})
	}
	for i := range nets {
		n := &udn.Network{Name: fmt.Sprintf("ns%d_net", i), ID: i + 1, Topology: udn.TopologyLayer3, Role: udn.RolePrimary,
			Subnets: []udn.Subnet{{CIDR: netip.PrefixFrom(netip.AddrFrom4([4]byte{172, 16 + byte(i/64), byte(i%64) * 4, 0}), 22), HostPrefix: 32}}}
		ns = append(ns, n)
		hs[n.Name] = map[string][]netip.Prefix{}
		for j, nd := range nds {
			hs[n.Name][nd.Name] = []netip.Prefix{netip.PrefixFrom(netip.AddrFrom4([4]byte{172, 16 + byte(i/64), byte(i%64)*4 + byte(j>>8), byte(j)}), 32)}
		}
	}
	c := v4Connect("bench")
	c.Spec.ConnectSubnets[0] = ConnectSubnet{CIDR: "10.0.0.0/8", NetworkPrefix: 20}
	a, err := NewAllocator(c, ipam.NewTunnelKeyAllocator())
	if err != nil {
		tb.Fatal(err)
	}
	al, err := a.Allocate(ns)
	if err != nil {
		tb.Fatal(err)
	}
	return Input{Connect: c, Networks: ns, Allocation: al, Nodes: nds, Zone: "node0", HostSubnets: hs}
}

// BenchmarkPlan500x500 plans and diffs (against nothing) one connect of
// 500 Layer3 networks on 500 nodes: the seed's 250,000-route case. Its
// 250,000 connect-router ports need tunnel keys far over OVN's port limit
// of 32767 per datapath, so Plan refuses it (ErrTunnelKeyLimit); the
// benchmark lifts the limit to measure the planner at the seed's scale.
func BenchmarkPlan500x500(b *testing.B) {
	in := scaleInput(b, 500, 500)
	if _, err := Plan(in); !errors.Is(err, ErrTunnelKeyLimit) {
		b.Fatalf("Plan at 500 x 500: %v, want ErrTunnelKeyLimit", err)
	}
	b.ReportAllocs()
	var rows int
	for b.Loop() {
		s, err := plan(in, nil, math.MaxInt)
		if err != nil {
			b.Fatal(err)
		}
		rows = len(topology.Diff(topology.State{}, s))
	}
	b.ReportMetric(float64(rows), "rows/op")
}

// BenchmarkAddNode500x500 plans what node 501 adds to that connection and
// diffs it against the 500-node state.
func BenchmarkAddNode500x500(b *testing.B) {
	in := scaleInput(b, 500, 501)
	old := in
	old.Nodes = in.Nodes[:500]
	observed, err := plan(old, nil, math.MaxInt)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	var changes int
	for b.Loop() {
		part, err := plan(in, map[string]bool{"node500": true}, math.MaxInt)
		if err != nil {
			b.Fatal(err)
		}
		changes = len(topology.Diff(observed, part))
	}
	b.ReportMetric(float64(changes), "changes/op")
}

// TestPlanNodesMatchesFullPlan: what PlanNodes gives for a joining node is
// exactly the full plan's difference, and overlaying it gives the full
// plan.
func TestPlanNodesMatchesFullPlan(t *testing.T) {
	in := scaleInput(t, 7, 6)
	in.Networks = append(in.Networks, l2("ns_l2", 99, 200))
	a, _ := NewAllocator(in.Connect, ipam.NewTunnelKeyAllocator())
	al, err := a.Allocate(in.Networks)
	if err != nil {
		t.Fatal(err)
	}
	in.Allocation = al
	old := in
	old.Nodes = in.Nodes[:5]
	before := must(Plan(old))
	after := must(Plan(in))
	part := must(PlanNodes(in, "node5"))
	full := topology.Diff(before, after)
	if d := topology.Diff(before, part); d.String() != full.String() || len(full) != 7*2 { // a remote node: its connect port and route per Layer3 network
		t.Errorf("incremental diff (%d) differs from the full diff (%d):\n%s\n---\n%s", len(d), len(full), d, full)
	}
	if got := before.Overlay(part); !got.Equal(after) {
		t.Errorf("overlay differs:\n%s", topology.Diff(after, got))
	}
	// A node leaving: the diff against the full plan removes its rows only.
	for _, ch := range topology.Diff(after, before) {
		if ch.Object.OwnedBy().Node != "node5" {
			t.Errorf("node5 leaving touches %s", topology.Render(ch.Object))
		}
	}
	if _, err := PlanNodes(in); err == nil {
		t.Error("PlanNodes without nodes")
	}
}

// BenchmarkPlanPrimaryLinks plans one namespace's link of 8 primary
// networks (4 Layer3, 4 Layer2) on 1,000 nodes: in one zone holding every
// node (a reroute per Layer3 network, node and other network), and in one
// node's zone (interconnect).
func BenchmarkPlanPrimaryLinks(b *testing.B) {
	var nets []*udn.Network
	for i := range 8 {
		if i%2 == 0 {
			nets = append(nets, l3(fmt.Sprintf("ns1_n%d", i), i+1, byte(i+1)))
		} else {
			nets = append(nets, l2(fmt.Sprintf("ns1_n%d", i), i+1, byte(i+1)))
		}
	}
	var nodes []topology.Node
	for i := range 1000 {
		nodes = append(nodes, topology.Node{Name: fmt.Sprintf("node%d", i), ID: ipam.MinNodeID + i, Chassis: fmt.Sprintf("chassis-%d", i)})
	}
	for _, tc := range []struct {
		name string
		zone func(i int) string
	}{
		{"one_zone_1000_nodes", func(int) string { return "z" }},
		{"interconnect", func(i int) string { return fmt.Sprintf("node%d", i) }},
	} {
		b.Run(tc.name, func(b *testing.B) {
			for i := range nodes {
				nodes[i].Zone = tc.zone(i)
			}
			in := PrimaryLinksInput{Name: "ns1", Networks: nets, Nodes: nodes, Zone: nodes[0].Zone}
			b.ReportAllocs()
			var rows int
			for b.Loop() {
				s, err := PlanPrimaryLinks(in)
				if err != nil {
					b.Fatal(err)
				}
				rows = s.Len()
			}
			b.ReportMetric(float64(rows), "rows/op")
		})
	}
}
