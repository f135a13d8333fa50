package connect

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"net/netip"
	"slices"
	"strings"
	"testing"

	"github.com/udnkit/udnkit/internal/golden"
	"github.com/udnkit/udnkit/ipam"
	"github.com/udnkit/udnkit/netconf/udn"
	"github.com/udnkit/udnkit/topology"
)

// ns1Primaries returns the primary networks of namespace ns1: a (Layer3,
// dual-stack), b (Layer2, dual-stack) and c (Layer3, IPv4 only).
func ns1Primaries() []*udn.Network {
	a, b, c := l3("ns1_a", 1, 1), l2("ns1_b", 2, 2), l3("ns1_c", 3, 3)
	a.Subnets = append(a.Subnets, udn.Subnet{CIDR: pfx("fd00:1::/60"), HostPrefix: 64})
	b.Subnets = append(b.Subnets, udn.Subnet{CIDR: pfx("fd00:2::/60")})
	return []*udn.Network{a, b, c}
}

func planLinks(t *testing.T, in PrimaryLinksInput) topology.State {
	t.Helper()
	s, err := PlanPrimaryLinks(in)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestPrimaryLinksGolden: the rows of ns1's link in ovn-worker's zone
// (each node its own zone) and in a zone holding all three nodes.
func TestPrimaryLinksGolden(t *testing.T) {
	for _, tc := range []struct {
		name, zone string
		nodes      []topology.Node
	}{
		{"interconnect", "ovn-worker", seedNodes()},
		{"one_zone", "z", func() []topology.Node {
			n := seedNodes()
			for i := range n {
				n[i].Zone = "z"
			}
			return n
		}()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := PrimaryLinksInput{Name: "ns1", Networks: ns1Primaries(), Nodes: tc.nodes, Zone: tc.zone}
			s := planLinks(t, in)
			golden.Check(t, "primary_links_"+tc.name+".txt", s.String())
			// Deterministic, whatever the order of the input.
			slices.Reverse(in.Networks)
			slices.Reverse(in.Nodes)
			if again := planLinks(t, in); !again.Equal(s) || again.String() != s.String() {
				t.Error("planning the reversed input differs")
			}
			for o := range s.Objects() {
				if ow := o.OwnedBy(); ow.Controller != ControllerPrimaryLinks || ow.Network != "ns1" {
					t.Errorf("%s owned by %s", topology.Render(o), ow)
				}
				// No port of the link is bound to another chassis: nothing
				// can tunnel between nodes over the link router.
				if p, ok := o.(topology.RouterPort); ok {
					if _, bound := p.Options.Get("requested-chassis"); bound || p.Peer == "" {
						t.Errorf("link port not a local peered port: %s", topology.Render(p))
					}
				}
			}
		})
	}
}

// TestPrimaryLinksFacts checks the rows one by one: the pair of network ID
// n at offset 2n of each block, network side first; the link router's
// routes; each network router's reroutes of the other networks' subnets,
// per family the network has, from its pods' port only.
func TestPrimaryLinksFacts(t *testing.T) {
	s := planLinks(t, PrimaryLinksInput{Name: "ns1", Networks: ns1Primaries(), Nodes: seedNodes(), Zone: "ovn-worker"})
	get := func(k topology.Kind, key string) topology.Object {
		t.Helper()
		o, ok := s.Get(k, key)
		if !ok {
			t.Fatalf("no %s %s in\n%s", k, key, s)
		}
		return o
	}
	get(topology.KindRouter, "primary_links_ns1")
	lp := get(topology.KindRouterPort, "primary_links_ns1-to-ns1_a").(topology.RouterPort)
	np := get(topology.KindRouterPort, "ns1_a-to-primary_links_ns1").(topology.RouterPort)
	if lp.Router != "primary_links_ns1" || !slices.Equal(lp.Networks, []netip.Prefix{pfx("169.254.128.3/31"), pfx("fd96::3/127")}) ||
		lp.MAC != "0a:58:a9:fe:80:03" || lp.Peer != np.Name {
		t.Errorf("a's link side: %s", topology.Render(lp))
	}
	if np.Router != "ns1_a_ovn_cluster_router" || !slices.Equal(np.Networks, []netip.Prefix{pfx("169.254.128.2/31"), pfx("fd96::2/127")}) ||
		np.Peer != lp.Name {
		t.Errorf("a's network side: %s", topology.Render(np))
	}
	if bp := get(topology.KindRouterPort, "ns1_b-to-primary_links_ns1").(topology.RouterPort); bp.Router != "ns1_b_transit_router" ||
		!slices.Equal(bp.Networks, []netip.Prefix{pfx("169.254.128.4/31"), pfx("fd96::4/127")}) || !bp.Options.Equal(topology.NewOptions("requested-tnl-key", "32767")) {
		t.Errorf("b's network side: %s", topology.Render(bp))
	}
	if cp := get(topology.KindRouterPort, "ns1_c-to-primary_links_ns1").(topology.RouterPort); !slices.Equal(cp.Networks, []netip.Prefix{pfx("169.254.128.6/31")}) {
		t.Errorf("c (IPv4 only) network side: %s", topology.Render(cp))
	}
	routes := map[netip.Prefix]netip.Addr{}
	pols := map[string][]string{}
	for o := range s.Objects() {
		switch o := o.(type) {
		case topology.StaticRoute:
			routes[o.Prefix] = o.Nexthop
		case topology.Policy:
			if o.Priority != PrimaryLinkPolicyPriority || o.Action != topology.PolicyReroute || len(o.Nexthops) != 1 {
				t.Errorf("policy %s", topology.Render(o))
			}
			pols[o.Router] = append(pols[o.Router], o.Match+" -> "+o.Nexthops[0].String())
		}
	}
	wantRoutes := map[netip.Prefix]netip.Addr{
		pfx("10.1.0.0/16"): netip.MustParseAddr("169.254.128.2"), pfx("fd00:1::/60"): netip.MustParseAddr("fd96::2"),
		pfx("10.2.0.0/16"): netip.MustParseAddr("169.254.128.4"), pfx("fd00:2::/60"): netip.MustParseAddr("fd96::4"),
		pfx("10.3.0.0/16"): netip.MustParseAddr("169.254.128.6"),
	}
	if len(routes) != len(wantRoutes) {
		t.Errorf("routes %v, want %v", routes, wantRoutes)
	}
	for p, hop := range wantRoutes {
		if routes[p] != hop {
			t.Errorf("route %s via %s, want %s", p, routes[p], hop)
		}
	}
	wantPols := map[string][]string{
		"ns1_a_ovn_cluster_router": {
			`inport == "rtos-ns1_a_ovn-worker" && ip4.dst == 10.2.0.0/16 -> 169.254.128.3`,
			`inport == "rtos-ns1_a_ovn-worker" && ip4.dst == 10.3.0.0/16 -> 169.254.128.3`,
			`inport == "rtos-ns1_a_ovn-worker" && ip6.dst == fd00:2::/60 -> fd96::3`},
		"ns1_b_transit_router": {
			`inport == "trtos-ns1_b_ovn_layer2_switch" && ip4.dst == 10.1.0.0/16 -> 169.254.128.5`,
			`inport == "trtos-ns1_b_ovn_layer2_switch" && ip4.dst == 10.3.0.0/16 -> 169.254.128.5`,
			`inport == "trtos-ns1_b_ovn_layer2_switch" && ip6.dst == fd00:1::/60 -> fd96::5`},
		"ns1_c_ovn_cluster_router": {
			`inport == "rtos-ns1_c_ovn-worker" && ip4.dst == 10.1.0.0/16 -> 169.254.128.7`,
			`inport == "rtos-ns1_c_ovn-worker" && ip4.dst == 10.2.0.0/16 -> 169.254.128.7`},
	}
	for r, want := range wantPols {
		got := slices.Sorted(slices.Values(pols[r]))
		if !slices.Equal(got, want) {
			t.Errorf("%s policies:\n%s\nwant:\n%s", r, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
	if len(pols) != len(wantPols) {
		t.Errorf("policies on %d routers, want %d", len(pols), len(wantPols))
	}
}

// TestPrimaryLinksLifecycle: a network leaving removes exactly its rows;
// a namespace down to one primary network, a zone without nodes and the
// link's removal state delete every row of the link and nothing of
// another link.
func TestPrimaryLinksLifecycle(t *testing.T) {
	nets := ns1Primaries()
	in := PrimaryLinksInput{Name: "ns1", Networks: nets, Nodes: seedNodes(), Zone: "ovn-worker"}
	all := planLinks(t, in)
	two := in
	two.Networks = nets[:2]
	d := topology.Diff(all, planLinks(t, two))
	if _, _, del := d.Count(); del == 0 || del != len(d) {
		t.Fatalf("c leaving: %s", d)
	}
	for _, ch := range d {
		if k := topology.Render(ch.Object); !strings.Contains(k, "ns1_c") && !strings.Contains(k, "10.3.0.0/16") {
			t.Errorf("c leaving touches %s", k)
		}
	}
	one := in
	one.Networks = nets[:1]
	none := in
	none.Zone = "elsewhere"
	x, z := l3("ns2_x", 4, 1), l3("ns2_z", 5, 5)
	other := planLinks(t, PrimaryLinksInput{Name: "ns2", Networks: []*udn.Network{x, z}, Nodes: seedNodes(), Zone: "ovn-worker"})
	both, err := all.Merge(other)
	if err != nil {
		t.Fatal(err)
	}
	for name, gone := range map[string]topology.State{"one network": planLinks(t, one), "no local node": planLinks(t, none),
		"removal": topology.RemovalFor(ControllerPrimaryLinks, "ns1")} {
		d := topology.Diff(both, gone)
		if _, _, del := d.Count(); del != all.Len() || len(d) != del {
			t.Errorf("%s: %d changes, %d deletions, want %d deletions", name, len(d), del, all.Len())
		}
		for _, ch := range d {
			if ch.Object.OwnedBy().Network != "ns1" {
				t.Errorf("%s touches %s", name, topology.Render(ch.Object))
			}
		}
	}
}

func TestPrimaryLinksErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		mod  func(*PrimaryLinksInput)
		want error
	}{
		{"no name", func(in *PrimaryLinksInput) { in.Name = "" }, ErrInvalid},
		{"network without an ID", func(in *PrimaryLinksInput) { in.Networks[1].ID = 0 }, ErrInvalid},
		{"secondary network", func(in *PrimaryLinksInput) { in.Networks[1].Role = udn.RoleSecondary }, ErrInvalid},
		{"localnet network", func(in *PrimaryLinksInput) { in.Networks[1].Topology = udn.TopologyLocalnet }, ErrInvalid},
		{"network without subnets", func(in *PrimaryLinksInput) { in.Networks[1].Subnets = nil }, ErrInvalid},
		{"overlapping networks", func(in *PrimaryLinksInput) { in.Networks[2].Subnets[0].CIDR = pfx("10.1.128.0/17") }, ErrInvalid},
		{"nil network", func(in *PrimaryLinksInput) { in.Networks[1] = nil }, ErrInvalid},
		{"two networks with one ID", func(in *PrimaryLinksInput) { in.Networks[2].ID = in.Networks[0].ID }, ErrInvalid},
		{"network twice", func(in *PrimaryLinksInput) { in.Networks = append(in.Networks, in.Networks[0]) }, ErrInvalid},
		{"block overlapping a subnet", func(in *PrimaryLinksInput) { in.Subnets = []netip.Prefix{pfx("10.1.128.0/18")} }, ErrInvalid},
		{"block overlapping the join subnet", func(in *PrimaryLinksInput) { in.Subnets = []netip.Prefix{pfx("100.65.0.0/18")} }, ErrInvalid},
		{"no block of a network's family", func(in *PrimaryLinksInput) { in.Subnets = []netip.Prefix{pfx("169.254.128.0/19")} }, ErrInvalid},
		{"two blocks of one family", func(in *PrimaryLinksInput) {
			in.Subnets = []netip.Prefix{pfx("169.254.128.0/19"), pfx("169.254.160.0/19"), pfx("fd96::/112")}
		}, ErrInvalid},
		{"block overlapping the masquerade subnet", func(in *PrimaryLinksInput) {
			in.Subnets = []netip.Prefix{pfx("169.254.64.0/19"), pfx("fd96::/112")}
		}, ErrInvalid},
		{"block overlapping a configured masquerade subnet", func(in *PrimaryLinksInput) {
			in.MasqueradeSubnets = []netip.Prefix{pfx("169.254.0.0/16"), pfx("fd69::/112")}
		}, ErrInvalid},
		{"block not a network address", func(in *PrimaryLinksInput) { in.Subnets = []netip.Prefix{pfx("169.254.128.1/19")} }, ErrInvalid},
		{"network ID outside the block", func(in *PrimaryLinksInput) {
			in.Subnets = []netip.Prefix{pfx("169.254.128.0/29"), pfx("fd96::/112")}
			in.Networks[2].ID = 4
		}, ipam.ErrOutOfRange},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := PrimaryLinksInput{Name: "ns1", Networks: ns1Primaries(), Nodes: seedNodes(), Zone: "ovn-worker"}
			tc.mod(&in)
			if _, err := PlanPrimaryLinks(in); !errors.Is(err, tc.want) {
				t.Errorf("got %v, want %v", err, tc.want)
			}
		})
	}
}

func TestPrimaryServiceGroups(t *testing.T) {
	got := PrimaryServiceGroups(ns1Primaries())
	want := map[string][]string{
		"ns1_a": {"ns1_b_clusterSwitchLBGroup", "ns1_c_clusterSwitchLBGroup"},
		"ns1_b": {"ns1_a_clusterSwitchLBGroup", "ns1_c_clusterSwitchLBGroup"},
		"ns1_c": {"ns1_a_clusterSwitchLBGroup", "ns1_b_clusterSwitchLBGroup"},
	}
	for n, w := range want {
		if !slices.Equal(got[n], w) {
			t.Errorf("%s: %v, want %v", n, got[n], w)
		}
	}
	if len(got) != len(want) {
		t.Errorf("%d networks, want %d", len(got), len(want))
	}
}

// TestPrimaryLinksRandom plans random namespaces (Layer3 or Layer2
// networks, IPv4, IPv6 or both, random IDs, zones of one to three nodes)
// and checks the rows against a simple count of what each network needs:
// two ports and a route per subnet, a reroute per local pod port and
// other network's subnet of a family it has, pairs at 2*ID, no two
// link-router addresses equal.
func TestPrimaryLinksRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(5252, 2))
	for i := range 300 {
		var nets []*udn.Network
		ids := r.Perm(ipam.MaxNetworkID)[:2+r.IntN(4)]
		for j, id := range ids {
			n := l3(fmt.Sprintf("ns_n%d", j), id+1, byte(j+1))
			if r.IntN(2) == 0 {
				n = l2(n.Name, n.ID, byte(j+1))
			}
			v6 := udn.Subnet{CIDR: netip.PrefixFrom(netip.AddrFrom16([16]byte{0xfd, 0, 0, byte(j + 1)}), 60)}
			if n.Topology == udn.TopologyLayer3 {
				v6.HostPrefix = 64
			}
			switch r.IntN(3) {
			case 1:
				n.Subnets = append(n.Subnets, v6)
			case 2:
				n.Subnets = []udn.Subnet{v6}
			}
			nets = append(nets, n)
		}
		nodes := seedNodes()
		local := 1 + r.IntN(3)
		for k := range local {
			nodes[k].Zone = "z"
		}
		s, err := PlanPrimaryLinks(PrimaryLinksInput{Name: "ns", Networks: nets, Nodes: nodes, Zone: "z"})
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		want := 1 // the router
		for _, n := range nets {
			want += 2 + len(n.Subnets)
			inports := 1
			if n.Topology == udn.TopologyLayer3 {
				inports = local
			}
			fams := familiesOf(n)
			for _, o := range nets {
				for _, sub := range o.Subnets {
					if o != n && slices.Contains(fams, family(sub.CIDR.Addr())) {
						want += inports
					}
				}
			}
		}
		if s.Len() != want {
			t.Errorf("case %d: %d rows, want %d:\n%s", i, s.Len(), want, s)
		}
		seen := map[netip.Addr]string{}
		for o := range s.Objects() {
			p, ok := o.(topology.RouterPort)
			if !ok {
				continue
			}
			for _, a := range p.Networks {
				if other, dup := seen[a.Addr()]; dup {
					t.Errorf("case %d: %s on %s and %s", i, a, other, p.Name)
				}
				seen[a.Addr()] = p.Name
			}
			if p.Router != "primary_links_ns" {
				continue
			}
			n := nets[slices.IndexFunc(nets, func(n *udn.Network) bool { return strings.HasSuffix(p.Name, "-to-"+n.Name) })]
			for _, a := range p.Networks {
				block := DefaultPrimaryLinkSubnets()[family(a.Addr())]
				if off := addrDiff(block.Addr(), a.Addr()); off != uint64(2*n.ID+1) {
					t.Errorf("case %d: %s of network ID %d at offset %d, want %d", i, a, n.ID, off, 2*n.ID+1)
				}
			}
		}
	}
}

// FuzzPlanPrimaryLinks: any networks (IDs, topologies, subnets, roles) and
// blocks give an error or a plan that planning again repeats; nothing
// panics.
func FuzzPlanPrimaryLinks(f *testing.F) {
	f.Add([]byte{1, 0, 10, 1, 16, 2, 1, 10, 2, 16}, []byte{169, 254, 128, 0, 19}, uint8(2))
	f.Add([]byte{1, 0, 10, 1, 16, 1, 1, 10, 1, 16}, []byte{}, uint8(1))
	f.Fuzz(func(t *testing.T, spec, block []byte, local uint8) {
		var nets []*udn.Network
		for i := 0; i+5 <= len(spec) && len(nets) < 8; i += 5 {
			s := spec[i : i+5]
			n := l3(fmt.Sprintf("ns_n%d", s[0]%6), int(s[0]), 0)
			if s[1]%3 == 1 {
				n = l2(n.Name, n.ID, 0)
			} else if s[1]%3 == 2 {
				n.Role = udn.RoleSecondary
			}
			n.Subnets[0].CIDR = netip.PrefixFrom(netip.AddrFrom4([4]byte{s[2], s[3]}), int(s[4]%33)).Masked()
			nets = append(nets, n)
		}
		in := PrimaryLinksInput{Name: "ns", Networks: nets, Nodes: seedNodes(), Zone: "ovn-worker"}
		if len(block) >= 5 {
			in.Subnets = []netip.Prefix{netip.PrefixFrom(netip.AddrFrom4([4]byte(block[:4])), int(block[4]%33))}
		}
		for k := range int(local % 4) {
			in.Nodes[k].Zone = "ovn-worker"
		}
		s, err := PlanPrimaryLinks(in)
		if err != nil {
			return
		}
		again, err := PlanPrimaryLinks(in)
		if err != nil || !again.Equal(s) {
			t.Fatalf("planning again: %v", err)
		}
	})
}

// TestPrimaryLinksMasquerade: a masquerade subnet clear of the default
// blocks (the reference's former 169.254.169.0/29) plans; one over them
// plans with other blocks.
func TestPrimaryLinksMasquerade(t *testing.T) {
	in := PrimaryLinksInput{Name: "ns1", Networks: ns1Primaries(), Nodes: seedNodes(), Zone: "ovn-worker",
		MasqueradeSubnets: []netip.Prefix{pfx("169.254.169.0/29"), pfx("fd69::/125")}}
	want := planLinks(t, PrimaryLinksInput{Name: "ns1", Networks: ns1Primaries(), Nodes: seedNodes(), Zone: "ovn-worker"})
	if got := planLinks(t, in); !got.Equal(want) {
		t.Errorf("a masquerade subnet clear of the blocks changes the plan:\n%s", topology.Diff(want, got))
	}
	in.MasqueradeSubnets = []netip.Prefix{pfx("169.254.0.0/16"), pfx("fd69::/112")}
	in.Subnets = []netip.Prefix{pfx("192.168.255.0/24"), pfx("fd96::/112")}
	if got := planLinks(t, in); got.Len() != want.Len() {
		t.Errorf("other blocks: %d rows, want %d", got.Len(), want.Len())
	}
}
