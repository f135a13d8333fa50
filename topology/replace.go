package topology

import (
	"maps"
	"slices"
)

// Replace returns s with every partition of the controller's rows of
// network dropped and with's partitions put in their place; the result
// still speaks for (c, network), so Diff(s, s.Replace(c, n, RemovalFor(c,
// n))) deletes those rows and nothing else. with should hold only rows of
// (c, network); s and with are not modified, and the partitions of every
// other (controller, network) pair stay shared with s, so a Diff between s
// and the result costs what changed.
func (s State) Replace(c Controller, network string, with State) State {
	c = c.canon()
	out := s.without(func(k partKey) bool { return k.ctl == c && k.network == network })
	out.scope = append(out.scope, scopeKey{ctl: c, network: network})
	out.overlay(with)
	return out
}

// without returns s without the partitions drop names, in a map of its
// own, with s's scope.
func (s State) without(drop func(partKey) bool) State {
	out := State{parts: make(map[partKey]*part, len(s.parts)), scope: slices.Clone(s.scope), partial: s.partial, nodes: s.nodes}
	for k, p := range s.parts {
		if !drop(k) {
			out.parts[k] = p
			out.n += len(p.entries)
		}
	}
	return out
}

// ReplaceNode returns s with every partition owned by the node dropped, of
// every controller and network, and parts' partitions put in their place
// (the parts of PlanNodes for that node, say). The scope is s's and the
// parts'; s and parts are not modified.
func (s State) ReplaceNode(node string, parts ...State) State {
	out := s.without(func(k partKey) bool { return k.node == node })
	out.overlay(parts...) // out's map is its own
	return out
}

// Partial returns the part of s owned by the nodes ("" names the
// network-wide objects), as an incremental State that speaks for those
// nodes only, in s's (controller, network) pairs: Diff(observed,
// s.Partial(n)) touches node n's rows and nothing else, at a cost that
// does not grow with the other nodes.
func (s State) Partial(nodes ...string) State {
	only := slices.Sorted(slices.Values(nodes))
	only = slices.Compact(only)
	out := State{parts: map[partKey]*part{}, scope: slices.Clone(s.scope), partial: true, nodes: only}
	for k, p := range s.parts {
		if _, ok := slices.BinarySearch(only, k.node); ok {
			out.parts[k] = p
			out.n += len(p.entries)
		}
	}
	return out
}

// Empty returns a State with s's scope and no object: Diff(s, s.Empty())
// deletes everything s holds.
func (s State) Empty() State {
	return State{scope: slices.Clone(s.scope), partial: s.partial, nodes: slices.Clone(s.nodes)}
}

// Scope returns the networks the State speaks for on the controller's
// behalf, sorted.
func (s State) Scope(c Controller) []string {
	c = c.canon()
	var out []string
	for _, k := range s.scope {
		if k.ctl == c {
			out = append(out, k.network)
		}
	}
	return out
}

// ReplaceEach is Replace for several networks of one controller at once
// (with maps a network to its rows), copying s once.
func (s State) ReplaceEach(c Controller, with map[string]State) State {
	c = c.canon()
	out := s.without(func(k partKey) bool {
		_, replaced := with[k.network]
		return k.ctl == c && replaced
	})
	states := make([]State, 0, len(with))
	for _, network := range slices.Sorted(maps.Keys(with)) {
		out.scope = append(out.scope, scopeKey{ctl: c, network: network})
		states = append(states, with[network])
	}
	out.overlay(states...) // sorts the scope once
	return out
}

// ReplaceController returns s with every partition of the controller's
// rows dropped and with's put in their place (with should hold only that
// controller's rows); the scope is s's and with's.
func (s State) ReplaceController(c Controller, with State) State {
	c = c.canon()
	out := s.without(func(k partKey) bool { return k.ctl == c })
	out.overlay(with)
	return out
}
