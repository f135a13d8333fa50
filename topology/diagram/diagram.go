package diagram

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/udnkit/udnkit/topology"
)

// Shape is what a vertex of a diagram stands for.
type Shape uint8

// Shapes.
const (
	ShapeSwitch Shape = iota + 1
	ShapeRouter
	// ShapeRemote is a port bound to another node's chassis: the far end
	// of a transit switch or router, as this zone sees it.
	ShapeRemote
	// ShapeExternal is a physical network a localnet port reaches.
	ShapeExternal
	// ShapePort is a switch port to a workload or the host (the
	// management port), or a router port whose peer is not in the State.
	ShapePort
)

// String returns the shape's name.
func (s Shape) String() string {
	switch s {
	case ShapeSwitch:
		return "switch"
	case ShapeRouter:
		return "router"
	case ShapeRemote:
		return "remote"
	case ShapeExternal:
		return "external"
	case ShapePort:
		return "port"
	}
	return fmt.Sprintf("shape(%d)", uint8(s))
}

// Vertex is one switch, router or port end of a diagram.
type Vertex struct {
	// ID is unique in the graph: "switch:<name>", "router:<name>",
	// "remote:<port>", "external:<network_name>", "port:<name>".
	ID    string
	Shape Shape
	// Lines are the vertex's label, the name first.
	Lines []string
}

// Group is the vertices of one owner: a network's topology, a connect,
// the links between a namespace's primaries.
type Group struct {
	// Label names the owner: "network tenant-a_blue",
	// "udnkit-connect colored-enterprise".
	Label    string
	Vertices []Vertex
}

// Edge joins two vertices: a switch port and the router port it stands
// for, two peer router ports, a port and its remote end.
type Edge struct {
	From, To string
	// Lines are the ports and their addresses.
	Lines []string
}

// Graph is the logical topology of a State: vertices grouped by owner
// (groups sorted by label, vertices by ID), then the edges (sorted).
// Vertices no group owns (a physical network shared by every network's
// localnet ports) are in Shared.
type Graph struct {
	Groups []Group
	Shared []Vertex
	Edges  []Edge
}

// Of returns the graph of s. It is pure and deterministic.
func Of(s topology.State) Graph {
	b := builder{groups: map[string]map[string]Vertex{}, shared: map[string]Vertex{}}
	routerPorts := map[string]topology.RouterPort{}
	for _, o := range s.ObjectsOf(topology.KindRouterPort) {
		rp := o.(topology.RouterPort)
		routerPorts[rp.Name] = rp
	}
	for _, o := range s.ObjectsOf(topology.KindSwitch) {
		sw := o.(topology.Switch)
		lines := []string{"switch " + sw.Name}
		if sub, ok := sw.OtherConfig.Get("subnet"); ok {
			lines = append(lines, sub)
		}
		if key, ok := sw.OtherConfig.Get(topology.OptRequestedTnlKey); ok {
			lines = append(lines, "tunnel key "+key)
		}
		b.vertex(sw.Owner, Vertex{ID: "switch:" + sw.Name, Shape: ShapeSwitch, Lines: lines})
	}
	for _, o := range s.ObjectsOf(topology.KindRouter) {
		r := o.(topology.Router)
		lines := []string{"router " + r.Name}
		if ch, ok := r.Options.Get(topology.OptChassis); ok {
			lines = append(lines, "on "+ch)
		}
		if key, ok := r.Options.Get(topology.OptRequestedTnlKey); ok {
			lines = append(lines, "tunnel key "+key)
		}
		b.vertex(r.Owner, Vertex{ID: "router:" + r.Name, Shape: ShapeRouter, Lines: lines})
	}
	linked := map[string]bool{} // router ports a switch port stands for
	for _, o := range s.ObjectsOf(topology.KindSwitchPort) {
		p := o.(topology.SwitchPort)
		from := "switch:" + p.Switch
		switch p.Type {
		case topology.PortRouter:
			name, _ := p.Options.Get(topology.OptRouterPort)
			rp, ok := routerPorts[name]
			if !ok {
				b.vertex(p.Owner, Vertex{ID: "port:" + name, Shape: ShapePort, Lines: []string{name, "(not in this plan)"}})
				b.edge(from, "port:"+name, p.Name)
				continue
			}
			linked[name] = true
			b.edge(from, "router:"+rp.Router, p.Name, routerPortLine(rp))
		case topology.PortRemote:
			lines := append([]string{p.Name}, p.Addresses...)
			if ch, ok := p.Options.Get(topology.OptRequestedChassis); ok {
				lines = append(lines, "on "+ch)
			}
			b.vertex(p.Owner, Vertex{ID: "remote:" + p.Name, Shape: ShapeRemote, Lines: lines})
			b.edge(from, "remote:"+p.Name, tunnelKey(p.Options))
		case topology.PortLocalnet:
			net, _ := p.Options.Get(topology.OptNetworkName)
			b.shared["external:"+net] = Vertex{ID: "external:" + net, Shape: ShapeExternal, Lines: []string{"physical network " + net}}
			b.edge(from, "external:"+net, p.Name)
		default:
			b.vertex(p.Owner, Vertex{ID: "port:" + p.Name, Shape: ShapePort, Lines: append([]string{p.Name}, p.Addresses...)})
			b.edge(from, "port:"+p.Name)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(routerPorts)) {
		rp := routerPorts[name]
		if linked[name] {
			continue
		}
		from := "router:" + rp.Router
		if peer, ok := routerPorts[rp.Peer]; ok {
			if rp.Name < peer.Name || linked[peer.Name] {
				b.edge(from, "router:"+peer.Router, routerPortLine(rp), routerPortLine(peer))
			}
			continue
		}
		if ch, ok := rp.Options.Get(topology.OptRequestedChassis); ok {
			lines := append([]string{rp.Name}, prefixes(rp)...)
			b.vertex(rp.Owner, Vertex{ID: "remote:" + rp.Name, Shape: ShapeRemote, Lines: append(lines, "on "+ch)})
			b.edge(from, "remote:"+rp.Name, tunnelKey(rp.Options))
			continue
		}
		b.vertex(rp.Owner, Vertex{ID: "port:" + rp.Name, Shape: ShapePort, Lines: append([]string{rp.Name}, prefixes(rp)...)})
		b.edge(from, "port:"+rp.Name)
	}
	return b.graph()
}

func routerPortLine(rp topology.RouterPort) string {
	return strings.Join(append([]string{rp.Name}, prefixes(rp)...), " ")
}

func prefixes(rp topology.RouterPort) []string {
	out := make([]string, len(rp.Networks))
	for i, p := range rp.Networks {
		out[i] = p.String()
	}
	return out
}

func tunnelKey(o topology.Options) string {
	if k, ok := o.Get(topology.OptRequestedTnlKey); ok {
		return "tunnel key " + k
	}
	return ""
}

type builder struct {
	groups map[string]map[string]Vertex // group label → ID → vertex
	shared map[string]Vertex
	edges  []Edge
}

// groupLabel names an owner's group.
func groupLabel(o topology.Owner) string {
	if o.Controller == "" || o.Controller == topology.ControllerTopology {
		return "network " + o.Network
	}
	return string(o.Controller) + " " + o.Network
}

func (b *builder) vertex(o topology.Owner, v Vertex) {
	label := groupLabel(o)
	g, ok := b.groups[label]
	if !ok {
		g = map[string]Vertex{}
		b.groups[label] = g
	}
	if _, dup := g[v.ID]; !dup {
		g[v.ID] = v
	}
}

func (b *builder) edge(from, to string, lines ...string) {
	lines = slices.DeleteFunc(lines, func(l string) bool { return l == "" })
	b.edges = append(b.edges, Edge{From: from, To: to, Lines: lines})
}

func (b *builder) graph() Graph {
	var g Graph
	known := map[string]bool{}
	for _, label := range slices.Sorted(maps.Keys(b.groups)) {
		grp := Group{Label: label}
		for _, id := range slices.Sorted(maps.Keys(b.groups[label])) {
			if known[id] { // a vertex two owners name (a router's ports owned by another controller)
				continue
			}
			known[id] = true
			grp.Vertices = append(grp.Vertices, b.groups[label][id])
		}
		g.Groups = append(g.Groups, grp)
	}
	for _, id := range slices.Sorted(maps.Keys(b.shared)) {
		known[id] = true
		g.Shared = append(g.Shared, b.shared[id])
	}
	for _, e := range b.edges {
		for _, end := range []string{e.From, e.To} {
			if !known[end] { // a switch or router another plan holds: drawn as a plain vertex
				known[end] = true
				kind, name, _ := strings.Cut(end, ":")
				shape := ShapeSwitch
				if kind == "router" {
					shape = ShapeRouter
				}
				g.Shared = append(g.Shared, Vertex{ID: end, Shape: shape, Lines: []string{kind + " " + name, "(not in this plan)"}})
			}
		}
		g.Edges = append(g.Edges, e)
	}
	slices.SortFunc(g.Shared, func(a, b Vertex) int { return cmp.Compare(a.ID, b.ID) })
	slices.SortFunc(g.Edges, func(a, b Edge) int {
		return cmp.Or(cmp.Compare(a.From, b.From), cmp.Compare(a.To, b.To), slices.Compare(a.Lines, b.Lines))
	})
	return g
}
