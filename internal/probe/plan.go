package probe

import (
	"cmp"
	"fmt"
	"maps"
	"net/netip"
	"slices"
	"strings"

	"github.com/udnkit/udnkit"
	"github.com/udnkit/udnkit/ipam"
	"github.com/udnkit/udnkit/netconf"
	"github.com/udnkit/udnkit/netconf/udn"
	"github.com/udnkit/udnkit/topology"
	"github.com/udnkit/udnkit/topology/pods"
	"github.com/udnkit/udnkit/topology/policy"
)

// Endpoint is one end of a probe: a pod's primary port, or a network's
// management port on a node (the synthetic probe).
type Endpoint struct {
	Network string
	Node    string
	// Pod is "<namespace>/<name>", "" for a management port.
	Pod string
	// Port is the logical switch port: the trace's inport at the source,
	// where a delivered packet leaves at a destination in the zone.
	Port   string
	Switch string
	MAC    string
	// IPs are the endpoint's addresses, IPv4 first; IP is the one a probe
	// uses (IPv4 when both ends have one, else IPv6).
	IPs []netip.Addr
	IP  netip.Addr
	// Gateway is the MAC of the network's router port on Switch ("" when
	// none is planned).
	Gateway string
	// Local reports that the endpoint's node is in the zone verified (its
	// port is in the zone's NB).
	Local bool
}

// String names the endpoint: the pod, or "<network>@<node>".
func (e Endpoint) String() string {
	if e.Pod != "" {
		return e.Pod
	}
	return e.Network + "@" + e.Node
}

// Intent is what the manifests mean for a probe.
type Intent struct {
	Delivered bool
	// Why is udnkit.Reach's reason, or the network policies' verdict.
	Why string
	// Via is the owner of the rows joining or parting the two networks
	// beyond their own (udnkit.Reach.Via).
	Via string
}

// Probe is one packet to trace: a new connection From → To.
type Probe struct {
	From, To Endpoint
	Intent   Intent
}

// RemotePort is where a port that leaves the zone leads: the node (by its
// requested chassis) and the owner of the row (topology.Owner.Network: a
// network, or a connect).
type RemotePort struct {
	Node, Owner string
	// Dests are the prefixes the routes of the port's router send
	// through it (a connect router's routes to a network's host subnet
	// on the node): what it leads to.
	Dests []netip.Prefix
}

// PodRef names a pod of the manifests and its node.
type PodRef struct {
	Namespace, Name, Node string
}

// Config is what Plan probes.
type Config struct {
	// Zone is the zone verified: its NB holds the source ports.
	Zone string
	// Protocol and Port are the probes' L4 protocol (the zero value is
	// TCP) and destination port.
	Protocol policy.Protocol
	Port     int32
	// Pods are the pods of the manifests; a network's pods on a node
	// stand for it there, its management port when it has none.
	Pods []PodRef
	// Networks, when set, are the only networks probed (as sources and
	// destinations): n networks on m nodes make about n² × m probes.
	Networks []string
}

// Plan is the probes of a zone and what judging them needs.
type Plan struct {
	Config
	Probes []Probe
	// Networks are the networks probed, sorted.
	Networks []string
	// Remote maps a port that leaves the zone (a remote switch port, a
	// router port bound to another chassis) to where it leads.
	Remote map[string]RemotePort
	// Skipped says which networks were not probed and why.
	Skipped []string
}

// Probes plans the probes of zone from the Cluster c and its plan of the
// zone (state, c.Plan(zone)): every endpoint of the zone to every endpoint
// of every node, each probe with its intent — c.Reach between the
// networks, then, for a pod source or destination, c.Allows (c.AllowsEgress
// for a destination of another zone). Nodes the Cluster does not plan
// (c.NotReady) have no endpoint. Primary
// Layer3 and Layer2 networks are probed; a Layer2 network's management
// ports share an address, so without pods it is probed on the zone's
// nodes only.
func Probes(c *udnkit.Cluster, state topology.State, cfg Config) (*Plan, error) {
	p := &Plan{Config: cfg, Remote: map[string]RemotePort{}}
	nodes := c.Nodes()
	for _, nr := range c.NotReady() {
		nodes = slices.DeleteFunc(nodes, func(nd topology.Node) bool { return nd.Name == nr.Node })
	}
	chassis := map[string]string{}
	for _, nd := range nodes {
		if nd.Chassis != "" {
			chassis[nd.Chassis] = nd.Name
		}
	}
	index := indexState(state)
	for port, rp := range index.remote {
		if n, ok := chassis[rp.Node]; ok {
			p.Remote[port] = RemotePort{Node: n, Owner: rp.Owner, Dests: rp.Dests}
		}
	}
	names := c.Names()
	for _, want := range cfg.Networks {
		if !slices.Contains(names, want) {
			return nil, fmt.Errorf("network %q: %w", want, udnkit.ErrNotFound)
		}
	}
	var eps []Endpoint
	for _, name := range names {
		if len(cfg.Networks) > 0 && !slices.Contains(cfg.Networks, name) {
			continue
		}
		n, _ := c.Network(name)
		if !n.IsPrimary() || (n.Topology != udn.TopologyLayer3 && n.Topology != udn.TopologyLayer2) {
			p.Skipped = append(p.Skipped, fmt.Sprintf("%s: %s %s: not probed (primary Layer3 and Layer2 networks are)", name, n.Role, n.Topology))
			continue
		}
		p.Networks = append(p.Networks, name)
		podEps, err := podEndpoints(c, n, cfg.Pods, index)
		if err != nil {
			return nil, err
		}
		for _, nd := range nodes {
			local := nd.InZone() == cfg.Zone
			if own := filterNode(podEps, nd.Name); len(own) > 0 {
				for i := range own {
					own[i].Local = local
				}
				eps = append(eps, own...)
				continue
			}
			if n.Topology == udn.TopologyLayer2 && !local {
				continue
			}
			e, ok := managementEndpoint(c, n, nd.Name, index)
			if !ok {
				continue
			}
			e.Local = local
			eps = append(eps, e)
		}
	}
	for _, from := range eps {
		if !from.Local || from.MAC == "" {
			continue
		}
		for _, to := range eps {
			if to.Port == from.Port && to.Node == from.Node {
				continue
			}
			src, dst, ok := family(from.IPs, to.IPs)
			if !ok {
				continue
			}
			f, t := from, to
			f.IP, t.IP = src, dst
			in, err := intent(c, cfg, f, t)
			if err != nil {
				return nil, err
			}
			p.Probes = append(p.Probes, Probe{From: f, To: t, Intent: in})
		}
	}
	slices.SortStableFunc(p.Probes, func(a, b Probe) int {
		return cmp.Or(strings.Compare(a.From.Network, b.From.Network), strings.Compare(a.To.Network, b.To.Network),
			strings.Compare(a.From.String(), b.From.String()), strings.Compare(a.To.String(), b.To.String()))
	})
	return p, nil
}

// family picks a source and a destination address of one family: IPv4
// when both ends have one, else IPv6.
func family(from, to []netip.Addr) (src, dst netip.Addr, ok bool) {
	for _, v4 := range []bool{true, false} {
		i := slices.IndexFunc(from, func(a netip.Addr) bool { return a.Is4() == v4 })
		j := slices.IndexFunc(to, func(a netip.Addr) bool { return a.Is4() == v4 })
		if i >= 0 && j >= 0 {
			return from[i], to[j], true
		}
	}
	return netip.Addr{}, netip.Addr{}, false
}

// intent is what the manifests mean for a probe from → to.
func intent(c *udnkit.Cluster, cfg Config, from, to Endpoint) (Intent, error) {
	r, err := c.Reach(from.Network, to.Network)
	if err != nil {
		return Intent{}, err
	}
	in := Intent{Delivered: r.Connected, Why: r.Why, Via: r.Via}
	if !r.Connected || (from.Pod == "" && to.Pod == "") {
		return in, nil
	}
	if from.Pod == "" && to.Switch == from.Switch {
		// The management port's ACL admits the node to its own switch's
		// pods whatever the policies (policy package).
		return in, nil
	}
	allows := c.Allows
	if !to.Local {
		// A destination of another zone: its node's switch enforces its
		// ingress policies, this zone the source's egress ones.
		allows = c.AllowsEgress
		in.Why += "; its own zone enforces " + to.String() + "'s ingress policies"
	}
	ok, err := allows(cfg.Zone, policyEndpoint(from), policyEndpoint(to), cfg.Protocol, cfg.Port)
	if err != nil {
		return Intent{}, err
	}
	if !ok {
		return Intent{Why: "NetworkPolicy denies " + cfg.Protocol.String() + "/" + fmt.Sprint(cfg.Port), Via: in.Via}, nil
	}
	return in, nil
}

func policyEndpoint(e Endpoint) policy.Endpoint {
	if ns, name, ok := strings.Cut(e.Pod, "/"); ok {
		return policy.Endpoint{Namespace: ns, Name: name}
	}
	return policy.Endpoint{IP: e.IP}
}

func filterNode(eps []Endpoint, node string) []Endpoint {
	var out []Endpoint
	for _, e := range eps {
		if e.Node == node {
			out = append(out, e)
		}
	}
	return out
}

// stateIndex is what probing reads from the zone's plan.
type stateIndex struct {
	ports   map[string]topology.SwitchPort
	routers map[string]topology.RouterPort
	remote  map[string]RemotePort // Node: the requested chassis
	peers   map[string][]string   // switch → the router ports its router-type ports name
}

func indexState(s topology.State) stateIndex {
	x := stateIndex{ports: map[string]topology.SwitchPort{}, routers: map[string]topology.RouterPort{}, remote: map[string]RemotePort{}, peers: map[string][]string{}}
	routes := map[string][]topology.StaticRoute{} // by router
	for o := range s.Objects() {
		switch o := o.(type) {
		case topology.SwitchPort:
			x.ports[o.Name] = o
			if rp, ok := o.Options.Get("router-port"); ok && o.Type == topology.PortRouter {
				x.peers[o.Switch] = append(x.peers[o.Switch], rp)
			}
			if ch, _ := o.Options.Get("requested-chassis"); ch != "" && o.Type == topology.PortRemote {
				x.remote[o.Name] = RemotePort{Node: ch, Owner: o.Owner.Network}
			}
		case topology.RouterPort:
			x.routers[o.Name] = o
			if ch, _ := o.Options.Get("requested-chassis"); ch != "" && o.Peer == "" {
				x.remote[o.Name] = RemotePort{Node: ch, Owner: o.Owner.Network}
			}
		case topology.StaticRoute:
			routes[o.Router] = append(routes[o.Router], o)
		}
	}
	// A remote router port leads to the prefixes its router routes through
	// a next hop on its networks.
	for name, rem := range x.remote {
		rp, ok := x.routers[name]
		if !ok {
			continue
		}
		for _, r := range routes[rp.Router] {
			if slices.ContainsFunc(rp.Networks, func(n netip.Prefix) bool { return n.Contains(r.Nexthop) }) {
				rem.Dests = append(rem.Dests, r.Prefix)
			}
		}
		x.remote[name] = rem
	}
	return x
}

// gateway returns the MAC of the network's router port on sw: the
// cluster router's (rtos-) on a Layer3 node switch, the transit router's
// (trtos-) on a Layer2 switch, else the first by name of the router ports
// the switch's router-type ports name (a legacy Layer2 switch's gateway
// router).
func (x stateIndex) gateway(sw string) string {
	for _, name := range []string{"rtos-" + sw, "trtos-" + sw} {
		if rp, ok := x.routers[name]; ok {
			return rp.MAC
		}
	}
	var peers []string
	for _, rp := range x.peers[sw] {
		if _, ok := x.routers[rp]; ok {
			peers = append(peers, rp)
		}
	}
	if len(peers) == 0 {
		return ""
	}
	return x.routers[slices.Min(peers)].MAC
}

// managementEndpoint is the network's management port on node: the
// planned port when the zone holds it, else (a Layer3 network's remote
// node) its address derived from the node's host subnet.
func managementEndpoint(c *udnkit.Cluster, n *udn.Network, node string, x stateIndex) (Endpoint, bool) {
	e := Endpoint{Network: n.Name, Node: node, Port: "k8s-" + n.Prefix() + node, Switch: topology.PodSwitchName(n, node)}
	e.Gateway = x.gateway(e.Switch)
	if sp, ok := x.ports[e.Port]; ok {
		for _, a := range sp.Addresses {
			if mac, ips := macIPs(a); len(ips) > 0 {
				e.MAC, e.IPs = mac, ips
				return e, true
			}
		}
		return e, false
	}
	if n.Topology != udn.TopologyLayer3 {
		return e, false
	}
	subs, _ := c.HostSubnets(n.Name, node)
	for _, s := range subs {
		if mp, err := ipam.ManagementIP(s); err == nil {
			e.IPs = append(e.IPs, mp.Addr())
		}
	}
	if len(e.IPs) == 0 {
		return e, false
	}
	sortIPs(e.IPs)
	e.MAC = ipam.MACFromIP(e.IPs[0]).String()
	return e, true
}

// sortIPs puts IPv4 addresses first, keeping the order otherwise.
func sortIPs(ips []netip.Addr) {
	slices.SortStableFunc(ips, func(a, b netip.Addr) int {
		switch {
		case a.Is4() && !b.Is4():
			return -1
		case !a.Is4() && b.Is4():
			return 1
		}
		return 0
	})
}

// podEndpoints are the manifests' pods on network n, by their
// k8s.ovn.org/pod-networks as the Cluster holds it.
func podEndpoints(c *udnkit.Cluster, n *udn.Network, refs []PodRef, x stateIndex) ([]Endpoint, error) {
	var out []Endpoint
	for _, r := range refs {
		v, err := c.PodAnnotation(r.Namespace, r.Name)
		if err != nil || v == "" {
			continue // not attached (host network, not scheduled)
		}
		nets, err := netconf.ParsePodNetworks(v)
		if err != nil {
			return nil, fmt.Errorf("pod %s/%s: %s: %w", r.Namespace, r.Name, netconf.AnnotationPodNetworks, err)
		}
		for _, nad := range slices.Sorted(maps.Keys(nets)) {
			pn := nets[nad]
			if pn.Role != netconf.PodRolePrimary || !slices.Contains(n.NADs, nad) {
				continue
			}
			e := Endpoint{Network: n.Name, Node: r.Node, Pod: r.Namespace + "/" + r.Name,
				Port: pods.PortName(r.Namespace, r.Name, nad), Switch: topology.PodSwitchName(n, r.Node), MAC: pn.MAC.String()}
			for _, ip := range pn.IPs {
				e.IPs = append(e.IPs, ip.Addr())
			}
			sortIPs(e.IPs)
			e.Gateway = x.gateway(e.Switch)
			out = append(out, e)
		}
	}
	return out, nil
}

// macIPs splits an LSP address "MAC IP [IP...]" into the MAC and the
// addresses, IPv4 first.
func macIPs(a string) (string, []netip.Addr) {
	f := strings.Fields(a)
	if len(f) < 2 {
		return "", nil
	}
	var ips []netip.Addr
	for _, s := range f[1:] {
		if ip, err := netip.ParseAddr(s); err == nil {
			ips = append(ips, ip)
		}
	}
	sortIPs(ips)
	return f[0], ips
}
