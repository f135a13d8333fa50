package connect_test

import (
	"context"
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"testing"

	"github.com/udnkit/udnkit/backend/ovnnb"
	"github.com/udnkit/udnkit/connect"
	"github.com/udnkit/udnkit/internal/ovntest"
	"github.com/udnkit/udnkit/ipam"
	"github.com/udnkit/udnkit/netconf/udn"
	"github.com/udnkit/udnkit/topology"
)

func l2net(name string, id int, second byte) *udn.Network {
	return &udn.Network{Name: name, ID: id, Topology: udn.TopologyLayer2, Role: udn.RolePrimary,
		Subnets:     []udn.Subnet{{CIDR: netip.PrefixFrom(netip.AddrFrom4([4]byte{10, second, 0, 0}), 16)}},
		JoinSubnets: ipam.DefaultJoinSubnets()[:1], TransitSubnets: ipam.DefaultTransitSubnets()[:1]}
}

// zoneNB is one interconnect zone's real NB.
type zoneNB struct {
	env      *ovntest.Env
	c        *ovnnb.Client
	ctx      context.Context
	networks topology.State
}

// TestRealPrimaryLinks links the primary networks of namespace ns1 — a
// (Layer3, 10.1.0.0/16), b (Layer2, 10.2.0.0/16) and c (Layer3,
// 10.3.0.0/16) — and of ns2 — x (Layer3, 10.1.0.0/16, overlapping a) and z
// (Layer3, 10.5.0.0/16) — on three nodes, each its own zone; node1's and
// node2's zones each get a real NB. ovn-trace referees seed 002's routing
// property: traffic from node1 to another network's pod on node2 changes
// networks in node1's zone (source network's router, link router,
// destination network's router) and leaves node1 only on the destination
// network's overlay (its transit switch, its Layer2 switch), where node2's
// zone delivers it; the other way likewise; ns2 stays apart from ns1; the
// link's removal isolates the networks again and leaves no row of it.
func TestRealPrimaryLinks(t *testing.T) {
	nodes := ovntest.Nodes(3, "")
	a, b, c := l3net("ns1_a", 1, 1), l2net("ns1_b", 2, 2), l3net("ns1_c", 3, 3)
	x, z := l3net("ns2_x", 4, 1), l3net("ns2_z", 5, 5)
	nets := []*udn.Network{a, b, c, x, z}
	pods := map[string]pod{
		"a1": {"a1", "ns1_a_node1", "0a:58:0a:01:01:05", "10.1.1.5", "0a:58:0a:01:01:01"},
		"a2": {"a2", "ns1_a_node2", "0a:58:0a:01:02:05", "10.1.2.5", "0a:58:0a:01:02:01"},
		"b1": {"b1", "ns1_b_ovn_layer2_switch", "0a:58:0a:02:00:05", "10.2.0.5", "0a:58:0a:02:00:01"},
		"b2": {"b2", "ns1_b_ovn_layer2_switch", "0a:58:0a:02:00:06", "10.2.0.6", "0a:58:0a:02:00:01"},
		"c1": {"c1", "ns1_c_node1", "0a:58:0a:03:01:05", "10.3.1.5", "0a:58:0a:03:01:01"},
		"c2": {"c2", "ns1_c_node2", "0a:58:0a:03:02:05", "10.3.2.5", "0a:58:0a:03:02:01"},
		"x1": {"x1", "ns2_x_node1", "0a:58:0a:01:01:07", "10.1.1.7", "0a:58:0a:01:01:01"},
		"z2": {"z2", "ns2_z_node2", "0a:58:0a:05:02:05", "10.5.2.5", "0a:58:0a:05:02:01"},
	}
	netOf := map[string]string{"a": "ns1_a", "b": "ns1_b", "c": "ns1_c", "x": "ns2_x", "z": "ns2_z"}
	links := map[string][]*udn.Network{"ns1": {a, b, c}, "ns2": {x, z}}
	zones := map[string]*zoneNB{}
	var hostSubnets map[string]map[string][]netip.Prefix // the same in every zone
	for i, zone := range []string{"node1", "node2"} {
		env, cl, ctx := realNB(t)
		var bld topology.Builder
		hostSubnets = planNetworks(t, &bld, nets, nodes, zone, nil)
		for name, p := range pods {
			switch node := "node" + name[1:]; {
			case node == zone:
				addPod(&bld, netOf[name[:1]], node, p)
			case p.sw == "ns1_b_ovn_layer2_switch": // b's pod on the other node
				bld.Add(ovntest.RemotePod(topology.Owner{Controller: "test-pods", Network: "ns1_b"}, p.name, p.sw,
					p.mac+" "+p.ip, nodes[1-i]))
			}
		}
		networks, err := bld.State()
		if err != nil {
			t.Fatal(err)
		}
		sync(t, ctx, env, cl, networks)
		var all []topology.State
		for name, ns := range links {
			s, err := connect.PlanPrimaryLinks(connect.PrimaryLinksInput{Name: name, Networks: ns, Nodes: nodes, Zone: zone})
			if err != nil {
				t.Fatal(err)
			}
			all = append(all, s)
		}
		merged, err := all[0].Merge(all[1:]...)
		if err != nil {
			t.Fatal(err)
		}
		sync(t, ctx, env, cl, merged)
		// The networks' own sync, run again over the links' rows on their
		// routers, finds nothing to change: it neither deletes nor
		// rewrites what the link controller wrote.
		if ch, _, err := cl.Sync(ctx, networks); err != nil || len(ch) != 0 {
			t.Fatalf("zone %s: the networks' sync after the links changes %v (%v)", zone, ch, err)
		}
		zones[zone] = &zoneNB{env: env, c: cl, ctx: ctx, networks: networks}
	}

	// crossing checks the trace of from -> to in from's zone: the
	// datapaths follow want in order, and the one remote output is last,
	// to remote (the destination network's port towards the other node).
	// crossingProblems returns what is wrong with it, the trace last.
	crossingProblems := func(t *testing.T, zone, from, to string, want []string, remote string) []string {
		t.Helper()
		out, dps, outs := trace(t, zones[zone].env, pods[from], pods[to].ip)
		var problems []string
		i := 0
		for _, dp := range dps {
			if i < len(want) && dp == want[i] {
				i++
			}
		}
		if i < len(want) {
			problems = append(problems, fmt.Sprintf("%s -> %s: path %v, want %v in this order in zone %s", from, to, dps, want, zone))
		}
		if len(outs) == 0 || outs[len(outs)-1] != remote {
			problems = append(problems, fmt.Sprintf("%s -> %s: outputs %v, want the last to %s", from, to, outs, remote))
		}
		src := netOf[from[:1]]
		for j, dp := range dps {
			if dp == src+"_transit_switch" || (strings.HasPrefix(dp, src) && j > slices.Index(dps, want[2])) {
				problems = append(problems, fmt.Sprintf("%s -> %s: the source network's %s carries it (path %v)", from, to, dp, dps))
			}
		}
		if problems != nil {
			problems = append(problems, out)
		}
		return problems
	}
	crossing := func(t *testing.T, zone, from, to string, want []string, remote string) {
		t.Helper()
		if p := crossingProblems(t, zone, from, to, want, remote); p != nil {
			t.Error(strings.Join(p, "\n"))
		}
	}
	// arrive traces, in to's zone, the packet arriving from the other node
	// on the destination network's transit switch, and wants it delivered.
	arrive := func(t *testing.T, zone, from, to, network string, srcNodeID, dstNodeID int, srcNode string) {
		t.Helper()
		mac := func(id int) string { return fmt.Sprintf("0a:58:64:58:00:%02x", id) }
		match := fmt.Sprintf(`inport == "%s_tstor-%s" && eth.src == %s && eth.dst == %s && ip4.src == %s && ip4.dst == %s && ip.ttl == 62 && icmp4.type == 8`,
			network, srcNode, mac(srcNodeID), mac(dstNodeID), pods[from].ip, pods[to].ip)
		out, err := zones[zone].env.Trace(context.Background(), network+"_transit_switch", match)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out, fmt.Sprintf("output to %q", to)) {
			t.Errorf("%s -> %s arriving on %s's transit switch in zone %s not delivered:\n%s", from, to, network, zone, out)
		}
	}
	link1 := connect.PrimaryLinkRouterName("ns1")
	t.Run("node1 to node2 crosses on node1 and rides the destination overlay", func(t *testing.T) {
		// Layer3 a to Layer2 b: a's router, the link, b's transit router
		// in node1's zone, then b's switch to b2's port on node2.
		crossing(t, "node1", "a1", "b2", []string{"ns1_a_node1", "ns1_a_ovn_cluster_router", link1, "ns1_b_transit_router",
			"ns1_b_ovn_layer2_switch"}, "b2")
		// Layer3 a to Layer3 c: c's transit switch to node2, where c's
		// router delivers.
		crossing(t, "node1", "a1", "c2", []string{"ns1_a_node1", "ns1_a_ovn_cluster_router", link1, "ns1_c_ovn_cluster_router",
			"ns1_c_transit_switch"}, "ns1_c_tstor-node2")
		arrive(t, "node2", "a1", "c2", "ns1_c", 2, 3, "node1")
		// Layer2 b to Layer3 c.
		crossing(t, "node1", "b1", "c2", []string{"ns1_b_ovn_layer2_switch", "ns1_b_transit_router", link1, "ns1_c_ovn_cluster_router",
			"ns1_c_transit_switch"}, "ns1_c_tstor-node2")
		arrive(t, "node2", "b1", "c2", "ns1_c", 2, 3, "node1")
	})
	t.Run("node2 to node1 crosses on node2 and rides the destination overlay", func(t *testing.T) {
		crossing(t, "node2", "b2", "a1", []string{"ns1_b_ovn_layer2_switch", "ns1_b_transit_router", link1, "ns1_a_ovn_cluster_router",
			"ns1_a_transit_switch"}, "ns1_a_tstor-node1")
		arrive(t, "node1", "b2", "a1", "ns1_a", 3, 2, "node2")
		crossing(t, "node2", "c2", "a1", []string{"ns1_c_node2", "ns1_c_ovn_cluster_router", link1, "ns1_a_ovn_cluster_router",
			"ns1_a_transit_switch"}, "ns1_a_tstor-node1")
		arrive(t, "node1", "c2", "a1", "ns1_a", 3, 2, "node2")
		crossing(t, "node2", "c2", "b1", []string{"ns1_c_node2", "ns1_c_ovn_cluster_router", link1, "ns1_b_transit_router",
			"ns1_b_ovn_layer2_switch"}, "b1")
	})
	t.Run("same node across networks", func(t *testing.T) {
		for _, tc := range [][2]string{{"a1", "b1"}, {"b1", "a1"}, {"a1", "c1"}, {"c1", "b1"}} {
			out, dps, outs := trace(t, zones["node1"].env, pods[tc[0]], pods[tc[1]].ip)
			if !slices.Contains(outs, tc[1]) || !slices.Contains(dps, link1) {
				t.Errorf("%s -> %s not delivered through %s (path %v, outputs %v):\n%s", tc[0], tc[1], link1, dps, outs, out)
			}
		}
	})
	t.Run("another namespace's networks stay isolated", func(t *testing.T) {
		for _, tc := range [][2]string{{"x1", "b1"}, {"x1", "c1"}, {"x1", "a1"}, {"a1", "x1"}, {"b1", "x1"}} {
			out, dps, outs := trace(t, zones["node1"].env, pods[tc[0]], pods[tc[1]].ip)
			other := "ns1_"
			if tc[0][0] != 'x' {
				other = "ns2_"
			}
			if slices.Contains(outs, tc[1]) || slices.ContainsFunc(dps, func(dp string) bool { return strings.HasPrefix(dp, other) }) {
				t.Errorf("%s reached %s's namespace (path %v, outputs %v):\n%s", tc[0], tc[1], dps, outs, out)
			}
		}
		// ns2's own link works and crosses on node1 too.
		crossing(t, "node1", "x1", "z2", []string{"ns2_x_node1", "ns2_x_ovn_cluster_router", connect.PrimaryLinkRouterName("ns2"),
			"ns2_z_ovn_cluster_router", "ns2_z_transit_switch"}, "ns2_z_tstor-node2")
	})

	for _, zn := range zones {
		if _, _, err := zn.c.Sync(zn.ctx, topology.RemovalFor(connect.ControllerPrimaryLinks, "ns1")); err != nil {
			t.Fatal(err)
		}
		if err := zn.env.Sync(zn.ctx); err != nil {
			t.Fatal(err)
		}
	}
	t.Run("after removal the networks are isolated and no link row is left", func(t *testing.T) {
		for _, tc := range [][3]string{{"node1", "a1", "b2"}, {"node1", "a1", "c2"}, {"node1", "b1", "a1"}, {"node2", "c2", "a1"}} {
			out, dps, outs := trace(t, zones[tc[0]].env, pods[tc[1]], pods[tc[2]].ip)
			dst := netOf[tc[2][:1]]
			if slices.Contains(dps, link1) || slices.ContainsFunc(outs, func(o string) bool { return o == tc[2] || strings.HasPrefix(o, dst) }) ||
				slices.ContainsFunc(dps, func(dp string) bool { return strings.HasPrefix(dp, dst) }) {
				t.Errorf("%s -> %s still forwarded (path %v, outputs %v):\n%s", tc[1], tc[2], dps, outs, out)
			}
		}
		for zone, zn := range zones {
			for _, table := range []string{"Logical_Router", "Logical_Router_Port", "Logical_Router_Static_Route", "Logical_Router_Policy"} {
				out, err := zn.env.NBCtl(zn.ctx, "--bare", "--columns=external_ids", "find", table, `external_ids:"k8s.ovn.org/network"=ns1`)
				if err != nil {
					t.Fatal(err)
				}
				if strings.TrimSpace(out) != "" {
					t.Errorf("zone %s: %s rows of the link remain:\n%s", zone, table, out)
				}
			}
			got, err := zn.c.Observe(zn.ctx, "ns1_a", "ns1_b", "ns1_c", "ns2_x", "ns2_z")
			if err != nil {
				t.Fatal(err)
			}
			if d := topology.Diff(got, zn.networks); len(d) != 0 {
				t.Errorf("zone %s: the networks' own rows changed:\n%s", zone, d)
			}
		}
		// ns2's link is untouched.
		out, dps, outs := trace(t, zones["node1"].env, pods["x1"], pods["z2"].ip)
		if !slices.Contains(outs, "ns2_z_tstor-node2") {
			t.Errorf("x1 -> z2 no longer forwarded (path %v):\n%s", dps, out)
		}
	})
	// The checks above can fail: a ClusterNetworkConnect of a, b and c in
	// the link's place also delivers, but from node1 to c's pod on node2
	// it leaves node1 by its own router's port bound to node2 (the shared
	// connect-router tunnel), which seed 002 rules out.
	t.Run("a ClusterNetworkConnect instead fails the crossing check", func(t *testing.T) {
		cnc := newConnect("ns1", connect.PodNetwork)
		for zone, zn := range zones {
			sync(t, zn.ctx, zn.env, zn.c, planConnect(t, cnc, connect.Input{Networks: links["ns1"], Nodes: nodes, Zone: zone,
				HostSubnets: hostSubnets}))
		}
		p := crossingProblems(t, "node1", "a1", "c2", []string{"ns1_a_node1", "ns1_a_ovn_cluster_router", connect.RouterName("ns1", udn.ProfileSeeds),
			"ns1_c_ovn_cluster_router", "ns1_c_transit_switch"}, "ns1_c_tstor-node2")
		if len(p) == 0 || !strings.Contains(p[len(p)-1], `output to "ns1-to-ns1_c-node2"`) {
			t.Errorf("through a ClusterNetworkConnect, a1 -> c2 passes the crossing check or does not leave by the connect router's port bound to node2:\n%s",
				strings.Join(p, "\n"))
		}
	})
	// With the connect still there, the link back: its policies, above the
	// connect's, carry the namespace's traffic again.
	t.Run("the link takes precedence over a ClusterNetworkConnect of the same networks", func(t *testing.T) {
		for zone, zn := range zones {
			s, err := connect.PlanPrimaryLinks(connect.PrimaryLinksInput{Name: "ns1", Networks: links["ns1"], Nodes: nodes, Zone: zone})
			if err != nil {
				t.Fatal(err)
			}
			sync(t, zn.ctx, zn.env, zn.c, s)
		}
		crossing(t, "node1", "a1", "c2", []string{"ns1_a_node1", "ns1_a_ovn_cluster_router", link1, "ns1_c_ovn_cluster_router",
			"ns1_c_transit_switch"}, "ns1_c_tstor-node2")
		crossing(t, "node2", "b2", "a1", []string{"ns1_b_ovn_layer2_switch", "ns1_b_transit_router", link1, "ns1_a_ovn_cluster_router",
			"ns1_a_transit_switch"}, "ns1_a_tstor-node1")
	})
}

// TestRealPrimaryLinksOneZone links two Layer3 primary networks of ns1 in
// a zone of three nodes: the link router has one pair per network, and
// pods of either network on any node reach the other network's pods on
// any node through it, each node's pod port rerouted.
func TestRealPrimaryLinksOneZone(t *testing.T) {
	env, c, ctx := realNB(t)
	nodes := ovntest.Nodes(3, "zone1")
	a, cn := l3net("ns1_a", 1, 1), l3net("ns1_c", 3, 3)
	var bld topology.Builder
	planNetworks(t, &bld, []*udn.Network{a, cn}, nodes, "zone1", nil)
	pods := map[string]pod{
		"a1": {"a1", "ns1_a_node1", "0a:58:0a:01:01:05", "10.1.1.5", "0a:58:0a:01:01:01"},
		"a3": {"a3", "ns1_a_node3", "0a:58:0a:01:03:05", "10.1.3.5", "0a:58:0a:01:03:01"},
		"c2": {"c2", "ns1_c_node2", "0a:58:0a:03:02:05", "10.3.2.5", "0a:58:0a:03:02:01"},
	}
	addPod(&bld, "ns1_a", "node1", pods["a1"])
	addPod(&bld, "ns1_a", "node3", pods["a3"])
	addPod(&bld, "ns1_c", "node2", pods["c2"])
	networks, err := bld.State()
	if err != nil {
		t.Fatal(err)
	}
	sync(t, ctx, env, c, networks)
	s, err := connect.PlanPrimaryLinks(connect.PrimaryLinksInput{Name: "ns1", Networks: []*udn.Network{a, cn}, Nodes: nodes, Zone: "zone1"})
	if err != nil {
		t.Fatal(err)
	}
	sync(t, ctx, env, c, s)
	for _, tc := range [][2]string{{"a1", "c2"}, {"a3", "c2"}, {"c2", "a1"}, {"c2", "a3"}} {
		out, dps, outs := trace(t, env, pods[tc[0]], pods[tc[1]].ip)
		if !slices.Contains(outs, tc[1]) || !slices.Contains(dps, connect.PrimaryLinkRouterName("ns1")) {
			t.Errorf("%s -> %s not delivered through the link router (path %v, outputs %v):\n%s", tc[0], tc[1], dps, outs, out)
		}
	}
}

// TestRealPrimaryLinksIPv6 links a dual-stack Layer3 network a and a
// dual-stack Layer2 network b of ns1 in node1's zone (each node its own
// zone) and traces IPv6: a1 reaches b's pod on node2 over b's switch, b1
// reaches a's pods on node2 over a's transit switch, both crossing in
// node1's zone through the link router.
func TestRealPrimaryLinksIPv6(t *testing.T) {
	env, c, ctx := realNB(t)
	nodes := ovntest.Nodes(3, "")
	for i := range nodes {
		nodes[i].Addresses = append(nodes[i].Addresses, netip.PrefixFrom(netip.AddrFrom16([16]byte{0xfc, 0, 15: byte(nodes[i].ID)}), 64))
		nodes[i].NextHops = append(nodes[i].NextHops, netip.MustParseAddr("fc00::1"))
	}
	a, b := l3net("ns1_a", 1, 1), l2net("ns1_b", 2, 2)
	for _, n := range []*udn.Network{a, b} {
		n.Subnets = append(n.Subnets, udn.Subnet{CIDR: netip.PrefixFrom(netip.AddrFrom16([16]byte{0xfd, 0, 0, byte(n.ID)}), 60)})
		n.JoinSubnets, n.TransitSubnets = ipam.DefaultJoinSubnets(), ipam.DefaultTransitSubnets()
	}
	a.Subnets[1].HostPrefix = 64
	var bld topology.Builder
	planNetworks(t, &bld, []*udn.Network{a, b}, nodes, "node1", func(in *topology.Input) {
		if in.Network.Name != "ns1_a" {
			return
		}
		for i, nd := range nodes {
			in.HostSubnets[nd.Name] = append(in.HostSubnets[nd.Name][:1],
				netip.PrefixFrom(netip.AddrFrom16([16]byte{0xfd, 0, 0, 1, 0, 0, 0, byte(i + 1)}), 64))
		}
	})
	type pod6 struct{ name, sw, mac, ip4, ip6, gwMAC string }
	pods := map[string]pod6{
		"a1": {"a1", "ns1_a_node1", "0a:58:0a:01:01:05", "10.1.1.5", "fd00:1:0:1::5", "0a:58:0a:01:01:01"},
		"b1": {"b1", "ns1_b_ovn_layer2_switch", "0a:58:0a:02:00:05", "10.2.0.5", "fd00:2::5", "0a:58:0a:02:00:01"},
		"b2": {"b2", "ns1_b_ovn_layer2_switch", "0a:58:0a:02:00:06", "10.2.0.6", "fd00:2::6", "0a:58:0a:02:00:01"},
	}
	for _, name := range []string{"a1", "b1"} {
		p := pods[name]
		bld.Add(topology.SwitchPort{Owner: topology.Owner{Controller: "test-pods", Network: "ns1_" + name[:1], Node: "node1"},
			Name: p.name, Switch: p.sw, Addresses: []string{p.mac + " " + p.ip4 + " " + p.ip6}})
	}
	p := pods["b2"]
	bld.Add(ovntest.RemotePod(topology.Owner{Controller: "test-pods", Network: "ns1_b"}, p.name, p.sw, p.mac+" "+p.ip4+" "+p.ip6, nodes[1]))
	networks, err := bld.State()
	if err != nil {
		t.Fatal(err)
	}
	sync(t, ctx, env, c, networks)
	s, err := connect.PlanPrimaryLinks(connect.PrimaryLinksInput{Name: "ns1", Networks: []*udn.Network{a, b}, Nodes: nodes, Zone: "node1"})
	if err != nil {
		t.Fatal(err)
	}
	sync(t, ctx, env, c, s)
	link := connect.PrimaryLinkRouterName("ns1")
	for _, tc := range []struct {
		from, dst string
		path      []string
		out       string
	}{
		{"a1", "fd00:2::6", []string{"ns1_a_ovn_cluster_router", link, "ns1_b_transit_router", "ns1_b_ovn_layer2_switch"}, "b2"},
		{"b1", "fd00:1:0:2::5", []string{"ns1_b_transit_router", link, "ns1_a_ovn_cluster_router", "ns1_a_transit_switch"}, "ns1_a_tstor-node2"},
	} {
		p := pods[tc.from]
		match := fmt.Sprintf(`inport == %q && eth.src == %s && eth.dst == %s && ip6.src == %s && ip6.dst == %s && ip.ttl == 64 && icmp6.type == 128`,
			p.name, p.mac, p.gwMAC, p.ip6, tc.dst)
		out, err := env.Trace(ctx, p.sw, match)
		if err != nil {
			t.Fatal(err)
		}
		var dps []string
		for _, m := range dpRE.FindAllStringSubmatch(out, -1) {
			if !slices.Contains(dps, m[1]) {
				dps = append(dps, m[1])
			}
		}
		outs := outRE.FindAllStringSubmatch(out, -1)
		i := 0
		for _, dp := range dps {
			if i < len(tc.path) && dp == tc.path[i] {
				i++
			}
		}
		if i < len(tc.path) || len(outs) == 0 || outs[len(outs)-1][1] != tc.out {
			t.Errorf("%s -> %s: path %v, want %v, last output to %s:\n%s", tc.from, tc.dst, dps, tc.path, tc.out, out)
		}
	}
}

// TestRealPrimaryLinksServices: a Service of ns1 backed by a pod of the
// Layer3 network a on node2 has its load balancer in a's cluster group
// and in the groups PrimaryServiceGroups names (b's switch group), so a
// pod of the Layer2 network b on node1 reaches it: load-balanced on b's
// switch, then across the link in node1's zone and over a's transit
// switch to node2. Without the peer groups it is not load-balanced.
func TestRealPrimaryLinksServices(t *testing.T) {
	nodes := ovntest.Nodes(3, "")
	a, b := l3net("ns1_a", 1, 1), l2net("ns1_b", 2, 2)
	nets := []*udn.Network{a, b}
	b1 := pod{"b1", "ns1_b_ovn_layer2_switch", "0a:58:0a:02:00:05", "10.2.0.5", "0a:58:0a:02:00:01"}
	for _, peers := range []bool{true, false} {
		t.Run(fmt.Sprintf("peer groups %v", peers), func(t *testing.T) {
			env, c, ctx := realNB(t)
			var bld topology.Builder
			planNetworks(t, &bld, nets, nodes, "node1", nil)
			addPod(&bld, "ns1_b", "node1", b1)
			cluster, _, _ := topology.LoadBalancerGroupNames("ns1_a")
			groups := []string{cluster}
			if peers {
				groups = append(groups, connect.PrimaryServiceGroups(nets)["ns1_a"]...)
			}
			bld.Add(topology.LoadBalancer{Owner: topology.Owner{Controller: "test-services", Network: "ns1_a"},
				Name: "ns1_a_svc_cluster", Protocol: topology.ProtocolTCP, VIPs: []topology.LBVIP{{
					VIP: netip.MustParseAddrPort("10.96.0.50:80"), Backends: []netip.AddrPort{netip.MustParseAddrPort("10.1.2.5:8080")}}},
				Groups: groups})
			networks, err := bld.State()
			if err != nil {
				t.Fatal(err)
			}
			sync(t, ctx, env, c, networks)
			s, err := connect.PlanPrimaryLinks(connect.PrimaryLinksInput{Name: "ns1", Networks: nets, Nodes: nodes, Zone: "node1"})
			if err != nil {
				t.Fatal(err)
			}
			sync(t, ctx, env, c, s)
			match := fmt.Sprintf(`inport == %q && eth.src == %s && eth.dst == %s && ip4.src == %s && ip4.dst == 10.96.0.50 && ip.ttl == 64 && tcp && tcp.dst == 80`,
				b1.name, b1.mac, b1.gwMAC, b1.ip)
			out, err := env.Trace(ctx, "--lb-dst=10.1.2.5:8080", b1.sw, match)
			if err != nil {
				t.Fatal(err)
			}
			got := strings.Contains(out, `output to "ns1_a_tstor-node2"`) && strings.Contains(out, connect.PrimaryLinkRouterName("ns1"))
			if got != peers {
				t.Errorf("b1 -> 10.96.0.50:80 through the link to a's pod on node2: %v, want %v:\n%s", got, peers, out)
			}
		})
	}
}
