package egressip

import (
	"cmp"
	"net/netip"
	"slices"
)

// Status is one EgressIP's status.items after Assign, sorted by IP.
type Status struct {
	EgressIP string
	Items    []Assignment
}

// Assign places every egress IP on a node, as the reference's cluster
// manager does: on a node labelled egress-assignable and ready, whose
// primary subnet holds the IP, never an IP that is a node's own address,
// at most one IP of an EgressIP per node, the node with the fewest
// assignments first (then by name), within its capacity. An assignment in
// an EgressIP's Status that is still valid is kept, so that replanning
// moves nothing; the IPs an earlier one claims are placed before new ones.
// An IP listed by two EgressIPs belongs to the first by name.
//
// It returns a Status per EgressIP (sorted by name, items by IP) and the
// IPs left without a node with their Reason (sorted by EgressIP, then IP).
// It is pure; the inputs are not modified.
func Assign(eips []EgressIP, nodes []Node) ([]Status, []Unassigned) {
	order := make([]int, len(eips))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(eips[a].Name, eips[b].Name) })

	byName := make(map[string]*Node, len(nodes))
	hostIP := make(map[netip.Addr]bool)
	anyEligible := false
	for i := range nodes {
		n := &nodes[i]
		byName[n.Name] = n
		for _, a := range n.HostIPs {
			hostIP[a.Unmap()] = true
		}
		anyEligible = anyEligible || eligible(n)
	}
	owner := make(map[netip.Addr]string) // IP -> the first EgressIP by name listing it
	for _, i := range order {
		for _, ip := range eips[i].IPs {
			if _, ok := owner[ip.Unmap()]; !ok {
				owner[ip.Unmap()] = eips[i].Name
			}
		}
	}
	count := make(map[string]int, len(nodes))
	full := func(n *Node) bool { return n.Capacity > 0 && count[n.Name] >= n.Capacity }

	out := make([]Status, len(order))
	held := make([]map[string]bool, len(order)) // nodes holding an IP of the EgressIP
	done := make([]map[netip.Addr]bool, len(order))
	// Keep what is still valid.
	for k, i := range order {
		e := &eips[i]
		out[k].EgressIP = e.Name
		held[k], done[k] = map[string]bool{}, map[netip.Addr]bool{}
		for _, a := range e.Status {
			ip := a.IP.Unmap()
			n := byName[a.Node]
			if n == nil || !eligible(n) || done[k][ip] || held[k][n.Name] || owner[ip] != e.Name ||
				!slices.Contains(e.IPs, a.IP) || hostIP[ip] || !inSubnets(n, ip) || full(n) {
				continue
			}
			out[k].Items = append(out[k].Items, Assignment{Node: n.Name, IP: a.IP})
			held[k][n.Name], done[k][ip] = true, true
			count[n.Name]++
		}
	}
	// Place the rest.
	var unassigned []Unassigned
	for k, i := range order {
		e := &eips[i]
		for _, ip := range e.IPs {
			u := ip.Unmap()
			if done[k][u] {
				continue
			}
			done[k][u] = true
			n, why := pick(nodes, u, held[k], count, full, anyEligible, owner[u] != e.Name, hostIP[u])
			if n == nil {
				unassigned = append(unassigned, Unassigned{EgressIP: e.Name, IP: ip, Reason: why})
				continue
			}
			out[k].Items = append(out[k].Items, Assignment{Node: n.Name, IP: ip})
			held[k][n.Name] = true
			count[n.Name]++
		}
		slices.SortFunc(out[k].Items, func(a, b Assignment) int { return a.IP.Compare(b.IP) })
	}
	slices.SortFunc(unassigned, func(a, b Unassigned) int {
		return cmp.Or(cmp.Compare(a.EgressIP, b.EgressIP), a.IP.Compare(b.IP))
	})
	return out, unassigned
}

// pick returns the node that takes ip, or the reason none does.
func pick(nodes []Node, ip netip.Addr, held map[string]bool, count map[string]int, full func(*Node) bool,
	anyEligible, conflict, hostIP bool) (*Node, Reason) {
	switch {
	case conflict:
		return nil, ReasonConflict
	case !anyEligible:
		return nil, ReasonNoEgressNode
	case hostIP:
		return nil, ReasonNodeIP
	}
	var best *Node
	why := ReasonNoSubnet
	for i := range nodes {
		n := &nodes[i]
		if !eligible(n) || !inSubnets(n, ip) {
			continue
		}
		if held[n.Name] {
			why = max(why, ReasonNodesTaken)
			continue
		}
		if full(n) {
			why = ReasonCapacity
			continue
		}
		if best == nil || count[n.Name] < count[best.Name] || count[n.Name] == count[best.Name] && n.Name < best.Name {
			best = n
		}
	}
	if best == nil {
		return nil, why
	}
	return best, 0
}

func eligible(n *Node) bool { return n.Assignable && n.Ready }

func inSubnets(n *Node, ip netip.Addr) bool {
	for _, s := range n.Subnets {
		if s.Masked().Contains(ip) {
			return true
		}
	}
	return false
}
