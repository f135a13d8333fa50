package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"strings"

	"github.com/spf13/cobra"

	"github.com/udnkit/udnkit"
	"github.com/udnkit/udnkit/internal/manifest"
	"github.com/udnkit/udnkit/netconf"
	"github.com/udnkit/udnkit/netconf/udn"
	"github.com/udnkit/udnkit/topology"
)

// Exit codes.
const (
	exitOK = 0
	// exitFailed: an error, invalid objects, or (diff) a difference.
	exitFailed = 1
	// exitError is diff's code for an error, 1 being "differs".
	exitError = 2
)

// exitErr ends the command with code, after printing err when it is not
// nil.
type exitErr struct {
	code int
	err  error
}

func (e *exitErr) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit %d", e.code)
	}
	return e.err.Error()
}

func (e *exitErr) Unwrap() error { return e.err }

// streams are the command's standard files, and what stderr's terminal
// allows.
type streams struct {
	in          io.Reader
	out, errOut io.Writer
	term        terminal
}

// run runs the command line args with plain output and returns the exit
// code.
func run(ctx context.Context, args []string, in io.Reader, out, errOut io.Writer) int {
	return runStreams(ctx, args, streams{in: in, out: out, errOut: errOut})
}

// runStreams runs the command line args on s and returns the exit code.
func runStreams(ctx context.Context, args []string, s streams) int {
	errOut := s.errOut
	root := newRoot(s)
	root.SetArgs(args)
	cmd, err := root.ExecuteContextC(ctx)
	if err == nil {
		return exitOK
	}
	var e *exitErr
	if errors.As(err, &e) {
		if e.err != nil {
			fmt.Fprintln(errOut, s.term.paint(sgrRed, "error:"), e.err)
		}
		return e.code
	}
	fmt.Fprintln(errOut, s.term.paint(sgrRed, "error:"), err)
	if cmd != nil && cmd.Name() == "diff" { // 1 means "differs"
		return exitError
	}
	return exitFailed
}

func newRoot(s streams) *cobra.Command {
	root := &cobra.Command{
		Use:   "udnkit",
		Short: "Plan, diff, apply, explain, draw and verify Kubernetes user-defined networks on OVN",
		Long: `udnkit reads the objects kubectl prints — Nodes, Namespaces, NetworkAttachmentDefinitions,
UserDefinedNetworks, ClusterUserDefinedNetworks, ClusterNetworkConnects, Pods, Services and
EndpointSlices — and shows what OVN should hold for them: it restores the allocations the
objects' annotations store (node IDs, host subnets, network IDs, tunnel keys, connect subnets,
pods' addresses), allocates what is missing, and plans the Northbound state of a zone. No
kubeconfig is read: files or stdin in.

  kubectl get nodes,namespaces,network-attachment-definitions,userdefinednetworks,\
    clusteruserdefinednetworks,clusternetworkconnects,pods,services,endpointslices -A -o yaml > cluster.yaml
  udnkit plan -f cluster.yaml`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetIn(s.in)
	root.SetOut(s.out)
	root.SetErr(s.errOut)
	root.AddCommand(newValidate(s), newPlan(s), newDiff(s), newApply(s), newExplain(s), newDraw(s), newVerify(s))
	return root
}

// inputs are the flags of every command that reads manifests, and the
// objects read.
type inputs struct {
	objs         []manifest.Object
	files        []string
	profile      string
	serviceCIDRs []string
	serviceIPs   []string
}

func (in *inputs) register(c *cobra.Command) {
	f := c.Flags()
	f.StringArrayVarP(&in.files, "filename", "f", nil, "a YAML or JSON file of objects (a List or --- documents), a directory of them, or - for stdin (repeatable)")
	f.StringVar(&in.profile, "profile", "seeds", "wire format: seeds (the design documents') or reference (OVN-Kubernetes')")
	f.StringArrayVar(&in.serviceCIDRs, "service-cidr", nil, "a service CIDR of the cluster: networks that overlap it are refused, connects route to it (repeatable)")
	f.StringArrayVar(&in.serviceIPs, "service-ip", nil, "a default-network cluster IP that primary networks reach through the management port, e.g. the API server's and DNS's (repeatable)")
	_ = c.MarkFlagRequired("filename")
	_ = c.RegisterFlagCompletionFunc("profile", cobra.FixedCompletions([]string{"seeds", "reference"}, cobra.ShellCompDirectiveNoFileComp))
}

// config returns the Cluster's settings the flags give.
func (in *inputs) config() (udnkit.Config, error) {
	var cfg udnkit.Config
	switch in.profile {
	case "seeds":
		cfg.Profile = udn.ProfileSeeds
	case "reference":
		cfg.Profile = udn.ProfileReference
	default:
		return cfg, fmt.Errorf("--profile: %q is neither seeds nor reference", in.profile)
	}
	for _, c := range in.serviceCIDRs {
		p, err := netconf.ParseCIDR(c)
		if err != nil {
			return cfg, fmt.Errorf("--service-cidr: %w", err)
		}
		cfg.DefaultNetwork.ServiceCIDRs = append(cfg.DefaultNetwork.ServiceCIDRs, p)
	}
	for _, a := range in.serviceIPs {
		ip, err := netip.ParseAddr(a)
		if err != nil {
			return cfg, fmt.Errorf("--service-ip: %q is not an address", a)
		}
		cfg.Cluster.ServiceIPs = append(cfg.Cluster.ServiceIPs, ip)
	}
	return cfg, nil
}

// read reads and decodes the manifests; decode errors are printed, each on
// its own line, and end the command.
func (in *inputs) read(s streams) (*manifest.Set, error) {
	objs, err := manifest.ReadPaths(in.files, s.in)
	if err != nil {
		return nil, err
	}
	in.objs = objs
	set, errs := manifest.Decode(objs)
	if len(errs) > 0 {
		for _, e := range errs {
			fmt.Fprintln(s.errOut, s.term.paint(sgrRed, "error:"), e)
		}
		return nil, &exitErr{code: exitFailed, err: fmt.Errorf("%d object(s) could not be read", len(errs))}
	}
	return set, nil
}

// load reads the manifests, refuses invalid objects (printed as kubectl
// prints them), builds the Cluster and reports to stderr what it
// allocated and left out.
func (in *inputs) load(s streams) (*manifest.Set, *manifest.Loaded, error) {
	cfg, err := in.config()
	if err != nil {
		return nil, nil, err
	}
	set, err := in.read(s)
	if err != nil {
		return nil, nil, err
	}
	if err := printInvalid(s, set); err != nil {
		return nil, nil, err
	}
	l, err := manifest.Load(set, cfg)
	if err != nil {
		return nil, nil, err
	}
	for _, a := range l.Allocated {
		fmt.Fprintln(s.errOut, "allocated:", a)
	}
	for _, n := range l.Notes {
		fmt.Fprintln(s.errOut, s.term.paint(sgrYellow, "note:"), n)
	}
	if ign := set.IgnoredKinds(); len(ign) > 0 {
		fmt.Fprintln(s.errOut, s.term.paint(sgrYellow, "note:"), "ignored:", strings.Join(ign, ", "))
	}
	return set, l, nil
}

// printInvalid prints the set's invalid objects and returns an exitErr
// when there are any.
func printInvalid(s streams, set *manifest.Set) error {
	invalid := set.Validate()
	for _, e := range invalid {
		fmt.Fprintf(s.errOut, "%s %s: %v\n", s.term.paint(sgrRed, "error:"), s.term.paint(sgrBold, e.Source), e.Err)
	}
	if len(invalid) > 0 {
		return &exitErr{code: exitFailed, err: fmt.Errorf("%d invalid object(s)", len(invalid))}
	}
	return nil
}

// zones returns the zones to plan: --zone, every zone (--all-zones), or
// the first zone of a ready node.
func zones(l *manifest.Loaded, zone string, all bool) ([]string, error) {
	if zone != "" && all {
		return nil, errors.New("--zone and --all-zones exclude each other")
	}
	if zone != "" {
		return []string{zone}, nil
	}
	zs, err := manifest.Zones(l.Cluster)
	if err != nil {
		return nil, err
	}
	if all {
		return zs, nil
	}
	return zs[:1], nil
}

// planZones plans each zone.
func planZones(l *manifest.Loaded, zs []string) ([]topology.State, error) {
	out := make([]topology.State, len(zs))
	for i, z := range zs {
		st, err := l.Cluster.Plan(z)
		if err != nil {
			return nil, err
		}
		out[i] = st
	}
	return out, nil
}
