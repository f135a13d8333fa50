package ovnnb

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/ovn-kubernetes/libovsdb/client"
	"github.com/ovn-kubernetes/libovsdb/model"
	"github.com/ovn-kubernetes/libovsdb/ovsdb"

	"github.com/udnkit/udnkit/internal/nbdb"
	"github.com/udnkit/udnkit/internal/nbrow"
	"github.com/udnkit/udnkit/topology"
)

// monitorColumns are the columns Observe reads, per table (every column
// the row mapping reads back): the monitor (Config.Monitor) is narrowed to
// them.
var monitorColumns = nbrow.ReadColumns()

// maxPending bounds the transactions remembered for read-your-writes.
// Beyond it the oldest are forgotten and the next Observe reads with a
// select instead of the cache.
const maxPending = 64

// monitor keeps the client cache of the adapter's tables and what this
// client wrote that the cache may not show yet.
type monitor struct {
	c   *Client
	raw client.Client

	mu      sync.Mutex
	pending []*expect
	// overflow: transactions were forgotten; read with a select once.
	overflow  bool
	forgotten int
	// last is the snapshot last built from the cache (see indexed); it is
	// shared by every reader and never modified but for its memos.
	last *snapshot
	// recorded counts the transactions recorded; last shows the first
	// lastShows of them, and its rows were read at lastRead (see
	// writeSnapshot).
	recorded  int
	lastShows int
	lastRead  time.Time
}

// expect is what one committed transaction of this client made true.
// Every transaction's changes reach the cache in one update notification,
// applied under one lock, so an inserted row being there proves the whole
// transaction is.
type expect struct {
	inserted []rowRef
	// given are the rows inserted under a UUID the client chose
	// (nameUUID): one of them present proves nothing, the UUID may be a
	// deleted row's that a lagging cache still holds.
	given   []rowRef
	deleted []rowRef
	columns []colValue
	members []memberRef
	// expired: a wait for it timed out and it was rebased on a select
	// (see monitor.rebase); Observe no longer waits for it but reads with
	// a select while the cache does not show it.
	expired bool
}

type rowRef struct{ table, uuid string }

type colValue struct {
	rowRef
	column string
	want   string // canonical JSON
}

type memberRef struct {
	rowRef
	column  string
	member  string
	present bool
}

// monitored reports whether the monitor carries table.column.
func monitored(table, column string) bool {
	return slices.Contains(monitorColumns[table], column)
}

// startMonitor starts the monitor of the adapter's tables, narrowed to
// monitorColumns, and routes the client's transactions through the
// recorder.
func (c *Client) startMonitor(ctx context.Context) error {
	m := &monitor{c: c, raw: c.ovs}
	req := c.ovs.NewMonitor()
	for _, t := range snapshotTables {
		req.Tables = append(req.Tables, client.TableMonitor{Table: t, Fields: monitorColumns[t]})
	}
	if _, err := c.ovs.Monitor(ctx, req); err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("%w: monitoring %s: %w", ErrConnect, c.ovs.CurrentEndpoint(), ctx.Err())
		}
		return fmt.Errorf("%w: monitoring %s: %v", ErrSchema, c.ovs.CurrentEndpoint(), err)
	}
	c.mon = m
	c.ovs = &recorder{Client: c.ovs, m: m}
	return nil
}

// recorder is the libovsdb client with Transact remembering what each
// committed write transaction did.
type recorder struct {
	client.Client
	m *monitor
}

func (r *recorder) Transact(ctx context.Context, ops ...ovsdb.Operation) ([]ovsdb.OperationResult, error) {
	res, err := r.Client.Transact(ctx, ops...)
	if err == nil {
		r.m.record(ops, res)
	}
	return res, err
}

// record remembers the effects of a committed transaction (every result
// without error; OVSDB commits all operations or none).
func (m *monitor) record(ops []ovsdb.Operation, res []ovsdb.OperationResult) {
	if len(res) < len(ops) {
		return
	}
	writes := false
	for i := range ops {
		if res[i].Error != "" {
			return
		}
		writes = writes || ops[i].Op != ovsdb.OperationSelect
	}
	if !writes {
		return
	}
	named := map[string]string{}
	for i, op := range ops {
		if op.Op == ovsdb.OperationInsert && op.UUIDName != "" {
			named[op.UUIDName] = res[i].UUID.GoUUID
		}
	}
	e := &expect{}
	for i, op := range ops {
		switch op.Op {
		case ovsdb.OperationInsert:
			if op.UUID != "" {
				e.given = append(e.given, rowRef{op.Table, res[i].UUID.GoUUID})
			} else {
				e.inserted = append(e.inserted, rowRef{op.Table, res[i].UUID.GoUUID})
			}
		case ovsdb.OperationDelete:
			if u, ok := whereUUID(op.Where); ok {
				e.deleted = append(e.deleted, rowRef{op.Table, u})
			}
		case ovsdb.OperationUpdate:
			u, ok := whereUUID(op.Where)
			if !ok {
				continue
			}
			for col, v := range op.Row {
				if !monitored(op.Table, col) {
					continue
				}
				want, err := canonical(v, named)
				if err == nil {
					e.columns = append(e.columns, colValue{rowRef{op.Table, u}, col, want})
				}
			}
		case ovsdb.OperationMutate:
			u, ok := whereUUID(op.Where)
			if !ok {
				continue
			}
			for _, mu := range op.Mutations {
				if !monitored(op.Table, mu.Column) {
					continue
				}
				if mu.Mutator != ovsdb.MutateOperationInsert && mu.Mutator != ovsdb.MutateOperationDelete {
					continue
				}
				for _, member := range uuidsOf(mu.Value, named) {
					e.members = append(e.members, memberRef{rowRef{op.Table, u}, mu.Column, member, mu.Mutator == ovsdb.MutateOperationInsert})
				}
			}
		}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.recorded++
	m.pending = append(m.pending, e)
	if len(m.pending) > maxPending {
		m.pending = slices.Delete(m.pending, 0, len(m.pending)-maxPending)
		m.overflow = true
		m.forgotten++
	}
}

// whereUUID returns u of the condition _uuid == u.
func whereUUID(where []ovsdb.Condition) (string, bool) {
	if len(where) != 1 || where[0].Column != "_uuid" || where[0].Function != ovsdb.ConditionEqual {
		return "", false
	}
	u, ok := where[0].Value.(ovsdb.UUID)
	return u.GoUUID, ok
}

// canonical encodes an OVSDB value as JSON with sets and maps sorted,
// one-element sets as their element and named UUIDs replaced.
func canonical(v any, named map[string]string) (string, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	var x any
	if err := json.Unmarshal(b, &x); err != nil {
		return "", err
	}
	x = canon(x, named)
	out, err := json.Marshal(x)
	return string(out), err
}

func canon(x any, named map[string]string) any {
	a, ok := x.([]any)
	if !ok || len(a) != 2 {
		return x
	}
	tag, _ := a[0].(string)
	switch tag {
	case "named-uuid":
		if s, ok := a[1].(string); ok {
			if r, ok := named[s]; ok {
				return []any{"uuid", r}
			}
		}
	case "set", "map":
		es, ok := a[1].([]any)
		if !ok {
			return x
		}
		out := make([]any, len(es))
		keys := make([]string, len(es))
		for i, e := range es {
			out[i] = canon(e, named)
			b, _ := json.Marshal(out[i])
			keys[i] = string(b)
		}
		if tag == "set" && len(out) == 1 {
			return out[0]
		}
		idx := make([]int, len(out))
		for i := range idx {
			idx[i] = i
		}
		sort.Slice(idx, func(i, j int) bool { return keys[idx[i]] < keys[idx[j]] })
		sorted := make([]any, len(out))
		for i, j := range idx {
			sorted[i] = out[j]
		}
		return []any{tag, sorted}
	}
	return x
}

// uuidsOf lists the UUIDs of a UUID or UUID set value, named ones
// replaced.
func uuidsOf(v any, named map[string]string) []string {
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	var x any
	if json.Unmarshal(b, &x) != nil {
		return nil
	}
	var out []string
	var walk func(any)
	walk = func(x any) {
		a, ok := x.([]any)
		if !ok || len(a) != 2 {
			return
		}
		tag, _ := a[0].(string)
		switch tag {
		case "uuid", "named-uuid":
			if s, ok := a[1].(string); ok {
				if r, ok := named[s]; ok {
					s = r
				}
				out = append(out, s)
			}
		case "set":
			if es, ok := a[1].([]any); ok {
				for _, e := range es {
					walk(e)
				}
			}
		}
	}
	walk(x)
	return out
}

// proven reports whether rows show one of the rows e inserted: then the
// whole transaction, and every earlier one, is in the cache.
func (e *expect) proven(rows map[string]map[string]model.Model) bool {
	for _, r := range e.inserted {
		if _, ok := rows[r.table][r.uuid]; ok {
			return true
		}
	}
	return false
}

// shown reports whether rows hold what e wrote: its inserted rows (one
// suffices, see proven), or else the rows it inserted under UUIDs it gave,
// none of its deleted rows, the columns it updated with the values it
// wrote and the references it added to sets (members, attachments) but
// not those it removed.
func (e *expect) shown(c *Client, rows map[string]map[string]model.Model) bool {
	if len(e.inserted) > 0 {
		return e.proven(rows)
	}
	for _, r := range e.given {
		if _, ok := rows[r.table][r.uuid]; !ok {
			return false
		}
	}
	for _, r := range e.deleted {
		if _, ok := rows[r.table][r.uuid]; ok {
			return false
		}
	}
	for _, cv := range e.columns {
		m, ok := rows[cv.table][cv.uuid]
		if !ok {
			return false
		}
		row, err := c.fastRow(m, []string{cv.column})
		if err != nil {
			return false
		}
		got, err := canonical(row[cv.column], nil)
		if err != nil || got != cv.want {
			return false
		}
	}
	for _, mr := range e.members {
		m, ok := rows[mr.table][mr.uuid]
		if !ok {
			// A deleted parent holds no members.
			if mr.present {
				return false
			}
			continue
		}
		// Any reference set the transaction mutated: a parent's members
		// or a row's attachments (a load balancer in a switch's
		// load_balancer).
		if slices.Contains(nbrow.UUIDs(m, mr.column), mr.member) != mr.present {
			return false
		}
	}
	return true
}

// cacheRows reads the monitored tables from the cache. The result is a
// state the cache held at one instant: libovsdb applies each update
// notification to all tables under one exclusive lock, which every
// TableCache.Table call waits for, so two passes that return the same rows
// (the cache replaces a model on every change, never edits it) bracket no
// update. The models are shared with the cache: read only.
//
// Under other writers two passes may keep differing: after a few tries it
// backs off (cacheRowsBackoff, doubling to cacheRowsMaxBackoff) so that
// update notifications get applied, and it gives up with the context.
func (m *monitor) cacheRows(ctx context.Context) (map[string]map[string]model.Model, error) {
	pass := func() (map[string]map[string]model.Model, error) {
		tc := m.raw.Cache()
		if tc == nil {
			return nil, fmt.Errorf("%w: the connection is closed", ErrConnect)
		}
		out := make(map[string]map[string]model.Model, len(snapshotTables))
		for _, t := range snapshotTables {
			rc := tc.Table(t)
			if rc == nil {
				return nil, fmt.Errorf("%w: table %s is not in the client cache", ErrConnect, t)
			}
			out[t] = rc.RowsShallow()
		}
		return out, nil
	}
	a, err := pass()
	if err != nil {
		return nil, err
	}
	m.mu.Lock()
	last := m.last
	m.mu.Unlock()
	if last != nil && sameRows(last.rows, a) {
		// Every table as the last snapshot read it (the cache replaces
		// a changed row's model): an update applied during the pass
		// would show in a table read after it, so the pass read one
		// state, the last snapshot's.
		return last.rows, nil
	}
	backoff := time.Duration(0)
	for try := 1; ; try++ {
		if try > cacheRowsTries {
			backoff = min(max(2*backoff, cacheRowsBackoff), cacheRowsMaxBackoff)
			t := time.NewTimer(backoff)
			select {
			case <-ctx.Done():
				t.Stop()
				return nil, fmt.Errorf("%w: the client cache kept changing while being read: %w", ErrConnect, ctx.Err())
			case <-t.C:
			}
		} else if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("%w: reading the client cache: %w", ErrConnect, err)
		}
		b, err := pass()
		if err != nil {
			return nil, err
		}
		if sameRows(a, b) {
			return b, nil
		}
		a = b
	}
}

// cacheRows tries back to back this many times, then backs off.
const (
	cacheRowsTries      = 3
	cacheRowsBackoff    = time.Millisecond
	cacheRowsMaxBackoff = 50 * time.Millisecond
)

func sameRows(a, b map[string]map[string]model.Model) bool {
	for t, ra := range a {
		rb := b[t]
		if len(ra) != len(rb) {
			return false
		}
		for u, x := range ra {
			if y, ok := rb[u]; !ok || x != y {
				return false
			}
		}
	}
	return true
}

// ownWritesWait bounds (with Config.Timeout and the context) how long
// Observe waits for the cache to show this client's writes before it reads
// with a select instead.
const ownWritesWait = time.Second

// pollInterval is how often Observe looks at the cache while it waits for
// the connection or for this client's writes.
const pollInterval = 2 * time.Millisecond

// connected waits until the client is connected with its monitor in place
// (libovsdb re-establishes monitors before it marks a reconnection done).
func (m *monitor) connected(ctx context.Context) error {
	for {
		if m.raw.Connected() && m.raw.CurrentEndpoint() != "" && m.raw.Cache() != nil {
			return nil
		}
		if m.c.cfg.NoReconnect {
			return fmt.Errorf("%w: %s: the connection is closed", ErrConnect, joinEndpoints(m.c.cfg.Endpoints))
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w: %s: waiting for the connection: %w", ErrConnect, joinEndpoints(m.c.cfg.Endpoints), ctx.Err())
		case <-time.After(10 * pollInterval):
		}
	}
}

// snapshot reads the adapter's tables from the cache once the cache shows
// this client's committed writes: at once when it does, else after one
// echo round trip (see echo). Only when the echo fails does it wait for
// them, at most ownWritesWait (and Config.Timeout, within ctx); when they
// are still not shown, it reads with a select transaction and rebases
// them on what it read. The snapshot of an unchanged cache is the last
// one (see indexed): read only.
func (m *monitor) snapshot(ctx context.Context) (*snapshot, error) {
	if err := m.c.open(); err != nil {
		return nil, err
	}
	if err := m.connected(ctx); err != nil {
		return nil, err
	}
	deadline := time.Now().Add(min(m.c.timeout(), ownWritesWait))
	echoed := false
	for {
		// The transactions recorded before the cache is read: what this
		// read must show, whichever reader drops them from pending.
		m.mu.Lock()
		seq, captured := m.recorded, slices.Clone(m.pending)
		m.mu.Unlock()
		read := time.Now()
		rows, err := m.cacheRows(ctx)
		if err != nil {
			return nil, err
		}
		done, wait := m.settle(rows, captured...)
		if done {
			return m.indexed(rows, seq, read)
		}
		if !echoed {
			// One round trip proves the cache holds every transaction
			// committed before it (see echo); read it again.
			echoed = true
			if m.echo(ctx) == nil {
				continue
			}
		}
		if !wait || !time.Now().Before(deadline) {
			// Only transactions recorded before the select is sent are
			// sure to be in what it reads.
			pending, forgotten := m.capture()
			s, err := m.c.read(ctx)
			if err != nil {
				return nil, err
			}
			m.rebase(s.rows, pending, forgotten)
			return s, nil
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("%w: waiting for the monitor to show this client's writes: %w", ErrTransaction, ctx.Err())
		case <-time.After(pollInterval):
		}
	}
}

// rowsShow reports whether rows show every one of es (in the order they
// were recorded): a later one proven proves the earlier.
func rowsShow(c *Client, rows map[string]map[string]model.Model, es []*expect) bool {
	first := 0
	for i := len(es) - 1; i >= 0; i-- {
		if es[i].proven(rows) {
			first = i + 1
			break
		}
	}
	for _, e := range es[first:] {
		if !e.shown(c, rows) {
			return false
		}
	}
	return true
}

// writeSnapshot returns the snapshot a write plans on: the last one when
// it shows every transaction this client recorded and its rows were read
// less than lastSnapshotAge ago, without another pass over the cache
// (O(rows), the largest part of a node's Apply after an Observe); else
// snapshot's. A plan on the last one is refused by the server if a row it
// touches changed since (its guards), or if another writer created a row
// of a table without a name index it creates (nameUUID); Apply then plans
// again on a fresh snapshot. What nothing refuses, a member another writer
// created meanwhile created again, is what a cache lagging that writer
// allows too (Observe keeps one of two duplicates, the next Sync deletes
// the other): the age bounds that window to the order of such a lag.
// onLast reports the former.
func (m *monitor) writeSnapshot(ctx context.Context) (s *snapshot, onLast bool, err error) {
	if err := m.c.open(); err != nil {
		return nil, false, err
	}
	if err := m.connected(ctx); err != nil {
		return nil, false, err
	}
	m.mu.Lock()
	last := m.last
	ok := last != nil && m.lastShows == m.recorded && !m.overflow && time.Since(m.lastRead) < lastSnapshotAge
	m.mu.Unlock()
	if ok {
		return last, true, nil
	}
	s, err = m.snapshot(ctx)
	return s, false, err
}

// lastSnapshotAge bounds how old the last snapshot may be for a write to
// plan on it (see writeSnapshot): from the reading of the cache, so an
// Observe that derives a large snapshot (0.5 s at 166,500 rows after a
// node joins) still serves the Apply that follows it.
const lastSnapshotAge = 2 * time.Second

// echo sends an echo request on the monitor's connection and waits for
// the reply; then it forgets the transactions pending when it was sent.
// ovsdb-server sends a session's pending update notifications before it
// reads the session's next request, and libovsdb applies each
// notification to the cache before it reads the next message, so once the
// reply is in, the cache holds every transaction committed before the
// request was sent (this client's, on any connection, and others'). The
// embedded server sends its notifications before it replies to the
// transaction.
func (m *monitor) echo(ctx context.Context) error {
	pending, forgotten := m.capture()
	if err := m.raw.Echo(ctx); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.forgotten == forgotten {
		m.overflow = false
	}
	m.pending = slices.DeleteFunc(m.pending, func(e *expect) bool { return slices.Contains(pending, e) })
	return nil
}

// indexed returns the snapshot of rows (a cache read, see cacheRows): the
// last one built when the cache has not changed since (the cache replaces
// a model on every change, so the same models are the same rows), else a
// new one derived from the last (re-indexing the rows that changed and
// their neighbours), kept for the next call unless a later reading of the
// cache was kept meanwhile. rows show the first seq transactions this
// client recorded and were read at read (see writeSnapshot).
func (m *monitor) indexed(rows map[string]map[string]model.Model, seq int, read time.Time) (*snapshot, error) {
	m.mu.Lock()
	last := m.last
	m.mu.Unlock()
	if last != nil && (reflect.ValueOf(last.rows).Pointer() == reflect.ValueOf(rows).Pointer() || sameRows(last.rows, rows)) {
		// cacheRows returns the last snapshot's own rows when the cache
		// has not changed.
		m.mu.Lock()
		if m.last == last {
			m.lastShows = max(m.lastShows, seq)
			if read.After(m.lastRead) {
				m.lastRead = read
			}
		}
		m.mu.Unlock()
		return last, nil
	}
	s := newSnapshot()
	s.rows = rows
	// Only the rows the updates since the last snapshot touched are
	// indexed again (derive); the first snapshot is indexed without the
	// records a derivation needs (index).
	var err error
	if last == nil {
		err = s.index()
	} else {
		err = s.derive(last)
	}
	if err != nil {
		return nil, err
	}
	m.mu.Lock()
	if m.lastRead.IsZero() || !read.Before(m.lastRead) {
		// Not a reading older than the last one's (two readers at once).
		m.last, m.lastShows, m.lastRead = s, seq, read
	}
	m.mu.Unlock()
	return s, nil
}

// settle drops the pending transactions rows show and reports whether
// none is left (done) and, if some are, whether to wait for them.
func (m *monitor) settle(rows map[string]map[string]model.Model, captured ...*expect) (done, wait bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.overflow {
		return false, false
	}
	// A transaction proven in the cache proves every earlier one.
	for i := len(m.pending) - 1; i >= 0; i-- {
		if m.pending[i].proven(rows) {
			m.pending = slices.Delete(m.pending, 0, i+1)
			break
		}
	}
	m.pending = slices.DeleteFunc(m.pending, func(e *expect) bool { return e.shown(m.c, rows) })
	if len(m.pending) == 0 {
		// Another reader may have dropped what this read began with
		// from pending on a later reading of the cache.
		return rowsShow(m.c, rows, captured), true
	}
	for _, e := range m.pending {
		if !e.expired {
			return false, true
		}
	}
	return false, false
}

// rebase replaces what the pending transactions expect by what a select
// read after them (rows) holds for the rows they wrote, and marks them as
// waited for. Those rows may have been changed since by other clients:
// the cache showing them as the select does proves it is past the
// transaction, or holds for them what the transaction's successors left.
func (m *monitor) rebase(rows map[string]map[string]model.Model, pending []*expect, forgotten int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.forgotten == forgotten {
		m.overflow = false
	}
	for _, e := range pending {
		if slices.Contains(m.pending, e) {
			e.rebase(m.c, rows)
			e.expired = true
		}
	}
}

// capture returns the pending transactions and how many were ever
// forgotten.
func (m *monitor) capture() ([]*expect, int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.pending), m.forgotten
}

func (e *expect) rebase(c *Client, rows map[string]map[string]model.Model) {
	out := expect{deleted: e.deleted}
	gone := func(r rowRef) bool {
		if _, ok := rows[r.table][r.uuid]; ok {
			return false
		}
		out.deleted = append(out.deleted, r)
		return true
	}
	for _, r := range e.inserted {
		if !gone(r) {
			out.inserted = append(out.inserted, r)
		}
	}
	for _, r := range e.given {
		if !gone(r) {
			out.given = append(out.given, r)
		}
	}
	for _, cv := range e.columns {
		if gone(cv.rowRef) {
			continue
		}
		row, err := c.fastRow(rows[cv.table][cv.uuid], []string{cv.column})
		if err != nil {
			continue
		}
		if cv.want, err = canonical(row[cv.column], nil); err == nil {
			out.columns = append(out.columns, cv)
		}
	}
	for _, mr := range e.members {
		if gone(mr.rowRef) {
			continue
		}
		mr.present = slices.Contains(nbrow.UUIDs(rows[mr.table][mr.uuid], mr.column), mr.member)
		out.members = append(out.members, mr)
	}
	*e = out
}

// pendingWrites returns how many committed transactions of this client
// the cache is not known to show yet.
func (m *monitor) pendingWrites() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.pending)
}

func newSnapshot() *snapshot {
	return &snapshot{rows: map[string]map[string]model.Model{}, owned: map[objKey]observed{},
		byName: map[topology.Kind]map[string][]string{}, name: map[string]string{}, gcs: map[string]*nbdb.GatewayChassis{}, mine: map[string]topology.Controller{},
		extra: map[string]bool{}, broken: map[string]error{}}
}
