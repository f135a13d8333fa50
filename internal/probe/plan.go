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
	IP     netip.Addr
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
// networks, then, for a pod source or destination, c.Allows. Primary
// Layer3 and Layer2 networks are probed; a Layer2 network's management
// ports share an address, so without pods it is probed on the zone's
// nodes only.
func Probes(c *udnkit.Cluster, state topology.State, cfg Config) (*Plan, error) {
	p := &Plan{Config: cfg, Remote: map[string]RemotePort{}}
	nodes := c.Nodes()
	chassis := map[string]string{}
	for _, nd := range nodes {
		if nd.Chassis != "" {
			chassis[nd.Chassis] = nd.Name
		}
	}
	index := indexState(state)
	for port, rp := range index.remote {
		if n, ok := chassis[rp.Node]; ok {
			p.Remote[port] = RemotePort{Node: n, Owner: rp.Owner}
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
		if !from.Local || from.Gateway == "" && from.MAC == "" {
			continue
		}
		for _, to := range eps {
			if to.Port == from.Port && to.Node == from.Node {
				continue
			}
			if !to.IP.IsValid() || !from.IP.IsValid() || to.IP.Is4() != from.IP.Is4() {
				continue
			}
			in, err := intent(c, cfg, from, to)
			if err != nil {
				return nil, err
			}
			p.Probes = append(p.Probes, Probe{From: from, To: to, Intent: in})
		}
	}
	slices.SortStableFunc(p.Probes, func(a, b Probe) int {
		return cmp.Or(strings.Compare(a.From.Network, b.From.Network), strings.Compare(a.To.Network, b.To.Network),
			strings.Compare(a.From.String(), b.From.String()), strings.Compare(a.To.String(), b.To.String()))
	})
	return p, nil
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
}

func indexState(s topology.State) stateIndex {
	x := stateIndex{ports: map[string]topology.SwitchPort{}, routers: map[string]topology.RouterPort{}, remote: map[string]RemotePort{}}
	for o := range s.Objects() {
		switch o := o.(type) {
		case topology.SwitchPort:
			x.ports[o.Name] = o
			if ch, _ := o.Options.Get("requested-chassis"); ch != "" && o.Type == topology.PortRemote {
				x.remote[o.Name] = RemotePort{Node: ch, Owner: o.Owner.Network}
			}
		case topology.RouterPort:
			x.routers[o.Name] = o
			if ch, _ := o.Options.Get("requested-chassis"); ch != "" && o.Peer == "" {
				x.remote[o.Name] = RemotePort{Node: ch, Owner: o.Owner.Network}
			}
		}
	}
	return x
}

// gateway returns the MAC of the network's router port on sw: the
// cluster router's (rtos-) on a Layer3 node switch, the transit router's
// (trtos-) on a Layer2 switch.
func (x stateIndex) gateway(sw string) string {
	for _, name := range []string{"rtos-" + sw, "trtos-" + sw} {
		if rp, ok := x.routers[name]; ok {
			return rp.MAC
		}
	}
	return ""
}

// managementEndpoint is the network's management port on node: the
// planned port when the zone holds it, else (a Layer3 network's remote
// node) its address derived from the node's host subnet.
func managementEndpoint(c *udnkit.Cluster, n *udn.Network, node string, x stateIndex) (Endpoint, bool) {
	e := Endpoint{Network: n.Name, Node: node, Port: "k8s-" + n.Prefix() + node, Switch: topology.PodSwitchName(n, node)}
	e.Gateway = x.gateway(e.Switch)
	if sp, ok := x.ports[e.Port]; ok {
		for _, a := range sp.Addresses {
			mac, ip, ok := macIP(a)
			if ok {
				e.MAC, e.IP = mac, ip
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
		if mp, err := ipam.ManagementIP(s); err == nil && (s.Addr().Is4() || !e.IP.IsValid()) {
			e.IP, e.MAC = mp.Addr(), ipam.MACFromIP(mp.Addr()).String()
			if s.Addr().Is4() {
				break
			}
		}
	}
	return e, e.IP.IsValid()
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
				if ip.Addr().Is4() || !e.IP.IsValid() {
					e.IP = ip.Addr()
					if ip.Addr().Is4() {
						break
					}
				}
			}
			e.Gateway = x.gateway(e.Switch)
			out = append(out, e)
		}
	}
	return out, nil
}

// macIP splits an LSP address "MAC IP [IP...]" into the MAC and the
// first IPv4 address (else the first address).
func macIP(a string) (string, netip.Addr, bool) {
	f := strings.Fields(a)
	if len(f) < 2 {
		return "", netip.Addr{}, false
	}
	var ip netip.Addr
	for _, s := range f[1:] {
		if a, err := netip.ParseAddr(s); err == nil && (a.Is4() || !ip.IsValid()) {
			ip = a
			if a.Is4() {
				break
			}
		}
	}
	return f[0], ip, ip.IsValid()
}
