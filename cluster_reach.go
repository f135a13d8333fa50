package udnkit

import (
	"fmt"
	"maps"
	"slices"

	"github.com/udnkit/udnkit/connect"
	"github.com/udnkit/udnkit/netconf/udn"
)

// Reach is what the Cluster means between the pods of two networks, before
// any network policy: what `udnkit verify` holds ovn-trace's verdicts to.
type Reach struct {
	// Connected reports that pods of the first network are meant to reach
	// pods of the second.
	Connected bool
	// Why says what decides it: "same network", "ClusterNetworkConnect X
	// (PodNetwork)", "primary networks of one namespace (link X)", "ClusterNetworkConnect
	// X (ClusterIPServiceNetwork only)" or "isolated".
	Why string
	// Via is the owner (topology.Owner.Network) of the rows that connect or
	// separate the two networks besides their own: the connect's name, the
	// primary link's name, or "".
	Via string
}

// Reach returns what the Cluster means between pods of network from and
// pods of network to: the same network, networks an accepted
// ClusterNetworkConnect with PodNetwork connectivity selects (seed 001), and
// the primary networks of one namespace (seed 002) are connected; every
// other pair, a service-only connect's included, is isolated. An unknown
// network is an ErrNotFound error.
func (s *Cluster) Reach(from, to string) (Reach, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, n := range []string{from, to} {
		if _, ok := s.networks[n]; !ok {
			return Reach{}, fmt.Errorf("network %q: %w", n, ErrNotFound)
		}
	}
	if from == to {
		return Reach{Connected: true, Why: "same network"}, nil
	}
	var serviceOnly string
	for _, name := range slices.Sorted(maps.Keys(s.connects)) {
		cn := s.connects[name]
		if cn.alloc == nil {
			continue
		}
		nets := selectedNetworks(cn.acceptance)
		if !slices.ContainsFunc(nets, func(n *udn.Network) bool { return n.Name == from }) ||
			!slices.ContainsFunc(nets, func(n *udn.Network) bool { return n.Name == to }) {
			continue
		}
		if slices.Contains(cn.c.Spec.ConnectivityEnabled, connect.PodNetwork) {
			return Reach{Connected: true, Why: connect.Kind + " " + name + " (PodNetwork)", Via: name}, nil
		}
		if serviceOnly == "" {
			serviceOnly = name
		}
	}
	links := s.primaryLinks()
	for _, name := range linkNames(links) {
		l := links[name]
		if slices.ContainsFunc(l.networks, func(n *udn.Network) bool { return n.Name == from }) &&
			slices.ContainsFunc(l.networks, func(n *udn.Network) bool { return n.Name == to }) {
			return Reach{Connected: true, Why: "primary networks of one namespace (link " + name + ")", Via: name}, nil
		}
	}
	if serviceOnly != "" {
		return Reach{Why: connect.Kind + " " + serviceOnly + " (ClusterIPServiceNetwork only)", Via: serviceOnly}, nil
	}
	return Reach{Why: "isolated"}, nil
}
