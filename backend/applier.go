package backend

import (
	"context"

	"github.com/udnkit/udnkit/topology"
)

// Applier observes and changes the objects udnkit owns in one place (a
// Northbound database, a script). Implementations document their errors
// and concurrency; applying the same desired State twice writes nothing
// the second time.
type Applier interface {
	// Observe returns the owned objects, of the given networks when any
	// are given.
	Observe(ctx context.Context, networks ...string) (topology.State, error)
	// Apply writes changes (from topology.Diff against a State this
	// Applier observed).
	Apply(ctx context.Context, changes topology.Changes) (Result, error)
	// Sync observes, diffs against desired and applies: afterwards the
	// Applier holds desired for the pairs desired speaks for. It returns
	// the changes applied.
	Sync(ctx context.Context, desired topology.State) (topology.Changes, Result, error)
}

// Result counts what an Apply or Sync wrote.
type Result struct {
	// Transactions sent (ovn-nbctl invocations for a script); 0 for an
	// empty change set.
	Transactions int
	// Operations sent: inserts, updates, mutations, deletes and waits
	// (commands for a script).
	Operations int
	// Rows inserted, updated or deleted.
	Rows int
}
