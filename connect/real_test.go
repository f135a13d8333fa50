package connect_test

import (
	"context"
	"fmt"
	"net/netip"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/udnkit/udnkit/backend/ovnnb"
	"github.com/udnkit/udnkit/connect"
	"github.com/udnkit/udnkit/internal/ovntest"
	"github.com/udnkit/udnkit/ipam"
	"github.com/udnkit/udnkit/netconf/udn"
	"github.com/udnkit/udnkit/topology"
)

type pod struct{ name, sw, mac, ip, gwMAC string }

var (
	dpRE  = regexp.MustCompile(`dp="([^"]+)"`)
	outRE = regexp.MustCompile(`output to "([^"]+)"`)
)

// trace sends an ICMP echo from p to dst and returns the ovn-trace output,
// the datapaths crossed and the ports output to.
func trace(t *testing.T, env *ovntest.Env, p pod, dst string, opts ...string) (string, []string, []string) {
	t.Helper()
	match := fmt.Sprintf(`inport == %q && eth.src == %s && eth.dst == %s && ip4.src == %s && ip4.dst == %s && ip.ttl == 64 && icmp4.type == 8`,
		p.name, p.mac, p.gwMAC, p.ip, dst)
	out, err := env.Trace(context.Background(), append(opts, p.sw, match)...)
	if err != nil {
		t.Fatal(err)
	}
	var dps, outs []string
	for _, m := range dpRE.FindAllStringSubmatch(out, -1) {
		if !slices.Contains(dps, m[1]) {
			dps = append(dps, m[1])
		}
	}
	for _, m := range outRE.FindAllStringSubmatch(out, -1) {
		outs = append(outs, m[1])
	}
	return out, dps, outs
}

// realNB starts a real OVN for t and dials its NB.
func realNB(t *testing.T) (*ovntest.Env, *ovnnb.Client, context.Context) {
	t.Helper()
	env := ovntest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	c, err := ovnnb.Dial(ctx, ovnnb.Config{Endpoints: []string{env.NBUnix}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return env, c, ctx
}

// planNetworks plans each network on nodes for zone into b (mod, when set,
// edits each input first); Layer3 node i holds 10.<second>.<i+1>.0/24. It
// returns the Layer3 host subnets by network and node.
func planNetworks(t *testing.T, b *topology.Builder, nets []*udn.Network, nodes []topology.Node, zone string,
	mod func(*topology.Input)) map[string]map[string][]netip.Prefix {
	t.Helper()
	hostSubnets := map[string]map[string][]netip.Prefix{}
	for _, n := range nets {
		in := ovntest.PlanInput(n, nodes, zone)
		if n.Topology == udn.TopologyLayer3 {
			for i, nd := range nodes {
				a := n.Subnets[0].CIDR.Addr().As4()
				in.HostSubnets[nd.Name] = []netip.Prefix{netip.PrefixFrom(netip.AddrFrom4([4]byte{10, a[1], byte(i + 1), 0}), 24)}
			}
			hostSubnets[n.Name] = in.HostSubnets
		}
		if mod != nil {
			mod(&in)
		}
		s, err := topology.Plan(in)
		if err != nil {
			t.Fatal(err)
		}
		for o := range s.Objects() {
			b.Add(o)
		}
	}
	return hostSubnets
}

// addPod adds p, a pod of network on node, as a pods controller writes it.
func addPod(b *topology.Builder, network, node string, p pod) {
	b.Add(topology.SwitchPort{Owner: topology.Owner{Controller: "test-pods", Network: network, Node: node},
		Name: p.name, Switch: p.sw, Addresses: []string{p.mac + " " + p.ip}})
}

// newConnect returns a connect called name through 192.168.0.0/16.
func newConnect(name string, types ...connect.ConnectivityType) *connect.ClusterNetworkConnect {
	c := &connect.ClusterNetworkConnect{Spec: connect.ClusterNetworkConnectSpec{
		ConnectSubnets:      []connect.ConnectSubnet{{CIDR: "192.168.0.0/16", NetworkPrefix: 24}},
		ConnectivityEnabled: types}}
	c.Name = name
	return c
}

// planConnect allocates c's subnets for nets and plans it.
func planConnect(t *testing.T, c *connect.ClusterNetworkConnect, in connect.Input) topology.State {
	t.Helper()
	alloc, err := connect.NewAllocator(c, ipam.NewTunnelKeyAllocator())
	if err != nil {
		t.Fatal(err)
	}
	if in.Allocation, err = alloc.Allocate(in.Networks); err != nil {
		t.Fatal(err)
	}
	in.Connect = c
	s, err := connect.Plan(in)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func sync(t *testing.T, ctx context.Context, env *ovntest.Env, c *ovnnb.Client, s topology.State) {
	t.Helper()
	if _, _, err := c.Sync(ctx, s); err != nil {
		t.Fatal(err)
	}
	if err := env.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if ch, _, err := c.Sync(ctx, s); err != nil || len(ch) != 0 {
		t.Fatalf("a second sync changes %v (%v)", ch, err)
	}
}

func l3net(name string, id int, second byte) *udn.Network {
	return &udn.Network{Name: name, ID: id, Topology: udn.TopologyLayer3, Role: udn.RolePrimary,
		Subnets:     []udn.Subnet{{CIDR: netip.PrefixFrom(netip.AddrFrom4([4]byte{10, second, 0, 0}), 16), HostPrefix: 24}},
		JoinSubnets: ipam.DefaultJoinSubnets()[:1], TransitSubnets: ipam.DefaultTransitSubnets()[:1]}
}

// TestRealConnect applies three primary networks on three nodes of one
// zone — blue and green (Layer3) connected by a ClusterNetworkConnect, red
// (Layer2, its pod subnet overlapping blue's) not — to a real NB, and lets
// ovn-trace referee: blue reaches green on the same and on another node,
// never red; deleting the connect isolates blue and green again and leaves
// no connect row; northd reports nothing about the plan.
func TestRealConnect(t *testing.T) {
	env, c, ctx := realNB(t)
	nodes := ovntest.Nodes(3, "zone1")
	blue, green := l3net("ns1_blue", 1, 128), l3net("ns3_green", 3, 129)
	var b topology.Builder
	hostSubnets := planNetworks(t, &b, []*udn.Network{blue, green}, nodes, "zone1", nil)
	planNetworks(t, &b, []*udn.Network{ovntest.Layer2Network()}, ovntest.Nodes(3, ""), "node1", nil)
	pods := map[string]pod{
		"blue-a":  {"blue-a", "ns1_blue_node1", "0a:58:0a:80:01:05", "10.128.1.5", "0a:58:0a:80:01:01"},
		"blue-b":  {"blue-b", "ns1_blue_node2", "0a:58:0a:80:02:05", "10.128.2.5", "0a:58:0a:80:02:01"},
		"green-a": {"green-a", "ns3_green_node1", "0a:58:0a:81:01:05", "10.129.1.5", "0a:58:0a:81:01:01"},
		"green-b": {"green-b", "ns3_green_node2", "0a:58:0a:81:02:05", "10.129.2.5", "0a:58:0a:81:02:01"},
		"red-a":   {"red-a", "ns2_red_ovn_layer2_switch", "0a:58:0a:80:01:06", "10.128.1.6", "0a:58:0a:80:00:01"},
	}
	addPod(&b, "ns1_blue", "node1", pods["blue-a"])
	addPod(&b, "ns1_blue", "node2", pods["blue-b"])
	addPod(&b, "ns3_green", "node1", pods["green-a"])
	addPod(&b, "ns3_green", "node2", pods["green-b"])
	addPod(&b, "ns2_red", "node1", pods["red-a"])
	networks, err := b.State()
	if err != nil {
		t.Fatal(err)
	}
	sync(t, ctx, env, c, networks)
	cnc := newConnect("blue-green", connect.PodNetwork)
	desired := planConnect(t, cnc, connect.Input{Networks: []*udn.Network{blue, green}, Nodes: nodes, Zone: "zone1", HostSubnets: hostSubnets})
	sync(t, ctx, env, c, desired)

	reach := func(t *testing.T, from, to string) (string, []string, bool) {
		t.Helper()
		out, dps, outs := trace(t, env, pods[from], pods[to].ip)
		return out, dps, slices.Contains(outs, to)
	}
	t.Run("connected networks reach each other", func(t *testing.T) {
		for _, tc := range [][2]string{{"blue-a", "green-a"}, {"blue-a", "green-b"}, {"green-b", "blue-a"}, {"green-a", "blue-b"}} {
			out, dps, ok := reach(t, tc[0], tc[1])
			if !ok {
				t.Errorf("%s -> %s not delivered (path %v):\n%s", tc[0], tc[1], dps, out)
			}
			if !slices.Contains(dps, "connect-router-blue-green") {
				t.Errorf("%s -> %s did not cross the connect router (path %v)", tc[0], tc[1], dps)
			}
		}
	})
	t.Run("the unconnected overlapping network stays isolated", func(t *testing.T) {
		for _, from := range []string{"blue-a", "green-a"} {
			out, dps, ok := reach(t, from, "red-a")
			if ok || slices.ContainsFunc(dps, func(dp string) bool { return strings.Contains(dp, "ns2_red") }) {
				t.Errorf("%s reached red (path %v):\n%s", from, dps, out)
			}
		}
		out, dps, ok := reach(t, "red-a", "green-a")
		if ok || slices.Contains(dps, "connect-router-blue-green") {
			t.Errorf("red reached green (path %v):\n%s", dps, out)
		}
	})
	// Delete the connect: its rows go, nothing else.
	ch, _, err := c.Sync(ctx, topology.RemovalFor(connect.ControllerConnect, cnc.Name))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, del := ch.Count(); del != desired.Len() {
		t.Errorf("removal deleted %d rows, the connect had %d", del, desired.Len())
	}
	if err := env.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	t.Run("after deletion everything is isolated again", func(t *testing.T) {
		for _, tc := range [][2]string{{"blue-a", "green-a"}, {"green-b", "blue-a"}} {
			if out, dps, ok := reach(t, tc[0], tc[1]); ok {
				t.Errorf("%s -> %s still delivered (path %v):\n%s", tc[0], tc[1], dps, out)
			}
		}
		out, err := env.NBCtl(ctx, "--bare", "--columns=name", "find", "Logical_Router_Port", "peer!=[]")
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(out, "blue-green") {
			t.Errorf("connect ports remain:\n%s", out)
		}
		routers, _ := env.NBCtl(ctx, "--bare", "--columns=name", "list", "Logical_Router")
		if strings.Contains(routers, "connect-router") {
			t.Errorf("the connect router remains:\n%s", routers)
		}
		got, err := c.Observe(ctx, "ns1_blue", "ns3_green", "ns2_red")
		if err != nil {
			t.Fatal(err)
		}
		if d := topology.Diff(got, networks); len(d) != 0 {
			t.Errorf("the networks' own rows changed:\n%s", d)
		}
	})
}

// TestRealConnectMixed connects a Layer3 and a Layer2 network in node1's
// interconnect zone (every node its own zone): pods on node1 of both reach
// each other through the connect router, from the Layer3 cluster router's
// rtos- port and from the Layer2 transit router's trtos- port.
func TestRealConnectMixed(t *testing.T) {
	for _, p := range []udn.Profile{udn.ProfileSeeds, udn.ProfileReference} {
		t.Run(p.String(), func(t *testing.T) { realConnectMixed(t, p) })
	}
}

// realConnectMixed: the networks and the connect planned under profile p,
// which names the connect router and its ports (and under
// ProfileReference peers the Layer2 transit router as the reference does).
func realConnectMixed(t *testing.T, p udn.Profile) {
	env, c, ctx := realNB(t)
	nodes := ovntest.Nodes(3, "")
	blue := l3net("ns1_blue", 1, 128)
	yellow := ovntest.Layer2Network()
	yellow.Subnets[0].CIDR = netip.MustParsePrefix("10.130.0.0/16")
	var b topology.Builder
	hostSubnets := planNetworks(t, &b, []*udn.Network{blue, yellow}, nodes, "node1", func(in *topology.Input) { in.Profile = p })
	pods := map[string]pod{
		"blue-a":   {"blue-a", "ns1_blue_node1", "0a:58:0a:80:01:05", "10.128.1.5", "0a:58:0a:80:01:01"},
		"yellow-a": {"yellow-a", "ns2_red_ovn_layer2_switch", "0a:58:0a:82:00:05", "10.130.0.5", "0a:58:0a:82:00:01"},
	}
	addPod(&b, "ns1_blue", "node1", pods["blue-a"])
	addPod(&b, "ns2_red", "node1", pods["yellow-a"])
	networks, err := b.State()
	if err != nil {
		t.Fatal(err)
	}
	sync(t, ctx, env, c, networks)
	sync(t, ctx, env, c, planConnect(t, newConnect("mixed", connect.PodNetwork),
		connect.Input{Networks: []*udn.Network{blue, yellow}, Nodes: nodes, Zone: "node1", HostSubnets: hostSubnets, Profile: p}))
	router := connect.RouterName("mixed", p)
	for _, tc := range [][2]string{{"blue-a", "yellow-a"}, {"yellow-a", "blue-a"}} {
		out, dps, outs := trace(t, env, pods[tc[0]], pods[tc[1]].ip)
		if !slices.Contains(outs, tc[1]) || !slices.Contains(dps, router) {
			t.Errorf("%s -> %s not delivered through %s (path %v, outputs %v):\n%s", tc[0], tc[1], router, dps, outs, out)
		}
	}
}

// TestRealConnectServicesOnly connects blue and green with
// ClusterIPServiceNetwork alone, networks, load balancer and connect applied
// in one Sync: a pod of blue cannot open a connection to a pod of green,
// still reaches its own network on another node, and reaches green's
// ClusterIP service, load-balanced to the green pod.
func TestRealConnectServicesOnly(t *testing.T) {
	env, c, ctx := realNB(t)
	cnc := newConnect("blue-green", connect.ClusterIPServiceNetwork)
	nodes := ovntest.Nodes(3, "zone1")
	blue, green := l3net("ns1_blue", 1, 128), l3net("ns3_green", 3, 129)
	nets := []*udn.Network{blue, green}
	peers := connect.ServiceGroups(cnc, nets)
	var b topology.Builder
	hostSubnets := planNetworks(t, &b, nets, nodes, "zone1", func(in *topology.Input) {})
	pods := map[string]pod{
		"blue-a":  {"blue-a", "ns1_blue_node1", "0a:58:0a:80:01:05", "10.128.1.5", "0a:58:0a:80:01:01"},
		"blue-b":  {"blue-b", "ns1_blue_node2", "0a:58:0a:80:02:05", "10.128.2.5", "0a:58:0a:80:02:01"},
		"green-a": {"green-a", "ns3_green_node1", "0a:58:0a:81:01:05", "10.129.1.5", "0a:58:0a:81:01:01"},
	}
	addPod(&b, "ns1_blue", "node1", pods["blue-a"])
	addPod(&b, "ns1_blue", "node2", pods["blue-b"])
	addPod(&b, "ns3_green", "node1", pods["green-a"])
	// green's ClusterIP service, as a services controller writes it: in
	// green's cluster group and in the groups ServiceGroups names.
	greenCluster, _, _ := topology.LoadBalancerGroupNames("ns3_green")
	b.Add(topology.LoadBalancer{Owner: topology.Owner{Controller: "test-services", Network: "ns3_green"},
		Name: "ns3_green_svc_cluster", Protocol: topology.ProtocolTCP, VIPs: []topology.LBVIP{{
			VIP: netip.MustParseAddrPort("10.96.0.50:80"), Backends: []netip.AddrPort{netip.MustParseAddrPort("10.129.1.5:8080")}}},
		Groups: append([]string{greenCluster}, peers["ns3_green"]...)})
	conn := planConnect(t, cnc, connect.Input{Networks: nets, Nodes: nodes, Zone: "zone1", HostSubnets: hostSubnets,
		ServiceCIDRs: []netip.Prefix{netip.MustParsePrefix("10.96.0.0/16")}})
	for o := range conn.Objects() {
		b.Add(o)
	}
	// Networks, pods, the service and the connect in one Sync.
	all, err := b.State()
	if err != nil {
		t.Fatal(err)
	}
	sync(t, ctx, env, c, all)
	// A new connection: every conntrack lookup on the way says new.
	ctNew := []string{"--ct=new,trk", "--ct=new,trk", "--ct=new,trk", "--ct=new,trk"}
	t.Run("pod to pod across networks is dropped", func(t *testing.T) {
		out, dps, outs := trace(t, env, pods["blue-a"], pods["green-a"].ip, ctNew...)
		if slices.Contains(outs, "green-a") || slices.Contains(dps, "ns3_green_node1") {
			t.Errorf("blue-a reached green-a directly (path %v):\n%s", dps, out)
		}
		if !regexp.MustCompile(`ls_in_acl_eval .*\$connected_udn_subnets_blue_green_v4 && ct.new\), priority 5950`).MatchString(out) {
			t.Errorf("blue-a -> green-a not dropped by the connect's drop ACL (tier 0, priority 4950):\n%s", out)
		}
	})
	t.Run("pod to pod inside one network is delivered", func(t *testing.T) {
		for _, opts := range [][]string{nil, ctNew} {
			out, dps, outs := trace(t, env, pods["blue-a"], pods["blue-b"].ip, opts...)
			if !slices.Contains(outs, "blue-b") {
				t.Errorf("blue-a -> blue-b (%v) not delivered (path %v):\n%s", opts, dps, out)
			}
		}
	})
	t.Run("pod to the other network's ClusterIP is load-balanced and delivered", func(t *testing.T) {
		p := pods["blue-a"]
		match := fmt.Sprintf(`inport == %q && eth.src == %s && eth.dst == %s && ip4.src == %s && ip4.dst == 10.96.0.50 && ip.ttl == 64 && tcp && tcp.dst == 80`,
			p.name, p.mac, p.gwMAC, p.ip)
		out, err := env.Trace(ctx, "--lb-dst=10.129.1.5:8080", p.sw, match)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out, `output to "green-a"`) || !strings.Contains(out, "connect-router-blue-green") {
			t.Errorf("blue-a -> 10.96.0.50:80 not delivered to green-a through the connect router:\n%s", out)
		}
	})
}

// BenchmarkRealAddNode applies, to a real NB holding a connect of 30
// Layer3 networks on 500 nodes (15,000 connect-router ports and routes, the
// most one router's port keys allow with /22 blocks), the change of node
// 501 joining — then of it leaving — and reports the milliseconds of each.
func BenchmarkRealAddNode(b *testing.B) {
	env := ovntest.Start(b)
	ctx := context.Background()
	c, err := ovnnb.Dial(ctx, ovnnb.Config{Endpoints: []string{env.NBUnix}})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	const networks, nodes = 30, 500
	var nds []topology.Node
	for i := range nodes + 1 {
		nds = append(nds, topology.Node{Name: fmt.Sprintf("node%d", i), ID: ipam.MinNodeID + i, Chassis: fmt.Sprintf("chassis-%d", i)})
	}
	var nets []*udn.Network
	var routers topology.Builder
	hostSubnets := map[string]map[string][]netip.Prefix{}
	for i := range networks {
		n := l3net(fmt.Sprintf("ns%d_net", i), i+1, byte(100+i))
		nets = append(nets, n)
		routers.Add(topology.Router{Owner: topology.Owner{Network: n.Name}, Name: n.Prefix() + "ovn_cluster_router"})
		hostSubnets[n.Name] = map[string][]netip.Prefix{}
		for j, nd := range nds {
			hostSubnets[n.Name][nd.Name] = []netip.Prefix{netip.PrefixFrom(netip.AddrFrom4([4]byte{10, byte(100 + i), byte(j >> 8), byte(j)}), 32)}
		}
	}
	rs, err := routers.State()
	if err != nil {
		b.Fatal(err)
	}
	if _, _, err := c.Sync(ctx, rs); err != nil {
		b.Fatal(err)
	}
	cnc := newConnect("bench", connect.PodNetwork)
	cnc.Spec.ConnectSubnets[0] = connect.ConnectSubnet{CIDR: "10.0.0.0/8", NetworkPrefix: 22}
	alloc, err := connect.NewAllocator(cnc, ipam.NewTunnelKeyAllocator())
	if err != nil {
		b.Fatal(err)
	}
	al, err := alloc.Allocate(nets)
	if err != nil {
		b.Fatal(err)
	}
	in := connect.Input{Connect: cnc, Networks: nets, Allocation: al, Nodes: nds[:nodes], Zone: "node0", HostSubnets: hostSubnets}
	base, err := connect.Plan(in)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := c.Apply(ctx, topology.Diff(topology.State{}, base)); err != nil {
		b.Fatal(err)
	}
	in.Nodes = nds
	part, err := connect.PlanNodes(in, "node500")
	if err != nil {
		b.Fatal(err)
	}
	add := topology.Diff(base, part)
	remove := topology.Diff(base.Overlay(part), base)
	b.ReportAllocs()
	var addT, removeT time.Duration
	for b.Loop() {
		start := time.Now()
		if _, err := c.Apply(ctx, add); err != nil {
			b.Fatal(err)
		}
		mid := time.Now()
		if _, err := c.Apply(ctx, remove); err != nil {
			b.Fatal(err)
		}
		addT, removeT = addT+mid.Sub(start), removeT+time.Since(mid)
	}
	b.ReportMetric(float64(base.Len()), "rows")
	b.ReportMetric(float64(len(add)), "changes")
	b.ReportMetric(float64(addT.Milliseconds())/float64(b.N), "add-ms/op")
	b.ReportMetric(float64(removeT.Milliseconds())/float64(b.N), "remove-ms/op")
}
