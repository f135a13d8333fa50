package controller

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/udnkit/udnkit/backend/ovnnb"
	"github.com/udnkit/udnkit/internal/ovntest"
)

// TestRealRestart runs the controller against a real NB (ovsdb-server and
// ovn-northd): once it converged, it is stopped and another started; the
// NB read back with ovn-nbctl (every row, UUIDs replaced by contents) is
// the same after the restart as before — nothing renumbered, no duplicate,
// no missing row — and northd warns about nothing it was given.
func TestRealRestart(t *testing.T) {
	e := startEnv(t)
	ovn := ovntest.Start(t)
	ctx := context.Background()
	nb, err := ovnnb.Dial(ctx, ovnnb.Config{Endpoints: []string{ovn.NBUnix}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nb.Close)
	scenario(t, e)
	first := run(t, e, Config{Zone: "node1", NB: nb})
	converged(t, e)
	plan, err := first.c.Cluster().Plan("node1")
	if err != nil {
		t.Fatal(err)
	}
	eventually(t, "NB holds the plan", func() error {
		got, err := nb.Observe(ctx, plan.Networks()...)
		if err != nil {
			return err
		}
		if !got.Equal(plan) {
			return fmt.Errorf("NB differs from the plan")
		}
		return nil
	})
	before, err := ovn.Canonical(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(before, "blue_net_ovn_cluster_router") {
		t.Fatalf("no cluster router of blue_net in the NB:\n%s", before)
	}
	nads, nodes := nadAnnotations(t, e), nodeAnnotations(t, e)
	first.stop()

	second := run(t, e, Config{Zone: "node1", NB: nb})
	converged(t, e)
	eventually(t, "the second controller synced", func() error {
		if second.c.r.passes.Load() == 0 {
			return fmt.Errorf("no pass yet")
		}
		return nil
	})
	second.stop() // its passes are over: the NB is what it left
	after, err := ovn.Canonical(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if after != before {
		t.Errorf("the NB changed across the restart:\n%s", lineDiff(before, after))
	}
	if got := nadAnnotations(t, e); fmt.Sprint(got) != fmt.Sprint(nads) {
		t.Errorf("NAD annotations changed: %v, were %v", got, nads)
	}
	if got := nodeAnnotations(t, e); fmt.Sprint(got) != fmt.Sprint(nodes) {
		t.Errorf("Node annotations changed: %v, were %v", got, nodes)
	}
	if err := ovn.Sync(ctx); err != nil {
		t.Fatal(err)
	}
}

// lineDiff lists the lines only one of a and b has.
func lineDiff(a, b string) string {
	in := func(s string) map[string]bool {
		m := map[string]bool{}
		for _, l := range strings.Split(s, "\n") {
			m[l] = true
		}
		return m
	}
	ia, ib := in(a), in(b)
	var out []string
	for _, l := range strings.Split(a, "\n") {
		if !ib[l] {
			out = append(out, "- "+l)
		}
	}
	for _, l := range strings.Split(b, "\n") {
		if !ia[l] {
			out = append(out, "+ "+l)
		}
	}
	return strings.Join(out, "\n")
}
