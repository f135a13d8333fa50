package topology

import (
	"errors"
	"net"
	"net/netip"
	"strings"
	"testing"

	"github.com/udnkit/udnkit/ipam"
	"github.com/udnkit/udnkit/netconf"
)

func mustPlan(t *testing.T, f func(Input) (State, error), in Input) State {
	t.Helper()
	s, err := f(in)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestGolden(t *testing.T) {
	singleZone := layer3Input()
	for i := range singleZone.Nodes {
		singleZone.Nodes[i].Zone = "global"
	}
	singleZone.Zone = "global"

	secL3 := layer3Input()
	secL3.Network.Role = netconf.RoleSecondary
	secL3.Network.Name = "ns1_green"
	secL3.Network.JoinSubnets, secL3.Network.TransitSubnets = nil, nil
	secL3.Network.Subnets = secL3.Network.Subnets[:1]

	secL2 := seed004Input("203.203.0.0/24")
	secL2.Network.Role = netconf.RoleSecondary
	secL2.Network.Name = "ns1_red"
	secL2.TunnelKeys = secL2.TunnelKeys[:1]

	ln := Input{Network: &netconf.Network{Name: "cluster_udn_tenant-blue", ID: 7, Topology: netconf.TopologyLocalnet,
		Role: netconf.RoleSecondary, Subnets: []netconf.Subnet{{CIDR: pfx("192.168.100.0/24")}},
		PhysicalNetworkName: "physnet-tenants", VLANID: 200}, Nodes: seed004Nodes(), Zone: "ovn-control-plane"}

	tests := []struct {
		name string
		plan func(Input) (State, error)
		in   Input
	}{
		{"layer2_transit_router.txt", PlanLayer2, seed004Input("203.203.0.0/24")},
		{"layer2_legacy.txt", PlanLegacyLayer2, seed004Input("203.203.0.0/24")},
		{"layer3_primary.txt", PlanLayer3, layer3Input()},
		{"layer3_primary_single_zone.txt", PlanLayer3, singleZone},
		{"layer3_secondary.txt", PlanLayer3, secL3},
		{"layer2_secondary.txt", PlanLayer2, secL2},
		{"localnet.txt", PlanLocalnet, ln},
		{"plan_dispatch_layer3.txt", Plan, layer3Input()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			golden(t, tt.name, mustPlan(t, tt.plan, tt.in).String())
		})
	}
}

func TestLocalnetPort(t *testing.T) {
	in := Input{Network: &netconf.Network{Name: "cluster_udn_x", ID: 3, Topology: netconf.TopologyLocalnet,
		Role: netconf.RoleSecondary, PhysicalNetworkName: "physnet-a", VLANID: 42}, Zone: "z"}
	s := mustPlan(t, PlanLocalnet, in)
	o, ok := s.Get(KindSwitchPort, "cluster_udn_x_ovn_localnet_port")
	if !ok {
		t.Fatal("no localnet port")
	}
	p := o.(SwitchPort)
	if v, _ := p.Options.Get(OptNetworkName); v != "physnet-a" || p.TagRequest != 42 || p.Type != PortLocalnet {
		t.Errorf("localnet port = %s", Render(p))
	}
	in.Network.PhysicalNetworkName = ""
	s = mustPlan(t, PlanLocalnet, in)
	o, _ = s.Get(KindSwitchPort, "cluster_udn_x_ovn_localnet_port")
	if v, _ := o.(SwitchPort).Options.Get(OptNetworkName); v != "cluster_udn_x" {
		t.Errorf("network_name %q without a physical network name, want the network name", v)
	}
}

// TestLayer2Upgrade follows seed 004's rolling upgrade: ovn-control-plane
// moves to the transit router while ovn-worker is still on the legacy
// topology, then the upgrade completes.
func TestLayer2Upgrade(t *testing.T) {
	in := seed004Input("203.203.0.0/24")
	legacy := mustPlan(t, PlanLegacyLayer2, in)
	mid, err := PlanLayer2Upgrade(in, []string{"ovn-worker"})
	if err != nil {
		t.Fatal(err)
	}
	final := mustPlan(t, PlanLayer2, in)

	toMid, toFinal := Diff(legacy, mid), Diff(mid, final)
	golden(t, "layer2_upgrade_transitional.txt", mid.String())
	golden(t, "layer2_upgrade_diff_start.txt", toMid.String())
	golden(t, "layer2_upgrade_diff_cleanup.txt", toFinal.String())

	// Kept during the upgrade.
	port := routerPort(t, mid, "rtos-"+seedSwitch)
	if port.Router != seedTR || port.MAC != "0a:58:64:41:00:04" ||
		len(port.Networks) != 2 || port.Networks[0] != pfx("100.65.0.4/16") || port.Networks[1] != pfx("fd99::4/64") {
		t.Errorf("moved legacy port = %s", Render(port))
	}
	for name, typ := range map[string]PortType{
		"stor-GR_test12_namespace.scoped_ovn-control-plane": PortRouter, // local, now towards the transit router
		"stor-GR_test12_namespace.scoped_ovn-worker":        PortRemote, // legacy node
	} {
		o, ok := mid.Get(KindSwitchPort, name)
		if !ok || o.(SwitchPort).Type != typ {
			t.Errorf("switch port %s kept as %v: %v", name, typ, ok)
		}
	}
	if _, ok := mid.Get(KindRouterPort, "trtor-GR_test12_namespace.scoped_ovn-worker"); ok {
		t.Error("a legacy node got a transit router peer port")
	}
	if _, ok := mid.Get(KindSwitchPort, "stor-GR_test12_namespace.scoped_ovn-worker2"); ok {
		t.Error("an upgraded remote node kept its legacy remote port")
	}

	// The upgrade moves the port (an update, not a delete and create) and
	// keeps the gateway router's SNAT to the network's masquerade IP.
	var moved bool
	for _, c := range toMid {
		if c.Kind == KindRouterPort && c.Key == "rtos-"+seedSwitch {
			moved = c.Op == OpUpdate && strings.Contains(strings.Join(c.Columns, " "), ColumnRouter)
		}
		if c.Kind == KindNAT && c.Op == OpDelete && c.Object.(NAT).ExternalIP == addr("169.254.0.11") {
			t.Errorf("upgrade removes the gateway router SNAT: %s", c)
		}
	}
	if !moved {
		t.Error("rtos- port is not moved to the transit router by an update")
	}

	// Cleanup removes exactly the kept pieces and adds the node's peers.
	var deleted, created []string
	for _, c := range toFinal {
		switch c.Op {
		case OpDelete:
			deleted = append(deleted, c.Key)
		case OpCreate:
			created = append(created, c.Key)
		default:
			t.Errorf("unexpected %s", c)
		}
	}
	wantDeleted := []string{"rtos-" + seedSwitch, // router ports go before switch ports (reverse creation order)
		"stor-GR_test12_namespace.scoped_ovn-control-plane", "stor-GR_test12_namespace.scoped_ovn-worker"}
	if strings.Join(deleted, ",") != strings.Join(wantDeleted, ",") {
		t.Errorf("cleanup deletes %q, want %q", deleted, wantDeleted)
	}
	if len(created) != 3 { // trtor-GR_ of ovn-worker and its two join routes
		t.Errorf("cleanup creates %q", created)
	}
	if got, err := Apply(mid, toFinal); err != nil || !got.Equal(final) {
		t.Errorf("applying the cleanup: %v, equal %v", err, got.Equal(final))
	}
}

func TestPlanErrors(t *testing.T) {
	mod := func(f func(*Input)) Input {
		in := layer3Input()
		in.Network = in.Network.Clone()
		in.Nodes = seed004Nodes()
		f(&in)
		return in
	}
	tests := []struct {
		name  string
		plan  func(Input) (State, error)
		in    Input
		is    error
		field string
	}{
		{"nil network", PlanLayer3, mod(func(in *Input) { in.Network = nil }), ErrInvalid, "network"},
		{"network id", PlanLayer3, mod(func(in *Input) { in.Network.ID = 0 }), ErrInvalid, "id"},
		{"wrong topology", PlanLayer2, layer3Input(), ErrInvalid, "topology"},
		{"no zone", PlanLayer3, mod(func(in *Input) { in.Zone = "" }), ErrInvalid, "zone"},
		{"node named join", PlanLayer3, mod(func(in *Input) { in.Nodes[1].Name = "join" }), ErrInvalid, "name"},
		{"bad node name", PlanLayer3, mod(func(in *Input) { in.Nodes[1].Name = "Node_1" }), ErrInvalid, "name"},
		{"duplicate node ID", PlanLayer3, mod(func(in *Input) { in.Nodes[1].ID = 4 }), ErrConflict, "id"},
		{"node ID out of range", PlanLayer3, mod(func(in *Input) { in.Nodes[1].ID = 1 }), ErrInvalid, "id"},
		{"local node without chassis", PlanLayer3, mod(func(in *Input) { in.Nodes[0].Chassis = "" }), ErrInvalid, "chassis"},
		{"remote node without chassis", PlanLayer3, mod(func(in *Input) { in.Nodes[2].Chassis = "" }), ErrInvalid, "chassis"},
		{"no next hop", PlanLayer3, mod(func(in *Input) { in.Nodes[0].NextHops = in.Nodes[0].NextHops[:1] }), ErrInvalid, "nextHops"},
		{"no IPv6 address", PlanLayer3, mod(func(in *Input) { in.Nodes[0].Addresses = in.Nodes[0].Addresses[:1] }), ErrInvalid, "addresses"},
		{"missing host subnet", PlanLayer3, mod(func(in *Input) { delete(in.HostSubnets, "ovn-worker") }), ErrInvalid, "hostSubnets"},
		{"host subnet outside", PlanLayer3, mod(func(in *Input) {
			in.HostSubnets = map[string][]netip.Prefix{"ovn-control-plane": {pfx("10.129.0.0/24"), pfx("fd00:10:128:2::/64")}}
		}), ErrInvalid, "hostSubnets"},
		{"host subnet length", PlanLayer3, mod(func(in *Input) {
			in.HostSubnets["ovn-worker"] = []netip.Prefix{pfx("10.128.0.0/25"), pfx("fd00:10:128::/64")}
		}), ErrInvalid, "hostSubnets"},
		{"duplicate host subnet", PlanLayer3, mod(func(in *Input) {
			in.HostSubnets["ovn-worker"] = in.HostSubnets["ovn-worker2"]
		}), ErrConflict, "hostSubnets"},
		{"join overlaps subnet", PlanLayer3, mod(func(in *Input) {
			in.Network.JoinSubnets = []netip.Prefix{pfx("10.128.0.0/16"), pfx("fd99::/64")}
		}), ErrConflict, "joinSubnets"},
		{"transit overlaps subnet", PlanLayer3, mod(func(in *Input) {
			in.Network.TransitSubnets = []netip.Prefix{pfx("10.0.0.0/8"), pfx("fd97::/64")}
		}), ErrConflict, "transitSubnets"},
		{"bad node MAC", PlanLayer3, mod(func(in *Input) { in.Nodes[0].MAC = net.HardwareAddr{0x0a, 0x58, 0, 0, 1} }), ErrInvalid, "mac"},
		{"masquerade subnet too small", PlanLayer3, mod(func(in *Input) {
			in.Network.ID = 200
			in.Cluster.MasqueradeSubnets = []netip.Prefix{pfx("169.254.0.0/24"), pfx("fd69::/112")}
		}), ipam.ErrOutOfRange, "masqueradeSubnets"},
		{"no IPv6 join subnet", PlanLayer3, mod(func(in *Input) { in.Network.JoinSubnets = in.Network.JoinSubnets[:1] }), ErrInvalid, "joinSubnets"},
		{"layer2 tunnel keys", PlanLayer2, func() Input { in := seed004Input("203.203.0.0/24"); in.TunnelKeys = in.TunnelKeys[:1]; return in }(), ErrInvalid, "tunnelKeys"},
		{"layer2 tunnel key range", PlanLayer2, func() Input { in := seed004Input("203.203.0.0/24"); in.TunnelKeys[1] = 5; return in }(), ErrInvalid, "tunnelKeys"},
		{"layer2 preserved tunnel key", PlanLayer2, func() Input {
			in := seed004Input("203.203.0.0/24")
			in.TunnelKeys[0] = ipam.PreservedTunnelKey(ipam.MaxNetworkID) // just below the dynamic range
			return in
		}(), ErrInvalid, "tunnelKeys[0]"},
		{"legacy with two local nodes", PlanLegacyLayer2, func() Input {
			in := seed004Input("203.203.0.0/24")
			for i := range in.Nodes {
				in.Nodes[i].Zone = "z"
			}
			in.Zone = "z"
			return in
		}(), ErrUnsupported, "zone"},
		{"upgrade with a local legacy node", func(in Input) (State, error) { return PlanLayer2Upgrade(in, []string{"ovn-control-plane"}) },
			seed004Input("203.203.0.0/24"), ErrInvalid, "ovn-control-plane"},
		{"primary localnet", PlanLocalnet, Input{Network: &netconf.Network{Name: "x", ID: 1, Topology: netconf.TopologyLocalnet,
			Role: netconf.RolePrimary, Subnets: []netconf.Subnet{{CIDR: pfx("10.0.0.0/24")}}}, Zone: "z"}, ErrUnsupported, "role"},
		{"vlan", PlanLocalnet, Input{Network: &netconf.Network{Name: "x", ID: 1, Topology: netconf.TopologyLocalnet,
			Role: netconf.RoleSecondary, VLANID: 5000}, Zone: "z"}, ErrInvalid, "vlanID"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.plan(tt.in)
			if !errors.Is(err, tt.is) {
				t.Fatalf("error %v, want %v", err, tt.is)
			}
			if !strings.Contains(err.Error(), tt.field) {
				t.Errorf("error %q does not name %q", err, tt.field)
			}
		})
	}
}

func TestMACMatchesIPAM(t *testing.T) {
	for _, a := range []string{"203.203.0.1", "100.88.0.13", "0.0.0.0", "255.255.255.255", "fd97::8", "2010:100:200::ff01"} {
		ip := addr(a)
		if got, want := new(planner).mac(netip.PrefixFrom(ip, ip.BitLen())), ipam.MACFromIP(ip).String(); got != want {
			t.Errorf("mac(%s) = %s, ipam says %s", a, got, want)
		}
	}
	if got := new(planner).addresses(pfx("fd00::2/64"), pfx("10.0.0.2/24")); got != "0a:58:0a:00:00:02 fd00::2 10.0.0.2" {
		t.Errorf("addresses = %q", got)
	}
}

// TestPlanNodesHonoursLayer2Mode: an incremental plan of a network on the
// legacy topology or mid-upgrade is the matching part of its full plan, never
// the transit-router topology (which would delete stor-GR_ and create ports
// on a router that does not exist).
func TestPlanNodesHonoursLayer2Mode(t *testing.T) {
	for _, mode := range []Layer2Mode{Layer2TransitRouter, Layer2Legacy, Layer2Upgrade} {
		t.Run(mode.String(), func(t *testing.T) {
			in := seed004Input("203.203.0.0/24")
			in.Layer2, in.LegacyNodes = mode, []string{"ovn-worker"}
			full := mustPlan(t, Plan, in)
			for _, node := range []string{"ovn-control-plane", "ovn-worker"} {
				part, err := PlanNodes(in, node)
				if err != nil {
					t.Fatal(err)
				}
				if d := Diff(full, part); len(d) != 0 {
					t.Errorf("PlanNodes(%s) disagrees with the full plan:\n%s", node, d)
				}
			}
		})
	}
	in := seed004Input("203.203.0.0/24")
	in.Network.Role = netconf.RoleSecondary
	in.Layer2, in.TunnelKeys = Layer2Legacy, in.TunnelKeys[:1]
	if _, err := Plan(in); err != nil {
		t.Errorf("a secondary Layer2 network ignores the Layer2 mode: %v", err)
	}
	in = seed004Input("203.203.0.0/24")
	in.Layer2 = Layer2Mode(9)
	if _, err := Plan(in); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "layer2-mode(9)") {
		t.Errorf("unknown Layer2 mode: %v", err)
	}
}

func TestNodeMACOnExternalPort(t *testing.T) {
	in := layer3Input()
	in.Nodes[0].MAC = net.HardwareAddr{0x02, 0x42, 0xac, 0x12, 0x00, 0x03}
	local := in.Nodes[0].Name
	in.Zone = local
	s := mustPlan(t, PlanLayer3, in)
	if got := routerPort(t, s, "rtoe-GR_ns1_blue_"+local).MAC; got != "02:42:ac:12:00:03" {
		t.Errorf("rtoe- MAC = %q, want the node's 02:42:ac:12:00:03", got)
	}
}
