package ovnnb_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/udnkit/udnkit/backend/ovnnb"
	"github.com/udnkit/udnkit/internal/ovntest"
	"github.com/udnkit/udnkit/netconf"
	"github.com/udnkit/udnkit/topology"
)

// rowsPerKind counts the rows of each table that carry udnkit's network
// external_id, and fails on two rows of one name.
func rowsPerKind(t *testing.T, env *ovntest.Env) map[string]int {
	t.Helper()
	all, err := env.Rows(context.Background(), ovntest.NBTables...)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int{}
	for table, rows := range all {
		names := map[string]int{}
		for _, r := range rows {
			if n, ok := r["name"].(string); ok && n != "" {
				names[n]++
				if names[n] == 2 {
					t.Errorf("%s %q exists twice", table, n)
				}
			}
			ids, _ := r["external_ids"].([]any)
			if len(ids) == 2 && strings.Contains(toJSON(ids[1]), ovnnb.ExtNetwork) {
				out[table]++
			}
		}
	}
	return out
}

func toJSON(v any) string {
	var b strings.Builder
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case []any:
			for _, e := range x {
				walk(e)
			}
		case string:
			b.WriteString(x + " ")
		}
	}
	walk(v)
	return b.String()
}

// planCounts counts a plan's objects per table.
func planCounts(s topology.State) map[string]int {
	out := map[string]int{}
	for o := range s.Objects() {
		if o.Kind() != topology.KindLoadBalancerGroup { // no external_ids
			out[o.Kind().Table()]++
		}
	}
	return out
}

// TestRealConcurrentSyncs: four clients Sync the same plan into one empty
// real NB at once, in batches. Every create of a switch, router or load
// balancer (no name index) is inserted under the UUID its name gives, so
// the losers' transactions are refused and their retry finds the rows:
// exactly one copy of every row, and the next Observe succeeds and equals
// the plan.
func TestRealConcurrentSyncs(t *testing.T) {
	// Small batches: a batch of switches and routers alone, whose
	// creates no name index guards, is where copies appeared.
	env, first := realOVN(t, ovnnb.Config{MaxOpsPerTransaction: 40})
	ctx := context.Background()
	l3, l2 := twoPrimaries(t)
	plan, err := l3.Merge(l2, handState(t, "ns3_green", "node1", "node2"), bareRows(t, "ns4_white", 30))
	if err != nil {
		t.Fatal(err)
	}
	clients := []*ovnnb.Client{first}
	for range 3 {
		c, err := ovnnb.Dial(ctx, ovnnb.Config{Endpoints: []string{env.NBUnix}, MaxOpsPerTransaction: 40})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(c.Close)
		clients = append(clients, c)
	}
	// First the bare rows alone (no indexed row shares their batches),
	// then everything.
	for _, want := range []topology.State{bareRows(t, "ns4_white", 30), plan} {
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i, c := range clients {
			wg.Go(func() {
				<-start
				for try := 0; ; try++ {
					_, _, err := c.Sync(ctx, want)
					if err == nil {
						return
					}
					if !errors.Is(err, ovnnb.ErrTransaction) || try == 50 {
						t.Errorf("client %d: %v", i, err)
						return
					}
				}
			})
		}
		close(start)
		wg.Wait()
		got := rowsPerKind(t, env)
		for table, n := range planCounts(want) {
			if got[table] != n {
				t.Errorf("%s: %d owned rows, want %d", table, got[table], n)
			}
		}
		obs, err := first.Observe(ctx)
		if err != nil {
			t.Fatalf("Observe after concurrent Syncs: %v", err)
		}
		if !obs.Equal(want) {
			t.Errorf("observed differs from the plan:\n%s", topology.Diff(obs, want))
		}
	}
}

// bareRows is a network of n load balancers, empty switches and empty
// routers: rows no name index guards, with no indexed row beside them in
// their transaction.
func bareRows(t *testing.T, network string, n int) topology.State {
	t.Helper()
	own := topology.Owner{Network: network}
	var b topology.Builder
	for i := range n {
		s := network + "_" + strconv.Itoa(i)
		b.Add(topology.LoadBalancer{Owner: own, Name: s + "_lb", Protocol: "tcp"}, topology.Switch{Owner: own, Name: s + "_sw"},
			topology.Router{Owner: own, Name: s + "_rt"})
	}
	st, err := b.State()
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// TestRealDuplicateHealed: a duplicate of an owned switch and of an owned
// router (what concurrent writers without the create guard left) no longer
// makes Observe fail: Observe keeps one (the one with members), Sync
// deletes the other, and another network's Sync is not disturbed by it.
func TestRealDuplicateHealed(t *testing.T) {
	env, c := realOVN(t, ovnnb.Config{})
	ctx := context.Background()
	l3, l2 := twoPrimaries(t)
	both, err := l3.Merge(l2)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Sync(ctx, both); err != nil {
		t.Fatal(err)
	}
	sw := l3.ObjectsOf(topology.KindSwitch)[0].(topology.Switch)
	rt := l3.ObjectsOf(topology.KindRouter)[0].(topology.Router)
	ids := func(o topology.Owner) string {
		s := `external_ids={"` + ovnnb.ExtNetwork + `"="` + o.Network + `","` + ovnnb.ExtTopology + `"="layer3","` + ovnnb.ExtRole + `"="primary"`
		if o.Node != "" {
			s += `,"` + ovnnb.ExtNode + `"="` + o.Node + `"`
		}
		return s + "}"
	}
	if _, err := env.NBCtl(ctx, "--", "create", "Logical_Switch", "name="+sw.Name, ids(sw.Owner),
		"--", "create", "Logical_Router", "name="+rt.Name, ids(rt.Owner)); err != nil {
		t.Fatal(err)
	}
	obs, err := c.Observe(ctx)
	if err != nil {
		t.Fatalf("Observe with duplicates: %v", err)
	}
	if !obs.Equal(both) {
		t.Errorf("Observe with duplicates differs from the plan:\n%s", topology.Diff(obs, both))
	}
	// The Layer2 network's Sync leaves the Layer3 network's duplicates.
	if ch, res, err := c.Sync(ctx, l2); err != nil || len(ch) != 0 || res.Operations != 0 {
		t.Fatalf("Sync of the other network: %v, %d ops", err, res.Operations)
	}
	ch, res, err := c.Sync(ctx, l3)
	if err != nil {
		t.Fatal(err)
	}
	if len(ch) != 0 || res.Rows != 2 {
		t.Errorf("healing Sync: %d changes, %d rows written; want 0 changes and the 2 duplicates deleted", len(ch), res.Rows)
	}
	got := rowsPerKind(t, env)
	for table, n := range planCounts(both) {
		if got[table] != n {
			t.Errorf("%s: %d owned rows, want %d", table, got[table], n)
		}
	}
	if ch, res, err := c.Sync(ctx, both); err != nil || len(ch) != 0 || res.Operations != 0 {
		t.Fatalf("Sync after healing: %v, %d ops:\n%s", err, res.Operations, ch)
	}
}

// TestRealBrokenNetworkContained: a row of one network that cannot be read
// back fails that network's Observe and Sync only.
func TestRealBrokenNetworkContained(t *testing.T) {
	env, c := realOVN(t, ovnnb.Config{})
	ctx := context.Background()
	l3, l2 := twoPrimaries(t)
	both, err := l3.Merge(l2)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Sync(ctx, both); err != nil {
		t.Fatal(err)
	}
	rp := l3.ObjectsOf(topology.KindRouterPort)[0].(topology.RouterPort)
	if _, err := env.NBCtl(ctx, "set", "Logical_Router_Port", rp.Name, "networks=not-a-prefix"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Observe(ctx, rp.Owner.Network); !errors.Is(err, ovnnb.ErrSchema) {
		t.Errorf("Observe of the broken network: %v, want ErrSchema", err)
	}
	if _, _, err := c.Sync(ctx, l3); !errors.Is(err, ovnnb.ErrSchema) {
		t.Errorf("Sync of the broken network: %v, want ErrSchema", err)
	}
	other := l2.Networks()[0]
	got, err := c.Observe(ctx, other)
	if err != nil || !got.Equal(l2) {
		t.Fatalf("Observe of the other network: %v", err)
	}
	if ch, _, err := c.Sync(ctx, l2.Without()); err != nil || len(ch) != 0 {
		t.Fatalf("Sync of the other network: %v\n%s", err, ch)
	}
}

// TestRealRacingCreatesDiffer: two writers, each planning on its own
// reading of an NB without the switch, create it with different ports (a
// pod each). The ports' name index cannot refuse either; the UUID the
// switch's name gives does: one switch, and the loser is refused, nothing
// of its transaction written. Its Sync then adds its port to the switch.
func TestRealRacingCreatesDiffer(t *testing.T) {
	ctx := context.Background()
	env, a := realOVN(t, ovnnb.Config{Monitor: true})
	b, err := ovnnb.Dial(ctx, ovnnb.Config{Endpoints: []string{env.NBUnix}, Monitor: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	own := topology.Owner{Network: "ns9_race", Topology: netconf.TopologyLayer2, Role: netconf.RoleSecondary}
	withPod := func(pods ...string) topology.State {
		var bl topology.Builder
		bl.Add(topology.Switch{Owner: own, Name: "ns9_race_ovn_layer2_switch"})
		for i, p := range pods {
			bl.Add(topology.SwitchPort{Owner: own, Name: p, Switch: "ns9_race_ovn_layer2_switch",
				Addresses: []string{"0a:58:0a:00:00:0" + strconv.Itoa(i+5) + " 10.0.0." + strconv.Itoa(i+5)}})
		}
		st, err := bl.State()
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	for _, c := range []*ovnnb.Client{a, b} {
		if _, err := c.Observe(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := a.Apply(ctx, topology.Diff(topology.State{}, withPod("pod-a"))); err != nil {
		t.Fatal(err)
	}
	_, err = b.Apply(ctx, topology.Diff(topology.State{}, withPod("pod-b")))
	if err == nil {
		t.Fatal("the second writer's create of the same switch was not refused")
	}
	if !errors.Is(err, ovnnb.ErrTransaction) && !errors.Is(err, ovnnb.ErrInvalidChange) {
		t.Fatalf("refused with %v, want ErrTransaction or ErrInvalidChange", err)
	}
	out, err := env.NBCtl(ctx, "--bare", "--columns=name", "find", "Logical_Switch", "name=ns9_race_ovn_layer2_switch")
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(out, "ns9_race_ovn_layer2_switch"); n != 1 {
		t.Fatalf("%d switches of that name, want 1", n)
	}
	both := withPod("pod-a", "pod-b")
	if _, _, err := b.Sync(ctx, both); err != nil {
		t.Fatal(err)
	}
	got, err := b.Observe(ctx, "ns9_race") // its own write: shown at once
	if err != nil {
		t.Fatal(err)
	}
	if d := topology.Diff(got, both); len(d) != 0 {
		t.Fatalf("after the loser's Sync: %d changes: %+v", len(d), d)
	}
}
