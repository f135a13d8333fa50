package topology

import (
	"net/netip"
	"slices"
	"strconv"

	"github.com/udnkit/udnkit/ipam"
)

// layer3Cluster adds the network-wide objects of a Layer3 network: the
// cluster router, the transit switch and, for a primary network, the join
// switch with the cluster router's join port, the no-reroute policies and
// the load-balancer groups.
func (p *planner) layer3Cluster() {
	o, cr, ts := p.own, p.clusterRouter(), p.transitSwitch()
	p.b.add(
		Router{Owner: o, Name: cr, Options: NewOptions("always_learn_from_arp_request", "false")},
		Switch{Owner: o, Name: ts, OtherConfig: transitSwitchConfig(ts, strconv.Itoa(ipam.Layer3TransitSwitchTunnelKey(p.n.ID)))},
	)
	if !p.primary {
		return
	}
	p.lbGroupObjects()
	join, rtoj := p.joinSwitch(), "rtoj-"+cr
	var nets []netip.Prefix
	for _, f := range p.fams {
		nets = append(nets, f.joinRouter)
	}
	p.b.add(
		Switch{Owner: o, Name: join},
		RouterPort{Owner: o, Name: rtoj, Router: cr, MAC: p.mac(nets...), Networks: nets},
		p.routerLSP(o, "jtor-"+cr, join, rtoj),
	)
	p.noReroutePolicies(o, cr)
}

// hostSubnets sets the node's host subnets of the network, one per family
// in family order, into out.
func (p *planner) hostSubnets(nd *Node, out []netip.Prefix) {
	hs := p.in.HostSubnets[nd.Name]
	for i, f := range p.fams {
		h, ok := pickPrefix(hs, f.is4)
		k := slices.IndexFunc(f.subnets, func(s netip.Prefix) bool { return s.Contains(h.Addr()) && h.Bits() >= s.Bits() })
		switch {
		case !ok:
			p.fail(errf("%s: node %q: hostSubnets: %w: no %s host subnet", p.n, nd.Name, ErrInvalid, familyName(f.is4)))
		case h.Masked() != h || k < 0:
			p.fail(errf("%s: node %q: hostSubnets: %w: %v is not inside %v", p.n, nd.Name, ErrInvalid, h, f.subnets))
		case f.hostLens[k] != 0 && h.Bits() != f.hostLens[k]:
			p.fail(errf("%s: node %q: hostSubnets: %w: %v is not a /%d", p.n, nd.Name, ErrInvalid, h, f.hostLens[k]))
		}
		out[i] = h
	}
}

// layer3Node adds the objects a Layer3 network has because of node nd.
func (p *planner) layer3Node(nd *Node, local bool) {
	o := p.nodeOwner(nd)
	cr, ts := p.clusterRouter(), p.transitSwitch()
	var hsArr, tsArr, joinArr [2]netip.Prefix // per family; objects keep copies
	hs := hsArr[:len(p.fams)]
	if p.hostSubnets(nd, hs); p.err != nil {
		return
	}
	tsIPs := tsArr[:len(p.fams)]
	for i, f := range p.fams {
		tsIPs[i] = p.ipf(ipam.TransitSwitchIP(f.transit, nd.ID))
	}
	tstor := p.cat(p.p, "tstor-", nd.Name)
	key := p.itoa(nd.ID)
	var joinGR []netip.Prefix
	if p.primary {
		joinGR = joinArr[:len(p.fams)]
		for i, f := range p.fams {
			joinGR[i] = p.ipf(ipam.JoinGatewayRouterIP(f.join, nd.ID))
		}
	}
	if p.err != nil {
		return
	}

	if !local {
		p.b.add(SwitchPort{Owner: o, Name: tstor, Switch: ts, Type: PortRemote,
			Addresses: p.strs.of(p.addresses(tsIPs...)),
			Options:   p.opts.of(Option{OptRequestedChassis, nd.Chassis}, Option{OptRequestedTnlKey, key})}) // sorted by key
		for i := range p.fams {
			p.b.add(StaticRoute{Owner: o, Router: cr, Policy: RouteDstIP, Prefix: hs[i], Nexthop: tsIPs[i].Addr()})
			if p.primary {
				p.b.add(StaticRoute{Owner: o, Router: cr, Policy: RouteDstIP, Prefix: host(joinGR[i].Addr()), Nexthop: tsIPs[i].Addr()})
			}
		}
		return
	}

	// Kept by the objects: copies (the arrays above stay on the stack).
	tsNets, joinNets := p.pfxs.of(tsIPs...), p.pfxs.of(joinGR...)
	rtots := p.cat(p.p, "rtots-", nd.Name)
	// Node switch, its router port and the transit switch port.
	sw := p.nodeSwitch(nd)
	rtos := p.cat("rtos-", sw)
	gws := p.pfxs.make(len(hs))
	for i, h := range hs {
		gws[i] = p.ipf(ipam.GatewayIP(h))
	}
	rp := RouterPort{Owner: o, Name: rtos, Router: cr, MAC: p.mac(gws...), Networks: gws}
	sws := Switch{Owner: o, Name: sw, OtherConfig: p.nodeSwitchConfig(hs)}
	if p.primary {
		sws.LoadBalancerGroups = p.lbSwitch
		rp.GatewayChassis = p.gcs.of(GatewayChassis{Name: p.cat(rtos, "-", nd.Chassis), Chassis: nd.Chassis, Priority: 1})
		// The reference's gateway_mtu (base_network_controller.go
		// syncNodeClusterRouterPort): traffic from the outside larger than
		// the network's MTU gets "fragmentation needed" at this gateway
		// port instead of being dropped on the pod's interface.
		rp.Options = p.mtuOpts
	}
	p.b.add(sws, rp, p.routerLSP(o, p.cat("stor-", sw), sw, rtos),
		RouterPort{Owner: o, Name: rtots, Router: cr, MAC: p.mac(tsIPs...), Networks: tsNets, Options: mcastFlood},
		p.routerLSPWithKey(o, tstor, ts, rtots, key))
	if !p.primary {
		return
	}

	// Management port.
	var mpsArr [2]netip.Prefix
	mps := mpsArr[:len(hs)]
	for i, h := range hs {
		mps[i] = p.ipf(ipam.ManagementIP(h))
	}
	p.b.add(p.mgmtPortLSP(nd, sw, p.strs.of(p.addresses(mps...))))
	mpMatch := p.cat("eth.dst == ", p.mac(mps...))

	// Gateway router on the join switch.
	gr := p.gr(nd)
	rtoj, join := p.cat("rtoj-", gr), p.joinSwitch()
	p.b.add(
		RouterPort{Owner: o, Name: rtoj, Router: gr, MAC: p.mac(joinGR...), Networks: joinNets, Options: p.mtuOpts},
		p.routerLSP(o, p.cat("jtor-", gr), join, rtoj),
	)
	p.gatewayRouter(nd, gr, joinGR, false)

	for i := range p.fams {
		f := &p.fams[i]
		// Cluster router: egress of the node's pods through its gateway
		// router, the gateway router's join address, reroutes to the
		// management port, and the management port SNAT.
		p.b.add(
			StaticRoute{Owner: o, Router: cr, Policy: RouteSrcIP, Prefix: hs[i], Nexthop: joinGR[i].Addr()},
			StaticRoute{Owner: o, Router: cr, Policy: RouteDstIP, Prefix: host(joinGR[i].Addr()), Nexthop: joinGR[i].Addr()},
		)
		hops := p.addrs.of(mps[i].Addr())
		if a, ok := pickPrefix(nd.Addresses, f.is4); ok {
			p.addNodeReroutePolicy(o, cr, rtos, sw, f, a.Addr(), hops)
		}
		p.addNodeReroutePolicy(o, cr, rtos, sw, f, f.grMasq, hops)
		for _, svc := range f.svcIPs {
			p.addNodeReroutePolicy(o, cr, rtos, sw, f, svc, hops)
		}
		// The management port's SNAT: the node's subnet, on its router
		// port. The reference names the port as logical_port under
		// interconnect, which northd cannot place once a zone has several
		// nodes (several distributed gateway ports): gateway_port works
		// for both.
		n := p.snat(o, cr, hs[i], f.mpMasq)
		n.GatewayPort, n.Match = rtos, mpMatch
		p.b.add(n)
		// Gateway router: the pod network through the cluster router.
		for _, s := range f.subnets {
			p.b.add(StaticRoute{Owner: o, Router: gr, Policy: RouteDstIP, Prefix: s, Nexthop: f.joinRouter.Addr(), OutputPort: rtoj})
		}
	}
}

// transitSwitchConfig is the other_config of a transit switch (a Layer3
// network's, or a Layer2 network's switch) as the reference writes it:
// interconnect, its tunnel key and multicast snooping without querier,
// unregistered multicast flooded.
func transitSwitchConfig(name, key string) Options {
	return NewOptions(OptInterconnTS, name, "mcast_flood_unregistered", "true", "mcast_querier", "false",
		"mcast_snoop", "true", OptRequestedTnlKey, key)
}

// mcastFlood is the options of a cluster router's port to the transit
// switch (shared, read-only).
var mcastFlood = Options{{"mcast_flood", "true"}}

// nodeSwitchConfig is a node switch's other_config as the reference writes
// it: the IPv4 host subnet with the management port's address excluded,
// the IPv6 host subnet's prefix.
func (p *planner) nodeSwitchConfig(hs []netip.Prefix) Options {
	var buf [64]byte
	var arr [3]Option // sorted by key: exclude_ips, ipv6_prefix, subnet
	var exclude, prefix6, subnet string
	for _, h := range hs {
		if h.Addr().Is4() {
			exclude = p.b.strs.bytes(p.ipf(ipam.ManagementIP(h)).Addr().AppendTo(buf[:0]))
			subnet = p.b.strs.bytes(h.AppendTo(buf[:0]))
		} else {
			prefix6 = p.b.strs.bytes(h.Addr().AppendTo(buf[:0]))
		}
	}
	o := arr[:0]
	if exclude != "" {
		o = append(o, Option{"exclude_ips", exclude})
	}
	if prefix6 != "" {
		o = append(o, Option{"ipv6_prefix", prefix6})
	}
	if subnet != "" {
		o = append(o, Option{"subnet", subnet})
	}
	return p.opts.of(o...)
}
