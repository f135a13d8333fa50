package ovnnb

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/ovn-kubernetes/libovsdb/client"
	"github.com/ovn-kubernetes/libovsdb/model"
	"github.com/ovn-kubernetes/libovsdb/ovsdb"

	"github.com/udnkit/udnkit/internal/nbdb"
	"github.com/udnkit/udnkit/internal/nbrow"
	"github.com/udnkit/udnkit/topology"
)

type objKey struct {
	kind topology.Kind
	key  string
}

// observed is one owned row.
type observed struct {
	uuid   string
	obj    topology.Object
	parent string // UUID of the parent row for members
}

// snapshot is a consistent read of the tables the adapter writes.
type snapshot struct {
	rows  map[string]map[string]model.Model // table → UUID → row
	owned map[objKey]observed
	// byName maps kind → name → UUIDs of every row (owned or not) with
	// that name, for the kinds keyed by name.
	byName map[topology.Kind]map[string][]string
	name   map[string]string // UUID → name, for named rows
	gcs    map[string]*nbdb.GatewayChassis
	// extras are the duplicates of owned rows (same kind and key) that
	// index did not keep; extra holds their UUIDs. Sync deletes them.
	extras []observed
	extra  map[string]bool
	// broken holds, per network, the first of its rows that index could
	// not read back (Observe and Sync of that network fail with it).
	broken map[string]error
	// mine maps the UUIDs of the owned rows to their controller (canonical:
	// "" for topology.ControllerTopology).
	mine map[string]topology.Controller
	// partial: only the rows a change set concerns were read (readFor).
	partial bool
	// lbgRefs holds, for every Load_Balancer_Group UUID, the owners of
	// the switches and routers that reference it (a foreign referrer as
	// the zero Owner); read apart from the rows in partial snapshots, else
	// built by index.
	lbgRefs map[string][]lbgRef
	// ix is what index derived from each row (see derive).
	ix *rowIndex
	// nets are the networks of the owned objects, sorted; netParts their
	// parts, sorted.
	nets     []string
	netParts map[string][]part

	// memo guards each part's State, built once per snapshot (and kept
	// by derive for the parts a change does not touch).
	memo     sync.Mutex
	netState map[part]topology.State
	// netMerged holds each network's State: its parts' merged.
	netMerged map[string]topology.State
}

// snapshotTables are read by one select transaction: the kinds' tables
// and Gateway_Chassis.
var snapshotTables = nbrow.Tables()

// selectOps select every row of the adapter's tables, narrowed to the
// columns Observe and the planner read (the monitor's).
func selectOps() []ovsdb.Operation {
	ops := make([]ovsdb.Operation, len(snapshotTables))
	for i, t := range snapshotTables {
		ops[i] = ovsdb.Operation{Op: ovsdb.OperationSelect, Table: t, Where: []ovsdb.Condition{},
			Columns: append([]string{"_uuid"}, monitorColumns[t]...)}
	}
	return ops
}

// read selects every row of the adapter's tables in one transaction. When
// connected, it sends the transaction on a connection of its own (as
// Apply streams large writes) and decodes the reply straight into models
// (decodeSelect).
func (c *Client) read(ctx context.Context) (*snapshot, error) {
	if err := c.open(); err != nil {
		return nil, err
	}
	ops := selectOps()
	if ep := c.ovs.CurrentEndpoint(); ep != "" {
		raw, err := c.streamCall(ctx, ep, ops)
		if err != nil && !c.cfg.NoReconnect && ctx.Err() == nil && connLost(err) && !c.closed.Load() {
			// The member went (a cluster's leader killed): a read changes
			// nothing, so it goes again through the client's connection,
			// which follows the leader (readOps waits for the reconnect).
			goto transact
		}
		if err != nil {
			if errors.Is(err, ErrConnect) {
				return nil, fmt.Errorf("reading the Northbound tables: %w", err)
			}
			return nil, fmt.Errorf("reading the Northbound tables: %w", readError(ctx, err))
		}
		all, err := c.decodeSelect(raw, snapshotTables)
		if err != nil {
			if errors.Is(err, ErrTransaction) {
				return nil, fmt.Errorf("reading the Northbound tables: %w", err)
			}
			return nil, fmt.Errorf("%w: reading the Northbound tables: %v", ErrSchema, err)
		}
		s := newSnapshot()
		for i, t := range snapshotTables {
			s.rows[t] = all[i]
		}
		if err := s.index(); err != nil {
			return nil, err
		}
		return s, nil
	}
transact:
	// Not connected: libovsdb waits for the reconnect (and a read lost
	// with its leader is sent again).
	res, err := c.readOps(ctx, ops)
	if err != nil {
		return nil, err
	}
	if _, err := ovsdb.CheckOperationResults(res, ops); err != nil {
		return nil, fmt.Errorf("%w: reading the Northbound tables: %v", ErrTransaction, err)
	}
	s := newSnapshot()
	for i, t := range snapshotTables {
		rows := make(map[string]model.Model, len(res[i].Rows))
		for j := range res[i].Rows {
			row := &res[i].Rows[j]
			u, ok := (*row)["_uuid"].(ovsdb.UUID)
			if !ok {
				return nil, fmt.Errorf("%w: %s row without _uuid", ErrTransaction, t)
			}
			m, err := model.CreateModel(c.dbModel, t, row, u.GoUUID)
			if err != nil {
				return nil, fmt.Errorf("%w: %s row %s: %v", ErrSchema, t, u.GoUUID, err)
			}
			rows[u.GoUUID] = m
		}
		s.rows[t] = rows
	}
	if err := s.index(); err != nil {
		return nil, err
	}
	return s, nil
}

// readOps sends a read-only transaction. A read changes nothing, so one
// whose connection is lost before the reply (a clustered database's leader
// killed, say) is sent again once the client has reconnected (to the new
// leader), within ctx; with Config.NoReconnect it is not.
func (c *Client) readOps(ctx context.Context, ops []ovsdb.Operation) ([]ovsdb.OperationResult, error) {
	for {
		res, err := c.ovs.Transact(ctx, ops...)
		if err == nil {
			return res, nil
		}
		if c.cfg.NoReconnect || ctx.Err() != nil || !connLost(err) || c.closed.Load() {
			return nil, readError(ctx, err)
		}
		select {
		case <-ctx.Done():
			return nil, readError(ctx, err)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// connLost reports whether err says the connection is gone (or was never
// there) rather than that the server refused the request.
func connLost(err error) bool {
	var ne net.Error
	return errors.Is(err, client.ErrNotConnected) || errors.Is(err, ErrConnect) || errors.Is(err, io.EOF) ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) || errors.As(err, &ne)
}

// readError classifies an error of a select transaction that got no
// reply. A read writes nothing, so nothing is unknown: no connection, a
// connection lost before the reply, or the context ending while waiting
// for a reconnect or the reply (a clustered database electing a leader, a
// member without quorum) wrap ErrConnect (and the context's error); any
// other error is the server's refusal, ErrTransaction.
func readError(ctx context.Context, err error) error {
	if ctx.Err() != nil || connLost(err) {
		return fmt.Errorf("%w: reading the Northbound tables: %w", ErrConnect, err)
	}
	return fmt.Errorf("%w: reading the Northbound tables: %w", ErrTransaction, err)
}

// rowName returns the name of a row of a table whose name column is a
// plain string (not ACL's optional one), through the generated getter.
func rowName(m model.Model) (string, bool) {
	if r, ok := m.(interface{ GetName() string }); ok {
		return r.GetName(), true
	}
	return "", false
}

// rowIDs returns the external_ids of a row (nil for tables without them,
// such as Load_Balancer_Group).
func rowIDs(m model.Model) map[string]string {
	if r, ok := m.(interface{ GetExternalIDs() map[string]string }); ok {
		return r.GetExternalIDs()
	}
	return nil
}

// rowOwner returns the owner of row u (m): a load balancer group's from
// the rows that reference it (it has no external_ids), any other row's
// from its external_ids. ok is false for a row udnkit does not own.
func (s *snapshot) rowOwner(u string, m model.Model) (topology.Owner, bool) {
	if _, isGroup := m.(*nbdb.LoadBalancerGroup); isGroup {
		return lbgOwner(s.lbgRefs[u])
	}
	return ownerOf(rowIDs(m))
}

// lbgRef is the owner of one row referencing a load balancer group; owned
// is false for a row udnkit does not own.
type lbgRef struct {
	owner topology.Owner
	owned bool
	uuid  string // of the switch or router
}

// keeps reports whether a duplicate row b is kept rather than a: the one
// with more members, then the smaller UUID.
func (s *snapshot) keeps(a, b observed) bool {
	t := a.obj.Kind().Table()
	na, nb := memberCount(t, s.rows[t][a.uuid]), memberCount(t, s.rows[t][b.uuid])
	if na != nb {
		return nb > na
	}
	return b.uuid < a.uuid
}

// memberCount counts the members of row m of table.
func memberCount(table string, m model.Model) int {
	n := 0
	for _, c := range nbrow.MemberColumns(table) {
		n += len(nbrow.UUIDs(m, c))
	}
	return n
}

// addLBGRefs records that a switch or router with external_ids ids
// references groups.
func addLBGRefs(refs map[string][]lbgRef, uuid string, ids map[string]string, groups []string) {
	o, ok := ownerOf(ids)
	o.Node = ""
	for _, g := range groups {
		refs[g] = append(refs[g], lbgRef{o, ok, uuid})
	}
}

// lbgOwner returns the owner of a load balancer group from the rows that
// reference it: owned when at least one row references it and every one is
// owned by the same controller and network (their owner without the node).
// A group nothing references, or that a foreign row or two owners
// reference, is not the SDK's: Sync never deletes it, whatever its name.
// The rest of the owner (topology, role) is the referencing row's of the
// smallest UUID: refs are in no particular order (a map's, or the order
// the updates came in).
func lbgOwner(refs []lbgRef) (topology.Owner, bool) {
	if len(refs) == 0 {
		return topology.Owner{}, false
	}
	first := refs[0]
	for _, r := range refs {
		if !r.owned || r.owner.Controller != first.owner.Controller || r.owner.Network != first.owner.Network {
			return topology.Owner{}, false
		}
		if r.uuid < first.uuid {
			first = r
		}
	}
	return first.owner, true
}

// Observe returns the objects the SDK owns in the database (rows whose
// external_ids carry k8s.ovn.org/network), restricted to the given networks
// when any are given. The State speaks for those networks (or for every
// network found). Rows the SDK does not own are never part of it. With
// Config.Monitor it reads the client cache (see the package documentation);
// the State never shares memory with the cache.
func (c *Client) Observe(ctx context.Context, networks ...string) (topology.State, error) {
	var s *snapshot
	var err error
	if c.mon != nil {
		s, err = c.mon.snapshot(ctx)
	} else {
		s, err = c.read(ctx)
	}
	if err != nil {
		return topology.State{}, err
	}
	return s.state(networks)
}

func (s *snapshot) state(networks []string) (topology.State, error) {
	if len(networks) == 0 {
		for _, n := range slices.Sorted(maps.Keys(s.broken)) {
			return topology.State{}, s.broken[n]
		}
	}
	for _, n := range networks {
		if err := s.broken[n]; err != nil {
			return topology.State{}, err
		}
	}
	s.memo.Lock()
	defer s.memo.Unlock()
	var own topology.Builder
	for _, n := range networks {
		own.Own(n)
	}
	scope, err := own.State()
	if err != nil {
		return topology.State{}, fmt.Errorf("ovnnb: observed rows do not form a state: %w", err)
	}
	if len(networks) == 0 {
		networks = s.nets
	}
	parts := make([]topology.State, 0, len(networks))
	for _, n := range networks {
		st, err := s.networkState(n)
		if err != nil {
			return topology.State{}, err
		}
		parts = append(parts, st)
	}
	st, err := scope.Merge(parts...)
	if err != nil {
		return topology.State{}, fmt.Errorf("ovnnb: observed rows do not form a state: %w", err)
	}
	return st, nil
}

// networkState returns network n's State (its parts merged), built once
// per snapshot and kept by the next while none of its parts changes.
// s.memo is held.
func (s *snapshot) networkState(n string) (topology.State, error) {
	if st, ok := s.netMerged[n]; ok {
		return st, nil
	}
	var parts []topology.State
	for _, p := range s.netParts[n] {
		st, err := s.partState(p)
		if err != nil {
			return topology.State{}, err
		}
		parts = append(parts, st)
	}
	var st topology.State
	if len(parts) > 0 {
		var err error
		if st, err = parts[0].Merge(parts[1:]...); err != nil {
			return topology.State{}, fmt.Errorf("ovnnb: observed rows of network %q do not form a state: %w", n, err)
		}
	}
	if s.netMerged == nil {
		s.netMerged = map[string]topology.State{}
	}
	s.netMerged[n] = st
	return st, nil
}

// partState returns the owned objects of part p as a State, built once
// per snapshot and kept by the next while p's objects do not change:
// States are immutable, so Observes share them. s.memo is held.
func (s *snapshot) partState(p part) (topology.State, error) {
	if st, ok := s.netState[p]; ok {
		return st, nil
	}
	keys := slices.Collect(maps.Keys(s.ix.byNet[p]))
	slices.SortFunc(keys, func(a, b objKey) int {
		if a.kind != b.kind {
			return int(a.kind) - int(b.kind)
		}
		return strings.Compare(a.key, b.key)
	})
	var b topology.Builder
	for _, k := range keys {
		b.Add(s.owned[k].obj)
	}
	st, err := b.State()
	if err != nil {
		return topology.State{}, fmt.Errorf("ovnnb: observed rows of network %q do not form a state: %w", p.network, err)
	}
	s.netState[p] = st
	return st, nil
}
