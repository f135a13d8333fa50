package topology

import "slices"

// Replace returns s with every partition of the controller's rows of
// network dropped and with's partitions put in their place; the result
// still speaks for (c, network), so Diff(s, s.Replace(c, n, RemovalFor(c,
// n))) deletes those rows and nothing else. with should hold only rows of
// (c, network); s and with are not modified, and the partitions of every
// other (controller, network) pair stay shared with s, so a Diff between s
// and the result costs what changed.
func (s State) Replace(c Controller, network string, with State) State {
	c = c.canon()
	out := State{parts: make(map[partKey]*part, len(s.parts)+len(with.parts)), partial: s.partial, nodes: s.nodes}
	for k, p := range s.parts {
		if k.ctl != c || k.network != network {
			out.parts[k] = p
			out.n += len(p.entries)
		}
	}
	for k, p := range with.parts {
		if q, ok := out.parts[k]; ok {
			out.n -= len(q.entries)
		}
		out.parts[k] = p
		out.n += len(p.entries)
	}
	out.scope = append(append(make([]scopeKey, 0, len(s.scope)+len(with.scope)+1), s.scope...), with.scope...)
	out.scope = append(out.scope, scopeKey{ctl: c, network: network})
	out.scope = sortScope(out.scope)
	return out
}

// ReplaceNode returns s with every partition owned by the node dropped, of
// every controller and network, and parts' partitions put in their place
// (the parts of PlanNodes for that node, say). The scope is s's and the
// parts'; s and parts are not modified.
func (s State) ReplaceNode(node string, parts ...State) State {
	out := State{parts: make(map[partKey]*part, len(s.parts)), scope: slices.Clone(s.scope), partial: s.partial, nodes: s.nodes}
	for k, p := range s.parts {
		if node == "" || k.node != node {
			out.parts[k] = p
			out.n += len(p.entries)
		}
	}
	return out.Overlay(parts...)
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
