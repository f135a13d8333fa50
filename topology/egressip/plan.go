package egressip

import (
	"cmp"
	"fmt"
	"maps"
	"net/netip"
	"slices"
	"strconv"

	"github.com/udnkit/udnkit/ipam"
	"github.com/udnkit/udnkit/netconf/udn"
	"github.com/udnkit/udnkit/topology"
)

// Priorities of the router policies (the reference's).
const (
	PriorityReroute   = 100
	PriorityNoReroute = topology.PriorityNoReroute // 102
	PriorityGateway   = 95
	// NodeIPMark is the pkt_mark of pod-to-node traffic of served pods
	// (the reference's EIP-No-Reroute-Pod-To-Node).
	NodeIPMark = 1008
)

// Namespace is a namespace and its labels.
type Namespace struct {
	Name   string
	Labels Labels
}

// Pod is a pod of the network: its addresses on it, its node and labels.
type Pod struct {
	Namespace, Name string
	Node            string
	Labels          Labels
	// IPs are the pod's addresses on the planned network.
	IPs []netip.Addr
}

// Input is what Plan needs to plan one primary network for one zone.
type Input struct {
	// Network is a primary Layer3 or Layer2 network with its ID.
	Network *udn.Network
	// Nodes are every node of the cluster with its ID.
	Nodes []topology.Node
	// Zone is the zone planned: its nodes are local.
	Zone string
	// Profile picks the Layer2 transit-router addresses (topology.Profile).
	Profile topology.Profile
	// Layer2 is a primary Layer2 network's topology; only
	// topology.Layer2TransitRouter is supported.
	Layer2 topology.Layer2Mode
	// EgressIPs with their Mark and Status (from Assign).
	EgressIPs []EgressIP
	// Namespaces are the namespaces of Pods, with their labels.
	Namespaces []Namespace
	// Pods are the network's pods (any node).
	Pods []Pod
	// NodeIPs are every node's addresses (k8s.ovn.org/host-cidrs), for the
	// node-ips address set.
	NodeIPs []netip.Addr
	// ServiceIPs are the default network's cluster IPs a primary network's
	// pods reach (topology.Cluster.ServiceIPs).
	ServiceIPs []netip.Addr
	// EgressNodes are the egress-assignable nodes (Node.Assignable). On a
	// Layer3 network, a zone of one node that is one gets the route that
	// sends other nodes' rerouted traffic to its gateway router.
	EgressNodes []string
}

// Served is a pod an EgressIP serves.
type Served struct {
	Pod      *Pod
	EgressIP *EgressIP
}

// Select returns the pods an EgressIP serves, sorted by namespace and
// name: a pod matched by several EgressIPs is served by the first by name
// (the reference serves it by one, the first to claim it). Pods without
// an address or node are left out.
func Select(eips []EgressIP, namespaces []Namespace, pods []Pod) []Served {
	order := make([]*EgressIP, 0, len(eips))
	for i := range eips {
		order = append(order, &eips[i])
	}
	slices.SortFunc(order, func(a, b *EgressIP) int { return cmp.Compare(a.Name, b.Name) })
	nsLabels := make(map[string]Labels, len(namespaces))
	for _, ns := range namespaces {
		nsLabels[ns.Name] = ns.Labels
	}
	// The EgressIPs whose namespace selector takes a namespace, in name
	// order, evaluated once per namespace.
	byNS := map[string][]*EgressIP{}
	var out []Served
	for i := range pods {
		p := &pods[i]
		if len(p.IPs) == 0 || p.Node == "" {
			continue
		}
		cands, ok := byNS[p.Namespace]
		if !ok {
			for _, e := range order {
				if e.NamespaceSelector.Matches(nsLabels[p.Namespace]) {
					cands = append(cands, e)
				}
			}
			byNS[p.Namespace] = cands
		}
		for _, e := range cands {
			if e.PodSelector.Matches(p.Labels) {
				out = append(out, Served{Pod: p, EgressIP: e})
				break
			}
		}
	}
	slices.SortFunc(out, func(a, b Served) int {
		return cmp.Or(cmp.Compare(a.Pod.Namespace, b.Pod.Namespace), cmp.Compare(a.Pod.Name, b.Pod.Name))
	})
	return out
}

// AddressSetName returns the Address_Set name of one of the reference's
// sets (set "egressip-served-pods", "node-ips",
// "udn-enabled-svc-cluster-ips") of network for family: "a" and the
// decimal FNV-1a-64 of its id, as the reference names address sets.
func AddressSetName(set, network string, is4 bool) string {
	fam := "v6"
	if is4 {
		fam = "v4"
	}
	return topology.HashName(string(Controller) + ":EgressIP:" + set + ":" + fam + ":" + network)
}

// The address sets Plan writes.
const (
	SetServedPods = "egressip-served-pods"
	SetNodeIPs    = "node-ips"
	SetServiceIPs = "udn-enabled-svc-cluster-ips"
)

// Plan returns the rows of every EgressIP on in.Network for in.Zone, owned
// by Controller: the served-pods, node-IP and service-IP address sets; the
// priority-102 policies that keep served pods' traffic to nodes (marked
// 1008) and to the default network's services on its way; per local served
// pod, a priority-100 reroute to the next hops of its EgressIP's egress
// nodes, setting the EgressIP's mark; and on each local egress node's
// gateway router, per served pod, the priority-95 policy that marks the
// pod's traffic arriving unmarked; and on each of the zone's switches of
// the network the reply-marking QoS rows (priority 103, mark=42). The pod-to-pod, pod-to-join and
// reply-traffic policies at 102 are the topology's (topology.Plan writes
// them for every primary network). A pod's rows carry its node as owner
// node; an address two served pods claim (a stale pod beside its
// successor) is planned for the first by namespace and name. It is pure.
func Plan(in Input) (topology.State, error) { return plan(in, nil) }

// PlanNodes plans only the rows of the named nodes ("" names the
// network-wide rows: the address sets and the priority-102 policies), as an
// incremental State (topology.Emitter.Partial): Diff against it touches
// only those nodes' rows, and previous.Overlay(it) is the new full plan. A
// pod's change needs its node's rows, its EgressIP's local egress nodes'
// (their priority-95 policies) and "" (the served set).
func PlanNodes(in Input, nodes ...string) (topology.State, error) {
	only := make(map[string]bool, len(nodes))
	for _, n := range nodes {
		only[n] = true
	}
	return plan(in, only)
}

func plan(in Input, only map[string]bool) (topology.State, error) {
	want := func(node string) bool { return only == nil || only[node] }
	n := in.Network
	nodes, router, own, err := setup(in)
	if err != nil {
		return topology.State{}, err
	}
	var e topology.Emitter
	e.Own(Controller, n.Name)
	if only != nil {
		e.Partial(slices.Collect(maps.Keys(only))...)
	}

	served := Select(in.EgressIPs, in.Namespaces, in.Pods)
	fams := n.Families()
	for _, is4 := range fams {
		if !want("") {
			break
		}
		ipv := "ip6"
		if is4 {
			ipv = "ip4"
		}
		var local, nodeIPs, svc []netip.Prefix
		for _, s := range served {
			if inZone(nodes[s.Pod.Node], in.Zone) {
				for _, a := range s.Pod.IPs {
					if a.Is4() == is4 {
						local = append(local, netip.PrefixFrom(a, a.BitLen()))
					}
				}
			}
		}
		for _, a := range in.NodeIPs {
			if a.Is4() == is4 {
				nodeIPs = append(nodeIPs, netip.PrefixFrom(a, a.BitLen()))
			}
		}
		for _, a := range in.ServiceIPs {
			if a.Is4() == is4 {
				svc = append(svc, netip.PrefixFrom(a, a.BitLen()))
			}
		}
		servedSet := AddressSetName(SetServedPods, n.Name, is4)
		nodeSet := AddressSetName(SetNodeIPs, n.Name, is4)
		svcSet := AddressSetName(SetServiceIPs, n.Name, is4)
		e.Emit(
			topology.AddressSet{Owner: own, Name: servedSet, Addresses: e.Prefixes(uniq(local)...)},
			topology.AddressSet{Owner: own, Name: nodeSet, Addresses: e.Prefixes(uniq(nodeIPs)...)},
			topology.AddressSet{Owner: own, Name: svcSet, Addresses: e.Prefixes(uniq(svc)...)},
		)
		src := e.Cat(ipv, ".src == $", servedSet)
		e.Policy(topology.Policy{Owner: own, Router: router, Priority: PriorityNoReroute, Action: topology.PolicyAllow,
			Options: e.Options(topology.OptPktMark, strconv.Itoa(NodeIPMark))},
			src, " && ", ipv, ".dst == $", nodeSet)
		e.Policy(topology.Policy{Owner: own, Router: router, Priority: PriorityNoReroute, Action: topology.PolicyAllow},
			src, " && ", ipv, ".dst == $", svcSet)
	}

	var local []*topology.Node // sorted by name, as in.Nodes may not be
	for i := range in.Nodes {
		if inZone(&in.Nodes[i], in.Zone) {
			local = append(local, &in.Nodes[i])
		}
	}
	slices.SortFunc(local, func(a, b *topology.Node) int { return cmp.Compare(a.Name, b.Name) })
	replyQoS(&e, n, own, local, want)

	// The reference's CreateDefaultRouteToExternal: under interconnect (a
	// zone of one node), an egress node's cluster router sends traffic
	// from anywhere in the network's subnets, rerouted to it from other
	// zones, to its gateway router.
	if n.Topology == udn.TopologyLayer3 {
		if len(local) == 1 && slices.Contains(in.EgressNodes, local[0].Name) && want(local[0].Name) {
			ro := own
			ro.Node = local[0].Name
			for _, sub := range n.Subnets {
				hop, err := nextHop(n, in.Profile, local[0], true, sub.CIDR.Addr().Is4())
				if err != nil {
					return topology.State{}, fmt.Errorf("egressip: node %q: %w", local[0].Name, err)
				}
				e.Emit(topology.StaticRoute{Owner: ro, Router: router, Policy: topology.RouteSrcIP, Prefix: sub.CIDR.Masked(), Nexthop: hop})
			}
		}
	}

	seen := make(map[netip.Addr]bool, len(served)) // an address two pods claim is the first's (by namespace and name)
	for _, sv := range served {
		if err := servedRows(&e, in, nodes, router, own, fams, sv, seen, want); err != nil {
			return topology.State{}, err
		}
	}
	return e.State()
}

// PodPolicies returns the policies Plan writes for one pod of in.Network
// in in.Zone (in.Pods is not read): its priority-100 reroute when its node
// is in the zone, and the priority-95 policies on the gateway routers of
// its EgressIP's egress nodes in the zone; none when no EgressIP serves
// it. Its cost is the pod's and the EgressIPs', not the other pods': a
// controller diffs a pod's change with it (topology.ObjectChanges)
// instead of planning the network again. Sorted as a State sorts them;
// the networks and zones Plan refuses it refuses alike.
func PodPolicies(in Input, pod Pod) ([]topology.Policy, error) {
	nodes, router, own, err := setup(in)
	if err != nil {
		return nil, err
	}
	served := Select(in.EgressIPs, in.Namespaces, []Pod{pod})
	if len(served) == 0 {
		return nil, nil
	}
	var e topology.Emitter
	e.Own(Controller, in.Network.Name)
	if err := servedRows(&e, in, nodes, router, own, in.Network.Families(), served[0], map[netip.Addr]bool{}, func(string) bool { return true }); err != nil {
		return nil, err
	}
	st, err := e.State()
	if err != nil {
		return nil, err
	}
	var out []topology.Policy
	for _, o := range st.ObjectsOf(topology.KindPolicy) {
		out = append(out, o.(topology.Policy))
	}
	return out, nil
}

// setup checks what Plan and PodPolicies refuse (a network that is not a
// primary Layer3 or transit-router Layer2 one with its ID, no zone) and
// returns the nodes by name, the network's cluster or transit router and
// the owner of its rows.
func setup(in Input) (map[string]*topology.Node, string, topology.Owner, error) {
	n := in.Network
	if n == nil || !n.IsPrimary() || n.ID == 0 {
		return nil, "", topology.Owner{}, fmt.Errorf("egressip: network: %w: need a primary network with its ID", ErrInvalid)
	}
	router := n.Prefix() + "ovn_cluster_router"
	switch {
	case n.Topology == udn.TopologyLayer3:
	case n.Topology == udn.TopologyLayer2 && in.Layer2 == topology.Layer2TransitRouter:
		router = n.Prefix() + "transit_router"
	default:
		return nil, "", topology.Owner{}, fmt.Errorf("egressip: network %q: %w: %s %s", n.Name, ErrUnsupported, n.Topology, in.Layer2)
	}
	if in.Zone == "" {
		return nil, "", topology.Owner{}, fmt.Errorf("egressip: network %q: zone: %w: empty", n.Name, ErrInvalid)
	}
	nodes := make(map[string]*topology.Node, len(in.Nodes))
	for i := range in.Nodes {
		nodes[in.Nodes[i].Name] = &in.Nodes[i]
	}
	return nodes, router, topology.Owner{Controller: Controller, Network: n.Name, Topology: n.Topology, Role: n.Role}, nil
}

// servedRows emits the rows of one served pod: the reroute on router and
// its EgressIP's local egress nodes' gateway policies, of the nodes want
// takes.
func servedRows(e *topology.Emitter, in Input, nodes map[string]*topology.Node, router string, own topology.Owner,
	fams []bool, s Served, seen map[netip.Addr]bool, want func(string) bool) error {
	n := in.Network
	eip := s.EgressIP
	if len(eip.Status) == 0 {
		return nil
	}
	if eip.Mark < MarkFirst || eip.Mark > MarkLast {
		return fmt.Errorf("egressip %q: annotation %s: %w: mark %d not allocated (%d..%d)",
			eip.Name, AnnotationMark, ErrInvalid, eip.Mark, MarkFirst, MarkLast)
	}
	mark := e.Options(topology.OptPktMark, strconv.Itoa(eip.Mark))
	podNode := nodes[s.Pod.Node]
	if podNode == nil {
		// A pod on a node the plan does not hold (gone, or not ready) is
		// served by nobody, as the reference skips a pod whose node it has
		// not loaded: its address may be another pod's on a new node.
		return nil
	}
	podLocal := inZone(podNode, in.Zone)
	// On a Layer2 transit router the reference also reroutes another
	// zone's pod, to this zone's egress nodes only (egressip.go
	// addPodEgressIPAssignment: "isLocalZonePod || (isLocalZoneEgressNode
	// && Layer2)").
	l2Remote := !podLocal && n.Topology == udn.TopologyLayer2
	for _, ip := range s.Pod.IPs {
		ipv := "ip6"
		if ip.Is4() {
			ipv = "ip4"
		}
		if !slices.Contains(fams, ip.Is4()) || seen[ip] {
			continue
		}
		seen[ip] = true
		var hops []netip.Addr
		for k, a := range eip.Status {
			if a.IP.Is4() != ip.Is4() || slices.ContainsFunc(eip.Status[:k], func(b Assignment) bool { return b.Node == a.Node && b.IP.Is4() == a.IP.Is4() }) {
				continue // one node of a family counts once
			}
			egress := nodes[a.Node]
			if egress == nil {
				return fmt.Errorf("egressip %q: status: %w: node %q is not a node of the cluster", eip.Name, ErrInvalid, a.Node)
			}
			hop, err := nextHop(n, in.Profile, egress, inZone(egress, in.Zone), ip.Is4())
			if err != nil {
				return fmt.Errorf("egressip %q: node %q: %w", eip.Name, a.Node, err)
			}
			if !l2Remote || inZone(egress, in.Zone) {
				hops = append(hops, hop)
			}
			if inZone(egress, in.Zone) && want(egress.Name) {
				gw := own
				gw.Node = egress.Name
				e.Policy(topology.Policy{Owner: gw, Router: topology.GatewayRouterName(n.Name, egress.Name),
					Priority: PriorityGateway, Action: topology.PolicyAllow, Options: mark},
					ipv, ".src == ", e.Addr(ip), " && pkt.mark == 0")
			}
		}
		if len(hops) == 0 || !podLocal && !l2Remote || !want(s.Pod.Node) {
			continue
		}
		slices.SortFunc(hops, netip.Addr.Compare)
		po := own
		po.Node = s.Pod.Node
		e.Policy(topology.Policy{Owner: po, Router: router, Priority: PriorityReroute, Action: topology.PolicyReroute,
			Nexthops: e.Addrs(slices.Compact(hops)...), Options: mark},
			ipv, ".src == ", e.Addr(ip))
	}
	return nil
}

// nextHop returns where a reroute sends traffic to egress node nd: on
// Layer3 the node's gateway-router join address when it is local, its
// transit-switch address when remote; on a Layer2 transit router the
// node's gateway-router side of its peer pair, local or remote.
func nextHop(n *udn.Network, profile topology.Profile, nd *topology.Node, local, is4 bool) (netip.Addr, error) {
	if n.Topology == udn.TopologyLayer2 {
		t, ok := family(n.TransitSubnets, is4)
		if !ok {
			return netip.Addr{}, fmt.Errorf("network %q: transitSubnets: %w: none of the family", n.Name, ErrInvalid)
		}
		peers := ipam.TransitRouterPeerIPs
		if profile == topology.ProfileReference {
			peers = ipam.TransitRouterPeerPair
		}
		_, gr, err := peers(t, nd.ID)
		return gr.Addr(), err
	}
	if local {
		j, ok := family(n.JoinSubnets, is4)
		if !ok {
			return netip.Addr{}, fmt.Errorf("network %q: joinSubnets: %w: none of the family", n.Name, ErrInvalid)
		}
		a, err := ipam.JoinGatewayRouterIP(j, nd.ID)
		return a.Addr(), err
	}
	t, ok := family(n.TransitSubnets, is4)
	if !ok {
		return netip.Addr{}, fmt.Errorf("network %q: transitSubnets: %w: none of the family", n.Name, ErrInvalid)
	}
	a, err := ipam.TransitSwitchIP(t, nd.ID)
	return a.Addr(), err
}

func family(ps []netip.Prefix, is4 bool) (netip.Prefix, bool) {
	for _, p := range ps {
		if p.Addr().Is4() == is4 {
			return p, true
		}
	}
	return netip.Prefix{}, false
}

func inZone(nd *topology.Node, zone string) bool { return nd != nil && nd.InZone() == zone }

func uniq(ps []netip.Prefix) []netip.Prefix {
	slices.SortFunc(ps, func(a, b netip.Prefix) int { return a.Addr().Compare(b.Addr()) })
	return slices.Compact(ps)
}
