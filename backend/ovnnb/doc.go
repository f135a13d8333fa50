// Package ovnnb applies topology changes to an OVN Northbound database
// (schema 7.11.0, OVN 25.03 or later) and observes what the SDK owns there.
//
//	c, err := ovnnb.Dial(ctx, ovnnb.Config{Endpoints: []string{"tcp:127.0.0.1:6641"}})
//	changes, res, err := c.Sync(ctx, desired) // Observe, topology.Diff, Apply
//
// # Ownership
//
// A row is the SDK's when its external_ids carry k8s.ovn.org/network (with
// k8s.ovn.org/owner-controller, k8s.ovn.org/topology, k8s.ovn.org/role and
// k8s.ovn.org/node from the object's topology.Owner). The owner-controller
// names the controller that wrote the row; a row without it (written before
// controllers existed) is topology.ControllerTopology's. Observe returns
// the owned rows of every controller; Sync diffs against them with
// topology.Diff, which touches only the (controller, network) pairs the
// desired State speaks for, so one controller's Sync never changes or
// deletes another's rows, nor removes them from a parent's member column.
// Load_Balancer_Group has no external_ids: a group is the SDK's when the
// switches and routers that reference it are all owned, by one controller
// and network (never by its name: a foreign group named like a network's
// rows survives every Sync). A group nothing references is nobody's, except
// that a create under exactly its name adopts it (what a batched apply
// stopped between batches leaves behind), instead of failing on the name
// index forever. Apply updates and deletes only owned rows, adds and removes
// only its own members in parents' reference sets, refuses to create a row
// whose name a foreign row already has, and refuses to delete a parent that
// holds a member it does not own or that another controller owns (a pod
// port a pods controller added, say), since OVSDB would delete that member
// with it. A load balancer's attachments (the groups, switches and routers
// it names) are mutations of those rows' load_balancer columns by its own
// change, inserted with it or moved by its update; Observe reads them back
// from the holders, and a holder deleted by its owner simply drops the weak
// reference.
//
// # Transactions
//
// Apply checks the whole change set against a consistent snapshot, read in
// one select transaction before anything is sent. The snapshot holds what
// the change set concerns, not the whole database: by name, the rows it
// creates, updates or deletes, the parents it adds members to and the rows
// it refers to; routes, policies, NAT and ACLs by the columns of their key
// (the rows of the object's owner, and the UUIDs of every row holding the
// key); with a load balancer group change, every group and the owners of
// every switch and router. Whenever that snapshot cannot decide - a change
// it finds invalid, a parent member it lacks, another owner's row under a
// key the change set uses, a lookup the server refuses - or the change set
// would take more than 2000 lookups, Apply reads every row of the
// adapter's tables and plans again, so a refusal is always decided on a
// full read. Sync reads every row (it observes before it diffs). With
// Config.Monitor both plan against the client cache instead (see Monitor).
//
// It then writes the change set as one transaction (up to
// DefaultMaxOpsPerTransaction operations, see below): new rows with named
// UUIDs, members inserted before the parent row that references them,
// parents' reference sets mutated, every operation result checked. A
// member column with a schema minimum (a Meter's bands,
// topology.ParentColumn.Min) is honoured before anything is sent: a change
// set that creates such a parent with fewer members, or leaves one it
// keeps with fewer, is refused (ErrInvalidChange naming the parent and the
// column); members of a parent the change set deletes go with it.
// Deleting a parent carries a wait operation (RFC 7047, timeout 0) on the
// members it held when read: a member someone added since makes the server
// refuse the transaction instead of deleting that member with its parent.
// A row another writer creates between the read and the write under a
// name the change set creates is refused by the server's name index
// (ports, port groups, address sets, load balancer groups). A switch,
// router or load balancer (no name index) is inserted under the UUID its
// table and name give (a version 8 UUID of their SHA-256), so another
// writer creating it gives it the same UUID and the server, which finds a
// row by UUID without a scan, refuses the second ("duplicate uuid"); when a
// row already holds that UUID (renamed since), the create carries a wait
// operation (timeout 0) that there is no row of that name instead, which
// the server answers by scanning the table (one scan per created row made
// filling a large NB quadratic). Either way, of several writers creating a
// row the first wins and the others' transactions are refused
// (ErrTransaction: Sync again). The UUID guards against writers that give
// it (this SDK): a row of that name another tool, or a version of this SDK
// from before the UUIDs, creates between the read and the write is not
// refused (the wait was). A Client of the embedded server waits on names
// (its database cannot refuse a UUID in use as an operation error). A
// duplicate owned row left by a writer without that guard (same kind and
// key) does not make Observe fail: it keeps one (the one with more members, then the smaller UUID)
// and the next Sync of that network deletes the others. A row of one
// network that cannot be read back fails that network's Observe and Sync
// (ErrSchema) and no other's.
// Config.MaxOpsPerTransaction bounds transactions (unset: one for up to
// DefaultMaxOpsPerTransaction operations, batches of DefaultBatchOps for
// a larger change set; a negative value for no bound); a parent
// created with its members always shares one, and so do a deleted load
// balancer group and the updates and deletes of the switches and routers
// that referenced it (else a stop between them would leave a group nothing
// references, which is nobody's). Named UUIDs of earlier batches are
// replaced by the real ones, and a failure or a stop between batches
// leaves a state the next Sync converges from: every owned row carries its
// owner's external_ids and is adopted, updated or deleted by it, and a
// load balancer group created in an earlier batch than its switches is
// adopted by its exact name (tested 5 runs out of 5, stopped after each of
// the first five batches, against a real ovsdb-server). Applying the desired state a second
// time sends nothing.
//
// A transaction of at least Config.StreamOps operations (default
// DefaultStreamOps, 100) is not sent through the libovsdb client: Apply
// opens a JSON-RPC connection of its own to the endpoint in use (the
// leader; Config.TLS for ssl:), encodes the transact request straight onto
// the socket, so the server parses while the client encodes, answers the
// server's echo requests, and closes the connection when the reply is in
// or the context ends. The operations, the result checks, the errors and
// what the monitor learns are those of the libovsdb path.
//
// # Errors
//
// Errors wrap ErrConnect, ErrSchema, ErrInvalidChange (nothing written; with
// topology.ErrConflict for a row that exists, topology.ErrNotFound for one that does not),
// ErrTransaction (the server refused; nothing of that transaction written),
// ErrOutcomeUnknown (a transaction was sent but its reply never came: the
// context ended or the connection dropped; it may have committed, so
// observe again before writing), or a context error (nothing sent). With
// batches, transactions before the failing one are committed. A read
// (Observe, or the select Apply and Sync begin with) whose connection is
// lost before its reply is sent again after the reconnect (unless
// Config.NoReconnect): it changes nothing. One that gets no reply before
// its context ends (no member reachable, or none leads: a clustered
// database without quorum) wraps ErrConnect and the context's error. A
// *ChangeError names the change (operation, kind, key) it concerns. A
// change holding a string OVSDB cannot carry (a NUL, on which the server
// drops the connection, another control character, DEL, invalid UTF-8) in
// any column, key, referenced name or Gateway_Chassis is refused with
// ErrInvalidChange before anything is sent, and the connection stays up.
//
// # Connections
//
// Endpoints are unix:, tcp: or ssl: (with Config.TLS); several endpoints are
// the members of a clustered database and only the leader is used. The
// client reconnects with exponential backoff unless Config.NoReconnect;
// calls wait for the connection within their context. By default no
// monitor is kept: Observe reads every row of the tables the adapter writes
// in one select transaction, narrowed to the columns it reads, sent on a
// connection of its own to the endpoint in use and decoded straight into
// the models (libovsdb's generic rows cost about 400 allocations a row);
// Apply reads what its change set concerns (see Transactions).
//
// # Monitor
//
// With Config.Monitor, Dial also starts an OVSDB monitor of exactly the
// adapter's tables, narrowed to the columns Observe reads, and Observe
// builds its State from that client cache instead of a select (the State
// is a copy of nothing the cache holds: later cache updates do not change
// it). The snapshot of the cache, with the State of each network and of
// each part of one (controller, network, node), is built once and reused
// while the cache does not change (the cache replaces a changed row's
// model, so the same models are the same rows): an Observe of an
// unchanged cache costs one pass over its rows, and a Sync whose diff is
// empty sends nothing at all. After a change, the next snapshot is derived
// from the last: only the rows that changed and their neighbours along
// references (the rows a changed row holds or stopped holding, all of
// them when its name or owner changed; the rows referencing a row added,
// deleted or renamed) are converted again, and only the parts whose
// objects changed get a new State; the rest is shared. What a row reads
// back as depends on nothing but the row and those neighbours (its
// parent's name and owner, the names it references, the rows holding a
// load balancer or referencing a group, a duplicate's rival), which is
// what makes the derived snapshot equal to one built from scratch
// (TestDeriveProperty). Telling what changed still compares every row's
// model with the last snapshot's (pointers, no decoding). The records a
// derivation starts from (what each row gave, who references it) are
// built only when a snapshot is first derived from: a read from scratch
// (the first monitored one, every select) indexes without them, at the
// cost of the index alone. Sync plans against the snapshot of the cache;
// Apply against the last snapshot when it shows this client's writes,
// without another pass over the cache (planned right after an Observe, it
// is that Observe's), and against a fresh one if the server refuses the
// plan. Both check, each row by its UUID (which the server finds without
// a scan), that the rows the plan touches or refers to (the rows it
// updates, deletes, mutates or waits on, the members it moves, the rows
// its inserts reference) hold on the server what the cache holds in the
// columns the plan depends on (name and external_ids; every column of a
// load balancer group; a deleted parent's members): a plan that fits one
// transaction carries these checks as wait operations (timeout 0) ahead
// of its writes, so the server refuses it whole if the cache lagged; a
// plan of several transactions reads the rows back first. Whenever a
// check or any other wait of such a plan fails, the plan fails on the
// cache, or it would check more than 50,000 rows, they read and plan with
// selects as without the monitor, so a refusal is still decided on a
// fresh read. The guards are unchanged: the wait on a deleted parent's
// members, the UUIDs given to created rows (or the waits on their names)
// and the name indexes refuse what another writer did since. What Observe
// sees:
//
//   - This client's writes: after an Apply (or Sync) of this Client returned
//     without error, Observe on the same Client shows what it wrote, or what
//     later writers left in those rows. When the cache does not show each
//     committed transaction yet (one row it inserted under a UUID the
//     server chose - OVSDB sends a transaction's changes in one update
//     notification, which libovsdb applies under one lock; a given UUID
//     proves nothing, a lagging cache may hold a deleted row of it - or
//     else its rows of given UUIDs present, its deleted rows gone, its
//     updated columns holding the values written and its reference-set
//     mutations done), Observe sends one echo request on the monitor's
//     connection:
//     ovsdb-server sends a session's pending update notifications before
//     it reads the session's next request, and libovsdb applies each
//     before it reads the next message, so when the reply is in the cache
//     holds every transaction committed before (the embedded server sends
//     them before its transaction reply). Only if the echo fails does it
//     wait, within its context and at most one second (or Config.Timeout if
//     shorter), and then read with a select; later Observes check the cache
//     against what that select read for those rows.
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
