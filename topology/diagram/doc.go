// Package diagram draws the logical topology of a topology.State — its
// switches, routers, the ports between them with their addresses, the
// remote ends of transit switches and routers, the physical networks of
// localnet ports — as Graphviz DOT or Mermaid text, grouped by owner (a
// network, a ClusterNetworkConnect, the links between a namespace's primary
// networks), in the spirit of the seeds' diagrams.
//
// Of builds the Graph both renderers draw. Everything is pure and
// deterministic: groups sorted by label, vertices by ID, edges by their
// ends, so the same State draws the same text byte for byte (golden
// files). Rendering an image is the caller's business: `dot -Tsvg` reads
// DOT's output, and Mermaid's renders wherever Markdown does.
//
// A port whose other end the State does not hold (a switch port naming a
// router port of another plan) is drawn as a plain vertex marked "(not in
// this plan)" rather than dropped.
package diagram
