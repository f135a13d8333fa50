package ovnnb_test

import (
	"context"
	"testing"

	"github.com/udnkit/udnkit/backend/ovnnb"
	"github.com/udnkit/udnkit/internal/ovntest"
	"github.com/udnkit/udnkit/topology"
)

// TestRealLayer2ReferenceProfile applies seed 004's Layer2 network under
// ProfileReference (transit router peers on /31 pairs, port keys 10+node
// ID, gateway_mtu on trtos-) to a real NB: northd takes it without a
// warning and the database reads back as planned.
func TestRealLayer2ReferenceProfile(t *testing.T) {
	realReferenceProfile(t, ovntest.Seed004Input())
}

// TestRealLayer3ReferenceProfile: a dual-stack Layer3 primary network
// planned under ProfileReference on three nodes, one zone holding them
// all (gateway routers, their external ports and SNATs), applied to a real
// NB: northd raises no warning about it (ovntest fails the test on one)
// and the database reads back as planned.
func TestRealLayer3ReferenceProfile(t *testing.T) {
	n := ovntest.Layer3Network()
	in := ovntest.PlanInput(n, ovntest.Nodes(3, "zone1"), "zone1")
	realReferenceProfile(t, in)
}

func realReferenceProfile(t *testing.T, in topology.Input) {
	env, c := realOVN(t, ovnnb.Config{})
	ctx := context.Background()
	in.Profile = topology.ProfileReference
	s, err := topology.Plan(in)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Sync(ctx, s); err != nil {
		t.Fatal(err)
	}
	if err := env.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	got, err := c.Observe(ctx, in.Network.Name)
	if err != nil {
		t.Fatal(err)
	}
	if d := topology.Diff(got, s); len(d) != 0 {
		t.Errorf("the database differs from the plan:\n%s", d)
	}
}
