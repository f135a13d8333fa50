package udnkit_test

import (
	"errors"
	"fmt"
	"net/netip"
	"strings"
	"testing"

	"github.com/udnkit/udnkit"
	"github.com/udnkit/udnkit/ipam"
	"github.com/udnkit/udnkit/netconf"
	"github.com/udnkit/udnkit/netconf/udn"
	"github.com/udnkit/udnkit/topology"
)

func threeNodes() []topology.Node {
	var nodes []topology.Node
	for i := range 3 {
		id := ipam.MinNodeID + i
		nodes = append(nodes, topology.Node{Name: fmt.Sprintf("node%d", i+1), ID: id, Chassis: fmt.Sprintf("chassis-%d", i+1),
			Addresses: []netip.Prefix{netip.PrefixFrom(netip.AddrFrom4([4]byte{172, 18, 0, byte(id)}), 16),
				netip.MustParsePrefix(fmt.Sprintf("fc00::%d/64", id))},
			NextHops: []netip.Addr{netip.MustParseAddr("172.18.0.1"), netip.MustParseAddr("fc00::1")}})
	}
	return nodes
}

// checkValidatesPlans is the property the fidelity issue asks for: a UDN
// that validates plans on three nodes (every zone), or else fails only
// because its subnet has no room for three nodes (ipam.ErrExhausted);
// one that does not validate is refused with netconf.ErrInvalidSpec. Nothing
// panics.
func checkValidatesPlans(t *testing.T, u *netconf.UserDefinedNetwork) {
	t.Helper()
	checkAddPlans(t, udnkit.Config{Nodes: threeNodes()}, fmt.Sprintf("%+v", u.Spec), func(nets *udnkit.Networks) (*udn.Network, error) {
		return nets.AddUDN(u)
	})
}

// checkAddPlans is the same property for any way of adding a network.
func checkAddPlans(t *testing.T, cfg udnkit.Config, what string, add func(*udnkit.Networks) (*udn.Network, error)) {
	t.Helper()
	nets, err := udnkit.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	n, err := add(nets)
	if err != nil {
		if !errors.Is(err, netconf.ErrInvalidSpec) && !errors.Is(err, ipam.ErrExhausted) {
			t.Fatalf("%s: refused with neither a spec error nor exhaustion: %v", what, err)
		}
		return
	}
	for _, zone := range []string{"node1", "node2", "node3"} {
		if _, err := nets.Plan(zone); err != nil {
			t.Fatalf("%s validated (%s) but does not plan in zone %s: %v", what, n, zone, err)
		}
	}
}

// checkNetConfPlans: a NetConf that parses is added (or refused as
// above) and plans, in either profile.
func checkNetConfPlans(t *testing.T, conf string) {
	t.Helper()
	c, err := netconf.ParseNetConf([]byte(conf))
	if err != nil {
		return
	}
	n, err := c.Network()
	if err != nil {
		t.Fatalf("%s: parsed but Network fails: %v", conf, err)
	}
	for _, p := range []udn.Profile{udn.ProfileSeeds, udn.ProfileReference} {
		checkAddPlans(t, udnkit.Config{Nodes: threeNodes(), Profile: p}, conf, func(nets *udnkit.Networks) (*udn.Network, error) {
			return nets.Add(n)
		})
	}
}

// TestNetConfValidatesPlans: fields only a NetConf sets (a Layer2 transit
// subnet) are checked against the nodes as the planner derives them.
func TestNetConfValidatesPlans(t *testing.T) {
	for _, transit := range []string{"100.99.0.0/30", "100.99.0.0/32", "100.99.0.0/29", "100.99.0.0/16", "fd97::/126"} {
		conf := `{"cniVersion":"1.0.0","name":"ns1_blue","type":"ovn-k8s-cni-overlay","topology":"layer2","role":"primary",` +
			`"netAttachDefName":"ns1/blue","subnets":"10.0.0.0/24,fd00::/64","transitSubnet":"` + transit + `"}`
		if _, err := netconf.ParseNetConf([]byte(conf)); err != nil {
			t.Fatalf("transit %s: %v", transit, err)
		}
		t.Run(transit, func(t *testing.T) { checkNetConfPlans(t, conf) })
	}
}

func FuzzNetConfValidatesPlans(f *testing.F) {
	f.Add(`{"cniVersion":"1.0.0","name":"ns1_blue","type":"ovn-k8s-cni-overlay","topology":"layer2","role":"primary","netAttachDefName":"ns1/blue","subnets":"10.0.0.0/24","transitSubnet":"100.99.0.0/30"}`)
	f.Add(`{"cniVersion":"1.0.0","name":"ns1_blue","type":"ovn-k8s-cni-overlay","topology":"layer3","role":"primary","netAttachDefName":"ns1/blue","subnets":"10.128.0.0/16/24,fd00::/48/64","joinSubnet":"100.65.0.0/29,fd99::/125"}`)
	f.Add(`{"cniVersion":"1.0.0","name":"ns1_blue","type":"ovn-k8s-cni-overlay","topology":"layer2","netAttachDefName":"ns1/blue","subnets":"10.0.0.0/31"}`)
	f.Fuzz(checkNetConfPlans)
}

// TestClusterDefaultJoinRefused: a network on the default network's join
// subnet, set in Config.Cluster only, is refused (it would plan a
// no-reroute policy twice).
func TestClusterDefaultJoinRefused(t *testing.T) {
	nets, err := udnkit.New(udnkit.Config{Nodes: threeNodes(), Cluster: topology.Cluster{
		DefaultNetworkJoinSubnets: []netip.Prefix{netip.MustParsePrefix("100.62.0.0/16"), netip.MustParsePrefix("fd98::/64")}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := nets.AddUDN(udnOf("Layer2", "Primary", 0, "100.62.0.0/16", "", "")); !errors.Is(err, netconf.ErrInvalidSpec) {
		t.Fatalf("a UDN on the default network's join subnet: %v, want ErrInvalidSpec", err)
	}
	if _, err := nets.AddUDN(udnOf("Layer2", "Primary", 0, "10.0.0.0/24", "", "")); err != nil {
		t.Fatal(err)
	}
	if _, err := nets.Plan("node1"); err != nil {
		t.Fatal(err)
	}
}

func udnOf(topo, role string, mtu int32, subnets, join, exclude string) *netconf.UserDefinedNetwork {
	split := func(s string) []string {
		if s == "" {
			return nil
		}
		return strings.Split(s, ",")
	}
	u := &netconf.UserDefinedNetwork{}
	u.Namespace, u.Name = "ns1", "blue"
	u.Spec = netconf.UserDefinedNetworkSpec{Topology: netconf.Topology(topo), Role: netconf.Role(role), MTU: mtu,
		Subnets: split(subnets), JoinSubnets: split(join), ExcludeSubnets: split(exclude)}
	return u
}

// TestValidatesPlans holds the inputs that once validated and then failed
// to plan (the fidelity issue's list), and a few ordinary ones.
func TestValidatesPlans(t *testing.T) {
	for _, c := range []struct {
		topo, role    string
		mtu           int32
		subnets, join string
		exclude       string
	}{
		{"Layer3", "Primary", 0, "10.128.0.0/16/24", "", ""},
		{"Layer2", "Primary", 65536, "10.0.0.0/24", "", ""},
		{"Layer2", "Secondary", 0, "0.0.0.0/0", "", ""},
		{"Layer2", "Secondary", 0, "100.64.0.0/10", "", ""},
		{"Layer3", "Secondary", 0, "100.64.0.0/10/24", "", ""},
		{"Layer2", "Primary", 0, "10.0.0.0/30", "", ""},
		{"Layer2", "Secondary", 0, "10.0.0.0/31", "", ""},
		{"Layer2", "Primary", 0, "10.0.0.0/24", "100.65.0.0/32", ""},
		{"Layer2", "Primary", 0, "10.0.0.0/24", "100.65.0.0/31", ""},
		{"Layer2", "Primary", 0, "fd00::/64", "fd99::/128", ""},
		{"Layer2", "Secondary", 0, "10.0.0.0/24", "", "10.0.0.0/24"},
		{"Layer3", "Primary", 0, "10.128.0.0/23/24", "", ""},
		{"Layer3", "Primary", 0, "169.254.0.0/24", "", ""},
		{"Layer2", "Primary", 0, "10.0.0.0/24,fd00::/64", "100.65.0.0/16,fd99::/64", ""},
		{"Layer3", "Primary", 0, "10.128.0.0/24/25,10.129.0.0/16/24", "", ""},
		{"Layer3", "Secondary", 0, "10.128.0.0/24/25,10.129.0.0/16/24", "", ""},
		{"Layer3", "Primary", 0, "10.128.0.0/16/24,10.128.5.0/24/26", "", ""},
	} {
		t.Run(fmt.Sprintf("%s %s %s mtu %d join %s exclude %s", c.topo, c.role, c.subnets, c.mtu, c.join, c.exclude), func(t *testing.T) {
			checkValidatesPlans(t, udnOf(c.topo, c.role, c.mtu, c.subnets, c.join, c.exclude))
		})
	}
}

func FuzzValidatesPlans(f *testing.F) {
	f.Add(uint8(0), true, int32(0), "10.128.0.0/16/24", "", "")
	f.Add(uint8(1), true, int32(65536), "10.0.0.0/24", "", "")
	f.Add(uint8(1), false, int32(0), "100.64.0.0/10", "", "")
	f.Add(uint8(1), true, int32(1400), "10.0.0.0/24,fd00::/64", "100.65.0.0/31", "10.0.0.0/28")
	f.Fuzz(func(t *testing.T, topo uint8, primary bool, mtu int32, subnets, join, exclude string) {
		topos := []string{"Layer3", "Layer2"}
		role := "Secondary"
		if primary {
			role = "Primary"
		}
		checkValidatesPlans(t, udnOf(topos[int(topo)%len(topos)], role, mtu, subnets, join, exclude))
	})
}

// TestClusterOverlapRefused: with the default network's settings given, a
// UDN whose subnet overlaps the cluster's pod subnets is refused as an
// invalid spec and nothing is allocated.
func TestClusterOverlapRefused(t *testing.T) {
	nets, err := udnkit.New(udnkit.Config{Nodes: threeNodes(), DefaultNetwork: netconf.Cluster{
		PodSubnets: []netip.Prefix{netip.MustParsePrefix("10.244.0.0/16")}, ServiceCIDRs: []netip.Prefix{netip.MustParsePrefix("10.96.0.0/16")}}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = nets.AddUDN(udnOf("Layer3", "Primary", 0, "10.244.0.0/16/24", "", ""))
	if !errors.Is(err, netconf.ErrInvalidSpec) || !strings.Contains(err.Error(), "cluster subnet") {
		t.Fatalf("a UDN on the cluster's pod subnet: %v", err)
	}
	if len(nets.Names()) != 0 {
		t.Errorf("networks after the refusal: %v", nets.Names())
	}
	if _, err := nets.AddUDN(udnOf("Layer3", "Primary", 0, "10.128.0.0/16/24", "", "")); err != nil {
		t.Fatal(err)
	}
}

// TestLayer3SeveralSubnets: a Layer3 network may list several subnets of
// one family (the reference's NetInfo takes a list); nodes take host
// subnets from them in order, and every subnet is routed and SNATed.
func TestLayer3SeveralSubnets(t *testing.T) {
	nets, err := udnkit.New(udnkit.Config{Nodes: threeNodes()})
	if err != nil {
		t.Fatal(err)
	}
	// Several subnets of a family come from a NAD's NetConf: a spec holds
	// at most two, of different families (round 3). They share one host
	// subnet length, as the reference's parser requires.
	conf, err := netconf.ParseNetConf([]byte(`{"cniVersion":"1.1.0","name":"ns1_blue","type":"ovn-k8s-cni-overlay","topology":"layer3",` +
		`"role":"primary","netAttachDefName":"ns1/blue","subnets":"10.128.0.0/24/25,10.129.0.0/16/25"}`))
	if err != nil {
		t.Fatal(err)
	}
	nc, err := conf.Network()
	if err != nil {
		t.Fatal(err)
	}
	n, err := nets.Add(nc)
	if err != nil {
		t.Fatal(err)
	}
	in, err := nets.Input(n.Name, "node3")
	if err != nil {
		t.Fatal(err)
	}
	if got := in.HostSubnets["node3"]; len(got) != 1 || got[0] != netip.MustParsePrefix("10.129.0.0/25") {
		t.Errorf("node3's host subnet %v, want 10.129.0.0/25 (the first subnet holds two /25s)", got)
	}
	s, err := nets.Plan("node3")
	if err != nil {
		t.Fatal(err)
	}
	text := s.String()
	for _, want := range []string{
		"prefix=10.128.0.0/24 nexthop=100.65.0.1", "prefix=10.129.0.0/16 nexthop=100.65.0.1", // the gateway router's routes
		`match="ip4.src == 10.128.0.0/24 && ip4.dst == 10.129.0.0/16" action=allow`,
		"type=snat logical_ip=10.129.0.0/16 external_ip=169.254.0.11",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the plan lacks %q", want)
		}
	}
}

// TestPrimaryLayer2SmallSubnetsPlan: a primary Layer2 subnet too small
// for the gateway and the management port (a /31, /32, /127 or /128)
// validated and did not plan; it is refused now, and a /30 or /126 plans.
func TestPrimaryLayer2SmallSubnetsPlan(t *testing.T) {
	for _, s := range []string{"10.0.0.0/32", "10.0.0.0/31", "10.0.0.0/30", "fd00::/128", "fd00::/127", "fd00::/126"} {
		t.Run(s, func(t *testing.T) {
			checkValidatesPlans(t, udnOf("Layer2", "Primary", 0, s, "", ""))
			checkNetConfPlans(t, `{"cniVersion":"1.0.0","name":"ns1_blue","type":"ovn-k8s-cni-overlay","topology":"layer2","role":"primary",`+
				`"netAttachDefName":"ns1/blue","subnets":"`+s+`"}`)
		})
	}
}

// TestMasqueradeSubnetsPlan: a primary network whose ID the cluster's
// masquerade subnets cannot address (a /29 holds none), or of a family they
// lack, validated and did not plan; it is refused now, and a secondary
// network, which uses no masquerade address, still plans.
func TestMasqueradeSubnetsPlan(t *testing.T) {
	for _, ms := range [][]netip.Prefix{
		{netip.MustParsePrefix("169.254.169.0/29"), netip.MustParsePrefix("fd69::/125")},
		{netip.MustParsePrefix("169.254.0.0/17")},
	} {
		cfg := udnkit.Config{Nodes: threeNodes(), Cluster: topology.Cluster{MasqueradeSubnets: ms}}
		for _, role := range []string{"Primary", "Secondary"} {
			u := udnOf("Layer2", role, 0, "10.0.0.0/24,fd00::/64", "", "")
			checkAddPlans(t, cfg, fmt.Sprint(ms, role), func(nets *udnkit.Networks) (*udn.Network, error) { return nets.AddUDN(u) })
		}
		nets, err := udnkit.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := nets.AddUDN(udnOf("Layer3", "Primary", 0, "10.0.0.0/16,fd00::/48", "", "")); err == nil {
			t.Errorf("masquerade subnets %v: a primary network was added", ms)
		}
		if _, err := nets.AddUDN(udnOf("Layer3", "Secondary", 0, "10.0.0.0/16,fd00::/48", "", "")); err != nil {
			t.Errorf("masquerade subnets %v: a secondary network refused: %v", ms, err)
		}
	}
}
