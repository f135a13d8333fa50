package udnkit

import (
	"cmp"
	"fmt"
	"maps"
	"net/netip"
	"slices"

	"github.com/udnkit/udnkit/flows"
	"github.com/udnkit/udnkit/netconf/udn"
	"github.com/udnkit/udnkit/topology"
	"github.com/udnkit/udnkit/topology/egressip"
	"github.com/udnkit/udnkit/topology/egressqos"
)

// egressState is what the Cluster holds of EgressIPs and EgressQoS.
type egressState struct {
	eips       map[string]*egressip.EgressIP // with the Cluster's Mark and Status
	unassigned []egressip.Unassigned
	marks      egressip.MarkAllocator
	assignable map[string]bool // node → its k8s.ovn.org/egress-assignable label
	qos        map[string]egressqos.EgressQoS
	stored     map[string]int // marks Restore read, until EndRestore
	// qosGen numbers each SetEgressQoS (namespace → its version): a zone's
	// plan records the versions it planned (zonePlan.qosGen).
	qosGen  map[string]uint64
	lastGen uint64
}

// qosGens returns a copy of the EgressQoS versions the Cluster holds.
func (e *egressState) qosGens() map[string]uint64 { return maps.Clone(e.qosGen) }

func (e *egressState) init() {
	if e.eips == nil {
		e.eips, e.assignable, e.qos = map[string]*egressip.EgressIP{}, map[string]bool{}, map[string]egressqos.EgressQoS{}
		e.qosGen = map[string]uint64{}
	}
}

// EgressIPStatus is what a controller writes back to an EgressIP: its mark
// (egressip.AnnotationMark, egressip/kube.MarkPatch), status.items
// (egressip/kube.StatusPatch) and the IPs no node could take, with why.
type EgressIPStatus struct {
	Mark       int
	Items      []egressip.Assignment
	Unassigned []egressip.Unassigned
}

// SetEgressIP adds or updates an EgressIP (spec.egressIPs and the
// selectors; egressip/kube.EgressIPFrom reads one). Its mark is the
// Cluster's: the one it holds, else e.Mark (the object's annotation, or
// what Restore read) when no other EgressIP holds it, else a new one
// (EgressIPStatus says which to write back). Its IPs are assigned to
// egress nodes (SetEgressAssignable) by egressip.Assign, keeping what e.Status
// or an earlier assignment placed where still valid; every other EgressIP
// keeps its nodes. Its rows are planned on every primary network of the
// namespaces it selects (seed 002).
func (s *Cluster) SetEgressIP(e egressip.EgressIP) (Event, error) {
	if err := checkName(e.Name); err != nil {
		return Event{}, fmt.Errorf("egress IP: name: %w", err)
	}
	seen := map[netip.Addr]bool{}
	for i, ip := range e.IPs {
		if !ip.IsValid() || ip.Zone() != "" || ip.Is4In6() { // as eipkube refuses them: the planner would match ip6 on it
			return Event{}, fmt.Errorf("egress IP %s: spec.egressIPs[%d]: %w: %v is not an IPv4 or IPv6 address", e.Name, i, egressip.ErrInvalid, ip)
		}
		if seen[ip] {
			return Event{}, fmt.Errorf("egress IP %s: spec.egressIPs[%d]: %w: %v is not a unique address", e.Name, i, egressip.ErrInvalid, ip)
		}
		seen[ip] = true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.egress.init()
	next := &egressip.EgressIP{Name: e.Name, IPs: slices.Clone(e.IPs), NamespaceSelector: e.NamespaceSelector, PodSelector: e.PodSelector,
		Status: slices.Clone(e.Status)}
	if old, ok := s.egress.eips[e.Name]; ok {
		next.Status = old.Status
	}
	mark, held := s.egress.marks.Lookup(e.Name)
	if !held {
		want := e.Mark
		if m, ok := s.egress.stored[e.Name]; ok {
			want = m
		}
		if want == 0 || s.egress.marks.Restore(e.Name, want) != nil {
			var err error
			if want, err = s.egress.marks.Allocate(e.Name); err != nil {
				return Event{}, err
			}
		}
		mark = want
	}
	next.Mark = mark
	s.egress.eips[e.Name] = next
	s.assignEgress()
	return Event{Kind: EventEgressIPSet, EgressIP: e.Name}, nil
}

// RemoveEgressIP forgets an EgressIP and frees its mark; the other
// EgressIPs' unassigned IPs may take the nodes it held.
func (s *Cluster) RemoveEgressIP(name string) Event {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.egress.eips[name]; !ok {
		return Event{}
	}
	delete(s.egress.eips, name)
	s.egress.marks.Release(name)
	s.assignEgress()
	return Event{Kind: EventEgressIPRemoved, EgressIP: name}
}

// SetEgressAssignable records a node's k8s.ovn.org/egress-assignable
// label (egressip.LabelEgressAssignable: present or not): a ready node
// with it takes egress IPs in the subnets of its Addresses. Every
// EgressIP's assignment is revised: IPs on a node that lost the label
// move, unassigned ones may take the node.
func (s *Cluster) SetEgressAssignable(node string, assignable bool) (Event, error) {
	if err := checkName(node); err != nil {
		return Event{}, fmt.Errorf("egress node: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.egress.init()
	if s.egress.assignable[node] == assignable {
		return Event{}, nil
	}
	if assignable {
		s.egress.assignable[node] = true
	} else {
		delete(s.egress.assignable, node)
	}
	s.assignEgress()
	return Event{Kind: EventEgressNodeSet, Node: node}, nil
}

// EgressIPStatus returns what a controller writes back to the EgressIP
// called name, and false for one the Cluster does not hold.
func (s *Cluster) EgressIPStatus(name string) (EgressIPStatus, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.egress.eips[name]
	if !ok {
		return EgressIPStatus{}, false
	}
	st := EgressIPStatus{Mark: e.Mark, Items: slices.Clone(e.Status)}
	for _, u := range s.egress.unassigned {
		if u.EgressIP == name {
			st.Unassigned = append(st.Unassigned, u)
		}
	}
	return st, true
}

// SetEgressQoS adds or updates a namespace's EgressQoS (the object named
// "default"; egressqos/kube.EgressQoSFrom reads one): its DSCP rows are
// planned on every primary network of the namespace (seed 002). An
// invalid one is refused (egressqos.ErrInvalid): its zones' condition is
// SetupFailed with that error (egressqos/kube.Condition); once a zone is
// planned with it, SetupSucceeded (EgressQoSPlanned).
func (s *Cluster) SetEgressQoS(q egressqos.EgressQoS) (Event, error) {
	if err := checkName(q.Namespace); err != nil {
		return Event{}, fmt.Errorf("egress QoS: namespace: %w", err)
	}
	if err := q.Validate(); err != nil {
		return Event{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.egress.init()
	q.Rules = slices.Clone(q.Rules)
	s.egress.qos[q.Namespace] = q
	s.egress.lastGen++
	s.egress.qosGen[q.Namespace] = s.egress.lastGen
	return Event{Kind: EventEgressQoSSet, Namespace: q.Namespace}, nil
}

// RemoveEgressQoS forgets a namespace's EgressQoS.
func (s *Cluster) RemoveEgressQoS(namespace string) Event {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.egress.qos[namespace]; !ok {
		return Event{}
	}
	delete(s.egress.qos, namespace)
	delete(s.egress.qosGen, namespace)
	return Event{Kind: EventEgressQoSRemoved, Namespace: namespace}
}

// EgressQoSPlanned reports whether the namespace's EgressQoS, as last
// set, is in the zone's plan: Plan planned the zone since, or PlanEvent
// planned its event (or another that plans the zone's egress rows), so its
// condition Ready-In-Zone-<zone> is SetupSucceeded.
func (s *Cluster) EgressQoSPlanned(namespace, zone string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	gen, held := s.egress.qosGen[namespace]
	zp, planned := s.planned[zone]
	return held && planned && zp.qosGen[namespace] == gen
}

// egressNodes returns every node as the assignment sees it.
func (s *Cluster) egressNodes() []egressip.Node {
	all := s.nodeList(false)
	out := make([]egressip.Node, 0, len(all))
	for _, nd := range all {
		// Its own addresses: Assign refuses an egress IP equal to any
		// node's, so each node lists its own alone.
		own := make([]netip.Addr, 0, len(nd.Addresses))
		for _, a := range nd.Addresses {
			own = append(own, a.Addr())
		}
		out = append(out, egressip.Node{Name: nd.Name, Assignable: s.egress.assignable[nd.Name], Ready: notReady(nd) == "",
			Subnets: slices.Clone(nd.Addresses), HostIPs: own})
	}
	return out
}

// assignEgress assigns every EgressIP's IPs again (valid assignments
// stay): after an EgressIP, a node or a label changed.
func (s *Cluster) assignEgress() {
	if len(s.egress.eips) == 0 {
		s.egress.unassigned = nil
		return
	}
	list := s.egressIPList()
	status, unassigned := egressip.Assign(list, s.egressNodes())
	for _, st := range status {
		s.egress.eips[st.EgressIP].Status = st.Items
	}
	s.egress.unassigned = unassigned
}

// egressIPList returns the EgressIPs sorted by name, as values.
func (s *Cluster) egressIPList() []egressip.EgressIP {
	out := make([]egressip.EgressIP, 0, len(s.egress.eips))
	for _, name := range slices.Sorted(maps.Keys(s.egress.eips)) {
		out = append(out, *s.egress.eips[name])
	}
	return out
}

// egressNetwork reports whether the EgressIP planner takes the network: a
// primary Layer3 or Layer2 (transit router) network.
func egressNetwork(nw *network) bool {
	return nw.n.IsPrimary() && (nw.n.Topology == udn.TopologyLayer3 || nw.n.Topology == udn.TopologyLayer2)
}

// egressInput is the EgressIP planner's input for one network and zone:
// every namespace of the network and its pods when podNS is "", else
// namespace podNS alone (when the network serves it) and no pods, what
// one pod of podNS needs (egressip.PodPolicies, egressip.Select).
func (s *Cluster) egressInput(nw *network, zone string, nodes []topology.Node, podNS string) egressip.Input {
	in := egressip.Input{Network: nw.n, Nodes: nodes, Zone: zone, Profile: s.cfg.Profile, EgressIPs: s.egressIPList(),
		ServiceIPs: s.cfg.Cluster.ServiceIPs}
	for _, nd := range nodes {
		for _, a := range nd.Addresses {
			in.NodeIPs = append(in.NodeIPs, a.Addr())
		}
		if s.egress.assignable[nd.Name] {
			in.EgressNodes = append(in.EgressNodes, nd.Name)
		}
	}
	if podNS != "" {
		// A namespace never set (a UDN's) has no labels but its name, as
		// namespaceList gives it.
		if slices.Contains(nw.namespaces, podNS) {
			in.Namespaces = []egressip.Namespace{{Name: podNS, Labels: namespaceLabels(podNS, s.spaces[podNS].Labels)}}
		}
		return in
	}
	for _, ns := range s.namespaceList() {
		if slices.Contains(nw.namespaces, ns.Name) {
			in.Namespaces = append(in.Namespaces, egressip.Namespace{Name: ns.Name, Labels: namespaceLabels(ns.Name, ns.Labels)})
		}
	}
	for _, key := range slices.Sorted(maps.Keys(s.pods)) {
		if p, ok := egressPod(s.pods[key], nw.n.Name); ok {
			in.Pods = append(in.Pods, p)
		}
	}
	return in
}

// namespaceLabels returns a namespace's labels with the name label the API
// server gives every namespace (selectors rely on it), unless it has one
// of its own, as policyNamespace and netconf.SelectNamespaces read it.
func namespaceLabels(name string, labels map[string]string) egressip.Labels {
	kv := make([]string, 0, 2*len(labels)+2)
	kv = append(kv, metadataName, name) // NewLabels keeps a later duplicate: the namespace's own
	for k, v := range labels {
		kv = append(kv, k, v)
	}
	return egressip.NewLabels(kv...) // sorts by key
}

// podLabels returns a pod's labels as the egress planners take them.
func podLabels(labels map[string]string) egressip.Labels {
	kv := make([]string, 0, 2*len(labels))
	for k, v := range labels {
		kv = append(kv, k, v)
	}
	return egressip.NewLabels(kv...) // sorts by key
}

// egressPod is a pod as the EgressIP planner sees it on a network: false
// when it has no primary attachment to it.
func egressPod(entry *podEntry, network string) (egressip.Pod, bool) {
	if entry == nil {
		return egressip.Pod{}, false
	}
	for _, a := range entry.atts {
		if a.Role != "primary" || a.Network == nil || a.Network.Name != network {
			continue
		}
		p := egressip.Pod{Namespace: entry.pod.Namespace, Name: entry.pod.Name, Node: entry.pod.Node, Labels: podLabels(entry.labels)}
		for _, ip := range a.IPs {
			p.IPs = append(p.IPs, ip.Addr())
		}
		return p, true
	}
	return egressip.Pod{}, false
}

// egressQoSInput is the EgressQoS planner's input for a zone: the primary
// networks of the namespaces with an EgressQoS, and their pods.
func (s *Cluster) egressQoSInput(zone string, nodes []topology.Node) egressqos.Input {
	in := egressqos.Input{Nodes: nodes, Zone: zone}
	for _, ns := range slices.Sorted(maps.Keys(s.egress.qos)) {
		in.EgressQoS = append(in.EgressQoS, s.egress.qos[ns])
	}
	nets := map[string]bool{}
	for _, nw := range s.networkList() {
		if !egressNetwork(nw) {
			continue
		}
		var served []string
		for _, ns := range nw.namespaces {
			if _, ok := s.egress.qos[ns]; ok {
				served = append(served, ns)
			}
		}
		if len(served) > 0 {
			in.Networks = append(in.Networks, egressqos.Network{Network: nw.n, Namespaces: served})
			nets[nw.n.Name] = true
		}
	}
	for _, key := range slices.Sorted(maps.Keys(s.pods)) {
		entry := s.pods[key]
		if _, ok := s.egress.qos[entry.pod.Namespace]; !ok {
			continue
		}
		p := egressqos.Pod{Namespace: entry.pod.Namespace, Name: entry.pod.Name, Node: entry.pod.Node, Labels: podLabels(entry.labels)}
		for _, a := range entry.atts {
			if a.Role == "primary" && a.Network != nil && nets[a.Network.Name] {
				ips := egressqos.NetworkIPs{Network: a.Network.Name}
				for _, ip := range a.IPs {
					ips.IPs = append(ips.IPs, ip.Addr())
				}
				p.IPs = append(p.IPs, ips)
			}
		}
		if len(p.IPs) > 0 {
			in.Pods = append(in.Pods, p)
		}
	}
	return in
}

// egressStates plans the zone's EgressIP and EgressQoS rows from scratch:
// empty states when the Cluster holds neither.
func (s *Cluster) egressStates(zone string, nodes []topology.Node) (eip, qos topology.State, err error) {
	if len(s.egress.eips) > 0 {
		var parts []topology.State
		for _, nw := range s.networkList() {
			if !egressNetwork(nw) {
				continue
			}
			st, err := egressip.Plan(s.egressInput(nw, zone, nodes, ""))
			if err != nil {
				return topology.State{}, topology.State{}, err
			}
			parts = append(parts, st)
		}
		if len(parts) > 0 {
			if eip, err = parts[0].Merge(parts[1:]...); err != nil {
				return topology.State{}, topology.State{}, err
			}
		}
	}
	if len(s.egress.qos) > 0 {
		if in := s.egressQoSInput(zone, nodes); len(in.Networks) > 0 {
			if qos, err = egressqos.PlanZone(in); err != nil {
				return topology.State{}, topology.State{}, err
			}
		}
	}
	return eip, qos, nil
}

// egressActive reports whether the egress planners have rows to plan or
// rows of prev to remove.
func (s *Cluster) egressActive(prev topology.State) bool {
	return len(s.egress.eips) > 0 || len(s.egress.qos) > 0 ||
		len(prev.Scope(egressip.Controller)) > 0 || len(prev.Scope(egressqos.Controller)) > 0
}

// replaceEgress plans the zone's egress rows again into prev (the
// networks prev speaks for and no longer has rows of lose theirs).
func (s *Cluster) replaceEgress(prev topology.State, zone string, nodes []topology.Node) (topology.State, error) {
	if !s.egressActive(prev) {
		return prev, nil
	}
	eip, qos, err := s.egressStates(zone, nodes)
	if err != nil {
		return topology.State{}, err
	}
	return withEgress(prev, eip, qos), nil
}

// withEgress returns st with the egress controllers' rows replaced by
// eip's and qos's (the networks st speaks for and they have no rows of
// lose theirs).
func withEgress(st, eip, qos topology.State) topology.State {
	return st.ReplaceController(egressip.Controller, eip).ReplaceController(egressqos.Controller, qos)
}

// egressPodChanges are the changes of one pod's egress rows in zone: its
// EgressIP policies (egressip.PodPolicies before and after) and its
// addresses in the served-pods and EgressQoS sets, read from the zone's
// plan and patched. Their cost is the pod's, not the other pods'.
func (s *Cluster) egressPodChanges(zp *zonePlan, zone string, ev Event, nodes []topology.Node) (topology.Changes, error) {
	if len(s.egress.eips) == 0 && len(s.egress.qos) == 0 {
		return nil, nil
	}
	before, after := ev.podBefore, s.pods[ev.Pod]
	if ev.Kind == EventPodRemoved {
		after = nil
	}
	local := map[string]bool{}
	for _, nd := range nodes {
		if nd.InZone() == zone {
			local[nd.Name] = true
		}
	}
	var nets []string
	var podNS string // the event's pod: one key, one namespace
	for _, e := range []*podEntry{before, after} {
		if e == nil {
			continue
		}
		podNS = e.pod.Namespace
		for _, a := range e.atts {
			if a.Role == "primary" && a.Network != nil && !slices.Contains(nets, a.Network.Name) {
				nets = append(nets, a.Network.Name)
			}
		}
	}
	slices.Sort(nets)
	// sets gathers each set's addresses to drop and to add.
	type edit struct{ drop, add []netip.Addr }
	sets := map[string]*edit{}
	editSet := func(name string, ips []netip.Addr, add bool) {
		e := sets[name]
		if e == nil {
			e = &edit{}
			sets[name] = e
		}
		if add {
			e.add = append(e.add, ips...)
		} else {
			e.drop = append(e.drop, ips...)
		}
	}
	var out topology.Changes
	for _, name := range nets {
		nw, ok := s.networks[name]
		if !ok || !egressNetwork(nw) {
			continue
		}
		if len(s.egress.eips) > 0 {
			in := s.egressInput(nw, zone, nodes, podNS)
			var pols [2][]topology.Policy
			for i, e := range []*podEntry{before, after} {
				p, ok := egressPod(e, name)
				if !ok {
					continue
				}
				var err error
				if pols[i], err = egressip.PodPolicies(in, p); err != nil {
					return nil, err
				}
				if local[p.Node] && len(egressip.Select(in.EgressIPs, in.Namespaces, []egressip.Pod{p})) > 0 {
					for _, is4 := range []bool{true, false} {
						editSet(egressip.AddressSetName(egressip.SetServedPods, name, is4), family(p.IPs, is4), i == 1)
					}
				}
			}
			ch, err := topology.ObjectChanges(pols[0], pols[1])
			if err != nil {
				return nil, err
			}
			out = append(out, ch...)
		}
		for i, e := range []*podEntry{before, after} {
			if e == nil || !local[e.pod.Node] || !slices.Contains(nw.namespaces, e.pod.Namespace) {
				continue
			}
			q, ok := s.egress.qos[e.pod.Namespace]
			p, attached := egressPod(e, name)
			if !ok || !attached {
				continue
			}
			for r, rule := range q.Rules {
				if !rule.Selects(p.Labels) {
					continue
				}
				for _, is4 := range []bool{true, false} {
					editSet(egressqos.AddressSetName(name, e.pod.Namespace, egressqos.TopPriority-r, is4), family(p.IPs, is4), i == 1)
				}
			}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(sets)) {
		o, ok := zp.state.Get(topology.KindAddressSet, name)
		if !ok {
			continue // a family the network has not
		}
		old := o.(topology.AddressSet)
		e := sets[name]
		next := old
		next.Addresses = make([]netip.Prefix, 0, len(old.Addresses)+len(e.add))
		for _, p := range old.Addresses {
			if !slices.Contains(e.drop, p.Addr()) {
				next.Addresses = append(next.Addresses, p)
			}
		}
		for _, a := range e.add {
			next.Addresses = append(next.Addresses, netip.PrefixFrom(a, a.BitLen()))
		}
		slices.SortFunc(next.Addresses, func(a, b netip.Prefix) int { return cmp.Or(a.Addr().Compare(b.Addr()), a.Bits()-b.Bits()) })
		next.Addresses = slices.Compact(next.Addresses)
		if !slices.Equal(next.Addresses, old.Addresses) {
			// One column of one row: no Builder round trip over the set.
			out = append(out, topology.Change{Op: topology.OpUpdate, Kind: topology.KindAddressSet, Key: name, Object: next, Old: old,
				Columns: []string{"addresses"}})
		}
	}
	return orderChanges(out), nil
}

// family returns the addresses of one family.
func family(ips []netip.Addr, is4 bool) []netip.Addr {
	var out []netip.Addr
	for _, a := range ips {
		if a.Is4() == is4 {
			out = append(out, a)
		}
	}
	return out
}

// restoreEgress reads the EgressIPs' marks (egressip.AnnotationMark) and
// holds them until the EgressIPs are set again or EndRestore.
func (s *Cluster) restoreEgress(objs []Object) error {
	s.egress.init()
	marks := map[string]int{}
	for _, o := range slices.SortedFunc(slices.Values(objs), func(a, b Object) int { return cmp.Compare(a.Name, b.Name) }) {
		v, ok := o.Annotations[egressip.AnnotationMark]
		if !ok {
			continue
		}
		m, err := egressip.ParseMark(v)
		if err == nil {
			err = s.egress.marks.Restore(o.Name, m)
		}
		if err != nil {
			return fmt.Errorf("EgressIP %s: %w", o.Name, err)
		}
		marks[o.Name] = m
	}
	s.egress.stored = marks
	return nil
}

// endRestoreEgress frees the marks of EgressIPs not set since Restore.
func (s *Cluster) endRestoreEgress() []string {
	var freed []string
	for name := range s.egress.stored {
		if _, ok := s.egress.eips[name]; !ok {
			s.egress.marks.Release(name)
			freed = append(freed, "EgressIP "+name)
		}
	}
	s.egress.stored = nil
	return freed
}

// egressAnnotations returns each EgressIP's mark annotation, by name.
func (s *Cluster) egressAnnotations() []Object {
	var out []Object
	for _, name := range slices.Sorted(maps.Keys(s.egress.eips)) {
		out = append(out, Object{Name: name, Annotations: map[string]string{egressip.AnnotationMark: egressip.FormatMark(s.egress.eips[name].Mark)}})
	}
	return out
}

// planNodeEgress adds a node's egress IP side to its plan: the gateway
// bridge's SNAT flows of the served pods' marks (egressip.BridgeFlows, per
// primary network the bridge carries) and the egress IPs that go on the
// bridge. Nothing without EgressIPs.
func (s *Cluster) planNodeEgress(plan *NodePlan, node string, fin flows.Input) error {
	if len(s.egress.eips) == 0 {
		return nil
	}
	list := s.egressIPList()
	in := egressip.BridgeInput{Node: node, Physical: fin.Node.Physical, MAC: fin.Node.MAC, NodeIPs: fin.Node.IPs, EgressIPs: list}
	for _, n := range fin.Networks {
		in.Networks = append(in.Networks, egressip.BridgeNetwork{ID: n.ID, Patch: n.Patch})
	}
	fs, err := egressip.BridgeFlows(in)
	if err != nil {
		return err
	}
	plan.Flows = append(plan.Flows, fs...)
	flows.Sort(plan.Flows)
	for i := 1; i < len(plan.Flows); i++ {
		if a, b := plan.Flows[i-1], plan.Flows[i]; a.Key() == b.Key() && a.Actions != b.Actions {
			return fmt.Errorf("egress IP flows: %w: %s planned with actions %s and %s", egressip.ErrConflict, a.Key(), a.Actions, b.Actions)
		}
	}
	plan.Flows = slices.CompactFunc(plan.Flows, func(a, b flows.Flow) bool { return a.Key() == b.Key() })
	plan.BridgeEgressIPs = egressip.BridgeIPs(node, list)
	return nil
}
