package pods

import (
	"net"
	"net/netip"
	"testing"

	"github.com/udnkit/udnkit/ipam"
	"github.com/udnkit/udnkit/netconf"
	"github.com/udnkit/udnkit/netconf/udn"
	"github.com/udnkit/udnkit/topology"
)

// TestLegacyLayer2LinkLocalGateway: on a node where a primary Layer2
// network has no transit router (legacy, or still legacy during the
// upgrade), a pod's IPv6 link-local gateway is the MAC of the gateway
// router's port on the switch, which the topology planner derives from the
// node's join address; with the transit router it is the gateway's.
func TestLegacyLayer2LinkLocalGateway(t *testing.T) {
	green := &udn.Network{Name: "ns2_green", ID: 3, Topology: udn.TopologyLayer2, Role: udn.RolePrimary,
		Subnets:     []udn.Subnet{{CIDR: netip.MustParsePrefix("10.100.0.0/16")}, {CIDR: netip.MustParsePrefix("fd10::/64")}},
		JoinSubnets: ipam.DefaultJoinSubnets(), TransitSubnets: ipam.DefaultTransitSubnets()}
	nodes := []topology.Node{{Name: "node1", ID: 2, Chassis: "chassis-1",
		Addresses: []netip.Prefix{netip.MustParsePrefix("172.18.0.2/16"), netip.MustParsePrefix("fc00::2/64")},
		NextHops:  []netip.Addr{netip.MustParseAddr("172.18.0.1"), netip.MustParseAddr("fc00::1")}}}
	in := Input{Pod: Pod{Namespace: "ns2", Name: "p", Node: "node1"}, Nodes: nodes, Zone: "node1",
		Attachments: []Attachment{{Network: green, NAD: "ns2/green", Role: netconf.PodRolePrimary,
			IPs: []netip.Prefix{netip.MustParsePrefix("10.100.0.5/16"), netip.MustParsePrefix("fd10::5/64")}}}}
	lla := func(in Input) netip.Addr {
		t.Helper()
		got, err := PlanPod(in)
		if err != nil {
			t.Fatal(err)
		}
		return got.Annotation["ns2/green"].GatewayIPv6LLA
	}
	if got, want := lla(in), ipam.LinkLocalFromMAC(ipam.MACFromIP(netip.MustParseAddr("10.100.0.1"))); got != want {
		t.Errorf("transit router: %s, want %s (the gateway's MAC)", got, want)
	}
	// The legacy gateway router's port on the switch, as planned.
	s, err := topology.PlanLegacyLayer2(topology.Input{Network: green, Nodes: nodes, Zone: "node1",
		TunnelKeys: []int{ipam.DynamicTunnelKeyFirst, ipam.DynamicTunnelKeyFirst + 1}})
	if err != nil {
		t.Fatal(err)
	}
	var portMAC string
	for o := range s.Objects() {
		if rp, ok := o.(topology.RouterPort); ok {
			for _, n := range rp.Networks {
				if n.Addr() == netip.MustParseAddr("10.100.0.1") {
					portMAC = rp.MAC
				}
			}
		}
	}
	mac, err := net.ParseMAC(portMAC)
	if err != nil {
		t.Fatalf("no legacy gateway router port holds the gateway: %q", portMAC)
	}
	want := ipam.LinkLocalFromMAC(mac)
	for _, mode := range []struct {
		m      topology.Layer2Mode
		legacy []string
	}{{topology.Layer2Legacy, nil}, {topology.Layer2Upgrade, []string{"node1"}}} {
		in.Layer2, in.LegacyNodes = mode.m, mode.legacy
		if got := lla(in); got != want {
			t.Errorf("%s: %s, want %s (the legacy gateway router port's MAC %s)", mode.m, got, want, portMAC)
		}
	}
	in.Layer2, in.LegacyNodes = topology.Layer2Upgrade, []string{"node9"}
	if got := lla(in); got == want {
		t.Errorf("upgrade, node1 already on the transit router: %s is the legacy port's", got)
	}
}
