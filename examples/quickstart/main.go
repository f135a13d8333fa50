// Command quickstart plans two primary user-defined networks, one Layer3
// and one Layer2, for a three-node cluster, applies them to an OVN
// Northbound database and prints what was created.
//
// The cluster is interconnected: every node is its own zone with its own
// Northbound database (a primary Layer2 network supports one node per
// zone). The quickstart programs the zone of node-a: node-a gets its
// switches, gateway routers and management ports, node-b and node-c appear
// as remote peers on the transit switch and the transit router.
//
//	go run ./examples/quickstart                          # embedded in-memory NB
//	go run ./examples/quickstart -nb tcp:127.0.0.1:6641   # a real NB
//	go run ./examples/quickstart -script                  # print the ovn-nbctl script instead (a dry run)
//
// Each is a backend.Applier: the program picks one and runs one path.
//
// The two networks' pod subnets overlap on purpose: OVN keeps them apart.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net/netip"
	"os"
	"strings"
	"time"

	"github.com/udnkit/udnkit"
	"github.com/udnkit/udnkit/backend"
	"github.com/udnkit/udnkit/backend/nbctl"
	"github.com/udnkit/udnkit/backend/ovnnb"
	"github.com/udnkit/udnkit/ipam"
	"github.com/udnkit/udnkit/netconf"
	"github.com/udnkit/udnkit/topology"
)

const udns = `
kind: UserDefinedNetwork
metadata: {name: blue, namespace: tenant-a}
spec: {topology: Layer3, role: Primary, subnets: ["10.128.0.0/16/24"]}
---
kind: UserDefinedNetwork
metadata: {name: red, namespace: tenant-b}
spec: {topology: Layer2, role: Primary, subnets: ["10.128.0.0/16"]}
`

func main() {
	nb := flag.String("nb", "", "Northbound endpoints, comma separated (unix:PATH, tcp:HOST:PORT); empty starts an embedded in-memory NB")
	script := flag.Bool("script", false, "print the ovn-nbctl script of the changes instead of applying them")
	flag.Parse()
	if err := run(context.Background(), os.Stdout, *nb, *script); err != nil {
		fmt.Fprintln(os.Stderr, "quickstart:", err)
		os.Exit(1)
	}
}

// zone is the zone programmed: node-a's own.
const zone = "node-a"

// nodes are the cluster's three nodes, each in its own zone (Zone "").
func nodes() []topology.Node {
	var out []topology.Node
	for i, name := range []string{"node-a", "node-b", "node-c"} {
		id := ipam.MinNodeID + i
		out = append(out, topology.Node{Name: name, ID: id, Chassis: "chassis-" + name,
			Addresses: []netip.Prefix{netip.PrefixFrom(netip.AddrFrom4([4]byte{172, 18, 0, byte(id)}), 16)},
			NextHops:  []netip.Addr{netip.MustParseAddr("172.18.0.1")}})
	}
	return out
}

// plan turns the UDNs into the desired OVN state of the zone.
func plan() (topology.State, error) {
	networks, err := udnkit.New(udnkit.Config{Nodes: nodes()})
	if err != nil {
		return topology.State{}, err
	}
	for _, doc := range strings.Split(udns, "---") {
		u, err := netconf.DecodeUDN([]byte(doc))
		if err != nil {
			return topology.State{}, err
		}
		if _, err := networks.AddUDN(u); err != nil {
			return topology.State{}, err
		}
	}
	return networks.Plan(zone)
}

// open returns the backend the quickstart applies to, a description of
// it, and what closes it: an ovn-nbctl script written to w (-script), a
// real Northbound database, or an embedded one.
func open(ctx context.Context, w io.Writer, endpoints string, script bool) (backend.Applier, string, func(), error) {
	if script {
		return nbctl.NewWriter(w, nbctl.Config{}, topology.State{}), "an ovn-nbctl script (dry run)", func() {}, nil
	}
	c, closeFn, err := ovnnb.Open(ctx, endpoints)
	if err != nil {
		return nil, "", nil, err
	}
	where := endpoints
	if where == "" {
		where = "embedded in-memory Northbound database"
	}
	return c, where + " (schema " + c.SchemaVersion() + ")", closeFn, nil
}

// run plans, applies through whichever backend open chose, reports, and
// applies again. With -script the report follows the script as comments.
func run(ctx context.Context, w io.Writer, endpoints string, script bool) error {
	desired, err := plan()
	if err != nil {
		return err
	}
	a, where, closeFn, err := open(ctx, w, endpoints, script)
	if err != nil {
		return err
	}
	defer closeFn()
	var out strings.Builder
	defer func() {
		text := out.String()
		if script {
			text = "\n# " + strings.ReplaceAll(strings.TrimSuffix(text, "\n"), "\n", "\n# ") + "\n"
		}
		_, _ = io.WriteString(w, text)
	}()
	fmt.Fprintf(&out, "Northbound: %s\n", where)
	fmt.Fprintf(&out, "zone: %s's (interconnect: every node its own zone; the other nodes are remote peers)\n\n", zone)

	start := time.Now()
	changes, res, err := a.Sync(ctx, desired)
	if err != nil {
		return err
	}
	took := time.Since(start)
	creates, updates, deletes := changes.Count()
	fmt.Fprintf(&out, "applied %d changes (%d create, %d update, %d delete) as %d operations in %d transaction(s), %s\n\n",
		len(changes), creates, updates, deletes, res.Operations, res.Transactions, took.Round(time.Millisecond))

	observed, err := a.Observe(ctx)
	if err != nil {
		return err
	}
	summarize(&out, observed)

	changes, res, err = a.Sync(ctx, desired)
	if err != nil {
		return err
	}
	fmt.Fprintf(&out, "\napplying the same plan again: %d changes, %d operations\n", len(changes), res.Operations)
	return nil
}

// summarize prints, per network, its routers and switches with their ports
// and the number of other objects.
func summarize(w io.Writer, s topology.State) {
	for _, network := range s.Networks() {
		n := s.Without(otherThan(s.Networks(), network)...)
		fmt.Fprintf(w, "network %s: %d objects\n", network, n.Len())
		ports := map[string][]string{}
		for o := range n.Objects() {
			switch p := o.(type) {
			case topology.SwitchPort:
				ports[p.Switch] = append(ports[p.Switch], p.Name+portNote(p))
			case topology.RouterPort:
				nets := make([]string, len(p.Networks))
				for i, x := range p.Networks {
					nets[i] = x.String()
				}
				note := ""
				if ch, ok := p.Options.Get(topology.OptRequestedChassis); ok {
					note = " (remote, on " + ch + ")"
				}
				ports[p.Router] = append(ports[p.Router], p.Name+" "+strings.Join(nets, ",")+note)
			}
		}
		counts := map[topology.Kind]int{}
		for o := range n.Objects() {
			counts[o.Kind()]++
			switch x := o.(type) {
			case topology.Router:
				fmt.Fprintf(w, "  router %s\n", x.Name)
				for _, p := range ports[x.Name] {
					fmt.Fprintf(w, "      port %s\n", p)
				}
			case topology.Switch:
				fmt.Fprintf(w, "  switch %s\n", x.Name)
				for _, p := range ports[x.Name] {
					fmt.Fprintf(w, "      port %s\n", p)
				}
			}
		}
		var other []string
		for _, k := range topology.Kinds() {
			switch k {
			case topology.KindSwitch, topology.KindRouter, topology.KindSwitchPort, topology.KindRouterPort:
				continue
			}
			if counts[k] > 0 {
				other = append(other, fmt.Sprintf("%d %s", counts[k], k))
			}
		}
		fmt.Fprintf(w, "  and %s\n", strings.Join(other, ", "))
	}
}

func portNote(p topology.SwitchPort) string {
	switch {
	case p.Type != topology.PortNormal:
		return " (" + p.Type.String() + ")"
	case len(p.Addresses) > 0:
		return " " + p.Addresses[0]
	}
	return ""
}

func otherThan(all []string, keep string) []string {
	var out []string
	for _, n := range all {
		if n != keep {
			out = append(out, n)
		}
	}
	return out
}
