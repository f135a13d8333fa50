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
	env, c := realOVN(t, ovnnb.Config{})
	ctx := context.Background()
	in := ovntest.Seed004Input()
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
