package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os/exec"
	"slices"

	"github.com/spf13/cobra"

	"github.com/udnkit/udnkit/internal/sdkerr"
	"github.com/udnkit/udnkit/topology/diagram"
)

var drawFormats = []string{"mermaid", "dot", "svg", "png"}

// ErrNoGraphviz is returned by draw -o svg|png without Graphviz's dot.
var ErrNoGraphviz = sdkerr.New(sdkerr.Unavailable, "Graphviz's dot is not on PATH (Debian: apt-get install graphviz)")

func newDraw(s streams) *cobra.Command {
	var in inputs
	var zone, format string
	c := &cobra.Command{
		Use:   "draw -f FILE|DIR|- [--zone NODE] [-o mermaid|dot|svg|png]",
		Short: "Draw a zone's logical topology: switches, routers, ports with addresses, connect routers, links",
		Long: `draw plans the zone as plan does and draws its logical topology in the style of the design
documents' diagrams: one group per network (and per connect, per namespace's links), switches
as boxes, routers as rounded boxes, the ports between them with their addresses, the remote
ends of transit switches and routers with their chassis, the physical network of the gateways.

Mermaid and DOT are text (paste Mermaid into Markdown, feed DOT to Graphviz); svg and png run
Graphviz's dot, which must be on PATH (Debian package graphviz).`,
		Example: `  udnkit draw -f examples/manifests/seed-001.yaml -o mermaid
  udnkit draw -f examples/manifests/seed-004.yaml -o svg > seed-004.svg`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !slices.Contains(drawFormats, format) {
				return fmt.Errorf("-o: %q is not one of %v", format, drawFormats)
			}
			_, l, err := in.load(s)
			if err != nil {
				return err
			}
			zs, err := zones(l, zone, false)
			if err != nil {
				return err
			}
			st, err := l.Cluster.Plan(zs[0])
			if err != nil {
				return err
			}
			switch format {
			case "mermaid":
				_, err = io.WriteString(s.out, diagram.Mermaid(st))
			case "dot":
				_, err = io.WriteString(s.out, diagram.DOT(st))
			default:
				err = renderDOT(cmd.Context(), s.out, diagram.DOT(st), format)
			}
			return err
		},
	}
	in.register(c)
	c.Flags().StringVar(&zone, "zone", "", "the zone to draw (a node's name); default the first zone of a ready node")
	c.Flags().StringVarP(&format, "output", "o", "mermaid", "output format: mermaid, dot, svg or png")
	_ = c.RegisterFlagCompletionFunc("output", cobra.FixedCompletions(drawFormats, cobra.ShellCompDirectiveNoFileComp))
	return c
}

// renderDOT runs `dot -T<format>` on src.
func renderDOT(ctx context.Context, w io.Writer, src, format string) error {
	path, err := exec.LookPath("dot")
	if err != nil {
		return ErrNoGraphviz
	}
	cmd := exec.CommandContext(ctx, path, "-T"+format)
	cmd.Stdin = bytes.NewReader([]byte(src))
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = w, &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("dot -T%s: %w: %s", format, err, bytes.TrimSpace(stderr.Bytes()))
	}
	return nil
}
