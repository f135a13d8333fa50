package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/spf13/cobra"

	"github.com/udnkit/udnkit/backend/nbctl"
	"github.com/udnkit/udnkit/backend/ovnnb"
	"github.com/udnkit/udnkit/internal/manifest"
	"github.com/udnkit/udnkit/topology"
)

var changeFormats = []string{"text", "nbctl"}

// writeChanges writes changes as text or as an ovn-nbctl script.
func writeChanges(w io.Writer, format string, changes topology.Changes) error {
	if format == "nbctl" {
		return nbctl.Render(w, changes, nbctl.Config{})
	}
	_, err := io.WriteString(w, changes.String())
	return err
}

func summary(changes topology.Changes) string {
	c, u, d := changes.Count()
	return fmt.Sprintf("%d change(s): %d create, %d update, %d delete", len(changes), c, u, d)
}

func newDiff(s streams) *cobra.Command {
	var in inputs
	var zone, endpoint, format string
	c := &cobra.Command{
		Use:   "diff -f FILE|DIR|- --nb ENDPOINT [--zone NODE] [-o text|nbctl]",
		Short: "Show what apply would change in a live Northbound database (exit 0 same, 1 differs, 2 error)",
		Long: `diff plans the zone as plan does, reads the rows udnkit owns from the Northbound database
and prints the changes that would make it hold the plan: as text (one change per line, the row
after a create or update) or as an ovn-nbctl script. Rows of other controllers and of networks
the plan does not speak for are never compared. Like diff(1), the exit code is 0 when nothing
differs, 1 when something does, 2 on an error: drift detection for a running cluster.`,
		Example: `  udnkit diff -f cluster.yaml --nb tcp:127.0.0.1:6641 --zone ovn-worker
  udnkit diff -f cluster.yaml --nb unix:/var/run/ovn/ovnnb_db.sock -o nbctl > repair.sh`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			fail := func(err error) error {
				if e, ok := err.(*exitErr); ok {
					return &exitErr{code: exitError, err: e.err}
				}
				return &exitErr{code: exitError, err: err}
			}
			if !slices.Contains(changeFormats, format) {
				return fail(fmt.Errorf("-o: %q is not one of %v", format, changeFormats))
			}
			if endpoint == "" {
				return fail(errors.New(`required flag "nb" not set: diff compares with a live Northbound database`))
			}
			d, err := driftOf(cmd.Context(), s, &in, zone, endpoint)
			if err != nil {
				return fail(err)
			}
			if len(d.changes) == 0 {
				fmt.Fprintf(s.errOut, "zone %s: no differences\n", d.zone)
				return nil
			}
			if err := writeChanges(s.out, format, d.changes); err != nil {
				return fail(err)
			}
			fmt.Fprintf(s.errOut, "zone %s: %s\n", d.zone, summary(d.changes))
			return &exitErr{code: exitFailed}
		},
	}
	in.register(c)
	c.Flags().StringVar(&zone, "zone", "", "the zone the database serves (a node's name); default the first zone of a ready node")
	c.Flags().StringVar(&endpoint, "nb", "", "the Northbound database: unix:PATH or tcp:HOST:PORT, comma separated for a cluster")
	c.Flags().StringVarP(&format, "output", "o", "text", "output format: text or nbctl")
	c.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &exitErr{code: exitError, err: err} })
	_ = c.RegisterFlagCompletionFunc("output", cobra.FixedCompletions(changeFormats, cobra.ShellCompDirectiveNoFileComp))
	return c
}

func newApply(s streams) *cobra.Command {
	var in inputs
	var zone, endpoint, format string
	var dryRun bool
	c := &cobra.Command{
		Use:   "apply -f FILE|DIR|- [--nb ENDPOINT] [--zone NODE] [--dry-run]",
		Short: "Make a Northbound database hold a zone's plan (default: an embedded one)",
		Long: `apply plans the zone as plan does, reads the rows udnkit owns from the Northbound database,
and writes the difference in one transaction; applying the same manifests again writes nothing.
On a terminal, a spinner with the elapsed time shows the step under way (planning, syncing);
a pipe or file gets only the one-line summary.
Without --nb it starts an embedded in-memory Northbound database (the OVN 25.03 schema), applies
to it and says what it did: a way to try the SDK without OVN. --dry-run prints the changes (as
an ovn-nbctl script, or text with -o text) and writes nothing.`,
		Example: `  udnkit apply -f examples/manifests/seed-000.yaml
  udnkit apply -f cluster.yaml --nb tcp:127.0.0.1:6641 --zone ovn-worker
  udnkit apply -f cluster.yaml --nb tcp:127.0.0.1:6641 --dry-run`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !slices.Contains(changeFormats, format) {
				return fmt.Errorf("-o: %q is not one of %v", format, changeFormats)
			}
			_, l, err := in.load(s)
			if err != nil {
				return err
			}
			zs, err := zones(l, zone, false)
			if err != nil {
				return err
			}
			bar := s.term.startProgress(s.errOut, "planning zone "+zs[0])
			desired, err := l.Cluster.Plan(zs[0])
			bar.end()
			if err != nil {
				return err
			}
			client, closeFn, err := ovnnb.Open(cmd.Context(), endpoint)
			if err != nil {
				return fmt.Errorf("--nb %s: %w", endpoint, err)
			}
			defer closeFn()
			where := endpoint
			if where == "" {
				where = "embedded in-memory database"
			}
			fmt.Fprintf(s.errOut, "Northbound: %s (schema %s)\n", where, client.SchemaVersion())
			if dryRun {
				bar := s.term.startProgress(s.errOut, fmt.Sprintf("zone %s: reading %s", zs[0], where))
				observed, err := client.Observe(cmd.Context())
				bar.end()
				if err != nil {
					return err
				}
				changes := topology.Diff(observed, desired)
				if err := writeChanges(s.out, format, changes); err != nil {
					return err
				}
				fmt.Fprintf(s.errOut, "zone %s: dry run: %s, nothing written\n", zs[0], summary(changes))
				return nil
			}
			bar = s.term.startProgress(s.errOut, fmt.Sprintf("zone %s: syncing %d row(s) with %s", zs[0], desired.Len(), where))
			changes, res, err := client.Sync(cmd.Context(), desired)
			bar.end()
			if err != nil {
				return err
			}
			if len(changes) == 0 {
				fmt.Fprintf(s.out, "zone %s: nothing to change\n", zs[0])
				return nil
			}
			fmt.Fprintf(s.out, "zone %s: applied %s (%d row(s), %d operation(s) in %d transaction(s))\n",
				zs[0], summary(changes), res.Rows, res.Operations, res.Transactions)
			return nil
		},
	}
	in.register(c)
	c.Flags().StringVar(&zone, "zone", "", "the zone the database serves (a node's name); default the first zone of a ready node")
	c.Flags().StringVar(&endpoint, "nb", "", "the Northbound database: unix:PATH or tcp:HOST:PORT, comma separated for a cluster; empty starts an embedded one")
	c.Flags().BoolVar(&dryRun, "dry-run", false, "print the changes, write nothing")
	c.Flags().StringVarP(&format, "output", "o", "nbctl", "format of --dry-run's changes: nbctl or text")
	_ = c.RegisterFlagCompletionFunc("output", cobra.FixedCompletions(changeFormats, cobra.ShellCompDirectiveNoFileComp))
	return c
}

// zoneDrift is a zone's plan beside what its Northbound database holds.
type zoneDrift struct {
	set               *manifest.Set
	loaded            *manifest.Loaded
	zone              string
	desired, observed topology.State
	changes           topology.Changes
}

// driftOf loads the manifests, plans the zone (the first ready one when
// zone is empty) and reads the rows udnkit owns from the database at
// endpoint: what diff and verify both start from.
func driftOf(ctx context.Context, s streams, in *inputs, zone, endpoint string) (zoneDrift, error) {
	var d zoneDrift
	var err error
	if d.set, d.loaded, err = in.load(s); err != nil {
		return d, err
	}
	zs, err := zones(d.loaded, zone, false)
	if err != nil {
		return d, err
	}
	d.zone = zs[0]
	if d.desired, err = d.loaded.Cluster.Plan(d.zone); err != nil {
		return d, err
	}
	client, closeFn, err := ovnnb.Open(ctx, endpoint)
	if err != nil {
		return d, fmt.Errorf("--nb %s: %w", endpoint, err)
	}
	defer closeFn()
	if d.observed, err = client.Observe(ctx); err != nil {
		return d, fmt.Errorf("--nb %s: %w", endpoint, err)
	}
	d.changes = topology.Diff(d.observed, d.desired)
	return d, nil
}
