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
// real NB at once, in batches. Every create of a switch, router or load balancer (no
// name index) is guarded by a wait, so the losers' transactions are
// refused and their retry finds the rows: exactly one copy of every row,
// and the next Observe succeeds and equals the plan.
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

// TestCreateGuards: a switch or router created with a port (whose table
// has a unique name index) is guarded by that index, with no name wait
// (which the server answers by scanning the table: one scan per create
// made filling a large NB quadratic); a bare switch, router or load
// balancer carries the wait. TestRealConcurrentSyncs shows both refuse
// the losing writers.
func TestCreateGuards(t *testing.T) {
	ctx := context.Background()
	c := embedded(t, ovnnb.Config{})
	withPorts := handState(t, "ns1_blue", "node1", "node2")
	bare := bareRows(t, "ns2_bare", 2)
	all, err := withPorts.Merge(bare)
	if err != nil {
		t.Fatal(err)
	}
	ops, err := c.Operations(ctx, topology.Diff(topology.State{}, all))
	if err != nil {
		t.Fatal(err)
	}
	waited := map[string]bool{}
	for _, op := range ops {
		if op.Op != "wait" || len(op.Where) != 1 || op.Where[0].Column != "name" {
			continue
		}
		waited[op.Where[0].Value.(string)] = true
	}
	for o := range all.Objects() {
		k := o.Kind()
		if k != topology.KindSwitch && k != topology.KindRouter && k != topology.KindLoadBalancer {
			continue
		}
		bareRow := strings.HasPrefix(o.Key(), "ns2_bare_")
		hasPorts := false
		for p := range all.Objects() {
			switch x := p.(type) {
			case topology.SwitchPort:
				hasPorts = hasPorts || x.Switch == o.Key()
			case topology.RouterPort:
				hasPorts = hasPorts || x.Router == o.Key()
			}
		}
		if want := !hasPorts; waited[o.Key()] != want {
			t.Errorf("%s %q (bare %v, ports %v): name wait %v, want %v", k, o.Key(), bareRow, hasPorts, waited[o.Key()], want)
		}
		if bareRow && !waited[o.Key()] {
			t.Errorf("bare %s %q has no name wait", k, o.Key())
		}
	}
	if len(waited) < 6 {
		t.Fatalf("%d name waits, want at least the 6 bare rows'", len(waited))
	}
	if _, err := c.Apply(ctx, topology.Diff(topology.State{}, all)); err != nil {
		t.Fatal(err)
	}
}
