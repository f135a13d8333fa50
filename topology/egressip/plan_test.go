package egressip_test

import (
	"errors"
	"net/netip"
	"slices"
	"strings"
	"testing"

	"github.com/udnkit/udnkit/internal/golden"
	"github.com/udnkit/udnkit/netconf/udn"
	"github.com/udnkit/udnkit/topology"
	"github.com/udnkit/udnkit/topology/egressip"
)

var egressPodLabel = egressip.NewLabels("egress", "needed")

func l3Network() *udn.Network {
	return &udn.Network{Name: "ns2_network1", ID: 2, Topology: udn.TopologyLayer3, Role: udn.RolePrimary,
		Subnets:        []udn.Subnet{{CIDR: netip.MustParsePrefix("20.128.0.0/14"), HostPrefix: 16}},
		JoinSubnets:    []netip.Prefix{netip.MustParsePrefix("100.65.0.0/16")},
		TransitSubnets: []netip.Prefix{netip.MustParsePrefix("100.88.0.0/16")}}
}

func l2Network() *udn.Network {
	return &udn.Network{Name: "ns2_l2", ID: 3, Topology: udn.TopologyLayer2, Role: udn.RolePrimary,
		Subnets:        []udn.Subnet{{CIDR: netip.MustParsePrefix("10.100.0.0/16")}},
		JoinSubnets:    []netip.Prefix{netip.MustParsePrefix("100.65.0.0/16")},
		TransitSubnets: []netip.Prefix{netip.MustParsePrefix("100.88.0.0/16")}}
}

// syncInput is the scene of the reference's egressip_udn_l3_test.go
// "sync: should remove stale LRPs for marks and configures missing LRP
// marks": node1 (ID 2, local) and node2 (ID 3, remote) both egress nodes,
// egress-pod2 on node1 and egress-pod4 on node2 selected, an unselected
// pod on node1, zone node1.
func syncInput(n *udn.Network) egressip.Input {
	sel := egressip.Selector{Requirements: []egressip.Requirement{{Key: "egress", Op: egressip.OpIn, Values: []string{"needed"}}}}
	return egressip.Input{
		Network: n,
		Nodes:   []topology.Node{{Name: "node1", ID: 2}, {Name: "node2", ID: 3}},
		Zone:    "node1",
		EgressIPs: []egressip.EgressIP{{Name: "egressip", IPs: addrs("192.168.126.101", "192.168.126.102"),
			NamespaceSelector: sel, PodSelector: sel, Mark: 50000,
			Status: []egressip.Assignment{{Node: "node1", IP: netip.MustParseAddr("192.168.126.101")}, {Node: "node2", IP: netip.MustParseAddr("192.168.126.102")}}}},
		Namespaces: []egressip.Namespace{{Name: "egressip-namespace2", Labels: egressPodLabel}, {Name: "other"}},
		Pods: []egressip.Pod{
			{Namespace: "egressip-namespace2", Name: "egress-pod2", Node: "node1", Labels: egressPodLabel, IPs: addrs("20.128.0.5")},
			{Namespace: "egressip-namespace2", Name: "egress-pod4", Node: "node2", Labels: egressPodLabel, IPs: addrs("20.129.0.3")},
			{Namespace: "egressip-namespace2", Name: "plain", Node: "node1", IPs: addrs("20.128.0.6")},
			{Namespace: "other", Name: "labelled", Node: "node1", Labels: egressPodLabel, IPs: addrs("20.128.0.7")},
		},
		NodeIPs:     addrs("192.168.126.202", "192.168.126.51"),
		ServiceIPs:  addrs("10.96.0.1", "10.96.0.10"),
		EgressNodes: []string{"node1", "node2"},
	}
}

func policies(s topology.State) map[string]topology.Policy {
	out := map[string]topology.Policy{}
	for _, o := range s.ObjectsOf(topology.KindPolicy) {
		p := o.(topology.Policy)
		out[p.Router+"|"+strings.TrimSpace(p.Match)] = p
	}
	return out
}

// TestPlanLayer3 ports the expectations of the reference's
// egressip_udn_l3_test.go "sync: should remove stale LRPs for marks and
// configures missing LRP marks" for the UDN rows (getReRoutePolicyForController,
// getGWPktMarkLRPForController, the no-reroute node policy, the served pods
// address set).
func TestPlanLayer3(t *testing.T) {
	in := syncInput(l3Network())
	s, err := egressip.Plan(in)
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "layer3.txt", s.String())
	ps := policies(s)
	cr, gr := "ns2_network1_ovn_cluster_router", "GR_ns2_network1_node1"
	// The local pod's reroute: to node1's gateway router join IP (local)
	// and node2's transit switch IP (remote), with the mark.
	re, ok := ps[cr+"|ip4.src == 20.128.0.5"]
	if !ok || re.Priority != 100 || re.Action != topology.PolicyReroute ||
		!slices.Equal(re.Nexthops, addrs("100.65.0.2", "100.88.0.3")) {
		t.Errorf("reroute of egress-pod2: %+v", re)
	}
	if v, _ := re.Options.Get("pkt_mark"); v != "50000" {
		t.Errorf("reroute pkt_mark %q, want 50000", v)
	}
	if re.Owner.Controller != egressip.Controller || re.Owner.Node != "node1" {
		t.Errorf("reroute owner %v", re.Owner)
	}
	// The remote pod gets no reroute in this zone; the unselected and the
	// unselected namespace's pod get none.
	for _, ip := range []string{"20.129.0.3", "20.128.0.6", "20.128.0.7"} {
		if p, ok := ps[cr+"|ip4.src == "+ip]; ok {
			t.Errorf("unexpected reroute %+v", p)
		}
	}
	// The local egress node's gateway router marks both served pods'
	// unmarked traffic (getGWPktMarkLRPForController, priority 95).
	for _, ip := range []string{"20.128.0.5", "20.129.0.3"} {
		p, ok := ps[gr+"|ip4.src == "+ip+" && pkt.mark == 0"]
		if v, _ := p.Options.Get("pkt_mark"); !ok || p.Priority != 95 || p.Action != topology.PolicyAllow || v != "50000" {
			t.Errorf("gateway-router policy of %s: %+v", ip, p)
		}
	}
	if _, ok := ps["GR_ns2_network1_node2|ip4.src == 20.128.0.5 && pkt.mark == 0"]; ok {
		t.Error("a remote egress node's gateway router is planned in this zone")
	}
	// No-reroute to node IPs with pkt_mark 1008, and to the services.
	served := egressip.AddressSetName(egressip.SetServedPods, "ns2_network1", true)
	nodeSet := egressip.AddressSetName(egressip.SetNodeIPs, "ns2_network1", true)
	nr, ok := ps[cr+"|ip4.src == $"+served+" && ip4.dst == $"+nodeSet]
	if v, _ := nr.Options.Get("pkt_mark"); !ok || nr.Priority != 102 || v != "1008" {
		t.Errorf("no-reroute to nodes: %+v", nr)
	}
	// The served pods set holds the local served pod only.
	as, ok := s.Get(topology.KindAddressSet, served)
	if !ok || !slices.Equal(as.(topology.AddressSet).Addresses, []netip.Prefix{netip.MustParsePrefix("20.128.0.5/32")}) {
		t.Errorf("served pods set: %v", as)
	}
	ns, _ := s.Get(topology.KindAddressSet, nodeSet)
	if len(ns.(topology.AddressSet).Addresses) != 2 {
		t.Errorf("node IPs set: %v", ns)
	}
	// getReRouteStaticRouteForController(v4Net1, <node1's gateway router join IP>, network).
	routes := s.ObjectsOf(topology.KindStaticRoute)
	if len(routes) != 1 || routes[0].(topology.StaticRoute).Prefix != netip.MustParsePrefix("20.128.0.0/14") ||
		routes[0].(topology.StaticRoute).Nexthop != netip.MustParseAddr("100.65.0.2") || routes[0].(topology.StaticRoute).Policy != topology.RouteSrcIP ||
		routes[0].(topology.StaticRoute).Router != cr {
		t.Errorf("routes %v", routes)
	}
	// Not when the zone's node is no egress node, nor in a zone of several nodes.
	in.EgressNodes = []string{"node2"}
	if s2, _ := egressip.Plan(in); len(s2.ObjectsOf(topology.KindStaticRoute)) != 0 {
		t.Error("route planned for a zone without an egress node")
	}
	in.EgressNodes = []string{"node1"}
	in.Nodes[1].Zone = "node1"
	if s2, _ := egressip.Plan(in); len(s2.ObjectsOf(topology.KindStaticRoute)) != 0 {
		t.Error("route planned for a zone of two nodes")
	}
	// The reply-marking QoS row (REFERENCE (f): EgressIP-Mark-Reply-Traffic,
	// ovn/egressip.go) on the zone's node switch only: from-lport, 103,
	// the served set's tracked replies, mark=42.
	qs := s.ObjectsOf(topology.KindQoS)
	if len(qs) != 1 {
		t.Fatalf("QoS rows %v", qs)
	}
	q := qs[0].(topology.QoS)
	if m, _ := q.Action.Get(topology.QoSMark); q.Switch != "ns2_network1_node1" || q.Direction != topology.ACLFromLport || q.Priority != 103 ||
		q.Match != "ip4.src == $"+served+" && ct.trk && ct.rpl" || m != 42 || len(q.Action) != 1 {
		t.Errorf("reply QoS row %+v", q)
	}
	if !s.SpeaksFor(egressip.Controller, "ns2_network1") || len(s.Controllers()) != 1 {
		t.Errorf("controllers %v", s.Controllers())
	}
}

// TestPlanLayer2 ports egressip_udn_l2_test.go's next hops: on a transit
// router, the egress node's gateway-router side of its peer pair, local or
// remote, under each profile (REFERENCE (f)).
func TestPlanLayer2(t *testing.T) {
	for _, tc := range []struct {
		profile topology.Profile
		hops    []netip.Addr
		file    string
	}{
		{topology.ProfileReference, addrs("100.88.0.5", "100.88.0.7"), "layer2_reference.txt"}, // /31 pairs at 2*ID: GR on the odd address
		{topology.ProfileSeeds, addrs("100.88.0.6", "100.88.0.10"), "layer2_seeds.txt"},        // /30 blocks at ID-1
	} {
		in := syncInput(l2Network())
		in.Profile = tc.profile
		for i := range in.Pods {
			in.Pods[i].IPs = addrs("10.100.0." + string(rune('5'+i)))
		}
		s, err := egressip.Plan(in)
		if err != nil {
			t.Fatal(err)
		}
		golden.Check(t, tc.file, s.String())
		re, ok := policies(s)["ns2_l2_transit_router|ip4.src == 10.100.0.5"]
		if !ok || !slices.Equal(re.Nexthops, tc.hops) {
			t.Errorf("%v: reroute %+v, want next hops %v", tc.profile, re, tc.hops)
		}
		// egressip_udn_l2_test.go "Pod update: should update UDN and CDN
		// config": the remote egress-pod4 (node2) is rerouted in node1's
		// zone too, to node1 (this zone's egress node) only.
		re, ok = policies(s)["ns2_l2_transit_router|ip4.src == 10.100.0.6"]
		if !ok || !slices.Equal(re.Nexthops, tc.hops[:1]) || re.Owner.Node != "node2" {
			t.Errorf("%v: remote pod's reroute %+v, want next hop %v", tc.profile, re, tc.hops[:1])
		}
	}
}

// TestPlanFamilies: an IPv4 pod is rerouted only to the nodes of IPv4
// egress IPs, an IPv6 pod to those of IPv6 ones (dual stack).
func TestPlanFamilies(t *testing.T) {
	n := l3Network()
	n.Subnets = append(n.Subnets, udn.Subnet{CIDR: netip.MustParsePrefix("fd00:10:128::/48"), HostPrefix: 64})
	n.JoinSubnets = append(n.JoinSubnets, netip.MustParsePrefix("fd99::/64"))
	n.TransitSubnets = append(n.TransitSubnets, netip.MustParsePrefix("fd97::/64"))
	in := syncInput(n)
	in.EgressIPs[0].Status[1].IP = netip.MustParseAddr("fc00::102")
	in.Pods[0].IPs = addrs("20.128.0.5", "fd00:10:128::5")
	s, err := egressip.Plan(in)
	if err != nil {
		t.Fatal(err)
	}
	ps := policies(s)
	if p := ps["ns2_network1_ovn_cluster_router|ip4.src == 20.128.0.5"]; !slices.Equal(p.Nexthops, addrs("100.65.0.2")) {
		t.Errorf("IPv4 reroute %v", p.Nexthops)
	}
	if p := ps["ns2_network1_ovn_cluster_router|ip6.src == fd00:10:128::5"]; !slices.Equal(p.Nexthops, addrs("fd97::3")) {
		t.Errorf("IPv6 reroute %v", p.Nexthops)
	}
}

func TestPlanErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		mod  func(*egressip.Input)
		want error
		text string
	}{
		{"no mark", func(in *egressip.Input) { in.EgressIPs[0].Mark = 0 }, egressip.ErrInvalid, `egressip "egressip": annotation k8s.ovn.org/egressip-mark`},
		{"unknown status node", func(in *egressip.Input) { in.EgressIPs[0].Status[0].Node = "gone" }, egressip.ErrInvalid, `node "gone"`},
		{"secondary network", func(in *egressip.Input) { in.Network.Role = udn.RoleSecondary }, egressip.ErrInvalid, "primary"},
		{"legacy layer2", func(in *egressip.Input) { in.Network = l2Network(); in.Layer2 = topology.Layer2Legacy }, egressip.ErrUnsupported, "legacy"},
		{"no zone", func(in *egressip.Input) { in.Zone = "" }, egressip.ErrInvalid, "zone"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := syncInput(l3Network())
			tc.mod(&in)
			_, err := egressip.Plan(in)
			if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.text) {
				t.Errorf("got %v, want %v naming %q", err, tc.want, tc.text)
			}
		})
	}
}

// TestPlanUnassigned: an EgressIP without a node reroutes nothing (the
// reference removes its policies) but keeps its pods in the served set.
func TestPlanUnassigned(t *testing.T) {
	in := syncInput(l3Network())
	in.EgressIPs[0].Status = nil
	s, err := egressip.Plan(in)
	if err != nil {
		t.Fatal(err)
	}
	for k, p := range policies(s) {
		if p.Priority != 102 {
			t.Errorf("policy %s planned for an unassigned EgressIP", k)
		}
	}
}

// TestPlanTwoIPsOnOneNode: a status with two IPs of an EgressIP on one node
// (which Assign never writes, but an object edited by hand may hold) plans
// that node once.
func TestPlanTwoIPsOnOneNode(t *testing.T) {
	in := syncInput(l3Network())
	in.EgressIPs[0].Status[1].Node = "node1"
	s, err := egressip.Plan(in)
	if err != nil {
		t.Fatal(err)
	}
	p := policies(s)["ns2_network1_ovn_cluster_router|ip4.src == 20.128.0.5"]
	if !slices.Equal(p.Nexthops, addrs("100.65.0.2")) {
		t.Errorf("next hops %v", p.Nexthops)
	}
}

// TestPodPolicies: the policies PodPolicies gives for each pod, without the
// other pods, are exactly Plan's policies of that pod (its reroute and the
// gateway policies of its egress nodes); an unselected pod has none.
func TestPodPolicies(t *testing.T) {
	for _, n := range []*udn.Network{l3Network(), l2Network()} {
		in := syncInput(n)
		if n.Topology == udn.TopologyLayer2 {
			for i := range in.Pods {
				in.Pods[i].IPs = addrs("10.100.0." + string(rune('5'+i)))
			}
		}
		full, err := egressip.Plan(in)
		if err != nil {
			t.Fatal(err)
		}
		var fromPods []string
		for _, p := range in.Pods {
			alone := in
			alone.Pods = nil
			pols, err := egressip.PodPolicies(alone, p)
			if err != nil {
				t.Fatal(err)
			}
			if p.Name == "plain" && len(pols) > 0 {
				t.Errorf("%s: unselected pod has policies %v", n.Name, pols)
			}
			for _, q := range pols {
				fromPods = append(fromPods, topology.Render(q))
			}
		}
		var want []string
		for _, o := range full.ObjectsOf(topology.KindPolicy) {
			if p := o.(topology.Policy); p.Priority != egressip.PriorityNoReroute {
				want = append(want, topology.Render(o))
			}
		}
		slices.Sort(fromPods)
		slices.Sort(want)
		if len(want) == 0 || !slices.Equal(fromPods, want) {
			t.Errorf("%s: PodPolicies\n%s\nPlan\n%s", n.Name, strings.Join(fromPods, "\n"), strings.Join(want, "\n"))
		}
	}
}

// TestPlanLayer2Deletes ports egressip_udn_l2_test.go's "EgressIP delete:
// should del UDN and CDN config" and "Pod delete: should delete UDN and
// CDN config" for the UDN rows on the transit router: without the
// EgressIP, and with the selected pods gone, the reroutes and the
// gateway-router policies go and the served set is empty, while the
// priority-102 policies and the node-IP and service sets stay.
func TestPlanLayer2Deletes(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*egressip.Input)
	}{
		{"EgressIP delete", func(in *egressip.Input) { in.EgressIPs = nil }},
		{"Pod delete", func(in *egressip.Input) { in.Pods = in.Pods[2:] }}, // egress-pod2 and egress-pod4
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := syncInput(l2Network())
			in.Profile = topology.ProfileReference
			for i := range in.Pods {
				in.Pods[i].IPs = addrs("10.100.0." + string(rune('5'+i)))
			}
			tc.edit(&in)
			s, err := egressip.Plan(in)
			if err != nil {
				t.Fatal(err)
			}
			var prios []int
			for _, p := range policies(s) {
				prios = append(prios, p.Priority)
			}
			slices.Sort(prios)
			if !slices.Equal(prios, []int{102, 102}) {
				t.Errorf("policy priorities %v, want the two 102s only", prios)
			}
			served, ok := s.Get(topology.KindAddressSet, egressip.AddressSetName(egressip.SetServedPods, "ns2_l2", true))
			if !ok || len(served.(topology.AddressSet).Addresses) != 0 {
				t.Errorf("served set %v", served)
			}
			if nodes, ok := s.Get(topology.KindAddressSet, egressip.AddressSetName(egressip.SetNodeIPs, "ns2_l2", true)); !ok || len(nodes.(topology.AddressSet).Addresses) != 2 {
				t.Errorf("node-IP set %v", nodes)
			}
		})
	}
}

// TestPlanPodOfUnknownNode: a served pod whose node the input does not
// hold (removed, not ready) has no rows, neither its reroute nor the
// egress node's gateway-router policy: its address may be handed to a
// pod of a new node, whose rows would clash with them.
func TestPlanPodOfUnknownNode(t *testing.T) {
	in := syncInput(l3Network())
	in.Pods[1].Node = "node9" // egress-pod4, served, on a node that is gone
	s, err := egressip.Plan(in)
	if err != nil {
		t.Fatal(err)
	}
	for key := range policies(s) {
		if strings.Contains(key, "20.129.0.3") {
			t.Errorf("a row of the pod on an unknown node: %s", key)
		}
	}
	alone := in
	alone.Pods = nil
	if pols, err := egressip.PodPolicies(alone, in.Pods[1]); err != nil || len(pols) != 0 {
		t.Errorf("PodPolicies: %v, %v", pols, err)
	}
}
