package ovnnb

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/ovn-kubernetes/libovsdb/model"
	"github.com/ovn-kubernetes/libovsdb/ovsdb"

	"github.com/udnkit/udnkit/internal/names"
	"github.com/udnkit/udnkit/internal/nbdb"
	"github.com/udnkit/udnkit/internal/nbrow"
	"github.com/udnkit/udnkit/topology"
)

// maxScopedSelects bounds the selects of a scoped read: a change set
// naming more rows than that reads the whole tables instead (one select per
// table costs less than thousands of lookups).
const maxScopedSelects = 2000

// lookup is one select of a scoped read: the rows of table matching where
// (only their UUIDs for a probe).
type lookup struct {
	table string
	where []ovsdb.Condition
	probe bool
	// refKeys are the probe's key columns that reference other rows (a
	// NAT's gateway_port), by the names the key holds: the where cannot
	// hold them.
	refKeys []refKey
}

// refKey is a key column referencing a row, and the name of the row the
// key holds ("" for none).
type refKey struct{ column, want string }

// refKeysOf returns obj's key columns that reference other rows, with the
// names its key holds.
func refKeysOf(obj topology.Object) []refKey {
	var out []refKey
	keys := obj.Kind().Descriptor().KeyColumns
	for _, r := range nameRefs(obj) {
		if slices.Contains(keys, r.Column) {
			k := refKey{column: r.Column}
			if len(r.Names) > 0 {
				k.want = r.Names[0]
			}
			out = append(out, k)
		}
	}
	return out
}

// scopeOf lists the selects that find every row a change set concerns:
// by name, the rows of the named kinds it creates, updates, deletes, puts
// members into or refers to; by the columns of their key, the rows of the
// unnamed kinds (routes, policies, NAT, ACLs) it creates, updates or
// deletes, with a probe for other owners' rows under that key in parents
// the change set neither creates nor deletes. lbgs reports whether it
// changes a load balancer group or attaches to or detaches from one (a
// group's owner depends on every switch and router); ok is false when it
// would take more than maxScopedSelects selects.
func scopeOf(changes topology.Changes) (lookups []lookup, lbgs bool, ok bool) {
	seen := map[string]bool{}
	add := func(key string, l lookup) {
		if !seen[key] {
			seen[key] = true
			lookups = append(lookups, l)
		}
	}
	name := func(k topology.Kind, n string) {
		if n != "" && namedKind(k) {
			add("n|"+k.Table()+"|"+n, lookup{table: k.Table(), where: []ovsdb.Condition{ovsdb.NewCondition("name", ovsdb.ConditionEqual, n)}})
		}
	}
	// Parents the change set creates or deletes need no probe: a new
	// parent holds only the change set's members, and deleting one with a
	// member the read lacks sends the change set to a full read.
	whole := map[objKey]bool{}
	for _, ch := range changes {
		if ch.Op == topology.OpCreate || ch.Op == topology.OpDelete {
			whole[objKey{ch.Kind, ch.Key}] = true
		}
	}
	for _, ch := range changes {
		if len(lookups) > maxScopedSelects {
			return nil, false, false
		}
		lbgs = lbgs || ch.Kind == topology.KindLoadBalancerGroup
		name(ch.Kind, ch.Key)
		if ch.Op == topology.OpCreate && unindexed(ch.Kind) {
			// The row holding the UUID the create would take (see
			// nameUUID): one renamed since makes it wait on the name.
			id := nameUUID(ch.Kind.Table(), ch.Key)
			add("u|"+ch.Kind.Table()+"|"+id, lookup{table: ch.Kind.Table(), where: []ovsdb.Condition{uuidIs(id)}})
		}
		for _, obj := range []topology.Object{ch.Object, ch.Old} {
			if obj == nil {
				continue
			}
			if pk, pname, ok := parentOf(obj); ok {
				name(pk.Kind, pname)
			}
			for _, r := range nameRefs(obj) {
				for _, n := range r.Names {
					name(r.Kind, n)
				}
			}
			for _, r := range attachmentRefs(obj) {
				// A group's owner depends on the switches and routers
				// that hold it: joining one needs them read too.
				lbgs = lbgs || r.Table == nbdb.LoadBalancerGroupTable && len(r.Names) > 0
				for _, n := range r.Names {
					name(kindOfTable(r.Table), n)
				}
			}
			where, ok := keyWhere(obj)
			if !ok {
				continue
			}
			// The rows holding the key that the object's owner owns, and
			// a probe for the UUIDs of all rows holding it: one of them in
			// a parent read but not among the first (another owner's row
			// under the same key, say) sends the change set to a full
			// read.
			o := obj.OwnedBy()
			ids := map[any]any{}
			for k, v := range ownerIDs(o) {
				// Not the controller: rows written before it existed
				// lack it (and reading another controller's row under
				// the key is harmless: it is indexed with its owner).
				if k != ExtController {
					ids[k] = v
				}
			}
			key := obj.Kind().Table() + "|" + obj.Key()
			own := append(slices.Clone(where), ovsdb.NewCondition("external_ids", ovsdb.ConditionIncludes, ovsdb.OvsMap{GoMap: ids}))
			add("o|"+key+"|"+string(o.Controller)+"|"+o.Network+"|"+string(o.Topology)+"|"+string(o.Role)+"|"+o.Node, lookup{table: obj.Kind().Table(), where: own})
			if pk, pname, _ := parentOf(obj); whole[objKey{pk.Kind, pname}] {
				continue
			}
			add("p|"+key, lookup{table: obj.Kind().Table(), where: where, probe: true, refKeys: refKeysOf(obj)})
		}
	}
	return lookups, lbgs, len(lookups) <= maxScopedSelects
}

// keyWhere matches the rows of an unnamed kind whose columns hold obj's
// key (but for the parent, which the parent's member column decides, and
// references), in the spelling udnkit writes them.
var keyWhere = nbrow.KeyConditions

// readFor reads what changes concern in one select transaction (see
// scopeOf); with a change to a load balancer group also every group and
// the owners of every switch and router. The snapshot is partial: a row it
// lacks may exist, and planFor plans against every row whenever the
// partial snapshot cannot decide. Change sets needing more than
// maxScopedSelects selects read every row.
func (c *Client) readFor(ctx context.Context, changes topology.Changes) (*snapshot, error) {
	if err := c.open(); err != nil {
		return nil, err
	}
	lookups, lbgs, ok := scopeOf(changes)
	if !ok || len(lookups) == 0 {
		return c.read(ctx)
	}
	ops := make([]ovsdb.Operation, 0, len(lookups)+3)
	for _, l := range lookups {
		op := ovsdb.Operation{Op: ovsdb.OperationSelect, Table: l.table, Where: l.where}
		if l.probe {
			op.Columns = []string{"_uuid"}
			for _, k := range l.refKeys {
				op.Columns = append(op.Columns, k.column)
			}
		}
		ops = append(ops, op)
	}
	owners := -1
	if lbgs {
		owners = len(ops)
		for _, r := range lbgReferrers {
			ops = append(ops, ovsdb.Operation{Op: ovsdb.OperationSelect, Table: r.table, Columns: []string{"_uuid", "external_ids", r.column}, Where: []ovsdb.Condition{}})
		}
		ops = append(ops, ovsdb.Operation{Op: ovsdb.OperationSelect, Table: nbdb.LoadBalancerGroupTable, Where: []ovsdb.Condition{}})
	}
	res, err := c.readOps(ctx, ops)
	if err != nil {
		return nil, err
	}
	if _, err := ovsdb.CheckOperationResults(res, ops); err != nil {
		// A lookup the server refuses (a value out of its column's
		// range, say): the full read and the plan judge the change.
		return nil, fmt.Errorf("%w: %v", errIncomplete, err)
	}
	s := newSnapshot()
	s.partial = true
	s.lbgRefs = map[string][]lbgRef{}
	for _, t := range snapshotTables {
		s.rows[t] = map[string]model.Model{}
	}
	type probedRow struct {
		rowRef
		refKeys []refKey // the probe's
		got     []string // the row's UUID in each of them, "" for none
	}
	var probed []probedRow
	for i, op := range ops {
		t := op.Table
		for j := range res[i].Rows {
			row := &res[i].Rows[j]
			u, ok := (*row)["_uuid"].(ovsdb.UUID)
			if !ok {
				return nil, fmt.Errorf("%w: %s row without _uuid", ErrTransaction, t)
			}
			if i < len(lookups) && lookups[i].probe {
				p := probedRow{rowRef: rowRef{t, u.GoUUID}, refKeys: lookups[i].refKeys}
				for _, k := range p.refKeys {
					us, err := refsOf(row, k.column)
					if err != nil || len(us) > 1 {
						return nil, fmt.Errorf("%w: %s row %s: %s: %v", ErrSchema, t, u.GoUUID, k.column, err)
					}
					got := ""
					if len(us) == 1 {
						got = us[0]
					}
					p.got = append(p.got, got)
				}
				probed = append(probed, p)
				continue
			}
			if owners >= 0 && i >= owners && i < owners+len(lbgReferrers) {
				ids, err := idsOf(row)
				if err != nil {
					return nil, fmt.Errorf("%w: %s row %s: %v", ErrSchema, t, u.GoUUID, err)
				}
				groups, err := refsOf(row, lbgReferrers[i-owners].column)
				if err != nil {
					return nil, fmt.Errorf("%w: %s row %s: %v", ErrSchema, t, u.GoUUID, err)
				}
				addLBGRefs(s.lbgRefs, u.GoUUID, ids, groups)
				continue
			}
			if _, dup := s.rows[t][u.GoUUID]; dup {
				continue
			}
			m, err := model.CreateModel(c.dbModel, t, row, u.GoUUID)
			if err != nil {
				return nil, fmt.Errorf("%w: %s row %s: %v", ErrSchema, t, u.GoUUID, err)
			}
			s.rows[t][u.GoUUID] = m
		}
	}
	if err := s.index(); err != nil {
		return nil, err
	}
	inParent := map[string]bool{}
	for _, t := range parentTables {
		cols := nbrow.MemberColumns(t)
		for _, m := range s.rows[t] {
			for _, c := range cols {
				for _, u := range nbrow.UUIDs(m, c) {
					inParent[u] = true
				}
			}
		}
	}
	for _, r := range probed {
		// A referenced row is part of the key (a NAT's gateway port):
		// the object's, if read by its name, or none.
		same := true
		for j, k := range r.refKeys {
			got := r.got[j]
			same = same && (got == "" && k.want == "" || got != "" && k.want != "" && s.name[got] == k.want)
		}
		if !same {
			continue
		}
		if _, ok := s.rows[r.table][r.uuid]; !ok && inParent[r.uuid] {
			return nil, fmt.Errorf("%w: %s row %s holds a key of the change set", errIncomplete, r.table, r.uuid)
		}
	}
	return s, nil
}

// errIncomplete: a scoped read found a row it cannot judge without the
// rest (planFor then reads every row).
var errIncomplete = errors.New("ovnnb: scoped read incomplete")

// refsOf decodes a set-of-references column of a selected row.
func refsOf(row *ovsdb.Row, col string) ([]string, error) {
	switch v := (*row)[col].(type) {
	case nil:
		return nil, nil
	case ovsdb.UUID:
		return []string{v.GoUUID}, nil
	case ovsdb.OvsSet:
		out := make([]string, 0, len(v.GoSet))
		for _, x := range v.GoSet {
			u, ok := x.(ovsdb.UUID)
			if !ok {
				return nil, fmt.Errorf("%s holds %T", col, x)
			}
			out = append(out, u.GoUUID)
		}
		return out, nil
	default:
		return nil, fmt.Errorf("%s is %T", col, v)
	}
}

// idsOf decodes the external_ids column of a selected row.
func idsOf(row *ovsdb.Row) (map[string]string, error) {
	v, ok := (*row)["external_ids"]
	if !ok {
		return nil, nil
	}
	m, ok := v.(ovsdb.OvsMap)
	if !ok {
		return nil, fmt.Errorf("external_ids is %T", v)
	}
	out := make(map[string]string, len(m.GoMap))
	for k, x := range m.GoMap {
		ks, ok1 := k.(string)
		xs, ok2 := x.(string)
		if !ok1 || !ok2 {
			return nil, fmt.Errorf("external_ids holds %T=%T", k, x)
		}
		out[ks] = xs
	}
	return out, nil
}

// planFor reads what changes concern and plans them. A scoped snapshot
// lacks rows: whenever a change set is invalid against it (a row it lacks
// may be the one looked for, a member it lacks may be foreign) the change
// set is planned again against every row, so that a refusal is always
// decided on a full read.
func (c *Client) planFor(ctx context.Context, changes topology.Changes) ([]*unit, error) {
	units, _, err := c.planOn(ctx, changes, true)
	return units, err
}

// planOn is planFor; with the monitor it plans on the last snapshot
// without reading the cache again unless fresh (see
// monitor.writeSnapshot), and reports whether it did (onLast).
func (c *Client) planOn(ctx context.Context, changes topology.Changes, fresh bool) (units []*unit, onLast bool, err error) {
	// Names go into the read's conditions: refuse what the NB cannot hold
	// (it drops the connection on a NUL) before anything is sent.
	for _, ch := range changes {
		var err error
		if msg := names.ControlError(ch.Key); msg != "" {
			err = invalid("key: %s", msg)
		} else if ch.Object != nil {
			err = nbrow.CheckNames(ch.Object)
		}
		if err != nil {
			return nil, false, &ChangeError{Op: ch.Op, Kind: ch.Kind, Key: ch.Key, Err: err}
		}
	}
	if c.mon != nil {
		var s *snapshot
		if fresh {
			s, err = c.mon.snapshot(ctx)
		} else {
			s, onLast, err = c.mon.writeSnapshot(ctx)
		}
		if err != nil {
			return nil, false, err
		}
		units, err = c.planCached(ctx, s, changes, nil)
		if err != nil && onLast && (errors.Is(err, errStale) || errors.Is(err, ErrInvalidChange)) {
			// Planned on the last snapshot: the cache may know better.
			onLast = false
			if s, err = c.mon.snapshot(ctx); err != nil {
				return nil, false, err
			}
			units, err = c.planCached(ctx, s, changes, nil)
		}
		if err == nil || !errors.Is(err, errStale) && !errors.Is(err, ErrInvalidChange) {
			return units, onLast, err
		}
		// The cache lags or the plan failed on it: selects decide.
	}
	units, err = c.planSelected(ctx, changes)
	return units, false, err
}

// planSelected is planFor without the monitor's cache.
func (c *Client) planSelected(ctx context.Context, changes topology.Changes) ([]*unit, error) {
	s, err := c.readFor(ctx, changes)
	if err == nil {
		var units []*unit
		units, err = c.plan(s, changes)
		if err == nil || !s.partial {
			return units, err
		}
	}
	if !errors.Is(err, ErrInvalidChange) && !errors.Is(err, errIncomplete) {
		return nil, err
	}
	if s, err = c.read(ctx); err != nil {
		return nil, err
	}
	return c.plan(s, changes)
}
