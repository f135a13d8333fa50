package main

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"

	"github.com/spf13/cobra"
	"sigs.k8s.io/yaml"

	"github.com/udnkit/udnkit/backend/nbctl"
	"github.com/udnkit/udnkit/backend/ovnnb"
	"github.com/udnkit/udnkit/internal/manifest"
	"github.com/udnkit/udnkit/topology"
)

var planFormats = []string{"text", "json", "yaml", "nbctl", "stored", "ip", "nft", "ofctl"}

func newPlan(s streams) *cobra.Command {
	var in inputs
	var zone, format string
	var all bool
	var nf nodeFlags
	c := &cobra.Command{
		Use:   "plan -f FILE|DIR|- [--zone NODE | --all-zones] [-o text|json|yaml|nbctl|stored|ip|nft|ofctl]",
		Short: "Print the Northbound state a zone should hold",
		Long: `plan builds the cluster from the manifests — the allocations their annotations store restored,
what is missing allocated and reported on stderr as "allocated: <Kind> <name>: <annotation>=<value>"
— and prints the desired OVN Northbound state of a zone: every network, every link between a
namespace's primary networks, every accepted ClusterNetworkConnect, the pods' ports, the
Services' load balancers (from the EndpointSlices mirrored onto the networks), the
NetworkPolicies' port groups and ACLs, the EgressIPs' reroute and no-reroute policies (egress
nodes are those labelled k8s.ovn.org/egress-assignable; a mark not in an EgressIP's
k8s.ovn.org/egressip-mark is allocated and reported) and the EgressQoSes' QoS rows.

A zone is a node's name (interconnect: every node its own zone). Without --zone, the first zone
of a ready node (sorted by name); --all-zones plans each.

Formats: text (one line per row, sorted), json and yaml (the rows as the OVN adapter writes
them: table, key, owner, columns, references), nbctl (an ovn-nbctl script that creates the
state in an empty database), stored (the input objects as the cluster stores them once planned:
every allocation in the annotations of the Nodes, NADs, connects, EgressIPs and pods, the
EgressIPs' status.items, the NADs of UDNs and CUDNs rendered where missing; planning that output
again allocates nothing and plans the same).

Node formats print what the zone's node itself should hold for its primary networks: ip (the
ip commands that create the VRFs, management ports, routes and rules on an empty node, and the
plan's warnings as comments), nft (the nftables ruleset of table inet ovn-kubernetes, for
nft -f) and ofctl (the gateway bridge's ovs-ofctl add-flow commands, an egress node's SNAT of
the EgressIPs' marks among them). The OpenFlow port numbers
only the node knows come from --uplink (default eth0:1), --default-patch-ofport (default 2) and
--patch-ofport NETWORK=N; a primary network not given one takes the next free number after the
default patch port's, in network-name order (3, 4, ...).`,
		Example: `  udnkit plan -f examples/manifests/seed-000.yaml
  udnkit plan -f examples/manifests/seed-004.yaml --zone ovn-control-plane -o nbctl
  udnkit plan -f examples/manifests/quickstart.yaml -o stored > stored.yaml; udnkit plan -f stored.yaml
  udnkit plan -f examples/manifests/seed-001.yaml --zone ovn-worker -o ip --kubelet-cgroup kubelet.slice/kubelet.service
  udnkit plan -f examples/manifests/seed-001.yaml --zone ovn-worker -o ofctl --uplink ens3:1 --patch-ofport blue_blue-network=7
  udnkit plan -f examples/manifests/egress.yaml --zone ovn-worker -o ofctl
  kubectl get nodes,namespaces,network-attachment-definitions,userdefinednetworks,clusteruserdefinednetworks,clusternetworkconnects,pods,services,endpointslices,networkpolicies,egressips,egressqoses -A -o yaml | udnkit plan -f - --all-zones -o json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !slices.Contains(planFormats, format) {
				return fmt.Errorf("-o: %q is not one of %v", format, planFormats)
			}
			set, l, err := in.load(s)
			if err != nil {
				return err
			}
			if format == "stored" {
				return writeStored(s.out, in.objs, set, l)
			}
			zs, err := zones(l, zone, all)
			if err != nil {
				return err
			}
			if slices.Contains(nodeFormats, format) {
				local, err := nf.local(l.Cluster)
				if err != nil {
					return err
				}
				return writeNodePlans(s.out, s.errOut, format, l.Cluster, local, zs, all)
			}
			states, err := planZones(l, zs)
			if err != nil {
				return err
			}
			return writePlan(s.out, format, zs, states, all)
		},
	}
	in.register(c)
	c.Flags().StringVar(&zone, "zone", "", "the zone to plan (a node's name); default the first zone of a ready node")
	c.Flags().BoolVar(&all, "all-zones", false, "plan every zone of a ready node")
	c.Flags().StringVarP(&format, "output", "o", "text", "output format: text, json, yaml, nbctl, stored, ip, nft or ofctl")
	nf.register(c)
	_ = c.RegisterFlagCompletionFunc("output", cobra.FixedCompletions(planFormats, cobra.ShellCompDirectiveNoFileComp))
	return c
}

// writeStored writes the objects as the cluster stores them once planned
// (manifest.Annotate), as one YAML List.
func writeStored(w io.Writer, objs []manifest.Object, set *manifest.Set, l *manifest.Loaded) error {
	stored, err := manifest.Annotate(objs, set, l)
	if err != nil {
		return err
	}
	list, err := manifest.List(stored)
	if err != nil {
		return err
	}
	b, err := yaml.JSONToYAML(list)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// writePlan writes the states of zones in format; all says whether they
// are every zone (a list even of one).
func writePlan(w io.Writer, format string, zs []string, states []topology.State, all bool) error {
	switch format {
	case "text", "nbctl":
		for i, st := range states {
			if all {
				if i > 0 {
					fmt.Fprintln(w)
				}
				fmt.Fprintf(w, "# zone %s\n", zs[i])
			}
			if format == "text" {
				if _, err := st.WriteTo(w); err != nil {
					return err
				}
				continue
			}
			if err := nbctl.Render(w, topology.Diff(topology.State{}, st), nbctl.Config{}); err != nil {
				return err
			}
		}
		return nil
	}
	var doc any
	if all {
		list := planList{Kind: "PlanList"}
		for i, st := range states {
			p, err := planDoc(zs[i], st)
			if err != nil {
				return err
			}
			list.Items = append(list.Items, p)
		}
		doc = list
	} else {
		p, err := planDoc(zs[0], states[0])
		if err != nil {
			return err
		}
		doc = p
	}
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	if format == "yaml" {
		if b, err = yaml.JSONToYAML(b); err != nil {
			return err
		}
		_, err = w.Write(b)
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}

// plan is a zone's state as JSON: the rows the OVN adapter writes.
type plan struct {
	Kind     string   `json:"kind"`
	Zone     string   `json:"zone"`
	Networks []string `json:"networks"`
	Rows     []row    `json:"rows"`
}

type planList struct {
	Kind  string `json:"kind"`
	Items []plan `json:"items"`
}

// row is one object as its Northbound row.
type row struct {
	Kind    string         `json:"kind"`
	Key     string         `json:"key"`
	Owner   owner          `json:"owner"`
	Table   string         `json:"table"`
	Columns map[string]any `json:"columns,omitempty"`
	Refs    []ref          `json:"references,omitempty"`
	Parent  *ref           `json:"parent,omitempty"`
}

type owner struct {
	Controller string `json:"controller"`
	Network    string `json:"network"`
	Topology   string `json:"topology,omitempty"`
	Role       string `json:"role,omitempty"`
	Node       string `json:"node,omitempty"`
}

type ref struct {
	Column string   `json:"column"`
	Table  string   `json:"table"`
	Names  []string `json:"names"`
}

func planDoc(zone string, st topology.State) (plan, error) {
	p := plan{Kind: "Plan", Zone: zone, Networks: st.Networks(), Rows: []row{}}
	if p.Networks == nil {
		p.Networks = []string{}
	}
	for o := range st.Objects() {
		r, err := ovnnb.RowOf(o)
		if err != nil {
			return plan{}, fmt.Errorf("%s %s: %w", o.Kind(), o.Key(), err)
		}
		ow := o.OwnedBy()
		ctl := ow.Controller
		if ctl == "" {
			ctl = topology.ControllerTopology
		}
		out := row{Kind: o.Kind().String(), Key: o.Key(), Table: r.Table, Columns: r.Columns,
			Owner: owner{Controller: string(ctl), Network: ow.Network, Topology: string(ow.Topology), Role: string(ow.Role), Node: ow.Node}}
		for _, x := range r.Refs {
			out.Refs = append(out.Refs, ref{Column: x.Column, Table: x.Table, Names: x.Names})
		}
		if r.Parent != nil {
			out.Parent = &ref{Column: r.Parent.Column, Table: r.Parent.Table, Names: r.Parent.Names}
		}
		p.Rows = append(p.Rows, out)
	}
	return p, nil
}
