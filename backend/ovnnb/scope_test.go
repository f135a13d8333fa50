package ovnnb

import (
	"context"
	"encoding/json"
	"errors"
	"net/netip"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/ovn-kubernetes/libovsdb/client"
	"github.com/ovn-kubernetes/libovsdb/ovsdb"

	"github.com/udnkit/udnkit/internal/nbrow"
	"github.com/udnkit/udnkit/internal/ovntest"
	"github.com/udnkit/udnkit/topology"
)

// hookClient runs hook once, right after the first transaction it sends
// (Apply's read): a foreign writer between Apply's read and its write.
type hookClient struct {
	client.Client
	n    atomic.Int64
	hook func()
}

func (h *hookClient) Transact(ctx context.Context, ops ...ovsdb.Operation) ([]ovsdb.OperationResult, error) {
	res, err := h.Client.Transact(ctx, ops...)
	if h.n.Add(1) == 1 && h.hook != nil {
		h.hook()
	}
	return res, err
}

// scopeOps plans changes against a snapshot and returns the operations as
// JSON.
func scopeOps(t *testing.T, c *Client, s *snapshot, changes topology.Changes) string {
	t.Helper()
	units, err := c.plan(s, changes)
	if err != nil {
		t.Fatal(err)
	}
	var ops []ovsdb.Operation
	for _, u := range units {
		for _, o := range u.ops {
			ops = append(ops, o.op)
		}
	}
	b, err := json.Marshal(ops)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestRealScopedApply: Apply reads only what its change set concerns, plans
// exactly what a read of every row plans, and keeps the ownership
// guarantees for rows it did not read, also against a writer between its
// read and its write.
func TestRealScopedApply(t *testing.T) {
	env := ovntest.Start(t)
	ctx := context.Background()
	c, _ := monDial(t, env.NBUnix, false)
	two, three := monTwoNetworks(t, 2), monTwoNetworks(t, 3)
	l3two, l3three := two.Without("ns2_red"), three.Without("ns2_red")
	if _, _, err := c.Sync(ctx, two); err != nil {
		t.Fatal(err)
	}
	addNode := topology.Diff(l3two, l3three)
	removeNode := topology.Diff(l3three, l3two)
	shell := func(script string) {
		t.Helper()
		if out, err := env.Shell(ctx, script); err != nil {
			t.Fatal(err, out)
		}
	}
	canonical := func() string {
		t.Helper()
		s, err := env.Canonical(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	// hooked sends c's next transactions through a hook run after the read.
	hooked := func(hook func()) func() {
		orig := c.ovs
		c.ovs = &hookClient{Client: orig, hook: hook}
		return func() { c.ovs = orig }
	}
	newPort := ""
	for _, ch := range addNode {
		if ch.Op == topology.OpCreate && ch.Kind == topology.KindSwitchPort {
			newPort = ch.Key
			break
		}
	}
	if newPort == "" {
		t.Fatal("adding a node creates no switch port")
	}

	t.Run("reads only the rows the change set concerns", func(t *testing.T) {
		full, err := c.read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		update := topology.Diff(l3two, monWithSwitchOption(t, l3two, "k", "v"))
		for _, changes := range []topology.Changes{addNode, update} {
			s, err := c.readFor(ctx, changes)
			if err != nil {
				t.Fatal(err)
			}
			if !s.partial || full.partial {
				t.Fatalf("partial: scoped %v, full %v", s.partial, full.partial)
			}
			n, nf := 0, 0
			for _, t := range snapshotTables {
				n += len(s.rows[t])
				nf += len(full.rows[t])
			}
			if n == 0 || 2*n >= nf {
				t.Fatalf("scoped read %d rows, full read %d", n, nf)
			}
			for _, ch := range changes {
				k := objKey{ch.Kind, ch.Key}
				got, ok := s.owned[k]
				want, wok := full.owned[k]
				if ok != wok || ok && (got.uuid != want.uuid || got.parent != want.parent) {
					t.Errorf("%s: scoped read %+v, full read %+v", describe(k.kind, k.key), got, want)
				}
			}
		}
	})
	t.Run("plans what a full read plans", func(t *testing.T) {
		full, err := c.read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for name, changes := range map[string]topology.Changes{
			"add a node":          addNode,
			"update every switch": topology.Diff(l3two, monWithSwitchOption(t, l3two, "k", "v")),
			"remove ns2_red":      topology.Diff(two.Without("ns1_blue"), topology.Removal("ns2_red")),
		} {
			s, err := c.readFor(ctx, changes)
			if err != nil {
				t.Fatal(err)
			}
			if !s.partial {
				t.Fatalf("%s: not a scoped read", name)
			}
			if got, want := scopeOps(t, c, s, changes), scopeOps(t, c, full, changes); got != want {
				t.Errorf("%s: scoped plan\n%s\nfull plan\n%s", name, got, want)
			}
		}
	})
	t.Run("refuses a name a foreign row has", func(t *testing.T) {
		shell("ovn-nbctl ls-add foreign-ls -- lsp-add foreign-ls " + newPort)
		defer shell("ovn-nbctl ls-del foreign-ls")
		s, err := c.readFor(ctx, addNode)
		if err != nil {
			t.Fatal(err)
		}
		if !s.partial || len(s.byName[topology.KindSwitchPort][newPort]) != 1 {
			t.Fatalf("scoped read (partial %v) does not hold the foreign %s", s.partial, newPort)
		}
		before := canonical()
		_, err = c.Apply(ctx, addNode)
		if !errors.Is(err, ErrInvalidChange) || !strings.Contains(err.Error(), "not owned by udnkit has this name") {
			t.Fatalf("err = %v, want ErrInvalidChange for the foreign name", err)
		}
		if canonical() != before {
			t.Fatal("a refused Apply wrote something")
		}
	})
	t.Run("refuses to delete a parent with a foreign member", func(t *testing.T) {
		if _, err := c.Apply(ctx, addNode); err != nil {
			t.Fatal(err)
		}
		shell("ovn-nbctl lsp-add ns1_blue_node3 pod-x")
		before := canonical()
		_, err := c.Apply(ctx, removeNode)
		if !errors.Is(err, ErrInvalidChange) || !strings.Contains(err.Error(), "does not own") {
			t.Fatalf("err = %v, want ErrInvalidChange for the foreign member", err)
		}
		if canonical() != before {
			t.Fatal("a refused Apply wrote something")
		}
		shell("ovn-nbctl lsp-del pod-x")
	})
	t.Run("a foreign member added after the read is caught", func(t *testing.T) {
		restore := hooked(func() { shell("ovn-nbctl lsp-add ns1_blue_node3 pod-y") })
		_, err := c.Apply(ctx, removeNode)
		restore()
		after := canonical()
		if !errors.Is(err, ErrTransaction) {
			t.Fatalf("err = %v, want ErrTransaction", err)
		}
		if !strings.Contains(after, "pod-y") {
			t.Fatal("the foreign member was deleted")
		}
		shell("ovn-nbctl lsp-del pod-y")
		obs, err := c.Observe(ctx, "ns1_blue")
		if err != nil || len(topology.Diff(obs, l3three)) != 0 {
			t.Fatalf("a failed Apply wrote something: %v %v", err, topology.Diff(obs, l3three))
		}
		if _, err := c.Apply(ctx, removeNode); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("a foreign name taken after the read is caught", func(t *testing.T) {
		restore := hooked(func() { shell("ovn-nbctl ls-add foreign-ls2 -- lsp-add foreign-ls2 " + newPort) })
		_, err := c.Apply(ctx, addNode)
		restore()
		if !errors.Is(err, ErrTransaction) {
			t.Fatalf("err = %v, want ErrTransaction", err)
		}
		obs, err := c.Observe(ctx, "ns1_blue")
		if err != nil || len(topology.Diff(obs, l3two)) != 0 {
			t.Fatalf("a failed Apply wrote something: %v %v", err, topology.Diff(obs, l3two))
		}
		shell("ovn-nbctl ls-del foreign-ls2")
	})
	t.Run("another owner's row under a created key is refused", func(t *testing.T) {
		// A route of the cluster router with the key of a route the node
		// adds, owned by ns1_blue but another node: the scoped read's
		// owner-narrowed select misses it, its probe does not.
		var route topology.StaticRoute
		for _, ch := range addNode {
			if r, ok := ch.Object.(topology.StaticRoute); ok && ch.Op == topology.OpCreate && r.Router == "ns1_blue_ovn_cluster_router" {
				route = r
				break
			}
		}
		if route.Router == "" {
			t.Fatal("adding a node adds no route to the cluster router")
		}
		script := "ovn-nbctl --id=@r create Logical_Router_Static_Route ip_prefix=" + nbrow.IPString(route.Prefix) +
			" nexthop=" + nbrow.AddrString(route.Nexthop) + " external_ids:" + ExtNetwork + "=ns1_blue external_ids:" + ExtNode + "=elsewhere"
		if route.Policy != "" {
			script += " policy=" + string(route.Policy)
		}
		if route.RouteTable != "" {
			script += " route_table=" + route.RouteTable
		}
		script += " -- add Logical_Router " + route.Router + " static_routes @r"
		shell(script)
		defer shell("ovn-nbctl lr-route-del " + route.Router + " " + nbrow.IPString(route.Prefix))
		if _, err := c.readFor(ctx, addNode); !errors.Is(err, errIncomplete) {
			t.Fatalf("scoped read: err = %v, want errIncomplete", err)
		}
		before := canonical()
		_, err := c.Apply(ctx, addNode)
		if !errors.Is(err, ErrInvalidChange) || !strings.Contains(err.Error(), "already exists") {
			t.Fatalf("err = %v, want ErrInvalidChange: already exists", err)
		}
		if canonical() != before {
			t.Fatal("a refused Apply wrote something")
		}
	})
	t.Run("a parent with members the read lacks is planned against every row", func(t *testing.T) {
		if _, err := c.Apply(ctx, addNode); err != nil {
			t.Fatal(err)
		}
		// Deleting the node's switch alone: its ports are udnkit's but not
		// in the change set, so the scoped read lacks them.
		var changes topology.Changes
		for _, ch := range removeNode {
			if ch.Kind == topology.KindSwitch && ch.Key == "ns1_blue_node3" {
				changes = append(changes, ch)
			}
		}
		if len(changes) != 1 {
			t.Fatalf("no deletion of ns1_blue_node3 in %v", removeNode)
		}
		s, err := c.readFor(ctx, changes)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.plan(s, changes); !s.partial || !errors.Is(err, ErrInvalidChange) {
			t.Fatalf("scoped plan: partial %v, err = %v, want ErrInvalidChange", s.partial, err)
		}
		full, err := c.read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		ops, err := c.Operations(ctx, changes)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(ops)
		if want := scopeOps(t, c, full, changes); string(b) != want {
			t.Fatalf("operations\n%s\nwant\n%s", b, want)
		}
		if _, err := c.Apply(ctx, removeNode); err != nil {
			t.Fatal(err)
		}
	})
	if obs, err := c.Observe(ctx); err != nil || len(topology.Diff(obs, two)) != 0 {
		t.Fatalf("end state: %v %v", err, topology.Diff(obs, two))
	}
}

// TestKeyWhereFollowsDescriptors: the columns a scoped read matches an
// unnamed row by are its descriptor's key columns (a NAT's gateway_port,
// a reference, by the probe's gateway port): topology's Key, the adapter
// and the ovn-nbctl renderer agree on every kind's key.
func TestKeyWhereFollowsDescriptors(t *testing.T) {
	own := topology.Owner{Network: "n"}
	for _, o := range []topology.Object{
		topology.StaticRoute{Owner: own, Router: "r", Prefix: netip.MustParsePrefix("10.0.0.0/8")},
		topology.Policy{Owner: own, Router: "r", Priority: 1, Match: "1"},
		topology.NAT{Owner: own, Router: "r", Type: topology.NATSNAT, GatewayPort: "rtoe-x"},
		topology.ACL{Owner: own, Switch: "s", Match: "1"},
	} {
		where, ok := keyWhere(o)
		if !ok {
			t.Fatalf("%v: no key conditions", o.Kind())
		}
		var cols []string
		for _, c := range where {
			cols = append(cols, c.Column)
		}
		for _, k := range refKeysOf(o) { // matched by the probe
			cols = append(cols, k.column)
		}
		slices.Sort(cols)
		want := slices.Sorted(slices.Values(o.Kind().Descriptor().KeyColumns))
		if !slices.Equal(cols, want) {
			t.Errorf("%v: matched by %v, descriptor key columns %v", o.Kind(), cols, want)
		}
	}
}

// TestRealScopedApplyJoinsGroup: load balancers joining the network's
// group are planned on the scoped read, which holds the switches and
// routers that make the group the SDK's (without them the group looks
// foreign and the change set went to a second, full read).
func TestRealScopedApplyJoinsGroup(t *testing.T) {
	env := ovntest.Start(t)
	ctx := context.Background()
	c, _ := monDial(t, env.NBUnix, false)
	topo, err := ovntest.Plan(ovntest.Layer3Network(), ovntest.Nodes(2, "zone1"), "zone1")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Sync(ctx, topo); err != nil {
		t.Fatal(err)
	}
	group := ""
	for _, g := range topo.ObjectsOf(topology.KindLoadBalancerGroup) {
		if strings.HasSuffix(g.Key(), "clusterLBGroup") {
			group = g.Key()
		}
	}
	own := topology.Owner{Controller: "test-services", Network: "ns1_blue", Topology: "Layer3", Role: "Primary"}
	var b topology.Builder
	b.OwnFor(own.Controller, own.Network)
	for i := range 3 {
		b.Add(topology.LoadBalancer{Owner: own, Name: "ns1.blue_Service_ns/web" + string(rune('a'+i)) + "_TCP_cluster", Protocol: topology.ProtocolTCP,
			VIPs:   []topology.LBVIP{{VIP: netip.AddrPortFrom(netip.AddrFrom4([4]byte{10, 96, 0, byte(10 + i)}), 80), Backends: []netip.AddrPort{netip.MustParseAddrPort("10.128.1.5:8080")}}},
			Groups: []string{group}})
	}
	lbs, err := b.State()
	if err != nil {
		t.Fatal(err)
	}
	changes := topology.Diff(topology.RemovalFor(own.Controller, own.Network), lbs)
	s, err := c.readFor(ctx, changes)
	if err != nil {
		t.Fatal(err)
	}
	if !s.partial {
		t.Fatal("not a scoped read")
	}
	if _, err := c.plan(s, changes); err != nil {
		t.Fatalf("planning the load balancers on the scoped read: %v", err)
	}
	if _, err := c.Apply(ctx, changes); err != nil {
		t.Fatal(err)
	}
	got, err := c.Observe(ctx, own.Network)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range got.ObjectsOf(topology.KindLoadBalancer) {
		if lb := o.(topology.LoadBalancer); len(lb.Groups) != 1 || lb.Groups[0] != group {
			t.Errorf("%s: groups %v, want %s", lb.Name, lb.Groups, group)
		}
	}
}
