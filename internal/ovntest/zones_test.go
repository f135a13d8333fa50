package ovntest_test

import (
	"context"
	"fmt"
	"net/netip"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/udnkit/udnkit"
	"github.com/udnkit/udnkit/backend/ovnnb"
	"github.com/udnkit/udnkit/connect"
	"github.com/udnkit/udnkit/internal/ovntest"
	"github.com/udnkit/udnkit/netconf"
	"github.com/udnkit/udnkit/topology"
	"github.com/udnkit/udnkit/topology/pods"
	"github.com/udnkit/udnkit/topology/services"
)

// zoneNodes are the two nodes of the two-zone tests, each its own zone:
// chassis chassis-N (not the node's name, so a plan that confused them
// binds nothing) and address 172.31.0.N/24, the underlay's and the Geneve
// encap's.
func zoneNodes() []topology.Node {
	var nodes []topology.Node
	for i := 1; i <= 2; i++ {
		nodes = append(nodes, topology.Node{Name: fmt.Sprint("node", i), Chassis: fmt.Sprint("chassis-", i),
			Addresses: []netip.Prefix{netip.MustParsePrefix(fmt.Sprintf("172.31.0.%d/24", i))},
			NextHops:  []netip.Addr{netip.MustParseAddr("172.31.0.254")}})
	}
	return nodes
}

// zonePods are the pods of the two-zone tests: "<namespace>/<name>" on
// their node.
var zonePods = []struct{ key, node string }{
	{"blue/a", "node1"}, {"blue/b", "node2"}, // Layer3 primary
	{"green/c", "node1"}, {"green/d", "node2"}, // Layer2 primary (transit router)
	{"t1/a", "node1"}, {"t1/b", "node2"}, // two tenants, one subnet
	{"t2/a", "node1"}, {"t2/b", "node2"},
}

// The Service of blue: its ClusterIP, port, and blue/b's port behind it.
var (
	webIP      = netip.MustParseAddr("10.96.0.10")
	webPort    = uint16(80)
	webBackend = uint16(8080)
)

// planned is a two-zone cluster whose NBs hold only what one
// udnkit.Cluster planned for each zone, with its pods running.
type planned struct {
	c    *udnkit.Cluster
	zs   [2]*ovntest.Zone
	nbs  [2]*ovnnb.Client
	pods map[string]*ovntest.Pod
}

// newPlanned builds the cluster of the two-zone tests: namespaces blue
// (a Layer3 primary UDN, 10.128.0.0/16), green (a Layer2 primary UDN,
// 10.129.0.0/16), t1 and t2 (each a Layer3 primary UDN of 10.140.0.0/16),
// a ClusterNetworkConnect of blue and green (pods and ClusterIPs), the
// Service blue/web (ClusterIP webIP, its one endpoint blue/b on node2),
// and the pods of zonePods; syncs each zone's plan to its NB, and starts
// the pods.
func newPlanned(t testing.TB) *planned {
	t.Helper()
	nodes := zoneNodes()
	p := &planned{zs: ovntest.StartZones(t, nodes[0], nodes[1]), pods: map[string]*ovntest.Pod{}}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var err error
	p.c, err = udnkit.New(udnkit.Config{Nodes: nodes, DefaultNetwork: netconf.Cluster{
		PodSubnets: []netip.Prefix{netip.MustParsePrefix("10.244.0.0/16")}, ServiceCIDRs: []netip.Prefix{netip.MustParsePrefix("10.96.0.0/16")}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, ns := range []string{"blue", "green", "t1", "t2"} {
		if _, err := p.c.SetNamespace(netconf.Namespace{Name: ns}); err != nil {
			t.Fatal(err)
		}
	}
	for _, spec := range []string{"blue Layer3 10.128.0.0/16", "green Layer2 10.129.0.0/16", "t1 Layer3 10.140.0.0/16", "t2 Layer3 10.140.0.0/16"} {
		f := strings.Fields(spec)
		u, err := netconf.DecodeUDN(fmt.Appendf(nil, "kind: UserDefinedNetwork\nmetadata: {name: net, namespace: %s}\nspec: {topology: %s, role: Primary, subnets: [%q]}", f[0], f[1], f[2]))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := p.c.AddUDN(u); err != nil {
			t.Fatal(err)
		}
	}
	cnc, err := connect.Decode([]byte(`
kind: ClusterNetworkConnect
metadata: {name: blue-green}
spec:
  networkSelectors:
  - networkSelectionType: PrimaryUserDefinedNetworks
    primaryUserDefinedNetworkSelector:
      namespaceSelector: {matchExpressions: [{key: kubernetes.io/metadata.name, operator: In, values: [blue, green]}]}
  connectSubnets: [{cidr: 192.168.0.0/16, networkPrefix: 24}]
  connectivityEnabled: [PodNetwork, ClusterIPServiceNetwork]`))
	if err != nil {
		t.Fatal(err)
	}
	if acc, _, err := p.c.SetConnect(cnc); err != nil || !acc.Accepted() {
		t.Fatalf("connect blue-green: %v %+v", err, acc.Condition)
	}
	specs := map[string]ovntest.PodSpec{}
	for i, zp := range zonePods {
		ns, name, _ := strings.Cut(zp.key, "/")
		uid := fmt.Sprint("uid-", i)
		if _, err := p.c.SetPod(udnkit.Pod{Pod: pods.Pod{Namespace: ns, Name: name, UID: uid, Node: zp.node}}); err != nil {
			t.Fatal(err)
		}
		ann, err := p.c.PodAnnotation(ns, name)
		if err != nil {
			t.Fatal(err)
		}
		pn, err := netconf.ParsePodNetworks(ann)
		if err != nil {
			t.Fatal(err)
		}
		nad := ns + "/net"
		entry, ok := pn[nad]
		if !ok {
			t.Fatalf("pod %s: annotation %s has no entry for %s", zp.key, ann, nad)
		}
		specs[zp.key] = ovntest.PodSpec{Name: ns + "-" + name, Port: pods.PortName(ns, name, nad), IfaceIDVer: uid, Network: entry}
	}
	b := specs["blue/b"].Network.IPs[0].Addr()
	if _, err := p.c.SetService(services.Service{Namespace: "blue", Name: "web", ClusterIPs: []netip.Addr{webIP},
		Ports: []services.Port{{Name: "http", Protocol: services.ProtocolTCP, Port: webPort}},
		Slices: []services.EndpointSlice{{Ports: []services.EndpointPort{{Name: "http", Protocol: services.ProtocolTCP, Port: webBackend}},
			Endpoints: []services.Endpoint{{Addresses: []netip.Addr{b}, Node: "node2"}}}}}); err != nil {
		t.Fatal(err)
	}
	for i, z := range p.zs {
		nb, err := ovnnb.Dial(ctx, ovnnb.Config{Endpoints: []string{z.Env.NBUnix}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(nb.Close)
		p.nbs[i] = nb
	}
	p.sync(t)
	for _, zp := range zonePods {
		z := p.zs[0]
		if zp.node == "node2" {
			z = p.zs[1]
		}
		pod, err := z.Host.AddPod(ctx, specs[zp.key])
		if err != nil {
			t.Fatal(err)
		}
		p.pods[zp.key] = pod
	}
	for i, z := range p.zs {
		if err := z.Sync(ctx); err != nil {
			t.Fatal(err)
		}
		// The NB holds the plan: binding the pods changed nothing in it.
		st, err := p.c.Plan(z.Node.Name)
		if err != nil {
			t.Fatal(err)
		}
		if changes, _, err := p.nbs[i].Sync(ctx, st); err != nil || len(changes) != 0 {
			t.Fatalf("zone %s: a second Sync: %v, %d changes: %v", z.Node.Name, err, len(changes), changes)
		}
	}
	return p
}

// sync writes each zone's plan to its NB and waits until its
// ovn-controller has installed it.
func (p *planned) sync(t testing.TB) {
	t.Helper()
	for i := range p.zs {
		p.syncZone(t, i)
	}
}

// syncZone writes zone i's plan to its NB and waits until its
// ovn-controller has installed it.
func (p *planned) syncZone(t testing.TB, i int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	z := p.zs[i]
	st, err := p.c.Plan(z.Node.Name)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := p.nbs[i].Sync(ctx, st); err != nil {
		t.Fatalf("zone %s: %v", z.Node.Name, err)
	}
	if err := z.Sync(ctx); err != nil {
		t.Fatal(err)
	}
}

// reaches checks ICMP echo and TCP from one pod to another's address, and
// that the TCP answer came from that pod.
func reaches(t *testing.T, from, to *ovntest.Pod) {
	t.Helper()
	reachesAt(t, from, to, netip.AddrPortFrom(to.Addr, webBackend), to.Addr)
}

func reachesAt(t *testing.T, from, to *ovntest.Pod, tcp netip.AddrPort, ping netip.Addr) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	if err := ovntest.Ping(ctx, from, ping); err != nil {
		t.Error(err)
	}
	e, err := ovntest.Listen(to, netip.AddrPortFrom(to.Addr, webBackend))
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	got, err := ovntest.Ask(ctx, from, tcp, 10*time.Second)
	if err != nil {
		t.Error(err)
	} else if got != to.String() {
		t.Errorf("TCP from %s to %s: answered by %q, want %s", from, tcp, got, to)
	}
}

// unreachable checks that neither ICMP echo nor TCP from one pod reaches
// addr, where the pods of avoid listen.
func unreachable(t *testing.T, from *ovntest.Pod, addr netip.Addr, avoid ...*ovntest.Pod) {
	t.Helper()
	// Each check waits 2 s; an answer takes milliseconds (BENCHMARKS.md).
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := ovntest.Ping(ctx, from, addr); err == nil {
		t.Errorf("ICMP echo from %s to %s answered", from, addr)
	}
	unreachableTCP(t, from, netip.AddrPortFrom(addr, webBackend), avoid...)
}

// unreachableTCP checks that TCP from one pod does not reach addr, where
// the pods of avoid listen.
func unreachableTCP(t *testing.T, from *ovntest.Pod, addr netip.AddrPort, avoid ...*ovntest.Pod) {
	t.Helper()
	var es []*ovntest.Echo
	for _, a := range avoid {
		e, err := ovntest.Listen(a, netip.AddrPortFrom(a.Addr, webBackend))
		if err != nil {
			t.Fatal(err)
		}
		defer e.Close()
		es = append(es, e)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if got, err := ovntest.Ask(ctx, from, addr, 2*time.Second); err == nil {
		t.Errorf("TCP from %s to %s answered by %q", from, addr, got)
	}
	for i, e := range es {
		if n := e.Accepted(); n != 0 {
			t.Errorf("%s accepted %d connections from %s", avoid[i], n, from)
		}
	}
}

// TestTwoZonesPlanned: packets between two interconnect zones whose NBs
// hold only what one udnkit.Cluster planned for each (Plan(zone), synced),
// between pods bound to the ports the Cluster planned, with the addresses,
// MACs and routes of its pod-networks annotations. Both ways, ICMP echo
// and TCP: a Layer3 primary network and a Layer2 one (transit router)
// deliver across the zones; two tenants with one subnet, and the same
// addresses, reach their own pod only; a ClusterNetworkConnect delivers
// between its networks across the zones and not to a network it leaves
// out; a ClusterIP is load-balanced to the backend in the other zone,
// from its network and through the connect, not from a tenant's. The
// zones' northd, ovs-vswitchd and ovn-controller logs are checked when
// the test ends (StartZones). Then node2's chassis is planned wrong in
// node1's zone: its remote ports bound to chassis-3, which exists (a
// remote chassis with a Geneve encap) but is no host: nothing crosses
// until the right plan is synced again.
func TestTwoZonesPlanned(t *testing.T) {
	p := newPlanned(t)
	pod := func(key string) *ovntest.Pod { return p.pods[key] }
	t.Run("layer3", func(t *testing.T) {
		reaches(t, pod("blue/a"), pod("blue/b"))
		reaches(t, pod("blue/b"), pod("blue/a"))
	})
	t.Run("layer2", func(t *testing.T) {
		reaches(t, pod("green/c"), pod("green/d"))
		reaches(t, pod("green/d"), pod("green/c"))
	})
	t.Run("tenants with one subnet", func(t *testing.T) {
		if pod("t1/b").Addr != pod("t2/b").Addr || pod("t1/a").Addr != pod("t2/a").Addr {
			t.Fatalf("the tenants' pods have different addresses: %v %v, %v %v", pod("t1/a").Addr, pod("t2/a").Addr, pod("t1/b").Addr, pod("t2/b").Addr)
		}
		for _, x := range [][2]string{{"t1/a", "t1/b"}, {"t2/a", "t2/b"}, {"t1/b", "t1/a"}, {"t2/b", "t2/a"}} {
			other := map[string]string{"t1": "t2", "t2": "t1"}[x[1][:2]] + x[1][2:]
			e, err := ovntest.Listen(pod(other), netip.AddrPortFrom(pod(other).Addr, webBackend))
			if err != nil {
				t.Fatal(err)
			}
			reaches(t, pod(x[0]), pod(x[1]))
			e.Close()
			if n := e.Accepted(); n != 0 {
				t.Errorf("%s accepted %d connections from %s", pod(other), n, pod(x[0]))
			}
		}
		// And blue, which no connect joins to them, reaches neither.
		unreachable(t, pod("blue/a"), pod("t1/b").Addr, pod("t1/b"), pod("t2/b"))
	})
	t.Run("connect", func(t *testing.T) {
		reaches(t, pod("blue/a"), pod("green/d"))
		reaches(t, pod("green/d"), pod("blue/a"))
		reaches(t, pod("green/c"), pod("blue/b"))
		reaches(t, pod("blue/b"), pod("green/c"))
		unreachable(t, pod("green/c"), pod("t1/b").Addr, pod("t1/b"), pod("t2/b"))
	})
	t.Run("service", func(t *testing.T) {
		reachesAt(t, pod("blue/a"), pod("blue/b"), netip.AddrPortFrom(webIP, webPort), pod("blue/b").Addr)
		// From green, through the connect (ClusterIPServiceNetwork).
		reachesAt(t, pod("green/c"), pod("blue/b"), netip.AddrPortFrom(webIP, webPort), pod("blue/b").Addr)
		// Not from t1, which no connect joins to blue.
		unreachableTCP(t, pod("t1/a"), netip.AddrPortFrom(webIP, webPort), pod("blue/b"))
	})
	t.Run("remote ports on the wrong chassis", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := p.zs[0].Env.AddRemoteChassis(ctx, "chassis-3", "172.31.0.3"); err != nil {
			t.Fatal(err)
		}
		// Zone node1 keeps no tunnel to chassis-2: what node2 still sends
		// (replies, neighbour discovery) arrives on no tunnel port of its.
		p.zs[0].Host.AllowLog(regexp.MustCompile(`\|tunnel\|WARN\|receive tunnel port not found \(.*,tun_src=172\.31\.0\.2,`))
		wrong := zoneNodes()[1]
		wrong.Chassis = "chassis-3"
		if _, err := p.c.SetNode(wrong); err != nil {
			t.Fatal(err)
		}
		// Zone node1 only: node2's own zone binds its pods to its chassis.
		p.syncZone(t, 0)
		boundTo := func(chassis string) string {
			var names []string
			for _, table := range []string{"Logical_Switch_Port", "Logical_Router_Port"} {
				out, err := p.zs[0].Env.NBCtl(ctx, "--bare", "--columns=name", "find", table, "options:requested-chassis="+chassis)
				if err != nil {
					t.Fatal(err)
				}
				names = append(names, strings.Fields(out)...)
			}
			return strings.Join(slices.Sorted(slices.Values(names)), " ")
		}
		// Every port of node2 in zone node1: the three Layer3 networks'
		// transit switch ports, green/d's, the Layer2 transit router's and
		// the connect router's.
		const remote = "blue-green-to-blue_net-node2 blue_net_tstor-node2 green.net_green_d t1_net_tstor-node2 t2_net_tstor-node2 trtor-GR_green_net_node2"
		if got := boundTo("chassis-3"); got != remote {
			t.Fatalf("zone node1's remote ports on chassis-3: %q, want %q", got, remote)
		}
		if got := boundTo("chassis-2"); got != "" {
			t.Fatalf("zone node1's remote ports still on chassis-2: %q", got)
		}
		unreachable(t, pod("blue/a"), pod("blue/b").Addr, pod("blue/b"))
		unreachable(t, pod("green/c"), pod("green/d").Addr, pod("green/d"))
		if _, err := p.c.SetNode(zoneNodes()[1]); err != nil {
			t.Fatal(err)
		}
		p.syncZone(t, 0)
		if got := boundTo("chassis-2"); got != remote {
			t.Fatalf("zone node1's remote ports on chassis-2 again: %q, want %q", got, remote)
		}
		reaches(t, pod("blue/a"), pod("blue/b"))
		reaches(t, pod("green/c"), pod("green/d"))
	})
}

// BenchmarkTwoZones: what the two-zone tests cost. setup-s is newPlanned's
// time (two zones, the plans synced, eight pods bound); each iteration is
// one exchange between blue/a on node1 and blue/b on node2, through both
// zones' userspace datapaths and Geneve: a TCP connection with one line
// back (tcp), an ICMP echo (icmp).
func BenchmarkTwoZones(b *testing.B) {
	start := time.Now()
	p := newPlanned(b)
	setup := time.Since(start).Seconds()
	from, to := p.pods["blue/a"], p.pods["blue/b"]
	b.Run("tcp", func(b *testing.B) {
		e, err := ovntest.Listen(to, netip.AddrPortFrom(to.Addr, webBackend))
		if err != nil {
			b.Fatal(err)
		}
		defer e.Close()
		b.ReportAllocs()
		for b.Loop() {
			if _, err := ovntest.Ask(context.Background(), from, netip.AddrPortFrom(to.Addr, webBackend), 10*time.Second); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(setup, "setup-s")
	})
	b.Run("icmp", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			err := ovntest.Ping(ctx, from, to.Addr)
			cancel()
			if err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(setup, "setup-s")
	})
}
