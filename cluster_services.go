package udnkit

import (
	"fmt"
	"maps"
	"slices"

	"github.com/udnkit/udnkit/connect"
	"github.com/udnkit/udnkit/topology"
	"github.com/udnkit/udnkit/topology/services"
)

// SetService adds or updates a Service with the EndpointSlices of its
// namespace's primary networks (package services/kube mirrors them). It is
// load-balanced on every primary network of its namespace (seed 002), its
// load balancers in the groups the connects and links give each network.
func (s *Cluster) SetService(svc services.Service) (Event, error) {
	if err := checkName(svc.Namespace); err != nil {
		return Event{}, fmt.Errorf("service: namespace: %w", err)
	}
	if err := checkName(svc.Name); err != nil {
		return Event{}, fmt.Errorf("service %s: name: %w", svc.Namespace, err)
	}
	key := svc.Namespace + "/" + svc.Name
	s.mu.Lock()
	defer s.mu.Unlock()
	s.services[key] = svc
	return Event{Kind: EventServiceSet, Service: key, Namespace: svc.Namespace}, nil
}

// RemoveService forgets a Service.
func (s *Cluster) RemoveService(namespace, name string) Event {
	key := namespace + "/" + name
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.services[key]; !ok {
		return Event{}
	}
	delete(s.services, key)
	return Event{Kind: EventServiceRemoved, Service: key, Namespace: namespace}
}

// peerGroups returns, per network, the load-balancer groups its Services'
// load balancers join besides its own: the other primaries' of a linked
// namespace and the other members' of connects with ClusterIP services.
func (s *Cluster) peerGroups() map[string][]string {
	out := map[string][]string{}
	for _, l := range s.primaryLinks() {
		for net, groups := range connect.PrimaryServiceGroups(l.networks) {
			out[net] = append(out[net], groups...)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(s.connects)) {
		cn := s.connects[name]
		if cn.alloc == nil {
			continue
		}
		for net, groups := range connect.ServiceGroups(cn.c, selectedNetworks(cn.acceptance)) {
			out[net] = append(out[net], groups...)
		}
	}
	for net, groups := range out {
		slices.Sort(groups)
		out[net] = slices.Compact(groups)
	}
	return out
}

// planServices plans the Services of one primary network for a zone.
func (s *Cluster) planServices(nw *network, zone string, nodes []topology.Node, peers map[string][]string) (topology.State, error) {
	in := services.Input{Network: nw.n, Nodes: nodes, Zone: zone, Cluster: s.cfg.Cluster, PeerGroups: peers[nw.n.Name]}
	for _, key := range slices.Sorted(maps.Keys(s.services)) {
		if svc := s.services[key]; slices.Contains(nw.namespaces, svc.Namespace) {
			in.Services = append(in.Services, svc)
		}
	}
	return services.Plan(in)
}

// servicesState plans the Services of every primary network.
func (s *Cluster) servicesState(prev topology.State, zone string, nodes []topology.Node) (topology.State, error) {
	peers := s.peerGroups()
	with := map[string]topology.State{}
	for _, sc := range prev.Scope(services.ControllerServices) {
		if nw, ok := s.networks[sc]; !ok || !nw.n.IsPrimary() {
			with[sc] = topology.RemovalFor(services.ControllerServices, sc)
		}
	}
	for _, nw := range s.networkList() {
		if !nw.n.IsPrimary() {
			continue
		}
		st, err := s.planServices(nw, zone, nodes, peers)
		if err != nil {
			return topology.State{}, err
		}
		with[nw.n.Name] = st
	}
	return prev.ReplaceEach(services.ControllerServices, with), nil
}

// serviceEvent plans again the Services of the primary networks of one
// namespace.
func (s *Cluster) serviceEvent(prev topology.State, zone, namespace string, nodes []topology.Node) (topology.State, error) {
	peers := s.peerGroups()
	next := prev
	for _, nw := range s.networkList() {
		if !nw.n.IsPrimary() || !slices.Contains(nw.namespaces, namespace) {
			continue
		}
		st, err := s.planServices(nw, zone, nodes, peers)
		if err != nil {
			return topology.State{}, err
		}
		next = next.Replace(services.ControllerServices, nw.n.Name, st)
	}
	return next, nil
}
