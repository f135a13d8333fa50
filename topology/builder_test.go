package topology

import (
	"errors"
	"fmt"
	"net/netip"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/udnkit/udnkit/netconf"
)

// builderObjects returns n routes per node for nodes, and one
// network-wide router.
func builderObjects(nodes []string, n int) []Object {
	own := Owner{Network: "ns_net", Topology: netconf.TopologyLayer3, Role: netconf.RolePrimary}
	out := []Object{Router{Owner: own, Name: "ns_net_r"}}
	for ni, nd := range nodes {
		o := own
		o.Node = nd
		for i := range n {
			a := netip.AddrFrom4([4]byte{10, byte(ni), byte(i >> 8), byte(i)})
			out = append(out, StaticRoute{Owner: o, Router: "ns_net_r", Policy: RouteDstIP, Prefix: host(a), Nexthop: a})
		}
	}
	return out
}

// TestBuilderRuns checks that the Builder's internal runs do not show: the
// order in which objects are added, and whether one partition's objects
// come together, in several runs or in runs larger than a chunk, make no
// difference to the State.
func TestBuilderRuns(t *testing.T) {
	for _, tc := range []struct {
		name    string
		perNode int
	}{
		{"small", 3},
		{"chunk", entryChunk + 5}, // a run moves to a new chunk while open
	} {
		t.Run(tc.name, func(t *testing.T) {
			objs := builderObjects([]string{"a", "b", "c"}, tc.perNode)
			var grouped Builder
			grouped.Add(objs...)
			want, err := grouped.State()
			if err != nil {
				t.Fatal(err)
			}
			if want.Len() != len(objs) {
				t.Fatalf("Len = %d, want %d", want.Len(), len(objs))
			}
			// Interleave the nodes: every object starts a new run.
			var mixed Builder
			for i := range tc.perNode {
				for n := range 3 {
					mixed.Add(objs[1+n*tc.perNode+i])
				}
			}
			mixed.Add(objs[0])
			got, err := mixed.State()
			if err != nil {
				t.Fatal(err)
			}
			if !got.Equal(want) || got.String() != want.String() {
				t.Errorf("interleaved adds give another state")
			}
			if n := len(Diff(want, got)); n != 0 {
				t.Errorf("Diff of the two states has %d changes", n)
			}
		})
	}
}

// TestBuilderReuse checks that adding to a Builder after State leaves the
// State it returned unchanged.
func TestBuilderReuse(t *testing.T) {
	objs := builderObjects([]string{"a"}, 4)
	var b Builder
	b.Add(objs[:3]...)
	first, err := b.State()
	if err != nil {
		t.Fatal(err)
	}
	before := first.String()
	b.Add(objs[3:]...) // reopens node a's partition
	second, err := b.State()
	if err != nil {
		t.Fatal(err)
	}
	if first.String() != before || first.Len() != 3 {
		t.Errorf("the first State changed:\n%s", first)
	}
	if second.Len() != len(objs) {
		t.Errorf("second Len = %d, want %d", second.Len(), len(objs))
	}
}

// TestBuilderDuplicateAcrossRuns checks that an object defined twice in two
// runs of one partition is refused.
func TestBuilderDuplicateAcrossRuns(t *testing.T) {
	objs := builderObjects([]string{"a", "b"}, 2)
	var b Builder
	b.Add(objs...)
	b.Add(objs[1]) // node a again, after node b
	_, err := b.State()
	if !errors.Is(err, ErrConflict) {
		t.Fatalf("err = %v, want ErrConflict", err)
	}
	if want := fmt.Sprintf("%q", objs[1].Key()); !strings.Contains(err.Error(), want) {
		t.Errorf("error %q does not name %s", err, want)
	}
}

// TestCompositeKeys checks the keys of the kinds whose key is built from
// several columns against their documented layout, including zero
// prefixes and addresses, and that the Builder stores the same keys.
func TestCompositeKeys(t *testing.T) {
	own := Owner{Network: "ns_net", Topology: netconf.TopologyLayer3, Role: netconf.RolePrimary}
	for _, tc := range []struct {
		name string
		obj  Object
		want string
	}{
		{"route", StaticRoute{Owner: own, Router: "r", RouteTable: "t", Policy: RouteSrcIP, Prefix: pfx("fd00::/64"), Nexthop: addr("fd00::1")},
			"r|t|src-ip|fd00::/64|fd00::1"},
		{"route zero", StaticRoute{Owner: own, Router: "r"}, "r|||invalid Prefix|"},
		{"policy", Policy{Owner: own, Router: "r", Priority: -7, Match: `inport == "a|b"`}, `r|-7|inport == "a|b"`},
		{"nat", NAT{Owner: own, Router: "r", Type: NATSNAT, LogicalIP: pfx("10.0.0.0/24"), ExternalIP: addr("1.2.3.4"), LogicalPort: "lp", GatewayPort: "gp"},
			"r|snat|10.0.0.0/24|1.2.3.4|lp|gp"},
		{"nat zero", NAT{Owner: own, Router: "r"}, "r||invalid Prefix|||"},
		{"acl port group", ACL{Owner: own, PortGroup: "pg", Tier: 2, Direction: ACLToLport, Priority: 1000, Match: "ip4"},
			"pg:pg|2|to-lport|1000|ip4"},
		{"acl switch", ACL{Owner: own, Switch: "sw", Direction: ACLFromLport, Match: "ip6"}, "ls:sw|0|from-lport|0|ip6"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.obj.Key(); got != tc.want {
				t.Errorf("Key() = %q, want %q", got, tc.want)
			}
			var b Builder
			b.Add(tc.obj)
			s, err := b.State()
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := s.Get(tc.obj.Kind(), tc.want); !ok {
				t.Errorf("the Builder did not store the object under %q", tc.want)
			}
		})
	}
}

// TestPlannedKeys checks that every object a planner adds is stored under
// its Key(), whichever way the planner built the key.
func TestPlannedKeys(t *testing.T) {
	nodes, hs := benchCluster(5, "")
	nodes[1].Zone, nodes[2].Zone = "z", "z" // a zone of two nodes
	var states []State
	plan := func(s State, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		states = append(states, s)
	}
	for _, zone := range []string{"node-0", "z"} {
		for _, in := range benchInputs(2, true, nodes, hs, zone) {
			plan(Plan(in))
		}
	}
	// Primary Layer2 zones hold one node, or none; a secondary Layer2
	// network may have several local nodes.
	for _, zone := range []string{"node-0", "nowhere"} {
		for _, in := range benchInputs(2, false, nodes, hs, zone) {
			plan(Plan(in))
		}
	}
	sec := benchInputs(1, false, nodes, hs, "z")[0]
	sec.Network.Role, sec.TunnelKeys = netconf.RoleSecondary, sec.TunnelKeys[:1]
	plan(Plan(sec))
	l2 := benchInputs(1, false, nodes, hs, "node-0")[0] // one local node
	plan(PlanLegacyLayer2(l2))
	plan(PlanLayer2Upgrade(l2, []string{"node-3"}))
	checked := 0
	for _, s := range states {
		for k, p := range s.parts {
			for _, e := range p.entries {
				if e.key != e.obj.Key() || e.kind != e.obj.Kind() {
					t.Errorf("%v: %s stored under %q, Key() is %q", k, e.kind, e.key, e.obj.Key())
				}
				checked++
			}
		}
	}
	if checked < 100 {
		t.Fatalf("only %d objects planned", checked)
	}
}

// TestBuilderCopy checks that a Builder copied by value after use cannot
// silently lose objects: using the copy panics. (Before, the copy shared
// the original's chunk, and what the original added next overwrote what
// the copy had added.)
func TestBuilderCopy(t *testing.T) {
	objs := builderObjects([]string{"a", "b"}, 3)
	var b Builder
	b.Add(objs[:2]...)
	var c Builder
	reflect.ValueOf(&c).Elem().Set(reflect.ValueOf(&b).Elem()) // c := b, past go vet
	defer func() {
		if recover() == nil {
			t.Error("adding to a copied Builder did not panic")
		}
	}()
	c.Add(objs[2])
}

// TestBuilderClone checks that a clone and its original build
// independently, whatever the order of their adds.
func TestBuilderClone(t *testing.T) {
	objs := builderObjects([]string{"a", "b"}, 3)
	var b Builder
	b.Add(objs[:2]...)
	c := b.Clone()
	c.Add(objs[2:4]...)
	b.Add(objs[4:]...) // would overwrite c's objects in a shared chunk
	sb, err := b.State()
	if err != nil {
		t.Fatal(err)
	}
	sc, err := c.State()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		s    State
		want []Object
	}{{sb, append(slices.Clone(objs[:2]), objs[4:]...)}, {sc, objs[:4]}} {
		var wb Builder
		wb.Add(tc.want...)
		want, err := wb.State()
		if err != nil {
			t.Fatal(err)
		}
		if !tc.s.Equal(want) {
			t.Errorf("built:\n%s\nwant:\n%s", tc.s, want)
		}
	}
}

// TestObjectChanges: the changes between two versions of one thing's rows
// create, update and delete those rows only, across networks and nodes.
func TestObjectChanges(t *testing.T) {
	own := func(network, node string) Owner {
		return Owner{Controller: "pods", Network: network, Topology: netconf.TopologyLayer3, Role: netconf.RolePrimary, Node: node}
	}
	before := []SwitchPort{
		{Owner: own("ns_a", "n1"), Name: "kept", Switch: "s"},
		{Owner: own("ns_a", "n1"), Name: "changed", Switch: "s"},
		{Owner: own("ns_b", "n2"), Name: "gone", Switch: "s"},
	}
	after := []SwitchPort{
		{Owner: own("ns_a", "n1"), Name: "kept", Switch: "s"},
		{Owner: own("ns_a", "n1"), Name: "changed", Switch: "s", Addresses: []string{"dynamic"}},
		{Owner: own("ns_c", "n3"), Name: "new", Switch: "s"},
	}
	ch, err := ObjectChanges(before, after)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Op{}
	for _, c := range ch {
		got[c.Key] = c.Op
	}
	if want := map[string]Op{"changed": OpUpdate, "gone": OpDelete, "new": OpCreate}; !reflect.DeepEqual(got, want) {
		t.Errorf("changes %v, want %v:\n%s", got, want, ch)
	}
	for _, c := range [][2][]SwitchPort{{nil, nil}, {before, before}} {
		if ch, err := ObjectChanges(c[0], c[1]); err != nil || len(ch) != 0 {
			t.Errorf("no change: %v\n%s", err, ch)
		}
	}
	if _, err := ObjectChanges(nil, []SwitchPort{{Name: "no owner"}}); err == nil {
		t.Error("an object without an owner network is no error")
	}
}
