package ovnnb

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/ovn-kubernetes/libovsdb/ovsdb"

	"github.com/udnkit/udnkit/internal/nbdb"
	"github.com/udnkit/udnkit/topology"
)

// opsRecorder records the operations of every transaction a Client sends
// through libovsdb.
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

// A monitoring Client's Apply plans against the cache and reads back only
// the rows its operations touch, each selected by UUID; then it writes.
func TestMonitorApplyReadsByUUID(t *testing.T) {
	ctx := context.Background()
	ep := startEmbeddedT(t)
	c, rec := recordOps(t, ep)
	base := monTwoNetworks(t, 3)
	if _, _, err := c.Sync(ctx, base); err != nil {
		t.Fatal(err)
	}
	more := monTwoNetworks(t, 4)
	add := topology.Diff(base, more)
	if _, err := c.Observe(ctx); err != nil {
		t.Fatal(err)
	}
	rec.take()
	if _, err := c.Apply(ctx, add); err != nil {
		t.Fatal(err)
	}
	txs := rec.take()
	if len(txs) != 2 {
		t.Fatalf("Apply sent %d transactions, want 2 (the rows it touches, then the write)", len(txs))
	}
	for _, op := range txs[0] {
		if op.Op != ovsdb.OperationSelect || len(op.Where) != 1 || op.Where[0].Column != "_uuid" {
			t.Fatalf("read-back operation %s on %s where %v: want selects by UUID", op.Op, op.Table, op.Where)
		}
	}
	got, err := c.Observe(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !got.Equal(more) {
		t.Fatalf("after Apply:\n%s", topology.Diff(got, more))
	}
}

// A plan against a cache that lags another writer is refused by the
// read-back (errStale), and Apply and Sync then decide on a select: they
// neither fail nor write what the server no longer needs.
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
		if _, err := c.planCached(ctx, old, changes, nil); !errors.Is(err, errStale) {
			t.Fatalf("%s: plan against the lagging snapshot: %v, want errStale", name, err)
		}
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

// Config.MaxOpsPerTransaction: zero is the default bound, a negative value
// none, any other value itself.
func TestMaxOps(t *testing.T) {
	for _, tt := range []struct{ cfg, want int }{{0, DefaultMaxOpsPerTransaction}, {-1, 0}, {500, 500}} {
		c := &Client{cfg: Config{MaxOpsPerTransaction: tt.cfg}}
		if got := c.maxOps(); got != tt.want {
			t.Errorf("MaxOpsPerTransaction %d: bound %d, want %d", tt.cfg, got, tt.want)
		}
	}
}
