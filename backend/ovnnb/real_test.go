package ovnnb_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/udnkit/udnkit/backend/ovnnb"
	"github.com/udnkit/udnkit/internal/ovntest"
	"github.com/udnkit/udnkit/topology"
)

// realOVN starts real OVN (or skips) and connects the adapter to its NB.
func realOVN(t *testing.T, cfg ovnnb.Config) (*ovntest.Env, *ovnnb.Client) {
	t.Helper()
	env := ovntest.Start(t)
	if len(cfg.Endpoints) == 0 {
		cfg.Endpoints = []string{env.NBUnix}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := ovnnb.Dial(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return env, c
}

// twoPrimaries plans the Layer3 and Layer2 primary networks whose pod
// subnets overlap, on three nodes node1..node3, for the NB that holds
// node1. The Layer3 network keeps the three nodes in one zone (zone1), so
// that its proofs cross node switches; the Layer2 network supports one node
// per zone, so it is planned the interconnect way for node1's zone: node2
// and node3 are remote transit-router peers (see l2Nodes).
func twoPrimaries(t testing.TB) (l3, l2 topology.State) {
	t.Helper()
	l3, err := ovntest.Plan(ovntest.Layer3Network(), ovntest.Nodes(3, "zone1"), "zone1")
	if err != nil {
		t.Fatal(err)
	}
	l2, err = ovntest.Plan(ovntest.Layer2Network(), l2Nodes(), l2Zone)
	if err != nil {
		t.Fatal(err)
	}
	return l3, l2
}

// l2Zone is the zone the Layer2 network is planned for: node1's own.
const l2Zone = "node1"

// l2Nodes are the Layer2 network's nodes, each in its own zone.
func l2Nodes() []topology.Node { return ovntest.Nodes(3, "") }

func sbList(t *testing.T, env *ovntest.Env, table, column string) string {
	t.Helper()
	out, err := env.SBCtl(context.Background(), "--bare", "--columns="+column, "list", table)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// Integration test 1: the Layer3 and the seed 004 Layer2 plans apply and
// ovn-northd compiles them: every switch and router has a datapath, every
// port a port binding, and northd logs nothing at WARN or worse.
func TestRealNorthdAcceptsPlans(t *testing.T) {
	l3, l2 := twoPrimaries(t)
	both, err := l3.Merge(l2)
	if err != nil {
		t.Fatal(err)
	}
	seed004, err := topology.Plan(ovntest.Seed004Input())
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		want topology.State
	}{
		{"Layer3 primary in one zone, Layer2 primary for node1's interconnect zone", both},
		{"seed 004 Layer2 dual-stack, interconnect zone", seed004},
	} {
		t.Run(tc.name, func(t *testing.T) { northdAccepts(t, tc.want) })
	}
}

func northdAccepts(t *testing.T, want topology.State) {
	env, c := realOVN(t, ovnnb.Config{})
	ctx := context.Background()
	changes, res, err := c.Sync(ctx, want)
	if err != nil {
		t.Fatal(err)
	}
	if cr, _, _ := changes.Count(); cr != want.Len() || res.Transactions != 1 {
		t.Fatalf("%d creates in %d transactions, want %d in 1", cr, res.Transactions, want.Len())
	}
	if err := env.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	datapaths := sbList(t, env, "Datapath_Binding", "external_ids")
	bindings := sbList(t, env, "Port_Binding", "logical_port")
	for o := range want.Objects() {
		switch o.Kind() {
		case topology.KindSwitch, topology.KindRouter:
			if !strings.Contains(datapaths, "name="+o.Key()+"\n") && !strings.Contains(datapaths, "name="+o.Key()+" ") {
				t.Errorf("no SB datapath for %s %s", o.Kind(), o.Key())
			}
		case topology.KindSwitchPort, topology.KindRouterPort:
			if !strings.Contains("\n"+bindings, "\n"+o.Key()+"\n") {
				t.Errorf("no SB port binding for %s %s", o.Kind(), o.Key())
			}
		}
	}
	bad, err := env.NorthdErrors()
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range bad {
		t.Errorf("northd: %s", l)
	}
	warn, _ := env.NorthdWarnings()
	for _, l := range warn {
		t.Logf("northd: %s", l)
	}
	got, err := c.Observe(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !got.Equal(want) {
		t.Fatalf("observed state differs from the plan:\n%s", topology.Diff(got, want))
	}
}
