package topology

import (
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The listings of seed 004 ("Static Routes and Logical Route Policies",
// "NAT configuration", "Router to router direct connection"), verbatim but
// for the trailing "<--" comments. They show the subnet as 203.203.0.0/16,
// so the network is planned with that subnet here.
const (
	seedTransitRouterRoutes = `
                10.96.0.1               203.203.0.2 dst-ip
               10.96.0.10               203.203.0.2 dst-ip
               100.65.0.2                100.88.0.6 dst-ip
               100.65.0.3               100.88.0.10 dst-ip
               100.65.0.4               100.88.0.14 dst-ip
           203.203.0.0/16               100.88.0.14 src-ip`
	seedGatewayRouterRoutes = `
           169.254.0.0/17               169.254.0.4 dst-ip rtoe-GR_test12_namespace.scoped_ovn-control-plane
           203.203.0.0/16               100.88.0.13 dst-ip rtotr-GR_test12_namespace.scoped_ovn-control-plane
                0.0.0.0/0                172.18.0.1 dst-ip rtoe-GR_test12_namespace.scoped_ovn-control-plane`
	// The policies, less the four that match EgressIP/EgressService address
	// sets ($a...), which belong to those features, not to the topology.
	seedTransitRouterPolicies = `
      1004 inport == "rtos-test12_namespace.scoped_ovn_layer2_switch" && ip4.dst == 172.18.0.3 /* test12_namespace.scoped_ovn_layer2_switch */         reroute               203.203.0.2
      1004 inport == "rtos-test12_namespace.scoped_ovn_layer2_switch" && ip6.dst == fc00:f853:ccd:e793::3 /* test12_namespace.scoped_ovn_layer2_switch */         reroute           2010:100:200::2
       102 ip4.src == 203.203.0.0/16 && ip4.dst == 100.64.0.0/16           allow
       102 ip4.src == 203.203.0.0/16 && ip4.dst == 203.203.0.0/16           allow
       102 ip6.src == 2010:100:200::/60 && ip6.dst == 2010:100:200::/60           allow
       102 ip6.src == 2010:100:200::/60 && ip6.dst == fd98::/64           allow
       102                                     pkt.mark == 42           allow`
)

const (
	seedSwitch = "test12_namespace.scoped_ovn_layer2_switch"
	seedTR     = "test12_namespace.scoped_transit_router"
	seedGR     = "GR_test12_namespace.scoped_ovn-control-plane"
)

// seedRoutes parses an lr-route-list listing; a prefix without a length is
// a host route.
func seedRoutes(t *testing.T, router, listing string) []StaticRoute {
	t.Helper()
	var out []StaticRoute
	for _, l := range strings.Split(strings.TrimSpace(listing), "\n") {
		f := strings.Fields(l)
		p, err := netip.ParsePrefix(f[0])
		if err != nil {
			a := netip.MustParseAddr(f[0])
			p = netip.PrefixFrom(a, a.BitLen())
		}
		r := StaticRoute{Router: router, Prefix: p, Nexthop: netip.MustParseAddr(f[1]), Policy: RoutePolicy(f[2])}
		if len(f) > 3 {
			r.OutputPort = f[3]
		}
		out = append(out, r)
	}
	return out
}

// seedPolicies parses an lr-policy-list listing: priority, match, action,
// optional next hop.
func seedPolicies(t *testing.T, router, listing string) []Policy {
	t.Helper()
	var out []Policy
	for _, l := range strings.Split(strings.TrimSpace(listing), "\n") {
		l = strings.TrimSpace(l)
		prio, rest, _ := strings.Cut(l, " ")
		p := Policy{Router: router}
		p.Priority, _ = strconv.Atoi(prio)
		rest = strings.TrimSpace(rest)
		for _, act := range []PolicyAction{PolicyReroute, PolicyAllow, PolicyDrop} {
			if i := strings.LastIndex(rest, " "+string(act)); i >= 0 {
				p.Action = act
				if nh := strings.TrimSpace(rest[i+len(act)+1:]); nh != "" {
					p.Nexthops = []netip.Addr{netip.MustParseAddr(nh)}
				}
				p.Match = strings.TrimSpace(rest[:i])
				break
			}
		}
		out = append(out, p)
	}
	return out
}

func routerPort(t *testing.T, s State, name string) RouterPort {
	t.Helper()
	o, ok := s.Get(KindRouterPort, name)
	if !ok {
		t.Fatalf("router port %s not planned", name)
	}
	return o.(RouterPort)
}

func TestSeed004Listings(t *testing.T) {
	s, err := PlanLayer2(seed004Input("203.203.0.0/16"))
	if err != nil {
		t.Fatal(err)
	}
	t.Run("transit router routes", func(t *testing.T) {
		for _, want := range seedRoutes(t, seedTR, seedTransitRouterRoutes) {
			got, ok := s.Get(KindStaticRoute, want.Key())
			if !ok {
				t.Errorf("route %s via %s %s on %s not planned", want.Prefix, want.Nexthop, want.Policy, want.Router)
				continue
			}
			if r := got.(StaticRoute); r.OutputPort != want.OutputPort {
				t.Errorf("route %s: output port %q, want %q", want.Prefix, r.OutputPort, want.OutputPort)
			}
		}
	})
	t.Run("gateway router routes", func(t *testing.T) {
		want := seedRoutes(t, seedGR, seedGatewayRouterRoutes)
		var v4 []string
		for _, o := range s.ObjectsOf(KindStaticRoute) {
			if r := o.(StaticRoute); r.Router == seedGR && r.Prefix.Addr().Is4() {
				v4 = append(v4, r.Prefix.String()+" "+r.Nexthop.String()+" "+string(r.Policy)+" "+r.OutputPort)
			}
		}
		var w []string
		for _, r := range want {
			w = append(w, r.Prefix.String()+" "+r.Nexthop.String()+" "+string(r.Policy)+" "+r.OutputPort)
		}
		slices.Sort(v4)
		slices.Sort(w)
		if !slices.Equal(v4, w) { // exactly these IPv4 routes ("no policies needed")
			t.Errorf("gateway router IPv4 routes\n got %q\nwant %q", v4, w)
		}
	})
	t.Run("transit router policies", func(t *testing.T) {
		// DESIGN names the transit router's switch port trtos-<switch>; the
		// seed's listing predates that name and says rtos-<switch>.
		listing := strings.ReplaceAll(seedTransitRouterPolicies, `"rtos-`, `"trtos-`)
		want := seedPolicies(t, seedTR, listing)
		for _, w := range want {
			got, ok := s.Get(KindPolicy, w.Key())
			if !ok {
				t.Errorf("policy %d %q not planned", w.Priority, w.Match)
				continue
			}
			p := got.(Policy)
			if p.Action != w.Action || !slices.Equal(p.Nexthops, w.Nexthops) {
				t.Errorf("policy %d %q: %s %v, want %s %v", w.Priority, w.Match, p.Action, p.Nexthops, w.Action, w.Nexthops)
			}
		}
		if n := len(s.ObjectsOf(KindPolicy)); n != len(want) {
			t.Errorf("%d policies planned, the seed lists %d (without address-set ones)", n, len(want))
		}
	})
	t.Run("management port SNAT on the transit router", func(t *testing.T) {
		var found bool
		for _, o := range s.ObjectsOf(KindNAT) {
			n := o.(NAT)
			if n.LogicalIP != pfx("203.203.0.0/16") || n.ExternalIP != addr("169.254.0.12") {
				continue
			}
			found = true
			if n.Router != seedTR || n.Type != NATSNAT || n.Match != "eth.dst == 0a:58:cb:cb:00:02" ||
				n.LogicalPort != "trtos-"+seedSwitch || !n.Options.Equal(NewOptions("stateless", "false")) {
				t.Errorf("management SNAT = %s", Render(n))
			}
		}
		if !found {
			t.Error("no SNAT of 203.203.0.0/16 to 169.254.0.12")
		}
	})
	t.Run("peer ports", func(t *testing.T) {
		trtor := routerPort(t, s, "trtor-"+seedGR)
		if trtor.Router != seedTR || trtor.MAC != "0a:58:64:58:00:0d" ||
			!slices.Equal(trtor.Networks, []netip.Prefix{pfx("100.88.0.13/30"), pfx("fd97::8/127")}) ||
			!trtor.Options.Equal(NewOptions("requested-tnl-key", "4")) || trtor.Peer != "rtotr-"+seedGR {
			t.Errorf("trtor port = %s", Render(trtor))
		}
		rtotr := routerPort(t, s, "rtotr-"+seedGR)
		if rtotr.Router != seedGR || rtotr.MAC != "0a:58:64:41:00:04" ||
			!slices.Equal(rtotr.Networks, []netip.Prefix{pfx("100.65.0.4/16"), pfx("100.88.0.14/30"), pfx("fd97::9/127"), pfx("fd99::4/64")}) ||
			!rtotr.Options.Equal(NewOptions("gateway_mtu", "1400")) || rtotr.Peer != "trtor-"+seedGR {
			t.Errorf("rtotr port = %s", Render(rtotr))
		}
		// Remote peers: requested-chassis and the node ID as tunnel key; the
		// per-node /30 and /127 follow DESIGN's formulas.
		w1 := routerPort(t, s, "trtor-GR_test12_namespace.scoped_ovn-worker")
		if !slices.Equal(w1.Networks, []netip.Prefix{pfx("100.88.0.5/30"), pfx("fd97::4/127")}) ||
			!w1.Options.Equal(NewOptions("requested-tnl-key", "2", "requested-chassis", "chassis-w1")) {
			t.Errorf("remote trtor port = %s", Render(w1))
		}
	})
	t.Run("gateway port on the switch", func(t *testing.T) {
		trtos := routerPort(t, s, "trtos-"+seedSwitch)
		if trtos.Router != seedTR || trtos.MAC != "0a:58:cb:cb:00:01" ||
			!slices.Equal(trtos.Networks, []netip.Prefix{pfx("203.203.0.1/16"), pfx("2010:100:200::1/60")}) ||
			len(trtos.Options) != 0 {
			t.Errorf("trtos port = %s", Render(trtos))
		}
		// The reference gives it the network's MTU
		// (secondary_layer2_network_controller_test.go
		// expectedLayer2EgressEntities: gateway_mtu 1400); its request for
		// key 1 is left out, as northd refuses it (see the package doc).
		in := seed004Input("203.203.0.0/16")
		in.Profile = ProfileReference
		ref := routerPort(t, mustPlan(t, PlanLayer2, in), "trtos-"+seedSwitch)
		if !ref.Options.Equal(NewOptions("gateway_mtu", "1400")) {
			t.Errorf("reference profile: trtos port = %s", Render(ref))
		}
		if ll := trtos.LinkLocal(); ll != addr("fe80::858:cbff:fecb:1") {
			t.Errorf("gateway link-local %s, want fe80::858:cbff:fecb:1", ll)
		}
		o, ok := s.Get(KindSwitchPort, "stotr-"+seedSwitch)
		if !ok {
			t.Fatal("stotr- port not planned")
		}
		if sp := o.(SwitchPort); sp.Switch != seedSwitch || sp.Type != PortRouter {
			t.Errorf("stotr port = %s", Render(sp))
		}
	})
}

func TestSeed004LegacyListing(t *testing.T) {
	// Seed 004's "ovn-nbctl show" of the legacy gateway router ports: the GR
	// port on the switch carries the join address, the .1 gateway with the
	// subnet's length, and a MAC derived from the join address.
	in := seed004Input("203.203.0.0/16")
	in.Nodes[0].ID = 3 // the listing's ovn-control-plane has 100.65.0.3
	in.Nodes[2].ID = 4
	s, err := PlanLegacyLayer2(in)
	if err != nil {
		t.Fatal(err)
	}
	p := routerPort(t, s, "rtos-"+seedSwitch)
	if p.Router != seedGR || p.MAC != "0a:58:64:41:00:03" || p.LinkLocal() != addr("fe80::858:64ff:fe41:3") {
		t.Errorf("legacy GR port = %s", Render(p))
	}
	want := []string{"100.65.0.3/16", "2010:100:200::1/60", "203.203.0.1/16", "fd99::3/64"}
	var got []string
	for _, n := range p.Networks {
		got = append(got, n.String())
	}
	slices.Sort(got) // ovn-nbctl lists networks sorted as strings
	if !slices.Equal(got, want) {
		t.Errorf("legacy GR port networks %q, want %q", got, want)
	}
}
