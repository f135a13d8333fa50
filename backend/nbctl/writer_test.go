package nbctl_test

import (
	"context"
	"strings"
	"testing"

	"github.com/udnkit/udnkit/backend"
	"github.com/udnkit/udnkit/backend/nbctl"
	"github.com/udnkit/udnkit/topology"
)

// TestWriterApplier: the Writer, used through backend.Applier, writes the
// script of each Sync and remembers its effect: the second Sync of a plan
// writes nothing, Observe returns the plan, and a removal writes deletes.
func TestWriterApplier(t *testing.T) {
	ctx := context.Background()
	l3, l2 := plans(t, 2)
	both, err := l3.Merge(l2)
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	var a backend.Applier = nbctl.NewWriter(&out, nbctl.Config{}, topology.State{})
	changes, res, err := a.Sync(ctx, both)
	if err != nil {
		t.Fatal(err)
	}
	want, err := nbctl.Script(topology.Diff(topology.State{}, both), nbctl.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if out.String() != want || len(changes) != both.Len() || res.Rows != both.Len() || res.Transactions != both.Len() {
		t.Fatalf("first Sync: %d changes, %+v; script equal to Script's: %v", len(changes), res, out.String() == want)
	}
	if ch, res, err := a.Sync(ctx, both); err != nil || len(ch) != 0 || res != (backend.Result{}) {
		t.Fatalf("second Sync: %v, %d changes, %+v", err, len(ch), res)
	}
	got, err := a.Observe(ctx, l3.Networks()...)
	if err != nil || !got.Equal(l3) {
		t.Fatalf("Observe(%v): %v\n%s", l3.Networks(), err, topology.Diff(got, l3))
	}
	out.Reset()
	ch, _, err := a.Sync(ctx, topology.Removal(l2.Networks()...))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, d := ch.Count(); d == 0 || !strings.Contains(out.String(), "destroy ") {
		t.Errorf("removal: %d deletes, script:\n%s", d, out.String())
	}
	if got, err := a.Observe(ctx); err != nil || !got.Equal(l3) {
		t.Fatalf("after the removal: %v\n%s", err, topology.Diff(got, l3))
	}
	// A change set that does not apply to what was written writes nothing.
	out.Reset()
	if _, err := a.Apply(ctx, topology.Diff(topology.State{}, l3)); err == nil || out.Len() != 0 {
		t.Errorf("creating existing rows: %v, wrote %d bytes", err, out.Len())
	}
}
