package topology

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Op is what a Change does.
type Op uint8

// Change operations, in the order Diff emits them.
const (
	OpCreate Op = iota + 1
	OpUpdate
	OpDelete
)

// String returns "create", "update" or "delete".
func (o Op) String() string {
	switch o {
	case OpCreate:
		return "create"
	case OpUpdate:
		return "update"
	case OpDelete:
		return "delete"
	}
	return fmt.Sprintf("op(%d)", uint8(o))
}

// Pseudo-columns reported in Change.Columns when an object moves to another
// parent, or a load balancer to other rows: the adapter removes it from the
// old rows' reference sets and adds it to the new ones'.
const (
	ColumnSwitch = "switch" // a switch port's Switch changed
	ColumnRouter = "router" // a router port's Router changed
	// ColumnAttachments: the rows a load balancer is attached to changed.
	ColumnAttachments = "attachments"
)

// Change is one step of a Diff.
type Change struct {
	Op   Op
	Kind Kind
	Key  string
	// Object is the desired object for OpCreate and OpUpdate, the observed
	// one for OpDelete. Object and Old belong to the States diffed: treat
	// them as read-only (objects of a State may share column slices).
	Object Object
	// Old is the observed object for OpUpdate and OpDelete, nil for OpCreate.
	Old Object
	// Columns lists, for OpUpdate, the OVN columns that differ
	// ("external_ids" when the owner changed; ColumnSwitch/ColumnRouter for
	// a move to another parent). Only these need writing.
	Columns []string
}

// String returns "create switch_port NAME", "update router_port NAME
// [networks options]" or "delete ...".
func (c Change) String() string {
	s := c.Op.String() + " " + c.Kind.String() + " " + c.Key
	if c.Op == OpUpdate {
		s += " [" + strings.Join(c.Columns, " ") + "]"
	}
	return s
}

// Changes is an ordered list of changes: creates in creation order (Kinds:
// a row before the rows that reference it), then updates, then deletes in
// reverse creation order; by key within a kind.
type Changes []Change

// String renders one change per line; a create or update line is followed
// by the rendered object.
func (cs Changes) String() string {
	var b strings.Builder
	for _, c := range cs {
		b.WriteString(c.String())
		b.WriteByte('\n')
		if c.Op != OpDelete {
			b.WriteString("    ")
			if c.Object == nil {
				b.WriteString("(no object)")
			} else {
				c.Object.render(&b)
			}
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// Count returns the number of creates, updates and deletes.
func (cs Changes) Count() (creates, updates, deletes int) {
	for _, c := range cs {
		switch c.Op {
		case OpCreate:
			creates++
		case OpUpdate:
			updates++
		case OpDelete:
			deletes++
		}
	}
	return
}

// Scope restricts what Diff may touch.
type Scope struct {
	// Controller whose rows may be created, updated or deleted; empty is
	// ControllerTopology. Rows of any other controller are never touched.
	Controller Controller
	// Networks whose objects may be created, updated or deleted. Objects of
	// any other network (and objects of no network) are never touched.
	Networks []string
	// Nodes, when not empty, restricts Diff further to the objects owned by
	// these nodes; "" names the network-wide objects.
	Nodes []string
}

// Diff returns the ordered changes that turn observed into desired, touching
// only the rows of the (controller, network) pairs desired speaks for
// (State.Controllers, State.Networks, State.SpeaksFor) and, when desired is
// an incremental plan (PlanNodes), only the nodes it speaks for
// (State.Nodes): objects of other controllers, networks and nodes in
// observed are left alone. Diff(s, s) is empty. It is deterministic and
// pure.
func Diff(observed, desired State) Changes {
	return diffScope(observed, desired, desired.scope, desired.nodes, desired.partial)
}

// ObjectChanges returns the changes that take the rows of one thing (a
// pod's ports, a Service's load balancers) from before to after, and
// nothing else: an object only in before is deleted, one only in after
// created, one in both updated where it differs. Either may be empty (the
// thing comes or goes). A controller applies them directly (Apply, not
// Sync), at a cost that depends on that thing alone.
func ObjectChanges[T Object](before, after []T) (Changes, error) {
	state := func(objs []T) (State, error) {
		var b Builder
		for _, q := range [...][]T{before, after} { // both speak for every network either has
			for _, o := range q {
				own := o.OwnedBy()
				b.OwnFor(own.Controller, own.Network)
			}
		}
		for _, o := range objs {
			b.Add(o)
		}
		return b.State()
	}
	old, err := state(before)
	if err != nil {
		return nil, err
	}
	now, err := state(after)
	if err != nil {
		return nil, err
	}
	return Diff(old, now), nil
}

// DiffScope is Diff restricted to scope.
//
// Partitions shared between observed and desired (a State derived from
// another by Merge or Apply shares its untouched partitions) are skipped
// without comparing objects, so the cost of a Diff is proportional to what
// changed, not to the size of the states.
func DiffScope(observed, desired State, scope Scope) Changes {
	sc := make([]scopeKey, len(scope.Networks))
	for i, n := range scope.Networks {
		sc[i] = scopeKey{scope.Controller.canon(), n}
	}
	return diffScope(observed, desired, sortScope(sc), scope.Nodes, len(scope.Nodes) > 0)
}

func diffScope(observed, desired State, scope []scopeKey, nodes []string, byNode bool) Changes {
	nets := make(map[scopeKey]bool, len(scope))
	for _, k := range scope {
		nets[k] = true
	}
	var keys []partKey
	if byNode {
		for _, sk := range scope {
			for _, node := range nodes {
				k := partKey{sk.ctl, sk.network, node}
				if observed.parts[k] != nil || desired.parts[k] != nil {
					keys = append(keys, k)
				}
			}
		}
		slices.SortFunc(keys, compareParts)
		keys = slices.CompactFunc(keys, func(a, b partKey) bool { return a == b })
	} else {
		// The partitions in scope of either state, each once: observed's,
		// then desired's that observed lacks.
		keys = make([]partKey, 0, max(len(observed.parts), len(desired.parts)))
		for k := range observed.parts {
			if nets[scopeKey{k.ctl, k.network}] {
				keys = append(keys, k)
			}
		}
		for k := range desired.parts {
			if _, both := observed.parts[k]; !both && nets[scopeKey{k.ctl, k.network}] {
				keys = append(keys, k)
			}
		}
	}
	var out Changes
	for _, k := range keys {
		out = diffPart(out, observed.parts[k], desired.parts[k])
	}
	return finish(out)
}

func diffPart(out Changes, obs, des *part) Changes {
	if obs == des {
		return out
	}
	var oe, de []entry
	if obs != nil {
		oe = obs.entries
	}
	if des != nil {
		de = des.entries
	}
	i, j := 0, 0
	for i < len(oe) || j < len(de) {
		var c int
		switch {
		case i == len(oe):
			c = 1
		case j == len(de):
			c = -1
		default:
			c = compareEntries(oe[i], de[j])
		}
		switch {
		case c < 0:
			out = append(out, Change{Op: OpDelete, Kind: oe[i].kind, Key: oe[i].key, Object: oe[i].obj, Old: oe[i].obj})
			i++
		case c > 0:
			out = append(out, Change{Op: OpCreate, Kind: de[j].kind, Key: de[j].key, Object: de[j].obj})
			j++
		default:
			if cols := oe[i].obj.columns(de[j].obj); len(cols) > 0 {
				out = append(out, Change{Op: OpUpdate, Kind: de[j].kind, Key: de[j].key, Object: de[j].obj, Old: oe[i].obj, Columns: cols})
			}
			i++
			j++
		}
	}
	return out
}

// finish turns a delete and a create of the same key (an object that moved
// to another owner partition) into an update, and sorts.
func finish(out Changes) Changes {
	var creates, deletes int
	for _, c := range out {
		switch c.Op {
		case OpCreate:
			creates++
		case OpDelete:
			deletes++
		}
	}
	if creates > 0 && deletes > 0 {
		type kk struct {
			kind Kind
			key  string
		}
		del := map[kk]int{}
		for i, c := range out {
			if c.Op == OpDelete {
				del[kk{c.Kind, c.Key}] = i
			}
		}
		drop := map[int]bool{}
		for i, c := range out {
			if c.Op != OpCreate {
				continue
			}
			if d, ok := del[kk{c.Kind, c.Key}]; ok {
				old := out[d].Old
				out[i] = Change{Op: OpUpdate, Kind: c.Kind, Key: c.Key, Object: c.Object, Old: old, Columns: old.columns(c.Object)}
				drop[d] = true
			}
		}
		if len(drop) > 0 {
			kept := out[:0]
			for i, c := range out {
				if !drop[i] {
					kept = append(kept, c)
				}
			}
			out = kept
		}
	}
	slices.SortFunc(out, compareChanges)
	return out
}

func compareChanges(a, b Change) int {
	if a.Op != b.Op {
		return cmp.Compare(a.Op, b.Op)
	}
	if a.Kind != b.Kind {
		if a.Op == OpDelete {
			return compareKinds(b.Kind, a.Kind)
		}
		return compareKinds(a.Kind, b.Kind)
	}
	return strings.Compare(a.Key, b.Key)
}

// Apply returns state with changes applied, in order: the in-memory
// equivalent of what an adapter does to a database. Apply(observed,
// Diff(observed, desired)) equals desired restricted to the diff's scope.
// Creating an existing object is an error wrapping ErrConflict; updating or
// deleting a missing one wraps ErrNotFound. state is not modified.
func Apply(state State, changes Changes) (State, error) {
	out := State{parts: maps.Clone(state.parts), scope: slices.Clone(state.scope), n: state.n,
		partial: state.partial, nodes: state.nodes}
	if out.parts == nil {
		out.parts = map[partKey]*part{}
	}
	owned := map[partKey]bool{} // parts copied by this Apply, safe to modify
	get := func(k partKey) *part {
		p := out.parts[k]
		if owned[k] {
			return p
		}
		q := &part{}
		if p != nil {
			q.entries = slices.Clone(p.entries)
		}
		out.parts[k] = q
		owned[k] = true
		return q
	}
	remove := func(o Object, c Change) error {
		k := partOf(o.OwnedBy())
		if out.parts[k] == nil {
			return fmt.Errorf("%s %s: %w", c.Op, c.Kind.String()+" "+c.Key, ErrNotFound)
		}
		p := get(k)
		i, ok := p.find(c.Kind, c.Key)
		if !ok {
			return fmt.Errorf("%s %s: %w", c.Op, c.Kind.String()+" "+c.Key, ErrNotFound)
		}
		p.entries = slices.Delete(p.entries, i, i+1)
		out.n--
		return nil
	}
	insert := func(o Object, c Change) error {
		own := o.OwnedBy()
		if own.Network == "" {
			return fmt.Errorf("%s %s: owner network: %w: empty", c.Op, c.Kind.String()+" "+c.Key, ErrInvalid)
		}
		k := partOf(own)
		p := get(k)
		i, ok := p.find(c.Kind, c.Key)
		if ok {
			return fmt.Errorf("%s %s: %w: already exists", c.Op, c.Kind.String()+" "+c.Key, ErrConflict)
		}
		p.entries = slices.Insert(p.entries, i, entry{c.Kind, c.Key, o.clone().normalize()})
		out.n++
		if sk := (scopeKey{k.ctl, k.network}); !slices.ContainsFunc(out.scope, func(x scopeKey) bool { return x == sk }) {
			out.scope = sortScope(append(out.scope, sk))
		}
		return nil
	}
	for _, c := range changes {
		if c.Object == nil || c.Object.Kind() != c.Kind || c.Object.Key() != c.Key {
			return State{}, fmt.Errorf("%s %s: %w: object does not match kind and key", c.Op, c.Kind.String()+" "+c.Key, ErrInvalid)
		}
		var err error
		switch c.Op {
		case OpCreate:
			err = insert(c.Object, c)
		case OpUpdate:
			old := c.Old
			if old == nil {
				old = c.Object
			}
			if err = remove(old, c); err == nil {
				err = insert(c.Object, c)
			}
		case OpDelete:
			err = remove(c.Object, c)
		default:
			err = fmt.Errorf("change %s: %w: unknown op", c.Key, ErrInvalid)
		}
		if err != nil {
			return State{}, err
		}
	}
	for k := range owned {
		if len(out.parts[k].entries) == 0 {
			delete(out.parts, k)
		}
	}
	return out, nil
}
