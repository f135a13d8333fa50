package pods_test

import (
	"context"
	"fmt"
	"net/netip"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/udnkit/udnkit"
	"github.com/udnkit/udnkit/backend/ovnnb"
	"github.com/udnkit/udnkit/internal/ovntest"
	"github.com/udnkit/udnkit/ipam"
	"github.com/udnkit/udnkit/netconf"
	"github.com/udnkit/udnkit/topology"
	"github.com/udnkit/udnkit/topology/pods"
)

// TestRealPodsAttached attaches two pods of a primary Layer3 network on two
// nodes with the planner (no hand-written port), syncs the network and the
// pods as two controllers into a real NB, and lets ovn-trace referee: one
// pod reaches the other across nodes, and reaches the Kubernetes API's
// ClusterIP through its node's management port.
func TestRealPodsAttached(t *testing.T) {
	env := ovntest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cl, err := ovnnb.Dial(ctx, ovnnb.Config{Endpoints: []string{env.NBUnix}})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	nodes := ovntest.Nodes(3, "zone1")
	network := ovntest.Layer3Network()
	in := ovntest.PlanInput(network, nodes, "zone1")
	topo, err := topology.Plan(in)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := cl.Sync(ctx, topo); err != nil {
		t.Fatal(err)
	}
	alloc := map[string]*ipam.PodIPAllocator{}
	plan := func(name, node string) pods.Planned {
		t.Helper()
		if alloc[node] == nil {
			a, err := ipam.NewPodIPAllocator(in.HostSubnets[node], nil)
			if err != nil {
				t.Fatal(err)
			}
			alloc[node] = a
		}
		ips, err := alloc[node].Allocate()
		if err != nil {
			t.Fatal(err)
		}
		p, err := pods.PlanPod(pods.Input{Pod: pods.Pod{Namespace: "ns1", Name: name, UID: "uid-" + name, Node: node},
			Attachments: []pods.Attachment{{Network: network, NAD: "ns1/blue", Role: netconf.PodRolePrimary, IPs: ips,
				HostSubnets: in.HostSubnets[node]}},
			Nodes: nodes, Zone: "zone1", ServiceCIDRs: []netip.Prefix{netip.MustParsePrefix("10.96.0.0/16")}})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	a, b := plan("pod-a", "node1"), plan("pod-b", "node2")
	for node, ps := range map[string][]pods.Planned{"node1": {a}, "node2": {b}} {
		s, err := pods.PlanNode(node, []string{network.Name}, ps)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := cl.Sync(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	if err := env.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	// The topology's own Sync leaves the pods' ports alone.
	if ch, _, err := cl.Sync(ctx, topo); err != nil || len(ch) != 0 {
		t.Fatalf("topology re-sync changes %v (%v)", ch, err)
	}
	port, ann := a.Ports[0], a.Annotation["ns1/blue"]
	trace := func(dst string) (string, []string) {
		t.Helper()
		match := fmt.Sprintf(`inport == %q && eth.src == %s && eth.dst == %s && ip4.src == %s && ip4.dst == %s && ip.ttl == 64 && icmp4.type == 8`,
			port.Name, ann.MAC, "0a:58:0a:80:01:01", ann.IPs[0].Addr(), dst)
		out, err := env.Trace(ctx, port.Switch, match)
		if err != nil {
			t.Fatal(err)
		}
		var outs []string
		for _, m := range regexp.MustCompile(`output to "([^"]+)"`).FindAllStringSubmatch(out, -1) {
			outs = append(outs, m[1])
		}
		return out, outs
	}
	if out, outs := trace(b.Annotation["ns1/blue"].IPs[0].Addr().String()); !slices.Contains(outs, b.Ports[0].Name) {
		t.Errorf("pod-a -> pod-b not delivered (outputs %v):\n%s", outs, out)
	}
	if out, outs := trace("10.96.0.1"); !slices.ContainsFunc(outs, func(o string) bool { return strings.HasPrefix(o, "k8s-") }) {
		t.Errorf("pod-a -> 10.96.0.1 not sent to the management port (outputs %v):\n%s", outs, out)
	}
	// A third pod comes on node2 as its own change set (pods.Changes, then
	// Apply): reachable, and node2's full State agrees with the database.
	c := plan("pod-c", "node2")
	ch, err := pods.Changes(pods.Planned{}, c)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cl.Apply(ctx, ch); err != nil {
		t.Fatal(err)
	}
	if err := env.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if out, outs := trace(c.Annotation["ns1/blue"].IPs[0].Addr().String()); !slices.Contains(outs, c.Ports[0].Name) {
		t.Errorf("pod-a -> pod-c not delivered (outputs %v):\n%s", outs, out)
	}
	node2, err := pods.PlanNode("node2", []string{network.Name}, []pods.Planned{b, c})
	if err != nil {
		t.Fatal(err)
	}
	if ch, _, err := cl.Sync(ctx, node2); err != nil || len(ch) != 0 {
		t.Errorf("node2's resync after the incremental add: %v\n%s", err, ch)
	}
}

// TestRealSeveralSubnets: a Layer3 network with two IPv4 subnets (the
// first holds two /26 host subnets, so node3's comes from the second);
// ovn-trace: a pod on node1 (10.128.0.0/25) and one on node3
// (10.129.0.0/16) reach each other. (The subnets share a host prefix
// length: OVN ranks a longer source route above a shorter destination one,
// so a /25 node would send its traffic to a /24 node through its gateway
// router.)
func TestRealSeveralSubnets(t *testing.T) {
	env := ovntest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cl, err := ovnnb.Dial(ctx, ovnnb.Config{Endpoints: []string{env.NBUnix}})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	nodes := ovntest.Nodes(3, "zone1")
	nets, err := udnkit.New(udnkit.Config{Nodes: nodes})
	if err != nil {
		t.Fatal(err)
	}
	// Two subnets of a family: a NAD's NetConf may carry them (a spec may not).
	conf, err := netconf.ParseNetConf([]byte(`{"cniVersion":"1.1.0","name":"ns1_blue","type":"ovn-k8s-cni-overlay","topology":"layer3",` +
		`"role":"primary","netAttachDefName":"ns1/blue","subnets":"10.128.0.0/25/26,10.129.0.0/16/26"}`))
	if err != nil {
		t.Fatal(err)
	}
	n, err := conf.Network()
	if err != nil {
		t.Fatal(err)
	}
	network, err := nets.Add(n)
	if err != nil {
		t.Fatal(err)
	}
	in, err := nets.Input(network.Name, "zone1")
	if err != nil {
		t.Fatal(err)
	}
	topo, err := nets.Plan("zone1")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := cl.Sync(ctx, topo); err != nil {
		t.Fatal(err)
	}
	plan := func(name, node string) pods.Planned {
		t.Helper()
		a, err := ipam.NewPodIPAllocator(in.HostSubnets[node], nil)
		if err != nil {
			t.Fatal(err)
		}
		ips, err := a.Allocate()
		if err != nil {
			t.Fatal(err)
		}
		p, err := pods.PlanPod(pods.Input{Pod: pods.Pod{Namespace: "ns1", Name: name, UID: "uid-" + name, Node: node},
			Attachments: []pods.Attachment{{Network: network, NAD: "ns1/blue", Role: netconf.PodRolePrimary, IPs: ips,
				HostSubnets: in.HostSubnets[node]}},
			Nodes: nodes, Zone: "zone1", ServiceCIDRs: []netip.Prefix{netip.MustParsePrefix("10.96.0.0/16")}})
		if err != nil {
			t.Fatal(err)
		}
		s, err := pods.PlanNode(node, []string{network.Name}, []pods.Planned{p})
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := cl.Sync(ctx, s); err != nil {
			t.Fatal(err)
		}
		return p
	}
	a, c := plan("pod-a", "node1"), plan("pod-c", "node3")
	if err := env.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	trace := func(from, to pods.Planned) (string, bool) {
		t.Helper()
		port, ann := from.Ports[0], from.Annotation["ns1/blue"]
		match := fmt.Sprintf(`inport == %q && eth.src == %s && eth.dst == %s && ip4.src == %s && ip4.dst == %s && ip.ttl == 64 && icmp4.type == 8`,
			port.Name, ann.MAC, ipam.MACFromIP(ann.Gateways[0]), ann.IPs[0].Addr(), to.Annotation["ns1/blue"].IPs[0].Addr())
		out, err := env.Trace(ctx, port.Switch, match)
		if err != nil {
			t.Fatal(err)
		}
		return out, strings.Contains(out, fmt.Sprintf("output to %q", to.Ports[0].Name))
	}
	if !netip.MustParsePrefix("10.129.0.0/16").Contains(c.Annotation["ns1/blue"].IPs[0].Addr()) {
		t.Fatalf("pod-c's address %v is not in the second subnet", c.Annotation["ns1/blue"].IPs)
	}
	if out, ok := trace(a, c); !ok {
		t.Errorf("pod-a (first subnet) -> pod-c (second subnet) not delivered:\n%s", out)
	}
	if out, ok := trace(c, a); !ok {
		t.Errorf("pod-c -> pod-a not delivered:\n%s", out)
	}
}
