package topology

import (
	"net/netip"
	"slices"
	"strings"
	"testing"

	"github.com/udnkit/udnkit/netconf"
)

// allKinds returns a state with one object of every kind, its set columns
// deliberately unsorted.
func allKinds(t *testing.T) State {
	t.Helper()
	o := Owner{Network: "ns_net", Topology: netconf.TopologyLayer3, Role: netconf.RolePrimary}
	var b Builder
	b.Add(
		ACL{Owner: o, PortGroup: "ns_net_pg", Name: "deny-all", Tier: 2, Direction: ACLToLport, Priority: 1000,
			Match: "ip4.src == $ns_net_as", Action: ACLDrop, Options: Options{{"log-related", "true"}, {"apply-after-lb", "true"}}},
		ACL{Owner: o, Switch: "ns_net_node-a", Tier: 0, Direction: ACLFromLport, Priority: 900, Match: "ip4", Action: ACLPass},
		AddressSet{Owner: o, Name: "ns_net_as", Addresses: []netip.Prefix{pfx("10.0.0.2/32"), pfx("10.0.0.1/32")}},
		LoadBalancer{Owner: o, Name: "ns_net_svc", Protocol: ProtocolTCP, VIPs: []LBVIP{
			{VIP: netip.MustParseAddrPort("10.96.0.20:80"), Backends: []netip.AddrPort{netip.MustParseAddrPort("10.0.0.1:8080")}},
			{VIP: netip.MustParseAddrPort("10.96.0.10:53"), Backends: []netip.AddrPort{netip.MustParseAddrPort("10.0.0.2:53")}}},
			Groups: []string{"ns_net_clusterLBGroup"}, Switches: []string{"ns_net_node-a"}},
		LoadBalancerGroup{Owner: o, Name: "ns_net_clusterLBGroup"},
		PortGroup{Owner: o, Name: "ns_net_pg", Ports: []string{"p2", "p1"}},
		Switch{Owner: o, Name: "ns_net_node-a", LoadBalancerGroups: []string{"ns_net_clusterLBGroup"}},
		SwitchPort{Owner: o, Name: "p1", Switch: "ns_net_node-a", Addresses: []string{"0a:58:0a:00:00:01 10.0.0.1"}},
		SwitchPort{Owner: o, Name: "p2", Switch: "ns_net_node-a", Addresses: []string{"0a:58:0a:00:00:02 10.0.0.2"}},
		Router{Owner: o, Name: "ns_net_r"},
		Policy{Owner: o, Router: "ns_net_r", Priority: 100, Match: "ip4", Action: PolicyReroute,
			Nexthops: []netip.Addr{addr("10.0.0.9"), addr("10.0.0.8")}, Options: Options{{OptPktMark, "1008"}}},
	)
	s, err := b.State()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestModelAllKinds(t *testing.T) {
	s := allKinds(t)
	golden(t, "model_all_kinds.txt", s.String())

	// Creation order: load balancers before their groups, groups before
	// the switch that uses them, switch ports before the port group, and
	// ACLs last; deletes in the reverse order.
	var order []string
	for _, c := range Diff(State{}, s) {
		order = append(order, c.Kind.String())
	}
	want := []string{"address_set", "load_balancer", "load_balancer_group", "switch", "router", "switch_port", "switch_port",
		"port_group", "policy", "acl", "acl"}
	if !slices.Equal(order, want) {
		t.Errorf("create order %q, want %q", order, want)
	}
	order = order[:0]
	for _, c := range Diff(s, Removal("ns_net")) {
		order = append(order, c.Kind.String())
	}
	slices.Reverse(want)
	if !slices.Equal(order, want) {
		t.Errorf("delete order %q, want %q", order, want)
	}

	// Objects hands out copies: changing one changes nothing in the state.
	c := s.Clone()
	for o := range c.Objects() {
		if pg, ok := o.(PortGroup); ok {
			pg.Ports[0] = "changed"
		}
	}
	if !c.Equal(s) || strings.Contains(c.String(), "changed") {
		t.Error("objects handed out share memory with the state")
	}
	// Clone is deep: changing the clone's own objects changes nothing in s.
	changed := 0
	for _, p := range c.parts {
		for _, e := range p.entries {
			if pg, ok := e.obj.(PortGroup); ok {
				pg.Ports[0] = "changed"
				changed++
			}
		}
	}
	if changed == 0 || c.Equal(s) || strings.Contains(s.String(), "changed") {
		t.Errorf("Clone shares memory with the state (%d port groups changed)", changed)
	}
}

func TestDiffColumnsPerKind(t *testing.T) {
	s := allKinds(t)
	edit := func(kind Kind, key string, f func(Object) Object) State {
		var b Builder
		for o := range s.Objects() {
			if o.Kind() == kind && o.Key() == key {
				o = f(o)
			}
			b.Add(o)
		}
		out, err := b.State()
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	tests := []struct {
		kind Kind
		key  string
		f    func(Object) Object
		cols []string
	}{
		{KindACL, (ACL{PortGroup: "ns_net_pg", Tier: 2, Direction: ACLToLport, Priority: 1000, Match: "ip4.src == $ns_net_as"}).Key(),
			func(o Object) Object { a := o.(ACL); a.Action, a.Name = ACLAllowRelated, "x"; return a }, []string{"name", "action"}},
		{KindAddressSet, "ns_net_as", func(o Object) Object {
			a := o.(AddressSet)
			a.Addresses = append(a.Addresses, pfx("10.0.0.3/32"))
			return a
		}, []string{"addresses"}},
		{KindLoadBalancer, "ns_net_svc", func(o Object) Object { l := o.(LoadBalancer); l.Protocol = ProtocolUDP; l.VIPs = l.VIPs[:1]; return l },
			[]string{"protocol", "vips"}},
		{KindLoadBalancer, "ns_net_svc", func(o Object) Object {
			l := o.(LoadBalancer)
			l.Groups, l.Routers = nil, []string{"ns_net_r"}
			return l
		}, []string{ColumnAttachments}},
		{KindPortGroup, "ns_net_pg", func(o Object) Object { g := o.(PortGroup); g.Ports = g.Ports[:1]; return g }, []string{"ports"}},
		{KindSwitchPort, "p1", func(o Object) Object { p := o.(SwitchPort); p.Switch, p.Owner.Node = "other", "node-a"; return p },
			[]string{ColumnSwitch, "external_ids"}},
		{KindPolicy, (Policy{Router: "ns_net_r", Priority: 100, Match: "ip4"}).Key(),
			func(o Object) Object { p := o.(Policy); p.Nexthops = p.Nexthops[:1]; return p }, []string{"nexthops"}},
		{KindRouter, "ns_net_r", func(o Object) Object { r := o.(Router); r.Options = NewOptions("chassis", "c"); return r }, []string{"options"}},
	}
	for _, tt := range tests {
		t.Run(tt.kind.String(), func(t *testing.T) {
			s2 := edit(tt.kind, tt.key, tt.f)
			d := Diff(s, s2)
			if len(d) != 1 || d[0].Op != OpUpdate || d[0].Kind != tt.kind || !slices.Equal(d[0].Columns, tt.cols) {
				t.Fatalf("diff = %s, want one update of %v", d, tt.cols)
			}
			if got, err := Apply(s, d); err != nil || !got.Equal(s2) {
				t.Errorf("apply: %v", err)
			}
		})
	}
}

func TestDiffScopeNodes(t *testing.T) {
	in := layer3Input()
	full := mustPlan(t, PlanLayer3, in)
	in.Nodes = in.Nodes[:1] // both remote nodes gone
	less := mustPlan(t, PlanLayer3, in)
	d := DiffScope(full, less, Scope{Networks: []string{"ns1_blue"}, Nodes: []string{"ovn-worker"}})
	if len(d) == 0 {
		t.Fatal("no changes")
	}
	for _, c := range d {
		if c.Op != OpDelete || c.Object.OwnedBy().Node != "ovn-worker" {
			t.Errorf("scoped to ovn-worker, got %s", c)
		}
	}
	if d := DiffScope(full, less, Scope{Networks: []string{"other"}}); len(d) != 0 {
		t.Errorf("out-of-scope network changed: %s", d)
	}
}

// TestKindsInCreationOrder: Kinds lists every kind that has a descriptor,
// once, in creation order; a parent and a referenced kind come before the
// kinds naming them; Diff creates in that order and deletes in reverse.
func TestKindsInCreationOrder(t *testing.T) {
	kinds := Kinds()
	var want []Kind
	for k := Kind(0); k < kindEnd; k++ {
		if d := k.Descriptor(); d.Name != "" {
			if d.Kind != k {
				t.Errorf("descriptor of kind %d describes %d", k, d.Kind)
			}
			want = append(want, k)
		}
	}
	if len(kinds) != len(want) {
		t.Fatalf("Kinds() = %v, want every one of %v", kinds, want)
	}
	for i, k := range kinds {
		if !slices.Contains(want, k) || k.Order() != i+1 {
			t.Errorf("Kinds()[%d] = %v with Order %d", i, k, k.Order())
		}
		d := k.Descriptor()
		for _, p := range append(slices.Clone(d.Parents), d.Attachments...) {
			if p.Kind.Order() == 0 {
				t.Errorf("%v: holder %v is not a kind", k, p.Kind)
			}
		}
		for _, p := range d.Parents {
			if p.Kind.Order() >= k.Order() {
				t.Errorf("%v (order %d) is created before its parent %v (order %d)", k, k.Order(), p.Kind, p.Kind.Order())
			}
		}
		for _, r := range d.Refs {
			if r.Kind.Order() >= k.Order() {
				t.Errorf("%v (order %d) is created before the %v it references (order %d)", k, k.Order(), r.Kind, r.Kind.Order())
			}
		}
	}
	// Diff's and State's orders are the creation order, whatever the
	// values (want is by value).
	if got := slices.SortedFunc(slices.Values(want), compareKinds); !slices.Equal(got, kinds) {
		t.Errorf("kinds sorted as Diff and State sort them: %v, want %v", got, kinds)
	}
	var creates, deletes Changes
	for _, k := range want {
		creates = append(creates, Change{Op: OpCreate, Kind: k, Key: "k"})
		deletes = append(deletes, Change{Op: OpDelete, Kind: k, Key: "k"})
	}
	slices.SortFunc(creates, compareChanges)
	slices.SortFunc(deletes, compareChanges)
	for i, k := range kinds {
		if creates[i].Kind != k || deletes[len(deletes)-1-i].Kind != k {
			t.Errorf("change %d: create %v and delete %v, want %v", i, creates[i].Kind, deletes[len(deletes)-1-i].Kind, k)
		}
	}
	if Kind(0).Order() != 0 || Kind(255).Order() != 0 || Kind(0).String() != "kind(0)" || Kind(255).String() != "kind(255)" {
		t.Errorf("unknown kinds: Order %d %d, String %q %q", Kind(0).Order(), Kind(255).Order(), Kind(0), Kind(255))
	}
	s := allKinds(t)
	creates = Diff(State{}, s)
	deletes = Diff(s, RemovalFor(ControllerTopology, "ns_net"))
	for i := 1; i < len(creates); i++ {
		if creates[i-1].Kind.Order() > creates[i].Kind.Order() {
			t.Errorf("create %s before %s", creates[i-1], creates[i])
		}
	}
	for i := 1; i < len(deletes); i++ {
		if deletes[i-1].Kind.Order() < deletes[i].Kind.Order() {
			t.Errorf("delete %s before %s", deletes[i-1], deletes[i])
		}
	}
	if len(creates) != s.Len() || len(deletes) != s.Len() {
		t.Errorf("%d creates and %d deletes of %d objects", len(creates), len(deletes), s.Len())
	}
}
