package egressip_test

import (
	"context"
	"fmt"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/udnkit/udnkit/backend/ovnnb"
	"github.com/udnkit/udnkit/internal/ovntest"
	"github.com/udnkit/udnkit/topology"
	"github.com/udnkit/udnkit/topology/egressip"
)

// TestRealEgressNodeZone: the egress node's own interconnect zone (node1)
// of ns1_blue, an EgressIP on node1 serving a pod of node2 (another zone).
// The pod's zone reroutes its traffic over the transit switch to node1's
// transit-switch address; marks do not cross the tunnel. ovn-trace from the
// transit switch, as the packet arrives from node2: node1's cluster router
// sends it to its gateway router by the egress route, the gateway router's
// priority-95 policy marks it, and it leaves by node1's external port. The
// same packet is dropped without the egress route. No northd warning.
func TestRealEgressNodeZone(t *testing.T) {
	env := ovntest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c, err := ovnnb.Dial(ctx, ovnnb.Config{Endpoints: []string{env.NBUnix}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	nodes := ovntest.Nodes(2, "") // every node its own zone
	blue := ovntest.Layer3Network()
	in := ovntest.PlanInput(blue, nodes, "node1")
	topo, err := topology.Plan(in)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Sync(ctx, topo); err != nil {
		t.Fatal(err)
	}
	podIP := netip.MustParseAddr("10.128.2.3") // on node2's host subnet
	eips := []egressip.EgressIP{{Name: "eip", IPs: addrs("172.18.0.100"), Mark: 50000,
		Status: []egressip.Assignment{{Node: "node1", IP: netip.MustParseAddr("172.18.0.100")}}}}
	plan := func(egressNodes []string) topology.State {
		rows, err := egressip.Plan(egressip.Input{Network: blue, Nodes: nodes, Zone: "node1", EgressIPs: eips, EgressNodes: egressNodes,
			Namespaces: []egressip.Namespace{{Name: "ns1"}}, Pods: []egressip.Pod{{Namespace: "ns1", Name: "remote", Node: "node2", IPs: []netip.Addr{podIP}}},
			NodeIPs: addrs("172.18.0.2", "172.18.0.3"), ServiceIPs: in.Cluster.ServiceIPs})
		if err != nil {
			t.Fatal(err)
		}
		return rows
	}
	trace := func() string {
		t.Helper()
		if err := env.Sync(ctx); err != nil {
			t.Fatal(err)
		}
		// node1's cluster router port on the transit switch: 100.88.0.2 (node ID 2).
		match := fmt.Sprintf(`inport == "ns1_blue_tstor-node2" && eth.src == 0a:58:64:58:00:03 && eth.dst == 0a:58:64:58:00:02 && ip4.src == %s && ip4.dst == 8.8.8.8 && ip.ttl == 63 && udp && udp.dst == 53`, podIP)
		out, err := env.Trace(ctx, "ns1_blue_transit_switch", match)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	if _, _, err := c.Sync(ctx, plan([]string{"node1"})); err != nil {
		t.Fatal(err)
	}
	out := trace()
	if testing.Verbose() {
		t.Log(out)
	}
	if !strings.Contains(out, `output to "breth0_ns1_blue_node1"`) || !strings.Contains(out, "pkt.mark = 50000;") {
		t.Errorf("a remote pod's rerouted traffic did not leave node1 marked:\n%s", out)
	}
	// Without the egress route (node1 no egress node): no way out.
	if _, _, err := c.Sync(ctx, plan(nil)); err != nil {
		t.Fatal(err)
	}
	if out := trace(); strings.Contains(out, `output to "breth0_ns1_blue_node1"`) {
		t.Errorf("left node1 without the egress route:\n%s", out)
	}
}

// TestRealPodZone: the pod's own interconnect zone (node2) of ns1_blue,
// the EgressIP on node1 (another zone): the selected pod's traffic to an
// external address is rerouted with the mark to node1's transit-switch
// address and leaves the zone over the transit switch towards node1; an
// unselected pod's leaves by node2's own gateway.
func TestRealPodZone(t *testing.T) {
	env := ovntest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c, err := ovnnb.Dial(ctx, ovnnb.Config{Endpoints: []string{env.NBUnix}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	nodes := ovntest.Nodes(2, "")
	blue := ovntest.Layer3Network()
	in := ovntest.PlanInput(blue, nodes, "node2")
	topo, err := topology.Plan(in)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Sync(ctx, topo); err != nil {
		t.Fatal(err)
	}
	pods := planPods(t, c, ctx, blue, in, nodes, "node2", "selected", "plain")
	sel := egressip.Selector{Requirements: []egressip.Requirement{{Key: "egress", Op: egressip.OpIn, Values: []string{"needed"}}}}
	eipPods := []egressip.Pod{
		{Namespace: "ns1", Name: "selected", Node: "node2", Labels: egressPodLabel, IPs: []netip.Addr{pods["selected"].ip}},
		{Namespace: "ns1", Name: "plain", Node: "node2", IPs: []netip.Addr{pods["plain"].ip}},
	}
	rows, err := egressip.Plan(egressip.Input{Network: blue, Nodes: nodes, Zone: "node2", EgressNodes: []string{"node1"},
		EgressIPs: []egressip.EgressIP{{Name: "eip", IPs: addrs("172.18.0.100"), Mark: 50000, PodSelector: sel,
			Status: []egressip.Assignment{{Node: "node1", IP: netip.MustParseAddr("172.18.0.100")}}}},
		Namespaces: []egressip.Namespace{{Name: "ns1"}}, Pods: eipPods, NodeIPs: addrs("172.18.0.2", "172.18.0.3"), ServiceIPs: in.Cluster.ServiceIPs})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Sync(ctx, rows); err != nil {
		t.Fatal(err)
	}
	if err := env.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	trace := func(name string) string {
		p := pods[name]
		match := fmt.Sprintf(`inport == %q && eth.src == %s && eth.dst == 0a:58:0a:80:02:01 && ip4.src == %s && ip4.dst == 8.8.8.8 && ip.ttl == 64 && udp && udp.dst == 53`,
			p.port, p.mac, p.ip)
		out, err := env.Trace(ctx, "ns1_blue_node2", match)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	if out := trace("selected"); !strings.Contains(out, `output to "ns1_blue_tstor-node1"`) || !strings.Contains(out, "pkt.mark = 50000;") ||
		strings.Contains(out, `output to "breth0_ns1_blue_node2"`) {
		t.Errorf("selected pod not rerouted to node1 over the transit switch:\n%s", out)
	}
	if out := trace("plain"); !strings.Contains(out, `output to "breth0_ns1_blue_node2"`) || strings.Contains(out, "pkt.mark = 50000;") {
		t.Errorf("unselected pod:\n%s", out)
	}
}
