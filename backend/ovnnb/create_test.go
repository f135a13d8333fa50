package ovnnb

import (
	"context"
	"regexp"
	"testing"

	"github.com/ovn-kubernetes/libovsdb/model"
	"github.com/ovn-kubernetes/libovsdb/ovsdb"

	"github.com/udnkit/udnkit/internal/nbdb"
	"github.com/udnkit/udnkit/internal/ovntest"
	"github.com/udnkit/udnkit/topology"
)

// TestCreateUnderNameUUID: a switch, router or load balancer (tables
// without a name index) is inserted under the UUID its table and name give,
// with no wait that no row has its name (which the server answers by
// scanning the table); when a row already holds that UUID (renamed by
// another writer), the create falls back to the wait, and so does every
// such create on the embedded server.
func TestCreateUnderNameUUID(t *testing.T) {
	ctx := context.Background()
	want := monTwoNetworks(t, 2)
	changes := topology.Diff(topology.State{}, want)
	emb, _ := monDial(t, startEmbeddedT(t), false)
	ops, err := emb.Operations(ctx, changes)
	if err != nil {
		t.Fatal(err)
	}
	waits := 0
	for _, op := range ops {
		if op.UUID != "" {
			t.Fatalf("on the embedded server: an insert into %s under a given UUID", op.Table)
		}
		if op.Op == ovsdb.OperationWait && len(op.Where) == 1 && op.Where[0].Column == "name" {
			waits++
		}
	}
	if waits == 0 {
		t.Fatal("on the embedded server: no name wait")
	}
	c, _ := monDial(t, ovntest.Start(t).NBUnix, false)
	ops, err = c.Operations(ctx, changes)
	if err != nil {
		t.Fatal(err)
	}
	inserted := map[string]string{} // name → UUID asked for
	for _, op := range ops {
		if op.Op == ovsdb.OperationWait && len(op.Where) == 1 && op.Where[0].Column == "name" {
			t.Errorf("a name wait on %s for %v", op.Table, op.Where[0].Value)
		}
		if op.Op == ovsdb.OperationInsert && op.UUID != "" {
			inserted[op.Table+"/"+op.Row["name"].(string)] = op.UUID
		}
	}
	n := 0
	for o := range want.Objects() {
		if k := o.Kind(); k == topology.KindSwitch || k == topology.KindRouter || k == topology.KindLoadBalancer {
			n++
			key := k.Table() + "/" + o.Key()
			if got, want := inserted[key], nameUUID(k.Table(), o.Key()); got != want {
				t.Errorf("%s inserted under %q, want %q", key, got, want)
			}
		}
	}
	if n == 0 || len(inserted) != n {
		t.Fatalf("%d inserts under a given UUID, %d switches, routers and load balancers", len(inserted), n)
	}
	if !regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`).MatchString(nameUUID("Logical_Switch", "x")) {
		t.Fatalf("nameUUID %q is not a version 8 UUID", nameUUID("Logical_Switch", "x"))
	}
	if _, err := c.Apply(ctx, changes); err != nil {
		t.Fatal(err)
	}
	// Another writer renames a switch: its UUID is the old name's, which
	// the next create of that name cannot take.
	var sw topology.Switch
	for o := range want.Objects() {
		if s, ok := o.(topology.Switch); ok {
			sw = s
			break
		}
	}
	if _, err := c.ovs.Transact(ctx, ovsdb.Operation{Op: ovsdb.OperationUpdate, Table: nbdb.LogicalSwitchTable,
		Where: []ovsdb.Condition{uuidIs(nameUUID(nbdb.LogicalSwitchTable, sw.Name))}, Row: ovsdb.Row{"name": sw.Name + "-renamed", "external_ids": ovsdb.OvsMap{GoMap: map[any]any{}}}}); err != nil {
		t.Fatal(err)
	}
	var b topology.Builder
	b.Add(sw)
	again, err := b.State()
	if err != nil {
		t.Fatal(err)
	}
	ops, err = c.Operations(ctx, topology.Diff(topology.State{}, again))
	if err != nil {
		t.Fatal(err)
	}
	if len(ops) != 2 || ops[0].Op != ovsdb.OperationWait || ops[1].Op != ovsdb.OperationInsert || ops[1].UUID != "" {
		t.Fatalf("the create of a name whose UUID is taken: %+v, want the name wait and an insert under the server's UUID", ops)
	}
	if _, err := c.Apply(ctx, topology.Diff(topology.State{}, again)); err != nil {
		t.Fatal(err)
	}
}

// A row inserted under the UUID its name gives proves nothing of its
// transaction when present: a cache lagging the delete of the row's
// earlier life still holds it. A transaction with a row of the server's
// UUID is proven by that row, one without is shown only when each of its
// effects is, and it never stands for the transactions before it.
func TestGivenUUIDProvesNothing(t *testing.T) {
	u := nameUUID(nbdb.LogicalSwitchTable, "sw")
	stale := map[string]map[string]model.Model{nbdb.LogicalSwitchTable: {u: &nbdb.LogicalSwitch{UUID: u, Name: "sw"}}}
	deleteIt := &expect{deleted: []rowRef{{nbdb.LogicalSwitchTable, u}}}
	createIt := &expect{given: []rowRef{{nbdb.LogicalSwitchTable, u}}}
	if createIt.proven(stale) {
		t.Fatal("a row under a given UUID proved its transaction")
	}
	if !createIt.shown(nil, stale) || deleteIt.shown(nil, stale) {
		t.Fatal("want the re-create shown and the delete not, on the cache before the delete")
	}
	m := &monitor{pending: []*expect{deleteIt, createIt}}
	if done, _ := m.settle(stale); done || len(m.pending) != 1 || m.pending[0] != deleteIt {
		t.Fatalf("settle on the stale cache: done %v, %d pending; want the delete still pending", done, len(m.pending))
	}
	if done, _ := m.settle(map[string]map[string]model.Model{}); !done {
		t.Fatal("the delete not shown by a cache without the row")
	}
}

// Two readers at once: one whose reading of the cache shows a write drops
// it from pending; the other, whose earlier reading does not, is not done
// for that (it echoes and reads again).
func TestSettleNeedsWhatTheReadBeganWith(t *testing.T) {
	w := &expect{inserted: []rowRef{{nbdb.LogicalSwitchTable, "r5"}}}
	m := &monitor{pending: []*expect{w}}
	captured := []*expect{w}
	later := map[string]map[string]model.Model{nbdb.LogicalSwitchTable: {"r5": &nbdb.LogicalSwitch{UUID: "r5"}}}
	earlier := map[string]map[string]model.Model{nbdb.LogicalSwitchTable: {}}
	if done, _ := m.settle(later, captured...); !done || len(m.pending) != 0 {
		t.Fatalf("the later reading: done %v, %d pending", done, len(m.pending))
	}
	if done, wait := m.settle(earlier, captured...); done || !wait {
		t.Fatalf("the earlier reading: done %v, wait %v; want not done, wait", done, wait)
	}
	if done, _ := m.settle(earlier); !done {
		t.Fatal("a reading that began with nothing pending is done")
	}
}
