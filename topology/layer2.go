package topology

import (
	"net/netip"
	"slices"
	"strconv"

	"github.com/udnkit/udnkit/ipam"
)

// layer2Cluster adds the network-wide objects of a Layer2 network: the
// switch and, for a primary network on a transit router, the transit
// router, its port to the switch with the .1 gateway, the routes to the
// default-network services, the no-reroute policies and the management port
// SNAT.
func (p *planner) layer2Cluster() {
	o, sw := p.own, p.layer2Switch()
	s := Switch{Owner: o, Name: sw, OtherConfig: NewOptions(OptInterconnTS, sw,
		OptRequestedTnlKey, strconv.Itoa(p.in.TunnelKeys[0]))}
	if !p.primary {
		p.b.add(s)
		return
	}
	c, ss, _ := p.lbGroups()
	s.LoadBalancerGroups = []string{c, ss}
	p.b.add(s)
	p.lbGroupObjects()
	if p.mode == modeLegacyLayer2 {
		return
	}

	tr := p.transitRouter()
	trtos := "trtos-" + sw
	gws := make([]netip.Prefix, len(p.fams))
	mps := make([]netip.Prefix, len(p.fams))
	for i, f := range p.fams {
		gws[i], mps[i] = f.gw, f.mgmt
	}
	rp := RouterPort{Owner: o, Name: trtos, Router: tr, MAC: mac(gws...), Networks: gws,
		Options: Options{{OptRequestedTnlKey, strconv.Itoa(TransitRouterSwitchPortTunnelKey)}}}
	// The switch-facing port is the router's gateway port (conditional
	// SNAT of the management port traffic), bound to the zone's node(s).
	for i, nd := range p.locals {
		rp.GatewayChassis = append(rp.GatewayChassis, GatewayChassis{Name: trtos + "-" + nd.Chassis, Chassis: nd.Chassis, Priority: len(p.locals) - i})
	}
	p.b.add(
		Router{Owner: o, Name: tr, Options: Options{{OptRequestedTnlKey, strconv.Itoa(p.in.TunnelKeys[1])}}},
		rp,
		routerLSP(o, "stotr-"+sw, sw, trtos),
	)
	p.noReroutePolicies(o, tr)
	mpMAC := mac(mps...)
	for i := range p.fams {
		f := &p.fams[i]
		for _, svc := range f.svcIPs {
			p.b.add(StaticRoute{Owner: o, Router: tr, Policy: RouteDstIP, Prefix: host(svc), Nexthop: f.mgmt.Addr()})
		}
		n := snat(o, tr, f.subnet, f.mpMasq)
		n.LogicalPort, n.Match = trtos, "eth.dst == "+mpMAC
		p.b.add(n)
	}
}

// layer2Node adds the objects a primary Layer2 network has because of node
// nd.
func (p *planner) layer2Node(nd *Node, local bool) {
	o := p.nodeOwner(nd)
	sw, tr := p.layer2Switch(), p.transitRouter()
	key := strconv.Itoa(nd.ID)
	var joinArr, trArr, grArr [2]netip.Prefix // per family; copied when kept
	joinGR := joinArr[:len(p.fams)]
	for i, f := range p.fams {
		joinGR[i] = p.ipf(ipam.JoinGatewayRouterIP(f.join, nd.ID))
	}
	legacyPort := "rtos-" + sw              // the legacy gateway router's port on the switch
	legacyLSP := "stor-GR_" + p.p + nd.Name // the switch's port to it
	if p.err != nil {
		return
	}
	legacy := p.mode == modeLegacyLayer2 || p.mode == modeUpgrade && p.legacy[nd.Name]

	if !local {
		if legacy {
			p.b.add(SwitchPort{Owner: o, Name: legacyLSP, Switch: sw, Type: PortRemote,
				Addresses: []string{addressesOf(joinGR...)},
				Options:   NewOptions(OptRequestedTnlKey, key, OptRequestedChassis, nd.Chassis)})
			return
		}
		trIPs, grIPs := trArr[:len(p.fams)], grArr[:len(p.fams)]
		if p.peerIPs(nd, trIPs, grIPs); p.err != nil {
			return
		}
		p.b.add(RouterPort{Owner: o, Name: "trtor-GR_" + p.p + nd.Name, Router: tr, MAC: mac(trIPs...), Networks: slices.Clone(trIPs),
			Options: NewOptions(OptRequestedTnlKey, key, OptRequestedChassis, nd.Chassis)})
		for i := range p.fams {
			p.b.add(StaticRoute{Owner: o, Router: tr, Policy: RouteDstIP, Prefix: host(joinGR[i].Addr()), Nexthop: grIPs[i].Addr()})
		}
		return
	}

	joinGR = slices.Clone(joinGR)
	gr := p.gr(nd)
	mps := make([]netip.Prefix, len(p.fams))
	for i, f := range p.fams {
		mps[i] = f.mgmt
	}
	p.b.add(p.mgmtPortLSP(nd, sw, mps))
	p.gatewayRouter(nd)

	if p.mode == modeLegacyLayer2 {
		// The gateway router sits on the switch and answers for the .1
		// gateway itself.
		nets := append(append([]netip.Prefix{}, joinGR...), p.gateways()...)
		p.b.add(
			RouterPort{Owner: o, Name: legacyPort, Router: gr, MAC: mac(joinGR...), Networks: nets, Options: Options{{OptGatewayMTU, p.mtu}}},
			routerLSP(o, legacyLSP, sw, legacyPort, OptRequestedTnlKey, key),
		)
		p.b.add(p.nodeReroutePolicies(nd, o, gr, legacyPort)...)
		p.noReroutePolicies(o, gr)
		mpMAC := mac(mps...)
		for i := range p.fams {
			f := &p.fams[i]
			for _, svc := range f.svcIPs {
				p.b.add(StaticRoute{Owner: o, Router: gr, Policy: RouteDstIP, Prefix: host(svc), Nexthop: f.mgmt.Addr()})
			}
			n := snat(o, gr, f.subnet, f.mpMasq)
			n.LogicalPort, n.Match = legacyPort, "eth.dst == "+mpMAC
			p.b.add(n)
		}
		return
	}

	// Transit router topology: the gateway router peers with the transit
	// router directly.
	trIPs, grIPs := make([]netip.Prefix, len(p.fams)), make([]netip.Prefix, len(p.fams))
	if p.peerIPs(nd, trIPs, grIPs); p.err != nil {
		return
	}
	trtor, rtotr, trtos := "trtor-"+gr, "rtotr-"+gr, "trtos-"+sw
	grNets := append(append([]netip.Prefix{}, joinGR...), grIPs...)
	p.b.add(
		RouterPort{Owner: o, Name: rtotr, Router: gr, MAC: mac(joinGR...), Networks: grNets, Peer: trtor,
			Options: Options{{OptGatewayMTU, p.mtu}}},
		RouterPort{Owner: o, Name: trtor, Router: tr, MAC: mac(trIPs...), Networks: trIPs, Peer: rtotr,
			Options: Options{{OptRequestedTnlKey, key}}},
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
	p.b.add(p.nodeReroutePolicies(nd, o, tr, trtos)...)

	if p.mode == modeUpgrade {
		// Kept during the rolling upgrade: the switch's router port towards
		// the old gateway port, now on the transit router with the gateway
		// router's join address and MAC.
		p.b.add(
			RouterPort{Owner: o, Name: legacyPort, Router: tr, MAC: mac(joinGR...), Networks: joinGR},
			routerLSP(o, legacyLSP, sw, legacyPort, OptRequestedTnlKey, key),
		)
	}
}

// gateways returns the .1 gateway interface addresses of a Layer2 network.
func (p *planner) gateways() []netip.Prefix {
	out := make([]netip.Prefix, len(p.fams))
	for i, f := range p.fams {
		out[i] = f.gw
	}
	return out
}

// peerIPs sets the node's transit-router and gateway-router peer addresses,
// per family, into tr and gr.
func (p *planner) peerIPs(nd *Node, tr, gr []netip.Prefix) {
	for i, f := range p.fams {
		a, b, err := ipam.TransitRouterPeerIPs(f.transit, nd.ID)
		if err != nil {
			p.fail(errf("%s: node %q: transitSubnets: %w", p.n, nd.Name, err))
		}
		tr[i], gr[i] = a, b
	}
}

// nodeReroutePolicies returns the priority-1004 policies that send traffic
// from the switch to the node's IPs to the management port.
func (p *planner) nodeReroutePolicies(nd *Node, o Owner, router, inport string) []Object {
	var out []Object
	for i := range p.fams {
		f := &p.fams[i]
		if a, ok := pickPrefix(nd.Addresses, f.is4); ok {
			out = append(out, nodeReroutePolicy(o, router, inport, p.layer2Switch(), f, a.Addr(), f.mgmt.Addr()))
		}
	}
	return out
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
