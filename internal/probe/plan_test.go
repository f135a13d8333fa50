package probe_test

import (
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"testing"

	"github.com/udnkit/udnkit"
	"github.com/udnkit/udnkit/internal/manifest"
	"github.com/udnkit/udnkit/internal/ovntest"
	"github.com/udnkit/udnkit/internal/probe"
	"github.com/udnkit/udnkit/netconf"
	"github.com/udnkit/udnkit/topology"
)

// loadCluster builds the Cluster of a manifest file.
func loadCluster(t testing.TB, file string) *udnkit.Cluster {
	t.Helper()
	_, c := loadSet(t, file)
	return c
}

func loadSet(t testing.TB, file string) (*manifest.Set, *udnkit.Cluster) {
	t.Helper()
	objs, err := manifest.ReadPaths([]string{file}, nil)
	if err != nil {
		t.Fatal(err)
	}
	set, errs := manifest.Decode(objs)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	l, err := manifest.Load(set, udnkit.Config{})
	if err != nil {
		t.Fatal(err)
	}
	return set, l.Cluster
}

// load builds the Cluster of a manifest file, plans zone and plans its
// probes on tcp/80.
func load(t *testing.T, file, zone string) (*probe.Plan, topology.State) {
	t.Helper()
	set, c := loadSet(t, file)
	st, err := c.Plan(zone)
	if err != nil {
		t.Fatal(err)
	}
	cfg := probe.Config{Zone: zone, Port: 80}
	for _, p := range set.Pods {
		cfg.Pods = append(cfg.Pods, probe.PodRef{Namespace: p.Namespace, Name: p.Name, Node: p.Spec.NodeName})
	}
	p, err := probe.Probes(c, st, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return p, st
}

func find(t *testing.T, p *probe.Plan, from, to string) probe.Probe {
	t.Helper()
	for _, pr := range p.Probes {
		if pr.From.String() == from && pr.To.String() == to {
			return pr
		}
	}
	t.Fatalf("no probe %s -> %s", from, to)
	return probe.Probe{}
}

// TestProbesSeed001: seed 001 has no pods: every network's management port
// on ovn-worker probes every network's on every node (a Layer2 network's
// on ovn-worker only); the intents follow the connect.
func TestProbesSeed001(t *testing.T) {
	p, _ := load(t, "../../examples/manifests/seed-001.yaml", "ovn-worker")
	if len(p.Probes) != 36 {
		t.Errorf("%d probes, want 36 (4 sources x (3 Layer3 x 3 nodes + 1 Layer2) - 4 to themselves)", len(p.Probes))
	}
	want := []string{"blue_blue-network", "green_green-network", "red_red-network", "yellow_yellow-network"}
	if strings.Join(p.Networks, " ") != strings.Join(want, " ") {
		t.Errorf("networks %v", p.Networks)
	}
	for _, pr := range p.Probes {
		if !pr.From.Local || pr.From.Node != "ovn-worker" || pr.From.Pod != "" {
			t.Errorf("source %+v: want a management port of ovn-worker", pr.From)
		}
	}
	for _, tc := range []struct {
		from, to, why string
		delivered     bool
	}{
		{"blue_blue-network@ovn-worker", "blue_blue-network@ovn-worker2", "same network", true},
		{"blue_blue-network@ovn-worker", "green_green-network@ovn-control-plane", "ClusterNetworkConnect colored-enterprise (PodNetwork)", true},
		{"yellow_yellow-network@ovn-worker", "green_green-network@ovn-worker", "ClusterNetworkConnect colored-enterprise (PodNetwork)", true},
		{"red_red-network@ovn-worker", "green_green-network@ovn-worker", "isolated", false},
		{"blue_blue-network@ovn-worker", "red_red-network@ovn-worker2", "isolated", false},
	} {
		pr := find(t, p, tc.from, tc.to)
		if pr.Intent.Delivered != tc.delivered || pr.Intent.Why != tc.why {
			t.Errorf("%s -> %s: intent %+v, want %v (%s)", tc.from, tc.to, pr.Intent, tc.delivered, tc.why)
		}
	}
	pr := find(t, p, "blue_blue-network@ovn-worker", "green_green-network@ovn-worker2")
	if pr.To.Local || pr.To.IP.String() != "10.2.2.2" || pr.To.Port != "k8s-green_green.network_ovn-worker2" {
		t.Errorf("remote management port %+v", pr.To)
	}
	const flow = `inport == "k8s-blue_blue.network_ovn-worker" && eth.src == 0a:58:0a:01:01:02 && eth.dst == 0a:58:0a:01:01:01 && ` +
		`ip4.src == 10.1.1.2 && ip4.dst == 10.2.2.2 && ip.ttl == 64 && tcp && tcp.src == 33000 && tcp.dst == 80`
	if got := p.Flow(pr); got != flow {
		t.Errorf("flow\n%s\nwant\n%s", got, flow)
	}
	for port, want := range map[string]probe.RemotePort{
		"blue_blue.network_tstor-ovn-worker2": {Node: "ovn-worker2", Owner: "blue_blue-network"},
		// The connect router routes green's host subnet on ovn-worker2
		// through its port there.
		"colored-enterprise-to-green_green-network-ovn-worker2": {Node: "ovn-worker2", Owner: "colored-enterprise",
			Dests: []netip.Prefix{netip.MustParsePrefix("10.2.2.0/24")}},
	} {
		if got := p.Remote[port]; got.Node != want.Node || got.Owner != want.Owner || !slices.Equal(got.Dests, want.Dests) {
			t.Errorf("Remote[%s] = %+v, want %+v", port, got, want)
		}
	}
	if _, ok := p.Remote["colored-enterprise-to-green_green-network-ovn-worker"]; ok {
		t.Error("the zone's own connect port is taken for a remote one")
	}
}

// TestProbesPolicy: pods stand for their network on their node; the
// NetworkPolicy's verdict decides between pods, a remote destination's
// ingress policies left to its own zone.
func TestProbesPolicy(t *testing.T) {
	p, _ := load(t, "../../cmd/udnkit/testdata/verify-policy.yaml", "node-a")
	for _, tc := range []struct {
		from, to, why string
		delivered     bool
	}{
		{"tenant-a/client-1", "tenant-a/web-1", "NetworkPolicy denies tcp/80", false},
		{"tenant-a/web-1", "tenant-a/client-1", "same network", true},
		{"tenant-a/client-1", "tenant-a/web-2", "same network; its own zone enforces tenant-a/web-2's ingress policies", true},
		{"tenant-a/web-1", "tenant-a_blue@node-c", "same network; its own zone enforces tenant-a_blue@node-c's ingress policies", true},
		{"tenant-b/db-1", "tenant-a/web-1", "isolated", false},
	} {
		pr := find(t, p, tc.from, tc.to)
		if pr.Intent.Delivered != tc.delivered || pr.Intent.Why != tc.why {
			t.Errorf("%s -> %s: intent %+v, want %v (%s)", tc.from, tc.to, pr.Intent, tc.delivered, tc.why)
		}
	}
	pr := find(t, p, "tenant-a/client-1", "tenant-a/web-1")
	if !strings.Contains(p.Flow(pr), "eth.dst == "+pr.To.MAC) || pr.To.Switch != pr.From.Switch {
		t.Errorf("same switch: the flow goes to the pod's MAC: %s", p.Flow(pr))
	}
	for _, pr := range p.Probes {
		if pr.From.Pod == "" || pr.From.Node != "node-a" {
			t.Errorf("source %+v: want a pod of node-a", pr.From)
		}
	}
}

// TestJudge judges real traces: delivery to a local port and into the
// connect's tunnel toward the destination's node, a drop, an exit through
// the gateway, output to another network's port; failures and surprises.
func TestJudge(t *testing.T) {
	p, _ := load(t, "../../examples/manifests/seed-001.yaml", "ovn-worker")
	for _, tc := range []struct {
		name, from, to, trace string
		outcome               probe.Outcome
		where                 string
		surprise              bool
	}{
		{"connect, local", "blue_blue-network@ovn-worker", "green_green-network@ovn-worker", "trace_connected_local", probe.Delivered,
			"green_green.network_ovn-worker: output to k8s-green_green.network_ovn-worker", false},
		{"connect, remote", "blue_blue-network@ovn-worker", "green_green-network@ovn-worker2", "trace_connected_remote", probe.Delivered,
			"connect-router-colored-enterprise: to node ovn-worker2 through colored-enterprise-to-green_green-network-ovn-worker2", false},
		{"the same trace toward blue on ovn-worker2: out to green's", "blue_blue-network@ovn-worker", "blue_blue-network@ovn-worker2", "trace_connected_remote", probe.Elsewhere,
			"connect-router-colored-enterprise: to node ovn-worker2 through colored-enterprise-to-green_green-network-ovn-worker2", true},
		{"isolated", "red_red-network@ovn-worker", "green_green-network@ovn-worker", "trace_isolated_left", probe.Left,
			"ext_red_red.network_ovn-worker: output to breth0_red_red.network_ovn-worker (localnet)", false},
		{"dropped, meant delivered", "blue_blue-network@ovn-worker", "yellow_yellow-network@ovn-worker", "trace_dropped_unknown", probe.Dropped,
			"yellow_yellow.network_ovn_layer2_switch ls_in_l2_unknown", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := p.Judge(find(t, p, tc.from, tc.to), readTrace(t, tc.trace), nil)
			if r.Outcome != tc.outcome || r.Where != tc.where || r.Surprise != tc.surprise {
				t.Errorf("got %s at %q (surprise %v), want %s at %q (surprise %v)", r.Outcome, r.Where, r.Surprise, tc.outcome, tc.where, tc.surprise)
			}
		})
	}
	r := p.Judge(find(t, p, "red_red-network@ovn-worker", "green_green-network@ovn-worker"), "", errors.New("ovn-trace: unknown logical port"))
	if r.Outcome != probe.Failed || !r.Surprise || r.Where != "ovn-trace: unknown logical port" {
		t.Errorf("failed trace: %+v", r)
	}
}

// TestProbesNetworks: --network keeps the probes between the networks
// named; an unknown one is not found.
func TestProbesNetworks(t *testing.T) {
	c := loadCluster(t, "../../examples/manifests/seed-001.yaml")
	st, err := c.Plan("ovn-worker")
	if err != nil {
		t.Fatal(err)
	}
	got, err := probe.Probes(c, st, probe.Config{Zone: "ovn-worker", Port: 80, Networks: []string{"red_red-network", "green_green-network"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Probes) != 10 || strings.Join(got.Networks, " ") != "green_green-network red_red-network" {
		t.Errorf("%d probes (want 2 sources x 6 - 2), networks %v", len(got.Probes), got.Networks)
	}
	for _, pr := range got.Probes {
		if pr.From.Network == "blue_blue-network" || pr.To.Network == "yellow_yellow-network" {
			t.Errorf("probe %s -> %s outside the networks named", pr.From, pr.To)
		}
	}
	if _, err := probe.Probes(c, st, probe.Config{Zone: "ovn-worker", Networks: []string{"nope"}}); !errors.Is(err, udnkit.ErrNotFound) || !strings.Contains(err.Error(), `"nope"`) {
		t.Errorf("unknown network: %v", err)
	}
}

// TestProbesFamilies: an IPv6-only network is probed over IPv6, from a
// dual-stack one too; two dual-stack networks over IPv4; a node the
// Cluster does not plan has no endpoint.
func TestProbesFamilies(t *testing.T) {
	nodes := ovntest.Nodes(2, "")
	for i := range nodes {
		nodes[i].Addresses = append(nodes[i].Addresses, netip.MustParsePrefix(fmt.Sprintf("fc00::%d/64", i+2)))
		nodes[i].NextHops = append(nodes[i].NextHops, netip.MustParseAddr("fc00::1"))
	}
	c, err := udnkit.New(udnkit.Config{Nodes: nodes})
	if err != nil {
		t.Fatal(err)
	}
	for _, spec := range []string{`{name: six, namespace: a}
spec: {topology: Layer3, role: Primary, subnets: ["fd00:10::/48/64"]}`, `{name: dual, namespace: b}
spec: {topology: Layer3, role: Primary, subnets: ["10.130.0.0/16/24", "fd00:20::/48/64"]}`, `{name: four, namespace: d}
spec: {topology: Layer3, role: Primary, subnets: ["10.131.0.0/16/24"]}`} {
		u, err := netconf.DecodeUDN([]byte("kind: UserDefinedNetwork\nmetadata: " + spec))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.AddUDN(u); err != nil {
			t.Fatal(err)
		}
	}
	// A node without a chassis is held, planned nowhere.
	if err := c.AddNode(topology.Node{Name: "node9", ID: 9}); err != nil {
		t.Fatal(err)
	}
	st, err := c.Plan("node1")
	if err != nil {
		t.Fatal(err)
	}
	p, err := probe.Probes(c, st, probe.Config{Zone: "node1", Port: 80})
	if err != nil {
		t.Fatal(err)
	}
	for _, pr := range p.Probes {
		if pr.To.Node == "node9" {
			t.Errorf("probe to a node not planned: %s -> %s", pr.From, pr.To)
		}
		six := pr.From.Network == "a_six" || pr.To.Network == "a_six"
		four := pr.From.Network == "d_four" || pr.To.Network == "d_four"
		switch {
		case six && four:
			t.Errorf("no common family, probed: %s -> %s", pr.From, pr.To)
		case six && (!pr.From.IP.Is6() || !pr.To.IP.Is6()):
			t.Errorf("%s -> %s over %s -> %s, want IPv6", pr.From, pr.To, pr.From.IP, pr.To.IP)
		case !six && (!pr.From.IP.Is4() || !pr.To.IP.Is4()):
			t.Errorf("%s -> %s over %s -> %s, want IPv4", pr.From, pr.To, pr.From.IP, pr.To.IP)
		}
	}
	pr := find(t, p, "b_dual@node1", "a_six@node2")
	if !strings.Contains(p.Flow(pr), "ip6.src == "+pr.From.IP.String()+" && ip6.dst == "+pr.To.IP.String()) {
		t.Errorf("flow %s", p.Flow(pr))
	}
	// From node1: six to six@node2 and dual (3), dual to every other (5),
	// four to dual and four@node2 (3).
	if n := len(p.Probes); n != 11 {
		t.Errorf("%d probes, want 11", n)
	}
}

// TestJudgeConnectPortByRoute: a connect's remote port delivers to the
// network whose destination its router routes through it, whatever the
// port is called (the reference profile's crtor- names), and not to
// another network whose name starts the same.
func TestJudgeConnectPortByRoute(t *testing.T) {
	const port = "crtor-ce_x_node2"
	p := &probe.Plan{Remote: map[string]probe.RemotePort{port: {Node: "node2", Owner: "ce",
		Dests: []netip.Prefix{netip.MustParsePrefix("10.2.2.0/24")}}}}
	trace := "ingress(dp=\"connect_router_ce\", inport=\"crtor-ce_y_node1\")\n" +
		"-----------------------------------------------------------\n" +
		" 0. lr_in_admission: 1, priority 50, uuid 00000000\n" +
		"    /* output to \"" + port + "\", type \"remote\" */;\n"
	for _, tc := range []struct {
		network, ip string
		want        probe.Outcome
	}{
		{"x", "10.2.2.2", probe.Delivered},
		{"x-2", "10.3.2.2", probe.Elsewhere},
	} {
		pr := probe.Probe{To: probe.Endpoint{Network: tc.network, Node: "node2", IP: netip.MustParseAddr(tc.ip)},
			Intent: probe.Intent{Delivered: true, Via: "ce"}}
		if r := p.Judge(pr, trace, nil); r.Outcome != tc.want {
			t.Errorf("to %s (%s): %s at %q, want %s", tc.network, tc.ip, r.Outcome, r.Where, tc.want)
		}
	}
}
