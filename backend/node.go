package backend

import "context"

// NodeApplier is the shape both node-side adapters share: backend/kernel
// (State vrf.State, Changes vrf.Changes) and backend/ovs (State
// []flows.Flow, Changes flows.Changes), each with its own Result. It
// mirrors Applier: Observe reads, Apply writes changes (from the planner
// package's Diff against what Observe returned), Sync does both; applying
// the same desired State twice writes nothing the second time.
//
// Unlike a Northbound database, a node holds objects the adapter does not
// own next to its own, so Observe takes the desired State as its scope:
// it reads what that State names (the kernel: its links, routing tables
// and nftables objects; a bridge: the flows of the SDK's cookie) and
// never reports anything outside it.
type NodeApplier[State, Changes, Result any] interface {
	// Observe returns what the node holds of the objects scope names.
	Observe(ctx context.Context, scope State) (State, error)
	// Apply writes changes, in one batch where the node allows it.
	Apply(ctx context.Context, changes Changes) (Result, error)
	// Sync observes desired's scope, diffs and applies: afterwards the
	// node holds desired. It returns the changes applied.
	Sync(ctx context.Context, desired State) (Changes, Result, error)
}
