package ovnnb

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"net/netip"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ovn-kubernetes/libovsdb/model"

	"github.com/udnkit/udnkit/internal/nbdb"
	"github.com/udnkit/udnkit/internal/nbrow"
	"github.com/udnkit/udnkit/netconf"
	"github.com/udnkit/udnkit/topology"
)

// planRows builds the rows a real NB holds for want, members and
// references filled in, as a cache would (UUIDs "u0", "u1", …).
func planRows(tb testing.TB, want topology.State) map[string]map[string]model.Model {
	tb.Helper()
	rows := map[string]map[string]model.Model{}
	for _, t := range snapshotTables {
		rows[t] = map[string]model.Model{}
	}
	uuid := map[objKey]string{}
	var objs []topology.Object
	for _, k := range topology.Kinds() {
		for _, o := range want.ObjectsOf(k) {
			m, err := nbrow.ToRow(o, nil)
			if err != nil {
				tb.Fatal(err)
			}
			u := "u" + strconv.Itoa(len(objs))
			uuid[objKey{k, o.Key()}] = u
			rows[k.Table()][u] = m
			objs = append(objs, o)
		}
	}
	for _, o := range objs {
		m := rows[o.Kind().Table()][uuid[objKey{o.Kind(), o.Key()}]]
		for _, r := range nbrow.NameRefs(o) {
			var us []string
			for _, n := range r.Names {
				us = append(us, uuid[objKey{r.Kind, n}])
			}
			nbrow.SetUUIDs(m, r.Column, us)
		}
		for _, r := range nbrow.AttachmentRefs(o) {
			for _, n := range r.Names {
				pm := rows[r.Table][uuid[objKey{kindOfTable(r.Table), n}]]
				nbrow.SetUUIDs(pm, r.Column, append(nbrow.UUIDs(pm, r.Column), uuid[objKey{o.Kind(), o.Key()}]))
			}
		}
		if pk, pn, ok := nbrow.ParentOf(o); ok {
			pm := rows[pk.Kind.Table()][uuid[objKey{pk.Kind, pn}]]
			nbrow.SetUUIDs(pm, pk.Column, append(nbrow.UUIDs(pm, pk.Column), uuid[objKey{o.Kind(), o.Key()}]))
		}
	}
	return rows
}

// cloneRows copies the table maps (not the models), as cacheRows does.
func cloneRows(rows map[string]map[string]model.Model) map[string]map[string]model.Model {
	out := make(map[string]map[string]model.Model, len(rows))
	for t, r := range rows {
		out[t] = maps.Clone(r)
	}
	return out
}

// fullIndex indexes rows from scratch.
func fullIndex(tb testing.TB, rows map[string]map[string]model.Model) *snapshot {
	tb.Helper()
	s := newSnapshot()
	s.rows = rows
	if err := s.index(); err != nil {
		tb.Fatal(err)
	}
	return s
}

// recordedIndex indexes rows from scratch with the records a derivation
// starts from (what derive does from a snapshot without them).
func recordedIndex(tb testing.TB, rows map[string]map[string]model.Model) *snapshot {
	tb.Helper()
	s := newSnapshot()
	s.rows = rows
	if err := s.derive(nil); err != nil {
		tb.Fatal(err)
	}
	if !s.hasRecords() {
		tb.Fatal("derive(nil) kept no records")
	}
	return s
}

// derived indexes rows from prev.
func derived(tb testing.TB, prev *snapshot, rows map[string]map[string]model.Model) *snapshot {
	tb.Helper()
	s := newSnapshot()
	s.rows = rows
	if err := s.derive(prev); err != nil {
		tb.Fatal(err)
	}
	return s
}

// sameIndex reports how a (derived) differs from b (built from scratch).
func sameIndex(a, b *snapshot) error {
	sorted := func(m map[topology.Kind]map[string][]string) map[topology.Kind]map[string][]string {
		out := map[topology.Kind]map[string][]string{}
		for k, ns := range m {
			if len(ns) == 0 {
				continue
			}
			out[k] = map[string][]string{}
			for n, us := range ns {
				out[k][n] = slices.Sorted(slices.Values(us))
			}
		}
		return out
	}
	refs := func(m map[string][]lbgRef) map[string][]lbgRef {
		out := map[string][]lbgRef{}
		for g, rs := range m {
			rs = slices.Clone(rs)
			slices.SortFunc(rs, func(x, y lbgRef) int { return strings.Compare(x.uuid, y.uuid) })
			out[g] = rs
		}
		return out
	}
	uuids := func(os []observed) []string {
		var out []string
		for _, o := range os {
			out = append(out, o.uuid)
		}
		slices.Sort(out)
		return out
	}
	for _, c := range []struct {
		what string
		x, y any
	}{
		{"owned", a.owned, b.owned},
		{"name", a.name, b.name},
		{"byName", sorted(a.byName), sorted(b.byName)},
		{"gcs", a.gcs, b.gcs},
		{"mine", a.mine, b.mine},
		{"extras", uuids(a.extras), uuids(b.extras)},
		{"broken networks", slices.Sorted(maps.Keys(a.broken)), slices.Sorted(maps.Keys(b.broken))},
		{"lbgRefs", refs(a.lbgRefs), refs(b.lbgRefs)},
		{"nets", a.nets, b.nets},
		{"byNet", a.ix.byNet, b.ix.byNet},
	} {
		if !reflect.DeepEqual(c.x, c.y) {
			return fmt.Errorf("%s differ:\nderived %v\nfull    %v", c.what, c.x, c.y)
		}
	}
	for _, c := range []struct {
		what string
		x, y any
	}{
		{"in", a.ix.in, b.ix.in},
		{"cands", a.ix.cands, b.ix.cands},
	} {
		if !a.hasRecords() || !b.hasRecords() {
			break // index's own: no records to compare
		}
		if !reflect.DeepEqual(c.x, c.y) {
			return fmt.Errorf("%s differ:\nderived %v\nfull    %v", c.what, c.x, c.y)
		}
	}
	if len(a.extra) != len(b.extra) {
		return fmt.Errorf("extra differ: %v, %v", a.extra, b.extra)
	}
	if len(b.broken) > 0 {
		return nil // Observe fails: no State to compare
	}
	sa, err := a.state(nil)
	if err != nil {
		return fmt.Errorf("derived state: %v", err)
	}
	sb, err := b.state(nil)
	if err != nil {
		return fmt.Errorf("full state: %v", err)
	}
	if d := topology.Diff(sb, sa); len(d) > 0 {
		return fmt.Errorf("derived state differs from the full one: %v", d)
	}
	return nil
}

// mutateRows changes rows as monitor updates would (each changed row a new
// model; the table maps copied), one random change of n; it returns a
// description.
func mutateRows(rng *rand.Rand, rows map[string]map[string]model.Model, n int) string {
	tables := slices.Collect(maps.Keys(rows))
	slices.Sort(tables)
	pick := func(t string) (string, model.Model) {
		us := slices.Sorted(maps.Keys(rows[t]))
		if len(us) == 0 {
			return "", nil
		}
		u := us[rng.IntN(len(us))]
		return u, rows[t][u]
	}
	anyRow := func() (string, string, model.Model) {
		for {
			t := tables[rng.IntN(len(tables))]
			if u, m := pick(t); m != nil {
				return t, u, m
			}
		}
	}
	set := func(t, u string, m model.Model) { rows[t][u] = m }
	fresh := "n" + strconv.Itoa(n)
	switch rng.IntN(9) {
	case 0: // delete a row, leaving references to it
		t, u, _ := anyRow()
		delete(rows[t], u)
		return "delete " + t + " " + u
	case 1: // delete a row and its references
		t, u, _ := anyRow()
		delete(rows[t], u)
		for pt, rs := range rows {
			for pu, pm := range rs {
				for _, c := range refColumns[pt] {
					if us := nbrow.UUIDs(pm, c); slices.Contains(us, u) {
						cp := model.Clone(pm)
						nbrow.SetUUIDs(cp, c, slices.DeleteFunc(slices.Clone(us), func(x string) bool { return x == u }))
						set(pt, pu, cp)
						pm = cp
					}
				}
			}
		}
		return "delete with references " + t + " " + u
	case 2: // rename
		t, u, m := anyRow()
		cp := model.Clone(m)
		if !setName(cp, "renamed-"+fresh) {
			return "nothing"
		}
		set(t, u, cp)
		return "rename " + t + " " + u
	case 3: // disown, or move to another network, node or controller
		t, u, m := anyRow()
		ids := rowIDs(m)
		if ids == nil {
			return "nothing"
		}
		ids = maps.Clone(ids)
		switch rng.IntN(4) {
		case 0:
			delete(ids, ExtNetwork)
		case 1:
			ids[ExtNetwork] = "other-" + strconv.Itoa(rng.IntN(2))
		case 2:
			ids[ExtNode] = "node-" + strconv.Itoa(rng.IntN(2))
		default:
			ids[ExtController] = "other-controller-" + strconv.Itoa(rng.IntN(2))
		}
		cp := model.Clone(m)
		setIDs(cp, ids)
		set(t, u, cp)
		return "owner of " + t + " " + u
	case 4: // a duplicate, held by the same parents
		t, u, m := anyRow()
		cp := model.Clone(m)
		set(t, fresh, cp)
		for pt, rs := range rows {
			for pu, pm := range rs {
				for _, c := range nbrow.MemberColumns(pt) {
					if us := nbrow.UUIDs(pm, c); slices.Contains(us, u) {
						pcp := model.Clone(pm)
						nbrow.SetUUIDs(pcp, c, append(slices.Clone(us), fresh))
						set(pt, pu, pcp)
						pm = pcp
					}
				}
			}
		}
		return "duplicate " + t + " " + u
	case 5: // drop or add a reference
		t, u, m := anyRow()
		cols := refColumns[t]
		if len(cols) == 0 {
			return "nothing"
		}
		c := cols[rng.IntN(len(cols))]
		us := slices.Clone(nbrow.UUIDs(m, c))
		if len(us) > 0 && rng.IntN(2) == 0 {
			us = slices.Delete(us, 0, 1)
		} else {
			// Any row, of the right table or not (the server would
			// refuse the latter; the index must not care).
			_, x, _ := anyRow()
			us = append(us, x)
		}
		cp := model.Clone(m)
		nbrow.SetUUIDs(cp, c, us)
		set(t, u, cp)
		return "references of " + t + " " + u + " " + c
	case 6: // a gateway chassis changes, or a new unowned row
		if u, m := pick(nbdb.GatewayChassisTable); m != nil && rng.IntN(2) == 0 {
			cp := model.Clone(m).(*nbdb.GatewayChassis)
			cp.Priority++
			set(nbdb.GatewayChassisTable, u, cp)
			return "gateway chassis " + u
		}
		set(nbdb.LogicalSwitchTable, fresh, &nbdb.LogicalSwitch{UUID: fresh, Name: "foreign-" + fresh})
		return "foreign switch " + fresh
	case 7: // a malformed row
		t, u, m := anyRow()
		lsp, ok := m.(*nbdb.LogicalRouterPort)
		if !ok {
			return "nothing"
		}
		cp := model.Clone(lsp).(*nbdb.LogicalRouterPort)
		cp.Networks = []string{"not-a-prefix"}
		set(t, u, cp)
		return "malformed " + u
	default: // the same row, another model (an update of an unread column)
		t, u, m := anyRow()
		set(t, u, model.Clone(m))
		return "touch " + t + " " + u
	}
}

// withServices adds to plan, for each network, a load balancer attached
// to its switches and groups, a port group of its switch ports with an
// ACL, an address set and a QoS rule on a switch: rows whose owners and
// names come from others.
func withServices(tb testing.TB, plan topology.State) topology.State {
	tb.Helper()
	var b topology.Builder
	for _, k := range topology.Kinds() {
		for _, o := range plan.ObjectsOf(k) {
			b.Add(o)
		}
	}
	nets := map[string]topology.Owner{}
	switches := map[string][]string{}
	ports := map[string][]string{}
	groups := map[string][]string{}
	for _, o := range plan.ObjectsOf(topology.KindSwitch) {
		n := o.OwnedBy().Network
		nets[n] = o.OwnedBy()
		switches[n] = append(switches[n], o.Key())
	}
	for _, o := range plan.ObjectsOf(topology.KindSwitchPort) {
		n := o.OwnedBy().Network
		ports[n] = append(ports[n], o.Key())
	}
	for _, o := range plan.ObjectsOf(topology.KindLoadBalancerGroup) {
		n := o.OwnedBy().Network
		groups[n] = append(groups[n], o.Key())
	}
	for _, n := range slices.Sorted(maps.Keys(nets)) {
		own := nets[n]
		b.Add(topology.LoadBalancer{Owner: own, Name: n + "_lb", Protocol: "tcp",
			VIPs:     []topology.LBVIP{{VIP: netip.MustParseAddrPort("10.96.0.1:80"), Backends: []netip.AddrPort{netip.MustParseAddrPort("10.0.0.5:8080")}}},
			Switches: switches[n][:min(2, len(switches[n]))], Groups: groups[n][:min(1, len(groups[n]))]})
		pg := topology.PortGroup{Owner: own, Name: strings.ReplaceAll(n, "_", "") + "pg", Ports: ports[n][:min(3, len(ports[n]))]}
		b.Add(pg)
		b.Add(topology.ACL{Owner: own, PortGroup: pg.Name, Direction: "to-lport", Priority: 1000, Match: "ip4", Action: "allow"})
		b.Add(topology.AddressSet{Owner: own, Name: n + "_as", Addresses: []netip.Prefix{netip.MustParsePrefix("10.0.0.1/32")}})
		b.Add(topology.QoS{Owner: own, Switch: switches[n][0], Direction: "to-lport", Priority: 100, Match: "ip4", Action: topology.IntOptions{{Key: topology.QoSDSCP, Value: 10}}})
	}
	out, err := b.State()
	if err != nil {
		tb.Fatal(err)
	}
	return out
}

// addGatewayChassis gives each owned router port a gateway chassis row.
func addGatewayChassis(rows map[string]map[string]model.Model) {
	for _, u := range slices.Sorted(maps.Keys(rows[nbdb.LogicalRouterPortTable])) {
		m := rows[nbdb.LogicalRouterPortTable][u].(*nbdb.LogicalRouterPort)
		g := "gc-" + u
		rows[nbdb.GatewayChassisTable][g] = &nbdb.GatewayChassis{UUID: g, Name: m.Name + "-chassis1", ChassisName: "chassis1", Priority: 1}
		m.GatewayChassis = append(m.GatewayChassis, g)
	}
}

func setName(m model.Model, n string) bool {
	switch r := m.(type) {
	case *nbdb.LogicalSwitch:
		r.Name = n
	case *nbdb.LogicalRouter:
		r.Name = n
	case *nbdb.LogicalSwitchPort:
		r.Name = n
	case *nbdb.LogicalRouterPort:
		r.Name = n
	case *nbdb.LoadBalancer:
		r.Name = n
	case *nbdb.LoadBalancerGroup:
		r.Name = n
	case *nbdb.PortGroup:
		r.Name = n
	case *nbdb.AddressSet:
		r.Name = n
	default:
		return false
	}
	return true
}

func setIDs(m model.Model, ids map[string]string) {
	v := reflect.ValueOf(m).Elem().FieldByName("ExternalIDs")
	if v.IsValid() {
		v.Set(reflect.ValueOf(ids))
	}
}

// TestDeriveProperty: after random changes (a few at a time, as update
// notifications bring them), the index derived from the previous
// snapshot equals the index of the same rows built from scratch.
// UDNKIT_PROPERTY_SEEDS raises the number of seeds.
func TestDeriveProperty(t *testing.T) {
	seeds := 20
	if v, err := strconv.Atoi(os.Getenv("UDNKIT_PROPERTY_SEEDS")); err == nil && v > 0 {
		seeds = v
	}
	base := planRows(t, withServices(t, monBigPlan(t, 3, 4)))
	for _, tb := range []string{nbdb.LoadBalancerTable, nbdb.PortGroupTable, nbdb.ACLTable, nbdb.AddressSetTable, nbdb.LoadBalancerGroupTable, nbdb.QoSTable} {
		if len(base[tb]) == 0 {
			t.Fatalf("no %s row in the rows", tb)
		}
	}
	addGatewayChassis(base)
	for seed := range seeds {
		rng := rand.New(rand.NewPCG(uint64(seed), 21))
		rows := cloneRows(base)
		prev := recordedIndex(t, rows)
		if _, err := prev.state(nil); err != nil {
			t.Fatal(err)
		}
		var log []string
		for step := range 30 {
			rows = cloneRows(rows)
			for range 1 + rng.IntN(3) {
				log = append(log, mutateRows(rng, rows, seed*1000+len(log)))
			}
			// sameIndex reads the State of the snapshot it checks, which
			// memoises it: the one carried to the next step is derived
			// apart, its States memoised one step in three (else the
			// carrying of memoised States would be all the next step
			// ever saw).
			// Against both builds from scratch: index's (another
			// implementation of the rules) and, records included,
			// derive's own.
			if err := sameIndex(derived(t, prev, rows), fullIndex(t, rows)); err != nil {
				t.Fatalf("seed %d, step %d, after %s:\n%v", seed, step, strings.Join(log, "; "), err)
			}
			if err := sameIndex(derived(t, prev, rows), recordedIndex(t, rows)); err != nil {
				t.Fatalf("seed %d, step %d, after %s, against the recorded build:\n%v", seed, step, strings.Join(log, "; "), err)
			}
			s := derived(t, prev, rows)
			if step%3 == 0 {
				_, _ = s.state(nil) // memoised States carried to the next
			}
			prev = s
		}
	}
}

// TestDeriveTouchesOnlyChangedRows: an update of one row re-indexes that
// row and its neighbours (the rows it references and that reference it),
// not the table; an unchanged cache re-indexes nothing; and the State of
// every part (controller, network, node) but the port's is carried over,
// not rebuilt.
func TestDeriveTouchesOnlyChangedRows(t *testing.T) {
	rows := planRows(t, monBigPlan(t, 20, 10))
	total := 0
	for _, r := range rows {
		total += len(r)
	}
	s0 := recordedIndex(t, rows)
	if s0.ix.reindexed < total {
		t.Fatalf("a full index converted %d rows of %d", s0.ix.reindexed, total)
	}
	st0, err := s0.state(nil)
	if err != nil {
		t.Fatal(err)
	}
	if s := derived(t, s0, cloneRows(rows)); s.ix.reindexed != 0 {
		t.Fatalf("an unchanged cache re-indexed %d rows", s.ix.reindexed)
	}
	// A switch port's addresses change (one update of one row).
	next := cloneRows(rows)
	var u string
	var lsp *nbdb.LogicalSwitchPort
	for _, x := range slices.Sorted(maps.Keys(next[nbdb.LogicalSwitchPortTable])) {
		m := next[nbdb.LogicalSwitchPortTable][x].(*nbdb.LogicalSwitchPort)
		if _, ok := ownerOf(m.ExternalIDs); ok && m.Type == "" {
			u, lsp = x, model.Clone(m).(*nbdb.LogicalSwitchPort)
			break
		}
	}
	if lsp == nil {
		t.Fatal("no owned switch port")
	}
	lsp.Addresses = []string{"0a:58:0a:00:00:09 10.0.0.9"}
	next[nbdb.LogicalSwitchPortTable][u] = lsp
	s1 := derived(t, s0, next)
	// The port and its switch (and any port group holding it).
	if s1.ix.reindexed < 1 || s1.ix.reindexed > 4 {
		t.Fatalf("one changed port re-indexed %d rows of %d", s1.ix.reindexed, total)
	}
	if err := sameIndex(s1, fullIndex(t, next)); err != nil {
		t.Fatal(err)
	}
	st1, err := s1.state(nil)
	if err != nil {
		t.Fatal(err)
	}
	if d := topology.Diff(st0, st1); len(d) != 1 || d[0].Key != lsp.Name {
		t.Fatalf("the change read back as %v", d)
	}
	own, _ := ownerOf(lsp.ExternalIDs)
	changedPart := part{own.Network, canonController(own.Controller), own.Node}
	s1.memo.Lock()
	defer s1.memo.Unlock()
	if len(s1.netState) != len(s1.ix.byNet) || len(s1.netState) < 2 {
		t.Fatalf("%d part States for %d parts", len(s1.netState), len(s1.ix.byNet))
	}
	for p := range s1.ix.byNet {
		s0.memo.Lock()
		a, b := s0.netState[p], s1.netState[p]
		s0.memo.Unlock()
		if same := reflect.ValueOf(a).FieldByName("parts").Pointer() == reflect.ValueOf(b).FieldByName("parts").Pointer(); (p == changedPart) == same {
			t.Errorf("part %v: State carried over %v, it changed %v", p, same, p == changedPart)
		}
	}
	for _, n := range s1.nets {
		s0.memo.Lock()
		a, b := s0.netMerged[n], s1.netMerged[n]
		s0.memo.Unlock()
		if same := reflect.ValueOf(a).FieldByName("parts").Pointer() == reflect.ValueOf(b).FieldByName("parts").Pointer(); (n == own.Network) == same {
			t.Errorf("network %s: State carried over %v, it changed %v", n, same, n == own.Network)
		}
	}
}

// TestLBGOwnerOrder: a group whose referrers agree on controller and
// network but not on the rest of the owner reads back the same owner
// whatever the order of its referrers (a map's in a full index, the
// updates' in a derived one).
func TestLBGOwnerOrder(t *testing.T) {
	a := lbgRef{topology.Owner{Network: "n", Topology: netconf.TopologyLayer3, Role: netconf.RolePrimary}, true, "u1"}
	b := lbgRef{topology.Owner{Network: "n", Topology: netconf.TopologyLayer3, Role: netconf.RoleSecondary}, true, "u2"}
	o1, ok1 := lbgOwner([]lbgRef{a, b})
	o2, ok2 := lbgOwner([]lbgRef{b, a})
	if !ok1 || !ok2 || o1 != o2 || o1 != a.owner {
		t.Fatalf("owner %v (%v) one way, %v (%v) the other; want %v", o1, ok1, o2, ok2, a.owner)
	}
	if _, ok := lbgOwner([]lbgRef{a, {topology.Owner{Network: "m"}, true, "u0"}}); ok {
		t.Fatal("a group of two networks is owned")
	}
}

// TestDeriveFromIndex: a snapshot built by index (no records) is derived
// from by building the next one from scratch with its records, and a
// derivation from that one is incremental again; index itself hands rows
// it has no rule for (duplicates, a malformed owned row) to derive's.
func TestDeriveFromIndex(t *testing.T) {
	rows := planRows(t, monBigPlan(t, 4, 3))
	s0 := fullIndex(t, rows)
	if s0.hasRecords() {
		t.Fatal("index kept records")
	}
	next := cloneRows(rows)
	rng := rand.New(rand.NewPCG(7, 7))
	mutateRows(rng, next, 1)
	s1 := derived(t, s0, next)
	if !s1.hasRecords() {
		t.Fatal("a derivation from a snapshot without records kept none")
	}
	if err := sameIndex(s1, fullIndex(t, next)); err != nil {
		t.Fatal(err)
	}
	third := cloneRows(next)
	mutateRows(rng, third, 2)
	s2 := derived(t, s1, third)
	total := 0
	for _, r := range third {
		total += len(r)
	}
	if s2.ix.reindexed >= total {
		t.Fatalf("the derivation from a recorded snapshot re-indexed every row (%d)", s2.ix.reindexed)
	}
	if err := sameIndex(s2, recordedIndex(t, third)); err != nil {
		t.Fatal(err)
	}

	// A duplicate of an owned switch: index defers to derive's rules.
	dup := cloneRows(rows)
	for u, m := range dup[nbdb.LogicalSwitchTable] {
		ls := model.Clone(m).(*nbdb.LogicalSwitch)
		if _, ok := ownerOf(ls.ExternalIDs); !ok {
			continue
		}
		ls.UUID = u + "-dup"
		ls.Ports = nil
		dup[nbdb.LogicalSwitchTable][ls.UUID] = ls
		break
	}
	sd := fullIndex(t, dup)
	if !sd.hasRecords() || len(sd.extras) != 1 {
		t.Fatalf("index of a duplicate: records %v, %d extras", sd.hasRecords(), len(sd.extras))
	}
	if err := sameIndex(sd, recordedIndex(t, dup)); err != nil {
		t.Fatal(err)
	}

	// An owned router port that cannot be read back: the same.
	bad := cloneRows(rows)
	for u, m := range bad[nbdb.LogicalRouterPortTable] {
		lrp := model.Clone(m).(*nbdb.LogicalRouterPort)
		if _, ok := ownerOf(lrp.ExternalIDs); !ok {
			continue
		}
		lrp.Networks = []string{"not-a-prefix"}
		bad[nbdb.LogicalRouterPortTable][u] = lrp
		break
	}
	sb := fullIndex(t, bad)
	if !sb.hasRecords() || len(sb.broken) != 1 {
		t.Fatalf("index of a malformed row: records %v, %d broken networks", sb.hasRecords(), len(sb.broken))
	}
	if err := sameIndex(sb, recordedIndex(t, bad)); err != nil {
		t.Fatal(err)
	}
}
