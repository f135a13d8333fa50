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
	"github.com/udnkit/udnkit/netconf/udn"
	"github.com/udnkit/udnkit/topology"
	"github.com/udnkit/udnkit/topology/egressip"
	"github.com/udnkit/udnkit/topology/pods"
)

// realNet is one primary network of the real test with its planned pods.
type realNet struct {
	net     *udn.Network
	in      topology.Input
	topo    topology.State
	planned map[string]pods.Planned
	pods    []egressip.Pod
}

// TestRealEgressIP: namespace ns1 has two primary Layer3 networks (seed
// 002), ns1_blue and ns1_green, on three nodes of one zone; an EgressIP
// assigned to node1 selects the pods labelled egress=needed: "selected" on
// node2 of each network, beside "plain" (unselected) on node2 and "peer"
// on node3. Networks, pods and EgressIP rows are synced by their three
// controllers to a real NB with ovn-northd; ovn-trace referees: a selected
// pod's traffic to an external address is rerouted to node1's gateway
// router of its network and leaves it by node1's external port with the
// EgressIP's mark, on both networks; the unselected pod's leaves by its own
// node unmarked; pod-to-pod and pod-to-service traffic is not rerouted. The
// run fails on any northd warning.
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
	green := ovntest.Layer3Network()
	green.Name, green.ID = "ns1_green", 2
	green.Subnets[0].CIDR = netip.MustParsePrefix("10.129.0.0/16")

	sel := egressip.Selector{Requirements: []egressip.Requirement{{Key: "egress", Op: egressip.OpIn, Values: []string{"needed"}}}}
	eips := []egressip.EgressIP{{Name: "eip", IPs: addrs("172.18.0.100"), PodSelector: sel, Mark: 50000}}
	var assignable []egressip.Node
	var nodeIPs []netip.Addr
	for _, n := range nodes {
		assignable = append(assignable, egressip.Node{Name: n.Name, Assignable: n.Name == "node1", Ready: true,
			Subnets: n.Addresses, HostIPs: []netip.Addr{n.Addresses[0].Addr()}})
		nodeIPs = append(nodeIPs, n.Addresses[0].Addr())
	}
	st, un := egressip.Assign(eips, assignable)
	if len(un) != 0 || len(st[0].Items) != 1 || st[0].Items[0].Node != "node1" {
		t.Fatalf("assignment %v, unassigned %v", st, un)
	}
	eips[0].Status = st[0].Items

	nets := map[string]*realNet{}
	for i, n := range []*udn.Network{blue, green} {
		rn := &realNet{net: n, in: ovntest.PlanInput(n, nodes, "zone1"), planned: map[string]pods.Planned{}}
		for j, nd := range nodes {
			rn.in.HostSubnets[nd.Name] = []netip.Prefix{netip.PrefixFrom(netip.AddrFrom4([4]byte{10, 128 + byte(i), byte(j + 1), 0}), 24)}
		}
		if rn.topo, err = topology.Plan(rn.in); err != nil {
			t.Fatal(err)
		}
		if _, _, err := c.Sync(ctx, rn.topo); err != nil {
			t.Fatal(err)
		}
		byNode := map[string][]pods.Planned{}
		alloc := map[string]*ipam.PodIPAllocator{}
		for _, p := range []struct {
			name, node string
			labels     egressip.Labels
		}{{"selected", "node2", egressPodLabel}, {"plain", "node2", nil}, {"peer", "node3", nil}} {
			a := alloc[p.node]
			if a == nil {
				if a, err = ipam.NewPodIPAllocator(rn.in.HostSubnets[p.node], nil); err != nil {
					t.Fatal(err)
				}
				alloc[p.node] = a
			}
			ips, err := a.Allocate()
			if err != nil {
				t.Fatal(err)
			}
			name := p.name + "-" + strings.TrimPrefix(n.Name, "ns1_")
			pp, err := pods.PlanPod(pods.Input{Pod: pods.Pod{Namespace: "ns1", Name: name, UID: "uid-" + name, Node: p.node},
				Attachments: []pods.Attachment{{Network: n, NAD: strings.Replace(n.Name, "_", "/", 1), Role: netconf.PodRolePrimary,
					IPs: ips, HostSubnets: rn.in.HostSubnets[p.node]}},
				Nodes: nodes, Zone: "zone1", ServiceCIDRs: []netip.Prefix{netip.MustParsePrefix("10.96.0.0/16")}})
			if err != nil {
				t.Fatal(err)
			}
			rn.planned[p.name] = pp
			byNode[p.node] = append(byNode[p.node], pp)
			rn.pods = append(rn.pods, egressip.Pod{Namespace: "ns1", Name: name, Node: p.node, Labels: p.labels, IPs: []netip.Addr{ips[0].Addr()}})
		}
		for node, ps := range byNode {
			s, err := pods.PlanNode(node, []string{n.Name}, ps)
			if err != nil {
				t.Fatal(err)
			}
			if _, _, err := c.Sync(ctx, s); err != nil {
				t.Fatal(err)
			}
		}
		rows, err := egressip.Plan(egressip.Input{Network: n, Nodes: nodes, Zone: "zone1", EgressIPs: eips,
			Namespaces: []egressip.Namespace{{Name: "ns1"}}, Pods: rn.pods, NodeIPs: nodeIPs, ServiceIPs: rn.in.Cluster.ServiceIPs})
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := c.Sync(ctx, rows); err != nil {
			t.Fatal(err)
		}
		// The reply-marking QoS rows are in the plan; they match tracked
		// replies: the reference's switches track connections for their
		// network policies (allow-related ACLs); one stands in for them.
		tracked := map[string]bool{}
		for _, o := range rows.ObjectsOf(topology.KindQoS) {
			if sw := o.(topology.QoS).Switch; !tracked[sw] {
				tracked[sw] = true
				if out, err := env.NBCtl(ctx, "acl-add", sw, "to-lport", "1", "ip4", "allow-related"); err != nil {
					t.Fatal(err, out)
				}
			}
		}
		if len(rows.ObjectsOf(topology.KindQoS)) == 0 {
			t.Fatalf("%s: no reply-marking QoS row planned", n.Name)
		}
		// Each controller's Sync leaves the others' rows alone.
		if ch, _, err := c.Sync(ctx, rn.topo); err != nil || len(ch) != 0 {
			t.Fatalf("%s: topology re-sync: %v\n%s", n.Name, err, ch)
		}
		if ch, _, err := c.Sync(ctx, rows); err != nil || len(ch) != 0 {
			t.Fatalf("%s: egress IP re-sync: %v\n%s", n.Name, err, ch)
		}
		nets[strings.TrimPrefix(n.Name, "ns1_")] = rn
	}
	if err := env.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	trace := func(rn *realNet, from, dst string, opts ...string) string {
		t.Helper()
		port := rn.planned[from].Ports[0]
		mac, ip, _ := strings.Cut(port.Addresses[0], " ")
		gw := rn.in.HostSubnets["node2"][0].Addr().Next()
		match := fmt.Sprintf(`inport == %q && eth.src == %s && eth.dst == %s && ip4.src == %s && ip4.dst == %s && ip.ttl == 64 && udp && udp.dst == 53`,
			port.Name, mac, ipam.MACFromIP(gw), ip, dst)
		out, err := env.Trace(ctx, append(opts, port.Switch, match)...)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	const marked = "pkt.mark = 50000;"
	for _, name := range []string{"blue", "green"} {
		rn := nets[name]
		p := rn.net.Prefix()
		t.Run(name+": selected pod to an external address leaves node1 marked", func(t *testing.T) {
			out := trace(rn, "selected", "8.8.8.8")
			if !strings.Contains(out, `output to "breth0_`+p+`node1"`) || !strings.Contains(out, marked) ||
				strings.Contains(out, `output to "breth0_`+p+`node2"`) {
				t.Errorf("not rerouted to node1's gateway with mark 50000:\n%s", out)
			}
		})
		t.Run(name+": a selected pod's reply traffic leaves by its own node", func(t *testing.T) {
			out := trace(rn, "selected", "8.8.8.8", "--ct=trk,est,rpl")
			if !strings.Contains(out, `output to "breth0_`+p+`node2"`) || strings.Contains(out, marked) || !strings.Contains(out, "pkt.mark = 42;") {
				t.Errorf("reply of the selected pod:\n%s", out)
			}
		})
		t.Run(name+": unselected pod leaves by its own node unmarked", func(t *testing.T) {
			out := trace(rn, "plain", "8.8.8.8")
			if !strings.Contains(out, `output to "breth0_`+p+`node2"`) || strings.Contains(out, marked) {
				t.Errorf("unselected pod's egress:\n%s", out)
			}
		})
		t.Run(name+": pod to pod is not rerouted", func(t *testing.T) {
			_, peerIP, _ := strings.Cut(rn.planned["peer"].Ports[0].Addresses[0], " ")
			out := trace(rn, "selected", peerIP)
			if !strings.Contains(out, fmt.Sprintf("output to %q", rn.planned["peer"].Ports[0].Name)) || strings.Contains(out, marked) {
				t.Errorf("selected pod to the peer pod:\n%s", out)
			}
		})
		t.Run(name+": pod to the default network's services is not rerouted", func(t *testing.T) {
			out := trace(rn, "selected", "10.96.0.10")
			if !strings.Contains(out, `output to "k8s-`+p+`node2"`) || strings.Contains(out, marked) {
				t.Errorf("selected pod to DNS:\n%s", out)
			}
		})
	}
}
