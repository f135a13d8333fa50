package ovnnb_test

import (
	"context"
	"net/netip"
	"strings"
	"testing"

	"github.com/udnkit/udnkit/backend/ovnnb"
	"github.com/udnkit/udnkit/internal/ovntest"
	"github.com/udnkit/udnkit/netconf"
	"github.com/udnkit/udnkit/topology"
)

// servicesController is a test controller owning load balancers that it
// attaches to the topology's group, switches and gateway routers.
const servicesController topology.Controller = "test-services"

// servicesState attaches a cluster-wide load balancer to the network's
// cluster group and a per-node one to node's switch and gateway router.
func servicesState(t testing.TB, network, node string) topology.State {
	t.Helper()
	p := netconf.NetworkPrefix(network)
	own := topology.Owner{Controller: servicesController, Network: network, Topology: netconf.TopologyLayer3, Role: netconf.RolePrimary}
	vip := func(v, be string) []topology.LBVIP {
		return []topology.LBVIP{{VIP: netip.MustParseAddrPort(v), Backends: []netip.AddrPort{netip.MustParseAddrPort(be)}}}
	}
	var b topology.Builder
	b.OwnFor(servicesController, network)
	b.Add(
		topology.LoadBalancer{Owner: own, Name: p + "Service_ns1/web_TCP_cluster", Protocol: topology.ProtocolTCP,
			VIPs: vip("10.96.0.20:80", "10.128.1.10:8080"), Groups: []string{p + "clusterLBGroup"}},
		topology.LoadBalancer{Owner: own, Name: p + "Service_ns1/web_TCP_node_router+switch_" + node, Protocol: topology.ProtocolTCP,
			VIPs: vip("172.18.0.2:30080", "10.128.1.10:8080"), Switches: []string{p + node}, Routers: []string{"GR_" + p + node}},
	)
	s, err := b.State()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// testLoadBalancerAttachments: a services controller's load balancers sit
// in the topology's group, switch and gateway router; the topology's Sync
// leaves them there, Observe reads the attachments back, moving one to
// another node is one update, and the topology can delete a node whose
// switch holds one (the references are weak).
func testLoadBalancerAttachments(t *testing.T, c *ovnnb.Client) {
	ctx := context.Background()
	const network = "ns1_blue"
	topo, err := ovntest.Plan(ovntest.Layer3Network(), ovntest.Nodes(3, "zone1"), "zone1")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Sync(ctx, topo); err != nil {
		t.Fatal(err)
	}
	svc := servicesState(t, network, "node1")
	ch, _, err := c.Sync(ctx, svc)
	if err != nil {
		t.Fatal(err)
	}
	checkForeignUntouched(t, servicesController, ch)
	if cr, _, _ := ch.Count(); cr != 2 {
		t.Fatalf("services Sync: %d creates, want 2:\n%s", cr, ch)
	}
	observeEquals := func(want topology.State) {
		t.Helper()
		got, err := c.Observe(ctx, network)
		if err != nil {
			t.Fatal(err)
		}
		d := topology.Diff(ofController(t, got, servicesController, network), want)
		if len(d) != 0 {
			t.Fatalf("observed load balancers differ from the plan:\n%s", d)
		}
	}
	observeEquals(svc)
	if ch, _, err := c.Sync(ctx, topo); err != nil || len(ch) != 0 {
		t.Fatalf("topology Sync with attached load balancers: %v\n%s", err, ch)
	}
	observeEquals(svc)

	moved := servicesState(t, network, "node2")
	ch, _, err = c.Sync(ctx, moved)
	if err != nil {
		t.Fatal(err)
	}
	if cr, up, del := ch.Count(); up != 0 || cr != 1 || del != 1 {
		t.Fatalf("moving the per-node load balancer (a new name): %d/%d/%d, want 1 create and 1 delete:\n%s", cr, up, del, ch)
	}
	observeEquals(moved)
	// The same load balancer moved to another switch only: one update.
	s2 := servicesState(t, network, "node2")
	var b topology.Builder
	b.OwnFor(servicesController, network)
	for o := range s2.Objects() {
		if lb := o.(topology.LoadBalancer); len(lb.Switches) > 0 {
			lb.Switches = []string{netconf.NetworkPrefix(network) + "node3"}
			o = lb
		}
		b.Add(o)
	}
	s3, err := b.State()
	if err != nil {
		t.Fatal(err)
	}
	ch, _, err = c.Sync(ctx, s3)
	if err != nil {
		t.Fatal(err)
	}
	if cr, up, del := ch.Count(); cr != 0 || up != 1 || del != 0 {
		t.Fatalf("re-attaching: %d/%d/%d, want one update:\n%s", cr, up, del, ch)
	}
	observeEquals(s3)

	// node3 leaves: its switch goes, the load balancer stays, without it.
	two, err := ovntest.Plan(ovntest.Layer3Network(), ovntest.Nodes(3, "zone1")[:2], "zone1")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Sync(ctx, two); err != nil {
		t.Fatalf("topology Sync deleting a switch that holds a load balancer: %v", err)
	}
	got, err := c.Observe(ctx, network)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, o := range only(got, servicesController) {
		lb := o.(topology.LoadBalancer)
		n++
		if len(lb.Switches) != 0 {
			t.Errorf("%s still on switches %v after they were deleted", lb.Name, lb.Switches)
		}
	}
	if n != 2 {
		t.Fatalf("%d load balancers after the node left, want 2", n)
	}
	if _, _, err := c.Sync(ctx, topology.RemovalFor(servicesController, network)); err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Sync(ctx, topology.Removal(network)); err != nil {
		t.Fatal(err)
	}
	if got, err := c.Observe(ctx); err != nil || got.Len() != 0 {
		t.Fatalf("after both removals: %v, %d rows left", err, got.Len())
	}
}

func TestLoadBalancerAttachmentsEmbedded(t *testing.T) {
	testLoadBalancerAttachments(t, embedded(t, ovnnb.Config{}))
}

func TestRealLoadBalancerAttachments(t *testing.T) {
	_, c := realOVN(t, ovnnb.Config{})
	testLoadBalancerAttachments(t, c)
}

// TestRealLoadBalancerAttachmentsBatched applies the topology and the
// load balancers in transactions of one operation each: an attachment to
// a row an earlier transaction created still lands.
func TestRealLoadBalancerAttachmentsBatched(t *testing.T) {
	_, c := realOVN(t, ovnnb.Config{MaxOpsPerTransaction: 1})
	testLoadBalancerAttachments(t, c)
}

// ofController returns the objects of s that controller c owns, as a
// State speaking for c in network.
func ofController(t testing.TB, s topology.State, c topology.Controller, network string) topology.State {
	t.Helper()
	var b topology.Builder
	b.OwnFor(c, network)
	b.Add(only(s, c)...)
	out, err := b.State()
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestRealLoadBalancerOnForeignSwitch: a person adds the SDK's load
// balancer to a switch and a router udnkit does not own. Observe does not
// count those attachments and Sync leaves them; the person's rows keep
// the load balancer.
func TestRealLoadBalancerOnForeignSwitch(t *testing.T) {
	env, c := realOVN(t, ovnnb.Config{})
	ctx := context.Background()
	const network = "ns1_blue"
	topo, err := ovntest.Plan(ovntest.Layer3Network(), ovntest.Nodes(1, "zone1"), "zone1")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Sync(ctx, topo); err != nil {
		t.Fatal(err)
	}
	svc := servicesState(t, network, "node1")
	if _, _, err := c.Sync(ctx, svc); err != nil {
		t.Fatal(err)
	}
	lb := netconf.NetworkPrefix(network) + "Service_ns1/web_TCP_cluster"
	uuid, err := env.NBCtl(ctx, "--bare", "--columns=_uuid", "find", "Load_Balancer", "name="+lb)
	if err != nil || uuid == "" {
		t.Fatalf("load balancer %s: %q %v", lb, uuid, err)
	}
	uuid = strings.TrimSpace(uuid)
	if _, err := env.NBCtl(ctx, "--", "create", "Logical_Switch", "name=someone_elses_switch", "load_balancer="+uuid,
		"--", "create", "Logical_Router", "name=someone_elses_router", "load_balancer="+uuid); err != nil {
		t.Fatal(err)
	}
	got, err := c.Observe(ctx, network)
	if err != nil {
		t.Fatal(err)
	}
	if d := topology.Diff(ofController(t, got, servicesController, network), svc); len(d) != 0 {
		t.Errorf("Observe counts the foreign attachments:\n%s", d)
	}
	if ch, _, err := c.Sync(ctx, svc); err != nil || len(ch) != 0 {
		t.Fatalf("Sync with the foreign attachments: %v\n%s", err, ch)
	}
	for _, table := range []string{"Logical_Switch", "Logical_Router"} {
		held, err := env.NBCtl(ctx, "--bare", "--columns=load_balancer", "find", table, "name=someone_elses_"+strings.ToLower(table[len("Logical_"):]))
		if err != nil || strings.TrimSpace(held) != uuid {
			t.Errorf("%s someone_elses: load_balancer %q (%v), want %s", table, held, err, uuid)
		}
	}
}
