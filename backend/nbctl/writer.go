package nbctl

import (
	"context"
	"io"
	"slices"
	"strings"

	"github.com/udnkit/udnkit/backend"
	"github.com/udnkit/udnkit/topology"
)

// Writer is the script backend as a backend.Applier: Apply renders the
// changes as a script onto its io.Writer, and the Writer keeps the State
// the scripts written so far produce (starting from the State it was
// given), which Observe returns and Sync diffs against. It is what a dry
// run of a program written against backend.Applier uses.
//
// A Writer is not safe for concurrent use. Its Result counts the
// ovn-nbctl invocations written as Transactions and Operations (each is
// one transaction), and the changes as Rows.
type Writer struct {
	w     io.Writer
	cfg   Config
	state topology.State
}

// The Writer is a backend.Applier.
var _ backend.Applier = (*Writer)(nil)

// NewWriter returns a Writer that writes scripts to w and starts from
// observed (the zero State: an empty database).
func NewWriter(w io.Writer, cfg Config, observed topology.State) *Writer {
	return &Writer{w: w, cfg: cfg, state: observed}
}

// Observe returns the State the scripts written so far produce, of the
// given networks when any are given.
func (x *Writer) Observe(ctx context.Context, networks ...string) (topology.State, error) {
	if err := ctx.Err(); err != nil {
		return topology.State{}, err
	}
	if len(networks) == 0 {
		return x.state, nil
	}
	var drop []string
	for _, n := range x.state.Networks() {
		if !slices.Contains(networks, n) {
			drop = append(drop, n)
		}
	}
	return x.state.Without(drop...), nil
}

// Apply writes the script of changes and records their effect. A change
// set that does not apply to the recorded State (see topology.Apply), or
// that the renderer refuses, writes nothing.
func (x *Writer) Apply(ctx context.Context, changes topology.Changes) (backend.Result, error) {
	if len(changes) == 0 {
		return backend.Result{}, ctx.Err()
	}
	if err := ctx.Err(); err != nil {
		return backend.Result{}, err
	}
	next, err := topology.Apply(x.state, changes)
	if err != nil {
		return backend.Result{}, err
	}
	script, err := Script(changes, x.cfg)
	if err != nil {
		return backend.Result{}, err
	}
	if _, err := io.WriteString(x.w, script); err != nil {
		return backend.Result{}, err
	}
	x.state = next
	cmd := x.cfg.Command
	if cmd == "" {
		cmd = "ovn-nbctl"
	}
	n := strings.Count(script, "\n"+cmd+" ")
	return backend.Result{Transactions: n, Operations: n, Rows: len(changes)}, nil
}

// Sync writes the script that turns the recorded State into desired (for
// the pairs desired speaks for) and returns its changes.
func (x *Writer) Sync(ctx context.Context, desired topology.State) (topology.Changes, backend.Result, error) {
	changes := topology.Diff(x.state, desired)
	res, err := x.Apply(ctx, changes)
	if err != nil {
		return nil, backend.Result{}, err
	}
	return changes, res, nil
}
