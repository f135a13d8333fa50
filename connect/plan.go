package connect

import (
	"cmp"
	"maps"
	"net/netip"
	"slices"

	ucnames "github.com/udnkit/udnkit/internal/names"
	"github.com/udnkit/udnkit/internal/sdkerr"
	"github.com/udnkit/udnkit/ipam"
	"github.com/udnkit/udnkit/netconf/udn"
	"github.com/udnkit/udnkit/topology"
)

// ControllerConnect owns the rows of ClusterNetworkConnects. A connect's
// rows have Owner{Controller: ControllerConnect, Network: <connect name>}
// (and Node for per-node rows), so that one connect's Diff and Sync speak
// for its own rows only, whichever network router they sit on.
const ControllerConnect topology.Controller = "udnkit-connect"

// PolicyPriority is the priority of the reroute policies towards the
// connect router (the reference's NetworkConnectPolicyPriority).
const PolicyPriority = 9001

// Errors of Plan.
var (
	// ErrInvalid is wrapped by errors about the planner input.
	ErrInvalid = sdkerr.New(sdkerr.Invalid, "invalid connect input")
	// ErrTunnelKeyLimit is wrapped when a port's tunnel key would exceed
	// MaxPortTunnelKey.
	ErrTunnelKeyLimit = sdkerr.New(sdkerr.Exhausted, "connect port tunnel key over OVN's limit")
)

// Input is what Plan needs to plan one ClusterNetworkConnect in one zone.
type Input struct {
	// Connect is the ClusterNetworkConnect, accepted.
	Connect *ClusterNetworkConnect
	// Networks are the networks it connects (Acceptance.Networks' Network
	// fields), IDs set.
	Networks []*udn.Network
	// Allocation is the connect's tunnel key and subnets (Allocator).
	Allocation Allocation
	// Nodes are the cluster's nodes (name, ID, zone, chassis).
	Nodes []topology.Node
	// Zone is the zone programmed; nodes of other zones are remote.
	Zone string
	// HostSubnets are the Layer3 networks' per-node subnets: network name,
	// then node name.
	HostSubnets map[string]map[string][]netip.Prefix
	// Profile selects the seeds' names and sides (default) or the
	// reference's.
	Profile udn.Profile
	// ServiceCIDRs are the cluster's service CIDRs, which service-only
	// connectivity (ClusterIPServiceNetwork without PodNetwork) lets pods
	// reach.
	ServiceCIDRs []netip.Prefix
}

// names of a profile.
type names struct {
	profile udn.Profile
	cnc     string
	maxKey  int
}

func (n names) router() string {
	if n.profile == udn.ProfileReference {
		return "connect_router_" + n.cnc
	}
	return "connect-router-" + n.cnc
}

// connectPort is the port on the connect router towards network (and
// node, for Layer3).
func (n names) connectPort(network, node string) string {
	if n.profile == udn.ProfileReference {
		if node == "" {
			return "crtor-" + n.cnc + "_" + network
		}
		return "crtor-" + n.cnc + "_" + network + "_" + node
	}
	if node == "" {
		return n.cnc + "-to-" + network
	}
	return n.cnc + "-to-" + network + "-" + node
}

// networkPort is the port on the network's router towards the connect
// router.
func (n names) networkPort(network, node string) string {
	if n.profile == udn.ProfileReference {
		if node == "" {
			return "rtocr-" + network + "_" + n.cnc
		}
		return "rtocr-" + network + "_" + node + "_" + n.cnc
	}
	if node == "" {
		return network + "-to-" + n.cnc
	}
	return network + "-" + node + "-to-" + n.cnc
}

// sides returns the network-router and connect-router addresses of a
// point-to-point pair: the seeds give the network side the first (even)
// address, the reference the connect side.
func (n names) sides(pair netip.Prefix) (network, connect netip.Prefix, err error) {
	first, second, err := ipam.ConnectPeerIPs(pair)
	if n.profile == udn.ProfileReference {
		return second, first, err
	}
	return first, second, err
}

// RouterName returns the connect router's name under the profile.
func RouterName(cnc string, p udn.Profile) string { return names{profile: p, cnc: cnc}.router() }

// networkRouter returns the router a network attaches to the connect
// router with, and the router port its pods' traffic enters it by (the
// inport of the reroute policies).
func networkRouter(n *udn.Network, node string) (router, inport string) {
	p := n.Prefix()
	if n.Topology == udn.TopologyLayer3 {
		return p + "ovn_cluster_router", "rtos-" + p + node
	}
	return p + "transit_router", "trtos-" + p + "ovn_layer2_switch"
}

// link is one point-to-point link between a network router and the
// connect router: per node for Layer3, one for Layer2.
type link struct {
	net       *udn.Network
	node      *topology.Node // nil for Layer2
	local     bool           // the network side is in this zone
	netSide   []netip.Prefix // one per family
	connSide  []netip.Prefix
	tunnelKey int
}

// Plan plans the rows of in.Connect in in.Zone: the connect router, its
// ports and static routes, the peer ports on the networks' routers and the
// reroute policies towards it. The result speaks for the connect's rows
// only (Owner.Controller ControllerConnect, Owner.Network the connect's
// name); apply it with the networks' own states or alone.
func Plan(in Input) (topology.State, error) { return plan(in, nil, MaxPortTunnelKey) }

// PlanNodes plans only the rows of the named nodes (their Layer3 links,
// policies and routes), for a node joining or leaving: the changes are
// Diff(observed, part) and the new desired state previous.Overlay(part).
// The rows that depend on no node (the router, Layer2 links) are left
// out. Its cost follows the networks, not the nodes.
func PlanNodes(in Input, nodes ...string) (topology.State, error) {
	if len(nodes) == 0 {
		return topology.State{}, ucnames.Errorf("connect: %w: PlanNodes needs at least one node", ErrInvalid)
	}
	only := make(map[string]bool, len(nodes))
	for _, n := range nodes {
		only[n] = true
	}
	return plan(in, only, MaxPortTunnelKey)
}

// plan plans in for the nodes in only (all when nil), refusing port keys
// over maxKey (MaxPortTunnelKey; benchmarks of scales OVN refuses lift it).
func plan(in Input, only map[string]bool, maxKey int) (topology.State, error) {
	if in.Connect == nil || in.Connect.Name == "" {
		return topology.State{}, ucnames.Errorf("connect: %w: no ClusterNetworkConnect", ErrInvalid)
	}
	cnc := in.Connect.Name
	if msg := ucnames.ControlError(cnc); msg != "" {
		return topology.State{}, ucnames.Errorf("%s %s: metadata.name: %w: %s", Kind, ucnames.Quote(cnc), ErrInvalid, msg)
	}
	if err := topology.CheckNames(nil, in.Nodes, in.Zone); err != nil {
		return topology.State{}, ucnames.Errorf("%s %q: %w: %w", Kind, cnc, ErrInvalid, err)
	}
	for _, n := range in.Networks {
		if err := topology.CheckNames(n, nil, ""); err != nil {
			return topology.State{}, ucnames.Errorf("%s %q: %w: %w", Kind, cnc, ErrInvalid, err)
		}
	}
	nm := names{profile: in.Profile, cnc: cnc, maxKey: maxKey}
	if in.Allocation.TunnelKey == 0 {
		return topology.State{}, ucnames.Errorf("%s %q: %w: no tunnel key allocated", Kind, cnc, ErrInvalid)
	}
	subnets := connectSubnets(in.Connect)
	if len(subnets) == 0 {
		return topology.State{}, ucnames.Errorf("%s %q: spec.connectSubnets: %w: none parses", Kind, cnc, ErrInvalid)
	}
	nets := slices.Clone(in.Networks)
	slices.SortFunc(nets, func(a, b *udn.Network) int { return cmp.Compare(a.Name, b.Name) })
	nodes := slices.Clone(in.Nodes)
	slices.SortFunc(nodes, func(a, b topology.Node) int { return cmp.Compare(a.Name, b.Name) })

	var e topology.Emitter
	e.Own(ControllerConnect, cnc)
	own := topology.Owner{Controller: ControllerConnect, Network: cnc}
	router := nm.router()
	if only == nil {
		e.Emit(topology.Router{Owner: own, Name: router,
			Options: e.Options("requested-tnl-key", e.Itoa(in.Allocation.TunnelKey))})
	} else {
		e.Partial(slices.Collect(maps.Keys(only))...)
		nodes = slices.DeleteFunc(nodes, func(n topology.Node) bool { return !only[n.Name] })
	}

	// Each link is emitted with its routes as it is made; only the local
	// ones are kept, for the policies.
	var local []link
	var nbuf, cbuf [2]netip.Prefix
	add := func(l link) error {
		if err := emitLink(&e, nm, own, router, l, in); err != nil {
			return err
		}
		if err := emitRoutes(&e, own, router, l, in); err != nil {
			return err
		}
		if l.local {
			l.netSide, l.connSide = slices.Clone(l.netSide), slices.Clone(l.connSide)
			local = append(local, l)
		}
		return nil
	}
	for _, n := range nets {
		if n == nil || n.ID == 0 {
			return topology.State{}, ucnames.Errorf("%s %q: %w: a network without an ID", Kind, cnc, ErrInvalid)
		}
		if len(n.Subnets) == 0 {
			return topology.State{}, ucnames.Errorf("%s %q: network %q: subnets: %w: a network without subnets cannot be connected", Kind, cnc, n.Name, ErrInvalid)
		}
		alloc, ok := in.Allocation.Subnets[KeyOf(n)]
		if !ok || len(alloc) == 0 {
			return topology.State{}, ucnames.Errorf("%s %q: network %q: %w: no connect subnet allocated (%s)", Kind, cnc, n.Name, ErrInvalid, KeyOf(n))
		}
		if n.Topology == udn.TopologyLayer3 {
			for i := range nodes {
				l, err := layer3Link(nm, subnets, n, &nodes[i], alloc, nbuf[:0], cbuf[:0])
				if err != nil {
					return topology.State{}, err
				}
				l.local = nodes[i].InZone() == in.Zone
				if err := add(l); err != nil {
					return topology.State{}, err
				}
			}
			continue
		}
		if only != nil {
			continue
		}
		l, err := layer2Link(nm, subnets, n, alloc)
		if err != nil {
			return topology.State{}, err
		}
		l.local = true
		if err := add(l); err != nil {
			return topology.State{}, err
		}
	}
	emitPolicies(&e, own, PolicyPriority, nets, local)
	emitServices(&e, nm, own, nets, nodes, in, only)
	return e.State()
}

// layer3Link returns the link of n on nd; its sides are appended to netBuf
// and connBuf, which the caller may reuse once the link is emitted.
func layer3Link(nm names, subnets []ipam.ConnectSubnet, n *udn.Network, nd *topology.Node, blocks []netip.Prefix, netBuf, connBuf []netip.Prefix) (link, error) {
	l := link{net: n, node: nd, netSide: netBuf, connSide: connBuf}
	for i, b := range blocks {
		pair, err := ipam.ConnectNodeSubnet(b, nd.ID)
		if err != nil {
			return link{}, ucnames.Errorf("%s %q: network %q: node %q: %w", Kind, nm.cnc, n.Name, nd.Name, err)
		}
		ns, cs, err := nm.sides(pair)
		if err != nil {
			return link{}, err
		}
		l.netSide, l.connSide = append(l.netSide, ns), append(l.connSide, cs)
		if i == 0 {
			s, ok := subnetOf(subnets, b)
			if !ok {
				return link{}, ucnames.Errorf("%s %q: network %q: %w: block %s is in no connect subnet", Kind, nm.cnc, n.Name, ErrInvalid, b)
			}
			l.tunnelKey = portTunnelKey(s, blockIndex(s, b), nd.ID)
		}
	}
	return l, checkKey(nm, l)
}

func layer2Link(nm names, subnets []ipam.ConnectSubnet, n *udn.Network, pairs []netip.Prefix) (link, error) {
	l := link{net: n}
	for i, pair := range pairs {
		ns, cs, err := nm.sides(pair)
		if err != nil {
			return link{}, ucnames.Errorf("%s %q: network %q: %w", Kind, nm.cnc, n.Name, err)
		}
		l.netSide, l.connSide = append(l.netSide, ns), append(l.connSide, cs)
		if i == 0 {
			s, ok := subnetOf(subnets, pair)
			if !ok {
				return link{}, ucnames.Errorf("%s %q: network %q: %w: pair %s is in no connect subnet", Kind, nm.cnc, n.Name, ErrInvalid, pair)
			}
			l.tunnelKey = portTunnelKey(s, blockIndex(s, pair), pairIndex(s, pair))
		}
	}
	return l, checkKey(nm, l)
}

func checkKey(nm names, l link) error {
	if l.tunnelKey > nm.maxKey {
		return ucnames.Errorf("%s %q: network %q: port tunnel key %d: %w (%d)", Kind, nm.cnc, l.net.Name, l.tunnelKey, ErrTunnelKeyLimit, MaxPortTunnelKey)
	}
	return nil
}

func subnetOf(subnets []ipam.ConnectSubnet, p netip.Prefix) (ipam.ConnectSubnet, bool) {
	for _, s := range subnets {
		if s.CIDR.Contains(p.Addr()) {
			return s, true
		}
	}
	return ipam.ConnectSubnet{}, false
}

func emitLink(e *topology.Emitter, nm names, own topology.Owner, router string, l link, in Input) error {
	node := ""
	if l.node != nil {
		node = l.node.Name
		own.Node = node
	}
	cport, nport := nm.connectPort(l.net.Name, node), nm.networkPort(l.net.Name, node)
	opts := []string{"requested-tnl-key", e.Itoa(l.tunnelKey)}
	peer := ""
	if l.local {
		peer = nport
	} else {
		if l.node.Chassis == "" {
			return ucnames.Errorf("%s %q: node %q: chassis: %w: a remote node needs its chassis", Kind, nm.cnc, node, ErrInvalid)
		}
		opts = append(opts, "requested-chassis", l.node.Chassis)
	}
	e.Emit(topology.RouterPort{Owner: own, Name: cport, Router: router, MAC: e.MAC(l.connSide[0].Addr()),
		Networks: e.Prefixes(l.connSide...), Peer: peer, Options: e.Options(opts...)})
	if l.local {
		netRouter, _ := networkRouter(l.net, node)
		e.Emit(topology.RouterPort{Owner: own, Name: nport, Router: netRouter, MAC: e.MAC(l.netSide[0].Addr()),
			Networks: e.Prefixes(l.netSide...), Peer: cport})
	}
	return nil
}

// emitPolicies adds, on each local network-side link's router, a reroute
// at priority to the connect (link) router for every subnet of every other
// connected network of a family the link has.
func emitPolicies(e *topology.Emitter, own topology.Owner, priority int, nets []*udn.Network, links []link) {
	for _, l := range links {
		if !l.local {
			continue
		}
		node := ""
		o := own
		if l.node != nil {
			node, o.Node = l.node.Name, l.node.Name
		}
		router, inport := networkRouter(l.net, node)
		for _, dst := range nets {
			if dst.Name == l.net.Name {
				continue
			}
			for _, s := range dst.Subnets {
				hop, ok := sameFamily(l.connSide, s.CIDR.Addr().Is4())
				if !ok {
					continue
				}
				e.Policy(topology.Policy{Owner: o, Router: router, Priority: priority,
					Action: topology.PolicyReroute, Nexthops: e.Addrs(hop.Addr())},
					"inport == ", e.Quote(inport), " && ", ipv(s.CIDR), ".dst == ", e.Prefix(s.CIDR))
			}
		}
	}
}

func sameFamily(ps []netip.Prefix, v4 bool) (netip.Prefix, bool) {
	for _, p := range ps {
		if p.Addr().Is4() == v4 {
			return p, true
		}
	}
	return netip.Prefix{}, false
}

// emitRoutes adds the connect router's routes back to l's network: per
// node host subnet through that node's link for Layer3, the network's
// subnets through its link for Layer2.
func emitRoutes(e *topology.Emitter, own topology.Owner, router string, l link, in Input) error {
	if l.node == nil {
		emitSubnetRoutes(e, own, router, l)
		return nil
	}
	hs, ok := in.HostSubnets[l.net.Name][l.node.Name]
	if !ok {
		return ucnames.Errorf("%s %q: network %q: node %q: %w: no host subnet", Kind, in.Connect.Name, l.net.Name, l.node.Name, ErrInvalid)
	}
	own.Node = l.node.Name
	for _, s := range hs {
		if hop, ok := sameFamily(l.netSide, s.Addr().Is4()); ok {
			e.Emit(topology.StaticRoute{Owner: own, Router: router, Policy: topology.RouteDstIP, Prefix: s, Nexthop: hop.Addr()})
		}
	}
	return nil
}

// emitSubnetRoutes adds router's routes to each of l's network's subnets
// through l's network side of the subnet's family.
func emitSubnetRoutes(e *topology.Emitter, own topology.Owner, router string, l link) {
	for _, s := range l.net.Subnets {
		if hop, ok := sameFamily(l.netSide, s.CIDR.Addr().Is4()); ok {
			e.Emit(topology.StaticRoute{Owner: own, Router: router, Policy: topology.RouteDstIP, Prefix: s.CIDR, Nexthop: hop.Addr()})
		}
	}
}
