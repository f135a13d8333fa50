package policy_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/netip"
	"slices"
	"testing"
	"time"

	"github.com/udnkit/udnkit/backend/ovnnb"
	"github.com/udnkit/udnkit/connect"
	"github.com/udnkit/udnkit/internal/ovntest"
	"github.com/udnkit/udnkit/ipam"
	"github.com/udnkit/udnkit/netconf"
	"github.com/udnkit/udnkit/netconf/udn"
	"github.com/udnkit/udnkit/topology"
	"github.com/udnkit/udnkit/topology/pods"
	"github.com/udnkit/udnkit/topology/policy"
)

// realWorld is a real OVN with Layer3 primary networks planned on three
// nodes of one zone; pods come from the pods planner.
type realWorld struct {
	env    *ovntest.Env
	cl     *ovnnb.Client
	ctx    context.Context
	nodes  []topology.Node
	inputs map[string]topology.Input
	alloc  map[string]*ipam.PodIPAllocator
	pods   []*realPod
}

func l3(name string, id int, second byte) *udn.Network {
	return &udn.Network{Name: name, ID: id, Topology: udn.TopologyLayer3, Role: udn.RolePrimary,
		Subnets:     []udn.Subnet{{CIDR: netip.PrefixFrom(netip.AddrFrom4([4]byte{10, second, 0, 0}), 16), HostPrefix: 24}},
		JoinSubnets: ipam.DefaultJoinSubnets()[:1], TransitSubnets: ipam.DefaultTransitSubnets()[:1]}
}

func newRealWorld(t *testing.T, nets ...*udn.Network) *realWorld {
	t.Helper()
	env := ovntest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	cl, err := ovnnb.Dial(ctx, ovnnb.Config{Endpoints: []string{env.NBUnix}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	w := &realWorld{env: env, cl: cl, ctx: ctx, nodes: ovntest.Nodes(3, "zone1"), inputs: map[string]topology.Input{}, alloc: map[string]*ipam.PodIPAllocator{}}
	for _, n := range nets {
		in := ovntest.PlanInput(n, w.nodes, "zone1")
		second := n.Subnets[0].CIDR.Addr().As4()[1]
		for i, nd := range w.nodes {
			in.HostSubnets[nd.Name] = []netip.Prefix{netip.PrefixFrom(netip.AddrFrom4([4]byte{10, second, byte(i + 1), 0}), 24)}
		}
		w.inputs[n.Name] = in
		s, err := topology.Plan(in)
		if err != nil {
			t.Fatal(err)
		}
		w.sync(t, s)
	}
	return w
}

func (w *realWorld) sync(t *testing.T, s topology.State) {
	t.Helper()
	if _, _, err := w.cl.Sync(w.ctx, s); err != nil {
		t.Fatal(err)
	}
	if err := w.env.Sync(w.ctx); err != nil {
		t.Fatal(err)
	}
}

func (w *realWorld) pod(t *testing.T, ns, name, node string, n *udn.Network, labels policy.Labels) *realPod {
	t.Helper()
	key := n.Name + "/" + node
	if w.alloc[key] == nil {
		a, err := ipam.NewPodIPAllocator(w.inputs[n.Name].HostSubnets[node], nil)
		if err != nil {
			t.Fatal(err)
		}
		w.alloc[key] = a
	}
	ips, err := w.alloc[key].Allocate()
	if err != nil {
		t.Fatal(err)
	}
	nad := ns + "/" + n.Name[len(ns)+1:]
	pl, err := pods.PlanPod(pods.Input{Pod: pods.Pod{Namespace: ns, Name: name, UID: "uid-" + name, Node: node},
		Attachments: []pods.Attachment{{Network: n, NAD: nad, Role: netconf.PodRolePrimary, IPs: ips, HostSubnets: w.inputs[n.Name].HostSubnets[node]}},
		Nodes:       w.nodes, Zone: "zone1"})
	if err != nil {
		t.Fatal(err)
	}
	ch, err := pods.Changes(pods.Planned{}, pl)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.cl.Apply(w.ctx, ch); err != nil {
		t.Fatal(err)
	}
	p := &realPod{ns: ns, name: name, node: node, network: n, nad: nad, labels: labels, planned: pl}
	w.pods = append(w.pods, p)
	return p
}

// policyInput is the policy input of the world's pods.
func (w *realWorld) policyInput(nets []policy.Network, namespaces []policy.Namespace, pols ...policy.Policy) policy.Input {
	in := policy.Input{Networks: nets, Nodes: w.nodes, Zone: "zone1", Namespaces: namespaces, Policies: pols}
	for i := range in.Networks {
		in.Networks[i].HostSubnets = w.inputs[in.Networks[i].Network.Name].HostSubnets
	}
	for _, p := range w.pods {
		in.Pods = append(in.Pods, policy.Pod{Namespace: p.ns, Name: p.name, Node: p.node, Labels: p.labels,
			Networks: []policy.Attachment{{Network: p.network.Name, Port: p.port().Name, IPs: []netip.Addr{p.ip()}}}})
	}
	return in
}

// delivered traces a new TCP connection to port 80 from one pod to another.
func (w *realWorld) delivered(t *testing.T, from, to *realPod) (bool, string) {
	t.Helper()
	match := fmt.Sprintf(`inport == %q && eth.src == %s && eth.dst == %s && ip4.src == %s && ip4.dst == %s && ip.ttl == 64 && tcp && tcp.dst == 80`,
		from.port().Name, from.mac(), from.gwMAC(), from.ip(), to.ip())
	args := []string{"--ct=new,trk", "--ct=new,trk", "--ct=new,trk", "--ct=new,trk", "--ct=new,trk", "--ct=new,trk", "--ct=new,trk", "--ct=new,trk"}
	out, err := w.env.Trace(w.ctx, append(args, from.port().Switch, match)...)
	if err != nil {
		t.Fatal(err)
	}
	return slices.ContainsFunc(realOutRE.FindAllStringSubmatch(out, -1), func(m []string) bool { return m[1] == to.port().Name }), out
}

// connectPlan allocates a ClusterNetworkConnect of the given connectivity
// between nets and plans it.
func connectPlan(t *testing.T, w *realWorld, name string, nets []*udn.Network, types ...connect.ConnectivityType) topology.State {
	t.Helper()
	c := &connect.ClusterNetworkConnect{Spec: connect.ClusterNetworkConnectSpec{
		ConnectSubnets:      []connect.ConnectSubnet{{CIDR: "192.168.0.0/16", NetworkPrefix: 24}},
		ConnectivityEnabled: types}}
	c.Name = name
	alloc, err := connect.NewAllocator(c, ipam.NewTunnelKeyAllocator())
	if err != nil {
		t.Fatal(err)
	}
	in := connect.Input{Connect: c, Networks: nets, Nodes: w.nodes, Zone: "zone1", HostSubnets: map[string]map[string][]netip.Prefix{},
		ServiceCIDRs: []netip.Prefix{netip.MustParsePrefix("10.96.0.0/16")}}
	for _, n := range nets {
		in.HostSubnets[n.Name] = w.inputs[n.Name].HostSubnets
	}
	if in.Allocation, err = alloc.Allocate(nets); err != nil {
		t.Fatal(err)
	}
	s, err := connect.Plan(in)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestRealPolicyAcrossConnect (seed 001): blue (ns1) and green (ns3) are
// connected by a ClusterNetworkConnect. With PodNetwork connectivity,
// ns1's policy on web takes a green pod its peer selects and refuses one it
// does not; with service-only connectivity the same policy reaches no
// green pod, and the connect's own tier-0 ACLs keep their precedence.
func TestRealPolicyAcrossConnect(t *testing.T) {
	blue, green := l3("ns1_blue", 1, 128), l3("ns3_green", 3, 129)
	w := newRealWorld(t, blue, green)
	web := w.pod(t, "ns1", "web", "node1", blue, policy.Labels{"app": "web"})
	client := w.pod(t, "ns3", "client", "node1", green, policy.Labels{"app": "client"})
	stranger := w.pod(t, "ns3", "stranger", "node2", green, policy.Labels{"app": "stranger"})
	nets := []policy.Network{{Network: blue, Namespaces: []string{"ns1"}}, {Network: green, Namespaces: []string{"ns3"}}}
	namespaces := []policy.Namespace{{Name: "ns1", Labels: policy.Labels{"kubernetes.io/metadata.name": "ns1"}},
		{Name: "ns3", Labels: policy.Labels{"kubernetes.io/metadata.name": "ns3"}}}
	pol := policy.Policy{Namespace: "ns1", Name: "web-from-clients", PodSelector: *sel("app", "web"),
		Ingress: []policy.Rule{{Peers: []policy.Peer{{NamespaceSelector: &policy.Selector{}, PodSelector: sel("app", "client")}}}}}

	conn := connectPlan(t, w, "blue-green", []*udn.Network{blue, green}, connect.PodNetwork)
	w.sync(t, conn)
	in := w.policyInput(nets, namespaces, pol)
	in.Connected = [][]string{{blue.Name, green.Name}}
	planner, err := policy.New(in)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := planner.State()
	if err != nil {
		t.Fatal(err)
	}
	w.sync(t, rows)
	t.Run("PodNetwork: a selected pod of the other network passes", func(t *testing.T) {
		if ok, out := w.delivered(t, client, web); !ok {
			t.Errorf("green client -> blue web not delivered:\n%s", out)
		}
		if !planner.Allows(policy.Endpoint{Namespace: "ns3", Name: "client"}, policy.Endpoint{Namespace: "ns1", Name: "web"}, policy.TCP, 80) {
			t.Error("Allows disagrees: client -> web")
		}
	})
	t.Run("PodNetwork: a pod the peer does not select is denied", func(t *testing.T) {
		if ok, out := w.delivered(t, stranger, web); ok {
			t.Errorf("green stranger -> blue web delivered:\n%s", out)
		}
		// Without the policy it would pass: the connect carries it.
		if ok, out := w.delivered(t, stranger, client); !ok {
			t.Errorf("green stranger -> green client (no policy) not delivered:\n%s", out)
		}
	})

	// The connect becomes service-only; the policy no longer takes the
	// other network's pods as peers.
	if _, _, err := w.cl.Sync(w.ctx, topology.RemovalFor(connect.ControllerConnect, "blue-green")); err != nil {
		t.Fatal(err)
	}
	w.sync(t, connectPlan(t, w, "blue-green", []*udn.Network{blue, green}, connect.ClusterIPServiceNetwork))
	in.Connected = nil
	planner, err = policy.New(in)
	if err != nil {
		t.Fatal(err)
	}
	if rows, err = planner.State(); err != nil {
		t.Fatal(err)
	}
	w.sync(t, rows)
	t.Run("service-only: the policy does not reach across", func(t *testing.T) {
		if got := addressSetOf(t, rows, policy.AddressSetName(blue.Name, "LS{}_LS{ML:{app: client,},}", false)); len(got) != 0 {
			t.Errorf("blue's peer set holds green pods: %v", got)
		}
		if ok, out := w.delivered(t, client, web); ok {
			t.Errorf("green client -> blue web delivered with service-only connectivity:\n%s", out)
		}
		if planner.Allows(policy.Endpoint{Namespace: "ns3", Name: "client"}, policy.Endpoint{Namespace: "ns1", Name: "web"}, policy.TCP, 80) {
			t.Error("Allows disagrees: client -> web across a service-only connect")
		}
	})
}

func addressSetOf(t *testing.T, s topology.State, name string) []netip.Prefix {
	t.Helper()
	o, ok := s.Get(topology.KindAddressSet, name)
	if !ok {
		t.Fatalf("no address set %s", name)
	}
	return o.(topology.AddressSet).Addresses
}

// TestRealPolicyTwoPrimaries (seed 002): ns1 has two primary networks,
// linked by connect.PlanPrimaryLinks; one policy of ns1 is enforced on
// both, its peers taken from both, and another namespace's overlapping
// network stays apart.
func TestRealPolicyTwoPrimaries(t *testing.T) {
	blue, green := l3("ns1_blue", 1, 128), l3("ns1_green", 3, 129)
	red := l3("ns2_red", 2, 128) // overlaps blue
	w := newRealWorld(t, blue, green, red)
	links, err := connect.PlanPrimaryLinks(connect.PrimaryLinksInput{Name: "ns1", Networks: []*udn.Network{blue, green}, Nodes: w.nodes, Zone: "zone1"})
	if err != nil {
		t.Fatal(err)
	}
	w.sync(t, links)
	dbBlue := w.pod(t, "ns1", "db-blue", "node1", blue, policy.Labels{"app": "db"})
	dbGreen := w.pod(t, "ns1", "db-green", "node2", green, policy.Labels{"app": "db"})
	webGreen := w.pod(t, "ns1", "web-green", "node1", green, policy.Labels{"app": "web"})
	otherBlue := w.pod(t, "ns1", "other-blue", "node2", blue, policy.Labels{"app": "other"})
	twin := w.pod(t, "ns2", "twin", "node1", red, policy.Labels{"app": "web"})
	nets := []policy.Network{{Network: blue, Namespaces: []string{"ns1"}}, {Network: green, Namespaces: []string{"ns1"}},
		{Network: red, Namespaces: []string{"ns2"}}}
	namespaces := []policy.Namespace{{Name: "ns1"}, {Name: "ns2"}}
	pol := policy.Policy{Namespace: "ns1", Name: "db-from-web", PodSelector: *sel("app", "db"),
		Ingress: []policy.Rule{{Peers: []policy.Peer{{PodSelector: sel("app", "web")}}}}}
	planner, err := policy.New(w.policyInput(nets, namespaces, pol))
	if err != nil {
		t.Fatal(err)
	}
	rows, err := planner.State()
	if err != nil {
		t.Fatal(err)
	}
	w.sync(t, rows)
	for _, tc := range []struct {
		name     string
		from, to *realPod
		want     bool
	}{
		{"web (green) -> db on green", webGreen, dbGreen, true},
		{"web (green) -> db on blue, across the link", webGreen, dbBlue, true},
		{"other (blue) -> db on blue: denied", otherBlue, dbBlue, false},
		{"other (blue) -> db on green: denied", otherBlue, dbGreen, false},
		{"other (blue) -> web (no policy) passes the link", otherBlue, webGreen, true},
		{"red's twin never reaches blue", twin, dbBlue, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if ok, out := w.delivered(t, tc.from, tc.to); ok != tc.want {
				t.Errorf("delivered %v, want %v:\n%s", ok, tc.want, out)
			}
			if got := planner.Allows(policy.Endpoint{Namespace: tc.from.ns, Name: tc.from.name}, policy.Endpoint{Namespace: tc.to.ns, Name: tc.to.name}, policy.TCP, 80); got != tc.want {
				t.Errorf("Allows = %v, ovn-trace says %v", got, tc.want)
			}
		})
	}
}

// TestRealPolicyLayer2 applies a primary Layer2 network (transit router,
// node1's interconnect zone), its pods and a policy with multicast to a
// real NB: the policy is enforced on the Layer2 switch, the management
// port passes through its ACL on that switch, and northd warns about
// nothing (the router-port group holds the switch's stotr- port).
func TestRealPolicyLayer2(t *testing.T) {
	env := ovntest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cl, err := ovnnb.Dial(ctx, ovnnb.Config{Endpoints: []string{env.NBUnix}})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	red := ovntest.Layer2Network()
	nodes := ovntest.Nodes(2, "")
	tin := ovntest.PlanInput(red, nodes, "node1")
	topo, err := topology.Plan(tin)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := cl.Sync(ctx, topo); err != nil {
		t.Fatal(err)
	}
	alloc, err := ipam.NewPodIPAllocator(red.SubnetPrefixes(), nil)
	if err != nil {
		t.Fatal(err)
	}
	in := policy.Input{Networks: []policy.Network{{Network: red, Namespaces: []string{"ns2"}}}, Nodes: nodes, Zone: "node1", Multicast: true,
		Namespaces: []policy.Namespace{{Name: "ns2", Multicast: true}},
		Policies: []policy.Policy{{Namespace: "ns2", Name: "db-from-web", PodSelector: *sel("app", "db"),
			Ingress: []policy.Rule{{Peers: []policy.Peer{{PodSelector: sel("app", "web")}}}}}}}
	mk := func(name, node, app string, key int) *realPod {
		ips, err := alloc.Allocate()
		if err != nil {
			t.Fatal(err)
		}
		pl, err := pods.PlanPod(pods.Input{Pod: pods.Pod{Namespace: "ns2", Name: name, UID: "uid-" + name, Node: node},
			Attachments: []pods.Attachment{{Network: red, NAD: "ns2/red", Role: netconf.PodRolePrimary, IPs: ips, TunnelID: key}},
			Nodes:       nodes, Zone: "node1"})
		if err != nil {
			t.Fatal(err)
		}
		ch, err := pods.Changes(pods.Planned{}, pl)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := cl.Apply(ctx, ch); err != nil {
			t.Fatal(err)
		}
		p := &realPod{ns: "ns2", name: name, node: node, network: red, nad: "ns2/red", labels: policy.Labels{"app": app}, planned: pl}
		in.Pods = append(in.Pods, policy.Pod{Namespace: "ns2", Name: name, Node: node, Labels: p.labels,
			Networks: []policy.Attachment{{Network: red.Name, Port: p.port().Name, IPs: []netip.Addr{p.ip()}}}})
		return p
	}
	web, db, other := mk("web", "node1", "web", 5), mk("db", "node1", "db", 6), mk("other", "node1", "other", 7)
	remote := mk("remote", "node2", "web", 8) // a remote port here: a peer, in no port group
	s, err := policy.Plan(in)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := cl.Sync(ctx, s); err != nil {
		t.Fatal(err)
	}
	if err := env.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if got := portGroup(t, s, policy.ClusterPortGroupName(red.Name)).Ports; slices.Contains(got, remote.port().Name) {
		t.Errorf("the remote pod's port is in the cluster port group: %v", got)
	}
	if got := addressSetOf(t, s, policy.AddressSetName(red.Name, "ns2_LS{ML:{app: web,},}", false)); len(got) != 2 {
		t.Errorf("web peers %v, want the local and the remote pod", got)
	}
	trace := func(inport, mac string, src netip.Addr, to *realPod) (bool, string) {
		match := fmt.Sprintf(`inport == %q && eth.src == %s && eth.dst == %s && ip4.src == %s && ip4.dst == %s && ip.ttl == 64 && tcp && tcp.dst == 80`,
			inport, mac, to.mac(), src, to.ip())
		out, err := env.Trace(ctx, "--ct=new,trk", "--ct=new,trk", "--ct=new,trk", "--ct=new,trk", to.port().Switch, match)
		if err != nil {
			t.Fatal(err)
		}
		return slices.ContainsFunc(realOutRE.FindAllStringSubmatch(out, -1), func(m []string) bool { return m[1] == to.port().Name }), out
	}
	if ok, out := trace(web.port().Name, web.mac(), web.ip(), db); !ok {
		t.Errorf("web -> db not delivered:\n%s", out)
	}
	if ok, out := trace(other.port().Name, other.mac(), other.ip(), db); ok {
		t.Errorf("other -> db delivered:\n%s", out)
	}
	mgmt := netip.MustParseAddr("10.128.0.2")
	if ok, out := trace("k8s-"+red.Prefix()+"node1", ipam.MACFromIP(mgmt).String(), mgmt, db); !ok {
		t.Errorf("management port -> db not delivered:\n%s", out)
	}
}

// TestRealPolicyRandom is a differential test: random policies (the
// random test's generator) over pods of two namespaces on one network,
// applied to a real NB; for every ordered pair of pods, a new connection
// traced by ovn-trace is delivered exactly when Planner.Allows says so.
func TestRealPolicyRandom(t *testing.T) {
	blue := l3("ns1_blue", 1, 128)
	w := newRealWorld(t, blue)
	gen := &randomWorld{r: rand.New(rand.NewPCG(11, 3)), in: fixture()}
	var all []*realPod
	for i := range 6 {
		ns := []string{"ns1", "ns3"}[i%2]
		p := w.pod(t, ns, fmt.Sprintf("p%d", i), []string{"node1", "node2"}[i/3], blue, gen.labels("app", rApps))
		if i%2 == 0 {
			p.ports = []policy.ContainerPort{{Name: "http", Number: int32(8000 + i)}}
		}
		all = append(all, p)
	}
	nets := []policy.Network{{Network: blue, Namespaces: []string{"ns1", "ns3"}}}
	namespaces := []policy.Namespace{{Name: "ns1", Labels: policy.Labels{"team": "a"}}, {Name: "ns3", Labels: policy.Labels{"team": "b"}}}
	delivered, denied := 0, 0
	for round := range 2 {
		var pols []policy.Policy
		for i := range 3 {
			pols = append(pols, gen.policy([]string{"ns1", "ns3"}[i%2], fmt.Sprintf("np%d", i)))
		}
		in := w.policyInput(nets, namespaces, pols...)
		for i, p := range all {
			in.Pods[i].Ports = p.ports
		}
		planner, err := policy.New(in)
		if err != nil {
			t.Fatal(err)
		}
		rows, err := planner.State()
		if err != nil {
			t.Fatal(err)
		}
		w.sync(t, rows)
		for _, from := range all {
			for _, to := range all {
				if from == to {
					continue
				}
				port := int32(80)
				if len(to.ports) > 0 {
					port = to.ports[0].Number
				}
				want := planner.Allows(policy.Endpoint{Namespace: from.ns, Name: from.name}, policy.Endpoint{Namespace: to.ns, Name: to.name}, policy.TCP, port)
				match := fmt.Sprintf(`inport == %q && eth.src == %s && eth.dst == %s && ip4.src == %s && ip4.dst == %s && ip.ttl == 64 && tcp && tcp.dst == %d`,
					from.port().Name, from.mac(), from.gwMAC(), from.ip(), to.ip(), port)
				out, err := w.env.Trace(w.ctx, "--ct=new,trk", "--ct=new,trk", "--ct=new,trk", "--ct=new,trk", "--ct=new,trk", "--ct=new,trk", from.port().Switch, match)
				if err != nil {
					t.Fatal(err)
				}
				got := slices.ContainsFunc(realOutRE.FindAllStringSubmatch(out, -1), func(m []string) bool { return m[1] == to.port().Name })
				if got {
					delivered++
				} else {
					denied++
				}
				if got != want {
					t.Errorf("round %d: %s/%s -> %s/%s tcp %d: ovn-trace delivered %v, Allows %v\npolicies %+v\npods %+v\n%s",
						round, from.ns, from.name, to.ns, to.name, port, got, want, pols, in.Pods, out)
				}
			}
		}
	}
	t.Logf("%d connections delivered, %d denied", delivered, denied)
	if delivered == 0 || denied == 0 {
		t.Errorf("the random policies delivered %d and denied %d connections: a differential test needs both", delivered, denied)
	}
}
