package ovnnb_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/ovn-kubernetes/libovsdb/ovsdb"

	"github.com/udnkit/udnkit/backend/ovnnb"
	"github.com/udnkit/udnkit/topology"
)

// TestNewKindMeterApply runs in package ovnnb with the Meter and
// Meter_Band kinds added (TestNewKindMeter of kindgen): a Meter is
// inserted holding its bands, in one transaction even when transactions
// are batched an operation at a time, and a change set that would create a
// Meter without a band, or leave one without, is refused before anything
// is sent, naming the meter and its bands column.
func TestNewKindMeterApply(t *testing.T) {
	e, err := ovnnb.StartEmbedded()
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	cfg := e.Config()
	cfg.MaxOpsPerTransaction = 1
	ctx := context.Background()
	c, err := ovnnb.Dial(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	own := topology.Owner{Network: "ns_m"}
	state := func(objs ...topology.Object) topology.State {
		t.Helper()
		var b topology.Builder
		b.Own("ns_m")
		b.Add(objs...)
		s, err := b.State()
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	m1, m2 := topology.Meter{Owner: own, Name: "m1", Unit: "kbps", Fair: true}, topology.Meter{Owner: own, Name: "m2", Unit: "pktps"}
	b1 := topology.MeterBand{Owner: own, Meter: "m1", Action: "drop", Rate: 10}
	b2 := topology.MeterBand{Owner: own, Meter: "m1", Action: "drop", Rate: 20, BurstSize: 5}
	b3 := topology.MeterBand{Owner: own, Meter: "m2", Action: "drop", Rate: 8}
	want := state(m1, b1, b2, m2, b3)

	ops, err := c.Operations(ctx, topology.Diff(topology.State{}, want))
	if err != nil {
		t.Fatal(err)
	}
	inserted := 0
	for _, op := range ops {
		if op.Op == ovsdb.OperationInsert && op.Table == "Meter" {
			inserted++
			j, err := json.Marshal(op.Row["bands"])
			if err != nil {
				t.Fatal(err)
			}
			want := map[any]int{"m1": 2, "m2": 1}[op.Row["name"]]
			if n := strings.Count(string(j), `"named-uuid"`); n != want {
				t.Errorf("Meter %v inserted holding %d bands of the change set (%s), want %d", op.Row["name"], n, j, want)
			}
		}
	}
	if inserted != 2 {
		t.Errorf("%d Meter inserts, want 2", inserted)
	}
	_, res, err := c.Sync(ctx, want)
	if err != nil {
		t.Fatal(err)
	}
	if res.Transactions != 2 {
		t.Errorf("%d transactions, want one per meter with its bands", res.Transactions)
	}
	if got, err := c.Observe(ctx); err != nil || !got.Equal(want) {
		t.Fatalf("Observe: %v\n%s", err, topology.Diff(got, want))
	}

	for _, tc := range []struct {
		name    string
		desired topology.State
		want    string
	}{
		{"a meter without bands", state(m1, b1, b2, m2, b3, topology.Meter{Owner: own, Name: "m3", Unit: "kbps"}),
			`meter "m3": bands: the schema wants at least 1, the change set creates 0`},
		{"a meter left without bands", state(m1, b1, b2, m2),
			`meter "m2": bands: the schema wants at least 1, the change set leaves 0`},
	} {
		_, _, err := c.Sync(ctx, tc.desired)
		if !errors.Is(err, ovnnb.ErrInvalidChange) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want ErrInvalidChange holding %q", tc.name, err, tc.want)
		}
	}
	if got, err := c.Observe(ctx); err != nil || !got.Equal(want) {
		t.Fatalf("a refused change set wrote: %v\n%s", err, topology.Diff(got, want))
	}

	// The only band of m2 replaced, m1 losing one of two: allowed.
	next := state(m1, b1, m2, topology.MeterBand{Owner: own, Meter: "m2", Action: "drop", Rate: 16})
	if _, _, err := c.Sync(ctx, next); err != nil {
		t.Fatal(err)
	}
	if got, err := c.Observe(ctx); err != nil || !got.Equal(next) {
		t.Fatalf("Observe: %v\n%s", err, topology.Diff(got, next))
	}
	if _, _, err := c.Sync(ctx, topology.Removal("ns_m")); err != nil {
		t.Fatal(err)
	}
	if got, err := c.Observe(ctx); err != nil || got.Len() != 0 {
		t.Fatalf("after the removal: %v, %d rows", err, got.Len())
	}
}
