package main

import (
	"errors"
	"fmt"
	"os/exec"
	"slices"

	"github.com/spf13/cobra"

	"github.com/udnkit/udnkit/internal/probe"
	"github.com/udnkit/udnkit/internal/sdkerr"
	"github.com/udnkit/udnkit/topology/policy"
)

var verifyFormats = []string{"text", "json"}

// ErrNoOVNTrace is returned by verify without ovn-trace.
var ErrNoOVNTrace = sdkerr.New(sdkerr.Unavailable, "ovn-trace is not on PATH (Debian: apt-get install ovn-common)")

var protocols = map[string]policy.Protocol{"tcp": policy.TCP, "udp": policy.UDP, "sctp": policy.SCTP}

func newVerify(s streams) *cobra.Command {
	var in inputs
	var zone, nb, sb, format, tracer, proto string
	var port int32
	var networks []string
	c := &cobra.Command{
		Use:   "verify -f FILE|DIR|- --nb ENDPOINT --sb ENDPOINT [--zone NODE] [-o text|json]",
		Short: "Trace a probe between every pair of networks with ovn-trace and compare with the manifests' intent (exit 0 as meant, 1 surprise, 2 error)",
		Long: `verify plans the zone as plan does and lets ovn-trace referee what OVN does with it: from every
endpoint in the zone to every endpoint of every node, one new connection (--protocol, --port)
is traced through the logical pipelines the Southbound database holds, and judged:

  delivered  output to the destination's port, or into the tunnel toward its node on its
             network (or through the connect joining the two)
  dropped    a logical flow dropped it (the datapath and stage are named; an ACL with its match)
  left       it left OVN through a localnet port (the gateway's SNAT toward the underlay)
             without reaching the destination: how unconnected networks part
  elsewhere  output to another port (an overlapping address of another network)
  failed     ovn-trace could not trace it (a missing port)

An endpoint is a pod of the manifests (its primary network's port), or, on a node where a
network has no pod, the network's management port (k8s-<prefix><node>): a probe needs
a port the NB holds to start from, and nothing is written to the NB. Primary Layer3 and
Layer2 networks are probed. The intent: the same network, networks a ClusterNetworkConnect
with PodNetwork connectivity joins, and a namespace's primary networks are delivered;
other pairs are not; a pod's NetworkPolicies decide on top (the Cluster's Allows).

The result is a matrix of networks (rows send, columns receive; "!" marks a surprise) and
every probe. A surprise names the rows that may explain it: the rows of the two networks
(and of the connect joining them) where the NB differs from the plan, or the ACL that
dropped it. Exit 0 when every probe goes as meant, 1 on a surprise, 2 on an error.`,
		Example: `  udnkit verify -f cluster.yaml --nb tcp:127.0.0.1:6641 --sb tcp:127.0.0.1:6642 --zone ovn-worker
  udnkit verify -f cluster.yaml --nb tcp:127.0.0.1:6641 --sb tcp:127.0.0.1:6642 --network blue_blue-network --network red_red-network
  udnkit verify -f cluster.yaml --nb unix:/var/run/ovn/ovnnb_db.sock --sb unix:/var/run/ovn/ovnsb_db.sock -o json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			fail := func(err error) error {
				var e *exitErr
				if errors.As(err, &e) {
					return &exitErr{code: exitError, err: e.err}
				}
				return &exitErr{code: exitError, err: err}
			}
			if !slices.Contains(verifyFormats, format) {
				return fail(fmt.Errorf("-o: %q is not one of %v", format, verifyFormats))
			}
			l4, ok := protocols[proto]
			if !ok {
				return fail(fmt.Errorf("--protocol: %q is not tcp, udp or sctp", proto))
			}
			if port < 1 || port > 65535 {
				return fail(fmt.Errorf("--port: %d is not a port (1-65535)", port))
			}
			if nb == "" || sb == "" {
				return fail(errors.New(`required flags "nb" and "sb": verify reads the zone's Northbound database and traces in its Southbound`))
			}
			path, err := exec.LookPath(tracer)
			if err != nil {
				return fail(fmt.Errorf("--ovn-trace %s: %w", tracer, ErrNoOVNTrace))
			}
			d, err := driftOf(cmd.Context(), s, &in, zone, nb)
			if err != nil {
				return fail(err)
			}
			if len(d.changes) > 0 {
				fmt.Fprintf(s.errOut, "%s zone %s: the Northbound database differs from the plan: %s (udnkit diff lists them)\n",
					s.term.paint(sgrYellow, "note:"), d.zone, summary(d.changes))
			}
			cfg := probe.Config{Zone: d.zone, Protocol: l4, Port: port, Networks: networks}
			for _, p := range d.set.Pods {
				cfg.Pods = append(cfg.Pods, probe.PodRef{Namespace: p.Namespace, Name: p.Name, Node: p.Spec.NodeName})
			}
			plan, err := probe.Probes(d.loaded.Cluster, d.desired, cfg)
			if err != nil {
				return fail(err)
			}
			if len(plan.Probes) == 0 {
				fmt.Fprintf(s.errOut, "%s zone %s: nothing to probe: a network needs two endpoints (a Layer2 network without pods has one, its management port on the zone's node)\n",
					s.term.paint(sgrYellow, "note:"), d.zone)
			}
			bar := s.term.startProgress(s.errOut, fmt.Sprintf("zone %s: tracing %d probe(s)", d.zone, len(plan.Probes)))
			results, err := probe.Run(cmd.Context(), probe.Exec{Path: path, SB: sb}, plan, d.changes, d.observed)
			bar.end()
			if err != nil {
				return fail(err)
			}
			if failed := failedAll(results); failed != "" {
				return fail(fmt.Errorf("--sb %s: ovn-trace failed on every probe: %s", sb, failed))
			}
			report := probe.NewReport(plan, results)
			if format == "json" {
				err = report.WriteJSON(s.out)
			} else {
				err = report.WriteText(s.out)
			}
			if err != nil {
				return fail(err)
			}
			if n := report.Surprises(); n > 0 {
				return &exitErr{code: exitFailed, err: fmt.Errorf("zone %s: %d of %d probe(s) did not go as the manifests mean", d.zone, n, len(results))}
			}
			return nil
		},
	}
	in.register(c)
	f := c.Flags()
	f.StringVar(&zone, "zone", "", "the zone the databases serve (a node's name); default the first zone of a ready node")
	f.StringVar(&nb, "nb", "", "the zone's Northbound database: unix:PATH or tcp:HOST:PORT, comma separated for a cluster")
	f.StringVar(&sb, "sb", "", "the zone's Southbound database, as ovn-trace's --db takes it")
	f.StringVarP(&format, "output", "o", "text", "output format: text or json")
	f.StringVar(&tracer, "ovn-trace", "ovn-trace", "the ovn-trace program (a name looked up on PATH, or a path)")
	f.StringVar(&proto, "protocol", "tcp", "the probes' protocol: tcp, udp or sctp")
	f.Int32Var(&port, "port", 80, "the probes' destination port")
	f.StringArrayVar(&networks, "network", nil, "probe only this network (its OVN name; repeatable): the probes grow with the square of the networks")
	c.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &exitErr{code: exitError, err: err} })
	_ = c.RegisterFlagCompletionFunc("output", cobra.FixedCompletions(verifyFormats, cobra.ShellCompDirectiveNoFileComp))
	_ = c.RegisterFlagCompletionFunc("protocol", cobra.FixedCompletions([]string{"tcp", "udp", "sctp"}, cobra.ShellCompDirectiveNoFileComp))
	return c
}

// failedAll returns the error of the first result when ovn-trace failed on
// every probe (the Southbound or ovn-trace itself is at fault, not a
// probe), else "".
func failedAll(results []probe.Result) string {
	for _, r := range results {
		if r.Outcome != probe.Failed {
			return ""
		}
	}
	if len(results) == 0 {
		return ""
	}
	return results[0].Where
}
