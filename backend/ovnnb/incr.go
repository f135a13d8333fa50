package ovnnb

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/ovn-kubernetes/libovsdb/model"
	"github.com/ovn-kubernetes/libovsdb/ovsdb"

	"github.com/udnkit/udnkit/internal/nbdb"
	"github.com/udnkit/udnkit/internal/nbrow"
	"github.com/udnkit/udnkit/topology"
)

// refColumns lists, per table, the monitored columns holding UUIDs of
// other rows (from the schema). What index derives from a row depends on
// the row and on rows it references or that reference it, and on nothing
// else: the references are the edges along which a change spreads.
var refColumns = func() map[string][]string {
	sch := nbdb.Schema()
	out := map[string][]string{}
	for _, t := range snapshotTables {
		ts, ok := sch.Tables[t]
		if !ok {
			continue
		}
		for _, c := range monitorColumns[t] {
			cs := ts.Column(c)
			if cs == nil || cs.TypeObj == nil {
				continue
			}
			if isUUIDType(cs.TypeObj.Key) || isUUIDType(cs.TypeObj.Value) {
				out[t] = append(out[t], c)
			}
		}
	}
	return out
}()

func isUUIDType(b *ovsdb.BaseType) bool { return b != nil && b.Type == ovsdb.TypeUUID }

// memberColumnsFor maps a parent table and a member table to the parent's
// member columns that may hold rows of that table (mostly one): a member's
// parent is found by searching only those.
var memberColumnsFor = func() map[[2]string][]string {
	out := map[[2]string][]string{}
	for k, rt := range memberTable {
		out[[2]string{k[0], rt}] = append(out[[2]string{k[0], rt}], k[1])
	}
	for _, cols := range out {
		slices.Sort(cols)
	}
	return out
}()

// memberTable maps a parent table and one of its member columns to the
// table of the rows the column holds (from the schema).
var memberTable = func() map[[2]string]string {
	sch := nbdb.Schema()
	out := map[[2]string]string{}
	for _, t := range parentTables {
		for _, c := range nbrow.MemberColumns(t) {
			cs := sch.Tables[t].Column(c)
			if cs == nil || cs.TypeObj == nil {
				continue
			}
			for _, b := range []*ovsdb.BaseType{cs.TypeObj.Key, cs.TypeObj.Value} {
				if !isUUIDType(b) {
					continue
				}
				if rt, err := b.RefTable(); err == nil && rt != "" {
					out[[2]string{t, c}] = rt
				}
			}
		}
	}
	return out
}()

// memberParents maps each row that an owned row holds as a member to that
// parent (the smallest UUID if several do: parentRow's rule), in one pass
// over the parents: what a build from scratch looks up instead of
// searching each parent's member sets once per member.
func (s *snapshot) memberParents() map[string]rowRef {
	parent := make(map[string]rowRef, s.rowCount())
	for _, t := range parentTables {
		cols := nbrow.MemberColumns(t)
		for u, m := range s.rows[t] {
			if _, ok := ownerOf(rowIDs(m)); !ok {
				continue
			}
			for _, col := range cols {
				rows := s.rows[memberTable[[2]string{t, col}]]
				for _, c := range nbrow.UUIDs(m, col) {
					if _, ok := rows[c]; !ok {
						continue // gone, or a row of another table
					}
					if p, ok := parent[c]; !ok || u < p.uuid {
						parent[c] = rowRef{t, u}
					}
				}
			}
		}
	}
	return parent
}

// rowIndex is what index derived from each row, kept with the snapshot so
// that the snapshot of the next cache state re-indexes only the rows a
// change touches (derive). Its maps are shared with later snapshots
// through copies: never modified once the snapshot is built.
type rowIndex struct {
	info map[string]*rowInfo // UUID → what the row gave, every row of snapshotTables
	in   map[string][]string // UUID → the rows referencing it (refColumns), sorted
	// cands maps a key to the UUIDs of the owned rows with it, sorted:
	// more than one are duplicates (the kept one is owned[key]).
	cands map[objKey][]string
	dups  map[objKey]bool // keys with more than one candidate
	// byNet maps a part (controller, network, node) to the keys of its
	// owned objects.
	byNet map[part]map[objKey]struct{}
	// brokenRows maps a network to its rows that could not be read back.
	brokenRows map[string]map[string]error
	// reindexed counts the rows converted building this snapshot.
	reindexed int
	// netsOwn holds, while the snapshot is built, the networks whose
	// byNet set is this snapshot's own (copied or new): modified in place.
	netsOwn map[part]bool
	// parent holds, while a snapshot is built from scratch, each member's
	// parent (memberParents).
	parent map[string]rowRef
}

// part is the owner of a part of a State: a network's objects of one
// controller and one node ("" for the network-wide ones). Each part's
// State is built once and kept while none of its objects changes.
type part struct {
	network string
	ctl     topology.Controller // canonical
	node    string
}

func partOf(o observed) part {
	own := o.obj.OwnedBy()
	return part{own.Network, canonController(own.Controller), own.Node}
}

// rowInfo is what index derived from one row; replaced, never modified.
type rowInfo struct {
	table string
	out   []string // UUIDs the row references, deduplicated
	owner topology.Owner
	owned bool // rowOwner's answer
	mine  bool
	cand  bool // an owned object under key (obs)
	key   objKey
	obs   observed
	err   error // the row is owned but could not be read back
}

// outRefs lists the UUIDs row m of table t references, each once.
func outRefs(t string, m model.Model) []string {
	var out []string
	for _, c := range refColumns[t] {
		out = append(out, nbrow.UUIDs(m, c)...)
	}
	if len(out) > 1 {
		slices.Sort(out)
		out = slices.Compact(out)
	}
	return out
}

// index builds the snapshot's index of s.rows from scratch, without the
// per-row records a derivation starts from: a read that is never derived
// from (every unmonitored read, a monitor's first) does not pay for them,
// and derive builds them, from scratch, the first time it derives from a
// snapshot without them. Rows that need the general rules (duplicates, a
// row that cannot be read back) send it to derive(nil).
func (s *snapshot) index() error {
	givenRefs := s.lbgRefs
	general := func() error {
		// Start again under derive's rules.
		s.byName = map[topology.Kind]map[string][]string{}
		s.gcs = map[string]*nbdb.GatewayChassis{}
		s.lbgRefs = givenRefs
		return s.derive(nil)
	}
	total := s.rowCount()
	s.ix = &rowIndex{byNet: map[part]map[objKey]struct{}{}}
	s.owned = make(map[objKey]observed, total)
	s.name = make(map[string]string, total)
	s.mine = make(map[string]topology.Controller, total)
	s.netState = map[part]topology.State{}
	for _, t := range snapshotTables {
		k := kindOfTable(t)
		if k == 0 {
			continue
		}
		for u, m := range s.rows[t] {
			if n, ok := rowName(m); ok {
				s.name[u] = n
				if s.byName[k] == nil {
					s.byName[k] = map[string][]string{}
				}
				s.byName[k][n] = append(s.byName[k][n], u)
			}
		}
	}
	for u, m := range s.rows[nbdb.GatewayChassisTable] {
		s.gcs[u] = m.(*nbdb.GatewayChassis)
	}
	parent := s.memberParents()
	if s.lbgRefs == nil {
		s.lbgRefs = map[string][]lbgRef{}
		for _, r := range lbgReferrers {
			for u, m := range s.rows[r.table] {
				addLBGRefs(s.lbgRefs, u, rowIDs(m), nbrow.UUIDs(m, r.column))
			}
		}
	}
	sc := &scratch{parent: parent, attached: s.attachments()}
	var lastPart part
	var lastKeys map[objKey]struct{}
	for _, t := range snapshotTables {
		k := kindOfTable(t)
		if k == 0 {
			continue
		}
		for u, m := range s.rows[t] {
			ni := rowInfo{table: t}
			s.convertWith(&ni, u, m, sc)
			if ni.err != nil {
				return general() // broken rows are reported by derive's rules
			}
			if !ni.cand {
				continue
			}
			if _, dup := s.owned[ni.key]; dup {
				return general() // duplicates are resolved by derive's rules
			}
			s.owned[ni.key] = ni.obs
			s.mine[u] = canonController(ni.owner.Controller)
			if n := partOf(ni.obs); n != lastPart || lastKeys == nil {
				lastPart = n
				if lastKeys = s.ix.byNet[n]; lastKeys == nil {
					lastKeys = map[objKey]struct{}{}
					s.ix.byNet[n] = lastKeys
				}
			}
			lastKeys[ni.key] = struct{}{}
		}
	}
	s.setNets()
	return nil
}

// rowCount counts the rows of the snapshot's tables.
func (s *snapshot) rowCount() int {
	n := 0
	for _, t := range snapshotTables {
		n += len(s.rows[t])
	}
	return n
}

// hasRecords reports whether s's index holds the per-row records derive
// starts from.
func (s *snapshot) hasRecords() bool { return s.ix != nil && s.ix.info != nil }

// derive builds the snapshot's index of s.rows, with the records the next
// derivation starts from, from prev's: only the rows that changed since
// prev (another model in the cache, added or deleted) and the rows they
// reference or are referenced by are converted again; the rest is prev's,
// shared. prev is not modified. It builds from scratch, records included,
// when prev is nil or has no records (built by index), and for a partial
// snapshot (s.lbgRefs set by readFor, kept); when most rows changed it
// returns index's build (no records).
func (s *snapshot) derive(prev *snapshot) error {
	keepRefs := s.lbgRefs != nil
	var prevRows map[string]map[string]model.Model
	var changed []rowRef
	if prev == nil || !prev.hasRecords() || keepRefs {
		// From scratch, records included.
		prev = nil
		total := s.rowCount()
		s.ix = &rowIndex{info: make(map[string]*rowInfo, total), in: make(map[string][]string, total),
			cands: make(map[objKey][]string, total), dups: map[objKey]bool{}, byNet: map[part]map[objKey]struct{}{},
			brokenRows: map[string]map[string]error{}}
		s.owned = make(map[objKey]observed, total)
		s.name = make(map[string]string, total)
		s.mine = make(map[string]topology.Controller, total)
		if !keepRefs {
			s.lbgRefs = map[string][]lbgRef{}
		}
		s.netState = map[part]topology.State{}
		changed = make([]rowRef, 0, total)
		for _, t := range snapshotTables {
			for u := range s.rows[t] {
				changed = append(changed, rowRef{t, u})
			}
		}
	} else {
		prevRows = prev.rows
		changed = diffRows(prev.rows, s.rows)
		if 4*len(changed) > s.rowCount() {
			// Most rows changed (a Sync from empty): building from
			// scratch appends where deriving would copy; the records
			// wait for the next derivation.
			return s.index()
		}
		p := prev.ix
		s.ix = &rowIndex{info: maps.Clone(p.info), in: maps.Clone(p.in), cands: maps.Clone(p.cands),
			dups: maps.Clone(p.dups), byNet: maps.Clone(p.byNet), brokenRows: maps.Clone(p.brokenRows)}
		s.owned = maps.Clone(prev.owned)
		s.name = maps.Clone(prev.name)
		s.mine = maps.Clone(prev.mine)
		s.byName = maps.Clone(prev.byName)
		s.gcs = maps.Clone(prev.gcs)
		s.lbgRefs = maps.Clone(prev.lbgRefs)
		s.extras = prev.extras
		s.extra = prev.extra
		s.broken = prev.broken
		prev.memo.Lock()
		s.netState = maps.Clone(prev.netState)
		s.netMerged = maps.Clone(prev.netMerged)
		prev.memo.Unlock()
		if s.netState == nil {
			s.netState = map[part]topology.State{}
		}
	}
	ix := s.ix
	ix.netsOwn = map[part]bool{}
	// The derived state of the changed rows before this change, for
	// undoing it (nil: the row is new). From scratch every row is new and
	// every row is converted: neither map is needed.
	var oldInfo map[string]*rowInfo
	var dirty map[string]struct{}
	if prev != nil {
		oldInfo = make(map[string]*rowInfo, len(changed))
		dirty = make(map[string]struct{}, len(changed))
	}
	clonedNames := map[topology.Kind]bool{}
	for _, r := range changed {
		old, nw := prevRows[r.table][r.uuid], s.rows[r.table][r.uuid]
		pi := ix.info[r.uuid]
		if prev != nil {
			oldInfo[r.uuid] = pi
		}
		if k := kindOfTable(r.table); k != 0 {
			if prev != nil && !clonedNames[k] {
				clonedNames[k] = true
				s.byName[k] = maps.Clone(s.byName[k])
			}
			if old != nil {
				if n, ok := rowName(old); ok {
					delete(s.name, r.uuid)
					us := slices.DeleteFunc(slices.Clone(s.byName[k][n]), func(x string) bool { return x == r.uuid })
					if len(us) == 0 {
						delete(s.byName[k], n)
					} else {
						s.byName[k][n] = us
					}
				}
			}
			if nw != nil {
				if n, ok := rowName(nw); ok {
					s.name[r.uuid] = n
					if s.byName[k] == nil {
						s.byName[k] = map[string][]string{}
					}
					if prev == nil {
						s.byName[k][n] = append(s.byName[k][n], r.uuid)
					} else {
						s.byName[k][n] = append(slices.Clone(s.byName[k][n]), r.uuid)
					}
				}
			}
		}
		if r.table == nbdb.GatewayChassisTable {
			if nw != nil {
				s.gcs[r.uuid] = nw.(*nbdb.GatewayChassis)
			} else {
				delete(s.gcs, r.uuid)
			}
		}
		var oldOut, newOut []string
		if pi != nil {
			oldOut = pi.out
		}
		if nw != nil {
			newOut = outRefs(r.table, nw)
		}
		for _, x := range oldOut {
			if _, found := slices.BinarySearch(newOut, x); !found {
				ix.unref(x, r.uuid)
			}
		}
		for _, x := range newOut {
			if _, found := slices.BinarySearch(oldOut, x); !found {
				ix.ref(x, r.uuid, prev == nil)
			}
		}
		if prev != nil {
			s.spread(r, old, nw, oldOut, newOut, dirty)
			dirty[r.uuid] = struct{}{}
		}
		if !keepRefs {
			s.moveLBGRefs(r, old, nw, prev == nil)
		}
		if nw == nil {
			delete(ix.info, r.uuid)
		} else {
			// Placeholder until the row is converted below.
			ix.info[r.uuid] = &rowInfo{table: r.table, out: newOut}
		}
	}
	if prev == nil {
		for _, us := range ix.in {
			slices.Sort(us)
		}
	}
	dirtyNets := map[part]bool{}
	brokenNets := map[string]bool{}
	keys := map[objKey]bool{}
	next := map[string]struct{}{}
	// visit converts row u again; pi is what it gave before (nil: nothing).
	visit := func(u string, pi *rowInfo, fresh bool) {
		if pi != nil {
			if pi.cand {
				ix.uncand(pi.key, u)
				keys[pi.key] = true
			}
			if pi.mine {
				delete(s.mine, u)
			}
			if pi.err != nil {
				ix.unbreak(pi.owner.Network, u)
				brokenNets[pi.owner.Network] = true
			}
		}
		cur, ok := ix.info[u]
		if !ok {
			return // deleted, or a dangling reference
		}
		ni := cur
		if fresh {
			// The placeholder is this snapshot's own and read by no one
			// yet for more than its table and references.
			s.convertInto(ni, u)
		} else {
			ni = s.convert(u, cur.table, cur.out)
			ix.info[u] = ni
		}
		ix.reindexed++
		if pi != nil && (pi.owned != ni.owned || pi.owner != ni.owner) {
			// A group's owner comes from its referrers: what it
			// holds sees another owner.
			for _, x := range ni.out {
				next[x] = struct{}{}
			}
		}
		if ni.mine {
			s.mine[u] = canonController(ni.owner.Controller)
		}
		if ni.err != nil {
			ix.setBroken(ni.owner.Network, u, ni.err)
			brokenNets[ni.owner.Network] = true
		}
		if ni.cand {
			ix.addCand(ni.key, u)
			keys[ni.key] = true
		}
	}
	// round ends a pass: the keys whose candidates changed are resolved,
	// and what that touched is the next pass's.
	round := func() map[string]struct{} {
		if len(keys) > 0 {
			s.resolve(keys, dirtyNets, next)
			clear(keys)
		}
		out := next
		next = map[string]struct{}{}
		return out
	}
	if prev == nil {
		ix.parent = s.memberParents()
		for _, r := range changed {
			visit(r.uuid, nil, true)
		}
		dirty = round()
	}
	for len(dirty) > 0 {
		for u := range dirty {
			pi, ok := oldInfo[u]
			if ok {
				delete(oldInfo, u)
			} else {
				pi = ix.info[u]
			}
			visit(u, pi, false)
		}
		dirty = round()
	}
	if len(brokenNets) > 0 {
		s.broken = maps.Clone(s.broken)
		if s.broken == nil {
			s.broken = map[string]error{}
		}
		for n := range brokenNets {
			rows := ix.brokenRows[n]
			if len(rows) == 0 {
				delete(s.broken, n)
				continue
			}
			first := slices.Min(slices.Collect(maps.Keys(rows)))
			s.broken[n] = fmt.Errorf("%w: network %q: %v", ErrSchema, n, rows[first])
		}
	}
	for n := range dirtyNets {
		delete(s.netState, n)
		delete(s.netMerged, n.network)
		if len(ix.byNet[n]) == 0 {
			delete(ix.byNet, n)
		}
	}
	ix.netsOwn, ix.parent = nil, nil
	if prev == nil || len(dirtyNets) > 0 {
		s.setNets()
	} else {
		s.nets, s.netParts = prev.nets, prev.netParts
	}
	return nil
}

// setNets lists the networks and their parts from the index's byNet.
func (s *snapshot) setNets() {
	s.netParts = map[string][]part{}
	for p := range s.ix.byNet {
		s.netParts[p.network] = append(s.netParts[p.network], p)
	}
	for _, ps := range s.netParts {
		slices.SortFunc(ps, func(a, b part) int {
			return cmp.Or(strings.Compare(string(a.ctl), string(b.ctl)), strings.Compare(a.node, b.node))
		})
	}
	s.nets = slices.Sorted(maps.Keys(s.netParts))
}

// spread marks dirty the rows whose index may change with row r's change
// from old to nw (either nil: added or deleted). The rows it references
// read its name and owner (members their parent's, load balancers the
// rows holding them, groups their referrers') and whether it holds them:
// all of them when its name or owner changed, else those it started or
// stopped holding in some column. The rows referencing it read its name
// (or, for a gateway chassis, the whole row).
func (s *snapshot) spread(r rowRef, old, nw model.Model, oldOut, newOut []string, dirty map[string]struct{}) {
	renamed := old == nil || nw == nil
	if !renamed {
		a, _ := rowName(old)
		b, _ := rowName(nw)
		renamed = a != b
	}
	whole := renamed
	if !whole {
		oa, oka := ownerOf(rowIDs(old))
		ob, okb := ownerOf(rowIDs(nw))
		whole = oka != okb || oa != ob
	}
	if whole {
		for _, x := range oldOut {
			dirty[x] = struct{}{}
		}
		for _, x := range newOut {
			dirty[x] = struct{}{}
		}
	} else {
		for _, c := range refColumns[r.table] {
			a, b := nbrow.UUIDs(old, c), nbrow.UUIDs(nw, c)
			if slices.Equal(a, b) {
				continue
			}
			a, b = slices.Sorted(slices.Values(a)), slices.Sorted(slices.Values(b))
			for _, x := range a {
				if _, found := slices.BinarySearch(b, x); !found {
					dirty[x] = struct{}{}
				}
			}
			for _, x := range b {
				if _, found := slices.BinarySearch(a, x); !found {
					dirty[x] = struct{}{}
				}
			}
		}
	}
	if renamed || r.table == nbdb.GatewayChassisTable {
		for _, x := range s.ix.in[r.uuid] {
			dirty[x] = struct{}{}
		}
	}
}

// convert derives the rowInfo of row u of table t (out: its references)
// from the row and from the snapshot's names, parents, duplicates and
// groups' referrers (index's rules).
func (s *snapshot) convert(u, t string, out []string) *rowInfo {
	ni := &rowInfo{table: t, out: out}
	s.convertInto(ni, u)
	return ni
}

// convertInto is convert filling ni, which holds the row's table and
// references.
func (s *snapshot) convertInto(ni *rowInfo, u string) {
	if kindOfTable(ni.table) == 0 {
		return
	}
	s.convertWith(ni, u, s.rows[ni.table][u], nil)
}

// scratch is what index knows of every row before converting any: each
// member's parent and what holds each load balancer.
type scratch struct {
	parent   map[string]rowRef
	attached map[string][][]string
}

// convertWith is convertInto with row u's model m; the row's parent and
// what holds it come from sc when it is given, else from the records
// (parentRow, attachedTo).
func (s *snapshot) convertWith(ni *rowInfo, u string, m model.Model, sc *scratch) {
	k := kindOfTable(ni.table)
	ni.owner, ni.owned = s.rowOwner(u, m)
	if !ni.owned {
		return
	}
	var pt, p string
	if sc != nil {
		pr := sc.parent[u]
		pt, p = pr.table, pr.uuid
	} else {
		pt, p = s.parentRow(u)
	}
	if s.extra[p] {
		// A member of a duplicate parent goes with it when Sync deletes
		// that parent.
		ni.mine = true
		return
	}
	names := func(x string) string {
		if n, ok := s.name[x]; ok {
			return n
		}
		return x
	}
	obj, err := fromRow(m, ni.owner, names, pt, s.name[p], s.gcs)
	if err != nil {
		// One network's malformed row fails that network's Observe and
		// Sync, not every network's.
		ni.err = err
		return
	}
	if cols := k.Descriptor().Attachments; len(cols) > 0 {
		if sc != nil {
			obj = topology.WithAttached(obj, sc.attached[u])
		} else {
			obj = topology.WithAttached(obj, s.attachedTo(u, cols))
		}
	}
	if _, member, isMember := parentOf(obj); isMember && member == "" {
		// A member of no owned parent is not the SDK's to manage.
		return
	}
	ni.mine = true
	ni.cand = true
	ni.key = objKey{k, obj.Key()}
	ni.obs = observed{uuid: u, obj: obj, parent: p}
}

// parentRow returns the table and UUID of the owned row holding u as a
// member (the smallest UUID if several do), or "". A build from scratch
// looks it up in the map it made first (memberParents).
func (s *snapshot) parentRow(u string) (string, string) {
	if s.ix.parent != nil {
		p := s.ix.parent[u]
		return p.table, p.uuid
	}
	ui := s.ix.info[u]
	if ui == nil {
		return "", ""
	}
	for _, r := range s.ix.in[u] { // sorted: the first found is the smallest
		ri := s.ix.info[r]
		if ri == nil {
			continue
		}
		cols := memberColumnsFor[[2]string{ri.table, ui.table}]
		if len(cols) == 0 {
			continue
		}
		m := s.rows[ri.table][r]
		if _, ok := ownerOf(rowIDs(m)); !ok {
			continue
		}
		for _, c := range cols {
			if slices.Contains(nbrow.UUIDs(m, c), u) {
				return ri.table, r
			}
		}
	}
	return "", ""
}

// attachedTo returns the names of the owned, named rows holding u in
// each of cols (a kind's Attachments), sorted.
func (s *snapshot) attachedTo(u string, cols []topology.ParentColumn) [][]string {
	var out [][]string
	for _, r := range s.ix.in[u] {
		ri := s.ix.info[r]
		if ri == nil {
			continue
		}
		for j, c := range cols {
			if c.Kind.Table() != ri.table {
				continue
			}
			m := s.rows[ri.table][r]
			if !slices.Contains(nbrow.UUIDs(m, c.Column), u) {
				continue
			}
			name := s.name[r]
			if _, owned := s.rowOwner(r, m); name == "" || !owned {
				continue
			}
			if out == nil {
				out = make([][]string, len(cols))
			}
			out[j] = append(out[j], name)
		}
	}
	for j := range out {
		slices.Sort(out[j])
		out[j] = slices.Compact(out[j])
	}
	return out
}

// attachments maps the UUID of every row of a kind with attachments (a
// load balancer) that owned, named rows hold to the names of those rows,
// per column of its descriptor's Attachments, sorted (attachedTo's rule
// for every row at once).
func (s *snapshot) attachments() map[string][][]string {
	out := map[string][][]string{}
	for _, k := range topology.Kinds() {
		cols := k.Descriptor().Attachments
		for j, c := range cols {
			for u, m := range s.rows[c.Kind.Table()] {
				lbs := nbrow.UUIDs(m, c.Column)
				if len(lbs) == 0 {
					continue // most rows: no owner to look up
				}
				name := s.name[u]
				if _, owned := s.rowOwner(u, m); name == "" || !owned {
					continue
				}
				for _, lb := range lbs {
					a := out[lb]
					if a == nil {
						a = make([][]string, len(cols))
						out[lb] = a
					}
					a[j] = append(a[j], name)
				}
			}
		}
	}
	for _, a := range out {
		for j := range a {
			slices.Sort(a[j])
			a[j] = slices.Compact(a[j])
		}
	}
	return out
}

// resolve keeps, for each of keys, one of its candidates (the duplicate
// rule of keeps) as the owned object, records the others as extras and
// the networks whose objects changed; the members of rows that became or
// stopped being extras go to next.
func (s *snapshot) resolve(keys map[objKey]bool, dirtyNets map[part]bool, next map[string]struct{}) {
	ix := s.ix
	dupsChanged := false
	for key := range keys {
		if o, ok := s.owned[key]; ok {
			n := partOf(o)
			dirtyNets[n] = true
			ix.unNet(n, key)
			delete(s.owned, key)
		}
		cs := ix.cands[key]
		if len(cs) > 1 || ix.dups[key] {
			// A key with duplicates (the kept one may change), or that
			// had them.
			dupsChanged = true
		}
		if len(cs) > 1 {
			ix.dups[key] = true
		} else {
			delete(ix.dups, key)
		}
		if len(cs) == 0 {
			continue
		}
		w := ix.info[cs[0]].obs
		for _, c := range cs[1:] {
			if o := ix.info[c].obs; s.keeps(w, o) {
				w = o
			}
		}
		s.owned[key] = w
		n := partOf(w)
		dirtyNets[n] = true
		ix.addNet(n, key)
	}
	if !dupsChanged {
		return
	}
	var extras []observed
	extra := map[string]bool{}
	for key := range ix.dups {
		w := s.owned[key].uuid
		for _, c := range ix.cands[key] {
			if c != w {
				extras = append(extras, ix.info[c].obs)
				extra[c] = true
			}
		}
	}
	slices.SortFunc(extras, func(a, b observed) int { return strings.Compare(a.uuid, b.uuid) })
	for u := range extra {
		if !s.extra[u] {
			for _, x := range ix.info[u].out {
				next[x] = struct{}{}
			}
		}
	}
	for u := range s.extra {
		if !extra[u] {
			if ri := ix.info[u]; ri != nil {
				for _, x := range ri.out {
					next[x] = struct{}{}
				}
			}
		}
	}
	s.extras, s.extra = extras, extra
}

// moveLBGRefs replaces what row r was (old) by what it is (nw) among the
// referrers of load balancer groups.
// fresh: s.lbgRefs is this snapshot's own (built from scratch), appended
// to in place.
func (s *snapshot) moveLBGRefs(r rowRef, old, nw model.Model, fresh bool) {
	for _, ref := range lbgReferrers {
		if ref.table != r.table {
			continue
		}
		if old != nil {
			for _, g := range nbrow.UUIDs(old, ref.column) {
				refs := slices.DeleteFunc(slices.Clone(s.lbgRefs[g]), func(x lbgRef) bool { return x.uuid == r.uuid })
				if len(refs) == 0 {
					delete(s.lbgRefs, g)
				} else {
					s.lbgRefs[g] = refs
				}
			}
		}
		if nw != nil {
			groups := nbrow.UUIDs(nw, ref.column)
			if !fresh {
				// The previous snapshot's slices: appended to as copies.
				for _, g := range groups {
					s.lbgRefs[g] = slices.Clip(s.lbgRefs[g])
				}
			}
			addLBGRefs(s.lbgRefs, r.uuid, rowIDs(nw), groups)
		}
	}
}

// ref records that row r references x; fresh: ix.in is this snapshot's
// own (built from scratch), appended to in place.
func (ix *rowIndex) ref(x, r string, fresh bool) {
	us := ix.in[x]
	if fresh {
		ix.in[x] = append(us, r) // sorted once every row is in
		return
	}
	i, _ := slices.BinarySearch(us, r)
	ix.in[x] = slices.Insert(slices.Clip(us), i, r)
}

func (ix *rowIndex) unref(x, r string) {
	us := slices.DeleteFunc(slices.Clone(ix.in[x]), func(y string) bool { return y == r })
	if len(us) == 0 {
		delete(ix.in, x)
	} else {
		ix.in[x] = us
	}
}

func (ix *rowIndex) addCand(k objKey, u string) {
	us := ix.cands[k]
	i, _ := slices.BinarySearch(us, u)
	ix.cands[k] = slices.Insert(slices.Clip(us), i, u)
}

func (ix *rowIndex) uncand(k objKey, u string) {
	us := slices.DeleteFunc(slices.Clone(ix.cands[k]), func(y string) bool { return y == u })
	if len(us) == 0 {
		delete(ix.cands, k)
	} else {
		ix.cands[k] = us
	}
}

// ownNet returns part n's key set, copied first if it is the previous
// snapshot's.
func (ix *rowIndex) ownNet(n part) map[objKey]struct{} {
	ks := ix.byNet[n]
	if !ix.netsOwn[n] {
		ks = maps.Clone(ks)
		if ks == nil {
			ks = map[objKey]struct{}{}
		}
		ix.byNet[n] = ks
		ix.netsOwn[n] = true
	}
	return ks
}

func (ix *rowIndex) addNet(n part, k objKey) { ix.ownNet(n)[k] = struct{}{} }

func (ix *rowIndex) unNet(n part, k objKey) { delete(ix.ownNet(n), k) }

func (ix *rowIndex) setBroken(n, u string, err error) {
	rows := maps.Clone(ix.brokenRows[n])
	if rows == nil {
		rows = map[string]error{}
	}
	rows[u] = err
	ix.brokenRows[n] = rows
}

func (ix *rowIndex) unbreak(n, u string) {
	rows := maps.Clone(ix.brokenRows[n])
	delete(rows, u)
	if len(rows) == 0 {
		delete(ix.brokenRows, n)
	} else {
		ix.brokenRows[n] = rows
	}
}

// diffRows lists the rows that differ between a and b (another model,
// added or deleted): the cache replaces a changed row's model, so
// comparing the models' pointers finds every change.
func diffRows(a, b map[string]map[string]model.Model) []rowRef {
	var out []rowRef
	for _, t := range snapshotTables {
		ra, rb := a[t], b[t]
		for u, y := range rb {
			if x, ok := ra[u]; !ok || x != y {
				out = append(out, rowRef{t, u})
			}
		}
		for u := range ra {
			if _, ok := rb[u]; !ok {
				out = append(out, rowRef{t, u})
			}
		}
	}
	return out
}
