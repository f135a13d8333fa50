package udnkit

import (
	"cmp"
	"fmt"
	"maps"
	"net/netip"
	"slices"
	"strconv"
	"strings"

	"github.com/udnkit/udnkit/connect"
	"github.com/udnkit/udnkit/internal/sdkerr"
	"github.com/udnkit/udnkit/netconf/udn"
	"github.com/udnkit/udnkit/topology"
	"github.com/udnkit/udnkit/topology/egressip"
	"github.com/udnkit/udnkit/topology/egressqos"
	"github.com/udnkit/udnkit/topology/pods"
	"github.com/udnkit/udnkit/topology/policy"
)

// EventKind says what changed in a Cluster.
type EventKind uint8

// Event kinds.
const (
	// EventNone is a call that changed nothing.
	EventNone EventKind = iota
	EventNodeSet
	EventNodeRemoved
	EventNetworkSet
	EventNetworkRemoved
	EventConnectSet
	EventConnectRemoved
	EventNamespaceSet
	EventPodSet
	EventPodRemoved
	EventServiceSet
	EventServiceRemoved
	EventPolicySet
	EventPolicyRemoved
	EventEgressIPSet
	EventEgressIPRemoved
	EventEgressNodeSet
	EventEgressQoSSet
	EventEgressQoSRemoved
)

// String returns the kind's name.
func (k EventKind) String() string {
	switch k {
	case EventNone:
		return "none"
	case EventNodeSet:
		return "node-set"
	case EventNodeRemoved:
		return "node-removed"
	case EventNetworkSet:
		return "network-set"
	case EventNetworkRemoved:
		return "network-removed"
	case EventConnectSet:
		return "connect-set"
	case EventConnectRemoved:
		return "connect-removed"
	case EventNamespaceSet:
		return "namespace-set"
	case EventPodSet:
		return "pod-set"
	case EventPodRemoved:
		return "pod-removed"
	case EventServiceSet:
		return "service-set"
	case EventServiceRemoved:
		return "service-removed"
	case EventPolicySet:
		return "policy-set"
	case EventPolicyRemoved:
		return "policy-removed"
	case EventEgressIPSet:
		return "egressip-set"
	case EventEgressIPRemoved:
		return "egressip-removed"
	case EventEgressNodeSet:
		return "egress-node-set"
	case EventEgressQoSSet:
		return "egressqos-set"
	case EventEgressQoSRemoved:
		return "egressqos-removed"
	}
	return "event(" + strconv.Itoa(int(k)) + ")"
}

// Event is one change to a Cluster, as its mutating calls return it: hand
// it to PlanEvent of every zone a controller programs.
type Event struct {
	Kind EventKind
	// Node, Network, Connect, Namespace, Pod, Service, Policy and EgressIP
	// name what the event is about (the one its Kind says; pods, Services
	// and policies as "<namespace>/<name>", with Namespace set too; an
	// EgressQoS by its Namespace).
	Node, Network, Connect, Namespace, Pod, Service, Policy, EgressIP string
	// before is the node as it was, for EventNodeSet of a known node and
	// EventNodeRemoved; podBefore the pod as it was.
	before    *topology.Node
	podBefore *podEntry
	// connects are those whose acceptance or allocation the event changed.
	connects []string
	// annotationsOnly marks an EventNamespaceSet that changed the
	// namespace's annotations alone: only its policies' rows replan.
	annotationsOnly bool
}

// ErrNotPlanned is returned by PlanEvent for a zone that Plan never
// planned: a controller Syncs Plan(zone) once, then applies events.
var ErrNotPlanned = sdkerr.New(sdkerr.NotFound, "zone not planned yet")

// zonePlan is what the Cluster last planned for a zone.
type zonePlan struct {
	state  topology.State
	policy *policy.Planner // the zone's policies, for their events
	// qosGen are the versions of the EgressQoS objects the zone's egress
	// rows were last planned with (EgressQoSPlanned).
	qosGen map[string]uint64
}

// Plan plans every network, link between a namespace's primary networks
// and accepted ClusterNetworkConnect for zone, with the ready nodes, and
// returns their merged state: what a Sync of the zone's database makes it
// hold. It refuses a zone without a ready node (ErrZoneNotReady).
func (s *Cluster) Plan(zone string) (topology.State, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	zp := &zonePlan{}
	st, err := s.planZoneWith(zp, zone)
	if err != nil {
		return topology.State{}, err
	}
	zp.state, zp.qosGen = st, s.egress.qosGens()
	s.planned[zone] = zp
	return st, nil
}

// planZone plans a zone from scratch, keeping nothing.
func (s *Cluster) planZone(zone string) (topology.State, error) {
	return s.planZoneWith(&zonePlan{}, zone)
}

func (s *Cluster) planZoneWith(zp *zonePlan, zone string) (topology.State, error) {
	nodes := s.nodeList(true)
	if err := s.zoneReady(zone, nodes); err != nil {
		return topology.State{}, err
	}
	var states []topology.State
	for _, name := range slices.Sorted(maps.Keys(s.networks)) {
		st, err := topology.Plan(s.input(s.networks[name], zone, nodes))
		if err != nil {
			return topology.State{}, err
		}
		states = append(states, st)
	}
	links := s.primaryLinks()
	for _, name := range linkNames(links) {
		st, err := s.planLink(links[name], zone, nodes)
		if err != nil {
			return topology.State{}, err
		}
		states = append(states, st)
	}
	for _, name := range slices.Sorted(maps.Keys(s.connects)) {
		cn := s.connects[name]
		if cn.alloc == nil {
			continue
		}
		st, err := s.planConnect(cn, zone, nodes)
		if err != nil {
			return topology.State{}, err
		}
		states = append(states, st)
	}
	ports, err := s.podPorts(zone, "", "", nodes)
	if err != nil {
		return topology.State{}, err
	}
	states = append(states, ports)
	peers := s.peerGroups()
	for _, nw := range s.networkList() {
		if nw.n.IsPrimary() {
			st, err := s.planServices(nw, zone, nodes, peers)
			if err != nil {
				return topology.State{}, err
			}
			states = append(states, st)
		}
	}
	pol, err := s.policyState(zp, zone, nodes)
	if err != nil {
		return topology.State{}, err
	}
	states = append(states, pol)
	eip, qos, err := s.egressStates(zone, nodes)
	if err != nil {
		return topology.State{}, err
	}
	states = append(states, eip, qos)
	return states[0].Merge(states[1:]...)
}

// zoneReady refuses a zone none of whose nodes is ready.
func (s *Cluster) zoneReady(zone string, ready []topology.Node) error {
	for i := range ready {
		if ready[i].InZone() == zone {
			return nil
		}
	}
	var why []string
	for _, name := range slices.Sorted(maps.Keys(s.nodes)) {
		if nd := s.nodes[name]; nd.InZone() == zone {
			why = append(why, fmt.Sprintf("%s: %s", name, notReady(nd)))
		}
	}
	if len(why) == 0 {
		return fmt.Errorf("zone %q: %w: no node of the zone is known", zone, ErrZoneNotReady)
	}
	return fmt.Errorf("zone %q: %w: %v", zone, ErrZoneNotReady, why)
}

// PlanEvent returns the changes one event makes to what the Cluster
// planned for zone — the rows of just that event, computed without
// planning the zone again where the event allows it (a remote node joining
// or leaving plans only that node's rows) — and records the new plan.
// Applying them to a database that holds the zone's previous plan makes it
// hold Plan(zone). The zone must have been planned (ErrNotPlanned).
func (s *Cluster) PlanEvent(zone string, ev Event) (topology.Changes, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	zp, ok := s.planned[zone]
	if !ok {
		return nil, fmt.Errorf("zone %q: %w: Plan it (and Sync the result) first", zone, ErrNotPlanned)
	}
	nodes := s.nodeList(true)
	var next topology.State
	var err error
	switch ev.Kind {
	case EventNone:
		return nil, nil
	case EventNodeSet, EventNodeRemoved:
		var changes topology.Changes
		next, changes, err = s.nodeEvent(zp, zone, ev, nodes)
		if err == nil && changes != nil {
			// The egress rows follow the assignment, the node IPs and
			// the next hops: planned again and diffed against the
			// previous plan (next lost the node's egress rows with its
			// own), alone.
			if s.egressActive(zp.state) {
				eip, qos, err := s.egressStates(zone, nodes)
				if err != nil {
					return nil, err
				}
				// A leaving node's part speaks for every controller: its
				// egress rows' deletes come from here alone.
				changes = slices.DeleteFunc(changes, func(ch topology.Change) bool {
					c := ch.Object.OwnedBy().Controller
					return c == egressip.Controller || c == egressqos.Controller
				})
				changes = orderChanges(append(changes, topology.Diff(zp.state, withEgress(zp.state, eip, qos))...))
				next = withEgress(next, eip, qos)
				zp.qosGen = s.egress.qosGens()
			}
			zp.state = next
			return changes, nil
		}
	case EventNetworkSet, EventNetworkRemoved:
		next, err = s.replaceNetwork(zp.state, zone, ev.Network, nodes)
		if err == nil {
			next, err = s.replaceShared(zp, next, zone, nodes)
		}
	case EventNamespaceSet:
		if ev.annotationsOnly {
			return s.applyChanges(zp, "namespace "+ev.Namespace, func() (topology.Changes, error) { return s.namespaceChanges(zp, ev.Namespace) })
		}
		next, err = s.replaceShared(zp, zp.state, zone, nodes)
	case EventConnectSet, EventConnectRemoved:
		next, err = s.replaceConnects(zp, zp.state, zone, nodes)
	case EventServiceSet, EventServiceRemoved:
		next, err = s.serviceEvent(zp.state, zone, ev.Namespace, nodes)
	case EventPodSet, EventPodRemoved:
		return s.applyChanges(zp, "pod "+ev.Pod, func() (topology.Changes, error) { return s.podChanges(zp, zone, ev, nodes) })
	case EventEgressIPSet, EventEgressIPRemoved, EventEgressNodeSet, EventEgressQoSSet, EventEgressQoSRemoved:
		next = zp.state
	case EventPolicySet, EventPolicyRemoved:
		return s.applyChanges(zp, "network policy "+ev.Policy, func() (topology.Changes, error) { return s.policyChanges(zp, ev) })
	default:
		return nil, fmt.Errorf("event %v: %w: unknown kind", ev.Kind, topology.ErrInvalid)
	}
	if err == nil && ev.Kind != EventServiceSet && ev.Kind != EventServiceRemoved && ev.Kind != EventConnectSet && ev.Kind != EventConnectRemoved {
		// Networks, namespaces (selectors), nodes and the egress objects
		// decide the egress rows; Services and connects do not.
		next, err = s.replaceEgress(next, zone, nodes)
		if err == nil {
			zp.qosGen = s.egress.qosGens()
		}
	}
	if err != nil {
		return nil, err
	}
	changes := topology.Diff(zp.state, next)
	zp.state = next
	return changes, nil
}

// applyChanges records what changes (of the thing named what) make of the
// zone's plan, and returns them.
func (s *Cluster) applyChanges(zp *zonePlan, what string, changes func() (topology.Changes, error)) (topology.Changes, error) {
	ch, err := changes()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	next, err := topology.Apply(zp.state, ch)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	zp.state = next
	return ch, nil
}

// podChanges are a pod's port changes and, between its ports' creations
// and deletions (a port group may name a port only while it exists), the
// policies' changes for it.
func (s *Cluster) podChanges(zp *zonePlan, zone string, ev Event, nodes []topology.Node) (topology.Changes, error) {
	ports, err := s.podEvent(zone, ev, nodes)
	if err != nil {
		return nil, err
	}
	var pol topology.Changes
	entry, held := s.pods[ev.Pod]
	switch {
	case held && ev.Kind == EventPodSet:
		if p, attached := s.policyPod(entry); attached {
			pol, err = zp.policy.SetPod(p)
		} else {
			pol, err = zp.policy.DeletePod(entry.pod.Namespace, entry.pod.Name)
		}
	case ev.podBefore != nil:
		pol, err = zp.policy.DeletePod(ev.podBefore.pod.Namespace, ev.podBefore.pod.Name)
	}
	if err != nil {
		return nil, fmt.Errorf("network policies: %w", err)
	}
	out := make(topology.Changes, 0, len(ports)+len(pol))
	for _, ch := range ports {
		if ch.Op != topology.OpDelete {
			out = append(out, ch)
		}
	}
	out = append(out, pol...)
	eg, err := s.egressPodChanges(zp, zone, ev, nodes)
	if err != nil {
		return nil, fmt.Errorf("egress: %w", err)
	}
	out = append(out, eg...)
	for _, ch := range ports {
		if ch.Op == topology.OpDelete {
			out = append(out, ch)
		}
	}
	return out, nil
}

// policyChanges are the changes of one NetworkPolicy set or removed.
func (s *Cluster) policyChanges(zp *zonePlan, ev Event) (topology.Changes, error) {
	if p, ok := s.policies[ev.Policy]; ok {
		return zp.policy.SetPolicy(p)
	}
	ns, name, _ := strings.Cut(ev.Policy, "/")
	return zp.policy.DeletePolicy(ns, name)
}

// nodeEvent plans a node's rows again: only its own rows when it is remote
// to zone (nothing else of the zone depends on a remote node: the
// services planner reads only the zone's nodes), the whole zone when it is
// (or was) local. It returns the changes when it computed them (nil: Diff
// the states).
func (s *Cluster) nodeEvent(zp *zonePlan, zone string, ev Event, nodes []topology.Node) (topology.State, topology.Changes, error) {
	prev := zp.state
	now, known := s.nodes[ev.Node]
	local := known && now.InZone() == zone || ev.before != nil && ev.before.InZone() == zone
	if local { // planZoneWith refuses a zone left without a ready node
		st, err := s.planZoneWith(zp, zone)
		return st, nil, err
	}
	var parts []topology.State
	if known && notReady(now) == "" {
		for _, nw := range s.networkList() {
			part, err := topology.PlanNodes(s.input(nw, zone, nodes), ev.Node)
			if err != nil {
				return topology.State{}, nil, err
			}
			parts = append(parts, part)
		}
		for _, name := range slices.Sorted(maps.Keys(s.connects)) {
			cn := s.connects[name]
			if cn.alloc == nil || slices.Contains(ev.connects, name) {
				continue
			}
			part, err := connect.PlanNodes(s.connectInput(cn, zone, nodes), ev.Node)
			if err != nil {
				return topology.State{}, nil, err
			}
			parts = append(parts, part)
		}
		ports, err := s.podPorts(zone, ev.Node, "", nodes)
		if err != nil {
			return topology.State{}, nil, err
		}
		parts = append(parts, ports.Partial(ev.Node))
	} else {
		parts = append(parts, prev.Empty().Partial(ev.Node))
	}
	next := prev.ReplaceNode(ev.Node, parts...)
	if len(ev.connects) == 0 { // the common case: the node's own rows
		var changes topology.Changes
		for _, part := range parts {
			changes = append(changes, topology.Diff(prev, part)...)
		}
		return next, orderChanges(changes), nil
	}
	for _, name := range ev.connects { // admitted again: planned whole
		with := topology.RemovalFor(connect.ControllerConnect, name)
		if cn, ok := s.connects[name]; ok && cn.alloc != nil {
			st, err := s.planConnect(cn, zone, nodes)
			if err != nil {
				return topology.State{}, nil, err
			}
			with = st
		}
		next = next.Replace(connect.ControllerConnect, name, with)
	}
	pol, err := s.policyState(zp, zone, nodes) // the connects join other networks' peers now
	if err != nil {
		return topology.State{}, nil, err
	}
	next, err = s.servicesState(next.ReplaceController(policy.Controller, pol), zone, nodes)
	return next, nil, err
}

// orderChanges puts changes gathered from several Diffs in the order one
// Diff gives: creates, then updates, then deletes (stable within each).
func orderChanges(changes topology.Changes) topology.Changes {
	slices.SortStableFunc(changes, func(a, b topology.Change) int { return cmp.Compare(a.Op, b.Op) })
	return changes
}

// replaceNetwork plans one network again, or its removal.
func (s *Cluster) replaceNetwork(prev topology.State, zone, name string, nodes []topology.Node) (topology.State, error) {
	nw, ok := s.networks[name]
	if !ok {
		next := prev.Replace(topology.ControllerTopology, name, topology.Removal(name))
		return next.Replace(pods.ControllerPods, name, topology.RemovalFor(pods.ControllerPods, name)), nil
	}
	st, err := topology.Plan(s.input(nw, zone, nodes))
	if err != nil {
		return topology.State{}, err
	}
	ports, err := s.podPorts(zone, "", name, nodes)
	if err != nil {
		return topology.State{}, err
	}
	return prev.Replace(topology.ControllerTopology, name, st).Replace(pods.ControllerPods, name, ports), nil
}

// replaceShared plans again what depends on several networks: the links
// between a namespace's primaries and the connects.
func (s *Cluster) replaceShared(zp *zonePlan, prev topology.State, zone string, nodes []topology.Node) (topology.State, error) {
	next, err := s.replaceLinks(prev, zone, nodes)
	if err != nil {
		return topology.State{}, err
	}
	return s.replaceConnects(zp, next, zone, nodes)
}

// replaceLinks plans the links between a namespace's primaries again:
// they follow the networks and namespaces, not the connects.
func (s *Cluster) replaceLinks(prev topology.State, zone string, nodes []topology.Node) (topology.State, error) {
	next := prev
	links := s.primaryLinks()
	for _, sc := range prev.Scope(connect.ControllerPrimaryLinks) {
		if _, ok := links[sc]; !ok {
			next = next.Replace(connect.ControllerPrimaryLinks, sc, topology.RemovalFor(connect.ControllerPrimaryLinks, sc))
		}
	}
	for _, name := range linkNames(links) {
		st, err := s.planLink(links[name], zone, nodes)
		if err != nil {
			return topology.State{}, err
		}
		next = next.Replace(connect.ControllerPrimaryLinks, name, st)
	}
	return next, nil
}

// replaceConnects plans the connects again, and the policies and
// Services, which the connects make peers of other networks.
func (s *Cluster) replaceConnects(zp *zonePlan, prev topology.State, zone string, nodes []topology.Node) (topology.State, error) {
	pol, err := s.policyState(zp, zone, nodes)
	if err != nil {
		return topology.State{}, err
	}
	next := prev.ReplaceController(policy.Controller, pol)
	for _, sc := range prev.Scope(connect.ControllerConnect) {
		if cn, ok := s.connects[sc]; !ok || cn.alloc == nil {
			next = next.Replace(connect.ControllerConnect, sc, topology.RemovalFor(connect.ControllerConnect, sc))
		}
	}
	for _, name := range slices.Sorted(maps.Keys(s.connects)) {
		cn := s.connects[name]
		if cn.alloc == nil {
			continue
		}
		st, err := s.planConnect(cn, zone, nodes)
		if err != nil {
			return topology.State{}, err
		}
		next = next.Replace(connect.ControllerConnect, name, st)
	}
	return s.servicesState(next, zone, nodes)
}

func (s *Cluster) connectInput(cn *connection, zone string, nodes []topology.Node) connect.Input {
	nets := selectedNetworks(cn.acceptance)
	return connect.Input{Connect: cn.c, Networks: nets, Allocation: cn.allocation, Nodes: nodes, Zone: zone,
		HostSubnets: s.hostSubnetsOf(nets, nodes), Profile: s.cfg.Profile, ServiceCIDRs: s.cfg.DefaultNetwork.ServiceCIDRs}
}

// hostSubnetsOf returns the Layer3 networks' host subnets of the nodes.
func (s *Cluster) hostSubnetsOf(nets []*udn.Network, nodes []topology.Node) map[string]map[string][]netip.Prefix {
	out := make(map[string]map[string][]netip.Prefix, len(nets))
	for _, n := range nets {
		nw, ok := s.networks[n.Name]
		if !ok || nw.subnets == nil {
			continue
		}
		m := make(map[string][]netip.Prefix, len(nodes))
		for _, nd := range nodes {
			if sub, ok := nw.hostSubnets[nd.Name]; ok {
				m[nd.Name] = slices.Clone(sub)
			}
		}
		out[n.Name] = m
	}
	return out
}
