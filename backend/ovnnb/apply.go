package ovnnb

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/ovn-kubernetes/libovsdb/client"
	"github.com/ovn-kubernetes/libovsdb/model"
	"github.com/ovn-kubernetes/libovsdb/ovsdb"

	"github.com/udnkit/udnkit/backend"
	"github.com/udnkit/udnkit/internal/names"
	"github.com/udnkit/udnkit/internal/nbdb"
	"github.com/udnkit/udnkit/internal/nbrow"
	"github.com/udnkit/udnkit/topology"
)

// ChangeError is the error of one change: the change is named by its
// operation, kind and key. Err wraps ErrInvalidChange (nothing was written)
// or ErrTransaction (the server refused the transaction holding it).
type ChangeError struct {
	Op   topology.Op
	Kind topology.Kind
	Key  string
	Err  error
}

func (e *ChangeError) Error() string {
	return fmt.Sprintf("ovnnb: %s %s: %v", e.Op, describe(e.Kind, e.Key), e.Err)
}

func (e *ChangeError) Unwrap() error { return e.Err }

// Result counts what an Apply wrote (the Result every backend.Applier
// returns).
type Result = backend.Result

// The Client is a backend.Applier.
var _ backend.Applier = (*Client)(nil)

// Apply writes changes (from topology.Diff against a State this Client
// observed) in transactions of at most Config.MaxOpsPerTransaction
// operations (unless set: one transaction for up to
// DefaultMaxOpsPerTransaction operations, else batches of
// DefaultBatchOps). Every change is checked against
// the database before anything is sent: a malformed change set writes
// nothing and returns a *ChangeError wrapping ErrInvalidChange. An empty
// change set sends nothing.
//
// New rows get named UUIDs; members (ports, routes, policies, NAT, ACLs)
// are added to and removed from their parent's reference set by mutation,
// so references the SDK does not own survive. Only rows the SDK owns are
// updated or deleted.
func (c *Client) Apply(ctx context.Context, changes topology.Changes) (Result, error) {
	if len(changes) == 0 {
		return Result{}, ctx.Err()
	}
	p, onLast, err := c.planOn(ctx, changes, false)
	if err != nil {
		return Result{}, err
	}
	r, err := c.run(ctx, p)
	if errors.Is(err, errGuard) && onLast {
		// Planned on the last snapshot and the server refused it:
		// nothing was written; plan on the cache as it is now.
		if p, _, err = c.planOn(ctx, changes, true); err != nil {
			return Result{}, err
		}
		r, err = c.run(ctx, p)
	}
	if errors.Is(err, errGuard) {
		// The cache lagged: nothing was written; selects decide.
		if p, err = c.planSelected(ctx, changes); err != nil {
			return Result{}, err
		}
		return c.run(ctx, p)
	}
	return r, err
}

// Operations returns the OVSDB operations Apply would send for changes, in
// one list, without sending them (a dry run at the protocol level).
func (c *Client) Operations(ctx context.Context, changes topology.Changes) ([]ovsdb.Operation, error) {
	p, err := c.planFor(ctx, changes)
	if err != nil {
		return nil, err
	}
	n := 0
	for _, u := range p {
		n += len(u.ops)
	}
	ops := make([]ovsdb.Operation, 0, n)
	for _, u := range p {
		for _, o := range u.ops {
			ops = append(ops, o.op)
		}
	}
	return ops, nil
}

// Sync observes the networks desired speaks for, diffs and applies: it
// makes the database hold desired and returns the changes it applied. A
// second Sync of the same State sends nothing. It also deletes the
// duplicates of the rows desired speaks for (same kind and key, left by a
// writer that did not guard its creates: see the package documentation),
// which Observe leaves out; those deletes are counted in the Result but
// are not among the returned changes.
func (c *Client) Sync(ctx context.Context, desired topology.State) (topology.Changes, Result, error) {
	if c.mon != nil {
		changes, p, err := c.syncCached(ctx, desired)
		switch {
		case err == nil && p == nil:
			return nil, Result{}, nil
		case err == nil:
			r, err := c.run(ctx, p)
			if !errors.Is(err, errGuard) {
				return changes, r, err
			}
			// The cache lagged: nothing was written; selects decide.
		case !errors.Is(err, errStale) && !errors.Is(err, ErrInvalidChange):
			return changes, Result{}, err
		}
		// The cache lags or the plan failed on it: a select decides.
	}
	snap, err := c.read(ctx)
	if err != nil {
		return nil, Result{}, err
	}
	observed, err := snap.state(desired.Networks())
	if err != nil {
		return nil, Result{}, err
	}
	changes := topology.Diff(observed, desired)
	heal := snap.extrasFor(desired)
	if len(changes) == 0 && len(heal) == 0 {
		return nil, Result{}, nil
	}
	p, err := c.planHeal(snap, changes, heal)
	if err != nil {
		return changes, Result{}, err
	}
	r, err := c.run(ctx, p)
	return changes, r, err
}

// syncCached observes from the monitor's cache, diffs and plans against
// it (see planCached). A nil plan and error: nothing to change.
func (c *Client) syncCached(ctx context.Context, desired topology.State) (topology.Changes, []*unit, error) {
	snap, err := c.mon.snapshot(ctx)
	if err != nil {
		return nil, nil, err
	}
	observed, err := snap.state(desired.Networks())
	if err != nil {
		return nil, nil, err
	}
	changes := topology.Diff(observed, desired)
	heal := snap.extrasFor(desired)
	if len(changes) == 0 && len(heal) == 0 {
		return nil, nil, nil
	}
	p, err := c.planCached(ctx, snap, changes, heal)
	return changes, p, err
}

// sendError classifies an error of sending a transaction that got no
// reply. Only a request that surely never left (no connection, refused
// before sending) wraps ErrConnect; anything else (the context ending
// while waiting for the reply, the connection lost mid-request) may have
// been committed, and wraps ErrOutcomeUnknown.
func sendError(ctx context.Context, err error, res Result) error {
	done := ""
	if res.Transactions > 0 {
		done = fmt.Sprintf(" (after %d committed transactions)", res.Transactions)
	}
	if errors.Is(err, ErrConnect) || errors.Is(err, client.ErrNotConnected) {
		return fmt.Errorf("%w: nothing sent%s: %w", ErrConnect, done, err)
	}
	if ctx.Err() != nil && !errors.Is(err, ctx.Err()) {
		err = fmt.Errorf("%w (%v)", ctx.Err(), err)
	}
	return fmt.Errorf("%w%s: observe again before writing: %w", ErrOutcomeUnknown, done, err)
}

// DefaultMaxOpsPerTransaction and DefaultBatchOps decide the transactions
// when Config.MaxOpsPerTransaction is zero: a change set of at most
// DefaultMaxOpsPerTransaction operations (the threshold: any node's change
// set, the 100 x 20 apply's 28,390) goes in one transaction, a larger one
// in transactions of about DefaultBatchOps (a unit that must share one, a
// parent with its members, may exceed it alone). Filling a central NB
// from empty (BENCHMARKS.md, round 8: 62,775 to 251,100 objects, northd
// running), batches of 2,000 took the time of one transaction (16.1 vs
// 17.8 s at 251,100 objects) at half the server's peak memory (0.9 vs 1.9
// GiB), and less time than batches of 10,000 or 50,000; one transaction of
// the 2.3 M-object NB would need about 17 GiB.
const (
	DefaultMaxOpsPerTransaction = 50000
	DefaultBatchOps             = 2000
)

// maxOps is the transaction bound for a change set of n operations: 0 for
// none.
func (c *Client) maxOps(n int) int {
	switch m := c.cfg.MaxOpsPerTransaction; {
	case m < 0:
		return 0
	case m > 0:
		return m
	case n <= DefaultMaxOpsPerTransaction:
		return 0
	default:
		return DefaultBatchOps
	}
}

// taggedOp is one operation with the change it belongs to.
type taggedOp struct {
	op   ovsdb.Operation
	ch   int              // index into the change set
	rows int              // rows it writes (0 for mutations)
	of   *topology.Change // operation, kind and key of that change
	// guard: a wait of a plan against the cache (see Client.guards);
	// its failure is errGuard.
	guard bool
}

// unit is a group of operations that must share a transaction: a new
// parent with its new members, members added to or removed from an
// existing parent, one update, one delete.
type unit struct {
	phase  int           // 0 create, 1 update, 2 delete
	rank   topology.Kind // its kind: units run in the kinds' creation order
	seq    int
	ch     int // change that opened the unit
	pre    []taggedOp
	head   model.Model // created parent, inserted after its members
	headOp string      // its named UUID
	refs   map[string][]string
	parent string // existing parent UUID receiving or losing members
	ptable string
	add    map[string][]string
	del    map[string][]string
	post   []taggedOp
	ops    []taggedOp // assembled
	// headUUID is the UUID the created parent is inserted under (a table
	// without a name index, see nameUUID); "" for the server's choice.
	headUUID string
}

type planner struct {
	c       *Client
	s       *snapshot
	changes topology.Changes
	n       int
	created map[objKey]string // → named UUID (real for an adopted row)
	adopted map[objKey]bool   // created by adopting an unreferenced load balancer group
	deleted map[string]bool   // UUIDs deleted by the change set
	// rowUnit maps the UUID of an existing switch, router or load balancer
	// group that the change set updates or deletes to that unit.
	rowUnit map[string]*unit
	units   map[[3]string]*unit
	order   []*unit
	of      []topology.Change // per change: its operation, kind and key
	ids     *idsCache
	built   []built // by change, from prebuild
}

func (p *planner) named() string {
	p.n++
	return "row" + strconv.Itoa(p.n)
}

func (p *planner) fail(i int, err error) error {
	ch := p.changes[i]
	return &ChangeError{Op: ch.Op, Kind: ch.Kind, Key: ch.Key, Err: err}
}

func invalid(format string, a ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrInvalidChange}, a...)...)
}

// conflict and notFound are invalid changes that also say why, in the
// error classes: the row exists (topology.ErrConflict), or it does not
// (topology.ErrNotFound).
func conflict(format string, a ...any) error {
	return fmt.Errorf("%w: %w: "+format, append([]any{ErrInvalidChange, topology.ErrConflict}, a...)...)
}

func notFound(format string, a ...any) error {
	return fmt.Errorf("%w: %w: "+format, append([]any{ErrInvalidChange, topology.ErrNotFound}, a...)...)
}

// appendTo appends u to m[col], making m if it is nil.
func appendTo(m map[string][]string, col, u string) map[string][]string {
	if m == nil {
		m = map[string][]string{}
	}
	m[col] = append(m[col], u)
	return m
}

func (p *planner) unit(phase int, k topology.Kind, key string, ch int) *unit {
	id := [3]string{strconv.Itoa(phase), k.String(), key}
	if u, ok := p.units[id]; ok {
		return u
	}
	u := &unit{phase: phase, rank: k, seq: len(p.order), ch: ch}
	p.units[id] = u
	p.order = append(p.order, u)
	return u
}

// resolve returns the UUID (real or named) of the row of kind called name:
// created by the change set, owned, or (for plain references) foreign.
func (p *planner) resolve(k topology.Kind, name string, ownedOnly bool) (string, bool) {
	if u, ok := p.created[objKey{k, name}]; ok {
		return u, true
	}
	if o, ok := p.s.owned[objKey{k, name}]; ok && !p.deleted[o.uuid] {
		return o.uuid, true
	}
	if ownedOnly {
		return "", false
	}
	if us := p.s.byName[k][name]; len(us) == 1 && !p.deleted[us[0]] {
		return us[0], true
	}
	return "", false
}

func (c *Client) plan(s *snapshot, changes topology.Changes) ([]*unit, error) {
	return c.planHeal(s, changes, nil)
}

// extrasFor returns the duplicate rows of the (controller, network) pairs
// desired speaks for.
func (s *snapshot) extrasFor(desired topology.State) []observed {
	var out []observed
	for _, o := range s.extras {
		if own := o.obj.OwnedBy(); desired.SpeaksFor(own.Controller, own.Network) {
			out = append(out, o)
		}
	}
	slices.SortFunc(out, func(a, b observed) int { return strings.Compare(a.uuid, b.uuid) })
	return out
}

// planHeal plans changes and the deletion of the duplicate rows heal.
func (c *Client) planHeal(s *snapshot, changes topology.Changes, heal []observed) ([]*unit, error) {
	p := &planner{c: c, s: s, changes: changes, created: map[objKey]string{}, adopted: map[objKey]bool{}, deleted: map[string]bool{}, rowUnit: map[string]*unit{},
		units: map[[3]string]*unit{}, ids: newIDsCache()}
	// Pass 1: check every change against the snapshot.
	for i, ch := range changes {
		obj := ch.Object
		if obj == nil {
			obj = ch.Old
		}
		if obj == nil {
			return nil, p.fail(i, invalid("no object"))
		}
		if obj.Kind() != ch.Kind || obj.Key() != ch.Key {
			return nil, p.fail(i, invalid("object is %s", describe(obj.Kind(), obj.Key())))
		}
		if obj.OwnedBy().Network == "" {
			return nil, p.fail(i, invalid("owner network is empty"))
		}
		k := objKey{ch.Kind, ch.Key}
		switch ch.Op {
		case topology.OpCreate:
			if _, ok := s.owned[k]; ok {
				return nil, p.fail(i, conflict("already exists"))
			}
			if _, ok := p.created[k]; ok {
				return nil, p.fail(i, invalid("created twice"))
			}
			if us := s.byName[ch.Kind][ch.Key]; namedKind(ch.Kind) && len(us) > 0 {
				// A load balancer group has no external_ids to tell whose it
				// is: one that nothing references (the SDK's own, left by
				// a batched apply that stopped before the switches and
				// routers that reference it) is adopted by the exact name
				// the change set creates, instead of blocking every later
				// Sync on the name index.
				if ch.Kind != topology.KindLoadBalancerGroup || len(us) != 1 || len(s.lbgRefs[us[0]]) > 0 || p.deleted[us[0]] {
					return nil, p.fail(i, conflict("a row not owned by udnkit has this name"))
				}
				p.created[k], p.adopted[k] = us[0], true
				continue
			}
			p.created[k] = p.named()
		case topology.OpUpdate, topology.OpDelete:
			o, ok := s.owned[k]
			if !ok {
				return nil, p.fail(i, notFound("not found among the rows udnkit owns"))
			}
			if ch.Op == topology.OpDelete {
				if p.deleted[o.uuid] {
					return nil, p.fail(i, invalid("deleted twice"))
				}
				p.deleted[o.uuid] = true
			}
		default:
			return nil, p.fail(i, invalid("unknown operation %v", ch.Op))
		}
	}
	// Pass 2: operations.
	p.prebuild()
	for i, ch := range changes {
		var err error
		switch ch.Op {
		case topology.OpCreate:
			err = p.create(i, ch)
		case topology.OpUpdate:
			err = p.update(i, ch)
		case topology.OpDelete:
			err = p.delete(i, ch)
		}
		if err != nil {
			return nil, p.fail(i, err)
		}
	}
	if len(heal) > 0 {
		p.changes = slices.Clip(p.changes)
		for _, h := range heal {
			if p.deleted[h.uuid] {
				continue
			}
			p.deleted[h.uuid] = true
			k := h.obj.Kind()
			p.changes = append(p.changes, topology.Change{Op: topology.OpDelete, Kind: k, Key: h.obj.Key(), Object: h.obj, Old: h.obj})
			if err := p.deleteRow(len(p.changes)-1, k, h.obj.Key(), h); err != nil {
				return nil, p.fail(len(p.changes)-1, err)
			}
		}
	}
	if err := p.checkMinimums(); err != nil {
		return nil, err
	}
	units := p.order
	slices.SortStableFunc(units, func(a, b *unit) int {
		if c := cmp.Compare(a.phase, b.phase); c != 0 {
			return c
		}
		if a.phase == 2 {
			return cmp.Compare(a.seq, b.seq)
		}
		if c := cmp.Compare(a.rank.Order(), b.rank.Order()); c != 0 {
			return c
		}
		return cmp.Compare(a.seq, b.seq)
	})
	for _, u := range units {
		if err := p.assemble(u); err != nil {
			return nil, p.fail(u.ch, err)
		}
	}
	return p.joinLBGDeletes(units), nil
}

// checkMinimums refuses a change set that creates a parent with fewer
// members than its schema wants in a column (a Meter without a band), or
// leaves an existing parent it does not delete with fewer: the server
// would refuse the transaction. A created parent and its members share
// one unit, so one transaction.
func (p *planner) checkMinimums() error {
	type parentCol struct{ uuid, col string }
	delta := map[parentCol]int{}
	at := map[parentCol]*unit{}
	for _, u := range p.order {
		if u.head != nil {
			table := nbrow.TableOf(u.head)
			mins := nbrow.MinMembers(table)
			for _, col := range sortedMins(mins) {
				if n := len(u.refs[col]); n < mins[col] {
					name, _ := rowName(u.head)
					return p.fail(u.ch, invalid("%s: %s: the schema wants at least %d, the change set creates %d",
						describe(kindOfTable(table), name), col, mins[col], n))
				}
			}
		}
		if u.parent == "" || len(nbrow.MinMembers(u.ptable)) == 0 {
			continue
		}
		for col, us := range u.add {
			k := parentCol{u.parent, col}
			delta[k] += len(us)
		}
		for col, us := range u.del {
			k := parentCol{u.parent, col}
			delta[k] -= len(us)
			if at[k] == nil {
				at[k] = u
			}
		}
	}
	for _, k := range slices.SortedFunc(maps.Keys(at), func(a, b parentCol) int {
		return cmp.Or(strings.Compare(a.uuid, b.uuid), strings.Compare(a.col, b.col))
	}) {
		u := at[k]
		min := nbrow.MinMembers(u.ptable)[k.col]
		row, ok := p.s.rows[u.ptable][k.uuid]
		if p.deleted[k.uuid] || !ok {
			continue
		}
		if n := len(nbrow.UUIDs(row, k.col)) + delta[k]; n < min {
			return p.fail(u.ch, invalid("%s: %s: the schema wants at least %d, the change set leaves %d",
				describe(kindOfTable(u.ptable), p.s.name[k.uuid]), k.col, min, n))
		}
	}
	return nil
}

// sortedMins returns the columns of mins, sorted.
func sortedMins(mins map[string]int) []string { return slices.Sorted(maps.Keys(mins)) }

// joinLBGDeletes moves the updates and deletes of the switches and routers
// that reference a load balancer group the change set deletes into the
// group's own unit: one transaction then drops the last reference and the
// group together. Split across batches, a stop between them would leave a
// group nothing references, which is nobody's (see lbgOwner) and would
// never be deleted.
func (p *planner) joinLBGDeletes(units []*unit) []*unit {
	moved := map[*unit]bool{}
	host := map[*unit]*unit{} // a moved unit → the unit holding its operations
	for _, u := range units {
		if u.phase != 2 || u.rank != topology.KindLoadBalancerGroup || moved[u] {
			continue
		}
		g := ""
		for _, op := range u.ops {
			if op.op.Op == ovsdb.OperationDelete && op.op.Table == nbdb.LoadBalancerGroupTable {
				g = op.op.Where[0].Value.(ovsdb.UUID).GoUUID
			}
		}
		var extra []taggedOp
		into := u
		for _, r := range p.s.lbgRefs[g] {
			ru := p.rowUnit[r.uuid]
			if ru == nil || ru == u {
				continue
			}
			if h := host[ru]; h != nil {
				// Already joined to an earlier group's unit: this group
				// joins that unit too.
				into = h
				continue
			}
			moved[ru], host[ru] = true, u
			extra = append(extra, ru.ops...)
		}
		u.ops = append(extra, u.ops...)
		if into != u {
			into.ops = append(into.ops, u.ops...)
			moved[u] = true
			for r, h := range host {
				if h == u {
					host[r] = into
				}
			}
		}
	}
	if len(moved) == 0 {
		return units
	}
	return slices.DeleteFunc(units, func(u *unit) bool { return moved[u] })
}

// row builds the OVSDB row of m: every non-default column, or exactly the
// given columns.
func (c *Client) row(m model.Model, columns []string) (ovsdb.Row, error) {
	info, err := c.dbModel.NewModelInfo(m)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidChange, err)
	}
	ts := info.Metadata.TableSchema
	out := ovsdb.Row{}
	add := func(col string) error {
		cs := ts.Column(col)
		if cs == nil {
			return fmt.Errorf("%w: table %s has no column %s", ErrSchema, info.Metadata.TableName, col)
		}
		v, err := info.FieldByColumn(col)
		if err != nil {
			return fmt.Errorf("%w: column %s: %w", ErrInvalidChange, col, err)
		}
		if columns == nil && ovsdb.IsDefaultValue(cs, v) {
			return nil
		}
		ov, err := ovsdb.NativeToOvs(cs, v)
		if err != nil {
			return fmt.Errorf("%w: column %s: %w", ErrInvalidChange, col, err)
		}
		out[col] = ov
		return nil
	}
	if columns != nil {
		for _, col := range columns {
			if err := add(col); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	for col := range ts.Columns {
		if err := add(col); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// fill builds the model of obj with its by-name references resolved and
// its Gateway_Chassis rows (returned as insert operations).
func (p *planner) fill(i int, obj topology.Object, ids *idsCache) (model.Model, []taggedOp, error) {
	m, err := toRowIDs(obj, ids)
	if err != nil {
		return nil, nil, err
	}
	for _, r := range nameRefs(obj) {
		var us []string
		for _, n := range r.Names {
			u, ok := p.resolve(r.Kind, n, false)
			if !ok {
				return nil, nil, invalid("%s: %s not found", r.Column, describe(r.Kind, n))
			}
			us = append(us, u)
		}
		if !nbrow.SetUUIDs(m, r.Column, us) {
			return nil, nil, invalid("%s has no reference column %s", obj.Kind().Table(), r.Column)
		}
	}
	var pre []taggedOp
	if gcs := nbrow.ChassisOf(obj); len(gcs) > 0 {
		uuidNames := make([]string, len(gcs))
		for j, g := range gcs {
			if names.Control(g.Name) >= 0 || names.Control(g.Chassis) >= 0 {
				return nil, nil, invalid("gateway_chassis %s on %s: %s%s", names.Quote(g.Name), names.Quote(g.Chassis),
					names.ControlError(g.Name), names.ControlError(g.Chassis))
			}
			gm := &nbdb.GatewayChassis{Name: g.Name, ChassisName: g.Chassis, Priority: g.Priority}
			row, err := p.c.fastRow(gm, nil)
			if err != nil {
				return nil, nil, err
			}
			uuidNames[j] = "gc" + strconv.Itoa(i) + "_" + strconv.Itoa(j)
			pre = append(pre, taggedOp{op: ovsdb.Operation{Op: ovsdb.OperationInsert, Table: nbdb.GatewayChassisTable, UUIDName: uuidNames[j], Row: row}, ch: i, rows: 1})
		}
		nbrow.SetUUIDs(m, nbrow.ColumnGatewayChassis, uuidNames)
	}
	return m, pre, nil
}

// built is the model, Gateway_Chassis inserts and (for a member) row of a
// created object, built ahead of the planning that needs them.
type built struct {
	m   model.Model
	pre []taggedOp
	row ovsdb.Row
	err error
}

// build fills and, for a member, encodes the object of change i.
func (p *planner) build(i int, obj topology.Object, ids *idsCache) built {
	m, pre, err := p.fill(i, obj, ids)
	if err != nil {
		return built{err: err}
	}
	b := built{m: m, pre: pre}
	if _, _, member := parentOf(obj); member {
		b.row, b.err = p.c.encodeRow(m, nil, ids)
	}
	return b
}

// minParallel is the change-set size from which created rows are built on
// several goroutines.
const minParallel = 2048

// prebuild builds the created objects' rows on up to GOMAXPROCS
// goroutines (each with its own cache): building reads only what pass 1
// fixed, and every result lands in its change's slot, so the plan does
// not depend on the scheduling.
func (p *planner) prebuild() {
	workers := min(runtime.GOMAXPROCS(0), 4)
	if len(p.changes) < minParallel || workers < 2 {
		return
	}
	p.built = make([]built, len(p.changes))
	var wg sync.WaitGroup
	chunk := (len(p.changes) + workers - 1) / workers
	for w := 0; w < workers; w++ {
		lo, hi := w*chunk, min((w+1)*chunk, len(p.changes))
		if lo >= hi {
			break
		}
		wg.Go(func() {
			ids := newIDsCache()
			for i := lo; i < hi; i++ {
				if ch := p.changes[i]; ch.Op == topology.OpCreate {
					p.built[i] = p.build(i, ch.Object, ids)
				}
			}
		})
	}
	wg.Wait()
}

func (p *planner) create(i int, ch topology.Change) error {
	obj := ch.Object
	named := p.created[objKey{ch.Kind, ch.Key}]
	var b built
	if p.built != nil {
		b = p.built[i]
		p.built[i] = built{}
	} else {
		b = p.build(i, obj, p.ids)
	}
	if b.err != nil {
		return b.err
	}
	m, pre := b.m, b.pre
	pk, pname, member := parentOf(obj)
	if p.adopted[objKey{ch.Kind, ch.Key}] {
		// The group is taken as it is: its members are the load
		// balancers', which name it themselves (LoadBalancer.Groups) and
		// join it in this unit. The wait fails the transaction if the
		// group was deleted or renamed since it was read, instead of
		// mutating nothing; the next Sync then creates it.
		u := p.unit(0, ch.Kind, ch.Key, i)
		timeout := 0
		u.post = append(u.post, taggedOp{op: ovsdb.Operation{Op: ovsdb.OperationWait, Table: ch.Kind.Table(), Timeout: &timeout,
			Where: []ovsdb.Condition{uuidIs(named)}, Columns: []string{"name"}, Until: string(ovsdb.WaitConditionEqual),
			Rows: []ovsdb.Row{{"name": ch.Key}}}, ch: i})
		return nil
	}
	if !member {
		u := p.unit(0, ch.Kind, ch.Key, i)
		u.head, u.headOp = m, named
		if unindexed(ch.Kind) {
			// No name index to refuse a second writer's copy: the row
			// gets the UUID its name gives, which the server's UUID index
			// refuses twice, or, when a row already holds that UUID, a
			// wait that no row has its name (a scan of the table).
			id := nameUUID(ch.Kind.Table(), ch.Key)
			if !p.c.nameWaits && p.s.tableOf(id) == "" {
				u.headUUID = id
			} else {
				u.pre = append(u.pre, waitNoName(ch.Kind.Table(), ch.Key, i))
			}
		}
		u.pre = append(u.pre, pre...)
		return p.attach(i, obj, nil, named)
	}
	if pname == "" {
		return invalid("no parent %s", pk.Kind)
	}
	ins := taggedOp{op: ovsdb.Operation{Op: ovsdb.OperationInsert, Table: ch.Kind.Table(), UUIDName: named, Row: b.row}, ch: i, rows: 1}
	u := p.unit(0, pk.Kind, pname, i)
	u.pre = append(u.pre, pre...)
	u.pre = append(u.pre, ins)
	if _, ok := p.created[objKey{pk.Kind, pname}]; ok {
		u.refs = appendTo(u.refs, pk.Column, named)
		return nil
	}
	o, ok := p.s.owned[objKey{pk.Kind, pname}]
	if !ok || p.deleted[o.uuid] {
		return invalid("parent %s not found among the rows udnkit owns", describe(pk.Kind, pname))
	}
	u.parent, u.ptable = o.uuid, pk.Kind.Table()
	u.add = appendTo(u.add, pk.Column, named)
	return nil
}

// attach puts the row self (of obj, a kind with attachments: a load
// balancer) into the rows obj names that old did not, and takes it out of
// the rows old named that obj does not. A row the change set creates gets
// it in its insert; an existing one (whichever controller owns it) by a
// mutation in that row's unit, one per row and column for the change set,
// so that the references other owners put there survive.
// Rows it is taken out of that are gone need nothing: the references are
// weak.
func (p *planner) attach(i int, obj, old topology.Object, self string) error {
	cols := obj.Kind().Descriptor().Attachments
	if len(cols) == 0 {
		return nil
	}
	now := topology.Attached(obj)
	var was [][]string
	if old != nil {
		was = topology.Attached(old)
	}
	for j, c := range cols {
		var prev []string
		if j < len(was) {
			prev = was[j]
		}
		for _, name := range now[j] {
			if slices.Contains(prev, name) {
				continue
			}
			k := objKey{c.Kind, name}
			if _, ok := p.created[k]; ok && !p.adopted[k] {
				cu := p.unit(0, c.Kind, name, i)
				cu.refs = appendTo(cu.refs, c.Column, self)
				continue
			}
			pu, ok := p.resolve(c.Kind, name, true)
			if !ok {
				return invalid("%s: %s not found among the rows udnkit owns", c.Column, describe(c.Kind, name))
			}
			// One mutation per holder and column for the whole change set
			// (thousands of load balancers join one group): the holder's
			// unit, after the load balancers' (a holder kind ranks after
			// them), as members are added to an existing parent.
			hu := p.unit(0, c.Kind, name, i)
			hu.parent, hu.ptable = pu, c.Kind.Table()
			hu.add = appendTo(hu.add, c.Column, self)
		}
		for _, name := range prev {
			if slices.Contains(now[j], name) {
				continue
			}
			if pu, ok := p.resolve(c.Kind, name, true); ok {
				hu := p.unit(1, c.Kind, name, i)
				hu.parent, hu.ptable = pu, c.Kind.Table()
				hu.del = appendTo(hu.del, c.Column, self)
			}
		}
	}
	return nil
}

func (p *planner) update(i int, ch topology.Change) error {
	obs := p.s.owned[objKey{ch.Kind, ch.Key}]
	m, pre, err := p.fill(i, ch.Object, p.ids)
	if err != nil {
		return err
	}
	cols := ch.Columns
	if len(cols) == 0 {
		cols = updatable(ch.Kind)
	}
	u := p.unit(1, ch.Kind, ch.Key, i)
	p.rowUnit[obs.uuid] = u
	var write []string
	move, reattach := false, false
	for _, c := range cols {
		switch {
		case c == topology.ColumnAttachments:
			reattach = true
		case nbrow.MoveColumn(ch.Kind, c):
			move = true
		case nbrow.IsMemberColumn(ch.Kind.Table(), c):
			return invalid("column %s is managed through members", c)
		case c == "external_ids" && !nbrow.HasExternalIDs(ch.Kind):
			// Load_Balancer_Group has no external_ids.
		default:
			write = append(write, c)
		}
	}
	if ch.Old != nil {
		// A kind of several parents (an ACL) may change parent kind.
		ok, on, _ := topology.Parent(ch.Old)
		nk, nn, _ := topology.Parent(ch.Object)
		move = move || ok != nk || on != nn
	}
	if !move {
		if pk, pname, member := parentOf(ch.Object); member {
			if cur, ok := p.s.rows[pk.Kind.Table()][obs.parent]; !ok || func() bool { n, _ := rowName(cur); return n != pname }() {
				move = true
			}
		}
	}
	if slices.Contains(write, "gateway_chassis") {
		// New Gateway_Chassis rows only with the column that references
		// them: an update of other columns leaves the old ones.
		u.pre = append(u.pre, pre...)
	}
	if len(write) > 0 {
		row, err := p.c.encodeRow(m, write, p.ids)
		if err != nil {
			return err
		}
		u.post = append(u.post, taggedOp{op: ovsdb.Operation{Op: ovsdb.OperationUpdate, Table: ch.Kind.Table(), Row: row,
			Where: []ovsdb.Condition{uuidIs(obs.uuid)}}, ch: i, rows: 1})
	}
	if reattach {
		old := ch.Old
		if old == nil {
			old = obs.obj
		}
		if err := p.attach(i, ch.Object, old, obs.uuid); err != nil {
			return err
		}
	}
	if move {
		pk, pname, _ := parentOf(ch.Object)
		if obs.parent != "" && !p.deleted[obs.parent] {
			oldTable := p.s.tableOf(obs.parent)
			col := pk.Column
			u.post = append(u.post, mutate(oldTable, obs.parent, col, ovsdb.MutateOperationDelete, []string{obs.uuid}, i))
		}
		if _, ok := p.created[objKey{pk.Kind, pname}]; ok {
			cu := p.unit(0, pk.Kind, pname, i)
			cu.refs = appendTo(cu.refs, pk.Column, obs.uuid)
		} else {
			np, ok := p.s.owned[objKey{pk.Kind, pname}]
			if !ok || p.deleted[np.uuid] {
				return invalid("new parent %s not found among the rows udnkit owns", describe(pk.Kind, pname))
			}
			u.post = append(u.post, mutate(pk.Kind.Table(), np.uuid, pk.Column, ovsdb.MutateOperationInsert, []string{obs.uuid}, i))
		}
	}
	return nil
}

func (s *snapshot) tableOf(uuid string) string {
	for t, rows := range s.rows {
		if _, ok := rows[uuid]; ok {
			return t
		}
	}
	return ""
}

func (p *planner) delete(i int, ch topology.Change) error {
	return p.deleteRow(i, ch.Kind, ch.Key, p.s.owned[objKey{ch.Kind, ch.Key}])
}

// deleteRow deletes the owned row obs, of kind k and key key, for change i.
func (p *planner) deleteRow(i int, k topology.Kind, key string, obs observed) error {
	ch := topology.Change{Kind: k, Key: key}
	del := taggedOp{op: ovsdb.Operation{Op: ovsdb.OperationDelete, Table: ch.Kind.Table(), Where: []ovsdb.Condition{uuidIs(obs.uuid)}}, ch: i, rows: 1}
	pk, _, member := parentOf(obs.obj)
	if !member {
		var wait []taggedOp
		if row, ok := p.s.rows[ch.Kind.Table()][obs.uuid]; ok {
			ms := members(row)
			ctl := canonController(obs.obj.OwnedBy().Controller)
			for col, us := range ms {
				for _, m := range us {
					if p.deleted[m] {
						continue // another controller's member, deleted by this change set too
					}
					if c, ok := p.s.mine[m]; !ok || c != ctl {
						who := "udnkit does not own"
						if ok {
							who = "controller " + strconv.Quote(c.String()) + " owns"
						}
						return invalid("%s holds a row %s (%s %s); deleting it would delete that row: remove it first",
							col, who, p.s.tableOf(m), p.s.label(m))
					}
				}
			}
			if len(ms) > 0 {
				wait = append(wait, waitMembers(ch.Kind.Table(), obs.uuid, ms, i))
			}
		}
		u := p.unit(2, ch.Kind, ch.Key, i)
		p.rowUnit[obs.uuid] = u
		u.post = append(u.post, wait...)
		u.post = append(u.post, del)
		return nil
	}
	if p.deleted[obs.parent] {
		// The member goes with its parent: OVSDB collects unreferenced
		// members, and deleting it first could break a batch.
		return nil
	}
	table := p.s.tableOf(obs.parent)
	name := p.s.name[obs.parent]
	u := p.unit(2, kindOfTable(table), name, i)
	u.parent, u.ptable = obs.parent, table
	u.del = appendTo(u.del, pk.Column, obs.uuid)
	u.post = append(u.post, del)
	return nil
}

// label names a row by its name, or its UUID.
func (s *snapshot) label(u string) string {
	if n, ok := s.name[u]; ok {
		return strconv.Quote(n)
	}
	return u
}

func uuidIs(u string) ovsdb.Condition {
	return ovsdb.NewCondition("_uuid", ovsdb.ConditionEqual, ovsdb.UUID{GoUUID: u})
}

func uuidSet(us []string) ovsdb.OvsSet {
	s := ovsdb.OvsSet{GoSet: make([]any, len(us))}
	for i, u := range us {
		s.GoSet[i] = ovsdb.UUID{GoUUID: u}
	}
	return s
}

// nameUUID is the UUID a row of table named name is created under when
// the table has no name index: a version 8 UUID (RFC 9562) of a SHA-256 of
// the table and the name. Every writer creating the row gives it that UUID,
// so the server, which finds a row by UUID without a scan, refuses the
// second ("duplicate uuid"): the guard a wait that no row has the name
// gave, without the wait's scan of the table once per created row (which
// made filling a large NB from empty quadratic: BENCHMARKS.md, round 8).
func nameUUID(table, name string) string {
	h := sha256.Sum256([]byte("udnkit\x00" + table + "\x00" + name))
	b := h[:16]
	b[6] = b[6]&0x0f | 0x80 // version 8
	b[8] = b[8]&0x3f | 0x80 // variant 10
	x := hex.EncodeToString(b)
	return x[0:8] + "-" + x[8:12] + "-" + x[12:16] + "-" + x[16:20] + "-" + x[20:32]
}

// waitNoName makes the transaction fail unless table has no row called
// name (RFC 7047 wait, timeout 0): of concurrent writers creating the same
// row, whose transactions the server runs one after the other, the first
// creates it and the others are refused, instead of each adding a copy.
func waitNoName(table, name string, ch int) taggedOp {
	timeout := 0
	return taggedOp{op: ovsdb.Operation{Op: ovsdb.OperationWait, Table: table, Timeout: &timeout,
		Where: []ovsdb.Condition{ovsdb.NewCondition("name", ovsdb.ConditionEqual, name)}, Columns: []string{"name"},
		// "Until the rows named name differ from one such row": true when
		// there is none (an empty rows member would be left out by the
		// encoder, and the server requires it).
		Until: string(ovsdb.WaitConditionNotEqual), Rows: []ovsdb.Row{{"name": name}}}, ch: ch}
}

// waitMembers makes the transaction fail unless the parent row still holds
// exactly the members read (RFC 7047 wait, timeout 0): a member someone
// added between the read and the write would otherwise go with the parent.
func waitMembers(table, uuid string, ms map[string][]string, ch int) taggedOp {
	cols := sortedCols(ms)
	row := ovsdb.Row{}
	for _, col := range cols {
		row[col] = uuidSet(ms[col])
	}
	timeout := 0
	return taggedOp{op: ovsdb.Operation{Op: ovsdb.OperationWait, Table: table, Timeout: &timeout,
		Where: []ovsdb.Condition{uuidIs(uuid)}, Columns: cols, Until: string(ovsdb.WaitConditionEqual), Rows: []ovsdb.Row{row}}, ch: ch}
}

func mutate(table, uuid, column string, m ovsdb.Mutator, us []string, ch int) taggedOp {
	return taggedOp{op: ovsdb.Operation{Op: ovsdb.OperationMutate, Table: table, Where: []ovsdb.Condition{uuidIs(uuid)},
		Mutations: []ovsdb.Mutation{*ovsdb.NewMutation(column, m, uuidSet(us))}}, ch: ch}
}

func sortedCols(m map[string][]string) []string {
	cols := make([]string, 0, len(m))
	for c := range m {
		cols = append(cols, c)
	}
	slices.Sort(cols)
	return cols
}

// assemble orders a unit's operations: rows first, then the parent that
// references them (inserted or mutated), then updates and deletes.
func (p *planner) assemble(u *unit) error {
	ops := make([]taggedOp, 0, len(u.pre)+1+len(u.del)+len(u.add)+len(u.post))
	ops = append(ops, u.pre...)
	if u.head != nil {
		if err := setMembers(u.head, u.refs); err != nil {
			return err
		}
		row, err := p.c.encodeRow(u.head, nil, p.ids)
		if err != nil {
			return err
		}
		info, _ := p.c.dbModel.NewModelInfo(u.head)
		ops = append(ops, taggedOp{op: ovsdb.Operation{Op: ovsdb.OperationInsert, Table: info.Metadata.TableName, UUIDName: u.headOp, UUID: u.headUUID, Row: row}, ch: u.ch, rows: 1})
	}
	if u.parent != "" {
		for _, col := range sortedCols(u.del) {
			ops = append(ops, mutate(u.ptable, u.parent, col, ovsdb.MutateOperationDelete, u.del[col], u.ch))
		}
		for _, col := range sortedCols(u.add) {
			ops = append(ops, mutate(u.ptable, u.parent, col, ovsdb.MutateOperationInsert, u.add[col], u.ch))
		}
	}
	u.ops = append(ops, u.post...)
	if p.of == nil {
		p.of = make([]topology.Change, len(p.changes))
		for i, c := range p.changes {
			p.of[i] = topology.Change{Op: c.Op, Kind: c.Kind, Key: c.Key}
		}
	}
	for i := range u.ops {
		u.ops[i].of = &p.of[u.ops[i].ch]
	}
	return nil
}

// setMembers writes the member columns of a new parent row.
func setMembers(m model.Model, refs map[string][]string) error {
	for col, us := range refs {
		if !nbrow.SetUUIDs(m, col, us) {
			return invalid("%T has no member column %s", m, col)
		}
	}
	return nil
}

// run sends the units in transactions.
func (c *Client) run(ctx context.Context, units []*unit) (Result, error) {
	var res Result
	total := 0
	for _, u := range units {
		total += len(u.ops)
	}
	max := c.maxOps(total)
	real := map[string]string{}
	for start := 0; start < len(units); {
		end := start
		n := 0
		for end < len(units) && (n == 0 || max <= 0 || n+len(units[end].ops) <= max) {
			n += len(units[end].ops)
			end++
		}
		batch := make([]taggedOp, 0, n)
		for _, u := range units[start:end] {
			batch = append(batch, u.ops...)
		}
		start = end
		if len(batch) == 0 {
			continue
		}
		ops := make([]ovsdb.Operation, len(batch))
		for i, t := range batch {
			ops[i] = t.op
			if len(real) > 0 {
				substOp(&ops[i], real)
			}
		}
		if err := ctx.Err(); err != nil {
			return res, err
		}
		results, err := c.transact(ctx, ops)
		if err != nil {
			return res, sendError(ctx, err, res)
		}
		if err := c.check(results, ops, batch); err != nil {
			return res, err
		}
		res.Transactions++
		res.Operations += len(ops)
		for i, t := range batch {
			res.Rows += t.rows
			if ops[i].Op == ovsdb.OperationInsert && ops[i].UUIDName != "" {
				real[ops[i].UUIDName] = results[i].UUID.GoUUID
			}
		}
	}
	return res, nil
}

func (c *Client) check(results []ovsdb.OperationResult, ops []ovsdb.Operation, batch []taggedOp) error {
	_, err := ovsdb.CheckOperationResults(results, ops)
	if err == nil {
		return nil
	}
	for i, r := range results {
		if r.Error == "" {
			continue
		}
		detail := r.Error
		if r.Details != "" {
			detail += ": " + r.Details
		}
		if i < len(batch) && batch[i].guard {
			return fmt.Errorf("%w: %w: %s on %s: %s", errGuard, ErrTransaction, ops[i].Op, ops[i].Table, detail)
		}
		if i < len(batch) {
			of := batch[i].of
			return &ChangeError{Op: of.Op, Kind: of.Kind, Key: of.Key,
				Err: fmt.Errorf("%w: %s on %s: %s", ErrTransaction, ops[i].Op, ops[i].Table, detail)}
		}
		return fmt.Errorf("%w: commit: %s", ErrTransaction, detail)
	}
	return fmt.Errorf("%w: %v", ErrTransaction, err)
}

// substRaw replaces ["named-uuid","NAME"] in encoded values.
func substRaw(raw json.RawMessage, real map[string]string) json.RawMessage {
	const tag = `["named-uuid","`
	if !bytes.Contains(raw, []byte(tag)) {
		return raw
	}
	var out []byte
	rest := []byte(raw)
	for {
		i := bytes.Index(rest, []byte(tag))
		if i < 0 {
			return append(out, rest...)
		}
		out = append(out, rest[:i]...)
		rest = rest[i+len(tag):]
		j := bytes.IndexByte(rest, '"')
		name := string(rest[:j])
		if r, ok := real[name]; ok {
			out = append(out, `["uuid","`...)
			out = append(out, r...)
		} else {
			out = append(out, tag...)
			out = append(out, name...)
		}
		rest = rest[j:]
	}
}

// substOp replaces named UUIDs committed by an earlier batch with the real
// ones.
func substOp(op *ovsdb.Operation, real map[string]string) {
	if op.Row != nil {
		row := ovsdb.Row{}
		for k, v := range op.Row {
			row[k] = subst(v, real)
		}
		op.Row = row
	}
	if op.Mutations != nil {
		ms := slices.Clone(op.Mutations)
		for i := range ms {
			ms[i].Value = subst(ms[i].Value, real)
		}
		op.Mutations = ms
	}
	if op.Where != nil {
		ws := slices.Clone(op.Where)
		for i := range ws {
			ws[i].Value = subst(ws[i].Value, real)
		}
		op.Where = ws
	}
}

func subst(v any, real map[string]string) any {
	switch x := v.(type) {
	case json.RawMessage:
		return substRaw(x, real)
	case ovsdb.UUID:
		if r, ok := real[x.GoUUID]; ok {
			return ovsdb.UUID{GoUUID: r}
		}
	case ovsdb.OvsSet:
		s := ovsdb.OvsSet{GoSet: make([]any, len(x.GoSet))}
		for i, e := range x.GoSet {
			s.GoSet[i] = subst(e, real)
		}
		return s
	}
	return v
}
