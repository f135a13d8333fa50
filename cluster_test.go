package udnkit

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"net/netip"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/udnkit/udnkit/connect"
	"github.com/udnkit/udnkit/ipam"
	"github.com/udnkit/udnkit/netconf"
	"github.com/udnkit/udnkit/topology"
	"github.com/udnkit/udnkit/topology/egressip"
	"github.com/udnkit/udnkit/topology/egressqos"
	"github.com/udnkit/udnkit/topology/pods"
	"github.com/udnkit/udnkit/topology/policy"
	"github.com/udnkit/udnkit/topology/services"
)

// fresh plans zone from scratch without recording it: the oracle of the
// incremental paths.
func (s *Cluster) fresh(zone string) (topology.State, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.planZone(zone)
}

func udnDoc(ns, name, topo, role, subnet string) *netconf.UserDefinedNetwork {
	u, err := netconf.DecodeUDN([]byte(fmt.Sprintf(`
kind: UserDefinedNetwork
metadata: {name: %s, namespace: %s}
spec: {topology: %s, role: %s, subnets: [%q]}`, name, ns, topo, role, subnet)))
	if err != nil {
		panic(err)
	}
	return u
}

func cudnDoc(name, label, topo, subnet string) *netconf.ClusterUserDefinedNetwork {
	c, err := netconf.DecodeCUDN([]byte(fmt.Sprintf(`
kind: ClusterUserDefinedNetwork
metadata: {name: %s}
spec:
  namespaceSelector: {matchLabels: {tier: %s}}
  template: {spec: {topology: %s, role: Primary, subnets: [%q]}}`, name, label, topo, subnet)))
	if err != nil {
		panic(err)
	}
	return c
}

func cncDoc(name, cidr string, namespaces ...string) *connect.ClusterNetworkConnect {
	c, err := connect.Decode([]byte(fmt.Sprintf(`
kind: ClusterNetworkConnect
metadata: {name: %s}
spec:
  networkSelectors:
  - networkSelectionType: PrimaryUserDefinedNetworks
    primaryUserDefinedNetworkSelector:
      namespaceSelector: {matchExpressions: [{key: kubernetes.io/metadata.name, operator: In, values: [%s]}]}
  connectSubnets: [{cidr: %s, networkPrefix: 24}]
  connectivityEnabled: [PodNetwork]`, name, strings.Join(namespaces, ", "), cidr)))
	if err != nil {
		panic(err)
	}
	return c
}

// checkUnique fails when two datapaths of a plan request one tunnel key,
// or two router ports (or two ports of one switch) share an address.
func checkUnique(t *testing.T, what string, st topology.State) {
	t.Helper()
	keys := map[string]string{}
	claim := func(key, by string) {
		if key == "" {
			return
		}
		if other, ok := keys[key]; ok && other != by {
			t.Fatalf("%s: tunnel key %s requested by %s and %s", what, key, other, by)
		}
		keys[key] = by
	}
	addrs := map[string]string{}
	for o := range st.Objects() {
		switch x := o.(type) {
		case topology.Switch:
			k, _ := x.OtherConfig.Get(topology.OptRequestedTnlKey)
			claim(k, "switch "+x.Name)
		case topology.Router:
			k, _ := x.Options.Get(topology.OptRequestedTnlKey)
			claim(k, "router "+x.Name)
		case topology.RouterPort:
			for _, p := range x.Networks {
				key := x.Router + " " + p.Addr().String()
				if other, ok := addrs[key]; ok {
					t.Fatalf("%s: address %s on router %s twice: %s and %s", what, p, x.Router, other, x.Name)
				}
				addrs[key] = x.Name
			}
		}
	}
}

// TestClusterEventsProperty runs random clusters through random events
// (networks, CUDNs, namespaces, connects, primaries sharing a namespace,
// nodes joining, bootstrapping, leaving): after each event the changes
// PlanEvent returns, applied to the previous plan, give exactly the plan
// of the zone from scratch, and no tunnel key or router address is
// requested twice.
func TestClusterEventsProperty(t *testing.T) {
	for seed := range uint64(propertySeeds) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) { runEvents(t, seed, 30) })
	}
}

func runEvents(t *testing.T, seed uint64, steps int) {
	rng := rand.New(rand.NewPCG(seed, 7))
	c, err := New(Config{Nodes: []topology.Node{testNode("node1", 0)}, Policy: PolicyOptions{DefaultNetworkIsolation: seed%2 == 0}})
	if err != nil {
		t.Fatal(err)
	}
	const zone = "node1"
	namespaces := []string{"ns-a", "ns-b", "ns-c"}
	for i, ns := range namespaces {
		if _, err := c.SetNamespace(netconf.Namespace{Name: ns, Labels: map[string]string{"tier": fmt.Sprint("t", i%2)}}); err != nil {
			t.Fatal(err)
		}
	}
	prev, err := c.Plan(zone)
	if err != nil {
		t.Fatal(err)
	}
	nodeSeq, netSeq, podSeq := 1, 0, 0
	var livePods [][2]string
	for step := range steps {
		var ev Event
		var what string
		err = nil
		switch op := rng.IntN(22); op {
		case 0, 1: // a primary or secondary UDN
			netSeq++
			ns := namespaces[rng.IntN(len(namespaces))]
			topo, role := []string{"Layer3", "Layer2"}[rng.IntN(2)], []string{"Primary", "Secondary"}[rng.IntN(2)]
			subnet := "10.100.0.0/16"
			if topo == "Layer3" {
				subnet = "10.100.0.0/16/24"
			}
			what = fmt.Sprintf("add %s %s UDN %s/n%d", topo, role, ns, netSeq)
			_, ev, err = c.SetUDN(udnDoc(ns, fmt.Sprint("n", netSeq), topo, role, subnet))
		case 2: // a primary CUDN of one tier
			netSeq++
			topo := []string{"Layer3", "Layer2"}[rng.IntN(2)]
			subnet := "10.200.0.0/16"
			if topo == "Layer3" {
				subnet = "10.200.0.0/16/24"
			}
			what = fmt.Sprintf("add %s CUDN c%d", topo, netSeq)
			_, ev, err = c.SetCUDN(cudnDoc(fmt.Sprint("c", netSeq), fmt.Sprint("t", rng.IntN(2)), topo, subnet))
		case 3: // remove a network
			names := c.Names()
			if len(names) == 0 {
				continue
			}
			name := names[rng.IntN(len(names))]
			what = "remove network " + name
			ev = c.Remove(name)
		case 4, 5: // a node joins, ready or bootstrapping
			nodeSeq++
			nd := testNode(fmt.Sprint("node", nodeSeq), 0)
			if rng.IntN(3) == 0 {
				nd.Chassis = ""
			}
			what = fmt.Sprintf("add node %s (chassis %q)", nd.Name, nd.Chassis)
			ev, err = c.SetNode(nd)
		case 6: // a bootstrapping node becomes ready, or a node changes
			nodes := c.Nodes()
			nd := nodes[rng.IntN(len(nodes))]
			if nd.Name == zone {
				continue
			}
			nd.Chassis = "chassis-" + nd.Name + "-" + fmt.Sprint(step)
			what = "update node " + nd.Name
			ev, err = c.SetNode(nd)
		case 7: // a node leaves
			nodes := c.Nodes()
			nd := nodes[rng.IntN(len(nodes))]
			if nd.Name == zone {
				continue
			}
			what = "remove node " + nd.Name
			ev = c.RemoveNode(nd.Name)
		case 8: // a connect of two namespaces' primaries
			a, b := namespaces[rng.IntN(3)], namespaces[rng.IntN(3)]
			name := fmt.Sprint("cnc", rng.IntN(2))
			what = fmt.Sprintf("set connect %s of %s, %s", name, a, b)
			_, ev, err = c.SetConnect(cncDoc(name, fmt.Sprintf("192.168.%d.0/16", 0), a, b))
			if err == nil {
				ev2, _, _ := c.Connect(name)
				what += " (" + ev2.Condition.Reason + ")"
			}
		case 9:
			name := fmt.Sprint("cnc", rng.IntN(2))
			what = "remove connect " + name
			ev = c.RemoveConnect(name)
		case 10: // a namespace changes tier, or its ACL logging alone
			ns := namespaces[rng.IntN(3)]
			labels := map[string]string{"tier": fmt.Sprint("t", rng.IntN(2))}
			logging := []string{"", `{"deny":"alert","allow":"notice"}`, `{"deny":"debug"}`}[rng.IntN(3)]
			if rng.IntN(2) == 0 {
				labels = nil
				if spaces := c.namespaceList(); slices.ContainsFunc(spaces, func(n netconf.Namespace) bool { return n.Name == ns }) {
					labels = spaces[slices.IndexFunc(spaces, func(n netconf.Namespace) bool { return n.Name == ns })].Labels
				}
			}
			what = fmt.Sprintf("relabel %s %v, acl-logging %s", ns, labels, logging)
			ev, err = c.SetNamespace(netconf.Namespace{Name: ns, Labels: labels, Annotations: map[string]string{policy.AnnotationACLLogging: logging}})
		case 11, 12: // a pod, with a secondary network when its namespace has one
			nodes := c.Nodes()
			nd := nodes[rng.IntN(len(nodes))]
			ns := namespaces[rng.IntN(len(namespaces))]
			ann := map[string]string{}
			for _, name := range c.Names() {
				if n, _ := c.Network(name); n != nil && !n.IsPrimary() && strings.HasPrefix(name, ns+"_") && rng.IntN(2) == 0 {
					ann[pods.AnnotationNetworks] = ns + "/" + strings.TrimPrefix(name, ns+"_")
					break
				}
			}
			if rng.IntN(2) == 0 {
				ann[policy.AnnotationOpenPorts] = `[{"protocol":"tcp","port":80}]`
			}
			podSeq++
			what = fmt.Sprintf("add pod %s/p%d on %s %v", ns, podSeq, nd.Name, ann)
			ev, err = c.SetPod(Pod{Pod: pods.Pod{Namespace: ns, Name: fmt.Sprint("p", podSeq), UID: fmt.Sprint("uid", podSeq), Node: nd.Name}, Annotations: ann,
				Labels: map[string]string{"app": fmt.Sprint("a", rng.IntN(2))}})
			if err == nil {
				livePods = append(livePods, [2]string{ns, fmt.Sprint("p", podSeq)})
			}
		case 13: // a pod goes
			if len(livePods) == 0 {
				continue
			}
			i := rng.IntN(len(livePods))
			p := livePods[i]
			livePods = slices.Delete(livePods, i, i+1)
			what = "remove pod " + p[0] + "/" + p[1]
			ev = c.RemovePod(p[0], p[1])
		case 14: // a Service, or its removal
			ns := namespaces[rng.IntN(len(namespaces))]
			if rng.IntN(3) == 0 {
				what = "remove service " + ns + "/web"
				ev = c.RemoveService(ns, "web")
				break
			}
			what = "set service " + ns + "/web"
			ev, err = c.SetService(services.Service{Namespace: ns, Name: "web",
				ClusterIPs: []netip.Addr{netip.AddrFrom4([4]byte{10, 96, 0, byte(10 + rng.IntN(3))})},
				Ports:      []services.Port{{Name: "http", Protocol: services.ProtocolTCP, Port: 80, NodePort: uint16(30000 + rng.IntN(2))}},
				Slices: []services.EndpointSlice{{Ports: []services.EndpointPort{{Name: "http", Protocol: services.ProtocolTCP, Port: 8080}},
					Endpoints: []services.Endpoint{{Addresses: []netip.Addr{netip.MustParseAddr("10.100.0.5")}, Node: "node1"}}}}})
		case 15: // a network policy: a0 pods take ingress from a1 pods and from tier t1
			ns := namespaces[rng.IntN(len(namespaces))]
			what = "set policy " + ns + "/np"
			ev, err = c.SetNetworkPolicy(policy.Policy{Namespace: ns, Name: "np",
				PodSelector: policy.Selector{MatchLabels: map[string]string{"app": "a0"}},
				Ingress: []policy.Rule{{Peers: []policy.Peer{
					{PodSelector: &policy.Selector{MatchLabels: map[string]string{"app": "a1"}}},
					{NamespaceSelector: &policy.Selector{MatchLabels: map[string]string{"tier": "t1"}}}}}}})
		case 16:
			ns := namespaces[rng.IntN(len(namespaces))]
			what = "remove policy " + ns + "/np"
			ev = c.RemoveNetworkPolicy(ns, "np")
		case 17: // an EgressIP: app=a0 pods of tier t1, or of every namespace
			name := fmt.Sprint("eip", rng.IntN(2))
			e := egressip.EgressIP{Name: name, IPs: []netip.Addr{netip.AddrFrom4([4]byte{172, 18, 0, byte(100 + rng.IntN(4))})},
				PodSelector: egressip.Selector{Requirements: []egressip.Requirement{{Key: "app", Op: egressip.OpIn, Values: []string{"a0"}}}}}
			if rng.IntN(2) == 0 {
				e.NamespaceSelector = egressip.Selector{Requirements: []egressip.Requirement{{Key: "tier", Op: egressip.OpIn, Values: []string{"t1"}}}}
			}
			what = fmt.Sprintf("set egress IP %s %v", name, e.IPs)
			ev, err = c.SetEgressIP(e)
		case 18:
			name := fmt.Sprint("eip", rng.IntN(2))
			what = "remove egress IP " + name
			ev = c.RemoveEgressIP(name)
		case 19: // a node's egress-assignable label, node1's (the zone's own) half the time
			nodes := c.Nodes()
			nd := nodes[rng.IntN(len(nodes))]
			if rng.IntN(2) == 0 {
				nd = nodes[0]
			}
			on := rng.IntN(3) > 0
			what = fmt.Sprintf("egress-assignable %s %v", nd.Name, on)
			ev, err = c.SetEgressAssignable(nd.Name, on)
		case 20: // an EgressQoS: dscp for every pod to 203.0.113.0/24, 46 for a1 pods
			ns := namespaces[rng.IntN(len(namespaces))]
			what = "set egress QoS " + ns
			ev, err = c.SetEgressQoS(egressqos.EgressQoS{Namespace: ns, Rules: []egressqos.Rule{
				{DSCP: 10 + rng.IntN(2), DstCIDR: netip.MustParsePrefix("203.0.113.0/24")},
				{DSCP: 46, PodSelector: &egressip.Selector{Requirements: []egressip.Requirement{{Key: "app", Op: egressip.OpIn, Values: []string{"a1"}}}}}}})
		case 21:
			ns := namespaces[rng.IntN(len(namespaces))]
			what = "remove egress QoS " + ns
			ev = c.RemoveEgressQoS(ns)
		}
		if err != nil {
			if errors.Is(err, ipam.ErrConflict) || errors.Is(err, netconf.ErrInvalidSpec) || errors.Is(err, ipam.ErrExhausted) ||
				errors.Is(err, pods.ErrNoPrimary) || errors.Is(err, pods.ErrOverlap) {
				if testing.Verbose() {
					t.Logf("step %d: %s: refused: %v", step, what, err)
				}
				continue // refused, nothing changed
			}
			t.Fatalf("step %d: %s: %v", step, what, err)
		}
		if testing.Verbose() {
			t.Logf("step %d: %s", step, what)
		}
		changes, err := c.PlanEvent(zone, ev)
		if err != nil {
			t.Fatalf("step %d: %s: PlanEvent: %v", step, what, err)
		}
		next, err := topology.Apply(prev, changes)
		if err != nil {
			t.Fatalf("step %d: %s: the event's changes do not apply to the previous plan: %v", step, what, err)
		}
		want, err := c.fresh(zone)
		if err != nil {
			t.Fatalf("step %d: %s: plan: %v", step, what, err)
		}
		if d := topology.Diff(next, want); len(d) > 0 {
			t.Fatalf("step %d: %s: the incremental plan misses %d changes of the full plan:\n%v", step, what, len(d), d)
		}
		if d := topology.Diff(want, next); len(d) > 0 {
			t.Fatalf("step %d: %s: the incremental plan has %d changes the full plan has not:\n%v", step, what, len(d), d)
		}
		checkUnique(t, fmt.Sprintf("step %d: %s", step, what), want)
		prev = next
	}
}

// TestBootstrappingNode: a node without its chassis (or addresses) yet is
// held with its allocations and reported, and every other zone plans.
func TestBootstrappingNode(t *testing.T) {
	c, err := New(Config{Nodes: []topology.Node{testNode("node-a", 0)}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.AddUDN(udnDoc("ns", "blue", "Layer3", "Primary", "10.128.0.0/16/24")); err != nil {
		t.Fatal(err)
	}
	boot := testNode("node-b", 0)
	boot.Chassis = ""
	if err := c.AddNode(boot); err != nil {
		t.Fatalf("a bootstrapping node is refused: %v", err)
	}
	if got := c.NotReady(); len(got) != 1 || got[0].Node != "node-b" || !strings.Contains(got[0].Reason, "chassis") {
		t.Fatalf("NotReady = %+v, want node-b without chassis", got)
	}
	st, err := c.Plan("node-a")
	if err != nil {
		t.Fatalf("zone node-a does not plan beside a bootstrapping node: %v", err)
	}
	for o := range st.Objects() {
		if strings.Contains(topology.Render(o), "node-b") {
			t.Fatalf("the bootstrapping node is planned: %s", topology.Render(o))
		}
	}
	if _, err := c.Plan("node-b"); !errors.Is(err, ErrZoneNotReady) {
		t.Fatalf("the bootstrapping node's zone: %v, want ErrZoneNotReady", err)
	}
	if sub, ok := c.HostSubnets("ns_blue", "node-b"); !ok || len(sub) != 1 {
		t.Fatalf("the bootstrapping node has no host subnet (%v): it would be renumbered when ready", sub)
	}
	boot.Chassis = "chassis-node-b"
	ev, err := c.SetNode(boot)
	if err != nil {
		t.Fatal(err)
	}
	changes, err := c.PlanEvent("node-a", ev)
	if err != nil {
		t.Fatal(err)
	}
	if len(changes) == 0 {
		t.Fatal("the node becoming ready changes nothing in zone node-a")
	}
	for _, ch := range changes {
		if o := ch.Object; o != nil && o.OwnedBy().Node != "node-b" {
			t.Fatalf("a remote node becoming ready touches a row not of its own: %v", ch)
		}
	}
}

// TestRemoveNodeFreesOnlyItsOwn: removing a node frees its node ID and
// host subnets; every other allocation stays.
func TestRemoveNodeFreesOnlyItsOwn(t *testing.T) {
	c, err := New(Config{Nodes: []topology.Node{testNode("a", 0), testNode("b", 0), testNode("c", 0)}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.AddUDN(udnDoc("ns", "blue", "Layer3", "Primary", "10.128.0.0/16/24")); err != nil {
		t.Fatal(err)
	}
	before := c.Annotations()
	c.RemoveNode("b")
	after := c.Annotations()
	if len(after.Nodes) != 2 {
		t.Fatalf("nodes after removal: %+v", after.Nodes)
	}
	for _, o := range after.Nodes {
		i := slices.IndexFunc(before.Nodes, func(b Object) bool { return b.Name == o.Name })
		if fmt.Sprint(before.Nodes[i].Annotations) != fmt.Sprint(o.Annotations) {
			t.Fatalf("node %s changed: %v → %v", o.Name, before.Nodes[i].Annotations, o.Annotations)
		}
	}
	if fmt.Sprint(before.NADs) != fmt.Sprint(after.NADs) {
		t.Fatalf("the networks' annotations changed: %v → %v", before.NADs, after.NADs)
	}
	if err := c.AddNode(testNode("d", 0)); err != nil {
		t.Fatal(err)
	}
	d, _ := c.HostSubnets("ns_blue", "d")
	b := before.Nodes[1].Annotations[AnnotationNodeSubnets]
	if !strings.Contains(b, d[0].String()) {
		t.Fatalf("the freed subnet of b (%s) is not reused by d (%v)", b, d)
	}
}

func mustPrefix(s string) netip.Prefix { return netip.MustParsePrefix(s) }

// TestConnectTakesItsOwnTunnelKey: a connect router and a Layer2
// network's transit router draw from one allocator (they both requested
// 16715779 when each had its own).
func TestConnectTakesItsOwnTunnelKey(t *testing.T) {
	c, err := New(Config{Nodes: []topology.Node{testNode("node-a", 0)}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.AddUDN(udnDoc("blue", "blue", "Layer3", "Primary", "10.128.0.0/16/24")); err != nil {
		t.Fatal(err)
	}
	if _, err := c.AddUDN(udnDoc("green", "green", "Layer2", "Primary", "10.129.0.0/16")); err != nil {
		t.Fatal(err)
	}
	acc, _, err := c.SetConnect(cncDoc("blue-green", "192.168.0.0/16", "blue", "green"))
	if err != nil || !acc.Accepted() {
		t.Fatalf("connect: %v %+v", err, acc.Condition)
	}
	st, err := c.Plan("node-a")
	if err != nil {
		t.Fatal(err)
	}
	checkUnique(t, "blue-green", st)
	_, al, _ := c.Connect("blue-green")
	in, _ := c.Input("green_green", "node-a")
	if slices.Contains(in.TunnelKeys, al.TunnelKey) {
		t.Fatalf("the connect router's key %d is one of the Layer2 network's %v", al.TunnelKey, in.TunnelKeys)
	}
}

// propertySeeds is how many random clusters TestClusterEventsProperty
// runs; UDNKIT_PROPERTY_SEEDS raises it for a longer search.
var propertySeeds = func() int {
	if n, err := strconv.Atoi(os.Getenv("UDNKIT_PROPERTY_SEEDS")); err == nil && n > 0 {
		return n
	}
	return 100 // 25 missed an overlap of two connects that seed 48 finds
}()

// TestSettingsGivenOnce: the cluster's masquerade subnets reach every
// planner (the services planner wrote the default hairpin address when
// called as the README showed).
func TestSettingsGivenOnce(t *testing.T) {
	masq := []netip.Prefix{mustPrefix("169.254.64.0/18")}
	c, err := New(Config{Nodes: []topology.Node{testNode("node-a", 0)}, Cluster: topology.Cluster{MasqueradeSubnets: masq}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.AddUDN(udnDoc("ns", "blue", "Layer3", "Primary", "10.128.0.0/16/24")); err != nil {
		t.Fatal(err)
	}
	if _, err := c.SetService(services.Service{Namespace: "ns", Name: "web", ClusterIPs: []netip.Addr{netip.MustParseAddr("10.96.0.7")},
		Ports: []services.Port{{Name: "http", Protocol: services.ProtocolTCP, Port: 80}}}); err != nil {
		t.Fatal(err)
	}
	st, err := c.Plan("node-a")
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for o := range st.Objects() {
		text := topology.Render(o)
		if strings.Contains(text, "169.254.0.") {
			t.Fatalf("a row uses the default masquerade subnet: %s", text)
		}
		if strings.Contains(text, "169.254.64.") {
			seen++
		}
	}
	if lbs := st.ObjectsOf(topology.KindLoadBalancer); len(lbs) == 0 || !strings.Contains(topology.Render(lbs[0]), "hairpin_snat_ip=169.254.64.5") {
		t.Fatalf("the Service's load balancer does not hairpin through the cluster's masquerade subnet: %v", lbs)
	}
	if seen < 2 {
		t.Fatalf("only %d rows use the cluster's masquerade subnet", seen)
	}
}
