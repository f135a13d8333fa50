package ovnnb

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/ovn-kubernetes/libovsdb/ovsdb"

	"github.com/udnkit/udnkit/internal/nbdb"
	"github.com/udnkit/udnkit/topology"
)

// opsRecorder records the operations of every transaction a Client sends
// through libovsdb (recordOps: all of them, none streamed).
type opsRecorder struct {
	*monCounter
	mu  sync.Mutex
	txs [][]ovsdb.Operation
}

func (r *opsRecorder) Transact(ctx context.Context, ops ...ovsdb.Operation) ([]ovsdb.OperationResult, error) {
	r.mu.Lock()
	r.txs = append(r.txs, ops)
	r.mu.Unlock()
	return r.monCounter.Transact(ctx, ops...)
}

func (r *opsRecorder) take() [][]ovsdb.Operation {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.txs
	r.txs = nil
	return out
}

func recordOps(t *testing.T, ep string) (*Client, *opsRecorder) {
	t.Helper()
	c, cnt := monDial(t, ep, true)
	c.cfg.StreamOps = -1 // every transaction through the recorder
	r := &opsRecorder{monCounter: cnt}
	c.ovs = r
	return c, r
}

// A monitoring Client's Sync with nothing to change sends no transaction
// at all (it read every row with a select), and a second Observe of an
// unchanged cache returns the same objects.
func TestMonitorNoopSyncSendsNothing(t *testing.T) {
	ctx := context.Background()
	ep := startEmbeddedT(t)
	c, rec := recordOps(t, ep)
	st := monTwoNetworks(t, 3)
	if _, _, err := c.Sync(ctx, st); err != nil {
		t.Fatal(err)
	}
	rec.take()
	for i := range 3 {
		ch, res, err := c.Sync(ctx, st)
		if err != nil || len(ch) != 0 || res != (Result{}) {
			t.Fatalf("Sync %d: %v, %d changes, %+v", i, err, len(ch), res)
		}
		if txs := rec.take(); len(txs) != 0 {
			t.Fatalf("no-op Sync %d sent %d transactions, the first of %d operations on %s", i, len(txs), len(txs[0]), txs[0][0].Table)
		}
	}
	a, err := c.Observe(ctx)
	if err != nil {
		t.Fatal(err)
	}
	b, err := c.Observe(ctx, st.Networks()[0])
	if err != nil {
		t.Fatal(err)
	}
	if !a.Equal(st) {
		t.Fatalf("Observe:\n%s", topology.Diff(a, st))
	}
	if want := st.Without(st.Networks()[1:]...); !b.Equal(want) {
		t.Fatalf("Observe of %s:\n%s", st.Networks()[0], topology.Diff(b, want))
	}
}

// A monitoring Client's Apply plans against the cache and sends one
// transaction: the write, led by waits that the rows it touches hold, by
// UUID, what the cache holds. A batched Apply reads those rows back by
// UUID first instead.
func TestMonitorApplyGuardsByUUID(t *testing.T) {
	ctx := context.Background()
	for _, batch := range []int{0, 5} {
		t.Run(fmt.Sprintf("batch=%d", batch), func(t *testing.T) {
			c, rec := recordOps(t, startEmbeddedT(t))
			c.cfg.MaxOpsPerTransaction = batch
			base := monTwoNetworks(t, 3)
			if _, _, err := c.Sync(ctx, base); err != nil {
				t.Fatal(err)
			}
			more := monTwoNetworks(t, 4)
			if _, err := c.Observe(ctx); err != nil {
				t.Fatal(err)
			}
			rec.take()
			if _, err := c.Apply(ctx, topology.Diff(base, more)); err != nil {
				t.Fatal(err)
			}
			txs := rec.take()
			byUUID := func(op ovsdb.Operation) bool { return len(op.Where) == 1 && op.Where[0].Column == "_uuid" }
			if batch == 0 {
				if len(txs) != 1 {
					t.Fatalf("Apply sent %d transactions, want 1", len(txs))
				}
				if op := txs[0][0]; op.Op != ovsdb.OperationWait || !byUUID(op) {
					t.Fatalf("the write starts with %s on %s where %v: want a wait by UUID", op.Op, op.Table, op.Where)
				}
			} else {
				if len(txs) < 3 {
					t.Fatalf("batched Apply sent %d transactions, want the read-back and at least 2 batches", len(txs))
				}
				for _, op := range txs[0] {
					if op.Op != ovsdb.OperationSelect || !byUUID(op) {
						t.Fatalf("read-back operation %s on %s where %v: want selects by UUID", op.Op, op.Table, op.Where)
					}
				}
			}
			for _, tx := range txs {
				for _, op := range tx {
					if op.Op == ovsdb.OperationSelect && !byUUID(op) {
						t.Fatalf("Apply selected %s where %v: want rows by UUID only", op.Table, op.Where)
					}
				}
			}
			got, err := c.Observe(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if !got.Equal(more) {
				t.Fatalf("after Apply:\n%s", topology.Diff(got, more))
			}
		})
	}
}

// A plan against a cache that lags another writer is refused by its
// guards (one transaction: the server refuses it, nothing written) or by
// the read-back (batches: errStale, nothing sent), and Apply and Sync
// then decide on a select: they neither fail nor write what the server no
// longer needs.
func TestMonitorStaleCache(t *testing.T) {
	ctx := context.Background()
	ep := startEmbeddedT(t)
	c, _ := monDial(t, ep, true)
	other, _ := monDial(t, ep, false)
	base := monTwoNetworks(t, 2)
	if _, _, err := c.Sync(ctx, base); err != nil {
		t.Fatal(err)
	}
	old, err := c.mon.snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// The other writer deletes the first network, then adds a key to the
	// external_ids of the second's switches; the old snapshot is what a
	// lagging cache would still show.
	gone, kept := base.Networks()[0], base.Networks()[1]
	if _, _, err := other.Sync(ctx, monEmpty(t, base.Without(kept))); err != nil {
		t.Fatal(err)
	}
	mine := monWithSwitchOption(t, base, "a", "1")
	for name, changes := range map[string]topology.Changes{
		"rows gone":         topology.Diff(base.Without(kept), mine.Without(kept)),
		"owner ids changed": topology.Diff(base.Without(gone), mine.Without(gone)),
	} {
		if name == "owner ids changed" {
			for o := range base.Without(gone).Objects() {
				if sw, ok := o.(topology.Switch); ok {
					if _, err := other.ovs.Transact(ctx, ovsdb.Operation{Op: ovsdb.OperationMutate, Table: nbdb.LogicalSwitchTable,
						Where: []ovsdb.Condition{ovsdb.NewCondition("name", ovsdb.ConditionEqual, sw.Name)},
						Mutations: []ovsdb.Mutation{*ovsdb.NewMutation("external_ids", ovsdb.MutateOperationInsert,
							ovsdb.OvsMap{GoMap: map[any]any{"k8s.ovn.org/claimed-by": "someone-else"}})}}); err != nil {
						t.Fatal(err)
					}
				}
			}
		}
		if len(changes) == 0 {
			t.Fatalf("%s: no changes", name)
		}
		// One transaction: its guards make the server refuse it.
		c.cfg.MaxOpsPerTransaction = 0
		p, err := c.planCached(ctx, old, changes, nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		before, err := other.Observe(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.run(ctx, p); !errors.Is(err, errGuard) {
			t.Fatalf("%s: the plan against the lagging snapshot, sent: %v, want errGuard", name, err)
		}
		if after, err := other.Observe(ctx); err != nil || !after.Equal(before) {
			t.Fatalf("%s: a refused plan wrote: %v\n%s", name, err, topology.Diff(before, after))
		}
		// Batches: the read-back refuses it before anything is sent.
		c.cfg.MaxOpsPerTransaction = 1
		if _, err := c.planCached(ctx, old, changes, nil); !errors.Is(err, errStale) {
			t.Fatalf("%s: batched plan against the lagging snapshot: %v, want errStale", name, err)
		}
		c.cfg.MaxOpsPerTransaction = 0
	}
	mine = mine.Without(kept)
	if _, _, err := c.Sync(ctx, mine); err != nil {
		t.Fatal(err)
	}
	got, err := other.Observe(ctx, mine.Networks()...)
	if err != nil {
		t.Fatal(err)
	}
	if !got.Equal(mine) {
		t.Fatalf("after the Sync:\n%s", topology.Diff(got, mine))
	}
}

// sameModel compares sets as sets and no map as an empty one.
func TestSameModel(t *testing.T) {
	a := &nbdb.LogicalSwitch{UUID: "u", Name: "s", Ports: []string{"p1", "p2"}, ExternalIDs: map[string]string{}}
	b := &nbdb.LogicalSwitch{UUID: "u", Name: "s", Ports: []string{"p2", "p1"}}
	if !sameModel(a, b) {
		t.Fatal("same rows differ")
	}
	for _, c := range []*nbdb.LogicalSwitch{
		{UUID: "u", Name: "s", Ports: []string{"p1"}},
		{UUID: "u", Name: "t", Ports: []string{"p1", "p2"}},
		{UUID: "u", Name: "s", Ports: []string{"p1", "p2"}, ExternalIDs: map[string]string{"k": "v"}},
		{UUID: "u", Name: "s", Ports: []string{"p1", "p3"}},
	} {
		if sameModel(a, c) {
			t.Errorf("%+v and %+v are the same", a, c)
		}
	}
}

// Config.MaxOpsPerTransaction: zero is one transaction up to
// DefaultMaxOpsPerTransaction operations and batches of DefaultBatchOps
// beyond, a negative value no bound, any other value itself.
func TestMaxOps(t *testing.T) {
	for _, tt := range []struct{ cfg, ops, want int }{
		{0, 10, 0}, {0, DefaultMaxOpsPerTransaction, 0}, {0, DefaultMaxOpsPerTransaction + 1, DefaultBatchOps},
		{-1, 10, 0}, {-1, 10 * DefaultMaxOpsPerTransaction, 0},
		{500, 10, 500}, {500, 10 * DefaultMaxOpsPerTransaction, 500},
	} {
		c := &Client{cfg: Config{MaxOpsPerTransaction: tt.cfg}}
		if got := c.maxOps(tt.ops); got != tt.want {
			t.Errorf("MaxOpsPerTransaction %d, %d operations: bound %d, want %d", tt.cfg, tt.ops, got, tt.want)
		}
	}
}

// A monitoring Client's Apply plans on the last snapshot when it shows the
// client's writes (no pass over the cache: right after an Observe it is
// that Observe's). When another writer changed a row the plan touches
// since, the server refuses the plan by its guards and Apply plans again
// on the cache as it is now: one refused transaction and one write, no
// select, and the other writer's change survives.
func TestMonitorApplyOnLastSnapshot(t *testing.T) {
	ctx := context.Background()
	ep := startEmbeddedT(t)
	c, rec := recordOps(t, ep)
	other, _ := monDial(t, ep, false)
	base := monTwoNetworks(t, 2)
	if _, _, err := c.Sync(ctx, base); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Observe(ctx); err != nil {
		t.Fatal(err)
	}
	last := c.mon.last
	if s, unchecked, err := c.mon.writeSnapshot(ctx); err != nil || !unchecked || s != last {
		t.Fatalf("writeSnapshot after an Observe: %v, unchecked %v, the last snapshot %v", err, unchecked, s == last)
	}
	// Another writer adds a key of its own to every switch's external_ids
	// (the guards compare them); the cache shows it, the last snapshot
	// does not.
	var sws []string
	for o := range base.Objects() {
		if sw, ok := o.(topology.Switch); ok {
			sws = append(sws, sw.Name)
		}
	}
	for _, name := range sws {
		if _, err := other.ovs.Transact(ctx, ovsdb.Operation{Op: ovsdb.OperationMutate, Table: nbdb.LogicalSwitchTable,
			Where: []ovsdb.Condition{ovsdb.NewCondition("name", ovsdb.ConditionEqual, name)},
			Mutations: []ovsdb.Mutation{*ovsdb.NewMutation("external_ids", ovsdb.MutateOperationInsert,
				ovsdb.OvsMap{GoMap: map[any]any{"example.com/note": "kept"}})}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.mon.echo(ctx); err != nil {
		t.Fatal(err)
	}
	rec.take()
	want := monWithSwitchOption(t, base, "a", "1")
	if _, err := c.Apply(ctx, topology.Diff(base, want)); err != nil {
		t.Fatal(err)
	}
	txs := rec.take()
	if len(txs) != 2 {
		t.Fatalf("Apply sent %d transactions, want the refused plan and the write", len(txs))
	}
	for _, tx := range txs {
		for _, op := range tx {
			if op.Op == ovsdb.OperationSelect {
				t.Fatalf("Apply selected %s where %v", op.Table, op.Where)
			}
		}
	}
	got, err := other.Observe(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !got.Equal(want) {
		t.Fatalf("after the Apply:\n%s", topology.Diff(got, want))
	}
	rows, err := other.read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range rows.rows[nbdb.LogicalSwitchTable] {
		if ls := m.(*nbdb.LogicalSwitch); slices.Contains(sws, ls.Name) && ls.ExternalIDs["example.com/note"] != "kept" {
			t.Errorf("switch %s lost the other writer's key: %v", ls.Name, ls.ExternalIDs)
		}
	}
}
