package services

import (
	"cmp"
	"fmt"
	"net/netip"
	"slices"
	"strconv"
	"strings"

	"github.com/udnkit/udnkit/internal/names"
	"github.com/udnkit/udnkit/internal/sdkerr"
	"github.com/udnkit/udnkit/ipam"
	"github.com/udnkit/udnkit/netconf/udn"
	"github.com/udnkit/udnkit/topology"
)

// ControllerServices owns the services' load balancers.
const ControllerServices topology.Controller = "udnkit-services"

// External ids of a service's load balancers (the reference's keys), beside
// the owner's.
const (
	ExtKind  = "k8s.ovn.org/kind"  // "Service"
	ExtOwner = "k8s.ovn.org/owner" // "<namespace>/<name>"
)

// MaxAffinitySeconds is Kubernetes' longest ClientIP affinity: the
// reference hashes on the addresses (selection_fields) instead of a timeout.
const MaxAffinitySeconds = 86400

// ErrInvalid is wrapped by the errors about the input.
var ErrInvalid = sdkerr.New(sdkerr.Invalid, "invalid services input")

// Protocol is a service port's protocol, in Kubernetes spelling.
type Protocol string

// Protocols, in the order the planner emits them.
const (
	ProtocolTCP  Protocol = "TCP"
	ProtocolUDP  Protocol = "UDP"
	ProtocolSCTP Protocol = "SCTP"
)

var protocols = []Protocol{ProtocolTCP, ProtocolUDP, ProtocolSCTP}

// row is the protocol as a load balancer row spells it.
func (p Protocol) row() topology.Protocol {
	switch p {
	case ProtocolUDP:
		return topology.ProtocolUDP
	case ProtocolSCTP:
		return topology.ProtocolSCTP
	}
	return topology.ProtocolTCP
}

// Port is one port of a Service.
type Port struct {
	Name     string
	Protocol Protocol
	Port     uint16
	// NodePort is the node port (0: none).
	NodePort uint16
}

// Service is a Kubernetes Service of a type with cluster IPs (ClusterIP,
// NodePort, LoadBalancer), as the planner reads it, with the EndpointSlices
// of the network it is planned on (for a primary user-defined network the
// mirrored ones, which carry the pods' addresses on that network).
type Service struct {
	Namespace, Name string
	// ClusterIPs are spec.clusterIPs; a Service without any (headless) gets
	// no load balancer.
	ClusterIPs []netip.Addr
	// ExternalIPs are spec.externalIPs, LoadBalancerIPs the addresses of
	// status.loadBalancer.ingress.
	ExternalIPs, LoadBalancerIPs []netip.Addr
	Ports                        []Port
	// ExternalTrafficLocal: a NodePort or LoadBalancer Service with
	// externalTrafficPolicy Local.
	ExternalTrafficLocal bool
	// InternalTrafficLocal: internalTrafficPolicy Local.
	InternalTrafficLocal bool
	// AffinitySeconds is the ClientIP session affinity timeout (0: no
	// affinity).
	AffinitySeconds int32
	// PublishNotReadyAddresses takes every endpoint, ready or not.
	PublishNotReadyAddresses bool
	Slices                   []EndpointSlice
}

// EndpointSlice is an IPv4 or IPv6 EndpointSlice (FQDN ones play no part).
type EndpointSlice struct {
	Ports     []EndpointPort
	Endpoints []Endpoint
}

// EndpointPort is a port of an EndpointSlice.
type EndpointPort struct {
	Name     string
	Protocol Protocol
	Port     uint16
}

// Endpoint is one endpoint of a slice. Its conditions keep Kubernetes'
// meaning of nil: Ready nil is ready, Serving nil is Ready.
type Endpoint struct {
	Addresses                   []netip.Addr
	Node                        string
	Ready, Serving, Terminating *bool
}

func (e *Endpoint) ready() bool { return e.Ready == nil || *e.Ready }
func (e *Endpoint) serving() bool {
	if e.Serving != nil {
		return *e.Serving
	}
	return e.ready()
}
func (e *Endpoint) terminating() bool { return e.Terminating != nil && *e.Terminating }

// Input is what the planner needs for the Services of one network in one
// zone.
type Input struct {
	// Network is the primary network the Services are load-balanced on.
	Network *udn.Network
	// Nodes are the cluster's nodes; those of Zone get the per-node load
	// balancers (NodePort, externalTrafficPolicy Local, ...), with their
	// Addresses as the node's host and gateway addresses.
	Nodes []topology.Node
	Zone  string
	// HostAddresses are, per node name, all of its host addresses (the
	// node's k8s.ovn.org/host-cidrs): the addresses its NodePorts answer
	// on. A node missing here answers on its Addresses.
	HostAddresses map[string][]netip.Addr
	// Cluster supplies the masquerade subnets (defaults as topology's).
	Cluster topology.Cluster
	// PeerGroups are more load-balancer groups the cluster-wide load
	// balancers join: those connect.ServiceGroups names for the network.
	PeerGroups []string
	// Services are the Services to plan (for PlanState and Plan).
	Services []Service
}

// planner holds what every Service of one Input shares.
type planner struct {
	prefix   string      // the network's name prefix
	local    []localNode // sorted by name
	localSet map[string]bool
	groups   []string // of the cluster-wide load balancers
	hairpin  string   // hairpin_snat_ip
	hostMasq [2]netip.Addr
	etpMasq  [2]netip.Addr
	subnets  []netip.Prefix
	own      topology.Owner
}

// localNode is what the per-node load balancers of every Service read of
// a node of the zone, worked out once per planner.
type localNode struct {
	name, sw, gr string // the node, its pod switch and gateway router
	// gwIPs are the node's (gateway router's) addresses, hostIPs those its
	// NodePorts answer on.
	gwIPs, hostIPs []netip.Addr
}

func newPlanner(in *Input) (*planner, error) {
	n := in.Network
	if n == nil || !n.IsPrimary() || n.Topology == udn.TopologyLocalnet {
		return nil, names.Errorf("network: %w: Services are load-balanced on a primary Layer3 or Layer2 network", ErrInvalid)
	}
	if err := topology.CheckNames(n, in.Nodes, in.Zone); err != nil {
		return nil, names.Errorf("%w: %w", ErrInvalid, err)
	}
	for i, g := range in.PeerGroups {
		if msg := names.ControlError(g); msg != "" {
			return nil, names.Errorf("peerGroups[%d] %s: %w: %s", i, names.Quote(g), ErrInvalid, msg)
		}
	}
	p := &planner{prefix: n.Prefix(), localSet: map[string]bool{}, subnets: n.SubnetPrefixes(),
		own: topology.Owner{Controller: ControllerServices, Network: n.Name, Topology: n.Topology, Role: n.Role}}
	for i := range in.Nodes {
		nd := &in.Nodes[i]
		if nd.InZone() == in.Zone {
			if p.localSet[nd.Name] {
				return nil, names.Errorf("nodes: %w: node %q twice", ErrInvalid, nd.Name)
			}
			l := localNode{name: nd.Name, sw: topology.PodSwitchName(n, nd.Name), gr: topology.GatewayRouterName(n.Name, nd.Name),
				gwIPs: make([]netip.Addr, len(nd.Addresses))}
			for i, a := range nd.Addresses {
				l.gwIPs[i] = a.Addr()
			}
			l.hostIPs = l.gwIPs
			if h, ok := in.HostAddresses[nd.Name]; ok {
				l.hostIPs = h
			}
			p.local = append(p.local, l)
			p.localSet[nd.Name] = true
		}
	}
	slices.SortFunc(p.local, func(a, b localNode) int { return cmp.Compare(a.name, b.name) })
	c, _, _ := topology.LoadBalancerGroupNames(n.Name)
	p.groups = append([]string{c}, in.PeerGroups...)
	slices.Sort(p.groups)
	p.groups = slices.Compact(p.groups)
	masq := in.Cluster.MasqueradeSubnets
	if len(masq) == 0 {
		masq = ipam.DefaultMasqueradeSubnets()
	}
	var hairpin [2]string
	for _, s := range masq {
		if p.hostMasq[fam(s.Addr())].IsValid() {
			continue // the first of a family is the cluster's, as for the topology planner
		}
		m, err := ipam.MasqueradeIPs(s)
		if err != nil {
			return nil, names.Errorf("cluster: masqueradeSubnets: %w", err)
		}
		f := fam(m.Host)
		p.hostMasq[f], p.etpMasq[f], hairpin[f] = m.Host, m.ETPLocal, m.ServiceHairpin.String()
	}
	for _, s := range p.subnets {
		if !p.hostMasq[fam(s.Addr())].IsValid() {
			return nil, names.Errorf("cluster: masqueradeSubnets: %w: none of the family of the network's subnet %s", ErrInvalid, s)
		}
	}
	p.hairpin = strings.TrimSpace(hairpin[0] + " " + hairpin[1]) // IPv4 first
	return p, nil
}

// fam is 0 for IPv4, 1 for IPv6.
func fam(a netip.Addr) int {
	if a.Is4() {
		return 0
	}
	return 1
}

// endpoints are the eligible addresses behind one service port: sorted as
// the reference sorts them (as strings), per family.
type endpoints struct {
	port uint16
	ips  [2][]netip.Addr
}

func (e *endpoints) len() int { return len(e.ips[0]) + len(e.ips[1]) }

// config is an abstract load balancer: vips (nodeVIP stands for the node's
// addresses) and their endpoints, the reference's lbConfig.
type config struct {
	proto        Protocol
	vips         []netip.Addr
	nodeVIP      bool
	inport       uint16
	cluster      endpoints
	perNode      map[string]endpoints
	etpLocal     bool
	itpLocal     bool
	clusterIPSet []netip.Addr // the Service's cluster IPs (ITP applies to them only)
}

// rule is one vip of a load balancer and its backends.
type rule struct {
	vip      netip.AddrPort
	backends []netip.AddrPort
}

// lb is a load balancer being built.
type lb struct {
	name              string
	proto             Protocol
	rules             []rule
	skipSNAT          bool
	groups, sws, rtrs []string
}

// PlanService returns the load balancers of svc on in's network, sorted by
// name. It reads in but for in.Services.
func PlanService(in *Input, svc *Service) ([]topology.LoadBalancer, error) {
	p, err := newPlanner(in)
	if err != nil {
		return nil, err
	}
	return p.service(svc)
}

// Changes returns the changes that take one Service's load balancers from
// before to after (PlanService's results; either may be nil: a Service
// that comes or goes), and nothing else: a controller applies them
// directly (Apply, not Sync), at a cost independent of the number of
// Services. Plan's State is the full resync.
func Changes(before, after []topology.LoadBalancer) (topology.Changes, error) {
	return topology.ObjectChanges(before, after)
}

// Plan returns the load balancers of every Service of in as one State
// speaking for ControllerServices in the network: synced, it deletes the
// load balancers of Services no longer there.
func Plan(in Input) (topology.State, error) {
	p, err := newPlanner(&in)
	if err != nil {
		return topology.State{}, err
	}
	var e topology.Emitter // the load balancers are fresh: no copy needed
	e.Own(ControllerServices, in.Network.Name)
	for i := range in.Services {
		lbs, err := p.service(&in.Services[i])
		if err != nil {
			return topology.State{}, err
		}
		for _, l := range lbs {
			e.Emit(l)
		}
	}
	return e.State()
}

func (p *planner) service(svc *Service) ([]topology.LoadBalancer, error) {
	if err := check(svc); err != nil {
		return nil, err
	}
	if len(svc.ClusterIPs) == 0 {
		return nil, nil // headless: nothing to balance
	}
	perNode, cluster := p.configs(svc)
	out := p.clusterLBs(svc, cluster)
	out = append(out, p.nodeLBs(svc, perNode)...)
	lbs := make([]topology.LoadBalancer, 0, len(out))
	for i := range out {
		lbs = append(lbs, p.object(svc, &out[i]))
	}
	slices.SortFunc(lbs, func(a, b topology.LoadBalancer) int { return cmp.Compare(a.Name, b.Name) })
	for i := 1; i < len(lbs); i++ {
		if lbs[i].Name == lbs[i-1].Name {
			return nil, names.Errorf("service %s/%s: %w: two load balancers named %q", svc.Namespace, svc.Name, ErrInvalid, lbs[i].Name)
		}
	}
	return lbs, nil
}

// check refuses what no Kubernetes API server would accept.
func check(svc *Service) error {
	name := names.Quote(svc.Namespace + "/" + svc.Name)
	if svc.Namespace == "" || svc.Name == "" {
		return names.Errorf("service %s: %w: namespace and name are required", name, ErrInvalid)
	}
	if err := checkNames(svc); err != nil {
		return names.Errorf("service %s: %w: %w", name, ErrInvalid, err)
	}
	seen := map[portKey]bool{}
	for i, pt := range svc.Ports {
		if !slices.Contains(protocols, pt.Protocol) {
			return names.Errorf("service %s: ports[%d].protocol: %w: %q", name, i, ErrInvalid, pt.Protocol)
		}
		if pt.Port == 0 {
			return names.Errorf("service %s: ports[%d].port: %w: 0", name, i, ErrInvalid)
		}
		k := portKey{pt.Protocol, pt.Name}
		if seen[k] {
			return names.Errorf("service %s: ports[%d]: %w: %s twice", name, i, ErrInvalid, k)
		}
		seen[k] = true
	}
	for _, list := range [][]netip.Addr{svc.ClusterIPs, svc.ExternalIPs, svc.LoadBalancerIPs} {
		for _, a := range list {
			if !a.IsValid() || a.Zone() != "" || a.Is4In6() {
				return names.Errorf("service %s: %w: address %s", name, ErrInvalid, names.Quote(a.String()))
			}
		}
	}
	// spec.clusterIPs: at most one per family (Kubernetes' rule).
	if len(svc.ClusterIPs) > 2 || len(svc.ClusterIPs) == 2 && svc.ClusterIPs[0].Is4() == svc.ClusterIPs[1].Is4() {
		return names.Errorf("service %s: clusterIPs: %w: %v holds more than one address of a family", name, ErrInvalid, svc.ClusterIPs)
	}
	if svc.AffinitySeconds < 0 || svc.AffinitySeconds > MaxAffinitySeconds {
		return names.Errorf("service %s: sessionAffinityConfig.clientIP.timeoutSeconds: %w: %d", name, ErrInvalid, svc.AffinitySeconds)
	}
	return nil
}

// checkNames refuses control characters in the names a Service brings to
// the rows: its namespace and name, port names, endpoint nodes.
func checkNames(svc *Service) error {
	bad := func(field, s string) error {
		if msg := names.ControlError(s); msg != "" {
			return names.Errorf("%s %s: %s", field, names.Quote(s), msg)
		}
		return nil
	}
	if err := bad("namespace", svc.Namespace); err != nil {
		return err
	}
	if err := bad("name", svc.Name); err != nil {
		return err
	}
	for i, pt := range svc.Ports {
		if err := bad("ports["+strconv.Itoa(i)+"].name", pt.Name); err != nil {
			return err
		}
	}
	for i, sl := range svc.Slices {
		for j, pt := range sl.Ports {
			if err := bad(fmt.Sprintf("slices[%d].ports[%d].name", i, j), pt.Name); err != nil {
				return err
			}
		}
		for j, ep := range sl.Endpoints {
			if err := bad(fmt.Sprintf("slices[%d].endpoints[%d].nodeName", i, j), ep.Node); err != nil {
				return err
			}
		}
	}
	return nil
}

// portKey names a Service port, and the slice ports its endpoints come
// from: by protocol and name.
type portKey struct {
	proto Protocol
	name  string
}

func (k portKey) String() string { return string(k.proto) + "/" + k.name }

// configs is the reference's buildServiceLBConfigs (without load balancer
// templates): per service port, a NodePort config (per node), an external
// IP config under externalTrafficPolicy Local (per node), and the cluster
// IP config, per node when an endpoint is outside the network's subnets or
// under internalTrafficPolicy Local, else cluster-wide.
func (p *planner) configs(svc *Service) (perNode, cluster []config) {
	clusterEPs, nodeEPs := p.endpoints(svc)
	// The vips, the same for every port: the external and load-balancer
	// IPs are per node under externalTrafficPolicy Local, else beside the
	// cluster IPs.
	ext := slices.Concat(svc.ExternalIPs, svc.LoadBalancerIPs)
	etpExt := svc.ExternalTrafficLocal && len(ext) > 0
	vips := svc.ClusterIPs
	if !etpExt && len(ext) > 0 {
		vips = slices.Concat(svc.ClusterIPs, ext)
	}
	for _, sp := range svc.Ports {
		k := portKey{sp.Protocol, sp.Name}
		ce, ne := clusterEPs[k], nodeEPs[k]
		if sp.NodePort != 0 {
			perNode = append(perNode, config{proto: sp.Protocol, nodeVIP: true, inport: sp.NodePort, cluster: ce, perNode: ne,
				etpLocal: svc.ExternalTrafficLocal})
		}
		if etpExt {
			perNode = append(perNode, config{proto: sp.Protocol, vips: ext, inport: sp.Port, cluster: ce, perNode: ne, etpLocal: true})
		}
		c := config{proto: sp.Protocol, vips: vips, inport: sp.Port, cluster: ce, perNode: ne, itpLocal: svc.InternalTrafficLocal,
			clusterIPSet: svc.ClusterIPs}
		if p.hostEndpoints(&ce) || svc.InternalTrafficLocal {
			perNode = append(perNode, c)
		} else {
			cluster = append(cluster, c)
		}
	}
	return perNode, cluster
}

// hostEndpoints reports whether an endpoint lies outside the network's
// subnets (a host-networked pod's node address).
func (p *planner) hostEndpoints(e *endpoints) bool {
	for _, f := range e.ips {
		for _, a := range f {
			if !slices.ContainsFunc(p.subnets, func(s netip.Prefix) bool { return s.Contains(a) }) {
				return true
			}
		}
	}
	return false
}

// endpoints classifies the Service's endpoints per service port, and per
// port and local node when a traffic policy is Local (the reference's
// getEndpointsForService).
func (p *planner) endpoints(svc *Service) (map[portKey]endpoints, map[portKey]map[string]endpoints) {
	ports := make(map[portKey]uint16, len(svc.Ports))
	for _, sp := range svc.Ports {
		ports[portKey{sp.Protocol, sp.Name}] = 0
	}
	local := svc.ExternalTrafficLocal || svc.InternalTrafficLocal
	byPort := map[portKey][]*Endpoint{}
	byPortNode := map[portKey]map[string][]*Endpoint{}
	for si := range svc.Slices {
		sl := &svc.Slices[si]
		var keys []portKey
		for _, ep := range sl.Ports {
			k := portKey{ep.Protocol, ep.Name}
			if _, ok := ports[k]; !ok {
				k = portKey{ep.Protocol, ""} // a Service port without a name
				if _, ok := ports[k]; !ok {
					continue
				}
			}
			keys = append(keys, k)
			ports[k] = ep.Port
		}
		for ei := range sl.Endpoints {
			e := &sl.Endpoints[ei]
			for _, k := range keys {
				byPort[k] = append(byPort[k], e)
				if !local || e.Node == "" || !p.localSet[e.Node] {
					continue
				}
				if byPortNode[k] == nil {
					byPortNode[k] = map[string][]*Endpoint{}
				}
				byPortNode[k][e.Node] = append(byPortNode[k][e.Node], e)
			}
		}
	}
	out := make(map[portKey]endpoints, len(byPort))
	for k, eps := range byPort {
		if e := eligible(eps, svc.PublishNotReadyAddresses, ports[k]); e.len() > 0 {
			out[k] = e
		}
	}
	outNode := make(map[portKey]map[string]endpoints, len(byPortNode))
	for k, nodes := range byPortNode {
		for node, eps := range nodes {
			if e := eligible(eps, svc.PublishNotReadyAddresses, ports[k]); e.len() > 0 {
				if outNode[k] == nil {
					outNode[k] = map[string]endpoints{}
				}
				outNode[k][node] = e
			}
		}
	}
	return out, outNode
}

// eligible returns the addresses of the ready endpoints, or, when none is
// ready, of the serving and terminating ones (KEP-1669), without
// duplicates, sorted as strings per family.
func eligible(eps []*Endpoint, all bool, port uint16) endpoints {
	var ready, fallback []*Endpoint
	for _, e := range eps {
		switch {
		case all || e.ready():
			ready = append(ready, e)
		case e.serving() && e.terminating():
			fallback = append(fallback, e)
		}
	}
	if len(ready) == 0 {
		ready = fallback
	}
	out := endpoints{port: port}
	for _, e := range ready {
		for _, a := range e.Addresses {
			a = a.Unmap()
			out.ips[fam(a)] = append(out.ips[fam(a)], a)
		}
	}
	for f := range out.ips {
		out.ips[f] = sortAsStrings(out.ips[f])
	}
	return out
}

// sortAsStrings sorts ips by their text, as the reference sorts them
// (10.128.0.10 before 10.128.0.9), without duplicates; the text of each is
// made once.
func sortAsStrings(ips []netip.Addr) []netip.Addr {
	if len(ips) < 2 {
		return ips
	}
	type keyed struct {
		s string
		a netip.Addr
	}
	ks := make([]keyed, len(ips))
	for i, a := range ips {
		ks[i] = keyed{a.String(), a}
	}
	slices.SortFunc(ks, func(x, y keyed) int { return cmp.Compare(x.s, y.s) })
	out := ips[:0]
	for i, k := range ks {
		if i == 0 || k.s != ks[i-1].s {
			out = append(out, k.a)
		}
	}
	return out
}

func join(ips []netip.Addr, port uint16) []netip.AddrPort {
	out := make([]netip.AddrPort, len(ips))
	for i, a := range ips {
		out[i] = netip.AddrPortFrom(a, port)
	}
	return out
}

// clusterLBs is the reference's buildClusterLBs with load-balancer groups:
// one load balancer per protocol, in the network's cluster group (held by
// every node switch and gateway router) and the peer groups.
func (p *planner) clusterLBs(svc *Service, cfgs []config) []lb {
	var out []lb
	for _, proto := range protocols {
		l := lb{name: p.lbName(svc, proto, "cluster", ""), proto: proto, groups: p.groups}
		for i := range cfgs {
			c := &cfgs[i]
			if c.proto != proto {
				continue
			}
			for _, v := range c.vips {
				l.rules = append(l.rules, rule{vip: netip.AddrPortFrom(v, c.inport), backends: join(c.cluster.ips[fam(v)], c.cluster.port)})
			}
		}
		if slices.ContainsFunc(cfgs, func(c config) bool { return c.proto == proto }) {
			out = append(out, l)
		}
	}
	return out
}

// nodeLBs is the reference's buildPerNodeLBs: per local node and protocol,
// the switch's and the gateway router's rules (one load balancer for both
// when they agree), externalTrafficPolicy Local's rules without SNAT on a
// load balancer of their own, then identical load balancers merged.
func (p *planner) nodeLBs(svc *Service, cfgs []config) []lb {
	if len(cfgs) == 0 {
		return nil
	}
	// The backends of every endpoint, the same on every node.
	all := make([][2][]netip.AddrPort, len(cfgs))
	for i := range cfgs {
		for f, ips := range cfgs[i].cluster.ips {
			all[i][f] = join(ips, cfgs[i].cluster.port)
		}
	}
	var out []lb
	for k := range p.local {
		nd := &p.local[k]
		for _, proto := range protocols {
			var routerRules, noSNAT, switchRules []rule
			found := false
			for i := range cfgs {
				c := &cfgs[i]
				if c.proto != proto {
					continue
				}
				found = true
				localEPs := c.perNode[nd.name]
				switchLocal := c.cluster.ips
				if c.etpLocal || c.itpLocal {
					switchLocal = localEPs.ips
				}
				routerIPs := c.cluster.ips
				if c.etpLocal {
					routerIPs = localEPs.ips
				}
				switchTargets, routerTargets := all[i], all[i]
				for f, ips := range routerIPs {
					if !c.etpLocal && !slices.ContainsFunc(ips, func(a netip.Addr) bool { return slices.Contains(nd.gwIPs, a) }) {
						continue // every endpoint's backends, as the switch's
					}
					ips = slices.Clone(ips)
					for j, a := range ips {
						if slices.Contains(nd.gwIPs, a) {
							ips[j] = p.hostMasq[f] // hairpin to the node itself
						}
					}
					routerTargets[f] = join(ips, c.cluster.port)
				}
				vips := c.vips
				if c.nodeVIP {
					vips = nd.hostIPs
				}
				for _, v := range vips {
					f := fam(v)
					if c.etpLocal && c.nodeVIP {
						switchRules = append(switchRules, rule{vip: netip.AddrPortFrom(p.etpMasq[f], c.inport),
							backends: join(switchLocal[f], c.cluster.port)})
					}
					if c.itpLocal && slices.Contains(c.clusterIPSet, v) {
						switchRules = append(switchRules, rule{vip: netip.AddrPortFrom(v, c.inport), backends: join(switchLocal[f], c.cluster.port)})
					} else {
						switchRules = append(switchRules, rule{vip: netip.AddrPortFrom(v, c.inport), backends: switchTargets[f]})
					}
					r := rule{vip: netip.AddrPortFrom(v, c.inport), backends: routerTargets[f]}
					if c.etpLocal && len(r.backends) > 0 {
						noSNAT = append(noSNAT, r)
					} else {
						routerRules = append(routerRules, r)
					}
				}
			}
			if !found {
				continue
			}
			if len(switchRules) > 0 && rulesEqual(switchRules, routerRules) {
				out = append(out, lb{name: p.lbName(svc, proto, "node_router+switch_", nd.name), proto: proto, rules: routerRules,
					sws: []string{nd.sw}, rtrs: []string{nd.gr}})
				continue
			}
			if len(routerRules) > 0 {
				out = append(out, lb{name: p.lbName(svc, proto, "node_router_", nd.name), proto: proto, rules: routerRules, rtrs: []string{nd.gr}})
			}
			if len(noSNAT) > 0 {
				out = append(out, lb{name: p.lbName(svc, proto, "node_local_router_", nd.name), proto: proto, rules: noSNAT,
					rtrs: []string{nd.gr}, skipSNAT: true})
			}
			if len(switchRules) > 0 {
				out = append(out, lb{name: p.lbName(svc, proto, "node_switch_", nd.name), proto: proto, rules: switchRules, sws: []string{nd.sw}})
			}
		}
	}
	return merge(out)
}

func rulesEqual(a, b []rule) bool {
	return slices.EqualFunc(a, b, func(x, y rule) bool { return x.vip == y.vip && slices.Equal(x.backends, y.backends) })
}

// merge joins per-node load balancers (in no group) of one protocol,
// options and rules into the first of them, named "..._merged" (the
// reference's mergeLBs).
func merge(lbs []lb) []lb {
	out := make([]lb, 0, len(lbs))
outer:
	for _, l := range lbs {
		for i := range out {
			o := &out[i]
			if o.proto == l.proto && o.skipSNAT == l.skipSNAT && rulesEqual(o.rules, l.rules) {
				o.sws = append(slices.Clip(o.sws), l.sws...)
				o.rtrs = append(slices.Clip(o.rtrs), l.rtrs...)
				if !strings.HasSuffix(o.name, "_merged") {
					o.name += "_merged"
				}
				continue outer
			}
		}
		out = append(out, l)
	}
	return out
}

// lbName is the reference's "Service_<namespace>/<name>_<PROTO>_<scope><node>"
// in the network's name scope.
func (p *planner) lbName(svc *Service, proto Protocol, scope, node string) string {
	return p.prefix + "Service_" + svc.Namespace + "/" + svc.Name + "_" + string(proto) + "_" + scope + node
}

// object turns a built load balancer into the row: options, external ids
// and the rules as vips.
func (p *planner) object(svc *Service, l *lb) topology.LoadBalancer {
	opts := []topology.Option{
		{Key: "event", Value: "false"},
		{Key: "hairpin_snat_ip", Value: p.hairpin},
		{Key: "neighbor_responder", Value: "none"},
		{Key: "reject", Value: "true"},
		{Key: "skip_snat", Value: strconv.FormatBool(l.skipSNAT)},
	}
	var sel []string
	if t := svc.AffinitySeconds; t > 0 {
		if t == MaxAffinitySeconds {
			sel = []string{"ip_dst", "ip_src"}
		} else {
			opts = append(opts, topology.Option{Key: "affinity_timeout", Value: strconv.Itoa(int(t))})
		}
	}
	vips := make([]topology.LBVIP, 0, len(l.rules))
	for _, r := range l.rules {
		// A vip given twice (a cluster IP also listed as an external IP)
		// is one entry of the vips map: the last one, as the reference's.
		if i := slices.IndexFunc(vips, func(v topology.LBVIP) bool { return v.VIP == r.vip }); i >= 0 {
			vips[i].Backends = r.backends
			continue
		}
		vips = append(vips, topology.LBVIP{VIP: r.vip, Backends: r.backends})
	}
	slices.SortFunc(vips, func(a, b topology.LBVIP) int { return a.VIP.Compare(b.VIP) })
	slices.SortFunc(opts, func(a, b topology.Option) int { return cmp.Compare(a.Key, b.Key) })
	return topology.LoadBalancer{
		Owner:           p.own,
		Name:            l.name,
		Protocol:        l.proto.row(),
		VIPs:            vips,
		Options:         opts,
		SelectionFields: sel,
		Groups:          slices.Clone(l.groups),
		Switches:        l.sws,
		Routers:         l.rtrs,
		ExternalIDs:     []topology.Option{{Key: ExtKind, Value: "Service"}, {Key: ExtOwner, Value: svc.Namespace + "/" + svc.Name}},
	}
}
