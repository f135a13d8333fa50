package ovnnb

import (
	"context"
	"regexp"
	"testing"

	"github.com/ovn-kubernetes/libovsdb/ovsdb"

	"github.com/udnkit/udnkit/internal/nbdb"
	"github.com/udnkit/udnkit/topology"
)

// TestCreateUnderNameUUID: a switch, router or load balancer (tables
// without a name index) is inserted under the UUID its table and name give,
// with no wait that no row has its name (which the server answers by
// scanning the table); when a row already holds that UUID (renamed by
// another writer), the create falls back to the wait.
func TestCreateUnderNameUUID(t *testing.T) {
	ctx := context.Background()
	c, _ := monDial(t, startEmbeddedT(t), false)
	want := monTwoNetworks(t, 2)
	changes := topology.Diff(topology.State{}, want)
	ops, err := c.Operations(ctx, changes)
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
