package ovnnb

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ovn-kubernetes/libovsdb/client"
	"github.com/ovn-kubernetes/libovsdb/model"
	"github.com/ovn-kubernetes/libovsdb/ovsdb"

	"github.com/udnkit/udnkit/internal/nbdb"
	"github.com/udnkit/udnkit/internal/ovntest"
	"github.com/udnkit/udnkit/netconf"
	"github.com/udnkit/udnkit/topology"
)

// monCounter counts the transactions a Client sends (selects included).
type monCounter struct {
	client.Client
	n atomic.Int64
}

func (m *monCounter) Transact(ctx context.Context, ops ...ovsdb.Operation) ([]ovsdb.OperationResult, error) {
	m.n.Add(1)
	return m.Client.Transact(ctx, ops...)
}

// monDial dials ep with or without the monitor; with it, the returned
// counter counts the transactions the Client sends.
func monDial(t testing.TB, ep string, monitor bool) (*Client, *monCounter) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := Dial(ctx, Config{Endpoints: []string{ep}, Monitor: monitor, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	if monitor != (c.mon != nil) {
		t.Fatalf("Config.Monitor %v, monitor kept %v", monitor, c.mon != nil)
	}
	cnt := &monCounter{Client: c.ovs}
	c.ovs = cnt
	return c, cnt
}

// monWithSwitchOption returns s with other_config key=value on every
// switch: an update of every switch.
func monWithSwitchOption(t testing.TB, s topology.State, key, value string) topology.State {
	t.Helper()
	var b topology.Builder
	for _, n := range s.Networks() {
		b.Own(n)
	}
	for o := range s.Objects() {
		if sw, ok := o.(topology.Switch); ok {
			sw.OtherConfig = sw.OtherConfig.With(key, value)
			o = sw
		}
		b.Add(o)
	}
	out, err := b.State()
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// monEmpty speaks for the networks of s and holds nothing: syncing it
// deletes them.
func monEmpty(t testing.TB, s topology.State) topology.State {
	t.Helper()
	var b topology.Builder
	for _, n := range s.Networks() {
		b.Own(n)
	}
	out, err := b.State()
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func monMerge(t testing.TB, states ...topology.State) topology.State {
	t.Helper()
	out, err := states[0].Merge(states[1:]...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// monSeed004 plans seed 004's Layer2 network for nodes (a prefix of the
// seed's three).
func monSeed004(t testing.TB, nodes int) topology.State {
	t.Helper()
	in := ovntest.Seed004Input()
	in.Nodes = in.Nodes[:nodes]
	s, err := topology.Plan(in)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// monTwoNetworks plans the primary Layer3 ns1_blue (every node in zone1)
// and the primary Layer2 ns2_red (interconnect, node1's zone) on nodes
// nodes.
func monTwoNetworks(t testing.TB, nodes int) topology.State {
	t.Helper()
	l3, err := ovntest.Plan(ovntest.Layer3Network(), ovntest.Nodes(nodes, "zone1"), "zone1")
	if err != nil {
		t.Fatal(err)
	}
	l2, err := ovntest.Plan(ovntest.Layer2Network(), ovntest.Nodes(nodes, ""), "node1")
	if err != nil {
		t.Fatal(err)
	}
	return monMerge(t, l3, l2)
}

// monSteps are the states a fixture goes through: created, nodes removed
// and every switch updated, nodes added back, everything deleted.
func monSteps(t testing.TB, fixture string) []topology.State {
	var full, fewer topology.State
	switch fixture {
	case "seed004":
		full, fewer = monSeed004(t, 3), monSeed004(t, 1)
	case "two-networks":
		full, fewer = monTwoNetworks(t, 3), monTwoNetworks(t, 1)
	default:
		t.Fatalf("no fixture %s", fixture)
	}
	return []topology.State{full, monWithSwitchOption(t, fewer, "udnkit-test", "1"), full, monEmpty(t, full)}
}

// monEndpoints are the servers the Monitor tests run against: the
// embedded one and a real ovsdb-server.
func monEndpoints(t *testing.T) map[string]func(t *testing.T) string {
	return map[string]func(t *testing.T) string{
		"embedded": func(t *testing.T) string { return startEmbeddedT(t) },
		"real":     func(t *testing.T) string { return ovntest.Start(t).NBUnix },
	}
}

// Observe through the monitor equals Observe through a select after
// every create, update and delete apply, and shows this client's writes at
// once, from the cache (no select is sent).
func TestMonitorObserveMatchesSelect(t *testing.T) {
	for server, start := range monEndpoints(t) {
		t.Run(server, func(t *testing.T) {
			ep := start(t)
			ctx := context.Background()
			mon, sent := monDial(t, ep, true)
			sel, _ := monDial(t, ep, false)
			for _, fixture := range []string{"seed004", "two-networks"} {
				t.Run(fixture, func(t *testing.T) {
					ops := map[topology.Op]int{}
					for i, want := range monSteps(t, fixture) {
						changes, _, err := mon.Sync(ctx, want)
						if err != nil {
							t.Fatalf("step %d: %v", i, err)
						}
						for _, ch := range changes {
							ops[ch.Op]++
						}
						before := sent.n.Load()
						got, err := mon.Observe(ctx, want.Networks()...)
						if err != nil {
							t.Fatalf("step %d: %v", i, err)
						}
						if !got.Equal(want) {
							t.Fatalf("step %d: Observe right after Apply misses this client's writes:\n%s", i, topology.Diff(got, want))
						}
						if n := sent.n.Load() - before; n != 0 {
							t.Errorf("step %d: Observe sent %d transactions, want 0 (read from the cache)", i, n)
						}
						if n := mon.mon.pendingWrites(); n != 0 {
							t.Errorf("step %d: %d transactions still pending after Observe", i, n)
						}
						viaSel, err := sel.Observe(ctx)
						if err != nil {
							t.Fatal(err)
						}
						viaMon, err := mon.Observe(ctx)
						if err != nil {
							t.Fatal(err)
						}
						if !viaMon.Equal(viaSel) || viaMon.Len() != viaSel.Len() {
							t.Fatalf("step %d: monitor and select differ:\n%s", i, topology.Diff(viaMon, viaSel))
						}
					}
					for _, op := range []topology.Op{topology.OpCreate, topology.OpUpdate, topology.OpDelete} {
						if ops[op] == 0 {
							t.Errorf("the steps applied no %s", op)
						}
					}
				})
			}
		})
	}
}

// With the monitor, a second Sync of the same State sends nothing.
func TestMonitorSyncTwice(t *testing.T) {
	for server, start := range monEndpoints(t) {
		t.Run(server, func(t *testing.T) {
			ep := start(t)
			ctx := context.Background()
			mon, _ := monDial(t, ep, true)
			want := monMerge(t, monSeed004(t, 3), monTwoNetworks(t, 3))
			changes, res, err := mon.Sync(ctx, want)
			if err != nil || len(changes) == 0 || res.Operations == 0 {
				t.Fatalf("first Sync: %d changes, %+v, %v", len(changes), res, err)
			}
			changes, res, err = mon.Sync(ctx, want)
			if err != nil || len(changes) != 0 || res != (Result{}) {
				t.Fatalf("second Sync: %v, %+v, %v", changes, res, err)
			}
			got, err := mon.Observe(ctx)
			if err != nil || !got.Equal(want) {
				t.Fatalf("Observe: %v\n%s", err, topology.Diff(got, want))
			}
		})
	}
}

// A State Observe returned is not changed by later cache updates.
func TestMonitorStateIsolated(t *testing.T) {
	ep := startEmbeddedT(t)
	ctx := context.Background()
	mon, _ := monDial(t, ep, true)
	other, _ := monDial(t, ep, true)
	first := monTwoNetworks(t, 3)
	if _, _, err := mon.Sync(ctx, first); err != nil {
		t.Fatal(err)
	}
	got, err := mon.Observe(ctx)
	if err != nil || !got.Equal(first) {
		t.Fatalf("%v\n%s", err, topology.Diff(got, first))
	}
	// This client and another rewrite every switch and delete nodes.
	if _, _, err := mon.Sync(ctx, monWithSwitchOption(t, first, "a", "1")); err != nil {
		t.Fatal(err)
	}
	second := monWithSwitchOption(t, monTwoNetworks(t, 1), "b", "2")
	if _, _, err := other.Sync(ctx, second); err != nil {
		t.Fatal(err)
	}
	monPoll(t, mon, second)
	if !got.Equal(first) {
		t.Fatalf("a returned State changed with the cache:\n%s", topology.Diff(got, first))
	}
}

// This client's update, overwritten by another client before it Observes:
// the cache cannot show the update any more, so Observe proves the cache
// current with one echo round trip and reads it, without a select or
// waiting for ownWritesWait (it had sent a select after waiting that long).
func TestMonitorOverwrittenWrite(t *testing.T) {
	ep := startEmbeddedT(t)
	ctx := context.Background()
	mon, sent := monDial(t, ep, true)
	other, _ := monDial(t, ep, false)
	first := monTwoNetworks(t, 2)
	if _, _, err := mon.Sync(ctx, first); err != nil {
		t.Fatal(err)
	}
	mine := monWithSwitchOption(t, first, "a", "1")
	changes, _, err := mon.Sync(ctx, mine)
	if err != nil {
		t.Fatal(err)
	}
	for _, ch := range changes {
		if ch.Op != topology.OpUpdate {
			t.Fatalf("want updates only, got %v", ch)
		}
	}
	theirs := monWithSwitchOption(t, first, "b", "2")
	if _, _, err := other.Sync(ctx, theirs); err != nil {
		t.Fatal(err)
	}
	start, before := time.Now(), sent.n.Load()
	got, err := mon.Observe(ctx)
	if err != nil || !got.Equal(theirs) {
		t.Fatalf("%v\n%s", err, topology.Diff(got, theirs))
	}
	if n := sent.n.Load() - before; n != 0 {
		t.Errorf("Observe sent %d transactions, want 0 (an echo, then the cache)", n)
	}
	if d := time.Since(start); d >= ownWritesWait {
		t.Errorf("Observe took %v: it waited for a write the cache can no longer show", d)
	}
	before = sent.n.Load()
	got, err = mon.Observe(ctx)
	if err != nil || !got.Equal(theirs) {
		t.Fatalf("%v\n%s", err, topology.Diff(got, theirs))
	}
	if n := sent.n.Load() - before; n != 0 {
		t.Errorf("second Observe sent %d transactions, want 0 (read from the cache)", n)
	}
	if n := mon.mon.pendingWrites(); n != 0 {
		t.Errorf("%d transactions still pending", n)
	}
}

// A lagging cache: Observe must wait until the cache shows what a
// committed transaction of this client wrote. The cache is simulated by
// row maps with and without each effect.
func TestMonitorPendingWrites(t *testing.T) {
	ctx := context.Background()
	c, _ := monDial(t, startEmbeddedT(t), true)
	st := monTwoNetworks(t, 1)
	if _, _, err := c.Sync(ctx, st); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Observe(ctx); err != nil {
		t.Fatal(err)
	}
	base, err := c.mon.cacheRows(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var swUUID, portUUID string
	for u, m := range base[nbdb.LogicalSwitchTable] {
		if sw := m.(*nbdb.LogicalSwitch); len(sw.Ports) > 0 {
			swUUID, portUUID = u, sw.Ports[0]
		}
	}
	if swUUID == "" {
		t.Fatal("no switch with ports")
	}
	// with returns base with table.uuid replaced by m (nil: deleted).
	with := func(table, uuid string, m model.Model) map[string]map[string]model.Model {
		out := map[string]map[string]model.Model{}
		for t, rows := range base {
			out[t] = maps.Clone(rows)
		}
		if m == nil {
			delete(out[table], uuid)
		} else {
			out[table][uuid] = m
		}
		return out
	}
	const newUUID = "0e2d3b7c-5a1f-4c8e-9d6b-2f4a6c8e0a11"
	sw := base[nbdb.LogicalSwitchTable][swUUID].(*nbdb.LogicalSwitch)
	changed := model.Clone(sw).(*nbdb.LogicalSwitch)
	changed.OtherConfig = map[string]string{"x": "1", "y": "2"}
	moved := model.Clone(sw).(*nbdb.LogicalSwitch)
	moved.Ports = slices.DeleteFunc(slices.Clone(moved.Ports), func(u string) bool { return u == portUUID })
	where := []ovsdb.Condition{uuidIs(swUUID)}
	tests := []struct {
		name        string
		ops         []ovsdb.Operation
		res         []ovsdb.OperationResult
		lag, caught map[string]map[string]model.Model
	}{
		{"insert", []ovsdb.Operation{{Op: ovsdb.OperationInsert, Table: nbdb.AddressSetTable, UUIDName: "row1",
			Row: ovsdb.Row{"name": "x"}}}, []ovsdb.OperationResult{{UUID: ovsdb.UUID{GoUUID: newUUID}}},
			base, with(nbdb.AddressSetTable, newUUID, &nbdb.AddressSet{UUID: newUUID, Name: "x"})},
		{"update", []ovsdb.Operation{{Op: ovsdb.OperationUpdate, Table: nbdb.LogicalSwitchTable, Where: where,
			Row: ovsdb.Row{"other_config": ovsdb.OvsMap{GoMap: map[any]any{"y": "2", "x": "1"}}}}}, []ovsdb.OperationResult{{Count: 1}},
			base, with(nbdb.LogicalSwitchTable, swUUID, changed)},
		{"mutate", []ovsdb.Operation{{Op: ovsdb.OperationMutate, Table: nbdb.LogicalSwitchTable, Where: where,
			Mutations: []ovsdb.Mutation{*ovsdb.NewMutation("ports", ovsdb.MutateOperationDelete, uuidSet([]string{portUUID}))}}},
			[]ovsdb.OperationResult{{Count: 1}}, base, with(nbdb.LogicalSwitchTable, swUUID, moved)},
		{"delete", []ovsdb.Operation{{Op: ovsdb.OperationDelete, Table: nbdb.LogicalSwitchTable, Where: where}},
			[]ovsdb.OperationResult{{Count: 1}}, base, with(nbdb.LogicalSwitchTable, swUUID, nil)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c.mon.record(tt.ops, tt.res)
			if n := c.mon.pendingWrites(); n != 1 {
				t.Fatalf("%d pending after the transaction, want 1", n)
			}
			if done, wait := c.mon.settle(tt.lag); done || !wait {
				t.Fatalf("a cache without the write: done %v, wait %v; want to wait", done, wait)
			}
			if done, _ := c.mon.settle(tt.caught); !done {
				t.Fatal("a cache with the write: not done")
			}
			if n := c.mon.pendingWrites(); n != 0 {
				t.Fatalf("%d pending once shown", n)
			}
		})
	}
	// A failed transaction and a read expect nothing.
	c.mon.record(tests[0].ops, []ovsdb.OperationResult{{Error: "constraint violation"}})
	c.mon.record([]ovsdb.Operation{{Op: ovsdb.OperationSelect, Table: nbdb.ACLTable}}, []ovsdb.OperationResult{{}})
	if n := c.mon.pendingWrites(); n != 0 {
		t.Fatalf("%d pending after a failed transaction and a select", n)
	}
}

// Observe reads the cache at one instant: while another client applies a
// sequence of States, one transaction each, every State observed through
// the monitor is one of them, never a mix.
func TestMonitorConsistentReads(t *testing.T) {
	ep := startEmbeddedT(t)
	ctx := context.Background()
	writer, _ := monDial(t, ep, false)
	reader, _ := monDial(t, ep, true)
	three := monTwoNetworks(t, 3)
	states := []topology.State{monEmpty(t, three), monTwoNetworks(t, 1), three,
		monWithSwitchOption(t, three, "k", "v"), monTwoNetworks(t, 2)}
	networks := three.Networks()
	stop := make(chan struct{})
	errs := make(chan error, 4)
	var reads atomic.Int64
	for range 2 {
		go func() {
			for {
				select {
				case <-stop:
					errs <- nil
					return
				default:
				}
				got, err := reader.Observe(ctx, networks...)
				if err != nil {
					errs <- err
					return
				}
				reads.Add(1)
				if !slices.ContainsFunc(states, got.Equal) {
					errs <- fmt.Errorf("observed a State no transaction left (%d objects)", got.Len())
					return
				}
			}
		}()
	}
	for range 5 {
		for _, st := range states[1:] {
			if _, _, err := writer.Sync(ctx, st); err != nil {
				t.Fatal(err)
			}
		}
	}
	close(stop)
	for range 2 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if reads.Load() == 0 {
		t.Fatal("no Observe completed")
	}
	t.Logf("%d consistent reads", reads.Load())
}

// monPoll waits (at most 10s) until c observes want.
func monPoll(t testing.TB, c *Client, want topology.State) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		got, err := c.Observe(context.Background(), want.Networks()...)
		if err == nil && got.Equal(want) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("not observed within 10s: %v\n%s", err, topology.Diff(got, want))
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// monPollFor waits (at most 10s) until ok holds for what c observes.
func monPollFor(t testing.TB, c *Client, what string, ok func(topology.State) bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		got, err := c.Observe(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if ok(got) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not observed within 10s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func monSwitch(s topology.State, name string) (topology.Switch, bool) {
	for _, o := range s.ObjectsOf(topology.KindSwitch) {
		if sw := o.(topology.Switch); sw.Name == name {
			return sw, true
		}
	}
	return topology.Switch{}, false
}

// Writes by another client (ovn-nbctl) reach Observe through the monitor:
// an update of an owned row's column, a new owned row, its deletion.
// Observe reads them from the cache.
func TestMonitorRealForeignWrites(t *testing.T) {
	env := ovntest.Start(t)
	ctx := context.Background()
	mon, sent := monDial(t, env.NBUnix, true)
	want := monSeed004(t, 3)
	if _, _, err := mon.Sync(ctx, want); err != nil {
		t.Fatal(err)
	}
	sw := want.ObjectsOf(topology.KindSwitch)[0].(topology.Switch)
	before := sent.n.Load()
	if _, err := env.NBCtl(ctx, "set", "Logical_Switch", sw.Name, "other_config:udnkit-foreign=yes"); err != nil {
		t.Fatal(err)
	}
	monPollFor(t, mon, "other_config set by ovn-nbctl", func(s topology.State) bool {
		got, ok := monSwitch(s, sw.Name)
		v, set := got.OtherConfig.Get("udnkit-foreign")
		return ok && set && v == "yes"
	})
	ids, err := env.NBCtl(ctx, "get", "Logical_Switch", sw.Name, "external_ids")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(ids, ExtNetwork) {
		t.Fatalf("external_ids of %s: %s", sw.Name, ids)
	}
	const extra = "udnkit-foreign-switch"
	if _, err := env.NBCtl(ctx, "ls-add", extra, "--", "set", "Logical_Switch", extra, "external_ids="+strings.TrimSpace(ids)); err != nil {
		t.Fatal(err)
	}
	monPollFor(t, mon, "switch added by ovn-nbctl", func(s topology.State) bool {
		_, ok := monSwitch(s, extra)
		return ok
	})
	if _, err := env.NBCtl(ctx, "ls-del", extra); err != nil {
		t.Fatal(err)
	}
	monPollFor(t, mon, "switch deleted by ovn-nbctl", func(s topology.State) bool {
		_, ok := monSwitch(s, extra)
		return !ok
	})
	if n := sent.n.Load() - before; n != 0 {
		t.Errorf("Observe sent %d transactions, want 0 (read from the cache)", n)
	}
	// The cache and a select agree.
	sel, _ := monDial(t, env.NBUnix, false)
	a, err := mon.Observe(ctx)
	if err != nil {
		t.Fatal(err)
	}
	b, err := sel.Observe(ctx)
	if err != nil || !a.Equal(b) {
		t.Fatalf("%v\n%s", err, topology.Diff(a, b))
	}
}

// After the server restarts, the client reconnects, libovsdb
// re-establishes the monitor, and Observe reads other clients' writes from
// the cache again; while the server is down Observe fails within its
// context.
func TestMonitorRealRestart(t *testing.T) {
	env := ovntest.Start(t)
	ctx := context.Background()
	schema, err := os.ReadFile(filepath.Join(env.Root, "usr/share/ovn/ovn-nb.ovsschema"))
	if err != nil {
		t.Fatal(err)
	}
	srv, err := env.ServeSchema(ctx, schema, false)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Stop()
	mon, sent := monDial(t, srv.Endpoint, true)
	writer, _ := monDial(t, srv.Endpoint, false)
	one := monTwoNetworks(t, 1)
	if _, _, err := mon.Sync(ctx, one); err != nil {
		t.Fatal(err)
	}
	srv.Kill()
	down := time.Now().Add(10 * time.Second)
	for {
		short, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
		_, err := mon.Observe(short)
		cancel()
		if err != nil {
			if !errors.Is(err, ErrConnect) {
				t.Fatalf("while down: %v, want ErrConnect", err)
			}
			break
		}
		if time.Now().After(down) {
			t.Fatal("Observe still served the cache 10s after the server went down")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := srv.Start(ctx); err != nil {
		t.Fatal(err)
	}
	wait, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	two := monTwoNetworks(t, 2)
	if _, _, err := writer.Sync(wait, two); err != nil {
		t.Fatalf("after restart: %v", err)
	}
	before := sent.n.Load()
	monPoll(t, mon, two)
	if n := sent.n.Load() - before; n != 0 {
		t.Errorf("Observe sent %d transactions after the restart, want 0 (read from the cache)", n)
	}
	three := monWithSwitchOption(t, monTwoNetworks(t, 3), "after", "restart")
	if _, _, err := mon.Sync(ctx, three); err != nil {
		t.Fatal(err)
	}
	got, err := mon.Observe(ctx)
	if err != nil || !got.Equal(three) {
		t.Fatalf("own write after the restart: %v\n%s", err, topology.Diff(got, three))
	}
}

// The default Client keeps no monitor: its cache stays empty.
func TestMonitorOffByDefault(t *testing.T) {
	c, _ := monDial(t, startEmbeddedT(t), false)
	if _, _, err := c.Sync(context.Background(), monSeed004(t, 3)); err != nil {
		t.Fatal(err)
	}
	cache := c.ovs.(*monCounter).Client.Cache()
	for _, table := range snapshotTables {
		if rc := cache.Table(table); rc != nil && rc.Len() != 0 {
			t.Errorf("%s: %d rows cached without Config.Monitor", table, rc.Len())
		}
	}
}

// canonical ignores the order of sets and maps and spells named UUIDs as
// the real ones.
func TestMonitorCanonical(t *testing.T) {
	const u1, u2 = "8a4e6e2c-0d6c-4b3e-9a51-7a7f9b0f0001", "8a4e6e2c-0d6c-4b3e-9a51-7a7f9b0f0002"
	named := map[string]string{"row1": u2}
	tests := []struct {
		name string
		a, b any
		same bool
	}{
		{"set order", ovsdb.OvsSet{GoSet: []any{"b", "a"}}, ovsdb.OvsSet{GoSet: []any{"a", "b"}}, true},
		{"one-element set", ovsdb.OvsSet{GoSet: []any{"a"}}, "a", true},
		{"map order", ovsdb.OvsMap{GoMap: map[any]any{"x": "1", "y": "2"}}, ovsdb.OvsMap{GoMap: map[any]any{"y": "2", "x": "1"}}, true},
		{"named uuid", ovsdb.OvsSet{GoSet: []any{ovsdb.UUID{GoUUID: "row1"}, ovsdb.UUID{GoUUID: u1}}},
			ovsdb.OvsSet{GoSet: []any{ovsdb.UUID{GoUUID: u1}, ovsdb.UUID{GoUUID: u2}}}, true},
		{"different", ovsdb.OvsSet{GoSet: []any{"a", "b"}}, ovsdb.OvsSet{GoSet: []any{"a", "c"}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := canonical(tt.a, named)
			if err != nil {
				t.Fatal(err)
			}
			b, err := canonical(tt.b, named)
			if err != nil {
				t.Fatal(err)
			}
			if (a == b) != tt.same {
				t.Fatalf("%s vs %s: same %v, want %v", a, b, a == b, tt.same)
			}
		})
	}
}

// monBigPlan is networks primary networks, alternately Layer3 (every node
// in zone1) and Layer2 (interconnect, node1's zone), on nodes nodes.
func monBigPlan(tb testing.TB, nodes, networks int) topology.State {
	tb.Helper()
	oneZone, ownZones := ovntest.Nodes(nodes, "zone1"), ovntest.Nodes(nodes, "")
	var states []topology.State
	for i := 1; i <= networks; i++ {
		n, ns, zone := ovntest.Layer3Network(), oneZone, "zone1"
		if i%2 == 0 {
			n, ns, zone = ovntest.Layer2Network(), ownZones, "node1"
		}
		n.Name = fmt.Sprintf("ns%d_net%d", i, i)
		n.ID = i
		n.Subnets[0].CIDR = netip.MustParsePrefix(fmt.Sprintf("10.%d.0.0/16", 100+i))
		in := ovntest.PlanInput(n, ns, zone)
		if n.Topology == netconf.TopologyLayer3 {
			for j, node := range ns {
				in.HostSubnets[node.Name] = []netip.Prefix{netip.MustParsePrefix(fmt.Sprintf("10.%d.%d.0/24", 100+i, j))}
			}
		}
		s, err := topology.Plan(in)
		if err != nil {
			tb.Fatal(err)
		}
		states = append(states, s)
	}
	return monMerge(tb, states...)
}

// BenchmarkMonitorObserve observes a real NB holding a 100-node x
// 20-network plan through a select and through the monitor's cache.
func BenchmarkMonitorObserve(b *testing.B) {
	env := ovntest.Start(b)
	ctx := context.Background()
	want := monBigPlan(b, 100, 20)
	w, _ := monDial(b, env.NBUnix, false)
	w.cfg.MaxOpsPerTransaction = 5000
	if _, _, err := w.Sync(ctx, want); err != nil {
		b.Fatal(err)
	}
	rows := 0
	for _, t := range snapshotTables {
		out, err := env.NBCtl(ctx, "--bare", "--columns=_uuid", "list", t)
		if err != nil {
			b.Fatal(err)
		}
		rows += len(strings.Fields(out))
	}
	b.Logf("%d objects, %d rows", want.Len(), rows)
	for _, mode := range []struct {
		name    string
		monitor bool
	}{{"select", false}, {"monitor", true}} {
		b.Run(mode.name, func(b *testing.B) {
			c, _ := monDial(b, env.NBUnix, mode.monitor)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				got, err := c.Observe(ctx)
				if err != nil {
					b.Fatal(err)
				}
				if got.Len() != want.Len() {
					b.Fatalf("observed %d objects, want %d", got.Len(), want.Len())
				}
			}
		})
	}
}

// TestMonitorShowsOwnAttachments: a monitoring client's own transaction
// that only moves a load balancer between existing rows (mutations of
// their load_balancer columns, no insert to prove it by) is shown by the
// cache like any other: the next Observe reads from it without waiting,
// sends no select and leaves nothing pending. Attachment columns are not
// member columns; the read-your-writes check took every mutation of a
// monitored column for a member's and never found such a write in the
// cache.
func TestMonitorShowsOwnAttachments(t *testing.T) {
	ctx := context.Background()
	mon, sent := monDial(t, startEmbeddedT(t), true)
	const network = "ns1_blue"
	topo, err := ovntest.Plan(ovntest.Layer3Network(), ovntest.Nodes(1, "zone1"), "zone1")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := mon.Sync(ctx, topo); err != nil {
		t.Fatal(err)
	}
	const ctl topology.Controller = "test-services"
	p := netconf.NetworkPrefix(network)
	own := topology.Owner{Controller: ctl, Network: network, Topology: netconf.TopologyLayer3, Role: netconf.RolePrimary}
	lbState := func(lb topology.LoadBalancer) topology.State {
		var b topology.Builder
		b.OwnFor(ctl, network)
		b.Add(lb)
		s, err := b.State()
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	lb := topology.LoadBalancer{Owner: own, Name: p + "Service_ns1/web_TCP_node_router+switch_node1", Protocol: topology.ProtocolTCP,
		VIPs:     []topology.LBVIP{{VIP: netip.MustParseAddrPort("172.18.0.2:30080"), Backends: []netip.AddrPort{netip.MustParseAddrPort("10.128.1.10:8080")}}},
		Switches: []string{p + "node1"}}
	if _, _, err := mon.Sync(ctx, lbState(lb)); err != nil {
		t.Fatal(err)
	}
	if _, err := mon.Observe(ctx, network); err != nil {
		t.Fatal(err)
	}
	// The same load balancer, attached to the group and the gateway
	// router instead of the switch: an update of its attachments only.
	lb.Groups, lb.Switches, lb.Routers = []string{p + "clusterLBGroup"}, nil, []string{"GR_" + p + "node1"}
	svc := lbState(lb)
	ch, _, err := mon.Sync(ctx, svc)
	if err != nil {
		t.Fatal(err)
	}
	if len(ch) != 1 || ch[0].Op != topology.OpUpdate || !slices.Equal(ch[0].Columns, []string{topology.ColumnAttachments}) {
		t.Fatalf("moving the load balancer: %s, want one update of its attachments", ch)
	}
	start, before := time.Now(), sent.n.Load()
	got, err := mon.Observe(ctx, network)
	if err != nil {
		t.Fatal(err)
	}
	var mine []topology.Object
	for o := range got.Objects() {
		if o.OwnedBy().Controller == ctl {
			mine = append(mine, o)
		}
	}
	var gb topology.Builder
	gb.OwnFor(ctl, network)
	gb.Add(mine...)
	gotSvc, err := gb.State()
	if err != nil {
		t.Fatal(err)
	}
	if d := topology.Diff(gotSvc, svc); len(d) != 0 {
		t.Fatalf("Observe right after the attaching Sync misses it:\n%s", d)
	}
	if n := sent.n.Load() - before; n != 0 {
		t.Errorf("Observe sent %d transactions, want 0 (read from the cache)", n)
	}
	if d := time.Since(start); d >= ownWritesWait {
		t.Errorf("Observe took %v: it waited for a write the cache already showed", d)
	}
	if n := mon.mon.pendingWrites(); n != 0 {
		t.Errorf("%d transactions still pending after Observe", n)
	}
}
