package ovnnb

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/ovn-kubernetes/libovsdb/model"
	"github.com/ovn-kubernetes/libovsdb/ovsdb"

	"github.com/udnkit/udnkit/topology"
)

// maxVerified bounds the rows a plan against the cache checks on the
// server (one wait or select by UUID each, which the server answers
// without a scan); a plan touching more rows is planned against a full
// select instead. A node joining 500 networks touches 2,500: the bound of
// the scoped selects (maxScopedSelects) sent it to the full read, 2.5 s of
// its 8 s at 500 × 100.
const maxVerified = 25 * maxScopedSelects

// errStale: a row a plan against the cache touches differs on the server
// (the cache lags another writer); the plan is made again from a select.
var errStale = errors.New("ovnnb: the client cache lags the server")

// planCached plans changes (and the deletion of the duplicates heal)
// against the monitor's snapshot s and checks, by UUID, that the server
// holds every existing row the plan touches or refers to as the cache
// does: in the plan's own transaction when it fits one (see guards; a
// failed check is then errGuard from run), else by reading them back
// first (verify: errStale when one differs or is gone). On either error,
// or the plan's own, the caller plans from selects.
func (c *Client) planCached(ctx context.Context, s *snapshot, changes topology.Changes, heal []observed) ([]*unit, error) {
	units, err := c.planHeal(s, changes, heal)
	if err != nil {
		return nil, err
	}
	if g, ok := c.guards(s, units); ok {
		// One transaction: the checks go in it (see guards).
		return append([]*unit{g}, units...), nil
	}
	read, err := c.verify(ctx, s, units)
	if err != nil {
		return nil, err
	}
	// The waits on a deleted parent's members hold them in the order the
	// server listed them (the embedded server compares sets in order).
	for _, u := range units {
		for i := range u.ops {
			op := &u.ops[i].op
			if op.Op != ovsdb.OperationWait || op.Until != string(ovsdb.WaitConditionEqual) {
				continue
			}
			uuid, ok := whereUUID(op.Where)
			if m := read[uuid]; ok && m != nil && slices.Equal(op.Columns, sortedCols(members(m))) {
				op.Rows = waitMembers(op.Table, uuid, members(m), u.ops[i].ch).op.Rows
			}
		}
	}
	return units, nil
}

// guards returns, when the plan goes in one transaction, a unit of wait
// operations (RFC 7047, timeout 0) that the rows the plan touches (see
// touched) still hold, in the columns it depends on (verifiedColumns),
// what the cache holds: sent first in the plan's transaction, they make
// the server refuse a plan made on a cache that lagged, and the read-back
// costs no round trip of its own. Every wait of such a plan (these, the
// members of a deleted parent, a create's "no row of this name") and every
// insert under the UUID its name gives (nameUUID) is marked as a guard: if
// the server refuses one, Apply and Sync plan again (see errGuard). ok is
// false for a plan of several transactions or too many rows: verify reads
// them back instead, and a refused wait or UUID of such a plan fails the
// change set (ErrTransaction) as without the monitor.
func (c *Client) guards(s *snapshot, units []*unit) (*unit, bool) {
	refs := touched(s, units)
	if len(refs) > maxVerified {
		return nil, false
	}
	n := len(refs)
	for _, u := range units {
		n += len(u.ops)
	}
	if max := c.maxOps(n); max > 0 && n > max {
		return nil, false
	}
	g := &unit{phase: -1}
	timeout := 0
	for _, r := range refs {
		cols := verifiedColumns(r.table)
		row, err := c.fastRow(s.rows[r.table][r.uuid], cols)
		if err != nil {
			return nil, false
		}
		g.ops = append(g.ops, taggedOp{op: ovsdb.Operation{Op: ovsdb.OperationWait, Table: r.table, Timeout: &timeout,
			Where: []ovsdb.Condition{uuidIs(r.uuid)}, Columns: cols, Until: string(ovsdb.WaitConditionEqual), Rows: []ovsdb.Row{row}},
			of: &guardChange, guard: true})
	}
	for _, u := range units {
		for i := range u.ops {
			// A wait, or an insert under a UUID its name gives (refused
			// when another writer created the row since the cache read).
			if op := u.ops[i].op; op.Op == ovsdb.OperationWait || op.Op == ovsdb.OperationInsert && op.UUID != "" {
				u.ops[i].guard = true
			}
		}
	}
	return g, true
}

// guardChange names a guard in errors.
var guardChange = topology.Change{}

// errGuard: a guard of a plan against the cache failed (see guards):
// nothing of the transaction was written, and the change set is planned
// again with selects.
var errGuard = errors.New("ovnnb: the cache a plan was made on lagged the server")

// touched lists, sorted, the UUIDs of rows of s that the units' operations
// name: in their conditions (the rows they update, delete, mutate or wait
// for), their mutations (members moved) and the references of the rows
// they insert.
func touched(s *snapshot, units []*unit) []rowRef {
	seen := map[string]bool{}
	var out []rowRef
	add := func(u string) {
		if seen[u] {
			return
		}
		seen[u] = true
		if t := s.tableOf(u); t != "" {
			out = append(out, rowRef{t, u})
		}
	}
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case ovsdb.UUID:
			add(x.GoUUID)
		case ovsdb.OvsSet:
			for _, e := range x.GoSet {
				walk(e)
			}
		case ovsdb.OvsMap:
			for k, e := range x.GoMap {
				walk(k)
				walk(e)
			}
		case json.RawMessage:
			rawUUIDs(x, add)
		}
	}
	for _, u := range units {
		for _, t := range u.ops {
			for _, w := range t.op.Where {
				walk(w.Value)
			}
			for _, m := range t.op.Mutations {
				walk(m.Value)
			}
			for _, v := range t.op.Row {
				walk(v)
			}
		}
	}
	slices.SortFunc(out, func(a, b rowRef) int {
		return cmp.Or(strings.Compare(a.table, b.table), strings.Compare(a.uuid, b.uuid))
	})
	return out
}

// rawUUIDs calls add with every ["uuid","X"] in an encoded value.
func rawUUIDs(raw json.RawMessage, add func(string)) {
	const tag = `["uuid","`
	rest := []byte(raw)
	for {
		i := bytes.Index(rest, []byte(tag))
		if i < 0 {
			return
		}
		rest = rest[i+len(tag):]
		j := bytes.IndexByte(rest, '"')
		if j < 0 {
			return
		}
		add(string(rest[:j]))
		rest = rest[j:]
	}
}

// verify reads the rows the units touch (see touched) from the server in
// one transaction, by UUID (the server finds a row by its UUID without a
// scan), narrowed to the columns the plan depends on (verifiedColumns, and
// the members of a parent it deletes), and compares them with s's.
// It returns the rows read, by UUID.
func (c *Client) verify(ctx context.Context, s *snapshot, units []*unit) (map[string]model.Model, error) {
	refs := touched(s, units)
	if len(refs) == 0 {
		return nil, nil
	}
	if len(refs) > maxVerified {
		return nil, fmt.Errorf("%w: %d rows to read back", errStale, len(refs))
	}
	// A parent deleted with a wait on its members: its members too (the
	// wait is then sent in the server's order, see planCached).
	waited := map[string][]string{}
	for _, u := range units {
		for _, t := range u.ops {
			if id, ok := whereUUID(t.op.Where); ok && t.op.Op == ovsdb.OperationWait && t.op.Until == string(ovsdb.WaitConditionEqual) {
				waited[id] = t.op.Columns
			}
		}
	}
	cols := make([][]string, len(refs))
	ops := make([]ovsdb.Operation, len(refs))
	for i, r := range refs {
		cols[i] = verifiedColumns(r.table)
		for _, c := range waited[r.uuid] {
			if !slices.Contains(cols[i], c) {
				cols[i] = append(slices.Clip(cols[i]), c)
			}
		}
		ops[i] = ovsdb.Operation{Op: ovsdb.OperationSelect, Table: r.table, Where: []ovsdb.Condition{uuidIs(r.uuid)},
			Columns: append([]string{"_uuid"}, cols[i]...)}
	}
	res, err := c.ovs.Transact(ctx, ops...)
	if err != nil {
		return nil, fmt.Errorf("%w: reading back the rows a change set touches: %w", ErrTransaction, err)
	}
	if _, err := ovsdb.CheckOperationResults(res, ops); err != nil {
		return nil, fmt.Errorf("%w: %v", errStale, err)
	}
	read := make(map[string]model.Model, len(refs))
	for i, r := range refs {
		if i >= len(res) || len(res[i].Rows) != 1 {
			return nil, fmt.Errorf("%w: %s row %s is gone", errStale, r.table, r.uuid)
		}
		m, err := model.CreateModel(c.dbModel, r.table, &res[i].Rows[0], r.uuid)
		if err != nil {
			return nil, fmt.Errorf("%w: %s row %s: %v", ErrSchema, r.table, r.uuid, err)
		}
		if !sameColumns(m, s.rows[r.table][r.uuid], cols[i]) {
			return nil, fmt.Errorf("%w: %s row %s changed", errStale, r.table, r.uuid)
		}
		read[r.uuid] = m
	}
	return read, nil
}

// verifiedColumns are the columns of table's rows a plan against the cache
// depends on: a row's name and owner (external_ids) when it has them (what
// it sends to a member set is a mutation, whatever else the set holds;
// the waits on a deleted parent's members are checked by the server), all
// columns read otherwise (a load balancer group, owned through the rows
// that reference it, and Gateway_Chassis).
func verifiedColumns(table string) []string {
	cols := monitorColumns[table]
	if !slices.Contains(cols, "external_ids") {
		return cols
	}
	var out []string
	for _, c := range []string{"external_ids", "name"} {
		if slices.Contains(cols, c) {
			out = append(out, c)
		}
	}
	return out
}

// sameColumns is sameModel of the fields of the given columns.
func sameColumns(a, b model.Model, cols []string) bool {
	va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
	if va.Type() != vb.Type() {
		return false
	}
	va, vb = va.Elem(), vb.Elem()
	t := va.Type()
	for i := 0; i < t.NumField(); i++ {
		if slices.Contains(cols, t.Field(i).Tag.Get("ovsdb")) && !sameValue(va.Field(i), vb.Field(i)) {
			return false
		}
	}
	return true
}

// sameModel reports whether two models of one table hold the same values
// in every column: sets compared as sets, an empty map or set as none.
func sameModel(a, b model.Model) bool {
	va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
	if va.Type() != vb.Type() {
		return false
	}
	va, vb = va.Elem(), vb.Elem()
	for i := 0; i < va.NumField(); i++ {
		if !sameValue(va.Field(i), vb.Field(i)) {
			return false
		}
	}
	return true
}

func sameValue(a, b reflect.Value) bool {
	switch a.Kind() {
	case reflect.Slice:
		if a.Len() != b.Len() {
			return false
		}
		if a.Len() == 0 {
			return true
		}
		if a.Type().Elem().Kind() == reflect.String {
			x, y := slices.Clone(a.Interface().([]string)), slices.Clone(b.Interface().([]string))
			slices.Sort(x)
			slices.Sort(y)
			return slices.Equal(x, y)
		}
		return reflect.DeepEqual(a.Interface(), b.Interface())
	case reflect.Map:
		if a.Len() != b.Len() {
			return false
		}
		if a.Len() == 0 {
			return true
		}
		if x, ok := a.Interface().(map[string]string); ok {
			return maps.Equal(x, b.Interface().(map[string]string))
		}
		return reflect.DeepEqual(a.Interface(), b.Interface())
	default:
		return reflect.DeepEqual(a.Interface(), b.Interface())
	}
}
