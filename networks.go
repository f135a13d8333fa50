package udnkit

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"net/netip"
	"slices"
	"sync"

	"github.com/udnkit/udnkit/ipam"
	"github.com/udnkit/udnkit/netconf"
	"github.com/udnkit/udnkit/netconf/udn"
	"github.com/udnkit/udnkit/topology"
)

// Config is what Networks needs besides the networks themselves.
type Config struct {
	// Nodes are the cluster's nodes, each with its node ID allocated.
	Nodes []topology.Node
	// Cluster holds the cluster-wide settings the planners take.
	Cluster topology.Cluster
	// Profile selects the seeds' design (the default) or the reference
	// implementation's wire format.
	Profile udn.Profile
	// DefaultNetwork is what the default network already uses (its cluster
	// subnets, the service CIDRs, the cluster's families): a network that
	// overlaps them is refused (netconf.CheckCluster). Its masquerade and
	// join subnets are Cluster's MasqueradeSubnets and
	// DefaultNetworkJoinSubnets: set either field of each pair (when both
	// are set they must be equal; New refuses them otherwise).
	DefaultNetwork netconf.Cluster
}

// Networks is the short path from UserDefinedNetworks and
// ClusterUserDefinedNetworks to planned OVN state. Adding a network
// validates and normalises it and allocates everything the planners need:
// its network ID, its tunnel keys (Layer2) and one host subnet per node and
// family (Layer3). Input and Plan then build the planner input of any zone.
//
// It is the common path written once; a controller that keeps its own
// allocators (restored from the cluster after a restart, say) uses ipam and
// topology directly, as this type does. Networks is safe for concurrent use.
type Networks struct {
	mu       sync.Mutex
	cfg      Config
	ids      *ipam.IDAllocator
	keys     *ipam.TunnelKeyAllocator
	networks map[string]*network
}

// network is one added network and what was allocated for it.
type network struct {
	n           *udn.Network
	subnets     *ipam.HostSubnetAllocator // Layer3 only
	tunnelKeys  []int                     // Layer2 only
	hostSubnets map[string][]netip.Prefix
}

// ErrUnknownNetwork is returned by Input for a network that was never added.
var ErrUnknownNetwork = errors.New("unknown network")

// New returns Networks for the nodes and settings of cfg, with no network.
func New(cfg Config) (*Networks, error) {
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
	cfg.Nodes = slices.Clone(cfg.Nodes)
	slices.SortFunc(cfg.Nodes, func(a, b topology.Node) int { return cmp.Compare(a.Name, b.Name) })
	for i := 1; i < len(cfg.Nodes); i++ {
		if cfg.Nodes[i].Name == cfg.Nodes[i-1].Name {
			return nil, fmt.Errorf("nodes: node %q: %w: listed twice", cfg.Nodes[i].Name, topology.ErrInvalid)
		}
	}
	return &Networks{cfg: cfg, ids: ipam.NewNetworkIDAllocator(), keys: ipam.NewTunnelKeyAllocator(),
		networks: map[string]*network{}}, nil
}

// AddUDN validates u, allocates its network and returns the normalised
// network, ID set. Adding the same UDN again returns the same network.
func (s *Networks) AddUDN(u *netconf.UserDefinedNetwork) (*udn.Network, error) {
	n, err := netconf.NetworkFromUDN(u)
	if err != nil {
		return nil, err
	}
	return s.Add(n)
}

// AddCUDN validates c, allocates its network and returns the normalised
// network, ID and VRF name set.
func (s *Networks) AddCUDN(c *netconf.ClusterUserDefinedNetwork) (*udn.Network, error) {
	if c == nil {
		return nil, fmt.Errorf("%w: %s is nil", netconf.ErrInvalidSpec, netconf.KindCUDN)
	}
	name := netconf.CUDNNetworkName(c.Name)
	s.mu.Lock()
	id, err := s.ids.Allocate(name)
	s.mu.Unlock()
	if err != nil {
		return nil, err
	}
	n, err := netconf.NetworkFromCUDN(c, id)
	if err == nil {
		n, err = s.Add(n)
	}
	if err != nil {
		s.mu.Lock()
		if _, added := s.networks[name]; !added { // by now, or by another call meanwhile
			s.ids.Release(name)
		}
		s.mu.Unlock()
		return nil, err
	}
	return n, nil
}

// Add allocates a normalised network (from a parsed NAD, say): its ID when
// n.ID is 0 (n.ID is reserved otherwise), its tunnel keys and its nodes'
// host subnets. It returns the network as held, a copy of n with the ID set.
// Adding a network of a known name again returns the held network when it
// is the same, an error wrapping ipam.ErrConflict when it differs.
func (s *Networks) Add(n *udn.Network) (*udn.Network, error) {
	if n == nil {
		return nil, fmt.Errorf("network: %w: nil", topology.ErrInvalid)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if held, ok := s.networks[n.Name]; ok {
		if c := n.Clone(); c.ID == 0 || c.ID == held.n.ID {
			c.ID = held.n.ID
			if c.Equal(held.n) {
				return held.n.Clone(), nil
			}
		}
		return nil, fmt.Errorf("%s: %w: a different network of this name is already added (%s)", n, ipam.ErrConflict, held.n)
	}
	if err := netconf.CheckCluster(n, s.cfg.DefaultNetwork); err != nil {
		return nil, err
	}
	n = n.Clone()
	var err error
	if n.ID == 0 {
		n.ID, err = s.ids.Allocate(n.Name)
	} else if id, ok := s.ids.Lookup(n.Name); !ok || id != n.ID {
		err = s.ids.Reserve(n.Name, n.ID)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: network ID: %w", n, err)
	}
	nw := &network{n: n, hostSubnets: map[string][]netip.Prefix{}}
	if err := s.allocate(nw); err != nil {
		s.release(nw)
		return nil, err
	}
	s.networks[n.Name] = nw
	return n.Clone(), nil
}

// allocate takes nw's tunnel keys and its nodes' host subnets.
func (s *Networks) allocate(nw *network) error {
	n := nw.n
	switch n.Topology {
	case udn.TopologyLayer2:
		count := 1
		if n.IsPrimary() {
			count = ipam.Layer2TunnelKeys
		}
		keys, err := s.keys.Allocate(n.Name, count)
		if err != nil {
			return fmt.Errorf("%s: tunnel keys: %w", n, err)
		}
		nw.tunnelKeys = keys
	}
	if err := masqueradeRoom(n, s.cfg.Cluster.MasqueradeSubnets); err != nil {
		return err
	}
	for _, nd := range s.cfg.Nodes {
		if err := topology.NodeFits(n, nd, s.cfg.Profile); err != nil {
			return err
		}
	}
	switch n.Topology {
	case udn.TopologyLayer3:
		ranges := make([]ipam.HostSubnetRange, len(n.Subnets))
		for i, sub := range n.Subnets {
			ranges[i] = ipam.HostSubnetRange{CIDR: sub.CIDR, HostPrefix: sub.HostPrefix}
		}
		a, err := ipam.NewHostSubnetAllocator(n.Name, ranges)
		if err != nil {
			return fmt.Errorf("%s: host subnets: %w", n, err)
		}
		nw.subnets = a
		for _, nd := range s.cfg.Nodes {
			if err := s.allocateNode(nw, nd.Name); err != nil {
				return err
			}
		}
	}
	return nil
}

// masqueradeRoom refuses a primary network that the cluster's masquerade
// subnets (default ipam.DefaultMasqueradeSubnets) cannot address as the
// planner derives it: a masquerade subnet of each of the network's
// families (else the error wraps netconf.ErrInvalidSpec), holding the
// masquerade addresses of the network's ID (ipam.NetworkMasqueradeIPs;
// else the error wraps ipam.ErrExhausted).
func masqueradeRoom(n *udn.Network, masq []netip.Prefix) error {
	if !n.IsPrimary() {
		return nil
	}
	if len(masq) == 0 {
		masq = ipam.DefaultMasqueradeSubnets()
	}
	for _, is4 := range []bool{true, false} {
		if !slices.ContainsFunc(n.Subnets, func(s udn.Subnet) bool { return s.CIDR.Addr().Is4() == is4 }) {
			continue
		}
		i := slices.IndexFunc(masq, func(m netip.Prefix) bool { return m.Addr().Is4() == is4 })
		if i < 0 {
			return fmt.Errorf("%s: %w: the cluster's masquerade subnets %v have none of the network's family (IPv4 %v)",
				n, netconf.ErrInvalidSpec, masq, is4)
		}
		if _, _, err := ipam.NetworkMasqueradeIPs(masq[i], n.ID); err != nil {
			return fmt.Errorf("%s: masquerade subnet %s: %w: no masquerade addresses for network ID %d (%v)",
				n, masq[i], ipam.ErrExhausted, n.ID, err)
		}
	}
	return nil
}

func (s *Networks) allocateNode(nw *network, node string) error {
	if nw.subnets == nil {
		return nil
	}
	got, err := nw.subnets.Allocate(node)
	if err != nil {
		return fmt.Errorf("%s: node %q: host subnets: %w", nw.n, node, err)
	}
	nw.hostSubnets[node] = got
	return nil
}

// release frees what was allocated for nw.
func (s *Networks) release(nw *network) {
	s.ids.Release(nw.n.Name)
	s.keys.Release(nw.n.Name)
}

// Remove forgets the network called name and frees its ID, keys and host
// subnets; removing an unknown network is a no-op. The rows to delete are
// topology.Diff(observed, topology.Removal(name)).
func (s *Networks) Remove(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if nw, ok := s.networks[name]; ok {
		s.release(nw)
		delete(s.networks, name)
	}
}

// AddNode adds a node (its ID allocated) and gives it a host subnet in every
// Layer3 network; when one is exhausted, none is given and nothing changes.
// Adding a node of a known name replaces it.
func (s *Networks) AddNode(nd topology.Node) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	i, found := slices.BinarySearchFunc(s.cfg.Nodes, nd.Name, func(a topology.Node, name string) int { return cmp.Compare(a.Name, name) })
	for _, name := range slices.Sorted(maps.Keys(s.networks)) {
		if err := topology.NodeFits(s.networks[name].n, nd, s.cfg.Profile); err != nil {
			return err
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
			return err
		}
		added = append(added, nw)
	}
	if found {
		s.cfg.Nodes[i] = nd
	} else {
		s.cfg.Nodes = slices.Insert(s.cfg.Nodes, i, nd)
	}
	return nil
}

// RemoveNode removes the node called name and frees its host subnets.
func (s *Networks) RemoveNode(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cfg.Nodes = slices.DeleteFunc(s.cfg.Nodes, func(n topology.Node) bool { return n.Name == name })
	for _, nw := range s.networks {
		if nw.subnets != nil {
			nw.subnets.Release(name)
			delete(nw.hostSubnets, name)
		}
	}
}

// Names returns the names of the added networks, sorted.
func (s *Networks) Names() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Sorted(maps.Keys(s.networks))
}

// Input returns the planner input of the network called name for zone.
func (s *Networks) Input(name, zone string) (topology.Input, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	nw, ok := s.networks[name]
	if !ok {
		return topology.Input{}, fmt.Errorf("network %q: %w", name, ErrUnknownNetwork)
	}
	return s.input(nw, zone), nil
}

func (s *Networks) input(nw *network, zone string) topology.Input {
	in := topology.Input{Network: nw.n.Clone(), Nodes: slices.Clone(s.cfg.Nodes), Zone: zone,
		TunnelKeys: slices.Clone(nw.tunnelKeys), Cluster: s.cfg.Cluster, Profile: s.cfg.Profile}
	if nw.subnets != nil {
		in.HostSubnets = make(map[string][]netip.Prefix, len(nw.hostSubnets))
		for node, subnets := range nw.hostSubnets {
			in.HostSubnets[node] = slices.Clone(subnets)
		}
	}
	return in
}

// Plan plans every added network for zone and returns their merged state.
func (s *Networks) Plan(zone string) (topology.State, error) {
	s.mu.Lock()
	inputs := make([]topology.Input, 0, len(s.networks))
	for _, name := range slices.Sorted(maps.Keys(s.networks)) {
		inputs = append(inputs, s.input(s.networks[name], zone))
	}
	s.mu.Unlock()
	states := make([]topology.State, 0, len(inputs))
	for _, in := range inputs {
		st, err := topology.Plan(in)
		if err != nil {
			return topology.State{}, err
		}
		states = append(states, st)
	}
	if len(states) == 0 {
		return topology.State{}, nil
	}
	return states[0].Merge(states[1:]...)
}
