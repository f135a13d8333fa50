package topology

import (
	"net/netip"
	"slices"
	"strconv"

	"github.com/udnkit/udnkit/ipam"
)

// layer2Names holds values of a primary Layer2 network that the objects of
// all its nodes share, computed once per plan.
type layer2Names struct {
	trtos      string         // the transit router's port to the switch
	legacyPort string         // the legacy gateway router's port on the switch
	mgmtAddrs  []string       // the management port's address entry
	mpMatch    string         // the management port SNAT's match
	gws        []netip.Prefix // the .1 gateway interface addresses
}

// initLayer2 sets p.l2.
func (p *planner) initLayer2() {
	sw := p.layer2Switch()
	var mpsArr [2]netip.Prefix
	mps := mpsArr[:len(p.fams)]
	p.l2.gws = p.pfxs.make(len(p.fams))
	for i, f := range p.fams {
		p.l2.gws[i], mps[i] = f.gw, f.mgmt
	}
	p.l2.trtos, p.l2.legacyPort = p.cat("trtos-", sw), p.cat("rtos-", sw)
	p.l2.mgmtAddrs = p.strs.of(p.addresses(mps...))
	p.l2.mpMatch = p.cat("eth.dst == ", p.mac(mps...))
}

// layer2Cluster adds the network-wide objects of a Layer2 network: the
// switch and, for a primary network on a transit router, the transit
// router, its port to the switch with the .1 gateway, the routes to the
// default-network services, the no-reroute policies and the management port
// SNAT.
func (p *planner) layer2Cluster() {
	o, sw := p.own, p.layer2Switch()
	cfg := transitSwitchConfig(sw, strconv.Itoa(p.in.TunnelKeys[0]))
	for _, f := range p.fams {
		// The reference writes subnet or ipv6_prefix for one family only
		// (the last one's, overwriting); both are written here.
		if f.is4 {
			cfg = append(cfg, Option{"subnet", f.subnet.String()})
		} else {
			cfg = append(cfg, Option{"ipv6_prefix", f.subnet.Addr().String()})
		}
	}
	s := Switch{Owner: o, Name: sw, OtherConfig: sortedOptions(cfg)}
	if !p.primary {
		p.b.add(s)
		return
	}
	s.LoadBalancerGroups = p.lbSwitch
	p.b.add(s)
	p.lbGroupObjects()
	if p.mode == modeLegacyLayer2 {
		return
	}

	tr, trtos := p.transitRouter(), p.l2.trtos
	rp := RouterPort{Owner: o, Name: trtos, Router: tr, MAC: p.mac(p.l2.gws...), Networks: p.l2.gws}
	if p.in.Profile == ProfileReference {
		// The reference gives this port the network's gateway_mtu. It also
		// requests key 1 on it, which northd hands to the port's
		// chassis-redirect twin as well and refuses ("requests same tunnel
		// key 1 as another LSP or LRP"); udnkit requests none in either
		// profile: the port is only ever reached through that twin.
		rp.Options = Options{{OptGatewayMTU, p.mtu}}
	}
	// The switch-facing port is the router's gateway port (conditional
	// SNAT of the management port traffic), bound to the zone's node; a
	// zone that only sees remote peers has none.
	if len(p.locals) == 1 {
		nd := p.locals[0]
		rp.GatewayChassis = []GatewayChassis{{Name: trtos + "-" + nd.Chassis, Chassis: nd.Chassis, Priority: 1}}
	}
	p.b.add(
		Router{Owner: o, Name: tr, Options: Options{{OptRequestedTnlKey, strconv.Itoa(p.in.TunnelKeys[1])}}},
		rp,
		p.routerLSP(o, "stotr-"+sw, sw, trtos),
	)
	p.noReroutePolicies(o, tr)
	for i := range p.fams {
		f := &p.fams[i]
		for _, svc := range f.svcIPs {
			p.b.add(StaticRoute{Owner: o, Router: tr, Policy: RouteDstIP, Prefix: host(svc), Nexthop: f.mgmt.Addr()})
		}
		n := p.snat(o, tr, f.subnet, f.mpMasq)
		n.LogicalPort, n.Match = trtos, p.l2.mpMatch
		p.b.add(n)
	}
}

// layer2Node adds the objects a primary Layer2 network has because of node
// nd.
func (p *planner) layer2Node(nd *Node, local bool) {
	o := p.nodeOwner(nd)
	sw, tr := p.layer2Switch(), p.transitRouter()
	key := p.itoa(nd.ID)
	trKey := key // the transit router's port to the node's gateway router
	if p.in.Profile == ProfileReference {
		trKey = p.itoa(ReferenceTransitRouterPortKeyBase + nd.ID)
	}
	var joinArr, trArr, grArr [2]netip.Prefix // per family; objects keep copies
	joinGR := joinArr[:len(p.fams)]
	for i, f := range p.fams {
		joinGR[i] = p.ipf(ipam.JoinGatewayRouterIP(f.join, nd.ID))
	}
	if p.err != nil {
		return
	}
	legacy := p.mode == modeLegacyLayer2 || p.mode == modeUpgrade && p.legacy[nd.Name]
	legacyPort := p.l2.legacyPort // the legacy gateway router's port on the switch

	if !local {
		if legacy {
			p.b.add(SwitchPort{Owner: o, Name: p.legacyLSP(nd), Switch: sw, Type: PortRemote,
				Addresses: p.strs.of(p.addresses(joinGR...)),
				Options:   p.opts.of(Option{OptRequestedChassis, nd.Chassis}, Option{OptRequestedTnlKey, key})}) // sorted by key
			return
		}
		trIPs, grIPs := trArr[:len(p.fams)], grArr[:len(p.fams)]
		if p.peerIPs(nd, trIPs, grIPs); p.err != nil {
			return
		}
		p.b.add(RouterPort{Owner: o, Name: p.cat("trtor-GR_", p.p, nd.Name), Router: tr, MAC: p.mac(trIPs...), Networks: p.pfxs.of(trIPs...),
			Options: p.opts.of(Option{OptRequestedChassis, nd.Chassis}, Option{OptRequestedTnlKey, trKey})}) // sorted by key
		for i := range p.fams {
			p.b.add(StaticRoute{Owner: o, Router: tr, Policy: RouteDstIP, Prefix: host(joinGR[i].Addr()), Nexthop: grIPs[i].Addr()})
		}
		return
	}

	gr := p.gr(nd)
	p.b.add(p.mgmtPortLSP(nd, sw, p.l2.mgmtAddrs))
	p.gatewayRouter(nd, gr, joinGR, true)

	if p.mode == modeLegacyLayer2 {
		// The gateway router sits on the switch and answers for the .1
		// gateway itself.
		nets := p.pfxs.make(2 * len(p.fams))
		copy(nets, joinGR)
		copy(nets[len(joinGR):], p.l2.gws)
		slices.SortFunc(nets, comparePrefix) // as the Builder would
		p.b.add(
			RouterPort{Owner: o, Name: legacyPort, Router: gr, MAC: p.mac(joinGR...), Networks: nets, Options: p.mtuOpts},
			p.routerLSPWithKey(o, p.legacyLSP(nd), sw, legacyPort, key),
		)
		p.nodeReroutePolicies(nd, o, gr, legacyPort)
		p.noReroutePolicies(o, gr)
		for i := range p.fams {
			f := &p.fams[i]
			for _, svc := range f.svcIPs {
				p.b.add(StaticRoute{Owner: o, Router: gr, Policy: RouteDstIP, Prefix: host(svc), Nexthop: f.mgmt.Addr()})
			}
			n := p.snat(o, gr, f.subnet, f.mpMasq)
			n.LogicalPort, n.Match = legacyPort, p.l2.mpMatch
			p.b.add(n)
		}
		return
	}

	// Transit router topology: the gateway router peers with the transit
	// router directly. grNets holds the join then the peer addresses.
	grNets := p.pfxs.make(2 * len(p.fams))
	copy(grNets, joinGR)
	trIPs, grIPs := p.pfxs.make(len(p.fams)), grNets[len(p.fams):]
	if p.peerIPs(nd, trIPs, grIPs); p.err != nil {
		return
	}
	grIPs = grArr[:copy(grArr[:], grIPs)]
	slices.SortFunc(grNets, comparePrefix) // as the Builder would
	trtor, rtotr := p.cat("trtor-", gr), p.cat("rtotr-", gr)
	p.b.add(
		RouterPort{Owner: o, Name: rtotr, Router: gr, MAC: p.mac(joinGR...), Networks: grNets, Peer: trtor,
			Options: p.mtuOpts},
		RouterPort{Owner: o, Name: trtor, Router: tr, MAC: p.mac(trIPs...), Networks: trIPs, Peer: rtotr,
			Options: p.opts.of(Option{OptRequestedTnlKey, trKey})},
	)
	for i := range p.fams {
		f := &p.fams[i]
		p.b.add(
			// Transit router: the gateway router's join address, and the
			// pod network's egress through the local gateway router.
			StaticRoute{Owner: o, Router: tr, Policy: RouteDstIP, Prefix: host(joinGR[i].Addr()), Nexthop: grIPs[i].Addr()},
			StaticRoute{Owner: o, Router: tr, Policy: RouteSrcIP, Prefix: f.subnet, Nexthop: grIPs[i].Addr()},
			// Gateway router: the pod network through the transit router.
			StaticRoute{Owner: o, Router: gr, Policy: RouteDstIP, Prefix: f.subnet, Nexthop: trIPs[i].Addr(), OutputPort: rtotr},
		)
	}
	p.nodeReroutePolicies(nd, o, tr, p.l2.trtos)

	if p.mode == modeUpgrade {
		// Kept during the rolling upgrade: the switch's router port towards
		// the old gateway port, now on the transit router with the gateway
		// router's join address and MAC.
		p.b.add(
			RouterPort{Owner: o, Name: legacyPort, Router: tr, MAC: p.mac(joinGR...), Networks: p.pfxs.of(joinGR...)},
			p.routerLSPWithKey(o, p.legacyLSP(nd), sw, legacyPort, key),
		)
	}
}

// legacyLSP returns the name of the switch's port to the node's legacy
// gateway router.
func (p *planner) legacyLSP(nd *Node) string { return p.cat("stor-GR_", p.p, nd.Name) }

// peerIPs sets the node's transit-router and gateway-router peer addresses,
// per family, into tr and gr.
func (p *planner) peerIPs(nd *Node, tr, gr []netip.Prefix) {
	peers := transitRouterPeers(p.in.Profile)
	for i, f := range p.fams {
		a, b, err := peers(f.transit, nd.ID)
		if err != nil {
			p.fail(errf("%s: node %q: transitSubnets: %w", p.n, nd.Name, err))
		}
		tr[i], gr[i] = a, b
	}
}

// nodeReroutePolicies adds the priority-1004 policies that send traffic
// from the switch to the node's IPs to the management port.
func (p *planner) nodeReroutePolicies(nd *Node, o Owner, router, inport string) {
	for i := range p.fams {
		f := &p.fams[i]
		if a, ok := pickPrefix(nd.Addresses, f.is4); ok {
			p.addNodeReroutePolicy(o, router, inport, p.layer2Switch(), f, a.Addr(), f.mgmtHop)
		}
	}
}

// localnet adds a Localnet network's switch and localnet port.
func (p *planner) localnet() {
	o := p.own
	sw := p.p + "ovn_localnet_switch"
	name := p.n.PhysicalNetworkName
	if name == "" {
		name = p.n.Name
	}
	p.b.add(
		Switch{Owner: o, Name: sw},
		SwitchPort{Owner: o, Name: p.p + "ovn_localnet_port", Switch: sw, Type: PortLocalnet,
			Addresses: []string{"unknown"}, Options: Options{{OptNetworkName, name}}, TagRequest: p.n.VLANID},
	)
}

// ReferenceTransitRouterPortKeyBase + node ID is the tunnel key of the
// transit router's port to a node's gateway router under ProfileReference
// (keys 1 to 9 stay for the router's local ports); the seeds use the node
// ID.
const ReferenceTransitRouterPortKeyBase = 10

// transitRouterPeers returns how a primary Layer2 network's transit router
// and a node's gateway router take their peer addresses under profile p:
// the seeds' /30 block per node or the reference's /31 pair.
func transitRouterPeers(p Profile) func(netip.Prefix, int) (netip.Prefix, netip.Prefix, error) {
	if p == ProfileReference {
		return ipam.TransitRouterPeerPair
	}
	return ipam.TransitRouterPeerIPs
}
