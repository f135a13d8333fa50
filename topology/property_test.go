package topology

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"net/netip"
	"slices"
	"strings"
	"testing"

	"github.com/udnkit/udnkit/ipam"
	"github.com/udnkit/udnkit/netconf"
)

// randomNode returns node i of a random cluster.
func randomNode(i, id int, zone string) Node {
	return Node{Name: fmt.Sprintf("node-%d", i), ID: id, Zone: zone, Chassis: fmt.Sprintf("chassis-%d", i),
		Addresses: []netip.Prefix{netip.PrefixFrom(netip.AddrFrom4([4]byte{172, 18, byte(i >> 8), byte(i)}), 16),
			netip.PrefixFrom(netip.AddrFrom16([16]byte{0xfc, 0, 15: byte(i)}), 64)},
		NextHops: []netip.Addr{netip.MustParseAddr("172.18.255.254"), netip.MustParseAddr("fc00::ffff")}}
}

// randomInput returns a random valid input and the plan function for it.
func randomInput(r *rand.Rand) (Input, func(Input) (State, error), bool) {
	n := &netconf.Network{Name: fmt.Sprintf("ns%d_net%d", r.IntN(5), r.IntN(100)), ID: 1 + r.IntN(ipam.MaxNetworkID)}
	n.Role = netconf.RolePrimary
	if r.IntN(3) == 0 {
		n.Role = netconf.RoleSecondary
	}
	v4, v6 := true, true
	switch r.IntN(3) {
	case 0:
		v6 = false
	case 1:
		v4 = false
	}
	topo := r.IntN(5)
	nodes := 1 + r.IntN(6)
	singleZone := r.IntN(3) == 0
	in := Input{Network: n, HostSubnets: map[string][]netip.Prefix{}}
	plan := PlanLayer3
	legacy := false
	switch topo {
	case 0, 1: // Layer3
		n.Topology = netconf.TopologyLayer3
		if v4 {
			n.Subnets = append(n.Subnets, netconf.Subnet{CIDR: pfx("10.128.0.0/16"), HostPrefix: 24})
		}
		if v6 {
			n.Subnets = append(n.Subnets, netconf.Subnet{CIDR: pfx("fd00:10:128::/48"), HostPrefix: 64})
		}
	case 2, 3: // Layer2
		n.Topology = netconf.TopologyLayer2
		plan = PlanLayer2
		if v4 {
			n.Subnets = append(n.Subnets, netconf.Subnet{CIDR: pfx("203.203.0.0/16")})
		}
		if v6 {
			n.Subnets = append(n.Subnets, netconf.Subnet{CIDR: pfx("2010:100:200::/60")})
		}
		// Keys as a TunnelKeyAllocator hands them out.
		in.TunnelKeys = []int{ipam.DynamicTunnelKeyFirst + 2*r.IntN(1000)}
		if n.IsPrimary() {
			in.TunnelKeys = append(in.TunnelKeys, in.TunnelKeys[0]+1)
			// A primary Layer2 zone holds one node (interconnect).
			singleZone = false
			if r.IntN(2) == 0 {
				in.Layer2, legacy = Layer2Legacy, true
			}
		}
	default:
		n.Topology, n.Role = netconf.TopologyLocalnet, netconf.RoleSecondary
		plan = PlanLocalnet
		n.PhysicalNetworkName, n.VLANID = "physnet-x", r.IntN(4095)
	}
	if n.IsPrimary() {
		n.JoinSubnets, n.TransitSubnets = ipam.DefaultJoinSubnets(), ipam.DefaultTransitSubnets()
	}
	ids := r.Perm(200)
	for i := range nodes {
		zone := ""
		if singleZone {
			zone = "global"
		}
		nd := randomNode(i, ids[i]+ipam.MinNodeID, zone)
		in.Nodes = append(in.Nodes, nd)
		in.HostSubnets[nd.Name] = []netip.Prefix{netip.PrefixFrom(netip.AddrFrom4([4]byte{10, 128, byte(i), 0}), 24),
			netip.PrefixFrom(netip.AddrFrom16([16]byte{0xfd, 0, 0, 0x10, 1, 0x28, 0, byte(i)}), 64)}
	}
	in.Zone = in.Nodes[r.IntN(len(in.Nodes))].Name
	switch {
	case singleZone:
		in.Zone = "global"
	case r.IntN(6) == 0:
		in.Zone = "elsewhere" // a zone that only sees remote nodes
	}
	if r.IntN(2) == 0 {
		in.Cluster.ServiceIPs = []netip.Addr{addr("10.96.0.1"), addr("fd00:10:96::a")}
	}
	return in, plan, legacy
}

// addNode returns in with one more (remote or, in a single zone, local)
// node.
func addNode(in Input) (Input, string) {
	out := in
	out.Nodes = slices.Clone(in.Nodes)
	i := len(in.Nodes)
	zone := in.Nodes[0].Zone
	nd := randomNode(i, 1000+i, zone)
	out.Nodes = append(out.Nodes, nd)
	out.HostSubnets = map[string][]netip.Prefix{}
	for k, v := range in.HostSubnets {
		out.HostSubnets[k] = v
	}
	out.HostSubnets[nd.Name] = []netip.Prefix{netip.PrefixFrom(netip.AddrFrom4([4]byte{10, 128, byte(i), 0}), 24),
		netip.PrefixFrom(netip.AddrFrom16([16]byte{0xfd, 0, 0, 0x10, 1, 0x28, 0, byte(i)}), 64)}
	return out, nd.Name
}

// checkLocalNodes checks that the plan gives a management port to exactly
// the nodes of in.Zone (primary networks), and that a primary Layer2 zone
// has at most one.
func checkLocalNodes(t *testing.T, in Input, s State) {
	t.Helper()
	if !in.Network.IsPrimary() {
		return
	}
	var want, got []string
	for _, nd := range in.Nodes {
		if nd.InZone() == in.Zone {
			want = append(want, "k8s-"+in.Network.Prefix()+nd.Name)
		}
	}
	for o := range s.Objects() {
		if p, ok := o.(SwitchPort); ok && strings.HasPrefix(p.Name, "k8s-") {
			got = append(got, p.Name)
		}
	}
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("management ports %q, want %q (the nodes of zone %q)", got, want, in.Zone)
	}
	if in.Network.Topology == netconf.TopologyLayer2 && len(got) > 1 {
		t.Errorf("primary Layer2 zone %q has %d management ports", in.Zone, len(got))
	}
}

// checkOrder checks that every create comes after the creation of the
// parents it references (or the parent already exists in observed), and
// every delete before the deletion of its parents.
func checkOrder(t *testing.T, observed State, cs Changes) {
	t.Helper()
	created := map[string]bool{}
	deleted := map[string]bool{}
	exists := func(kind Kind, name string) bool {
		if created[kind.String()+" "+name] {
			return true
		}
		_, ok := observed.Get(kind, name)
		return ok
	}
	parents := func(o Object) (out [][2]string) {
		add := func(k Kind, n string) { out = append(out, [2]string{k.String(), n}) }
		switch o := o.(type) {
		case SwitchPort:
			add(KindSwitch, o.Switch)
		case RouterPort:
			add(KindRouter, o.Router)
		case StaticRoute:
			add(KindRouter, o.Router)
		case Policy:
			add(KindRouter, o.Router)
		case NAT:
			add(KindRouter, o.Router)
		case Switch:
			for _, g := range o.LoadBalancerGroups {
				add(KindLoadBalancerGroup, g)
			}
		case Router:
			for _, g := range o.LoadBalancerGroups {
				add(KindLoadBalancerGroup, g)
			}
		}
		return out
	}
	kinds := map[string]Kind{}
	for _, k := range Kinds() {
		kinds[k.String()] = k
	}
	for _, c := range cs {
		switch c.Op {
		case OpCreate:
			for _, p := range parents(c.Object) {
				if !exists(kinds[p[0]], p[1]) {
					t.Errorf("%s before its %s %s exists", c, p[0], p[1])
				}
			}
			created[c.Kind.String()+" "+c.Key] = true
		case OpDelete:
			for _, p := range parents(c.Object) {
				if deleted[p[0]+" "+p[1]] {
					t.Errorf("%s after its %s %s was deleted", c, p[0], p[1])
				}
			}
			deleted[c.Kind.String()+" "+c.Key] = true
		}
	}
}

func TestProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 2026))
	for i := range 300 {
		in, plan, legacy := randomInput(r)
		if legacy && in.Layer2 != Layer2Legacy {
			t.Fatal("a legacy input without its Layer2 mode")
		}
		t.Run(fmt.Sprintf("%d_%s_%s", i, in.Network.Topology, in.Network.Role), func(t *testing.T) {
			s, err := plan(in)
			if err != nil {
				t.Fatal(err)
			}
			checkLocalNodes(t, in, s)
			// Determinism: same input, same state, same text.
			again, err := plan(in)
			if err != nil || !again.Equal(s) || again.String() != s.String() {
				t.Fatal("planning twice gives different states")
			}
			if d := Diff(s, s); len(d) != 0 {
				t.Fatalf("Diff(s, s) = %s", d)
			}
			// Apply(empty, Diff(empty, s)) == s, in a valid order.
			create := Diff(State{}, s)
			checkOrder(t, State{}, create)
			if c, u, d := create.Count(); c != s.Len() || u+d != 0 {
				t.Errorf("Diff(empty, s): %d creates, %d updates, %d deletes for %d objects", c, u, d, s.Len())
			}
			got, err := Apply(State{}, create)
			if err != nil || !got.Equal(s) {
				t.Fatalf("Apply(empty, Diff(empty, s)): %v, equal %v", err, got.Equal(s))
			}
			// Keys are unique across the whole state (the public Builder
			// checks; planners rely on their naming).
			var bb Builder
			for o := range s.Objects() {
				bb.Add(o)
			}
			if rebuilt, err := bb.State(); err != nil || !rebuilt.Equal(s) {
				t.Fatalf("rebuilding the state: %v", err)
			}
			// Clone is deep and equal.
			if c := s.Clone(); !c.Equal(s) || c.String() != s.String() {
				t.Error("Clone differs")
			}
			// Removal deletes everything, children first.
			rm := Diff(s, Removal(in.Network.Name))
			checkOrder(t, s, rm)
			if got, err := Apply(s, rm); err != nil || got.Len() != 0 {
				t.Errorf("removal leaves %d objects (%v)", got.Len(), err)
			}
			if in.Network.Topology == netconf.TopologyLocalnet {
				return
			}
			// Add a node, then remove it.
			in2, name := addNode(in)
			s2, err := plan(in2)
			if err != nil {
				t.Fatal(err)
			}
			add := Diff(s, s2)
			checkOrder(t, s, add)
			got, err = Apply(s, add)
			if err != nil || !got.Equal(s2) {
				t.Fatalf("add node: %v, equal %v", err, got.Equal(s2))
			}
			back, err := Apply(got, Diff(got, s))
			if err != nil || !back.Equal(s) {
				t.Fatalf("remove node: %v, equal %v", err, back.Equal(s))
			}
			for _, c := range add {
				if o := c.Object.OwnedBy(); o.Node != name && o.Node != "" {
					t.Errorf("adding %s changes an object of node %s: %s", name, o.Node, c)
				}
			}
			// Incremental planning gives the same state, on every Layer2
			// topology.
			{
				part, err := PlanNodes(in2, name)
				if err != nil {
					t.Fatal(err)
				}
				inc := s.Overlay(part)
				if !inc.Equal(s2) {
					t.Errorf("s.Overlay(PlanNodes(new node)) differs from a full plan:\n%s", Diff(s2, inc))
				}
				if d := Diff(s, part); d.String() != add.String() {
					t.Errorf("scoped incremental diff differs from the full diff:\n%s\n---\n%s", d, add)
				}
			}
		})
	}
}

func TestDiffScope(t *testing.T) {
	a := mustPlan(t, PlanLayer2, seed004Input("203.203.0.0/24"))
	b := mustPlan(t, PlanLayer3, layer3Input())
	both, err := a.Merge(b)
	if err != nil {
		t.Fatal(err)
	}
	// Desired speaks for ns1_blue only: test12's objects are never touched.
	in := layer3Input()
	in.Nodes = in.Nodes[:2]
	b2 := mustPlan(t, PlanLayer3, in)
	d := Diff(both, b2)
	if len(d) == 0 {
		t.Fatal("no changes")
	}
	for _, c := range d {
		if c.Object.OwnedBy().Network != "ns1_blue" {
			t.Errorf("diff touches another network: %s", c)
		}
	}
	// Objects of no network are never touched either, and a removal only
	// removes its network.
	got, err := Apply(both, Diff(both, Removal("ns1_blue")))
	if err != nil || !got.Equal(a) {
		t.Errorf("removal of ns1_blue: %v, leaves test12 intact: %v", err, got.Equal(a))
	}
	// Two networks whose names give the same object prefix cannot merge.
	if _, err := Removal("ns1_x-y").Merge(Removal("ns1_x.y")); !errors.Is(err, ErrConflict) {
		t.Errorf("merging ns1_x-y with ns1_x.y (same prefix): %v", err)
	}
	if _, err := a.Merge(a.Without("nothing")); err != nil {
		t.Errorf("merging shared partitions: %v", err)
	}
	if _, err := a.Merge(mustPlan(t, PlanLayer2, seed004Input("203.203.0.0/24"))); !errors.Is(err, ErrConflict) {
		t.Errorf("merging a network planned twice: %v", err)
	}
}

func TestDiffUpdateColumns(t *testing.T) {
	in := seed004Input("203.203.0.0/24")
	s := mustPlan(t, PlanLayer2, in)
	in.Network = in.Network.Clone()
	in.Network.MTU = 9000
	s2 := mustPlan(t, PlanLayer2, in)
	d := Diff(s, s2)
	if len(d) != 1 || d[0].Op != OpUpdate || d[0].Key != "rtotr-"+seedGR || !slices.Equal(d[0].Columns, []string{"options"}) {
		t.Fatalf("MTU change: %s", d)
	}
}

func TestApplyErrors(t *testing.T) {
	s := mustPlan(t, PlanLayer2, seed004Input("203.203.0.0/24"))
	o, _ := s.Get(KindSwitch, seedSwitch)
	if _, err := Apply(s, Changes{{Op: OpCreate, Kind: KindSwitch, Key: seedSwitch, Object: o}}); !errors.Is(err, ErrConflict) {
		t.Errorf("create existing: %v", err)
	}
	gone := Switch{Owner: o.OwnedBy(), Name: "nope"}
	if _, err := Apply(s, Changes{{Op: OpDelete, Kind: KindSwitch, Key: "nope", Object: gone}}); !errors.Is(err, ErrNotFound) {
		t.Errorf("delete missing: %v", err)
	}
	if _, err := Apply(s, Changes{{Op: OpUpdate, Kind: KindSwitch, Key: "other", Object: o}}); !errors.Is(err, ErrInvalid) {
		t.Errorf("mismatched key: %v", err)
	}
	var b Builder
	b.Add(Switch{Name: "x"})
	if _, err := b.State(); !errors.Is(err, ErrInvalid) {
		t.Errorf("object without owner: %v", err)
	}
	b = Builder{}
	b.Add(Switch{Owner: Owner{Network: "n"}, Name: "x"}, Switch{Owner: Owner{Network: "n", Node: "a"}, Name: "x"})
	if _, err := b.State(); !errors.Is(err, ErrConflict) {
		t.Errorf("duplicate key: %v", err)
	}
}

func TestOptions(t *testing.T) {
	o := NewOptions("b", "2", "a", "1", "b", "3")
	if o.String() != "{a=1, b=3}" {
		t.Errorf("NewOptions = %s", o)
	}
	if v, ok := o.Get("b"); !ok || v != "3" {
		t.Errorf("Get(b) = %q %v", v, ok)
	}
	if _, ok := o.Get("c"); ok {
		t.Error("Get(c) found")
	}
	p := o.With("c", "x")
	if len(o) != 2 || !p.Equal(OptionsFromMap(map[string]string{"a": "1", "b": "3", "c": "x"})) {
		t.Errorf("With: %s -> %s", o, p)
	}
	if m := p.Map(); len(m) != 3 || m["c"] != "x" {
		t.Errorf("Map = %v", m)
	}
}

func TestEnumsStrings(t *testing.T) {
	for _, k := range Kinds() {
		if k.String() == "" || k.Table() == "" {
			t.Errorf("kind %d has no name or table", k)
		}
	}
	if Kind(99).String() != "kind(99)" || OpUpdate.String() != "update" || PortNormal.String() != "normal" {
		t.Error("enum strings")
	}
}

func TestPlanNodes(t *testing.T) {
	in := layer3Input()
	full := mustPlan(t, PlanLayer3, in)
	part, err := PlanNodes(in, "ovn-worker")
	if err != nil {
		t.Fatal(err)
	}
	if nodes, partial := part.Nodes(); !partial || len(nodes) != 1 || nodes[0] != "ovn-worker" {
		t.Errorf("PlanNodes(remote node) speaks for %q (partial %v), want only ovn-worker", nodes, partial)
	}
	// Diff against an observed state lacking the node creates only its
	// objects; nothing else of the network is touched.
	in2 := in
	in2.Nodes = []Node{in.Nodes[0], in.Nodes[2]}
	without := mustPlan(t, PlanLayer3, in2)
	d := Diff(without, part)
	if got, err := Apply(without, d); err != nil || !got.Equal(full) {
		t.Errorf("Apply(without, Diff(without, PlanNodes)) = full plan: %v %v", err, got.Equal(full))
	}
	if c, u, del := d.Count(); c != 5 || u+del != 0 {
		t.Errorf("adding a remote Layer3 node: %d creates, %d updates, %d deletes; want 5 creates\n%s", c, u, del, d)
	}
	if _, err := full.Merge(part); !errors.Is(err, ErrConflict) {
		t.Errorf("merging a full and an incremental state: %v", err)
	}
	for name, nodes := range map[string][]string{"no nodes": nil, "unknown node": {"ovn-nope"}} {
		if _, err := PlanNodes(in, nodes...); !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: %v", name, err)
		}
	}
	dup := in
	dup.Nodes = slices.Clone(in.Nodes)
	dup.Nodes[1].ID = dup.Nodes[2].ID
	if _, err := PlanNodes(dup, "ovn-worker"); !errors.Is(err, ErrConflict) {
		t.Errorf("colliding node ID: %v", err)
	}
}
