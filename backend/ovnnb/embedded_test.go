package ovnnb_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ovn-kubernetes/libovsdb/client"
	"github.com/ovn-kubernetes/libovsdb/ovsdb"

	"github.com/udnkit/udnkit/backend/ovnnb"
	"github.com/udnkit/udnkit/internal/nbdb"
	"github.com/udnkit/udnkit/topology"
)

func TestDialOlderSchemaEmbedded(t *testing.T) {
	s := nbdb.Schema()
	s.Version = "7.0.0"
	e, err := ovnnb.StartEmbeddedSchema(s)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	_, err = ovnnb.Dial(context.Background(), ovnnb.Config{Endpoints: []string{e.Endpoint()}, NoReconnect: true})
	if !errors.Is(err, ovnnb.ErrSchema) || !strings.Contains(err.Error(), "7.0.0") || !strings.Contains(err.Error(), ovnnb.MinSchemaVersion) {
		t.Fatalf("err = %v, want ErrSchema naming both versions", err)
	}
}

func TestDialConfigErrors(t *testing.T) {
	for _, cfg := range []ovnnb.Config{{}, {Endpoints: []string{"ssl:127.0.0.1:6641"}}, {Endpoints: []string{"udp:1.2.3.4:1"}}, {Endpoints: []string{"tcp:"}}} {
		if _, err := ovnnb.Dial(context.Background(), cfg); !errors.Is(err, ovnnb.ErrConnect) {
			t.Errorf("%v: err = %v, want ErrConnect", cfg.Endpoints, err)
		}
	}
}

// The embedded server serves the Northbound schema the adapter was built
// for and commits what a plain libovsdb client writes.
func TestEmbeddedServesNB(t *testing.T) {
	e, err := ovnnb.StartEmbedded()
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	m, err := nbdb.FullDatabaseModel()
	if err != nil {
		t.Fatal(err)
	}
	c, err := client.NewOVSDBClient(m, client.WithEndpoint(e.Endpoint()))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := c.Connect(ctx); err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if v := c.Schema().Version; v != "7.11.0" {
		t.Fatalf("schema version %s, want 7.11.0", v)
	}
	ops, err := c.Create(&nbdb.LogicalSwitch{Name: "probe"})
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.Transact(ctx, ops...)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ovsdb.CheckOperationResults(res, ops); err != nil {
		t.Fatal(err)
	}
	sel := ovsdb.Operation{Op: ovsdb.OperationSelect, Table: nbdb.LogicalSwitchTable, Where: []ovsdb.Condition{}}
	res, err = c.Transact(ctx, sel)
	if err != nil || len(res) != 1 || len(res[0].Rows) != 1 || res[0].Rows[0]["name"] != "probe" {
		t.Fatalf("select: %v %+v", err, res)
	}
}

// TestOpen: no endpoints start an embedded database, which close stops;
// an endpoint nobody serves is an error, with nothing left running.
func TestOpen(t *testing.T) {
	ctx := context.Background()
	c, closeNB, err := ovnnb.Open(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if s, err := c.Observe(ctx); err != nil || s.Len() != 0 {
		t.Errorf("Observe of the embedded database: %d rows, %v", s.Len(), err)
	}
	closeNB()
	cctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	if _, _, err := ovnnb.Open(cctx, "unix:"+t.TempDir()+"/none.sock"); err == nil {
		t.Error("Open of an endpoint nobody serves succeeded")
	}
}

// TestClosedClientRefuses: a closed client returns ErrConnect at once, with
// and without a monitor, instead of waiting for a reconnect that never
// comes (it waited until the context ended: forever with Background).
func TestClosedClientRefuses(t *testing.T) {
	ctx := context.Background()
	e, err := ovnnb.StartEmbedded()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.Close() })
	for _, monitor := range []bool{false, true} {
		cfg := e.Config()
		cfg.Monitor = monitor
		c, err := ovnnb.Dial(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		c.Close()
		done := make(chan error, 2)
		go func() {
			_, err := c.Observe(ctx)
			done <- err
			_, _, err = c.Sync(ctx, topology.State{})
			done <- err
		}()
		for range 2 {
			select {
			case err := <-done:
				if !errors.Is(err, ovnnb.ErrConnect) {
					t.Errorf("Monitor=%v: after Close: %v, want ErrConnect", monitor, err)
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("Monitor=%v: a closed client still waits after 10 s", monitor)
			}
		}
	}
}
