package connect

import (
	"errors"
	"net/netip"
	"strconv"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/udnkit/udnkit/internal/golden"
	"github.com/udnkit/udnkit/ipam"
	"github.com/udnkit/udnkit/netconf/udn"
	"github.com/udnkit/udnkit/topology"
)

// planFor allocates c's subnets for nets and plans zone.
func planFor(t *testing.T, c *ClusterNetworkConnect, nets []*udn.Network, nodes []topology.Node, zone string, p udn.Profile) (topology.State, Allocation) {
	t.Helper()
	a, err := NewAllocator(c, ipam.NewTunnelKeyAllocator())
	if err != nil {
		t.Fatal(err)
	}
	al, err := a.Allocate(nets)
	if err != nil {
		t.Fatal(err)
	}
	s, err := Plan(Input{Connect: c, Networks: nets, Allocation: al, Nodes: nodes, Zone: zone,
		HostSubnets: hostSubnets(nets, nodes), Profile: p, ServiceCIDRs: []netip.Prefix{pfx("10.96.0.0/16"), pfx("fd00:10:96::/112")}})
	if err != nil {
		t.Fatal(err)
	}
	return s, al
}

// The seed's three listings (Layer3, Layer2, mixed) as golden files. The
// seed's per-node offsets and some MACs in its listings are illustrative
// (see the package documentation); the formulas rule: pair at offset
// 2*nodeID, network side the first address, MAC from each port's address.
func TestPlanGolden(t *testing.T) {
	blue, green, yellow := l3("blue_blue-network", 1, 1), l3("green_green-network", 2, 2), l3("yellow_yellow-network", 3, 3)
	l2blue, l2green, l2yellow := l2("blue_blue-network", 1, 1), l2("green_green-network", 2, 2), l2("yellow_yellow-network", 3, 3)
	for _, tc := range []struct {
		name  string
		nets  []*udn.Network
		p     udn.Profile
		types []ConnectivityType
	}{
		{"services_only", []*udn.Network{blue, l2green}, udn.ProfileSeeds, []ConnectivityType{ClusterIPServiceNetwork}},
		{"services_only_reference", []*udn.Network{blue, l2green}, udn.ProfileReference, []ConnectivityType{ClusterIPServiceNetwork}},
		{"layer3", []*udn.Network{blue, green, yellow}, udn.ProfileSeeds, nil},
		{"layer2", []*udn.Network{l2blue, l2green, l2yellow}, udn.ProfileSeeds, nil},
		{"mixed", []*udn.Network{blue, green, l2yellow}, udn.ProfileSeeds, nil},
		{"mixed_reference", []*udn.Network{blue, green, l2yellow}, udn.ProfileReference, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, al := planFor(t, v4Connect("colored-enterprise", tc.types...), tc.nets, seedNodes(), "ovn-worker", tc.p)
			ann := al.Annotations(tc.p)[SubnetsAnnotation(tc.p)]
			golden.Check(t, "plan_"+tc.name+".txt", "# "+SubnetsAnnotation(tc.p)+": "+ann+"\n"+s.String())
			again, _ := planFor(t, v4Connect("colored-enterprise", tc.types...), tc.nets, seedNodes(), "ovn-worker", tc.p)
			if !again.Equal(s) || again.String() != s.String() {
				t.Error("planning twice differs")
			}
			for o := range s.Objects() {
				if ow := o.OwnedBy(); ow.Controller != ControllerConnect || ow.Network != "colored-enterprise" {
					t.Errorf("%s owned by %s", topology.Render(o), ow)
				}
			}
		})
	}
}

// TestPlanLayer3Facts checks the listing's facts one by one for the local
// node ovn-worker (ID 3) of blue (block 192.168.0.0/24): the pair at offset
// 6, network side 192.168.0.6/31 on blue's cluster router, connect side
// 192.168.0.7/31 on the connect router, MACs from each side's address,
// peers set, the connect side's tunnel key; a remote node's connect port
// bound to its chassis without a peer; the policies and routes.
func TestPlanLayer3Facts(t *testing.T) {
	blue, green := l3("blue_blue-network", 1, 1), l3("green_green-network", 2, 2)
	s, al := planFor(t, v4Connect("colored-enterprise"), []*udn.Network{blue, green}, seedNodes(), "ovn-worker", udn.ProfileSeeds)
	get := func(k topology.Kind, key string) topology.Object {
		t.Helper()
		o, ok := s.Get(k, key)
		if !ok {
			t.Fatalf("no %s %s in\n%s", k, key, s)
		}
		return o
	}
	r := get(topology.KindRouter, "connect-router-colored-enterprise").(topology.Router)
	if v, _ := r.Options.Get("requested-tnl-key"); v != strconv.Itoa(al.TunnelKey) || al.TunnelKey < ipam.DynamicTunnelKeyFirst {
		t.Errorf("router tunnel key %q, allocated %d", v, al.TunnelKey)
	}
	cp := get(topology.KindRouterPort, "colored-enterprise-to-blue_blue-network-ovn-worker").(topology.RouterPort)
	np := get(topology.KindRouterPort, "blue_blue-network-ovn-worker-to-colored-enterprise").(topology.RouterPort)
	if cp.Router != "connect-router-colored-enterprise" || cp.Networks[0] != pfx("192.168.0.7/31") || cp.MAC != "0a:58:c0:a8:00:07" ||
		cp.Peer != np.Name {
		t.Errorf("connect side: %s", topology.Render(cp))
	}
	if np.Router != "blue.blue.network_ovn_cluster_router" && np.Router != "blue_blue.network_ovn_cluster_router" {
		t.Errorf("network side on router %q", np.Router)
	}
	if np.Networks[0] != pfx("192.168.0.6/31") || np.MAC != "0a:58:c0:a8:00:06" || np.Peer != cp.Name {
		t.Errorf("network side: %s", topology.Render(np))
	}
	// Keys: block 0, node ID 3 -> 4; green's block 1 -> 256+3+1.
	if v, _ := cp.Options.Get("requested-tnl-key"); v != "4" {
		t.Errorf("blue ovn-worker key %q, want 4", v)
	}
	gcp := get(topology.KindRouterPort, "colored-enterprise-to-green_green-network-ovn-worker").(topology.RouterPort)
	if v, _ := gcp.Options.Get("requested-tnl-key"); v != "260" {
		t.Errorf("green ovn-worker key %q, want 260", v)
	}
	remote := get(topology.KindRouterPort, "colored-enterprise-to-blue_blue-network-ovn-worker2").(topology.RouterPort)
	if ch, _ := remote.Options.Get("requested-chassis"); ch != "chassis-ovn-worker2" || remote.Peer != "" {
		t.Errorf("remote node's connect port: %s", topology.Render(remote))
	}
	if _, ok := s.Get(topology.KindRouterPort, "blue_blue-network-ovn-worker2-to-colored-enterprise"); ok {
		t.Error("a remote node's network-side port is planned in this zone")
	}
	// Blue's policy towards green, entering by the local node's rtos- port.
	match := `inport == "rtos-blue_blue.network_ovn-worker" && ip4.dst == 10.2.0.0/16`
	pol := get(topology.KindPolicy, "blue_blue.network_ovn_cluster_router|9001|"+match).(topology.Policy)
	if pol.Action != topology.PolicyReroute || len(pol.Nexthops) != 1 || pol.Nexthops[0] != netip.MustParseAddr("192.168.0.7") {
		t.Errorf("policy: %s", topology.Render(pol))
	}
	// One route per node and network, through that node's network side.
	var routes int
	for o := range s.Objects() {
		if rt, ok := o.(topology.StaticRoute); ok {
			routes++
			if rt.Prefix == pfx("10.2.3.0/24") && rt.Nexthop != netip.MustParseAddr("192.168.1.8") {
				t.Errorf("green ovn-worker2's route via %s, want 192.168.1.8", rt.Nexthop)
			}
		}
	}
	if routes != 6 {
		t.Errorf("%d routes, want 6 (2 networks x 3 nodes)", routes)
	}
}

// TestDisconnect: a network leaving the selection, a node leaving and the
// connect's deletion are diffs that remove exactly their rows.
func TestDisconnect(t *testing.T) {
	blue, green, yellow := l3("blue_blue-network", 1, 1), l3("green_green-network", 2, 2), l2("yellow_yellow-network", 3, 3)
	c := v4Connect("cnc")
	all, _ := planFor(t, c, []*udn.Network{blue, green, yellow}, seedNodes(), "ovn-worker", udn.ProfileSeeds)
	two, _ := planFor(t, c, []*udn.Network{blue, green}, seedNodes(), "ovn-worker", udn.ProfileSeeds)
	d := topology.Diff(all, two)
	if _, _, del := d.Count(); del == 0 || len(d) != del {
		t.Fatalf("yellow leaving: %s", d)
	}
	for _, ch := range d {
		k := topology.Render(ch.Object)
		if !strings.Contains(k, "yellow") && !strings.Contains(k, "10.3.0.0/16") {
			t.Errorf("yellow leaving touches %s", k)
		}
	}
	gone := topology.Diff(all, topology.RemovalFor(ControllerConnect, "cnc"))
	if _, _, del := gone.Count(); del != all.Len() {
		t.Errorf("deleting the connect removes %d of %d rows", del, all.Len())
	}
	// Another connect's rows and the networks' own rows are out of scope.
	other, _ := planFor(t, v4Connect("other"), []*udn.Network{blue, green}, seedNodes(), "ovn-worker", udn.ProfileSeeds)
	both, err := all.Merge(other)
	if err != nil {
		t.Fatal(err)
	}
	for _, ch := range topology.Diff(both, topology.RemovalFor(ControllerConnect, "cnc")) {
		if ch.Object.OwnedBy().Network != "cnc" {
			t.Errorf("removing cnc touches %s", topology.Render(ch.Object))
		}
	}
}

func TestPlanErrors(t *testing.T) {
	blue, green := l3("blue_blue-network", 1, 1), l3("green_green-network", 2, 2)
	c := v4Connect("cnc")
	a, _ := NewAllocator(c, ipam.NewTunnelKeyAllocator())
	al, err := a.Allocate([]*udn.Network{blue, green})
	if err != nil {
		t.Fatal(err)
	}
	base := Input{Connect: c, Networks: []*udn.Network{blue, green}, Allocation: al, Nodes: seedNodes(), Zone: "ovn-worker",
		HostSubnets: hostSubnets([]*udn.Network{blue, green}, seedNodes())}
	for _, tc := range []struct {
		name string
		mod  func(*Input)
		want error
	}{
		{"no connect", func(in *Input) { in.Connect = nil }, ErrInvalid},
		{"no tunnel key", func(in *Input) { in.Allocation.TunnelKey = 0 }, ErrInvalid},
		{"network without subnets", func(in *Input) { in.Allocation.Subnets = nil }, ErrInvalid},
		{"remote node without chassis", func(in *Input) { in.Nodes = seedNodes(); in.Nodes[2].Chassis = "" }, ErrInvalid},
		{"no host subnet", func(in *Input) { in.HostSubnets = nil }, ErrInvalid},
		{"node ID outside the block", func(in *Input) { in.Nodes = seedNodes(); in.Nodes[0].ID = 200 }, ipam.ErrOutOfRange},
		{"NUL in the connect's name", func(in *Input) { c := *in.Connect; c.Name = "cnc\x00"; in.Connect = &c }, ErrInvalid},
		{"NUL in a network's name", func(in *Input) {
			n := blue.Clone()
			n.Name = "blue\x00"
			in.Networks = []*udn.Network{n, green}
		}, ErrInvalid},
		{"control character in a node's zone", func(in *Input) { in.Nodes = seedNodes(); in.Nodes[1].Zone = "z\n" }, ErrInvalid},
		{"DEL in the zone", func(in *Input) { in.Zone = "ovn-worker\x7f" }, ErrInvalid},
		// networkconnect TestEnsureConnectPortsOps: a network without
		// subnets panicked (index out of range).
		{"Layer3 network with no subnets", func(in *Input) {
			n := blue.Clone()
			n.Subnets = nil
			in.Networks = []*udn.Network{n, green}
		}, ErrInvalid},
		{"empty allocation", func(in *Input) {
			in.Allocation.Subnets = map[NetworkKey][]netip.Prefix{KeyOf(blue): nil, KeyOf(green): in.Allocation.Subnets[KeyOf(green)]}
		}, ErrInvalid},
		{"Layer2 network with no subnets", func(in *Input) {
			n := blue.Clone()
			n.Topology, n.Subnets = udn.TopologyLayer2, nil
			in.Networks = []*udn.Network{n, green}
		}, ErrInvalid},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := base
			tc.mod(&in)
			if _, err := Plan(in); !errors.Is(err, tc.want) {
				t.Errorf("got %v, want %v", err, tc.want)
			}
		})
	}
}

// TestTunnelKeyLimit: a port key over 32767 is refused with
// ErrTunnelKeyLimit (the reference does not check).
func TestTunnelKeyLimit(t *testing.T) {
	s := ipam.ConnectSubnet{CIDR: pfx("10.0.0.0/8"), NetworkPrefix: 20}
	if got := portTunnelKey(s, 0, 3); got != 4 {
		t.Errorf("block 0 node 3: key %d, want 4", got)
	}
	if got := portTunnelKey(s, 7, 3); got != 7*4096+4 {
		t.Errorf("block 7 node 3: key %d", got)
	}
	l := link{net: l3("n", 1, 1), tunnelKey: portTunnelKey(s, 8, 3)}
	if err := checkKey(names{cnc: "x", maxKey: MaxPortTunnelKey}, l); !errors.Is(err, ErrTunnelKeyLimit) {
		t.Errorf("key %d: %v, want ErrTunnelKeyLimit", l.tunnelKey, err)
	}
}

// TestTwoConnectsAreNotTransitive: A connects blue and green, B blue and
// red; both plan (their subnets differ), blue gets policies to both, and
// nothing leads green to red or red to green.
func TestTwoConnectsAreNotTransitive(t *testing.T) {
	blue, green, red := l3("blue_net", 1, 1), l3("green_net", 2, 2), l3("red_net", 3, 3)
	a := v4Connect("a")
	b := v4Connect("b")
	b.Spec.ConnectSubnets[0].CIDR = "192.169.0.0/16"
	sa, _ := planFor(t, a, []*udn.Network{blue, green}, seedNodes(), "ovn-worker", udn.ProfileSeeds)
	sb, _ := planFor(t, b, []*udn.Network{blue, red}, seedNodes(), "ovn-worker", udn.ProfileSeeds)
	both, err := sa.Merge(sb)
	if err != nil {
		t.Fatal(err)
	}
	reach := map[string][]string{}
	for o := range both.Objects() {
		if p, ok := o.(topology.Policy); ok {
			reach[p.Router] = append(reach[p.Router], p.Match)
		}
		if r, ok := o.(topology.StaticRoute); ok {
			if (r.Router == "connect-router-a" && strings.HasPrefix(r.Prefix.String(), "10.3.")) ||
				(r.Router == "connect-router-b" && strings.HasPrefix(r.Prefix.String(), "10.2.")) {
				t.Errorf("%s routes to a network it does not connect: %s", r.Router, r.Prefix)
			}
		}
	}
	has := func(router, dst string) bool {
		for _, m := range reach[router] {
			if strings.HasSuffix(m, dst) {
				return true
			}
		}
		return false
	}
	if !has("blue_net_ovn_cluster_router", "10.2.0.0/16") || !has("blue_net_ovn_cluster_router", "10.3.0.0/16") {
		t.Errorf("blue lacks a connection: %v", reach["blue_net_ovn_cluster_router"])
	}
	if has("green_net_ovn_cluster_router", "10.3.0.0/16") || has("red_net_ovn_cluster_router", "10.2.0.0/16") {
		t.Errorf("green and red reach each other: %v", reach)
	}
	// Accept refuses B when its connect subnet overlaps A's.
	cl := Cluster{Networks: []Network{{Network: blue, UDN: "blue/net", Namespaces: []string{"blue"}},
		{Network: red, UDN: "red/net", Namespaces: []string{"red"}}}, Namespaces: nil}
	b.Spec.ConnectSubnets[0].CIDR = "192.168.0.0/16"
	cl.Connects = []*ClusterNetworkConnect{a}
	cl.Namespaces = append(cl.Namespaces, netconfNamespace("blue"), netconfNamespace("red"))
	if acc := Accept(b, cl); acc.Condition.Reason != ReasonConnectSubnetOverlap {
		t.Errorf("overlapping connect subnets of two connects selecting blue: %s %q", acc.Condition.Reason, acc.Condition.Message)
	}
	// Seed 001: only the later of two overlapping connects is refused; the
	// older one (a, by name when created together; b when created first)
	// keeps its Accepted condition and its plumbing.
	cl.Networks = append(cl.Networks, Network{Network: green, UDN: "green/net", Namespaces: []string{"green"}})
	cl.Namespaces = append(cl.Namespaces, netconfNamespace("green"))
	cl.Connects = []*ClusterNetworkConnect{b}
	if acc := Accept(a, cl); acc.Condition.Reason == ReasonConnectSubnetOverlap {
		t.Errorf("the older connect is refused for the later one's overlap: %q", acc.Condition.Message)
	}
	b.CreationTimestamp = metav1.NewTime(time.Unix(100, 0))
	a.CreationTimestamp = metav1.NewTime(time.Unix(200, 0))
	cl.Connects = []*ClusterNetworkConnect{a}
	if acc := Accept(b, cl); acc.Condition.Reason == ReasonConnectSubnetOverlap {
		t.Errorf("b, created first, is refused: %q", acc.Condition.Message)
	}
	cl.Connects = []*ClusterNetworkConnect{b}
	if acc := Accept(a, cl); acc.Condition.Reason != ReasonConnectSubnetOverlap {
		t.Errorf("a, created after b: %s, want %s", acc.Condition.Reason, ReasonConnectSubnetOverlap)
	}
}
