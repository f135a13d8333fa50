package policy

import (
	"net/netip"
	"slices"
)

// Endpoint is one end of a connection: a pod (Namespace and Name) or an
// address outside the pods planned (IP).
type Endpoint struct {
	Namespace, Name string
	IP              netip.Addr
}

// Allows answers, by the NetworkPolicy API's semantics and the planner's
// peers, whether a new connection from one endpoint to another on a
// protocol and destination port is allowed: a pod source by its
// namespace's egress policies that select it, a pod destination by its
// ingress ones (no such policy: allowed), both pods on networks whose pods
// are peers (the same network, connected ones, a namespace's primaries).
// It reads the plan's input, not its rows: the rows are what enforces it,
// as the real-OVN test proves with ovn-trace.
func (p *Planner) Allows(from, to Endpoint, proto Protocol, port int32) bool {
	return p.allows(from, to, proto, port, true)
}

// AllowsEgress is Allows without the destination's ingress policies: what
// the source's zone enforces when the destination pod lives in another
// zone (its ingress ACLs are on its own node's switch).
func (p *Planner) AllowsEgress(from, to Endpoint, proto Protocol, port int32) bool {
	return p.allows(from, to, proto, port, false)
}

// allows is Allows, reading the destination's ingress policies when
// ingress is set.
func (p *Planner) allows(from, to Endpoint, proto Protocol, port int32, ingress bool) bool {
	src, dst := p.endpointPod(from), p.endpointPod(to)
	if src != nil && dst != nil && !p.connected(src, dst) {
		return false
	}
	if src != nil && !p.admits(src, Egress, dst, to.IP, dst, proto, port) {
		return false
	}
	if ingress && dst != nil && !p.admits(dst, Ingress, src, from.IP, dst, proto, port) {
		return false
	}
	return true
}

func (p *Planner) endpointPod(e Endpoint) *Pod {
	if e.Name == "" {
		return nil
	}
	return p.pods[e.Namespace][e.Name]
}

// connected reports whether a network of dst is among the peers of a
// network of src.
func (p *Planner) connected(src, dst *Pod) bool {
	for _, a := range src.Networks {
		nw := p.nets[a.Network]
		if nw == nil {
			continue
		}
		for _, b := range dst.Networks {
			if slices.Contains(nw.domain, b.Network) {
				return true
			}
		}
	}
	return false
}

// admits reports whether the policies of pod's namespace let it send
// (Egress) to or take (Ingress) from the peer (a pod, or an address); the
// port resolves on target, the destination pod.
func (p *Planner) admits(pod *Pod, dir PolicyType, peer *Pod, peerIP netip.Addr, target *Pod, proto Protocol, port int32) bool {
	if len(p.servedBy[pod.Namespace]) == 0 {
		return true // no primary network here: not this planner's policies
	}
	selected := false
	for _, pol := range p.policies[pod.Namespace] {
		in, eg := pol.Types()
		if (dir == Ingress && !in) || (dir == Egress && !eg) || !pol.PodSelector.Matches(pod.Labels) {
			continue
		}
		selected = true
		rules := pol.Ingress
		if dir == Egress {
			rules = pol.Egress
		}
		for _, r := range rules {
			if p.ruleAdmits(pol, r, peer, peerIP, target, proto, port) {
				return true
			}
		}
	}
	return !selected
}

func (p *Planner) ruleAdmits(pol *Policy, r Rule, peer *Pod, peerIP netip.Addr, target *Pod, proto Protocol, port int32) bool {
	if len(r.Ports) > 0 && !slices.ContainsFunc(r.Ports, func(pt Port) bool { return portAdmits(pt, target, proto, port) }) {
		return false
	}
	if len(r.Peers) == 0 {
		return true
	}
	var ips []netip.Addr
	if peer != nil {
		for _, a := range peer.Networks {
			ips = append(ips, a.IPs...)
		}
	} else if peerIP.IsValid() {
		ips = []netip.Addr{peerIP}
	}
	for i := range r.Peers {
		pe := &r.Peers[i]
		if pe.IPBlock != nil {
			if slices.ContainsFunc(ips, pe.IPBlock.contains) {
				return true
			}
			continue
		}
		if peer != nil && p.peerSelects(pol.Namespace, pe, peer.Namespace, peer) {
			return true
		}
	}
	return false
}

func (b *IPBlock) contains(ip netip.Addr) bool {
	if !b.CIDR.Masked().Contains(ip) {
		return false
	}
	return !slices.ContainsFunc(b.Except, func(e netip.Prefix) bool { return e.Masked().Contains(ip) })
}

// portAdmits reports whether a rule port admits the protocol and port,
// a named one as the destination pod resolves it.
func portAdmits(pt Port, target *Pod, proto Protocol, port int32) bool {
	if pt.Protocol != proto {
		return false
	}
	switch {
	case pt.Name != "":
		return target != nil && slices.ContainsFunc(target.Ports, func(cp ContainerPort) bool {
			return cp.Name == pt.Name && cp.Protocol == proto && cp.Number == port
		})
	case pt.Number == 0:
		return true
	case pt.EndPort != 0:
		return port >= pt.Number && port <= pt.EndPort
	}
	return port == pt.Number
}
