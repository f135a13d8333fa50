package ovnnb_test

import (
	"context"
	"strings"
	"testing"

	"github.com/udnkit/udnkit/backend/ovnnb"
	"github.com/udnkit/udnkit/netconf"
	"github.com/udnkit/udnkit/topology"
)

// TestRealForeignLBGLookAlike: a Load_Balancer_Group someone else made,
// whose name starts with a managed network's prefix, is not the SDK's
// (ownership is by external_ids and references, never by name): Sync and
// the network's removal leave it, and the foreign switch that references
// another look-alike group keeps it.
func TestRealForeignLBGLookAlike(t *testing.T) {
	env, c := realOVN(t, ovnnb.Config{})
	ctx := context.Background()
	_, l2 := twoPrimaries(t)
	p := netconf.NetworkPrefix("ns2_red")
	lone, held := p+"someone_elses_group", p+"someone_elses_held_group"
	if _, err := env.NBCtl(ctx, "create", "Load_Balancer_Group", "name="+lone); err != nil {
		t.Fatal(err)
	}
	if _, err := env.NBCtl(ctx, "--", "--id=@g", "create", "Load_Balancer_Group", "name="+held,
		"--", "create", "Logical_Switch", "name=someone_elses_switch", "load_balancer_group=@g"); err != nil {
		t.Fatal(err)
	}
	groups := func() string {
		out, err := env.NBCtl(ctx, "--bare", "--columns=name", "list", "Load_Balancer_Group")
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	for _, step := range []struct {
		name  string
		state topology.State
	}{{"sync", l2}, {"sync again", l2}, {"remove the network", topology.Removal("ns2_red")}} {
		ch, _, err := c.Sync(ctx, step.state)
		if err != nil {
			t.Fatalf("%s: %v", step.name, err)
		}
		for _, x := range ch {
			if x.Kind == topology.KindLoadBalancerGroup && strings.Contains(x.Key, "someone_elses") {
				t.Errorf("%s: %s", step.name, x)
			}
		}
		if g := groups(); !strings.Contains(g, lone) || !strings.Contains(g, held) {
			t.Fatalf("%s deleted a foreign group; left:\n%s", step.name, g)
		}
		obs, err := c.Observe(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range obs.ObjectsOf(topology.KindLoadBalancerGroup) {
			if strings.Contains(o.Key(), "someone_elses") {
				t.Errorf("%s: Observe claims the foreign group %s", step.name, o.Key())
			}
		}
	}
}

// TestRealLBGAdoptedByName: a group nothing references, under the exact
// name a plan creates (what a batched apply stopped between batches
// leaves), is adopted instead of blocking the Sync on the name index; the
// next Sync sends nothing.
func TestRealLBGAdoptedByName(t *testing.T) {
	env, c := realOVN(t, ovnnb.Config{})
	ctx := context.Background()
	_, l2 := twoPrimaries(t)
	gs := l2.ObjectsOf(topology.KindLoadBalancerGroup)
	if len(gs) == 0 {
		t.Fatal("the plan has no load balancer group")
	}
	if _, err := env.NBCtl(ctx, "create", "Load_Balancer_Group", "name="+gs[0].Key()); err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Sync(ctx, l2); err != nil {
		t.Fatal(err)
	}
	if ch, res, err := c.Sync(ctx, l2); err != nil || len(ch) != 0 || res.Operations != 0 {
		t.Fatalf("second Sync: %v, %d ops:\n%s", err, res.Operations, ch)
	}
	out, err := env.NBCtl(ctx, "--bare", "--columns=_uuid", "find", "Load_Balancer_Group", "name="+gs[0].Key())
	if err != nil || len(strings.Fields(out)) != 1 {
		t.Fatalf("group %s: %v %q, want exactly one row", gs[0].Key(), err, out)
	}
}
