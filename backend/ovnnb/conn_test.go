package ovnnb_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/udnkit/udnkit/backend/ovnnb"
	"github.com/udnkit/udnkit/internal/ovntest"
	"github.com/udnkit/udnkit/topology"
)

func nbSchema(t *testing.T, env *ovntest.Env) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(env.Root, "usr/share/ovn/ovn-nb.ovsschema"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestRealEndpoints(t *testing.T) {
	env := ovntest.Start(t)
	ctx := context.Background()
	want := handState(t, "ns1_blue", "node1")
	for i, ep := range []string{env.NBUnix, env.NBTCP} {
		c, err := ovnnb.Dial(ctx, ovnnb.Config{Endpoints: []string{ep}})
		if err != nil {
			t.Fatalf("%s: %v", ep, err)
		}
		if c.Endpoint() != ep || c.SchemaVersion() != ovnnb.MinSchemaVersion {
			t.Errorf("%s: endpoint %s, schema %s", ep, c.Endpoint(), c.SchemaVersion())
		}
		changes, _, err := c.Sync(ctx, want)
		if err != nil {
			t.Fatalf("%s: %v", ep, err)
		}
		if (i == 0) != (len(changes) > 0) {
			t.Errorf("%s: %d changes", ep, len(changes))
		}
		c.Close()
	}
}

// A clustered NB: of the endpoints given, the adapter uses the leader.
func TestRealClusteredLeaderOnly(t *testing.T) {
	env := ovntest.Start(t)
	ctx := context.Background()
	srv, err := env.ServeSchema(ctx, nbSchema(t, env), true)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Stop()
	cctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	c, err := ovnnb.Dial(cctx, ovnnb.Config{Endpoints: []string{"tcp:127.0.0.1:1", srv.Endpoint}, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if c.Endpoint() != srv.Endpoint {
		t.Fatalf("connected to %s, want the leader %s", c.Endpoint(), srv.Endpoint)
	}
	want := handState(t, "ns1_blue", "node1")
	if _, _, err := c.Sync(ctx, want); err != nil {
		t.Fatal(err)
	}
	got, err := c.Observe(ctx)
	if err != nil || !got.Equal(want) {
		t.Fatalf("observe on the cluster: %v\n%s", err, topology.Diff(got, want))
	}
}

// The client reconnects after the server restarts; calls made while it is
// down wait within their context.
func TestRealReconnect(t *testing.T) {
	env := ovntest.Start(t)
	ctx := context.Background()
	srv, err := env.ServeSchema(ctx, nbSchema(t, env), false)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Stop()
	c, err := ovnnb.Dial(ctx, ovnnb.Config{Endpoints: []string{srv.Endpoint}, Timeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	one := handState(t, "ns1_blue", "node1")
	if _, _, err := c.Sync(ctx, one); err != nil {
		t.Fatal(err)
	}
	srv.Kill()
	short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	_, err = c.Observe(short)
	cancel()
	if err == nil {
		t.Fatal("Observe succeeded while the server was down")
	}
	if err := srv.Start(ctx); err != nil {
		t.Fatal(err)
	}
	two := handState(t, "ns1_blue", "node1", "node2")
	wait, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if _, _, err := c.Sync(wait, two); err != nil {
		t.Fatalf("after restart: %v", err)
	}
	got, err := c.Observe(ctx)
	if err != nil || !got.Equal(two) {
		t.Fatalf("after reconnect: %v\n%s", err, topology.Diff(got, two))
	}
}
