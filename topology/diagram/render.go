package diagram

import (
	"fmt"
	"io"
	"strings"

	"github.com/udnkit/udnkit/topology"
)

// DOT returns s as a Graphviz graph: one cluster per group, switches as
// boxes, routers as rounded boxes, remote ends as dashed notes, physical
// networks as cylinders, workload and host ports as plain text.
func DOT(s topology.State) string {
	var b strings.Builder
	writeDOT(&b, Of(s))
	return b.String()
}

// Mermaid returns s as a Mermaid flowchart ("graph LR"), one subgraph per
// group, in the shapes DOT uses.
func Mermaid(s topology.State) string {
	var b strings.Builder
	writeMermaid(&b, Of(s))
	return b.String()
}

var dotShapes = map[Shape]string{
	ShapeSwitch:   `shape=box`,
	ShapeRouter:   `shape=box, style="rounded,bold"`,
	ShapeRemote:   `shape=note, style=dashed`,
	ShapeExternal: `shape=cylinder`,
	ShapePort:     `shape=plaintext`,
}

func writeDOT(w io.Writer, g Graph) {
	fmt.Fprintln(w, `graph "udnkit" {`)
	fmt.Fprintln(w, `  rankdir=LR;`)
	fmt.Fprintln(w, `  node [fontname="Helvetica", fontsize=10];`)
	fmt.Fprintln(w, `  edge [fontname="Helvetica", fontsize=8];`)
	vertex := func(indent string, v Vertex) {
		fmt.Fprintf(w, "%s%s [%s, label=%s];\n", indent, dotQuote(v.ID), dotShapes[v.Shape], dotQuote(strings.Join(v.Lines, "\n")))
	}
	for i, grp := range g.Groups {
		fmt.Fprintf(w, "  subgraph \"cluster_%d\" {\n", i)
		fmt.Fprintf(w, "    label=%s;\n", dotQuote(grp.Label))
		for _, v := range grp.Vertices {
			vertex("    ", v)
		}
		fmt.Fprintln(w, "  }")
	}
	for _, v := range g.Shared {
		vertex("  ", v)
	}
	for _, e := range g.Edges {
		attrs := ""
		if len(e.Lines) > 0 {
			attrs = " [label=" + dotQuote(strings.Join(e.Lines, "\n")) + "]"
		}
		fmt.Fprintf(w, "  %s -- %s%s;\n", dotQuote(e.From), dotQuote(e.To), attrs)
	}
	fmt.Fprintln(w, "}")
}

// dotQuote returns s as a DOT string: quotes and backslashes escaped,
// newlines as \n.
func dotQuote(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\r", ``)
	return `"` + r.Replace(s) + `"`
}

var mermaidShapes = map[Shape][2]string{
	ShapeSwitch:   {`["`, `"]`},
	ShapeRouter:   {`(["`, `"])`},
	ShapeRemote:   {`>"`, `"]`},
	ShapeExternal: {`[("`, `")]`},
	ShapePort:     {`("`, `")`},
}

func writeMermaid(w io.Writer, g Graph) {
	ids := map[string]string{}
	id := func(v string) string {
		if s, ok := ids[v]; ok {
			return s
		}
		s := fmt.Sprintf("n%d", len(ids))
		ids[v] = s
		return s
	}
	fmt.Fprintln(w, "graph LR")
	vertex := func(indent string, v Vertex) {
		sh := mermaidShapes[v.Shape]
		fmt.Fprintf(w, "%s%s%s%s%s\n", indent, id(v.ID), sh[0], mermaidText(v.Lines), sh[1])
	}
	for i, grp := range g.Groups {
		fmt.Fprintf(w, "  subgraph g%d[\"%s\"]\n", i, mermaidText([]string{grp.Label}))
		for _, v := range grp.Vertices {
			vertex("    ", v)
		}
		fmt.Fprintln(w, "  end")
	}
	for _, v := range g.Shared {
		vertex("  ", v)
	}
	for _, e := range g.Edges {
		if len(e.Lines) == 0 {
			fmt.Fprintf(w, "  %s --- %s\n", id(e.From), id(e.To))
			continue
		}
		fmt.Fprintf(w, "  %s ---|\"%s\"| %s\n", id(e.From), mermaidText(e.Lines), id(e.To))
	}
}

// mermaidText joins lines with <br/>, every character Mermaid would read
// as syntax written as an entity.
func mermaidText(lines []string) string {
	r := strings.NewReplacer(`"`, "#quot;", "<", "#lt;", ">", "#gt;", "#", "#35;", "|", "#124;", "\n", " ", "\r", " ")
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = r.Replace(l)
	}
	return strings.Join(out, "<br/>")
}
