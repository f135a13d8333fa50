// Package ovnnb applies topology changes to an OVN Northbound database
// (schema 7.11.0, OVN 25.03 or later) and observes what the SDK owns there.
//
//	c, err := ovnnb.Dial(ctx, ovnnb.Config{Endpoints: []string{"tcp:127.0.0.1:6641"}})
//	changes, res, err := c.Sync(ctx, desired) // Observe, topology.Diff, Apply
//
// # Ownership
//
// A row is the SDK's when its external_ids carry k8s.ovn.org/network (with
// k8s.ovn.org/topology, k8s.ovn.org/role and k8s.ovn.org/node from the
// object's topology.Owner). Load_Balancer_Group has no external_ids: a group
// is the SDK's when its name starts with the object-name prefix of a network
// that owns a switch or router. Observe returns only owned rows; Apply
// updates and deletes only owned rows, adds and removes only its own members
// in parents' reference sets, refuses to create a row whose name a foreign
// row already has, and refuses to delete a parent that holds a foreign
// member (a pod port someone else added, say), since OVSDB would delete that
// member with it.
//
// # Transactions
//
// Apply checks the whole change set against a consistent snapshot (one
// select transaction over the adapter's tables) before sending anything,
// then writes it as one transaction: new rows with named UUIDs, members
// inserted before the parent row that references them, parents' reference
// sets mutated, every operation result checked. Config.MaxOpsPerTransaction
// bounds transactions instead; a parent created with its members always
// shares one, named UUIDs of earlier batches are replaced by the real ones,
// and a failure midway leaves a state the next Sync converges from.
// Applying the desired state a second time sends nothing.
//
// # Errors
//
// Errors wrap ErrConnect, ErrSchema, ErrInvalidChange (nothing written) or
// ErrTransaction (the server refused; nothing of that transaction written),
// or a context error. A *ChangeError names the change (operation, kind,
// key) it concerns.
//
// # Connections
//
// Endpoints are unix:, tcp: or ssl: (with Config.TLS); several endpoints are
// the members of a clustered database and only the leader is used. The
// client reconnects with exponential backoff unless Config.NoReconnect;
// calls wait for the connection within their context. By default no
// monitor is kept: Observe and Apply read what they need in one select
// transaction over the tables the adapter writes.
//
// # Monitor
//
// With Config.Monitor, Dial also starts an OVSDB monitor of exactly the
// adapter's tables, narrowed to the columns Observe reads, and Observe
// builds its State from that client cache instead of a select (the State
// is a copy: later cache updates do not change it). Apply and Sync still
// check changes against a fresh select, so a cache that lags can never
// make them write a duplicate or touch a row that is gone. What Observe
// sees:
//
//   - This client's writes: after an Apply (or Sync) of this Client returned
//     without error, Observe on the same Client shows what it wrote, or what
//     later writers left in those rows. Observe waits, within its context and
//     at most one second (or Config.Timeout if shorter), until the cache
//     shows each committed transaction: one row it inserted (OVSDB sends a
//     transaction's changes in one update notification, which libovsdb
//     applies under one lock), or else its deleted rows gone, its updated
//     columns holding the values written and its reference-set mutations
//     done. Failing that it reads with a select, and later Observes check
//     the cache against what that select read for those rows.
//   - Others' writes: eventually, as the server's update notifications
//     arrive (usually within milliseconds); no bound is promised.
//   - A consistent State: the cache is read at one instant, never halfway
//     through an update notification.
//
// While the connection is down Observe waits for the reconnect within its
// context (with Config.NoReconnect it fails with ErrConnect); libovsdb
// re-establishes the monitor, refilling the cache, before it reports the
// reconnection. Between the server going away and the client noticing,
// Observe may return the cache as it was.
//
// StartEmbedded runs an in-process, in-memory Northbound server with the
// same schema: the quickstart's default target and the fast tests'.
//
// A Client is safe for concurrent use.
package ovnnb
