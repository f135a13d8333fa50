package policy

import (
	"cmp"
	"fmt"
	"maps"
	"slices"

	"github.com/udnkit/udnkit/topology"
)

// affected collects the units a change recomputes.
type affected map[unitKey]bool

// SetPod adds or replaces a pod and returns the changes it causes: its
// port in the port groups of the policies that select it (before or
// after) and of its namespace's default deny, its addresses in the
// address sets of the selectors that select it, the named-port ACLs it
// resolves. Their cost follows the pod's namespace and the selectors that
// may select it, not the number of policies.
func (p *Planner) SetPod(pod Pod) (topology.Changes, error) {
	if err := validatePod(&pod); err != nil {
		return nil, err
	}
	old := p.pods[pod.Namespace][pod.Name]
	pod.Labels = maps.Clone(pod.Labels)
	pod.Ports = slices.Clone(pod.Ports)
	pod.Networks = slices.Clone(pod.Networks)
	pod.OpenPorts = slices.Clone(pod.OpenPorts)
	aff := affected{}
	p.podUnits(aff, old, &pod)
	p.putPod(&pod)
	return p.recompute(aff)
}

// DeletePod removes a pod and returns the changes it causes.
func (p *Planner) DeletePod(namespace, name string) (topology.Changes, error) {
	old := p.pods[namespace][name]
	if old == nil {
		return nil, nil
	}
	aff := affected{}
	p.podUnits(aff, old, nil)
	delete(p.pods[namespace], name)
	if len(p.pods[namespace]) == 0 {
		delete(p.pods, namespace)
	}
	return p.recompute(aff)
}

// SetNamespace sets a namespace's labels, multicast switch and logging and
// returns the changes: the address sets of the namespace selectors whose
// choice of it changes, its multicast rows, and for a logging change its
// own ACLs alone (its default-deny drops for Deny, its policies' rule ACLs
// for Allow) and the acl-logging Meter when it is the first namespace to
// log or the last to stop.
func (p *Planner) SetNamespace(ns Namespace) (topology.Changes, error) {
	if err := validateNamespace(&ns); err != nil {
		return nil, err
	}
	old := p.nsLabels[ns.Name]
	aff := affected{}
	if was := p.logging[ns.Name]; was != ns.Logging {
		for _, n := range p.servedBy[ns.Name] {
			if was.Deny != ns.Logging.Deny {
				aff[unitKey{kind: unitDeny, network: n, a: ns.Name}] = true
			}
			if was.Allow != ns.Logging.Allow {
				for _, pol := range p.policies[ns.Name] {
					aff[unitKey{kind: unitPolicy, network: n, a: ns.Name, b: pol.Name}] = true
				}
			}
		}
		before := len(p.logging) > 0
		if ns.Logging.Logs() {
			p.logging[ns.Name] = ns.Logging
		} else {
			delete(p.logging, ns.Name)
		}
		if before != (len(p.logging) > 0) {
			aff[unitKey{kind: unitMeter, network: DefaultNetworkName}] = true
		}
	}
	for _, name := range p.netNames {
		nw := p.nets[name]
		for key := range nw.nsSelectors {
			s := nw.selectors[key]
			if s.peer.NamespaceSelector.Matches(old) != s.peer.NamespaceSelector.Matches(ns.Labels) {
				aff[unitKey{kind: unitSelector, network: name, a: key}] = true
			}
		}
	}
	if len(aff) > 0 {
		p.namedUnits(aff, p.netNames) // egress named ports resolve on the peers selected
	}
	if ns.Multicast != p.mcastNS[ns.Name] && p.multicast {
		for _, n := range p.servedBy[ns.Name] {
			aff[unitKey{kind: unitMulticast, network: n, a: ns.Name}] = true
		}
	}
	if ns.Multicast {
		p.mcastNS[ns.Name] = true
	} else {
		delete(p.mcastNS, ns.Name)
	}
	if ns.Labels == nil {
		delete(p.nsLabels, ns.Name)
	} else {
		p.nsLabels[ns.Name] = maps.Clone(ns.Labels)
	}
	return p.recompute(aff)
}

// SetPolicy adds or replaces a policy and returns the changes: its port
// group and ACLs on each primary network of its namespace, the
// namespace's default-deny port groups, and the address sets of the
// selectors it starts or stops using.
func (p *Planner) SetPolicy(pol Policy) (topology.Changes, error) {
	if errs := Validate(&pol); len(errs) > 0 {
		return nil, fmt.Errorf("networkpolicy %s/%s: %w: %v", pol.Namespace, pol.Name, ErrInvalid, errs.ToAggregate())
	}
	aff := affected{}
	if old := p.policies[pol.Namespace][pol.Name]; old != nil {
		p.policyUnits(aff, old)
		p.refSelectors(old, -1)
	}
	p.putPolicy(&pol)
	p.policyUnits(aff, &pol)
	return p.recompute(aff)
}

// DeletePolicy removes a policy and returns the changes.
func (p *Planner) DeletePolicy(namespace, name string) (topology.Changes, error) {
	old := p.policies[namespace][name]
	if old == nil {
		return nil, nil
	}
	aff := affected{}
	p.policyUnits(aff, old)
	p.refSelectors(old, -1)
	delete(p.policies[namespace], name)
	if len(p.policies[namespace]) == 0 {
		delete(p.policies, namespace)
	}
	return p.recompute(aff)
}

// policyUnits marks the units of a policy on the networks of its
// namespace.
func (p *Planner) policyUnits(aff affected, pol *Policy) {
	ingress, egress := pol.Types()
	keys := policySelectorKeys(pol, ingress, egress)
	for _, name := range p.servedBy[pol.Namespace] {
		aff[unitKey{kind: unitPolicy, network: name, a: pol.Namespace, b: pol.Name}] = true
		aff[unitKey{kind: unitDeny, network: name, a: pol.Namespace}] = true
		for _, k := range keys {
			aff[unitKey{kind: unitSelector, network: name, a: k.key}] = true
		}
	}
}

// podUnits marks the units a pod (old and/or new, either nil) touches.
func (p *Planner) podUnits(aff affected, old, now *Pod) {
	var named bool
	nets := map[string]bool{}
	for _, pod := range []*Pod{old, now} {
		if pod == nil {
			continue
		}
		named = named || len(pod.Ports) > 0
		for _, a := range pod.Networks {
			nets[a.Network] = true
		}
	}
	ns := ""
	if old != nil {
		ns = old.Namespace
	} else {
		ns = now.Namespace
	}
	// The cluster port group, when the pod's local port changes.
	for n := range nets {
		if _, ok := p.nets[n]; !ok {
			continue
		}
		var before, after string
		if old != nil {
			before, _ = p.localPort(old, n)
		}
		if now != nil {
			after, _ = p.localPort(now, n)
		}
		if before != after {
			aff[unitKey{kind: unitNetwork, network: n}] = true
		}
	}
	// The port groups of the policies that select it, where the port it
	// brings changes (a relabel that keeps its policies touches none).
	for _, n := range p.servedBy[ns] {
		var oldPort, newPort string
		if old != nil {
			oldPort, _ = p.localPort(old, n)
		}
		if now != nil {
			newPort, _ = p.localPort(now, n)
		}
		var denyOld, denyNow [2]string // ingress, egress
		for _, pol := range p.policies[ns] {
			var before, after string
			if old != nil && pol.PodSelector.Matches(old.Labels) {
				before = oldPort
			}
			if now != nil && pol.PodSelector.Matches(now.Labels) {
				after = newPort
			}
			if before != after {
				aff[unitKey{kind: unitPolicy, network: n, a: ns, b: pol.Name}] = true
			}
			in, eg := pol.Types()
			if in {
				denyOld[0], denyNow[0] = cmp.Or(denyOld[0], before), cmp.Or(denyNow[0], after)
			}
			if eg {
				denyOld[1], denyNow[1] = cmp.Or(denyOld[1], before), cmp.Or(denyNow[1], after)
			}
		}
		if denyOld != denyNow {
			aff[unitKey{kind: unitDeny, network: n, a: ns}] = true
		}
	}
	// The default network's isolation, when its default port or open
	// ports change.
	if p.isolation != nil {
		var before, after isolationView
		if old != nil {
			before = p.isolationOf(old)
		}
		if now != nil {
			after = p.isolationOf(now)
		}
		if !before.equal(after) {
			aff[unitKey{kind: unitIsolation, network: DefaultNetworkName}] = true
		}
	}
	// Its namespace's multicast rows (its port and addresses).
	if p.multicast && p.mcastNS[ns] {
		for _, n := range p.servedBy[ns] {
			aff[unitKey{kind: unitMulticast, network: n, a: ns}] = true
		}
	}
	// The address sets of the selectors that select it, on every network
	// that takes its networks' pods as peers.
	var peers []string
	for n := range nets {
		peers = append(peers, p.peerOf[n]...)
	}
	slices.Sort(peers)
	peers = slices.Compact(peers)
	selects := func(pe *Peer, owner string) bool {
		return (old != nil && p.peerSelects(owner, pe, ns, old)) || (now != nil && p.peerSelects(owner, pe, ns, now))
	}
	for _, n := range peers {
		nw := p.nets[n]
		for key := range nw.byNamespace[ns] {
			if s := nw.selectors[key]; selects(&s.peer, s.namespace) {
				aff[unitKey{kind: unitSelector, network: n, a: key}] = true
			}
		}
		for key := range nw.nsSelectors {
			if s := nw.selectors[key]; selects(&s.peer, s.namespace) {
				aff[unitKey{kind: unitSelector, network: n, a: key}] = true
			}
		}
	}
	if named {
		p.namedUnits(aff, append(peers, p.servedBy[ns]...))
	}
}

// namedUnits marks the units of the policies with named ports on
// networks.
func (p *Planner) namedUnits(aff affected, networks []string) {
	for _, n := range networks {
		nw := p.nets[n]
		if nw == nil {
			continue
		}
		for _, ns := range nw.namespaces {
			for _, pol := range p.policies[ns] {
				if hasNamedPorts(pol) {
					aff[unitKey{kind: unitPolicy, network: n, a: ns, b: pol.Name}] = true
				}
			}
		}
	}
}

func hasNamedPorts(pol *Policy) bool {
	for _, rules := range [][]Rule{pol.Ingress, pol.Egress} {
		for _, r := range rules {
			for _, pt := range r.Ports {
				if pt.Name != "" {
					return true
				}
			}
		}
	}
	return false
}

// recompute replans the units and returns the changes between their old
// and new rows.
func (p *Planner) recompute(aff affected) (topology.Changes, error) {
	keys := slices.SortedFunc(maps.Keys(aff), compareUnits)
	var before, after []topology.Object
	for _, k := range keys {
		before = append(before, p.units[k]...)
		rows := p.unitRows(k)
		after = append(after, rows...)
		if len(rows) == 0 {
			delete(p.units, k)
		} else {
			p.units[k] = rows
		}
	}
	return topology.ObjectChanges(before, after)
}

// unitRows plans one unit as it is now.
func (p *Planner) unitRows(k unitKey) []topology.Object {
	switch k.kind {
	case unitMeter:
		return p.meterRows()
	case unitIsolation:
		return p.isolationRows()
	}
	nw := p.nets[k.network]
	if nw == nil {
		return nil
	}
	switch k.kind {
	case unitNetwork:
		return p.networkRows(nw)
	case unitDeny:
		return p.denyRows(nw, k.a)
	case unitPolicy:
		if pol := p.policies[k.a][k.b]; pol != nil {
			return p.policyRows(nw, pol)
		}
	case unitSelector:
		if s := nw.selectors[k.a]; s != nil {
			return p.selectorRows(nw, k.a, s)
		}
	case unitMulticast:
		return p.multicastRows(nw, k.a)
	}
	return nil
}
