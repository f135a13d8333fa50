// Package backend holds what every backend adapter of udnkit shares: the
// Applier interface (observe, apply, sync) and its Result, and
// NodeApplier, the same shape for the node-side adapters (backend/kernel,
// backend/ovs), generic in the state, changes and result they speak.
//
// backend/ovnnb writes an OVN Northbound database and backend/nbctl
// renders ovn-nbctl scripts; both satisfy Applier, so a program chooses
// its backend once and runs one code path:
//
//	var a backend.Applier = client            // an *ovnnb.Client
//	if dryRun {
//		a = nbctl.NewWriter(os.Stdout, nbctl.Config{}, topology.State{})
//	}
//	changes, res, err := a.Sync(ctx, desired)
//
// An Applier speaks for the (controller, network) pairs of the State it
// is given (see topology's "Ownership per controller"): Sync never touches
// another controller's rows.
package backend
