package ovnnb_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/netip"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ovn-kubernetes/libovsdb/ovsdb"

	"github.com/udnkit/udnkit/backend/ovnnb"
	"github.com/udnkit/udnkit/internal/nbdb"
	"github.com/udnkit/udnkit/internal/ovntest"
	"github.com/udnkit/udnkit/topology"
)

// Integration test 3: a second apply of the same plan makes zero
// operations; removing a node or a network removes exactly its rows.
func TestRealIdempotencyAndRemoval(t *testing.T) {
	env, c := realOVN(t, ovnnb.Config{})
	ctx := context.Background()
	l3, l2 := twoPrimaries(t)
	both, err := l3.Merge(l2)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Sync(ctx, both); err != nil {
		t.Fatal(err)
	}
	before, err := env.Canonical(ctx)
	if err != nil {
		t.Fatal(err)
	}
	changes, res, err := c.Sync(ctx, both)
	if err != nil || len(changes) != 0 || res != (ovnnb.Result{}) {
		t.Fatalf("second apply: err %v, %d changes, %+v; want nothing", err, len(changes), res)
	}
	if r, err := c.Apply(ctx, nil); err != nil || r != (ovnnb.Result{}) {
		t.Fatalf("empty apply: %v %+v", err, r)
	}
	after, err := env.Canonical(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if before != after {
		t.Fatal("the NB changed on a no-op apply")
	}

	// Remove node3 from the Layer3 network.
	nodes := ovntest.Nodes(3, "zone1")[:2]
	l3two, err := ovntest.Plan(ovntest.Layer3Network(), nodes, "zone1")
	if err != nil {
		t.Fatal(err)
	}
	changes, _, err = c.Sync(ctx, l3two)
	if err != nil {
		t.Fatal(err)
	}
	_, _, deletes := changes.Count()
	if deletes == 0 {
		t.Fatal("removing node3 deleted nothing")
	}
	for _, ch := range changes {
		if ch.Op == topology.OpDelete && ch.Object.OwnedBy().Node != "node3" {
			t.Errorf("removing node3 deleted %s owned by %s", ch, ch.Object.OwnedBy())
		}
	}
	for _, check := range []struct {
		network string
		want    topology.State
	}{{"ns1_blue", l3two}, {"ns2_red", l2}} {
		got, err := c.Observe(ctx, check.network)
		if err != nil {
			t.Fatal(err)
		}
		if !got.Equal(check.want) {
			t.Errorf("%s after removing node3:\n%s", check.network, topology.Diff(got, check.want))
		}
	}
	rows, err := env.Rows(ctx, ovntest.NBTables...)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(ovntest.CanonicalText(rows), "\n") {
		if strings.Contains(l, "node3") && strings.Contains(l, "ns1_blue") {
			t.Errorf("a row of ns1_blue on node3 remains: %s", l)
		}
	}

	// node3 back, removed and back again at once: its switch and gateway
	// router are created under the UUIDs their names give, the ones they
	// had, and northd (which may meet the delete and the create in one
	// run) compiles them.
	l3three, err := ovntest.Plan(ovntest.Layer3Network(), ovntest.Nodes(3, "zone1"), "zone1")
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range []topology.State{l3three, l3two, l3three} {
		if _, _, err := c.Sync(ctx, st); err != nil {
			t.Fatal(err)
		}
	}
	if err := env.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"ns1_blue_node3", "GR_ns1_blue_node3"} {
		out, err := env.SBCtl(ctx, "--bare", "--columns=external_ids", "find", "Datapath_Binding", "external_ids:name="+name)
		if err != nil || !strings.Contains(out, name) {
			t.Errorf("no datapath for %s after its re-creation: %q %v", name, out, err)
		}
	}
	if bad, err := env.NorthdErrors(); err != nil || len(bad) > 0 {
		t.Errorf("northd after the re-creation: %q %v", bad, err)
	}
	if _, _, err := c.Sync(ctx, l3two); err != nil {
		t.Fatal(err)
	}

	// Remove the Layer2 network.
	if _, _, err := c.Sync(ctx, topology.Removal("ns2_red")); err != nil {
		t.Fatal(err)
	}
	rows, err = env.Rows(ctx, ovntest.NBTables...)
	if err != nil {
		t.Fatal(err)
	}
	if text := ovntest.CanonicalText(rows); strings.Contains(text, "ns2_red") {
		t.Errorf("rows of ns2_red remain:\n%s", grep(text, "ns2_red"))
	}
	got, err := c.Observe(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !got.Equal(l3two) {
		t.Errorf("after removing ns2_red:\n%s", topology.Diff(got, l3two))
	}
	if err := env.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if bad, err := env.NorthdErrors(); err != nil || len(bad) > 0 {
		t.Errorf("northd: %q %v", bad, err)
	}
}

func grep(text, s string) string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if strings.Contains(l, s) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// foreignRows returns the rows whose UUIDs are in ids, as JSON.
func foreignRows(t *testing.T, env *ovntest.Env, ids map[string]bool) string {
	t.Helper()
	rows, err := env.Rows(context.Background(), append(ovntest.NBTables, "Logical_Router_Static_Route")...)
	if err != nil {
		t.Fatal(err)
	}
	keep := map[string]map[string]map[string]any{}
	for tb, rs := range rows {
		for u, r := range rs {
			if ids[u] {
				delete(r, "_version")
				for c := range r {
					if c == "up" || c == "dynamic_addresses" || c == "tag" || c == "status" {
						delete(r, c)
					}
				}
				if keep[tb] == nil {
					keep[tb] = map[string]map[string]any{}
				}
				keep[tb][u] = r
			}
		}
	}
	b, _ := json.Marshal(keep)
	return string(b)
}

// Integration test 4: rows the SDK does not own survive every apply and
// delete, and a delete that would take one with it is refused.
func TestRealForeignRowsSurvive(t *testing.T) {
	env, c := realOVN(t, ovnnb.Config{})
	// The foreign router's route has no path: northd says so about a row
	// this test wrote by hand, not about the plan.
	env.AllowNorthd(regexp.MustCompile(`No path for static route 10\.128\.0\.0/16 on router foreign-lr`))
	ctx := context.Background()
	out, err := env.Shell(ctx, `
ovn-nbctl ls-add foreign-ls -- lsp-add foreign-ls foreign-p -- set Logical_Switch_Port foreign-p external_ids:owner=someone-else
ovn-nbctl lr-add foreign-lr -- lr-route-add foreign-lr 10.128.0.0/16 192.168.0.1
ovn-nbctl lb-add foreign-lb 10.96.0.99:80 10.128.1.5:8080 tcp
ovn-nbctl pg-add foreign-pg
`)
	if err != nil {
		t.Fatal(err, out)
	}
	rows, err := env.Rows(ctx, append(ovntest.NBTables, "Logical_Router_Static_Route")...)
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	for _, rs := range rows {
		for u := range rs {
			ids[u] = true
		}
	}
	if len(ids) < 6 {
		t.Fatalf("expected at least 6 foreign rows, got %d", len(ids))
	}
	want := foreignRows(t, env, ids)

	l3, l2 := twoPrimaries(t)
	both, err := l3.Merge(l2)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Sync(ctx, both); err != nil {
		t.Fatal(err)
	}
	// A foreign pod port on the SDK's switch and a foreign route on the
	// SDK's router.
	out, err = env.Shell(ctx, `
ovn-nbctl lsp-add ns1_blue_node1 pod-x -- lsp-set-addresses pod-x "0a:58:0a:80:01:09 10.128.1.9"
ovn-nbctl lr-route-add ns1_blue_ovn_cluster_router 192.168.77.0/24 10.128.1.9
ovn-nbctl acl-add ns1_blue_node1 to-lport 999 'ip4.src == 1.2.3.4' drop
`)
	if err != nil {
		t.Fatal(err, out)
	}
	rows, err = env.Rows(ctx, append(ovntest.NBTables, "Logical_Router_Static_Route")...)
	if err != nil {
		t.Fatal(err)
	}
	for tb, rs := range rows {
		for u, r := range rs {
			if ids[u] {
				continue
			}
			if ext, _ := json.Marshal(r["external_ids"]); !strings.Contains(string(ext), ovnnb.ExtNetwork) && tb != "Gateway_Chassis" && tb != "Load_Balancer_Group" {
				ids[u] = true // one of the three foreign rows added above
			}
		}
	}
	want2 := foreignRows(t, env, ids)

	// Re-apply, remove a node, remove the Layer2 network.
	if ch, _, err := c.Sync(ctx, both); err != nil || len(ch) != 0 {
		t.Fatalf("re-apply: %v %v", err, ch)
	}
	l3two, err := ovntest.Plan(ovntest.Layer3Network(), ovntest.Nodes(3, "zone1")[:2], "zone1")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Sync(ctx, l3two); err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Sync(ctx, topology.Removal("ns2_red")); err != nil {
		t.Fatal(err)
	}
	if got := foreignRows(t, env, ids); got != want2 {
		t.Fatalf("foreign rows changed:\n got %s\nwant %s", got, want2)
	}
	// Removing ns1_blue would delete pod-x, the route and the ACL with their
	// parents: refused, nothing written.
	snap, err := env.Canonical(ctx)
	if err != nil || snap == "" {
		t.Fatalf("reading the NB before the removal: %v", err)
	}
	_, _, err = c.Sync(ctx, topology.Removal("ns1_blue"))
	if !errors.Is(err, ovnnb.ErrInvalidChange) || !strings.Contains(err.Error(), "does not own") {
		t.Fatalf("removal with foreign members: err = %v", err)
	}
	now, err := env.Canonical(ctx)
	if err != nil {
		t.Fatalf("reading the NB after the removal: %v", err)
	}
	if now != snap {
		t.Fatal("a refused removal wrote something")
	}
	out, err = env.Shell(ctx, `
ovn-nbctl lsp-del pod-x
ovn-nbctl lr-route-del ns1_blue_ovn_cluster_router 192.168.77.0/24
ovn-nbctl acl-del ns1_blue_node1
`)
	if err != nil {
		t.Fatal(err, out)
	}
	if _, _, err := c.Sync(ctx, topology.Removal("ns1_blue")); err != nil {
		t.Fatal(err)
	}
	if got := foreignRows(t, env, ids); got != want {
		t.Fatalf("foreign rows changed:\n got %s\nwant %s", got, want)
	}
	if st, err := c.Observe(ctx); err != nil || st.Len() != 0 {
		t.Fatalf("after removing both networks: %v %s", err, st)
	}
}

// Integration test 5: a wrong endpoint, an older schema and a malformed
// plan give clear errors and write nothing.
func TestRealErrors(t *testing.T) {
	env, c := realOVN(t, ovnnb.Config{})
	ctx := context.Background()

	t.Run("wrong endpoint", func(t *testing.T) {
		for _, ep := range []string{"tcp:127.0.0.1:1", "unix:" + env.Dir + "/nope.sock", "http://x", "ssl:127.0.0.1:1"} {
			ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			_, err := ovnnb.Dial(ctx, ovnnb.Config{Endpoints: []string{ep}, Timeout: 2 * time.Second})
			cancel()
			if !errors.Is(err, ovnnb.ErrConnect) || !strings.Contains(err.Error(), strings.TrimPrefix(ep, "unix:")) {
				t.Errorf("%s: err = %v, want ErrConnect naming the endpoint", ep, err)
			}
		}
		// The SB database is not a Northbound database.
		_, err := ovnnb.Dial(ctx, ovnnb.Config{Endpoints: []string{env.SBTCP}, NoReconnect: true})
		if !errors.Is(err, ovnnb.ErrSchema) {
			t.Errorf("SB endpoint: err = %v, want ErrSchema", err)
		}
	})
	t.Run("older schema", func(t *testing.T) {
		for _, tc := range []struct {
			name  string
			alter func(s *schemaDoc)
			want  string
		}{
			{"version 7.0.0", func(s *schemaDoc) { s.Version = "7.0.0" }, "7.0.0"},
			{"no ACL tier column", func(s *schemaDoc) { delete(s.Tables["ACL"].Columns, "tier") }, "tier"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				schema := alteredSchema(t, tc.alter)
				b, err := json.Marshal(schema)
				if err != nil {
					t.Fatal(err)
				}
				srv, err := env.ServeSchema(ctx, b, false)
				if err != nil {
					t.Fatal(err)
				}
				defer srv.Stop()
				_, err = ovnnb.Dial(ctx, ovnnb.Config{Endpoints: []string{srv.Endpoint}, NoReconnect: true})
				if !errors.Is(err, ovnnb.ErrSchema) || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("err = %v, want ErrSchema mentioning %q", err, tc.want)
				}
			})
		}
	})
	t.Run("malformed plan", func(t *testing.T) {
		l3, _ := twoPrimaries(t)
		good := topology.Diff(topology.State{}, l3)
		own := l3.ObjectsOf(topology.KindRouter)[0].OwnedBy()
		tests := []struct {
			name  string
			extra topology.Change
			want  error
			names string
		}{
			{"member of a missing switch", topology.Change{Op: topology.OpCreate, Kind: topology.KindSwitchPort, Key: "p",
				Object: topology.SwitchPort{Owner: own, Name: "p", Switch: "nowhere"}}, ovnnb.ErrInvalidChange, `switch_port "p"`},
			{"reference to a missing load balancer group", topology.Change{Op: topology.OpCreate, Kind: topology.KindSwitch, Key: "s",
				Object: topology.Switch{Owner: own, Name: "s", LoadBalancerGroups: []string{"nope"}}}, ovnnb.ErrInvalidChange, `switch "s"`},
			{"server refuses a value", topology.Change{Op: topology.OpCreate, Kind: topology.KindACL,
				Object: topology.ACL{Owner: own, Switch: "ns1_blue_node1", Direction: topology.ACLToLport, Priority: 40000, Match: "ip4", Action: topology.ACLDrop}},
				ovnnb.ErrTransaction, `create acl`},
			{"bad route prefix", topology.Change{Op: topology.OpCreate, Kind: topology.KindStaticRoute,
				Object: topology.StaticRoute{Owner: own, Router: "ns1_blue_ovn_cluster_router", Prefix: netip.Prefix{}, Nexthop: netip.MustParseAddr("1.2.3.4")}},
				ovnnb.ErrInvalidChange, `create static_route`},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				if tt.extra.Key == "" {
					tt.extra.Key = tt.extra.Object.Key()
				}
				changes := append(append(topology.Changes{}, good...), tt.extra)
				res, err := c.Apply(ctx, changes)
				var ce *ovnnb.ChangeError
				if !errors.Is(err, tt.want) || !errors.As(err, &ce) || !strings.Contains(err.Error(), tt.names) {
					t.Fatalf("err = %v, want %v naming %s", err, tt.want, tt.names)
				}
				if res.Operations != 0 {
					t.Errorf("result %+v after a failure", res)
				}
				if st, err := c.Observe(ctx); err != nil || st.Len() != 0 {
					t.Fatalf("half-written: %v, %d objects", err, st.Len())
				}
			})
		}
	})
	t.Run("cancelled context", func(t *testing.T) {
		l3, _ := twoPrimaries(t)
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		_, err := c.Apply(cctx, topology.Diff(topology.State{}, l3))
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
		if st, err := c.Observe(ctx); err != nil || st.Len() != 0 {
			t.Fatalf("half-written: %v, %d objects", err, st.Len())
		}
	})
}

type schemaDoc = ovsdb.DatabaseSchema

func alteredSchema(t *testing.T, alter func(*schemaDoc)) ovsdb.DatabaseSchema {
	t.Helper()
	s := nbdb.Schema()
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var c ovsdb.DatabaseSchema
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	alter(&c)
	return c
}

// Bounded transactions on the real server: the same end state, in several
// transactions, and then nothing to do.
func TestRealBoundedBatches(t *testing.T) {
	_, c := realOVN(t, ovnnb.Config{MaxOpsPerTransaction: 25})
	ctx := context.Background()
	l3, l2 := twoPrimaries(t)
	both, err := l3.Merge(l2)
	if err != nil {
		t.Fatal(err)
	}
	_, res, err := c.Sync(ctx, both)
	if err != nil {
		t.Fatal(err)
	}
	if res.Transactions < both.Len()/25 {
		t.Fatalf("%d transactions for %d objects at 25 operations each", res.Transactions, both.Len())
	}
	got, err := c.Observe(ctx)
	if err != nil || !got.Equal(both) {
		t.Fatalf("%v\n%s", err, topology.Diff(got, both))
	}
	if ch, r, err := c.Sync(ctx, topology.Removal("ns2_red")); err != nil || r.Operations == 0 || len(ch) == 0 {
		t.Fatalf("bounded removal: %v, %+v", err, r)
	}
	got, err = c.Observe(ctx)
	if err != nil || !got.Equal(l3) {
		t.Fatalf("after bounded removal: %v\n%s", err, topology.Diff(got, l3))
	}
}
