package udnkit

import (
	"fmt"
	"maps"
	"net/netip"
	"slices"

	"github.com/udnkit/udnkit/ipam"
	"github.com/udnkit/udnkit/netconf"
	"github.com/udnkit/udnkit/netconf/udn"
	"github.com/udnkit/udnkit/topology"
)

// AddUDN validates u, allocates its network and returns the normalised
// network, ID set. Adding the same UDN again returns the same network.
func (s *Cluster) AddUDN(u *netconf.UserDefinedNetwork) (*udn.Network, error) {
	n, _, err := s.SetUDN(u)
	return n, err
}

// SetUDN is AddUDN returning the Event to hand PlanEvent.
func (s *Cluster) SetUDN(u *netconf.UserDefinedNetwork) (*udn.Network, Event, error) {
	n, err := netconf.NetworkFromUDN(u)
	if err != nil {
		return nil, Event{}, err
	}
	return s.add(n, &network{udn: u.Namespace + "/" + u.Name, namespaces: []string{u.Namespace}})
}

// AddCUDN validates c, allocates its network and returns the normalised
// network, ID and VRF name set. The namespaces it serves are those of the
// namespaces known (SetNamespace) that its selector picks.
func (s *Cluster) AddCUDN(c *netconf.ClusterUserDefinedNetwork) (*udn.Network, error) {
	n, _, err := s.SetCUDN(c)
	return n, err
}

// SetCUDN is AddCUDN returning the Event to hand PlanEvent.
func (s *Cluster) SetCUDN(c *netconf.ClusterUserDefinedNetwork) (*udn.Network, Event, error) {
	if c == nil {
		return nil, Event{}, fmt.Errorf("%w: %s is nil", netconf.ErrInvalidSpec, netconf.KindCUDN)
	}
	name := netconf.CUDNNetworkName(c.Name)
	s.mu.Lock()
	id, err := s.networkID(name)
	spaces := s.namespaceList()
	s.mu.Unlock()
	if err != nil {
		return nil, Event{}, err
	}
	release := func() {
		s.mu.Lock()
		if _, added := s.networks[name]; !added { // by now, or by another call meanwhile
			s.ids.Release(name)
		}
		s.mu.Unlock()
	}
	n, err := netconf.NetworkFromCUDN(c, id)
	if err != nil {
		release()
		return nil, Event{}, err
	}
	selected, err := netconf.SelectNamespaces(c, spaces)
	if err != nil {
		release()
		return nil, Event{}, err
	}
	n, ev, err := s.add(n, &network{cudn: c.DeepCopy(), namespaces: selected})
	if err != nil {
		release()
	}
	return n, ev, err
}

// networkID returns the ID the network called name has: held, stored
// (Restore) or newly allocated.
func (s *Cluster) networkID(name string) (int, error) {
	if id, ok := s.ids.Lookup(name); ok {
		return id, nil
	}
	if st := s.stored; st != nil {
		if id, ok := st.networkIDs[name]; ok {
			return id, s.ids.Reserve(name, id)
		}
	}
	return s.ids.Allocate(name)
}

// Add allocates a normalised network (from a parsed NAD, say): its ID when
// n.ID is 0 (n.ID is reserved otherwise), its tunnel keys and its nodes'
// host subnets. It returns the network as held, a copy of n with the ID set.
// Adding a network of a known name again returns the held network when it
// is the same, an error wrapping ipam.ErrConflict when it differs.
func (s *Cluster) Add(n *udn.Network) (*udn.Network, error) {
	n, _, err := s.add(n, &network{})
	return n, err
}

func (s *Cluster) add(n *udn.Network, nw *network) (*udn.Network, Event, error) {
	if n == nil {
		return nil, Event{}, fmt.Errorf("network: %w: nil", topology.ErrInvalid)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if held, ok := s.networks[n.Name]; ok {
		if c := n.Clone(); c.ID == 0 || c.ID == held.n.ID {
			c.ID = held.n.ID
			if c.Equal(held.n) {
				if nw.cudn != nil || nw.udn != "" { // the source may select other namespaces now
					held.cudn, held.udn, held.namespaces = nw.cudn, nw.udn, nw.namespaces
					s.readmitAll()
				}
				return held.n.Clone(), Event{Kind: EventNetworkSet, Network: n.Name}, nil
			}
		}
		return nil, Event{}, fmt.Errorf("%s: %w: a different network of this name is already added (%s)", n, ipam.ErrConflict, held.n)
	}
	if err := netconf.CheckCluster(n, s.cfg.DefaultNetwork); err != nil {
		return nil, Event{}, err
	}
	n = n.Clone()
	var err error
	if n.ID == 0 {
		n.ID, err = s.networkID(n.Name)
	} else if id, ok := s.ids.Lookup(n.Name); !ok || id != n.ID {
		if owner, taken := s.ids.Owner(n.ID); taken && owner != n.Name {
			err = fmt.Errorf("%w: network %q has it", ipam.ErrConflict, owner)
		} else {
			err = s.ids.Reserve(n.Name, n.ID)
		}
	}
	if err != nil {
		return nil, Event{}, fmt.Errorf("%s: network ID: %w", n, err)
	}
	nw.n = n
	nw.hostSubnets = map[string][]netip.Prefix{}
	err = s.checkPrimaries(nw)
	if err == nil {
		err = s.allocate(nw)
	}
	if err != nil {
		s.release(nw)
		return nil, Event{}, err
	}
	s.networks[n.Name] = nw
	s.readmitAll()
	return n.Clone(), Event{Kind: EventNetworkSet, Network: n.Name}, nil
}

// allocate takes nw's tunnel keys and its nodes' host subnets, the stored
// ones first.
func (s *Cluster) allocate(nw *network) error {
	n := nw.n
	if n.Topology == udn.TopologyLayer2 {
		count := 1
		if n.IsPrimary() {
			count = ipam.Layer2TunnelKeys
		}
		var keys []int
		var err error
		if stored := s.storedKeys(n.Name); stored != nil {
			keys, err = stored, s.keys.Reserve(n.Name, stored...)
			if err == nil {
				err = ipam.CheckNetworkTunnelKeys(n.ID, keys)
			}
			if err == nil && len(keys) != count {
				err = fmt.Errorf("%w: %d stored, the network takes %d", ipam.ErrConflict, len(keys), count)
			}
		} else {
			keys, err = s.keys.AllocateForNetwork(n.Name, n.ID, count)
		}
		if err != nil {
			return fmt.Errorf("%s: tunnel keys: %w", n, err)
		}
		nw.tunnelKeys = keys
	}
	if err := masqueradeRoom(n, s.cfg.Cluster.MasqueradeSubnets); err != nil {
		return err
	}
	for _, name := range slices.Sorted(maps.Keys(s.nodes)) {
		if err := topology.NodeFits(n, s.nodes[name], s.cfg.Profile); err != nil {
			return err
		}
	}
	if n.Topology != udn.TopologyLayer3 {
		return nil
	}
	ranges := make([]ipam.HostSubnetRange, len(n.Subnets))
	for i, sub := range n.Subnets {
		ranges[i] = ipam.HostSubnetRange{CIDR: sub.CIDR, HostPrefix: sub.HostPrefix}
	}
	a, err := ipam.NewHostSubnetAllocator(n.Name, ranges)
	if err != nil {
		return fmt.Errorf("%s: host subnets: %w", n, err)
	}
	nw.subnets = a
	names := slices.Sorted(maps.Keys(s.nodes))
	if st := s.stored; st != nil { // what the nodes store, before anything new
		for _, node := range names {
			if subnets := st.hostSubnets[node][n.Name]; len(subnets) > 0 {
				if err := a.Restore(node, subnets...); err != nil {
					return fmt.Errorf("%s: node %q: stored host subnets %v: %w", n, node, subnets, err)
				}
				nw.hostSubnets[node] = slices.Clone(subnets)
			}
		}
	}
	for _, node := range names {
		if _, ok := nw.hostSubnets[node]; ok {
			continue
		}
		if err := s.allocateNode(nw, node); err != nil {
			return err
		}
	}
	return nil
}

// storedKeys returns the tunnel keys stored for a network, or nil.
func (s *Cluster) storedKeys(name string) []int {
	if s.stored == nil {
		return nil
	}
	return s.stored.tunnelKeys[name]
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

func (s *Cluster) allocateNode(nw *network, node string) error {
	if nw.subnets == nil {
		return nil
	}
	if st := s.stored; st != nil {
		if subnets := st.hostSubnets[node][nw.n.Name]; len(subnets) > 0 {
			if err := nw.subnets.Restore(node, subnets...); err != nil {
				return fmt.Errorf("%s: node %q: stored host subnets %v: %w", nw.n, node, subnets, err)
			}
			nw.hostSubnets[node] = slices.Clone(subnets)
			return nil
		}
	}
	got, err := nw.subnets.Allocate(node)
	if err != nil {
		return fmt.Errorf("%s: node %q: host subnets: %w", nw.n, node, err)
	}
	nw.hostSubnets[node] = got
	return nil
}

// release frees what was allocated for nw.
func (s *Cluster) release(nw *network) {
	s.ids.Release(nw.n.Name)
	s.keys.Release(nw.n.Name)
}

// Remove forgets the network called name and frees its ID, keys and host
// subnets; removing an unknown network is a no-op. PlanEvent of the Event
// gives the rows to delete (topology.Diff(observed, topology.Removal(name))
// without the facade).
func (s *Cluster) Remove(name string) Event {
	s.mu.Lock()
	defer s.mu.Unlock()
	nw, ok := s.networks[name]
	if !ok {
		return Event{}
	}
	s.release(nw)
	delete(s.networks, name)
	s.dropNetworkFromPods(name)
	s.readmitAll()
	return Event{Kind: EventNetworkRemoved, Network: name}
}

// Names returns the names of the added networks, sorted.
func (s *Cluster) Names() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Sorted(maps.Keys(s.networks))
}

// Network returns the network called name, as held.
func (s *Cluster) Network(name string) (*udn.Network, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	nw, ok := s.networks[name]
	if !ok {
		return nil, false
	}
	return nw.n.Clone(), true
}

// HostSubnets returns a Layer3 network's subnets of a node.
func (s *Cluster) HostSubnets(network, node string) ([]netip.Prefix, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	nw, ok := s.networks[network]
	if !ok {
		return nil, false
	}
	sub, ok := nw.hostSubnets[node]
	return slices.Clone(sub), ok
}

// Input returns the planner input of the network called name for zone:
// the ready nodes, their host subnets, the network's keys, the settings.
func (s *Cluster) Input(name, zone string) (topology.Input, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	nw, ok := s.networks[name]
	if !ok {
		return topology.Input{}, fmt.Errorf("network %q: %w", name, ErrUnknownNetwork)
	}
	return s.input(nw, zone, s.nodeList(true)), nil
}

func (s *Cluster) input(nw *network, zone string, nodes []topology.Node) topology.Input {
	in := topology.Input{Network: nw.n.Clone(), Nodes: nodes, Zone: zone,
		TunnelKeys: slices.Clone(nw.tunnelKeys), Cluster: s.cfg.Cluster, Profile: s.cfg.Profile}
	if nw.subnets != nil {
		in.HostSubnets = make(map[string][]netip.Prefix, len(nodes))
		for _, nd := range nodes {
			if subnets, ok := nw.hostSubnets[nd.Name]; ok {
				in.HostSubnets[nd.Name] = slices.Clone(subnets)
			}
		}
	}
	return in
}
