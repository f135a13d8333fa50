package topology

import (
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"strconv"

	"github.com/udnkit/udnkit/internal/names"
	"github.com/udnkit/udnkit/ipam"
	"github.com/udnkit/udnkit/netconf/udn"
)

// Priorities of the router policies the planners write.
const (
	// PriorityNodeReroute: traffic from the pod network to a node IP (or a
	// default-network service IP) is rerouted to the management port.
	PriorityNodeReroute = 1004
	// PriorityNoReroute: pod-to-pod, pod-to-join and marked traffic is
	// allowed before any reroute policy (egress IP, egress service).
	PriorityNoReroute = 102
	// NoRerouteMark is the packet mark allowed at PriorityNoReroute.
	NoRerouteMark = 42
)

type mode uint8

const (
	modeLayer3       mode = iota + 1
	modeLayer2            // primary Layer2 on a transit router, or secondary Layer2
	modeLegacyLayer2      // primary Layer2 with gateway routers on the switch
	modeUpgrade           // transit router with the legacy pieces the rolling upgrade keeps
	modeLocalnet
)

// family holds the per-address-family values of one network.
type family struct {
	is4    bool
	subnet netip.Prefix // network subnet (the first of the family)
	// subnets are all the network's subnets of the family (several only on
	// Layer3), hostLens their host prefix lengths (0: not fixed).
	subnets  []netip.Prefix
	hostLens []int
	join     netip.Prefix
	transit  netip.Prefix
	defJoin  netip.Prefix // default network's join subnet (may be invalid)
	masq     ipam.Masquerade
	grMasq   netip.Addr // gateway router masquerade IP of the network
	mpMasq   netip.Addr // management port masquerade IP of the network
	// Layer2 (whole subnet) gateway and management addresses.
	gw, mgmt netip.Prefix
	// Layer3 cluster router's join port address.
	joinRouter netip.Prefix
	ipv        string // "ip4" or "ip6"
	anyRoute   netip.Prefix
	svcIPs     []netip.Addr
	mgmtHop    []netip.Addr // Layer2: {mgmt address}, shared by the reroute policies
}

type planner struct {
	in      Input
	n       *udn.Network
	c       Cluster
	mode    mode
	legacy  map[string]bool // modeUpgrade: remote nodes still on the legacy topology
	p       string
	names   wideNames
	fams    []family
	own     Owner
	mtu     string
	locals  []*Node // nodes of in.Zone, in input order; at most one for primary Layer2
	err     error
	b       Builder
	primary bool
	famList []bool // is4 per family

	// Column values every object of the plan may share: the objects of a
	// State are immutable, so one slice serves them all.
	routerAddrs, unknownAddrs []string
	mtuOpts, statelessOpts    Options
	lbSwitch, lbRouter        []string // LB groups of a node switch, a gateway router
	extOpts                   Options  // network_name of the external switch's localnet port
	l2                        layer2Names

	// The plan's small slices, see slab.
	opts  slab[Option]
	strs  slab[string]
	pfxs  slab[netip.Prefix]
	addrs slab[netip.Addr]
	gcs   slab[GatewayChassis]
}

// cat returns the concatenation of parts, built in the plan's string arena.
func (p *planner) cat(parts ...string) string { return p.b.strs.cat(parts...) }

// itoa returns strconv.Itoa(i), built in the plan's string arena.
func (p *planner) itoa(i int) string {
	var scratch [20]byte
	return p.b.strs.bytes(strconv.AppendInt(scratch[:0], int64(i), 10))
}

// mac returns the MAC derived from addrs (see macSource): ipam.MACFromIP in
// its String form, built in the plan's string arena.
func (p *planner) mac(addrs ...netip.Prefix) string {
	a, ok := macSource(addrs)
	if !ok {
		return ""
	}
	var scratch [17]byte
	return p.b.strs.bytes(ipam.AppendMAC(scratch[:0], a))
}

// addresses returns the LSP address entry "MAC ip ip" of ips, the MAC
// derived as by mac, built in the plan's string arena.
func (p *planner) addresses(ips ...netip.Prefix) string {
	var scratch [128]byte
	return p.b.strs.bytes(appendAddresses(scratch[:0], ips))
}

func (p *planner) fail(err error) {
	if p.err == nil && err != nil {
		p.err = err
	}
}

func (p *planner) ipf(v netip.Prefix, err error) netip.Prefix {
	if err != nil {
		p.fail(fmt.Errorf("%s: %w", p.n, err))
	}
	return v
}

func newPlanner(in Input, m mode, only map[string]bool) (*planner, error) {
	n := in.Network
	if err := validateNetwork(n); err != nil {
		return nil, err
	}
	if err := CheckNames(nil, in.Nodes, in.Zone); err != nil {
		return nil, fmt.Errorf("%s: %w", n, err)
	}
	if err := in.Cluster.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", n, err)
	}
	for i, s := range in.LegacyNodes {
		if msg := names.ControlError(s); msg != "" {
			return nil, errf("%s: legacyNodes[%d] %s: %w: %s", n, i, names.Quote(s), ErrInvalid, msg)
		}
	}
	p := &planner{in: in, n: n, c: in.Cluster.withDefaults(), mode: m, p: n.Prefix(), primary: n.IsPrimary()}
	p.names = p.newWideNames()
	topo := n.Topology
	switch m {
	case modeLayer3:
		if topo != udn.TopologyLayer3 {
			return nil, errf("%s: topology: %w: the Layer3 planner got %s", n, ErrInvalid, topo)
		}
	case modeLayer2, modeLegacyLayer2, modeUpgrade:
		if topo != udn.TopologyLayer2 {
			return nil, errf("%s: topology: %w: the Layer2 planner got %s", n, ErrInvalid, topo)
		}
		if m != modeLayer2 && !p.primary {
			return nil, errf("%s: role: %w: the legacy Layer2 topology is for primary networks", n, ErrUnsupported)
		}
		want := 1
		if p.primary {
			want = ipam.Layer2TunnelKeys
		}
		if len(in.TunnelKeys) != want {
			return nil, errf("%s: tunnelKeys: %w: need %d, got %d", n, ErrInvalid, want, len(in.TunnelKeys))
		}
		// Dynamic keys, or first the network's preserved key (the reference
		// gives a Layer2 switch 16711683+ID): networks the reference
		// created are adopted as they are.
		if err := ipam.CheckNetworkTunnelKeys(n.ID, in.TunnelKeys); err != nil {
			if errors.Is(err, ipam.ErrConflict) {
				return nil, errf("%s: tunnelKeys: %w", n, errors.Join(ErrConflict, err))
			}
			return nil, errf("%s: tunnelKeys: %w", n, errors.Join(ErrInvalid, err))
		}
	case modeLocalnet:
		if topo != udn.TopologyLocalnet {
			return nil, errf("%s: topology: %w: the Localnet planner got %s", n, ErrInvalid, topo)
		}
		if p.primary {
			return nil, errf("%s: role: %w: Localnet networks are secondary", n, ErrUnsupported)
		}
		if n.VLANID < 0 || n.VLANID > 4094 {
			return nil, errf("%s: vlanID: %w: %d not in 0..4094", n, ErrInvalid, n.VLANID)
		}
	}
	if in.Zone == "" {
		return nil, errf("%s: zone: %w: empty", n, ErrInvalid)
	}
	if only != nil {
		if err := validateSomeNodes(n, in, only); err != nil {
			return nil, err
		}
	} else {
		if err := validateNodes(n, in.Nodes); err != nil {
			return nil, err
		}
		if m == modeLayer3 {
			if err := checkHostSubnets(n, in); err != nil {
				return nil, err
			}
		}
	}
	p.own = Owner{Network: n.Name, Topology: topo, Role: n.Role}
	mtu := n.MTU
	if mtu == 0 {
		mtu = p.c.MTU
	}
	p.mtu = strconv.Itoa(mtu)

	fams := n.Families()
	p.famList, p.fams = fams, make([]family, 0, len(fams))
	join := withDefaultPrefixes(n.JoinSubnets, ipam.DefaultJoinSubnets)
	transit := n.TransitSubnets
	if len(transit) == 0 {
		transit = defaultTransit(n)
	}
	if p.primary {
		if err := checkFamilies(n, "joinSubnets", join, fams); err != nil {
			return nil, err
		}
		if err := checkFamilies(n, "masqueradeSubnets", p.c.MasqueradeSubnets, fams); err != nil {
			return nil, err
		}
		if err := checkOverlap(n, "joinSubnets", join); err != nil {
			return nil, err
		}
	}
	// The transit subnet addresses a Layer3 network's transit switch and a
	// primary Layer2 network's transit router; a secondary Layer2 network's
	// switch spans the zones without addresses of its own.
	if m == modeLayer3 || m != modeLocalnet && p.primary {
		if err := checkFamilies(n, "transitSubnets", transit, fams); err != nil {
			return nil, err
		}
		if err := checkOverlap(n, "transitSubnets", transit); err != nil {
			return nil, err
		}
	}
	for _, is4 := range fams {
		f := family{is4: is4, ipv: "ip6", anyRoute: netip.PrefixFrom(netip.IPv6Unspecified(), 0)}
		if is4 {
			f.ipv, f.anyRoute = "ip4", netip.PrefixFrom(netip.IPv4Unspecified(), 0)
		}
		for _, s := range n.Subnets { // several of a family only on Layer3 (validateNetwork)
			if s.CIDR.Addr().Is4() == is4 {
				if len(f.subnets) == 0 {
					f.subnet = s.CIDR
				}
				f.subnets = append(f.subnets, s.CIDR)
				f.hostLens = append(f.hostLens, s.HostPrefix)
			}
		}
		f.transit, _ = pickPrefix(transit, is4)
		for _, a := range p.c.ServiceIPs {
			if a.Is4() == is4 {
				f.svcIPs = append(f.svcIPs, a)
			}
		}
		if p.primary {
			f.join, _ = pickPrefix(join, is4)
			f.defJoin, _ = pickPrefix(p.c.DefaultNetworkJoinSubnets, is4)
			ms, _ := pickPrefix(p.c.MasqueradeSubnets, is4)
			var err error
			if f.masq, err = ipam.MasqueradeIPs(ms); err != nil {
				return nil, errf("%s: masqueradeSubnets: %w", n, err)
			}
			if f.grMasq, f.mpMasq, err = ipam.NetworkMasqueradeIPs(ms, n.ID); err != nil {
				return nil, errf("%s: masqueradeSubnets: %w", n, err)
			}
			if f.joinRouter, err = ipam.JoinRouterIP(f.join); err != nil {
				return nil, errf("%s: joinSubnets: %w", n, err)
			}
		}
		if topo == udn.TopologyLayer2 && p.primary {
			var err error
			if f.gw, err = ipam.GatewayIP(f.subnet); err != nil {
				return nil, errf("%s: subnets: %w", n, err)
			}
			if f.mgmt, err = ipam.ManagementIP(f.subnet); err != nil {
				return nil, errf("%s: subnets: %w", n, err)
			}
			f.mgmtHop = p.addrs.of(f.mgmt.Addr())
		}
		p.fams = append(p.fams, f)
	}
	c, s, r := p.lbGroups()
	strs := p.strs.of("router", "unknown", c, s, c, r)
	p.routerAddrs, p.unknownAddrs = strs[0:1:1], strs[1:2:2]
	p.lbSwitch, p.lbRouter = strs[2:4:4], strs[4:6:6]
	opts := p.opts.of(Option{OptGatewayMTU, p.mtu}, Option{OptStateless, "false"}, Option{OptNetworkName, p.c.PhysicalNetworkName})
	p.mtuOpts, p.statelessOpts, p.extOpts = opts[0:1:1], opts[1:2:2], opts[2:3:3]
	if topo == udn.TopologyLayer2 && p.primary {
		p.initLayer2()
	}

	for i := range in.Nodes {
		nd := &in.Nodes[i]
		if p.isLocal(nd) {
			p.locals = append(p.locals, nd)
		}
	}
	if len(p.locals) > 1 && topo == udn.TopologyLayer2 && p.primary {
		// A primary Layer2 zone holds one node: the management port and
		// the .1 gateway's SNAT exist once per switch, and the transit
		// router sends the pod subnet to one gateway router (seed 004
		// "Non-Goals").
		what := "a primary Layer2 network supports one node per zone (interconnect)"
		if m != modeLayer2 {
			what = "the legacy Layer2 topology and its upgrade support one node per zone (interconnect)"
		}
		return nil, errf("%s: zone %q: %w: %s, got %d local nodes %s",
			n, in.Zone, ErrUnsupported, what, len(p.locals), nodeNames(p.locals))
	}
	p.b.Own(n.Name)
	p.b.trusted = true
	if only != nil {
		p.b.grow(len(only) + 1)
	} else {
		p.b.grow(len(in.Nodes) + 1)
	}
	return p, nil
}

func (p *planner) isLocal(nd *Node) bool { return nd.InZone() == p.in.Zone }

// nodeNames renders the nodes' names sorted and quoted: ["a" "b"].
func nodeNames(nodes []*Node) string {
	names := make([]string, len(nodes))
	for i, nd := range nodes {
		names[i] = nd.Name
	}
	slices.Sort(names)
	return fmt.Sprintf("%q", names)
}

func (p *planner) nodeOwner(nd *Node) Owner {
	o := p.own
	o.Node = nd.Name
	return o
}

// Names.

// names of the network-wide objects, computed once per plan.
type wideNames struct {
	clusterRouter, joinSwitch, transitSwitch, layer2Switch, transitRouter string
	lbCluster, lbSwitch, lbRouter                                         string
}

func (p *planner) newWideNames() wideNames {
	pf := p.p
	return wideNames{clusterRouter: p.cat(pf, "ovn_cluster_router"), joinSwitch: p.cat(pf, "join"),
		transitSwitch: p.cat(pf, "transit_switch"), layer2Switch: p.cat(pf, "ovn_layer2_switch"),
		transitRouter: p.cat(pf, "transit_router"), lbCluster: p.cat(pf, "clusterLBGroup"),
		lbSwitch: p.cat(pf, "clusterSwitchLBGroup"), lbRouter: p.cat(pf, "clusterRouterLBGroup")}
}

func (p *planner) clusterRouter() string      { return p.names.clusterRouter }
func (p *planner) joinSwitch() string         { return p.names.joinSwitch }
func (p *planner) transitSwitch() string      { return p.names.transitSwitch }
func (p *planner) layer2Switch() string       { return p.names.layer2Switch }
func (p *planner) transitRouter() string      { return p.names.transitRouter }
func (p *planner) nodeSwitch(nd *Node) string { return p.cat(p.p, nd.Name) }
func (p *planner) gr(nd *Node) string         { return p.cat("GR_", p.p, nd.Name) }
func (p *planner) extSwitch(nd *Node) string  { return p.cat("ext_", p.p, nd.Name) }
func (p *planner) mgmtPort(nd *Node) string   { return p.cat("k8s-", p.p, nd.Name) }
func (p *planner) lbGroups() (cluster, sw, rtr string) {
	return p.names.lbCluster, p.names.lbSwitch, p.names.lbRouter
}

// macSource returns the address a MAC is derived from: the first IPv4
// address of addrs, else the first address.
func macSource(addrs []netip.Prefix) (netip.Addr, bool) {
	for _, a := range addrs {
		if a.Addr().Is4() {
			return a.Addr(), true
		}
	}
	if len(addrs) > 0 {
		return addrs[0].Addr(), true
	}
	return netip.Addr{}, false
}

func host(a netip.Addr) netip.Prefix { return netip.PrefixFrom(a, a.BitLen()) }

// routerLSP returns the router-type switch port name on sw peering with
// routerPort.
func (p *planner) routerLSP(o Owner, name, sw, routerPort string) SwitchPort {
	return SwitchPort{Owner: o, Name: name, Switch: sw, Type: PortRouter, Addresses: p.routerAddrs,
		Options: p.opts.of(Option{OptRouterPort, routerPort})}
}

// routerLSPWithKey is routerLSP with a requested tunnel key.
func (p *planner) routerLSPWithKey(o Owner, name, sw, routerPort, key string) SwitchPort {
	lsp := p.routerLSP(o, name, sw, routerPort)
	lsp.Options = p.opts.of(Option{OptRequestedTnlKey, key}, Option{OptRouterPort, routerPort}) // sorted by key
	return lsp
}

func appendAddresses(b []byte, ips []netip.Prefix) []byte {
	if a, ok := macSource(ips); ok {
		b = ipam.AppendMAC(b, a)
	}
	for _, ip := range ips {
		b = append(b, ' ')
		b = ip.Addr().AppendTo(b)
	}
	return b
}

// snat returns a stateless=false SNAT of logical to external on router.
func (p *planner) snat(o Owner, router string, logical netip.Prefix, external netip.Addr) NAT {
	return NAT{Owner: o, Router: router, Type: NATSNAT, LogicalIP: logical, ExternalIP: external,
		Options: p.statelessOpts}
}

// Plan plans in.Network according to its topology, role and, for a primary
// Layer2 network, in.Layer2: PlanLayer3, PlanLayer2 or PlanLocalnet.
func Plan(in Input) (State, error) { return plan(in, nil) }

// plan runs the planner in's network and Layer2 mode call for; only, when
// set, names the nodes of an incremental plan.
func plan(in Input, only map[string]bool) (State, error) {
	m, err := modeOf(in)
	if err != nil {
		return State{}, err
	}
	var legacy map[string]bool
	if m == modeUpgrade {
		legacy = make(map[string]bool, len(in.LegacyNodes))
		for _, n := range in.LegacyNodes {
			legacy[n] = true
		}
	}
	return run(in, m, legacy, only)
}

// modeOf returns the planner mode of in.Network's topology: Layer3,
// Layer2 (in.Layer2 picks the transit router, legacy or upgrade topology of
// a primary network) or Localnet.
func modeOf(in Input) (mode, error) {
	if in.Network == nil {
		return 0, errf("network: %w: nil", ErrInvalid)
	}
	switch in.Network.Topology {
	case udn.TopologyLayer3:
		return modeLayer3, nil
	case udn.TopologyLayer2:
		switch {
		case !in.Network.IsPrimary() || in.Layer2 == Layer2TransitRouter:
			return modeLayer2, nil
		case in.Layer2 == Layer2Legacy:
			return modeLegacyLayer2, nil
		case in.Layer2 == Layer2Upgrade:
			return modeUpgrade, nil
		}
		return 0, errf("%s: layer2 mode: %w: %s", in.Network, ErrInvalid, in.Layer2)
	case udn.TopologyLocalnet:
		return modeLocalnet, nil
	}
	return 0, errf("%s: topology: %w: %q", in.Network, ErrInvalid, in.Network.Topology)
}

// must checks that in's network has the topology a Plan* entry point plans.
func must(in Input, t udn.Topology) error {
	if in.Network != nil && in.Network.Topology != t {
		return errf("%s: topology: %w: %s given to the %s planner", in.Network, ErrInvalid, in.Network.Topology, t)
	}
	return nil
}

// PlanLayer3 plans a Layer3 network for in.Zone. A primary network gets per
// local node a switch with its management port, a gateway router joined to
// the cluster router by the join switch, an external switch, the transit
// switch ports, routes, policies and NATs; remote nodes get remote transit
// switch ports and routes. A secondary network is east-west only.
func PlanLayer3(in Input) (State, error) {
	if err := must(in, udn.TopologyLayer3); err != nil {
		return State{}, err
	}
	return Plan(in)
}

// PlanLayer2 plans a Layer2 network for in.Zone: a primary network on the
// topology in.Layer2 names (by default a transit router, seed 004), a
// secondary one as a lone switch. A primary network's zone holds at most one
// node (ErrUnsupported otherwise).
func PlanLayer2(in Input) (State, error) {
	if err := must(in, udn.TopologyLayer2); err != nil {
		return State{}, err
	}
	return Plan(in)
}

// PlanLegacyLayer2 is PlanLayer2 with in.Layer2 = Layer2Legacy: a primary
// Layer2 network in the legacy topology, each node's gateway router attached
// to the switch. A zone may hold at most one local node.
func PlanLegacyLayer2(in Input) (State, error) {
	if in.Network != nil && !in.Network.IsPrimary() {
		return State{}, errf("%s: role: %w: the legacy Layer2 topology is for primary networks", in.Network, ErrUnsupported)
	}
	in.Layer2 = Layer2Legacy
	return PlanLayer2(in)
}

// PlanLayer2Upgrade is PlanLayer2 with in.Layer2 = Layer2Upgrade and
// in.LegacyNodes = legacyNodes: a zone that has moved to the transit-router
// topology while the remote nodes listed in legacyNodes still run the legacy
// one (seed 004 "Rolling upgrade"). On top of the transit-router plan it
// keeps:
//   - on the switch, the remote stor-GR_ ports of the legacy nodes (instead of
//     their transit-router peer ports, which they do not have yet);
//   - on the switch, the local node's router-type stor-GR_ port, its
//     router-port rtos-<switch> moved from the gateway router to the transit
//     router with the gateway router's join address and MAC, so traffic from
//     legacy nodes addressed to the old gateway still arrives.
//
// The gateway router keeps its SNAT to the network's masquerade IP
// throughout. After the upgrade, Diff(observed, PlanLayer2(in)) removes the
// kept pieces.
func PlanLayer2Upgrade(in Input, legacyNodes []string) (State, error) {
	if in.Network != nil && !in.Network.IsPrimary() {
		return State{}, errf("%s: role: %w: the legacy Layer2 topology is for primary networks", in.Network, ErrUnsupported)
	}
	in.Layer2, in.LegacyNodes = Layer2Upgrade, legacyNodes
	return PlanLayer2(in)
}

// PlanLocalnet plans a Localnet secondary network: a switch with a localnet
// port whose network_name is the physical network name (the network name
// when empty) and whose tag_request is the VLAN.
func PlanLocalnet(in Input) (State, error) {
	if err := must(in, udn.TopologyLocalnet); err != nil {
		return State{}, err
	}
	return Plan(in)
}

// PlanNodes plans only the objects owned by the named nodes and, when one of
// them is local to in.Zone, the network-wide objects (the only ones that
// depend on the set of local nodes), for incremental reconciliation. The
// result is an incremental State that speaks only for those nodes: for a
// node joining the cluster, part := PlanNodes(in, node), the changes are
// Diff(observed, part), and the new desired state is previous.Overlay(part).
// It plans the topology Plan would, in.Layer2 included. It validates the
// network, the named nodes, and that they collide with no other node; the
// other nodes are taken as checked by the full plan that preceded.
func PlanNodes(in Input, nodes ...string) (State, error) {
	if _, err := modeOf(in); err != nil {
		return State{}, err
	}
	if len(nodes) == 0 {
		return State{}, errf("%s: nodes: %w: PlanNodes needs at least one node", in.Network, ErrInvalid)
	}
	only := make(map[string]bool, len(nodes))
	for _, n := range nodes {
		only[n] = true
	}
	return plan(in, only)
}

func run(in Input, m mode, legacy, only map[string]bool) (State, error) {
	p, err := newPlanner(in, m, only)
	if err != nil {
		return State{}, err
	}
	p.legacy = legacy
	for i := range in.Nodes {
		if legacy[in.Nodes[i].Name] && p.isLocal(&in.Nodes[i]) {
			return State{}, errf("%s: node %q: %w: a local node cannot be on the legacy topology during the upgrade of its zone",
				p.n, in.Nodes[i].Name, ErrInvalid)
		}
	}
	// The network-wide objects depend on the nodes only through the set of
	// local nodes: an incremental plan for remote nodes leaves them out.
	wide := only == nil
	for _, nd := range p.locals {
		wide = wide || only[nd.Name]
	}
	switch {
	case !wide:
	case m == modeLayer3:
		p.layer3Cluster()
	case m == modeLocalnet:
		p.localnet()
	default:
		p.layer2Cluster()
	}
	if m != modeLocalnet && !(m == modeLayer2 && !p.primary) {
		for i := range in.Nodes {
			nd := &in.Nodes[i]
			if only != nil && !only[nd.Name] {
				continue
			}
			local := p.isLocal(nd)
			if local && p.primary {
				p.fail(checkGatewayNode(p.n, nd, p.famList))
			} else if !local {
				p.fail(checkRemoteNode(p.n, nd))
			}
			if p.err != nil {
				break
			}
			if m == modeLayer3 {
				p.layer3Node(nd, local)
			} else {
				p.layer2Node(nd, local)
			}
		}
	}
	if p.err != nil {
		return State{}, p.err
	}
	s, err := p.b.State()
	if err != nil || only == nil {
		return s, err
	}
	s.partial = true
	for n := range only {
		s.nodes = append(s.nodes, n)
	}
	if wide {
		s.nodes = append(s.nodes, "")
	}
	slices.Sort(s.nodes)
	return s, nil
}

// lbGroupObjects adds the three load-balancer groups; the services'
// load balancers join them (LoadBalancer.Groups).
func (p *planner) lbGroupObjects() {
	c, s, r := p.lbGroups()
	p.b.add(LoadBalancerGroup{Owner: p.own, Name: c}, LoadBalancerGroup{Owner: p.own, Name: s},
		LoadBalancerGroup{Owner: p.own, Name: r})
}

// noReroutePolicies adds the priority-102 allow policies on router: pod
// traffic between the network's subnets (each pair, for several of a
// family) and to the default network's join subnet stays on the router.
func (p *planner) noReroutePolicies(o Owner, router string) {
	for _, f := range p.fams {
		for _, src := range f.subnets {
			s := f.ipv + ".src == " + src.String()
			for _, dst := range f.subnets {
				p.b.add(Policy{Owner: o, Router: router, Priority: PriorityNoReroute, Action: PolicyAllow,
					Match: s + " && " + f.ipv + ".dst == " + dst.String()})
			}
			if f.defJoin.IsValid() {
				p.b.add(Policy{Owner: o, Router: router, Priority: PriorityNoReroute, Action: PolicyAllow,
					Match: s + " && " + f.ipv + ".dst == " + f.defJoin.String()})
			}
		}
	}
	p.b.add(Policy{Owner: o, Router: router, Priority: PriorityNoReroute, Action: PolicyAllow,
		Match: "pkt.mark == " + strconv.Itoa(NoRerouteMark)})
}

// addNodeReroutePolicy adds the priority-1004 policy sending traffic from
// inport to dst to the management port (hops). The policy's key ends with
// its match, so both are one string.
func (p *planner) addNodeReroutePolicy(o Owner, router, inport, comment string, f *family, dst netip.Addr, hops []netip.Addr) {
	pol := Policy{Owner: o, Router: router, Priority: PriorityNodeReroute, Action: PolicyReroute, Nexthops: hops}
	var scratch [256]byte
	k := pol.appendKey(scratch[:0]) // "router|priority|", the match follows
	n := len(k)
	k = append(k, "inport == "...)
	k = strconv.AppendQuote(k, inport)
	k = append(append(append(k, " && "...), f.ipv...), ".dst == "...)
	k = dst.AppendTo(k)
	k = append(append(append(k, " /* "...), comment...), " */"...)
	key := p.b.strs.bytes(k)
	pol.Match = key[n:]
	p.b.addKeyed(pol, key)
}

// gatewayRouter adds a node's gateway router and its external switch with
// the localnet port, and the routes towards the outside, with the rows and
// options the reference writes: MAC bindings aged after 300 s, SNAT of the
// pod network and of the gateway router's own join addresses (joinGR) to
// the network's masquerade IP, and an external switch port that answers for
// the node's MAC. As the reference does for user-defined networks since
// its interconnect-only gateway (dynamic_neigh_routers=false) and its fix
// of the masquerade ARP storm (disable_garp_rarp=true, no nat-addresses on
// etor-: the masquerade IPs are the same on every node, and GARPs for them
// flood the physical network), the router sends no GARP or RARP and learns
// no neighbour routers dynamically. On a Layer2 network the load-balancer SNAT uses the join addresses
// (the port holds several networks) and the pod network's SNAT applies to
// the external port only. The reference's external port also holds the
// masquerade IP; with lb_force_snat_ip=router_ip northd then SNATs
// load-balanced traffic to whichever of its two IPv4 addresses sorts first
// (the masquerade IP beside 172.18.0.3, the node IP beside 10.0.0.3) and
// warns about it, so udnkit leaves it out in both profiles: the NAT rows
// alone make the router answer for the masquerade IP.
func (p *planner) gatewayRouter(nd *Node, gr string, joinGR []netip.Prefix, layer2 bool) {
	o := p.nodeOwner(nd)
	ext := p.extSwitch(nd)
	rtoe, etor := p.cat("rtoe-", gr), p.cat("etor-", gr)
	forceSNAT := "router_ip"
	var podSNATMatch string
	if layer2 {
		var b []byte
		for i, j := range joinGR {
			if i > 0 {
				b = append(b, ' ')
			}
			b = j.Addr().AppendTo(b)
		}
		forceSNAT = p.b.strs.bytes(b)
		podSNATMatch = p.cat("outport == \"", rtoe, "\"")
	}
	p.b.add(Router{Owner: o, Name: gr, LoadBalancerGroups: p.lbRouter, Options: p.opts.of( // sorted by key
		Option{"always_learn_from_arp_request", "false"}, Option{OptChassis, nd.Chassis},
		Option{"disable_garp_rarp", "true"}, Option{"dynamic_neigh_routers", "false"},
		Option{"lb_force_snat_ip", forceSNAT}, Option{"mac_binding_age_threshold", macBindingAgeThreshold})})
	nets := p.pfxs.make(len(p.fams))
	for i, f := range p.fams {
		nets[i], _ = pickPrefix(nd.Addresses, f.is4)
	}
	m := p.mac(nets...)
	if nd.MAC != nil {
		m = nd.MAC.String()
	}
	slices.SortFunc(nets, comparePrefix) // as the Builder would
	etorLSP := p.routerLSP(o, etor, ext, rtoe)
	etorLSP.Addresses = p.strs.of(m)
	p.b.add(
		Switch{Owner: o, Name: ext},
		RouterPort{Owner: o, Name: rtoe, Router: gr, MAC: m, Networks: nets},
		etorLSP,
		SwitchPort{Owner: o, Name: p.cat(p.c.ExternalBridge, "_", p.p, nd.Name), Switch: ext, Type: PortLocalnet,
			Addresses: p.unknownAddrs, Options: p.extOpts},
	)
	for i := range p.fams {
		f := &p.fams[i]
		nh, _ := pickAddr(nd.NextHops, f.is4)
		p.b.add(
			StaticRoute{Owner: o, Router: gr, Policy: RouteDstIP, Prefix: f.masq.Subnet, Nexthop: f.masq.DummyNextHop, OutputPort: rtoe},
			StaticRoute{Owner: o, Router: gr, Policy: RouteDstIP, Prefix: f.anyRoute, Nexthop: nh, OutputPort: rtoe},
			p.snat(o, gr, host(joinGR[i].Addr()), f.grMasq),
		)
		for _, s := range f.subnets {
			pod := p.snat(o, gr, s, f.grMasq)
			pod.Match = podSNATMatch
			p.b.add(pod)
		}
	}
}

// macBindingAgeThreshold is the lifetime in seconds of a gateway router's
// MAC bindings (the reference's GRMACBindingAgeThreshold).
const macBindingAgeThreshold = "300"

// mgmtPortLSP returns a node's management port on sw with the address
// entry addrs ("MAC ip ip", see planner.addresses).
func (p *planner) mgmtPortLSP(nd *Node, sw string, addrs []string) SwitchPort {
	// No port security: the port also carries the host's service traffic
	// (Kubernetes API, DNS) to addresses not its own, as the reference
	// plans it.
	return SwitchPort{Owner: p.nodeOwner(nd), Name: p.mgmtPort(nd), Switch: sw, Addresses: addrs}
}
