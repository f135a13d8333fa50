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
	"github.com/udnkit/udnkit/ipam"
	"github.com/udnkit/udnkit/netconf"
	"github.com/udnkit/udnkit/topology"
	"github.com/udnkit/udnkit/topology/egressip"
	"github.com/udnkit/udnkit/topology/pods"
)

// TestRealEgressIP: the primary Layer3 network ns1_blue on three nodes of
// one zone, an EgressIP assigned to node1 selecting the pod "selected" on
// node2, with "plain" (unselected) beside it and "peer" on node3. Network,
// pods and EgressIP rows are synced by their three controllers to a real
// NB with ovn-northd; ovn-trace referees: the selected pod's traffic to an
// external address is rerouted to node1's gateway router and leaves it by
// node1's external port with the EgressIP's mark; the unselected pod's
// leaves by its own node unmarked; pod-to-pod and pod-to-service traffic
// is not rerouted. The run fails on any northd warning.
func TestRealEgressIP(t *testing.T) {
	env := ovntest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c, err := ovnnb.Dial(ctx, ovnnb.Config{Endpoints: []string{env.NBUnix}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	nodes := ovntest.Nodes(3, "zone1")
	blue := ovntest.Layer3Network()
	in := ovntest.PlanInput(blue, nodes, "zone1")
	topo, err := topology.Plan(in)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Sync(ctx, topo); err != nil {
		t.Fatal(err)
	}
	planned := map[string]pods.Planned{}
	var eipPods []egressip.Pod
	byNode := map[string][]pods.Planned{}
	alloc := map[string]*ipam.PodIPAllocator{}
	for _, p := range []struct {
		name, node string
		labels     egressip.Labels
	}{{"selected", "node2", egressPodLabel}, {"plain", "node2", nil}, {"peer", "node3", nil}} {
		a := alloc[p.node]
		if a == nil {
			if a, err = ipam.NewPodIPAllocator(in.HostSubnets[p.node], nil); err != nil {
				t.Fatal(err)
			}
			alloc[p.node] = a
		}
		ips, err := a.Allocate()
		if err != nil {
			t.Fatal(err)
		}
		pp, err := pods.PlanPod(pods.Input{Pod: pods.Pod{Namespace: "ns1", Name: p.name, UID: "uid-" + p.name, Node: p.node},
			Attachments: []pods.Attachment{{Network: blue, NAD: "ns1/blue", Role: netconf.PodRolePrimary, IPs: ips, HostSubnets: in.HostSubnets[p.node]}},
			Nodes:       nodes, Zone: "zone1", ServiceCIDRs: []netip.Prefix{netip.MustParsePrefix("10.96.0.0/16")}})
		if err != nil {
			t.Fatal(err)
		}
		planned[p.name] = pp
		byNode[p.node] = append(byNode[p.node], pp)
		eipPods = append(eipPods, egressip.Pod{Namespace: "ns1", Name: p.name, Node: p.node, Labels: p.labels, IPs: []netip.Addr{ips[0].Addr()}})
	}
	for node, ps := range byNode {
		s, err := pods.PlanNode(node, []string{blue.Name}, ps)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := c.Sync(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	sel := egressip.Selector{Requirements: []egressip.Requirement{{Key: "egress", Op: egressip.OpIn, Values: []string{"needed"}}}}
	eips := []egressip.EgressIP{{Name: "eip", IPs: addrs("172.18.0.100"), PodSelector: sel, Mark: 50000}}
	var assignable []egressip.Node
	var nodeIPs []netip.Addr
	for _, n := range nodes {
		en := egressip.Node{Name: n.Name, Assignable: n.Name == "node1", Ready: true, Subnets: n.Addresses, HostIPs: []netip.Addr{n.Addresses[0].Addr()}}
		assignable = append(assignable, en)
		nodeIPs = append(nodeIPs, n.Addresses[0].Addr())
	}
	st, un := egressip.Assign(eips, assignable)
	if len(un) != 0 || len(st[0].Items) != 1 || st[0].Items[0].Node != "node1" {
		t.Fatalf("assignment %v, unassigned %v", st, un)
	}
	eips[0].Status = st[0].Items
	rows, err := egressip.Plan(egressip.Input{Network: blue, Nodes: nodes, Zone: "zone1", EgressIPs: eips,
		Namespaces: []egressip.Namespace{{Name: "ns1"}}, Pods: eipPods, NodeIPs: nodeIPs, ServiceIPs: in.Cluster.ServiceIPs})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Sync(ctx, rows); err != nil {
		t.Fatal(err)
	}
	// Each controller's Sync leaves the others' rows alone.
	if ch, _, err := c.Sync(ctx, topo); err != nil || len(ch) != 0 {
		t.Fatalf("topology re-sync: %v\n%s", err, ch)
	}
	if ch, _, err := c.Sync(ctx, rows); err != nil || len(ch) != 0 {
		t.Fatalf("egress IP re-sync: %v\n%s", err, ch)
	}
	if err := env.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	trace := func(from, dst string) string {
		t.Helper()
		port := planned[from].Ports[0]
		mac, ip, _ := strings.Cut(port.Addresses[0], " ")
		match := fmt.Sprintf(`inport == %q && eth.src == %s && eth.dst == %s && ip4.src == %s && ip4.dst == %s && ip.ttl == 64 && udp && udp.dst == 53`,
			port.Name, mac, "0a:58:0a:80:02:01", ip, dst)
		out, err := env.Trace(ctx, port.Switch, match)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	const marked = "pkt.mark = 50000;"
	t.Run("selected pod to an external address leaves node1 marked", func(t *testing.T) {
		out := trace("selected", "8.8.8.8")
		if !strings.Contains(out, `output to "breth0_ns1_blue_node1"`) || !strings.Contains(out, marked) ||
			strings.Contains(out, `output to "breth0_ns1_blue_node2"`) {
			t.Errorf("not rerouted to node1's gateway with mark 50000:\n%s", out)
		}
	})
	t.Run("unselected pod leaves by its own node unmarked", func(t *testing.T) {
		out := trace("plain", "8.8.8.8")
		if !strings.Contains(out, `output to "breth0_ns1_blue_node2"`) || strings.Contains(out, marked) {
			t.Errorf("unselected pod's egress:\n%s", out)
		}
	})
	t.Run("pod to pod is not rerouted", func(t *testing.T) {
		_, peerIP, _ := strings.Cut(planned["peer"].Ports[0].Addresses[0], " ")
		out := trace("selected", peerIP)
		if !strings.Contains(out, fmt.Sprintf("output to %q", planned["peer"].Ports[0].Name)) || strings.Contains(out, marked) {
			t.Errorf("selected pod to the peer pod:\n%s", out)
		}
	})
	t.Run("pod to the default network's services is not rerouted", func(t *testing.T) {
		out := trace("selected", "10.96.0.10")
		if !strings.Contains(out, `output to "k8s-ns1_blue_node2"`) || strings.Contains(out, marked) {
			t.Errorf("selected pod to DNS:\n%s", out)
		}
	})
}
