package topology

import (
	"errors"
	"net/netip"
	"slices"
	"strings"
	"testing"

	"github.com/udnkit/udnkit/ipam"
	"github.com/udnkit/udnkit/netconf"
)

// TestReferenceGatewayRows holds the rows and options the reference's own
// tests expect of a primary network's node (OVN-Kubernetes at the version
// REFERENCE.md names, 8871cd9: go-controller/pkg/ovn/
// layer3_user_defined_network_controller_test.go and
// layer2_user_defined_network_controller_test.go, whose helpers are named in
// each case; gateway.go, base_network_controller.go and
// zone_interconnect/zone_ic_handler.go write them), on the Layer3 example
// (network ID 2, node ovn-control-plane, join 100.65.0.4, masquerade IPs
// 169.254.0.13/.14) and seed 004's Layer2 one (network ID 1).
//
// The gateway router's options and the etor- port's are those of the
// reference since its commits fba86e071 (interconnect only:
// dynamic_neigh_routers=false, gateway.go:290) and f23d1d792 (the UDN
// masquerade ARP storm: disable_garp_rarp=true, gateway.go:306-308, and no
// nat-addresses or exclude-lb-vips-from-garp on a UDN's etor-,
// gateway.go:1397-1412); its tests expect them in gwRouterOptions
// (layer3_user_defined_network_controller_test.go:2296-2308, which
// expectedGWEntitiesLayer2 shares) and externalSwitchRouterPortOptions
// (:2242-2246). The earlier reference, and udnkit before it, had
// dynamic_neigh_routers=true and GARPs for NAT addresses.
func TestReferenceGatewayRows(t *testing.T) {
	l3, err := Plan(layer3Input())
	if err != nil {
		t.Fatal(err)
	}
	l2, err := Plan(seed004Input("203.203.0.0/24"))
	if err != nil {
		t.Fatal(err)
	}
	get := func(s State, k Kind, key string) Object {
		t.Helper()
		o, ok := s.Get(k, key)
		if !ok {
			t.Fatalf("no %s %q", k, key)
		}
		return o
	}
	opts := func(kv ...string) Options { return NewOptions(kv...) }
	hasNAT := func(s State, router, logical, external, port, match string) bool {
		for _, o := range s.ObjectsOf(KindNAT) {
			n := o.(NAT)
			if n.Router == router && n.Type == NATSNAT && n.LogicalIP.String() == logical && n.ExternalIP.String() == external &&
				n.GatewayPort == port && n.Match == match {
				return true
			}
		}
		return false
	}
	const gr3, gr2 = "GR_ns1_blue_ovn-control-plane", "GR_test12_namespace.scoped_ovn-control-plane"
	cases := []struct {
		name string
		ok   func() bool
	}{
		{"gwRouterOptions: the Layer3 gateway router's options", func() bool {
			return get(l3, KindRouter, gr3).(Router).Options.Equal(opts("always_learn_from_arp_request", "false", "chassis", "chassis-cp",
				"disable_garp_rarp", "true", "dynamic_neigh_routers", "false", "lb_force_snat_ip", "router_ip", "mac_binding_age_threshold", "300"))
		}},
		{"expectedGWEntitiesLayer2 (gwRouterOptions, lb_force_snat_ip the join IPs): the Layer2 gateway router's options", func() bool {
			return get(l2, KindRouter, gr2).(Router).Options.Equal(opts("always_learn_from_arp_request", "false", "chassis", "chassis-cp",
				"disable_garp_rarp", "true", "dynamic_neigh_routers", "false", "lb_force_snat_ip", "100.65.0.4 fd99::4", "mac_binding_age_threshold", "300"))
		}},
		{"expectedLayer3EgressEntities (:2072-2079): rtos- carries gateway_mtu on a Layer3 primary", func() bool {
			return get(l3, KindRouterPort, "rtos-ns1_blue_ovn-control-plane").(RouterPort).Options.Equal(opts("gateway_mtu", "1400"))
		}},
		{"expectedGRToJoinSwitchLRP (:1999-2003): rtoj-GR carries gateway_mtu", func() bool {
			return get(l3, KindRouterPort, "rtoj-"+gr3).(RouterPort).Options.Equal(opts("gateway_mtu", "1400"))
		}},
		{"gateway.go GatewayInit: a Layer2 gateway router SNATs load balancers to its join addresses", func() bool {
			v, _ := get(l2, KindRouter, gr2).(Router).Options.Get("lb_force_snat_ip")
			return v == "100.65.0.4 fd99::4"
		}},
		{"externalSwitchRouterPortOptions: etor- options (router-port alone) and the node MAC as its address", func() bool {
			p := get(l3, KindSwitchPort, "etor-"+gr3).(SwitchPort)
			return p.Options.Equal(opts("router-port", "rtoe-"+gr3)) &&
				slices.Equal(p.Addresses, []string{"0a:58:ac:12:00:03"})
		}},
		{"expectedGWEntitiesLayer2 (externalSwitchRouterPortOptions): the Layer2 etor- options", func() bool {
			return get(l2, KindSwitchPort, "etor-"+gr2).(SwitchPort).Options.Equal(opts("router-port", "rtoe-"+gr2))
		}},
		{"expectedGWRouterPlusNATAndStaticRoutes nat1: the gateway router SNATs its join IP to the masquerade IP", func() bool {
			return hasNAT(l3, gr3, "100.65.0.4/32", "169.254.0.13", "", "") && hasNAT(l3, gr3, "fd99::4/128", "fd69::d", "", "")
		}},
		{"expectedGWRouterPlusNATAndStaticRoutes nat2: the pod network SNATed to the masquerade IP", func() bool {
			return hasNAT(l3, gr3, "10.128.0.0/16", "169.254.0.13", "", "")
		}},
		{"GetNetworkScopedClusterSubnetSNATMatch: a Layer2 pod-network SNAT applies to the external port", func() bool {
			return hasNAT(l2, gr2, "203.203.0.0/24", "169.254.0.11", "", `outport == "rtoe-`+gr2+`"`)
		}},
		{"expectedLayer3EgressEntities masqSNAT: the management port's SNAT of the node subnet", func() bool {
			return hasNAT(l3, "ns1_blue_ovn_cluster_router", "10.128.2.0/24", "169.254.0.14", "rtos-ns1_blue_ovn-control-plane", "eth.dst == 0a:58:0a:80:02:02")
		}},
		{"expectedLayer3EgressEntities routerPolicy2: traffic to the masquerade IP rerouted to the management port", func() bool {
			p := Policy{Router: "ns1_blue_ovn_cluster_router", Priority: PriorityNodeReroute,
				Match: `inport == "rtos-ns1_blue_ovn-control-plane" && ip4.dst == 169.254.0.13 /* ns1_blue_ovn-control-plane */`}
			o, ok := l3.Get(KindPolicy, p.Key())
			return ok && slices.Equal(o.(Policy).Nexthops, []netip.Addr{addr("10.128.2.2")})
		}},
		{"topologyfactory.go NewClusterRouter: always_learn_from_arp_request=false", func() bool {
			return get(l3, KindRouter, "ns1_blue_ovn_cluster_router").(Router).Options.Equal(opts("always_learn_from_arp_request", "false"))
		}},
		{"base_network_controller.go createNodeLogicalSwitch: subnet, exclude_ips, ipv6_prefix", func() bool {
			return get(l3, KindSwitch, "ns1_blue_ovn-control-plane").(Switch).OtherConfig.Equal(opts("exclude_ips", "10.128.2.2",
				"ipv6_prefix", "fd00:10:128:2::", "subnet", "10.128.2.0/24"))
		}},
		{"zone_ic_handler.go addTransitSwitchConfig: the transit switch's multicast settings", func() bool {
			return get(l3, KindSwitch, "ns1_blue_transit_switch").(Switch).OtherConfig.Equal(opts("interconn-ts", "ns1_blue_transit_switch",
				"mcast_flood_unregistered", "true", "mcast_querier", "false", "mcast_snoop", "true", "requested-tnl-key", "16711685"))
		}},
		{"zone_ic_handler.go createLocalZoneNodeResources: mcast_flood on rtots-", func() bool {
			return get(l3, KindRouterPort, "ns1_blue_rtots-ovn-control-plane").(RouterPort).Options.Equal(opts("mcast_flood", "true"))
		}},
		{"base_secondary_layer2_network_controller.go initializeLogicalSwitch: the Layer2 switch's subnet and transit settings", func() bool {
			c := get(l2, KindSwitch, "test12_namespace.scoped_ovn_layer2_switch").(Switch).OtherConfig
			v, _ := c.Get("subnet")
			s, _ := c.Get("mcast_snoop")
			return v == "203.203.0.0/24" && s == "true"
		}},
	}
	for _, c := range cases {
		if !c.ok() {
			t.Errorf("%s: not as the reference writes it", c.name)
		}
	}
	// A departure: the reference's rtoe- (expectedGRToExternalSwitchLRP)
	// also holds the network's masquerade IP (as a /32 since its
	// f23d1d792, udnGWSNATAddress), and with
	// lb_force_snat_ip=router_ip northd then SNATs load-balanced traffic to
	// the masquerade IP and warns (TestRealLayer3ReferenceProfile). udnkit
	// leaves it off in both profiles.
	in := layer3Input()
	in.Profile = ProfileReference
	ref, err := Plan(in)
	if err != nil {
		t.Fatal(err)
	}
	for name, s := range map[string]State{"ProfileReference": ref, "ProfileSeeds": l3} {
		nets := get(s, KindRouterPort, "rtoe-"+gr3).(RouterPort).Networks
		if slices.ContainsFunc(nets, func(p netip.Prefix) bool { return p.Addr() == addr("169.254.0.13") }) || !slices.Contains(nets, pfx("172.18.0.3/16")) {
			t.Errorf("%s: rtoe- holds %v, want the node IP 172.18.0.3/16 without the masquerade IP", name, nets)
		}
	}
}

// TestReferenceTransitRouterPeers: under ProfileReference a Layer2
// network's transit router and gateway router peer over the /31 at offset
// 2·nodeID of the transit subnet, the transit router's port keyed 10+nodeID
// (secondary_layer2_network_controller_test.go expectedLayer2EgressEntities
// and expectedGRToTransitRouterLRPLayer2, node ID 4: rtor key "14";
// gateway_router_info.go getTransitRouterInfo: node 2 → 100.88.0.4/31 and
// 100.88.0.5/31; remote node 5: key "15"); the seeds keep their /30 and
// node-ID keys.
func TestReferenceTransitRouterPeers(t *testing.T) {
	in := seed004Input("203.203.0.0/24")
	in.Profile = ProfileReference
	s, err := Plan(in)
	if err != nil {
		t.Fatal(err)
	}
	port := func(name string) RouterPort {
		t.Helper()
		o, ok := s.Get(KindRouterPort, name)
		if !ok {
			t.Fatalf("no router port %s", name)
		}
		return o.(RouterPort)
	}
	const tr, gr = "trtor-GR_test12_namespace.scoped_", "rtotr-GR_test12_namespace.scoped_ovn-control-plane"
	local := port(tr + "ovn-control-plane") // node ID 4
	if !slices.Equal(local.Networks, []netip.Prefix{pfx("100.88.0.8/31"), pfx("fd97::8/127")}) || local.MAC != "0a:58:64:58:00:08" {
		t.Errorf("local trtor: %s", Render(local))
	}
	if v, _ := local.Options.Get(OptRequestedTnlKey); v != "14" {
		t.Errorf("local trtor key %q, want 14", v)
	}
	g := port(gr)
	if !slices.Contains(g.Networks, pfx("100.88.0.9/31")) || !slices.Contains(g.Networks, pfx("100.65.0.4/16")) {
		t.Errorf("rtotr: %s", Render(g))
	}
	remote := port(tr + "ovn-worker") // node ID 2
	if v, _ := remote.Options.Get(OptRequestedTnlKey); v != "12" || !slices.Equal(remote.Networks, []netip.Prefix{pfx("100.88.0.4/31"), pfx("fd97::4/127")}) {
		t.Errorf("remote trtor: %s", Render(remote))
	}
	// The route to the remote gateway router's join address goes to its
	// pair address.
	route := StaticRoute{Router: "test12_namespace.scoped_transit_router", Policy: RouteDstIP, Prefix: pfx("100.65.0.2/32"), Nexthop: addr("100.88.0.5")}
	if _, ok := s.Get(KindStaticRoute, route.Key()); !ok {
		t.Errorf("no route %s", route.Key())
	}
}

// TestPreservedLayer2Key: a Layer2 network the reference created carries
// its preserved key 16711683+ID on its switch; the planner adopts it, and
// still refuses a key that is neither that nor dynamic.
func TestPreservedLayer2Key(t *testing.T) {
	in := seed004Input("203.203.0.0/24")
	in.TunnelKeys = []int{ipam.PreservedTunnelKey(in.Network.ID), in.TunnelKeys[1]}
	s, err := Plan(in)
	if err != nil {
		t.Fatal(err)
	}
	o, _ := s.Get(KindSwitch, "test12_namespace.scoped_ovn_layer2_switch")
	if v, _ := o.(Switch).OtherConfig.Get(OptRequestedTnlKey); v != "16711684" {
		t.Errorf("switch key %q, want 16711684", v)
	}
	in.TunnelKeys[0] = ipam.PreservedTunnelKey(in.Network.ID) + 1 // another network's preserved key
	if _, err := Plan(in); !errors.Is(err, ErrInvalid) {
		t.Errorf("another network's preserved key: %v", err)
	}
}

// TestGatewayRouterOptionsEveryTopology: every gateway router udnkit plans
// (Layer3, Layer2 on the transit router, legacy Layer2) under both
// profiles sends no GARP/RARP and learns no neighbour router dynamically,
// its etor- port asks for no GARPs of NAT addresses, and a Layer3 primary's
// rtos- port carries gateway_mtu: the network's MTU when it has one (the
// reference writes the cluster's, config.Default.MTU, whatever the
// network's: a departure recorded in the package doc), else the cluster's.
func TestGatewayRouterOptionsEveryTopology(t *testing.T) {
	legacy := seed004Input("203.203.0.0/24")
	legacy.Layer2 = Layer2Legacy
	l3mtu := layer3Input()
	l3mtu.Network = l3mtu.Network.Clone()
	l3mtu.Network.MTU = 1300
	for _, prof := range []Profile{ProfileSeeds, ProfileReference} {
		for name, tc := range map[string]struct {
			in  Input
			gr  string
			mtu string
		}{
			"layer3":          {layer3Input(), "GR_ns1_blue_ovn-control-plane", "1400"},
			"layer3 mtu 1300": {l3mtu, "GR_ns1_blue_ovn-control-plane", "1300"},
			"layer2":          {seed004Input("203.203.0.0/24"), "GR_test12_namespace.scoped_ovn-control-plane", ""},
			"layer2 legacy":   {legacy, "GR_test12_namespace.scoped_ovn-control-plane", ""},
		} {
			in := tc.in
			in.Profile = prof
			s, err := Plan(in)
			if err != nil {
				t.Fatalf("%s %s: %v", prof, name, err)
			}
			o, ok := s.Get(KindRouter, tc.gr)
			if !ok {
				t.Fatalf("%s %s: no gateway router %s", prof, name, tc.gr)
			}
			opts := o.(Router).Options
			for k, want := range map[string]string{"disable_garp_rarp": "true", "dynamic_neigh_routers": "false"} {
				if v, ok := opts.Get(k); !ok || v != want {
					t.Errorf("%s %s: %s %s=%q (set %v), want %q", prof, name, tc.gr, k, v, ok, want)
				}
			}
			p, ok := s.Get(KindSwitchPort, "etor-"+tc.gr)
			if !ok {
				t.Fatalf("%s %s: no etor- port", prof, name)
			}
			if got := p.(SwitchPort).Options; !got.Equal(NewOptions("router-port", "rtoe-"+tc.gr)) {
				t.Errorf("%s %s: etor- options %v, want router-port alone", prof, name, got)
			}
			if tc.mtu == "" {
				continue
			}
			rp, ok := s.Get(KindRouterPort, "rtos-ns1_blue_ovn-control-plane")
			if !ok {
				t.Fatalf("%s %s: no rtos- port", prof, name)
			}
			if v, _ := rp.(RouterPort).Options.Get("gateway_mtu"); v != tc.mtu {
				t.Errorf("%s %s: rtos- gateway_mtu %q, want %q", prof, name, v, tc.mtu)
			}
		}
	}
}

// TestLayer3HostPrefixPerFamily: the planners refuse a Layer3 network
// whose subnets of one family have different host prefixes (the
// reference's rule, which netconf applies to specs and NetConfs), and take
// several subnets of a family with one length, each family its own.
func TestLayer3HostPrefixPerFamily(t *testing.T) {
	for _, tc := range []struct {
		subnets []netconf.Subnet
		ok      bool
	}{
		{[]netconf.Subnet{{CIDR: pfx("10.128.0.0/16"), HostPrefix: 24}, {CIDR: pfx("10.129.0.0/16"), HostPrefix: 24}, {CIDR: pfx("fd00:10:128::/48"), HostPrefix: 64}}, true},
		{[]netconf.Subnet{{CIDR: pfx("10.128.0.0/16"), HostPrefix: 24}, {CIDR: pfx("10.129.0.0/16"), HostPrefix: 25}, {CIDR: pfx("fd00:10:128::/48"), HostPrefix: 64}}, false},
		{[]netconf.Subnet{{CIDR: pfx("fd00:10:128::/48"), HostPrefix: 64}, {CIDR: pfx("10.128.0.0/16"), HostPrefix: 24}, {CIDR: pfx("10.129.0.0/16"), HostPrefix: 26}}, false},
	} {
		in := layer3Input()
		in.Network = in.Network.Clone()
		in.Network.Subnets = tc.subnets
		_, err := Plan(in)
		if (err == nil) != tc.ok {
			t.Errorf("%v: %v, want ok %v", tc.subnets, err, tc.ok)
		}
		if err != nil && (!errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "subnets[")) {
			t.Errorf("%v: %v, want ErrInvalid naming the subnet", tc.subnets, err)
		}
	}
}
