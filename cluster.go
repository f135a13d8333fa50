package udnkit

import (
	"cmp"
	"fmt"
	"maps"
	"net/netip"
	"slices"
	"sync"

	"github.com/udnkit/udnkit/connect"
	"github.com/udnkit/udnkit/internal/sdkerr"
	"github.com/udnkit/udnkit/ipam"
	"github.com/udnkit/udnkit/netconf"
	"github.com/udnkit/udnkit/netconf/udn"
	"github.com/udnkit/udnkit/topology"
	"github.com/udnkit/udnkit/topology/policy"
	"github.com/udnkit/udnkit/topology/services"
)

// Config is the cluster's settings, given once: every planner the Cluster
// runs takes them from here.
type Config struct {
	// Nodes are the cluster's nodes at the start (AddNode adds more). A
	// node's ID is allocated when it is 0 and reserved otherwise.
	Nodes []topology.Node
	// Cluster holds the cluster-wide settings the planners take.
	Cluster topology.Cluster
	// Profile selects the seeds' design (the default) or the reference
	// implementation's wire format.
	Profile udn.Profile
	// DefaultNetwork is what the default network already uses (its cluster
	// subnets, the service CIDRs, the cluster's families): a network that
	// overlaps them is refused (netconf.CheckCluster), and its service
	// CIDRs are what connects and pods route to. Its masquerade and join
	// subnets are Cluster's MasqueradeSubnets and DefaultNetworkJoinSubnets:
	// set either field of each pair (when both are set they must be equal;
	// New refuses them otherwise).
	DefaultNetwork netconf.Cluster
	// PrimaryLinkSubnets are the blocks the links between a namespace's
	// primary networks take their pairs from (seed 002);
	// connect.DefaultPrimaryLinkSubnets when empty.
	PrimaryLinkSubnets []netip.Prefix
	// Policy holds the network policy settings.
	Policy PolicyOptions
}

// Cluster is the one place a controller keeps what every planner of a
// cluster shares: the settings and profile, the nodes, and every
// allocator — network and node IDs, host subnets, the tunnel keys of
// Layer2 networks and connect routers, connect subnets. Networks
// (UserDefinedNetworks, ClusterUserDefinedNetworks, parsed NADs),
// ClusterNetworkConnects and namespaces are added to it; Plan returns the
// desired state of a zone, PlanEvent just what one change alters there.
//
// A restarting controller calls Restore with what the cluster stores (the
// annotations Annotations returned before) before adding anything, and
// EndRestore once everything that still exists has been added: nothing is
// renumbered.
//
// Nodes come and go: a node that is not ready yet (no chassis, address or
// next hop) keeps its allocations but is left out of every plan (NotReady
// says why), so the other zones plan. Cluster is safe for concurrent use.
type Cluster struct {
	mu       sync.Mutex
	cfg      Config
	nodes    map[string]topology.Node
	nodeIDs  *ipam.IDAllocator
	ids      *ipam.IDAllocator
	keys     *ipam.TunnelKeyAllocator
	networks map[string]*network
	spaces   map[string]netconf.Namespace
	connects map[string]*connection
	pods     map[string]*podEntry // "<namespace>/<name>"
	pools    map[poolKey]*ipam.PodIPAllocator
	portKeys map[string]*portKeys        // Layer2 network → pod port tunnel keys
	services map[string]services.Service // "<namespace>/<name>"
	policies map[string]policy.Policy    // "<namespace>/<name>"
	egress   egressState                 // EgressIPs, EgressQoS, egress nodes (cluster_egress.go)
	planned  map[string]*zonePlan
	stored   *stored // between Restore and EndRestore
	// defaultSubnets are the default network's entries of the nodes'
	// node-subnets annotations (Restore): not the Cluster's, written back
	// with its own so that a patch of the annotation loses nothing.
	defaultSubnets map[string][]netip.Prefix
}

// Networks is the name the Cluster had when it planned networks only.
type Networks = Cluster

// network is one added network and what was allocated for it.
type network struct {
	n           *udn.Network
	cudn        *netconf.ClusterUserDefinedNetwork // nil for a UDN or a NAD
	udn         string                             // "<namespace>/<name>" of a UDN
	namespaces  []string                           // the namespaces it serves, sorted
	subnets     *ipam.HostSubnetAllocator          // Layer3 only
	tunnelKeys  []int                              // Layer2 only
	hostSubnets map[string][]netip.Prefix
}

// ErrUnknownNetwork is returned by Input for a network that was never added.
var ErrUnknownNetwork = sdkerr.New(sdkerr.NotFound, "unknown network")

// ErrZoneNotReady is returned by Plan and PlanEvent for a zone without a
// ready node.
var ErrZoneNotReady = sdkerr.New(sdkerr.Unavailable, "zone has no ready node")

// New returns a Cluster for the nodes and settings of cfg, with no network.
func New(cfg Config) (*Cluster, error) {
	if err := cfg.Cluster.Validate(); err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	for _, f := range []struct {
		what   string
		dn, cl *[]netip.Prefix
	}{
		{"masquerade subnets", &cfg.DefaultNetwork.MasqueradeSubnets, &cfg.Cluster.MasqueradeSubnets},
		{"default network join subnets", &cfg.DefaultNetwork.JoinSubnets, &cfg.Cluster.DefaultNetworkJoinSubnets},
	} {
		switch {
		case len(*f.dn) == 0:
			*f.dn = *f.cl
		case len(*f.cl) == 0:
			*f.cl = *f.dn
		case !slices.Equal(*f.dn, *f.cl):
			return nil, fmt.Errorf("%s: %w: Config.DefaultNetwork has %v, Config.Cluster %v: the planner would use other subnets than the networks are checked against",
				f.what, topology.ErrInvalid, *f.dn, *f.cl)
		}
	}
	s := &Cluster{cfg: cfg, nodes: map[string]topology.Node{}, nodeIDs: ipam.NewNodeIDAllocator(),
		ids: ipam.NewNetworkIDAllocator(), keys: ipam.NewTunnelKeyAllocator(), networks: map[string]*network{},
		spaces: map[string]netconf.Namespace{}, connects: map[string]*connection{}, planned: map[string]*zonePlan{},
		pods: map[string]*podEntry{}, pools: map[poolKey]*ipam.PodIPAllocator{}, portKeys: map[string]*portKeys{},
		services: map[string]services.Service{}, policies: map[string]policy.Policy{}}
	s.cfg.Nodes = nil
	for _, nd := range cfg.Nodes {
		if _, dup := s.nodes[nd.Name]; dup {
			return nil, fmt.Errorf("nodes: node %q: %w: listed twice", nd.Name, topology.ErrInvalid)
		}
		if _, err := s.addNode(nd); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// Settings returns the configuration the Cluster plans with (its Nodes
// field empty: Nodes lists them).
func (s *Cluster) Settings() Config {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cfg
}

// Profile returns the profile the Cluster plans with.
func (s *Cluster) Profile() udn.Profile { return s.cfg.Profile }

// AddNode adds or updates a node: its ID is allocated when nd.ID is 0 (an
// updated node keeps the one it has) and reserved otherwise, and it gets a
// host subnet in every Layer3 network. When any of that fails, nothing
// changes. A node that is not ready (NotReady) is held but planned nowhere.
func (s *Cluster) AddNode(nd topology.Node) error {
	_, err := s.SetNode(nd)
	return err
}

// SetNode is AddNode returning the Event to hand PlanEvent.
func (s *Cluster) SetNode(nd topology.Node) (Event, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.addNode(nd)
}

func (s *Cluster) addNode(nd topology.Node) (Event, error) {
	if err := checkName(nd.Name); err != nil {
		return Event{}, err
	}
	old, known := s.nodes[nd.Name]
	if nd.ID == 0 && known {
		nd.ID = old.ID
	}
	if nd.ID == 0 {
		if st := s.stored; st != nil {
			nd.ID = st.nodeIDs[nd.Name]
		}
	}
	heldID, held := s.nodeIDs.Lookup(nd.Name)
	switch {
	case nd.ID == 0:
		id, err := s.nodeIDs.Allocate(nd.Name)
		if err != nil {
			return Event{}, fmt.Errorf("node %q: node ID: %w", nd.Name, err)
		}
		nd.ID = id
	case held && heldID == nd.ID:
	default:
		if owner, taken := s.nodeIDs.Owner(nd.ID); taken && owner != nd.Name {
			return Event{}, fmt.Errorf("node %q: node ID %d: %w: node %q has it", nd.Name, nd.ID, ipam.ErrConflict, owner)
		}
		if held {
			s.nodeIDs.Release(nd.Name)
		}
		if err := s.nodeIDs.Reserve(nd.Name, nd.ID); err != nil {
			if held {
				_ = s.nodeIDs.Reserve(nd.Name, heldID)
			}
			return Event{}, fmt.Errorf("node %q: node ID: %w", nd.Name, err)
		}
	}
	undo := func() {
		s.nodeIDs.Release(nd.Name)
		if held {
			_ = s.nodeIDs.Reserve(nd.Name, heldID)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(s.networks)) {
		if err := topology.NodeFits(s.networks[name].n, nd, s.cfg.Profile); err != nil {
			undo()
			return Event{}, err
		}
	}
	var added []*network
	for _, name := range slices.Sorted(maps.Keys(s.networks)) {
		nw := s.networks[name]
		if _, ok := nw.hostSubnets[nd.Name]; ok || nw.subnets == nil {
			continue
		}
		if err := s.allocateNode(nw, nd.Name); err != nil {
			for _, a := range added {
				a.subnets.Release(nd.Name)
				delete(a.hostSubnets, nd.Name)
			}
			undo()
			return Event{}, err
		}
		added = append(added, nw)
	}
	nd.Addresses = slices.Clone(nd.Addresses)
	nd.NextHops = slices.Clone(nd.NextHops)
	nd.MAC = slices.Clone(nd.MAC)
	s.nodes[nd.Name] = nd
	s.assignEgress() // a node may take or lose egress IPs
	ev := Event{Kind: EventNodeSet, Node: nd.Name, connects: s.readmitAll()}
	if known {
		ev.before = &old
	}
	return ev, nil
}

// RemoveNode removes the node called name and frees its node ID and host
// subnets, and nothing else. Removing an unknown node is a no-op.
func (s *Cluster) RemoveNode(name string) Event {
	s.mu.Lock()
	defer s.mu.Unlock()
	old, ok := s.nodes[name]
	if !ok {
		return Event{}
	}
	delete(s.nodes, name)
	delete(s.defaultSubnets, name)
	s.nodeIDs.Release(name)
	for _, nw := range s.networks {
		if nw.subnets != nil {
			nw.subnets.Release(name)
			delete(nw.hostSubnets, name)
		}
	}
	for k := range s.pools {
		if k.node == name {
			delete(s.pools, k)
		}
	}
	s.assignEgress() // its egress IPs move
	return Event{Kind: EventNodeRemoved, Node: name, before: &old, connects: s.readmitAll()}
}

// Nodes returns the nodes, ready or not, sorted by name.
func (s *Cluster) Nodes() []topology.Node {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.nodeList(false)
}

// nodeList returns the nodes sorted by name, the ready ones only when
// ready is set.
func (s *Cluster) nodeList(ready bool) []topology.Node {
	out := make([]topology.Node, 0, len(s.nodes))
	for _, nd := range s.nodes {
		if ready && notReady(nd) != "" {
			continue
		}
		out = append(out, nd)
	}
	slices.SortFunc(out, func(a, b topology.Node) int { return cmp.Compare(a.Name, b.Name) })
	return out
}

// NodeNotReady is a node the planners leave out, and why.
type NodeNotReady struct {
	Node   string
	Reason string
}

// NotReady returns the nodes that are held but planned nowhere yet, sorted
// by name, each with the reason a controller can report.
func (s *Cluster) NotReady() []NodeNotReady {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []NodeNotReady
	for _, nd := range s.nodeList(false) {
		if r := notReady(nd); r != "" {
			out = append(out, NodeNotReady{Node: nd.Name, Reason: r})
		}
	}
	return out
}

// notReady returns why a node cannot be planned yet, or "".
func notReady(nd topology.Node) string {
	switch {
	case nd.ID == 0:
		return "no node ID"
	case nd.Chassis == "":
		return "no chassis (k8s.ovn.org/node-chassis-id not set yet)"
	case len(nd.Addresses) == 0:
		return "no address on its external interface"
	case len(nd.NextHops) == 0:
		return "no next hop of its external network"
	}
	return ""
}

// SetNamespace adds or updates a namespace and its labels, which decide
// the namespaces a ClusterUserDefinedNetwork serves (added after it) and
// which networks a ClusterNetworkConnect selects, and its annotations,
// which the network policies read (k8s.ovn.org/acl-logging: one that does
// not parse is refused, naming the key; k8s.ovn.org/multicast-enabled). A
// change of the annotations alone is an event that replans only the
// namespace's policy rows.
func (s *Cluster) SetNamespace(ns netconf.Namespace) (Event, error) {
	if err := checkName(ns.Name); err != nil {
		return Event{}, fmt.Errorf("namespace: %w", err)
	}
	if _, err := policyNamespace(ns); err != nil {
		return Event{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	ns.Labels = maps.Clone(ns.Labels)
	ns.Annotations = maps.Clone(ns.Annotations)
	old, known := s.spaces[ns.Name]
	s.spaces[ns.Name] = ns
	if known && maps.Equal(old.Labels, ns.Labels) { // the annotations alone: the policies' concern
		return Event{Kind: EventNamespaceSet, Namespace: ns.Name, annotationsOnly: true}, nil
	}
	spaces := s.namespaceList()
	for _, name := range slices.Sorted(maps.Keys(s.networks)) {
		if nw := s.networks[name]; nw.cudn != nil {
			if selected, err := netconf.SelectNamespaces(nw.cudn, spaces); err == nil {
				nw.namespaces = selected
			}
		}
	}
	s.readmitAll()
	return Event{Kind: EventNamespaceSet, Namespace: ns.Name}, nil
}

// namespaceList returns the namespaces sorted by name: those set, and
// the namespace of every UDN, which exists though it was never set (with
// no labels but its name).
func (s *Cluster) namespaceList() []netconf.Namespace {
	all := maps.Clone(s.spaces)
	for _, nw := range s.networks {
		if nw.udn != "" {
			if _, ok := all[nw.namespaces[0]]; !ok {
				all[nw.namespaces[0]] = netconf.Namespace{Name: nw.namespaces[0]}
			}
		}
	}
	out := make([]netconf.Namespace, 0, len(all))
	for _, name := range slices.Sorted(maps.Keys(all)) {
		out = append(out, all[name])
	}
	return out
}

// connectNetworks returns the networks as connect sees them.
func (s *Cluster) connectNetworks() []connect.Network {
	out := make([]connect.Network, 0, len(s.networks))
	for _, name := range slices.Sorted(maps.Keys(s.networks)) {
		nw := s.networks[name]
		cn := connect.Network{Network: nw.n, UDN: nw.udn, Namespaces: slices.Clone(nw.namespaces)}
		if nw.cudn != nil {
			cn.CUDN = nw.cudn.Name
			cn.Labels = maps.Clone(nw.cudn.Labels)
		}
		out = append(out, cn)
	}
	return out
}
