package ovnnb_test

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"strings"
	"sync"
	"testing"

	"github.com/udnkit/udnkit/backend/ovnnb"
	"github.com/udnkit/udnkit/internal/ovntest"
	"github.com/udnkit/udnkit/netconf"
	"github.com/udnkit/udnkit/topology"
)

// podsController is a test controller that writes rows into the network
// planners' switches and routers, as a pods or connect planner would.
const podsController topology.Controller = "test-pods"

// podsState is what the test "pods" controller wants in network: a pod's
// port on node1's switch and a policy on the cluster router (both parents
// belong to ControllerTopology).
func podsState(t testing.TB, network string, pods int) topology.State {
	t.Helper()
	p := netconf.NetworkPrefix(network)
	own := topology.Owner{Controller: podsController, Network: network, Topology: netconf.TopologyLayer3,
		Role: netconf.RolePrimary, Node: "node1"}
	var b topology.Builder
	b.OwnFor(podsController, network)
	for i := range pods {
		ip := netip.AddrFrom4([4]byte{10, 128, 1, byte(10 + i)})
		b.Add(topology.SwitchPort{Owner: own, Name: fmt.Sprintf("%spod-%d", p, i), Switch: p + "node1",
			Addresses: []string{fmt.Sprintf("0a:58:0a:80:01:%02x %s", 10+i, ip)}})
	}
	if pods > 0 {
		b.Add(topology.Policy{Owner: own, Router: p + "ovn_cluster_router", Priority: 9001,
			Match: "ip4.src == 10.128.1.10 && ip4.dst == 10.200.0.0/16", Action: topology.PolicyDrop})
	}
	s, err := b.State()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// only returns the objects of s that controller c owns.
func only(s topology.State, c topology.Controller) []topology.Object {
	var out []topology.Object
	for o := range s.Objects() {
		if o.OwnedBy().Controller.String() == c.String() {
			out = append(out, o)
		}
	}
	return out
}

// checkForeignUntouched fails when changes (applied by controller c)
// concern a row another controller owns.
func checkForeignUntouched(t *testing.T, c topology.Controller, changes topology.Changes) {
	t.Helper()
	for _, ch := range changes {
		for _, o := range []topology.Object{ch.Object, ch.Old} {
			if o != nil && o.OwnedBy().Controller.String() != c.String() {
				t.Errorf("controller %s changed a row of controller %s: %s", c, o.OwnedBy().Controller, ch)
			}
		}
	}
}

// testPodsSurviveTopologySync is the reproduction: a pods
// controller's port on a network switch (and its policy on the cluster
// router) survive a topology Sync, which used to delete them; the pods
// controller's own Sync never touches topology's rows.
func testPodsSurviveTopologySync(t *testing.T, c *ovnnb.Client) {
	ctx := context.Background()
	const network = "ns1_blue"
	topo, err := ovntest.Plan(ovntest.Layer3Network(), ovntest.Nodes(3, "zone1"), "zone1")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Sync(ctx, topo); err != nil {
		t.Fatal(err)
	}
	pods := podsState(t, network, 2)
	ch, _, err := c.Sync(ctx, pods)
	if err != nil {
		t.Fatal(err)
	}
	checkForeignUntouched(t, podsController, ch)
	if cr, _, _ := ch.Count(); cr != 3 {
		t.Fatalf("pods Sync: %d creates, want 3:\n%s", cr, ch)
	}
	// The topology Sync of the same plan sends nothing: the pods rows are
	// not its to delete.
	ch, res, err := c.Sync(ctx, topo)
	if err != nil || len(ch) != 0 || res.Operations != 0 {
		t.Fatalf("topology Sync with a pods port present: err %v, %d ops:\n%s", err, res.Operations, ch)
	}
	got, err := c.Observe(ctx, network)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(only(got, podsController)); n != 3 {
		t.Fatalf("after the topology Sync the pods controller has %d rows, want 3", n)
	}
	// A topology change that deletes rows (node3 leaves) leaves the pods
	// rows alone, and the pods controller's next Sync has nothing to do.
	two, err := ovntest.Plan(ovntest.Layer3Network(), ovntest.Nodes(3, "zone1")[:2], "zone1")
	if err != nil {
		t.Fatal(err)
	}
	ch, _, err = c.Sync(ctx, two)
	if err != nil {
		t.Fatal(err)
	}
	checkForeignUntouched(t, topology.ControllerTopology, ch)
	if _, _, d := ch.Count(); d == 0 {
		t.Fatal("removing node3 deleted nothing")
	}
	if ch, _, err := c.Sync(ctx, pods); err != nil || len(ch) != 0 {
		t.Fatalf("pods Sync after the topology change: %v\n%s", err, ch)
	}
	// Removing the network while the pods port sits on its switch is
	// refused (deleting the switch would delete the port with it), and
	// writes nothing.
	_, _, err = c.Sync(ctx, topology.Removal(network))
	if !errors.Is(err, ovnnb.ErrInvalidChange) {
		t.Fatalf("topology removal under a pods port: %v, want ErrInvalidChange", err)
	}
	// The pods controller removes its rows, then topology can.
	ch, _, err = c.Sync(ctx, topology.RemovalFor(podsController, network))
	if err != nil {
		t.Fatal(err)
	}
	checkForeignUntouched(t, podsController, ch)
	if _, _, d := ch.Count(); d != 3 {
		t.Fatalf("pods removal: %d deletes, want 3", d)
	}
	if ch, _, err := c.Sync(ctx, two); err != nil || len(ch) != 0 {
		t.Fatalf("topology Sync after the pods removal: %v\n%s", err, ch)
	}
	if _, _, err := c.Sync(ctx, topology.Removal(network)); err != nil {
		t.Fatal(err)
	}
	if got, err := c.Observe(ctx); err != nil || got.Len() != 0 {
		t.Fatalf("after both removals: %v, %d rows left", err, got.Len())
	}
}

func TestPodsSurviveTopologySyncEmbedded(t *testing.T) {
	testPodsSurviveTopologySync(t, embedded(t, ovnnb.Config{}))
}

func TestRealPodsSurviveTopologySync(t *testing.T) {
	_, c := realOVN(t, ovnnb.Config{})
	testPodsSurviveTopologySync(t, c)
}

// TestRealTwoControllers runs a topology controller and a pods controller
// against one real NB at once, each on its own connection, each deleting
// and recreating its own rows in a loop (topology: node3 leaves and comes
// back; pods: its port and policy go and come back). Neither ever changes
// the other's rows, and both end where they asked to be.
func TestRealTwoControllers(t *testing.T) {
	env, topoC := realOVN(t, ovnnb.Config{})
	ctx := context.Background()
	podsC, err := ovnnb.Dial(ctx, ovnnb.Config{Endpoints: []string{env.NBUnix}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(podsC.Close)
	const network = "ns1_blue"
	three, err := ovntest.Plan(ovntest.Layer3Network(), ovntest.Nodes(3, "zone1"), "zone1")
	if err != nil {
		t.Fatal(err)
	}
	two, err := ovntest.Plan(ovntest.Layer3Network(), ovntest.Nodes(3, "zone1")[:2], "zone1")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := topoC.Sync(ctx, three); err != nil {
		t.Fatal(err)
	}
	pods, none := podsState(t, network, 3), topology.RemovalFor(podsController, network)
	const rounds = 6
	var wg sync.WaitGroup
	loop := func(c *ovnnb.Client, ctl topology.Controller, states ...topology.State) {
		defer wg.Done()
		for i := range rounds * len(states) {
			want := states[i%len(states)]
			// Another writer may change a parent between this client's
			// read and its write; the server then refuses the
			// transaction (ErrTransaction) and the next Sync retries.
			for try := 0; ; try++ {
				ch, _, err := c.Sync(ctx, want)
				checkForeignUntouched(t, ctl, ch)
				if err == nil {
					break
				}
				if !errors.Is(err, ovnnb.ErrTransaction) || try == 20 {
					t.Errorf("controller %s, round %d: %v", ctl, i, err)
					return
				}
			}
		}
	}
	wg.Add(2)
	go loop(topoC, topology.ControllerTopology, two, three)
	go loop(podsC, podsController, none, pods)
	wg.Wait()
	got, err := topoC.Observe(ctx, network)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(only(got, podsController)); n != 4 {
		t.Errorf("pods controller ends with %d rows, want 4", n)
	}
	if ch := topology.Diff(got, three); len(ch) != 0 {
		t.Errorf("topology rows differ from the plan:\n%s", ch)
	}
	if ch := topology.Diff(got, pods); len(ch) != 0 {
		t.Errorf("pods rows differ from the plan:\n%s", ch)
	}
}

// TestLegacyRowsBelongToTopology: a row written before controllers
// existed (no k8s.ovn.org/owner-controller) reads as ControllerTopology's,
// so a topology Sync adopts it as is instead of recreating it.
func TestRealLegacyRowsBelongToTopology(t *testing.T) {
	env, c := realOVN(t, ovnnb.Config{})
	ctx := context.Background()
	topo, err := ovntest.Plan(ovntest.Layer3Network(), ovntest.Nodes(1, "zone1"), "zone1")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Sync(ctx, topo); err != nil {
		t.Fatal(err)
	}
	for _, table := range []string{"Logical_Switch", "Logical_Router", "Logical_Switch_Port", "Logical_Router_Port", "Logical_Router_Static_Route", "Logical_Router_Policy", "NAT"} {
		out, err := env.NBCtl(ctx, "--bare", "--columns=_uuid", "list", table)
		if err != nil {
			t.Fatal(err)
		}
		for _, u := range strings.Fields(out) {
			if _, err := env.NBCtl(ctx, "remove", table, u, "external_ids", ovnnb.ExtController); err != nil {
				t.Fatal(err)
			}
		}
	}
	if out, err := env.NBCtl(ctx, "--bare", "--columns=external_ids", "list", "Logical_Switch"); err != nil || strings.Contains(out, ovnnb.ExtController) || !strings.Contains(out, ovnnb.ExtNetwork) {
		t.Fatalf("owner-controller still written: %v %s", err, out)
	}
	ch, _, err := c.Sync(ctx, topo)
	if err != nil || len(ch) != 0 {
		t.Fatalf("topology Sync over legacy rows: %v\n%s", err, ch)
	}
}

// TestDeleteParentWithAnotherControllersMembers: one change set that
// deletes a network's router and switch and, with them, the rows another
// controller holds on them (a network removed with its connect ports and
// pods, as udnkit.Cluster.PlanEvent gives it) applies; the parent's guard
// refused it although the foreign members went in the same transaction.
func TestDeleteParentWithAnotherControllersMembers(t *testing.T) {
	ctx := context.Background()
	c := embedded(t, ovnnb.Config{})
	const network = "ns1_blue"
	topo, err := ovntest.Plan(ovntest.Layer3Network(), ovntest.Nodes(3, "zone1"), "zone1")
	if err != nil {
		t.Fatal(err)
	}
	pods := podsState(t, network, 2)
	both, err := topo.Merge(pods)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Sync(ctx, both); err != nil {
		t.Fatal(err)
	}
	// The topology alone may not delete what holds the pods' rows.
	if _, _, err := c.Sync(ctx, topology.Removal(network)); err == nil || !strings.Contains(err.Error(), "remove it first") {
		t.Fatalf("deleting the network under the pods' rows: %v, want a refusal", err)
	}
	gone, err := topology.Removal(network).Merge(topology.RemovalFor(podsController, network))
	if err != nil {
		t.Fatal(err)
	}
	changes, _, err := c.Sync(ctx, gone)
	if err != nil {
		t.Fatalf("deleting the network with the pods' rows in one change set: %v", err)
	}
	if len(changes) != both.Len() {
		t.Fatalf("%d changes, want all %d rows deleted", len(changes), both.Len())
	}
	left, err := c.Observe(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if left.Len() != 0 {
		t.Fatalf("%d rows left: %v", left.Len(), left)
	}
}
