package udnkit

import (
	"cmp"
	"fmt"
	"maps"
	"reflect"
	"slices"

	equality "k8s.io/apimachinery/pkg/api/equality"

	"github.com/udnkit/udnkit/connect"
	"github.com/udnkit/udnkit/ipam"
	"github.com/udnkit/udnkit/netconf/udn"
	"github.com/udnkit/udnkit/topology"
)

// connection is one ClusterNetworkConnect and what was allocated for it.
type connection struct {
	c          *connect.ClusterNetworkConnect
	acceptance connect.Acceptance
	alloc      *connect.Allocator // nil while not accepted
	allocation connect.Allocation
}

// SetConnect adds or updates a ClusterNetworkConnect: it is validated and
// admitted against the cluster's networks, namespaces and other connects
// (connect.Accept), and, once accepted, its tunnel key (from the tunnel
// keys the networks take theirs from) and connect subnets are allocated,
// the stored ones (Restore) first. The Acceptance is its Accepted
// condition; a connect that is not accepted is held, plans no rows and is
// admitted again whenever the networks change.
func (s *Cluster) SetConnect(c *connect.ClusterNetworkConnect) (connect.Acceptance, Event, error) {
	if c == nil {
		return connect.Acceptance{}, Event{}, fmt.Errorf("%w: %s is nil", connect.ErrInvalid, connect.Kind)
	}
	if errs := connect.Validate(c); len(errs) > 0 {
		return connect.Acceptance{}, Event{}, fmt.Errorf("%s %q: %w: %w", connect.Kind, c.Name, connect.ErrInvalid, errs.ToAggregate())
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	cn := s.connects[c.Name]
	if cn == nil {
		cn = &connection{}
		s.connects[c.Name] = cn
	} else if !equalConnectSpec(cn.c, c) && cn.alloc != nil {
		cn.alloc.Release() // the subnets follow the new spec
		cn.alloc = nil
	}
	cn.c = c.DeepCopy()
	s.admit(cn)
	// Of overlapping connects only the later is refused (seed 001): this one
	// may now refuse one admitted before it, so every connect is admitted
	// again (PlanEvent of a connect event plans them all).
	s.readmitAll()
	return cn.acceptance, Event{Kind: EventConnectSet, Connect: c.Name}, nil
}

func equalConnectSpec(a, b *connect.ClusterNetworkConnect) bool {
	return a != nil && b != nil && equality.Semantic.DeepEqual(a.Spec, b.Spec)
}

// admit (re)computes a connect's acceptance and allocation.
func (s *Cluster) admit(cn *connection) {
	var others []*connect.ClusterNetworkConnect
	for _, name := range slices.Sorted(maps.Keys(s.connects)) {
		if o := s.connects[name]; o != cn && o.alloc != nil {
			others = append(others, o.c)
		}
	}
	maxNodeID := 0
	for _, nd := range s.nodes {
		maxNodeID = max(maxNodeID, nd.ID)
	}
	acc := connect.Accept(cn.c, connect.Cluster{Networks: s.connectNetworks(), Namespaces: s.namespaceList(),
		ServiceCIDRs: s.cfg.DefaultNetwork.ServiceCIDRs, MasqueradeSubnets: s.cfg.Cluster.MasqueradeSubnets,
		MaxNodeID: maxNodeID, Connects: others, Profile: s.cfg.Profile})
	cn.acceptance = acc
	if !acc.Accepted() {
		if cn.alloc != nil {
			cn.alloc.Release()
			cn.alloc, cn.allocation = nil, connect.Allocation{}
		}
		return
	}
	if cn.alloc == nil {
		a, err := connect.NewAllocator(cn.c, s.keys)
		if err != nil {
			cn.acceptance = failed(acc, err)
			return
		}
		if st := s.stored; st != nil {
			if al, ok := st.connects[cn.c.Name]; ok {
				if err := a.Restore(al); err != nil {
					a.Release()
					cn.acceptance = failed(acc, fmt.Errorf("stored allocation: %w", err))
					return
				}
			}
		}
		cn.alloc = a
	}
	al, err := cn.alloc.Allocate(selectedNetworks(acc))
	if err != nil {
		cn.acceptance = failed(acc, err)
		return
	}
	cn.allocation = al
}

// failed turns an acceptance into a refusal for an allocation error.
func failed(acc connect.Acceptance, err error) connect.Acceptance {
	acc.Condition.Status = "False"
	acc.Condition.Reason = connect.ReasonConnectSubnetExhausted
	acc.Condition.Message = err.Error()
	return acc
}

func selectedNetworks(acc connect.Acceptance) []*udn.Network {
	out := make([]*udn.Network, len(acc.Networks))
	for i, m := range acc.Networks {
		out[i] = m.Network
	}
	return out
}

// RemoveConnect forgets a ClusterNetworkConnect and frees its tunnel key
// and subnets.
func (s *Cluster) RemoveConnect(name string) Event {
	s.mu.Lock()
	defer s.mu.Unlock()
	cn, ok := s.connects[name]
	if !ok {
		return Event{}
	}
	if cn.alloc != nil {
		cn.alloc.Release()
	}
	delete(s.connects, name)
	s.readmitAll() // one it overlapped may be admitted now
	return Event{Kind: EventConnectRemoved, Connect: name}
}

// Connect returns a connect's acceptance and allocation.
func (s *Cluster) Connect(name string) (connect.Acceptance, connect.Allocation, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	cn, ok := s.connects[name]
	if !ok {
		return connect.Acceptance{}, connect.Allocation{}, false
	}
	return cn.acceptance, cn.allocation, true
}

// readmitAll admits every connect again (the networks, namespaces, nodes
// or connects changed), the oldest first (creation time, then name): of
// overlapping connects only the later is refused (seed 001), so each is
// checked against the older ones as admitted in this pass. It returns those
// whose acceptance or allocation changed.
func (s *Cluster) readmitAll() []string {
	var changed []string
	names := slices.SortedFunc(maps.Keys(s.connects), func(a, b string) int {
		ta, tb := s.connects[a].c.CreationTimestamp.Time, s.connects[b].c.CreationTimestamp.Time
		return cmp.Or(ta.Compare(tb), cmp.Compare(a, b))
	})
	for _, name := range names {
		cn := s.connects[name]
		cond, alloc := cn.acceptance.Condition, cn.allocation
		s.admit(cn)
		if !equality.Semantic.DeepEqual(cond, cn.acceptance.Condition) || !reflect.DeepEqual(alloc, cn.allocation) {
			changed = append(changed, name)
		}
	}
	slices.Sort(changed)
	return changed
}

// planConnect plans one accepted connect for a zone.
func (s *Cluster) planConnect(cn *connection, zone string, nodes []topology.Node) (topology.State, error) {
	return connect.Plan(s.connectInput(cn, zone, nodes))
}

// primaryLink is one link between a set of primary networks.
type primaryLink struct {
	name     string
	networks []*udn.Network
}

// primaryLinks returns the links the namespaces with several primary
// networks need, by name: a namespace's own name when one of its networks
// is a UDN, else the network name of the set's CUDN with the lowest ID
// (connect.PrimaryLinksInput).
func (s *Cluster) primaryLinks() map[string]primaryLink {
	byNamespace := map[string][]*network{}
	for _, name := range slices.Sorted(maps.Keys(s.networks)) {
		nw := s.networks[name]
		if !nw.n.IsPrimary() {
			continue
		}
		for _, ns := range nw.namespaces {
			byNamespace[ns] = append(byNamespace[ns], nw)
		}
	}
	out := map[string]primaryLink{}
	inLink := map[string]string{} // network → the link that has it
	for _, ns := range slices.Sorted(maps.Keys(byNamespace)) {
		nws := byNamespace[ns]
		slices.SortFunc(nws, func(a, b *network) int { return cmp.Compare(a.n.ID, b.n.ID) })
		// A network that overlaps one of lower ID in the namespace, or that
		// another namespace's link already has, is left out: a link routes
		// by destination subnet, and its pairs follow the network IDs.
		var kept []*network
		for _, nw := range nws {
			if slices.ContainsFunc(kept, func(k *network) bool { return overlaps(k.n, nw.n) }) {
				continue
			}
			kept = append(kept, nw)
		}
		if len(kept) < 2 {
			continue
		}
		name := ns
		if !slices.ContainsFunc(kept, func(nw *network) bool { return nw.udn != "" }) {
			name = kept[0].n.Name // the lowest ID
		}
		if _, ok := out[name]; ok { // the same CUDNs serve another namespace
			continue
		}
		link := primaryLink{name: name}
		for _, nw := range kept {
			if other, ok := inLink[nw.n.Name]; ok && other != name {
				continue
			}
			link.networks = append(link.networks, nw.n)
		}
		if len(link.networks) < 2 {
			continue
		}
		for _, n := range link.networks {
			inLink[n.Name] = name
		}
		out[name] = link
	}
	return out
}

// overlaps reports whether two networks share an address.
func overlaps(a, b *udn.Network) bool {
	for _, x := range a.Subnets {
		for _, y := range b.Subnets {
			if x.CIDR.Overlaps(y.CIDR) {
				return true
			}
		}
	}
	return false
}

// checkPrimaries refuses a primary network that overlaps another primary
// network of one of its namespaces (seed 002: a namespace's primary
// networks are linked and routed by subnet).
func (s *Cluster) checkPrimaries(nw *network) error {
	if !nw.n.IsPrimary() {
		return nil
	}
	for _, name := range slices.Sorted(maps.Keys(s.networks)) {
		other := s.networks[name]
		if name == nw.n.Name || !other.n.IsPrimary() || !overlaps(nw.n, other.n) {
			continue
		}
		for _, ns := range nw.namespaces {
			if slices.Contains(other.namespaces, ns) {
				return fmt.Errorf("%s: %w: its subnets overlap those of network %q, another primary network of namespace %q (seed 002)",
					nw.n, ipam.ErrConflict, name, ns)
			}
		}
	}
	return nil
}

func (s *Cluster) planLink(l primaryLink, zone string, nodes []topology.Node) (topology.State, error) {
	return connect.PlanPrimaryLinks(connect.PrimaryLinksInput{Name: l.name, Networks: l.networks, Nodes: nodes,
		Zone: zone, Subnets: s.cfg.PrimaryLinkSubnets, MasqueradeSubnets: s.cfg.Cluster.MasqueradeSubnets})
}

// linkNames returns the link names sorted.
func linkNames(links map[string]primaryLink) []string { return slices.Sorted(maps.Keys(links)) }
