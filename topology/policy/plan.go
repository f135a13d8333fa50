package policy

import (
	"cmp"
	"fmt"
	"net/netip"
	"slices"
	"strconv"
	"strings"

	"github.com/udnkit/udnkit/ipam"
	"github.com/udnkit/udnkit/netconf/udn"
	"github.com/udnkit/udnkit/topology"
)

// ACL tiers and priorities, the reference's.
const (
	Tier               = 2
	PriorityDeny       = 1000
	PriorityAllow      = 1001
	PriorityMcastDeny  = 1011
	PriorityMcastAllow = 1012
	optApplyAfterLB    = "apply-after-lb"
	hairpinName        = "allow-hairpinning"
	// The types of a namespace's default-deny ACLs, and the ip-block-index
	// of a rule's selector (or peerless) ACL and of its ipBlocks' ACL.
	denyTypeDeny       = "defaultDeny"
	denyTypeARP        = "arpAllow"
	denyTypeICMP       = "icmpAllow"
	emptyIdx           = -1
	ipBlockCombinedIdx = -2
	// mcastMatch is every multicast packet; IPv6 dynamic groups have the
	// T bit set (RFC 3307 4.3).
	mcastMatch  = "(ip4.mcast || mldv1 || mldv2 || " + ip6DynMcast + ")"
	ip6DynMcast = "(ip6.dst[120..127] == 0xff && ip6.dst[116] == 1)"
)

// unitKind is the kind of a unit: a set of rows recomputed together.
type unitKind uint8

const (
	unitNetwork   unitKind = iota // cluster port group, hairpin and management-port ACLs
	unitDeny                      // a namespace's default-deny port groups and ACLs
	unitPolicy                    // a policy's port group and rule ACLs
	unitSelector                  // a peer selector's address sets
	unitMulticast                 // a namespace's multicast port group, address sets and ACLs
	unitMeter                     // the acl-logging meter (network DefaultNetwork)
	unitIsolation                 // the default network's isolation of primary-UDN pods
)

type unitKey struct {
	kind    unitKind
	network string
	a       string // namespace, or the selector's key
	b       string // the policy's name
}

// selector is a peer selector used by the policies on one network.
type selector struct {
	namespace string // the policy's, for a pod selector alone
	peer      Peer
	refs      int
}

// network is a planned network.
type network struct {
	net        *udn.Network
	own        topology.Owner
	fam        families
	namespaces []string
	domain     []string // networks whose pods are its peers, itself included
	hostSubs   map[string][]netip.Prefix
	selectors  map[string]*selector
	// byNamespace indexes the keys of pod-selector-only selectors by
	// namespace; nsSelectors are the keys of those with a namespace
	// selector.
	byNamespace map[string]map[string]bool
	nsSelectors map[string]bool
}

// Planner plans the network policies of a set of primary networks for one
// zone, and replans one pod, namespace or policy at a time. It is not safe
// for concurrent use; a State it returns is.
type Planner struct {
	zone      string
	logging   map[string]ACLLogging // namespaces that log
	meterRate int
	// externalMeter: the Meter is another controller's (Input.ExternalMeter).
	externalMeter bool
	isolation     *DefaultNetwork
	allowICMP     bool
	multicast     bool
	mcastNS       map[string]bool
	local         map[string]bool
	hairpin       []netip.Addr
	nets          map[string]*network
	netNames      []string
	servedBy      map[string][]string // namespace -> networks
	peerOf        map[string][]string // network -> networks that take its pods as peers

	nsLabels map[string]Labels
	pods     map[string]map[string]*Pod // namespace -> name
	policies map[string]map[string]*Policy

	units map[unitKey][]topology.Object
}

// Plan returns the policies' rows for in's zone.
func Plan(in Input) (topology.State, error) {
	p, err := New(in)
	if err != nil {
		return topology.State{}, err
	}
	return p.State()
}

// New validates in and plans it. Errors wrap ErrInvalid and name the
// object and field. The Planner keeps in's pods, namespaces and policies
// (their maps and slices too): do not modify them afterwards; SetPod,
// SetNamespace and SetPolicy copy what they are given.
func New(in Input) (*Planner, error) {
	if err := validateInput(&in); err != nil {
		return nil, err
	}
	p := &Planner{zone: in.Zone, logging: map[string]ACLLogging{}, meterRate: cmp.Or(in.ACLLoggingRate, DefaultACLLoggingRate), externalMeter: in.ExternalMeter, allowICMP: in.AllowICMP, multicast: in.Multicast, mcastNS: map[string]bool{}, local: map[string]bool{}, nets: map[string]*network{},
		servedBy: map[string][]string{}, peerOf: map[string][]string{}, nsLabels: map[string]Labels{},
		pods: map[string]map[string]*Pod{}, policies: map[string]map[string]*Policy{}, units: map[unitKey][]topology.Object{}}
	for i := range in.Nodes {
		n := &in.Nodes[i]
		if in.Zone == "" || n.InZone() == in.Zone {
			p.local[n.Name] = true
		}
	}
	masq := in.MasqueradeSubnets
	if len(masq) == 0 {
		masq = ipam.DefaultMasqueradeSubnets()
	}
	for _, m := range masq {
		ips, err := ipam.MasqueradeIPs(m)
		if err != nil {
			return nil, fmt.Errorf("masquerade subnet %s: %w: %w", m, ErrInvalid, err)
		}
		p.hairpin = append(p.hairpin, ips.ServiceHairpin)
	}
	for _, n := range in.Networks {
		nw := &network{net: n.Network, hostSubs: n.HostSubnets, selectors: map[string]*selector{},
			byNamespace: map[string]map[string]bool{}, nsSelectors: map[string]bool{},
			own:        topology.Owner{Controller: Controller, Network: n.Network.Name, Topology: n.Network.Topology, Role: n.Network.Role},
			namespaces: slices.Sorted(slices.Values(slices.Compact(slices.Sorted(slices.Values(n.Namespaces)))))}
		for _, s := range n.Network.Subnets {
			if s.CIDR.Addr().Is4() {
				nw.fam.v4 = true
			} else {
				nw.fam.v6 = true
			}
		}
		if !nw.fam.v4 && !nw.fam.v6 {
			return nil, fmt.Errorf("network %q: subnets: %w: a primary network with addresses is required", n.Network.Name, ErrInvalid)
		}
		p.nets[n.Network.Name] = nw
		p.netNames = append(p.netNames, n.Network.Name)
		for _, ns := range nw.namespaces {
			p.servedBy[ns] = append(p.servedBy[ns], n.Network.Name)
		}
	}
	slices.Sort(p.netNames)
	for _, name := range p.netNames {
		nw := p.nets[name]
		dom := []string{name}
		for _, g := range in.Connected {
			if slices.Contains(g, name) {
				dom = append(dom, g...)
			}
		}
		for _, ns := range nw.namespaces {
			dom = append(dom, p.servedBy[ns]...)
		}
		slices.Sort(dom)
		nw.domain = slices.Compact(dom)
		for _, d := range nw.domain {
			p.peerOf[d] = append(p.peerOf[d], name)
		}
	}
	for _, ns := range in.Namespaces {
		p.nsLabels[ns.Name] = ns.Labels
		if ns.Multicast {
			p.mcastNS[ns.Name] = true
		}
		if ns.Logging.Logs() {
			p.logging[ns.Name] = ns.Logging
		}
	}
	for i := range in.Pods {
		pod := in.Pods[i]
		p.putPod(&pod)
	}
	for i := range in.Policies {
		pol := in.Policies[i]
		p.putPolicy(&pol)
	}
	if in.DefaultNetwork != nil {
		dn := *in.DefaultNetwork
		dn.ManagementIPs = slices.Clone(dn.ManagementIPs)
		p.isolation = &dn
	}
	// Everything, once.
	for _, k := range []unitKey{{kind: unitMeter, network: DefaultNetworkName}, {kind: unitIsolation, network: DefaultNetworkName}} {
		if rows := p.unitRows(k); len(rows) > 0 {
			p.units[k] = rows
		}
	}
	for _, name := range p.netNames {
		nw := p.nets[name]
		p.units[unitKey{kind: unitNetwork, network: name}] = p.networkRows(nw)
		for _, ns := range nw.namespaces {
			if rows := p.denyRows(nw, ns); len(rows) > 0 {
				p.units[unitKey{kind: unitDeny, network: name, a: ns}] = rows
			}
			for _, pol := range p.policies[ns] {
				p.units[unitKey{kind: unitPolicy, network: name, a: ns, b: pol.Name}] = p.policyRows(nw, pol)
			}
			if rows := p.multicastRows(nw, ns); len(rows) > 0 {
				p.units[unitKey{kind: unitMulticast, network: name, a: ns}] = rows
			}
		}
		for key, sel := range nw.selectors {
			p.units[unitKey{kind: unitSelector, network: name, a: key}] = p.selectorRows(nw, key, sel)
		}
	}
	return p, nil
}

// State returns every row planned, speaking for the policy controller's
// rows of every network planned (a network without policies keeps its
// cluster port group and the hairpin and management-port ACLs) and, while
// a namespace logs or the isolation is planned, of DefaultNetworkName.
func (p *Planner) State() (topology.State, error) {
	var b topology.Builder
	for _, n := range p.netNames {
		b.OwnFor(Controller, n)
	}
	if p.isolation != nil || len(p.logging) > 0 {
		// The policy controller's rows outside the networks: it speaks for
		// them only while it may plan some, so that a cluster without
		// logging or isolation lists its own networks alone (a meter left
		// from before goes with RemovalFor(Controller, DefaultNetworkName)).
		b.OwnFor(Controller, DefaultNetworkName)
	}
	for _, rows := range p.units {
		b.Add(rows...)
	}
	return b.State()
}

func (p *Planner) putPod(pod *Pod) {
	m := p.pods[pod.Namespace]
	if m == nil {
		m = map[string]*Pod{}
		p.pods[pod.Namespace] = m
	}
	m[pod.Name] = pod
}

func (p *Planner) putPolicy(pol *Policy) {
	m := p.policies[pol.Namespace]
	if m == nil {
		m = map[string]*Policy{}
		p.policies[pol.Namespace] = m
	}
	m[pol.Name] = pol
	p.refSelectors(pol, 1)
}

// refSelectors counts (delta 1) or uncounts (-1) the peer selectors of a
// policy on each network that serves its namespace.
func (p *Planner) refSelectors(pol *Policy, delta int) {
	ingress, egress := pol.Types()
	for _, name := range p.servedBy[pol.Namespace] {
		nw := p.nets[name]
		for _, key := range policySelectorKeys(pol, ingress, egress) {
			s := nw.selectors[key.key]
			if s == nil {
				s = &selector{namespace: pol.Namespace, peer: key.peer}
				nw.selectors[key.key] = s
				if key.peer.NamespaceSelector != nil {
					nw.nsSelectors[key.key] = true
				} else {
					if nw.byNamespace[pol.Namespace] == nil {
						nw.byNamespace[pol.Namespace] = map[string]bool{}
					}
					nw.byNamespace[pol.Namespace][key.key] = true
				}
			}
			s.refs += delta
			if s.refs == 0 {
				delete(nw.selectors, key.key)
				delete(nw.nsSelectors, key.key)
				delete(nw.byNamespace[pol.Namespace], key.key)
			}
		}
	}
}

type keyedPeer struct {
	key  string
	peer Peer
}

// policySelectorKeys returns the selector peers of the rules a policy
// applies, once per key.
func policySelectorKeys(pol *Policy, ingress, egress bool) []keyedPeer {
	var out []keyedPeer
	add := func(rules []Rule) {
		for _, r := range rules {
			for _, pe := range r.Peers {
				if pe.IPBlock != nil {
					continue
				}
				k := peerKey(pol.Namespace, &pe)
				if !slices.ContainsFunc(out, func(e keyedPeer) bool { return e.key == k }) {
					out = append(out, keyedPeer{k, pe})
				}
			}
		}
	}
	if ingress {
		add(pol.Ingress)
	}
	if egress {
		add(pol.Egress)
	}
	return out
}

// localPort returns the pod's port on network and whether it is local.
func (p *Planner) localPort(pod *Pod, network string) (string, bool) {
	if !p.local[pod.Node] && p.zone != "" {
		return "", false
	}
	for _, a := range pod.Networks {
		if a.Network == network {
			return a.Port, true
		}
	}
	return "", false
}

// mgmtIPs returns a local node's management-port addresses on a network.
func mgmtIPs(nw *network, node string) []netip.Addr {
	subs := nw.net.SubnetPrefixes()
	if nw.net.Topology == udn.TopologyLayer3 {
		subs = nw.hostSubs[node]
	}
	var out []netip.Addr
	for _, s := range subs {
		if ip, err := ipam.ManagementIP(s); err == nil {
			out = append(out, ip.Addr())
		}
	}
	return out
}

// networkRows plans the cluster port group (local pods and management
// ports), its hairpin ACLs and the management-port ACLs.
func (p *Planner) networkRows(nw *network) []topology.Object {
	name := nw.net.Name
	pg := ClusterPortGroupName(name)
	var ports []string
	var nodes []string
	for node := range p.local {
		nodes = append(nodes, node)
	}
	slices.Sort(nodes)
	for _, node := range nodes {
		ports = append(ports, "k8s-"+nw.net.Prefix()+node)
	}
	for _, m := range p.pods {
		for _, pod := range m {
			if port, ok := p.localPort(pod, name); ok {
				ports = append(ports, port)
			}
		}
	}
	slices.Sort(ports)
	rows := []topology.Object{topology.PortGroup{Owner: nw.own, Name: pg, Ports: slices.Compact(ports),
		ExternalIDs: netIDs(name, ownerCluster, IDName, clusterPortGroupBase)}}
	var hp []string
	for _, a := range p.hairpin {
		if a.Is4() && nw.fam.v4 {
			hp = append(hp, "ip4.src == "+a.String())
		} else if a.Is6() && nw.fam.v6 {
			hp = append(hp, "ip6.src == "+a.String())
		}
	}
	if len(hp) > 0 {
		m := hp[0]
		if len(hp) > 1 {
			m = "(" + strings.Join(hp, " || ") + ")"
		}
		rows = append(rows,
			topology.ACL{Owner: nw.own, PortGroup: pg, Tier: Tier, Direction: topology.ACLToLport, Priority: PriorityAllow, Match: m, Action: topology.ACLAllowRelated,
				Meter: MeterName, ExternalIDs: netIDs(name, ownerNetpolDefault, IDName, hairpinName, IDDirection, Ingress.String())},
			topology.ACL{Owner: nw.own, PortGroup: pg, Tier: Tier, Direction: topology.ACLFromLport, Priority: PriorityAllow, Match: m, Action: topology.ACLAllowRelated,
				Options: topology.NewOptions(optApplyAfterLB, "true"), Meter: MeterName,
				ExternalIDs: netIDs(name, ownerNetpolDefault, IDName, hairpinName, IDDirection, Egress.String())})
	}
	if p.multicast {
		rows = append(rows, p.clusterMulticastRows(nw, pg, nodes)...)
	}
	seen := map[string]bool{}
	for _, node := range nodes {
		sw := topology.PodSwitchName(nw.net, node)
		if seen[sw] {
			continue
		}
		seen[sw] = true
		// One ACL per management address, as the reference writes them
		// (its id holds the address).
		for _, ip := range mgmtIPs(nw, node) {
			fam := "ip4"
			if ip.Is6() {
				fam = "ip6"
			}
			rows = append(rows, topology.ACL{Owner: nw.own, Switch: sw, Tier: Tier, Direction: topology.ACLToLport, Priority: PriorityAllow,
				Match: fam + ".src==" + ip.String(), Action: topology.ACLAllowRelated, Meter: MeterName,
				ExternalIDs: netIDs(name, ownerNetpolNode, IDName, sw, IDIP, ip.String())})
		}
	}
	return rows
}

// selectedPorts returns the local ports on network of the pods a policy
// selects.
func (p *Planner) selectedPorts(pol *Policy, network string, into []string) []string {
	for _, pod := range p.pods[pol.Namespace] {
		if !pol.PodSelector.Matches(pod.Labels) {
			continue
		}
		if port, ok := p.localPort(pod, network); ok {
			into = append(into, port)
		}
	}
	return into
}

// denyRows plans a namespace's default-deny port groups and ACLs on a
// network: both directions while it has a policy, each group holding the
// ports of the pods the policies of its direction select.
func (p *Planner) denyRows(nw *network, ns string) []topology.Object {
	var rows []topology.Object
	if len(p.policies[ns]) == 0 {
		return nil
	}
	// Both directions' groups and ACLs while the namespace has a policy,
	// as the reference creates them; a direction's group holds the ports
	// of the pods selected by the policies that apply to it.
	for _, dir := range []PolicyType{Ingress, Egress} {
		var ports []string
		for _, pol := range p.policies[ns] {
			in, eg := pol.Types()
			if (dir == Ingress && in) || (dir == Egress && eg) {
				ports = p.selectedPorts(pol, nw.net.Name, ports)
			}
		}
		slices.Sort(ports)
		pg := DenyPortGroupName(nw.net.Name, ns, dir)
		lport := lportMatch(dir, pg)
		acl := func(prio int, match string, action topology.ACLAction, typ string) topology.ACL {
			a := topology.ACL{Owner: nw.own, PortGroup: pg, Name: denyACLName(ns, dir), Tier: Tier, Direction: topology.ACLToLport,
				Priority: prio, Match: match, Action: action, Meter: MeterName,
				ExternalIDs: netIDs(nw.net.Name, ownerNetpolNamespace, IDName, ns, IDDirection, dir.String(), IDType, typ)}
			if typ == denyTypeDeny { // the namespace's deny severity logs the drops only
				a.Severity = p.logging[ns].Deny
				a.Log = a.Severity != ""
			}
			if dir == Egress {
				a.Direction = topology.ACLFromLport
				a.Options = topology.NewOptions(optApplyAfterLB, "true")
			}
			return a
		}
		rows = append(rows, topology.PortGroup{Owner: nw.own, Name: pg, Ports: slices.Compact(ports),
			ExternalIDs: netIDs(nw.net.Name, ownerNetpolNamespace, IDName, ns, IDDirection, dir.String())},
			acl(PriorityDeny, lport, topology.ACLDrop, denyTypeDeny),
			acl(PriorityAllow, lport+" && (arp || nd)", topology.ACLAllow, denyTypeARP))
		if p.allowICMP {
			rows = append(rows, acl(PriorityAllow, lport+" && (icmp || icmp6)", topology.ACLAllow, denyTypeICMP))
		}
	}
	return rows
}

// policyRows plans a policy's port group and rule ACLs on a network.
func (p *Planner) policyRows(nw *network, pol *Policy) []topology.Object {
	pg := PortGroupName(nw.net.Name, pol.Namespace, pol.Name)
	ports := p.selectedPorts(pol, nw.net.Name, nil)
	slices.Sort(ports)
	rows := []topology.Object{topology.PortGroup{Owner: nw.own, Name: pg, Ports: ports,
		ExternalIDs: netIDs(nw.net.Name, ownerNetworkPolicy, IDName, pol.Namespace+":"+pol.Name)}}
	ingress, egress := pol.Types()
	if ingress {
		for i, r := range pol.Ingress {
			rows = p.ruleACLs(rows, nw, pol, pg, Ingress, i, r)
		}
	}
	if egress {
		for i, r := range pol.Egress {
			rows = p.ruleACLs(rows, nw, pol, pg, Egress, i, r)
		}
	}
	// Two rules that allow the same traffic write the same ACL: the model
	// keys an ACL by its match, so the first rule's stays.
	seen := map[string]bool{}
	return slices.DeleteFunc(rows, func(o topology.Object) bool {
		k := o.Key()
		if o.Kind() != topology.KindACL || !seen[k] {
			seen[k] = true
			return false
		}
		return true
	})
}

// ruleACLs appends one rule's ACLs: per protocol (or none without ports),
// one for its ipBlocks and one for its selectors (or for everything, with
// no peers).
func (p *Planner) ruleACLs(rows []topology.Object, nw *network, pol *Policy, pg string, dir PolicyType, idx int, r Rule) []topology.Object {
	var blocks []*IPBlock
	var v4, v6 []string
	selectors := false
	for i := range r.Peers {
		pe := &r.Peers[i]
		if pe.IPBlock != nil {
			if (pe.IPBlock.CIDR.Addr().Is4() && nw.fam.v4) || (pe.IPBlock.CIDR.Addr().Is6() && nw.fam.v6) {
				blocks = append(blocks, pe.IPBlock)
			}
			continue
		}
		selectors = true
		key := peerKey(pol.Namespace, pe)
		if nw.fam.v4 {
			v4 = append(v4, AddressSetName(nw.net.Name, key, false))
		}
		if nw.fam.v6 {
			v6 = append(v6, AddressSetName(nw.net.Name, key, true))
		}
	}
	slices.Sort(v4)
	v4 = slices.Compact(v4)
	slices.Sort(v6)
	v6 = slices.Compact(v6)
	var l4 []l4Entry
	named := false
	for _, pt := range r.Ports {
		if pt.Name != "" {
			named = true
		}
	}
	if len(r.Ports) == 0 {
		l4 = []l4Entry{{protocol: unspecifiedProtocol}}
	} else {
		l4 = numberedL4(r.Ports)
		if named {
			l4 = append(l4, namedL4(p.namedTargets(nw, pol, dir, r))...)
		}
	}
	lport := lportMatch(dir, pg)
	severity := p.logging[pol.Namespace].Allow
	acl := func(match, protocol string, ipBlockIdx int) topology.ACL {
		a := topology.ACL{Owner: nw.own, PortGroup: pg, Name: ruleACLName(pol.Namespace, pol.Name, dir, idx), Tier: Tier,
			Direction: topology.ACLToLport, Priority: PriorityAllow, Match: match, Action: topology.ACLAllowRelated,
			Log: severity != "", Severity: severity, Meter: MeterName,
			ExternalIDs: netIDs(nw.net.Name, ownerNetworkPolicy, IDName, pol.Namespace+":"+pol.Name, IDDirection, dir.String(),
				IDGressIndex, strconv.Itoa(idx), IDPortPolicyProtocol, protocol, IDIPBlockIndex, strconv.Itoa(ipBlockIdx))}
		if pol.Stateless {
			a.Action = topology.ACLAllowStateless
		}
		if dir == Egress {
			a.Direction = topology.ACLFromLport
			a.Options = topology.NewOptions(optApplyAfterLB, "true")
		}
		return a
	}
	empty := len(r.Peers) == 0
	for _, e := range l4 {
		if len(blocks) > 0 {
			rows = append(rows, acl(joinMatch(ipBlockMatch(dir, blocks), e.match, lport), e.protocol, ipBlockCombinedIdx))
		}
		switch {
		case empty:
			rows = append(rows, acl(joinMatch(nw.fam.allIPs(), e.match, lport), e.protocol, emptyIdx))
		case selectors:
			rows = append(rows, acl(joinMatch(addressSetMatch(dir, v4, v6), e.match, lport), e.protocol, emptyIdx))
		}
	}
	return rows
}

// namedTargets resolves a rule's named ports on the destination pods:
// ingress, the policy's own pods with a port on the network; egress, the
// pods its selector peers select among the network's peers (every peer
// pod for a rule of ipBlocks or without peers).
func (p *Planner) namedTargets(nw *network, pol *Policy, dir PolicyType, r Rule) []namedTarget {
	var out []namedTarget
	resolve := func(pod *Pod, networks []string) {
		for _, pt := range r.Ports {
			if pt.Name == "" {
				continue
			}
			for _, cp := range pod.Ports {
				if cp.Name != pt.Name || cp.Protocol != pt.Protocol {
					continue
				}
				for _, a := range pod.Networks {
					if !slices.Contains(networks, a.Network) {
						continue
					}
					for _, ip := range a.IPs {
						if (ip.Is4() && nw.fam.v4) || (ip.Is6() && nw.fam.v6) {
							out = append(out, namedTarget{name: cp.Name, pod: pod.Namespace + "/" + pod.Name, protocol: cp.Protocol, addr: ip, number: cp.Number})
						}
					}
				}
			}
		}
	}
	own := []string{nw.net.Name}
	if dir == Ingress {
		for _, pod := range p.pods[pol.Namespace] {
			if _, ok := p.localPort(pod, nw.net.Name); ok && pol.PodSelector.Matches(pod.Labels) {
				resolve(pod, own)
			}
		}
		return out
	}
	var sels []*Peer
	for i := range r.Peers {
		if r.Peers[i].IPBlock == nil {
			sels = append(sels, &r.Peers[i])
		}
	}
	for ns, m := range p.pods {
		for _, pod := range m {
			if len(sels) == 0 || slices.ContainsFunc(sels, func(pe *Peer) bool { return p.peerSelects(pol.Namespace, pe, ns, pod) }) {
				resolve(pod, nw.domain)
			}
		}
	}
	return out
}

// peerSelects reports whether a selector peer of a policy in namespace
// selects pod (in ns).
func (p *Planner) peerSelects(namespace string, pe *Peer, ns string, pod *Pod) bool {
	if pe.NamespaceSelector == nil {
		return ns == namespace && pe.PodSelector.Matches(pod.Labels)
	}
	if !pe.NamespaceSelector.Matches(p.nsLabels[ns]) {
		return false
	}
	return pe.PodSelector == nil || pe.PodSelector.Matches(pod.Labels)
}

// selectorRows plans a peer selector's address sets: the addresses of the
// pods it selects on every network of the domain, per family.
func (p *Planner) selectorRows(nw *network, key string, sel *selector) []topology.Object {
	var v4, v6 []netip.Prefix
	add := func(pod *Pod) {
		for _, a := range pod.Networks {
			if !slices.Contains(nw.domain, a.Network) {
				continue
			}
			for _, ip := range a.IPs {
				ip = ip.Unmap()
				if ip.Is4() {
					v4 = append(v4, netip.PrefixFrom(ip, 32))
				} else {
					v6 = append(v6, netip.PrefixFrom(ip, 128))
				}
			}
		}
	}
	if sel.peer.NamespaceSelector == nil {
		for _, pod := range p.pods[sel.namespace] {
			if sel.peer.PodSelector.Matches(pod.Labels) {
				add(pod)
			}
		}
	} else {
		for ns, m := range p.pods {
			if !sel.peer.NamespaceSelector.Matches(p.nsLabels[ns]) {
				continue
			}
			for _, pod := range m {
				if sel.peer.PodSelector == nil || sel.peer.PodSelector.Matches(pod.Labels) {
					add(pod)
				}
			}
		}
	}
	var rows []topology.Object
	if nw.fam.v4 {
		rows = append(rows, topology.AddressSet{Owner: nw.own, Name: AddressSetName(nw.net.Name, key, false), Addresses: sortPrefixes(v4),
			ExternalIDs: netIDs(nw.net.Name, ownerPodSelector, IDName, key, IDIPFamily, "v4")})
	}
	if nw.fam.v6 {
		rows = append(rows, topology.AddressSet{Owner: nw.own, Name: AddressSetName(nw.net.Name, key, true), Addresses: sortPrefixes(v6),
			ExternalIDs: netIDs(nw.net.Name, ownerPodSelector, IDName, key, IDIPFamily, "v6")})
	}
	return rows
}

func sortPrefixes(ps []netip.Prefix) []netip.Prefix {
	slices.SortFunc(ps, func(a, b netip.Prefix) int { return a.Addr().Compare(b.Addr()) })
	return slices.CompactFunc(ps, func(a, b netip.Prefix) bool { return a == b })
}

// compareUnits orders unit keys (for deterministic recomputation).
func compareUnits(a, b unitKey) int {
	return cmp.Or(cmp.Compare(a.kind, b.kind), cmp.Compare(a.network, b.network), cmp.Compare(a.a, b.a), cmp.Compare(a.b, b.b))
}

// clusterMulticastRows plans the network's multicast default: dropped to
// and from every pod (the cluster port group), allowed through the
// switches' router ports (between nodes).
func (p *Planner) clusterMulticastRows(nw *network, clusterPG string, nodes []string) []topology.Object {
	rtr := ClusterRouterPortGroupName(nw.net.Name)
	var ports []string
	for _, node := range nodes {
		sw := topology.PodSwitchName(nw.net, node)
		if nw.net.Topology == udn.TopologyLayer3 {
			ports = append(ports, "stor-"+sw)
		} else {
			ports = append(ports, "stotr-"+sw)
		}
	}
	slices.Sort(ports)
	acl := func(pg string, dir topology.ACLDirection, prio int, match string, action topology.ACLAction, typ string) topology.ACL {
		d := Ingress
		a := topology.ACL{Owner: nw.own, PortGroup: pg, Tier: Tier, Direction: dir, Priority: prio, Match: match, Action: action, Meter: MeterName}
		if dir == topology.ACLFromLport {
			d = Egress
			a.Options = topology.NewOptions(optApplyAfterLB, "true")
		}
		a.ExternalIDs = netIDs(nw.net.Name, ownerMcastCluster, IDType, typ, IDDirection, d.String())
		return a
	}
	return []topology.Object{
		topology.PortGroup{Owner: nw.own, Name: rtr, Ports: slices.Compact(ports), ExternalIDs: netIDs(nw.net.Name, ownerCluster, IDName, clusterRtrGroupBase)},
		acl(clusterPG, topology.ACLFromLport, PriorityMcastDeny, mcastMatch, topology.ACLDrop, "DefaultDeny"),
		acl(clusterPG, topology.ACLToLport, PriorityMcastDeny, mcastMatch, topology.ACLDrop, "DefaultDeny"),
		acl(rtr, topology.ACLFromLport, PriorityMcastAllow, "inport == @"+rtr+" && "+mcastMatch, topology.ACLAllow, "AllowInterNode"),
		acl(rtr, topology.ACLToLport, PriorityMcastAllow, "outport == @"+rtr+" && "+mcastMatch, topology.ACLAllow, "AllowInterNode"),
	}
}

// multicastRows plans a multicast namespace's rows on a network: its port
// group of local pods, the address sets of its pods, and the ACLs that let
// its pods send multicast and take their own namespace's.
func (p *Planner) multicastRows(nw *network, ns string) []topology.Object {
	if !p.multicast || !p.mcastNS[ns] {
		return nil
	}
	pg := NamespacePortGroupName(nw.net.Name, ns)
	var ports []string
	for _, pod := range p.pods[ns] {
		if port, ok := p.localPort(pod, nw.net.Name); ok {
			ports = append(ports, port)
		}
	}
	slices.Sort(ports)
	key := multicastKey(ns)
	rows := []topology.Object{topology.PortGroup{Owner: nw.own, Name: pg, Ports: ports, ExternalIDs: netIDs(nw.net.Name, ownerNamespace, IDName, ns)}}
	rows = append(rows, p.selectorRows(nw, key, &selector{namespace: ns, peer: Peer{PodSelector: &Selector{}}})...)
	var egress, ingress []string
	if nw.fam.v4 {
		egress = append(egress, "ip4.mcast")
		ingress = append(ingress, "(igmp || (ip4.src == $"+AddressSetName(nw.net.Name, key, false)+" && ip4.mcast))")
	}
	if nw.fam.v6 {
		egress = append(egress, "(mldv1 || mldv2 || "+ip6DynMcast+")")
		ingress = append(ingress, "(mldv1 || mldv2 || (ip6.src == $"+AddressSetName(nw.net.Name, key, true)+" && "+ip6DynMcast+"))")
	}
	af := func(ms []string) string {
		if len(ms) == 1 {
			return ms[0]
		}
		return "(" + strings.Join(ms, " || ") + ")"
	}
	return append(rows,
		topology.ACL{Owner: nw.own, PortGroup: pg, Tier: Tier, Direction: topology.ACLFromLport, Priority: PriorityMcastAllow,
			Match: "inport == @" + pg + " && " + af(egress), Action: topology.ACLAllow, Options: topology.NewOptions(optApplyAfterLB, "true"),
			Meter: MeterName, ExternalIDs: netIDs(nw.net.Name, ownerMcastNS, IDName, ns, IDDirection, Egress.String())},
		topology.ACL{Owner: nw.own, PortGroup: pg, Tier: Tier, Direction: topology.ACLToLport, Priority: PriorityMcastAllow,
			Match: "outport == @" + pg + " && " + af(ingress), Action: topology.ACLAllow,
			Meter: MeterName, ExternalIDs: netIDs(nw.net.Name, ownerMcastNS, IDName, ns, IDDirection, Ingress.String())})
}
