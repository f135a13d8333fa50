package egressip_test

import (
	"fmt"
	"net/netip"
	"testing"

	"github.com/udnkit/udnkit/topology"
	"github.com/udnkit/udnkit/topology/egressip"
)

// scale is 100 EgressIPs, each selecting the 100 pods of its namespace, on
// a Layer3 network of 20 nodes (node1's zone programmed, egress nodes
// node1..node4): 10,000 served pods, 500 of them local.
func scale() egressip.Input {
	n := l3Network()
	n.Subnets[0].CIDR = netip.MustParsePrefix("10.128.0.0/14")
	in := egressip.Input{Network: n, Zone: "node1", ServiceIPs: addrs("10.96.0.1", "10.96.0.10")}
	for i := range 20 {
		in.Nodes = append(in.Nodes, topology.Node{Name: fmt.Sprintf("node%d", i+1), ID: i + 2})
		in.NodeIPs = append(in.NodeIPs, netip.AddrFrom4([4]byte{172, 18, 0, byte(i + 2)}))
	}
	for e := range 100 {
		ns := fmt.Sprintf("ns%03d", e)
		in.Namespaces = append(in.Namespaces, egressip.Namespace{Name: ns, Labels: egressip.NewLabels("tenant", ns)})
		in.EgressIPs = append(in.EgressIPs, egressip.EgressIP{Name: "eip-" + ns, Mark: 50000 + e,
			IPs:               []netip.Addr{netip.AddrFrom4([4]byte{172, 18, 1, byte(e)})},
			NamespaceSelector: egressip.Selector{Requirements: []egressip.Requirement{{Key: "tenant", Op: egressip.OpIn, Values: []string{ns}}}},
			Status:            []egressip.Assignment{{Node: fmt.Sprintf("node%d", 1+e%4), IP: netip.AddrFrom4([4]byte{172, 18, 1, byte(e)})}}})
		for p := range 100 {
			k := e*100 + p
			in.Pods = append(in.Pods, egressip.Pod{Namespace: ns, Name: fmt.Sprintf("pod%03d", p), Node: fmt.Sprintf("node%d", 1+k%20),
				IPs: []netip.Addr{netip.AddrFrom4([4]byte{10, 128 + byte(k>>16), byte(k >> 8), byte(k)})}})
		}
	}
	return in
}

// BenchmarkPlan: 100 EgressIPs selecting 10,000 pods, planned for a zone.
func BenchmarkPlan(b *testing.B) {
	in := scale()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := egressip.Plan(in); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPodChange: one pod of the 10,000 gets a new address; the zone
// is planned again and diffed against the previous plan.
func BenchmarkPodChange(b *testing.B) {
	in := scale()
	before, err := egressip.Plan(in)
	if err != nil {
		b.Fatal(err)
	}
	in.Pods[0].IPs = addrs("10.131.255.1")
	b.ReportAllocs()
	var n int
	for b.Loop() {
		after, err := egressip.Plan(in)
		if err != nil {
			b.Fatal(err)
		}
		n = len(topology.Diff(before, after))
	}
	b.ReportMetric(float64(n), "changes")
}

// TestPodChangeIsSmall: a local served pod's new address changes its
// reroute, its gateway-router policy and the served set, nothing else.
func TestPodChangeIsSmall(t *testing.T) {
	in := scale()
	before, err := egressip.Plan(in)
	if err != nil {
		t.Fatal(err)
	}
	in.Pods[0].IPs = addrs("10.131.255.1") // pod000 of ns000 on node1, served by eip-ns000 on node1
	after, err := egressip.Plan(in)
	if err != nil {
		t.Fatal(err)
	}
	ch := topology.Diff(before, after)
	if len(ch) != 5 { // reroute and 95 policy: delete + create each; the served set: update
		t.Errorf("%d changes:\n%s", len(ch), ch)
	}
}

// TestPlanNodes: a pod's change planned for its node, its EgressIP's
// egress node and the network-wide rows gives the same changes as the
// full plan, and overlaid on the previous plan, the full plan.
func TestPlanNodes(t *testing.T) {
	in := scale()
	before, err := egressip.Plan(in)
	if err != nil {
		t.Fatal(err)
	}
	in.Pods[20].IPs = addrs("10.131.255.1") // pod020 of ns000 on node1, served by eip-ns000 on node1
	after, err := egressip.Plan(in)
	if err != nil {
		t.Fatal(err)
	}
	part, err := egressip.PlanNodes(in, "node1", "")
	if err != nil {
		t.Fatal(err)
	}
	full, inc := topology.Diff(before, after), topology.Diff(before, part)
	if full.String() != inc.String() || len(inc) != 5 {
		t.Errorf("incremental changes\n%s\nfull\n%s", inc, full)
	}
	if !before.Overlay(part).Equal(after) {
		t.Error("the overlaid plan differs from the full plan")
	}
	// A node of another zone has no rows here; "" has the sets and the 102s.
	if p, _ := egressip.PlanNodes(in, "node20"); p.Len() != 0 {
		t.Errorf("node20's rows: %d", p.Len())
	}
	if p, _ := egressip.PlanNodes(in, ""); p.Len() != 5 {
		t.Errorf("the network-wide rows: %d", p.Len())
	}
}

// BenchmarkPodChangeNodes: the same change planned with PlanNodes for the
// pod's node (also its egress node) and the network-wide rows, and diffed.
func BenchmarkPodChangeNodes(b *testing.B) {
	in := scale()
	before, err := egressip.Plan(in)
	if err != nil {
		b.Fatal(err)
	}
	in.Pods[0].IPs = addrs("10.131.255.1")
	b.ReportAllocs()
	var n int
	for b.Loop() {
		part, err := egressip.PlanNodes(in, "node1", "")
		if err != nil {
			b.Fatal(err)
		}
		n = len(topology.Diff(before, part))
	}
	b.ReportMetric(float64(n), "changes")
}
