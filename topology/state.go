package topology

import (
	"fmt"
	"io"
	"iter"
	"maps"
	"slices"
	"strings"

	"github.com/udnkit/udnkit/netconf/udn"
)

// partKey names one partition of a State: the objects one controller
// writes for one network because of one node (node "" holds the
// network-wide objects). ctl is canonical (Controller.canon).
type partKey struct {
	ctl           Controller
	network, node string
}

func partOf(o Owner) partKey { return partKey{o.Controller.canon(), o.Network, o.Node} }

func compareParts(a, b partKey) int {
	if c := strings.Compare(a.network, b.network); c != 0 {
		return c
	}
	if c := strings.Compare(string(a.ctl), string(b.ctl)); c != 0 {
		return c
	}
	return strings.Compare(a.node, b.node)
}

// scopeKey is one (controller, network) pair a State speaks for; ctl is
// canonical.
type scopeKey struct {
	ctl     Controller
	network string
}

func compareScope(a, b scopeKey) int {
	if c := strings.Compare(a.network, b.network); c != 0 {
		return c
	}
	return strings.Compare(string(a.ctl), string(b.ctl))
}

// sortScope sorts and deduplicates a scope in place.
func sortScope(sc []scopeKey) []scopeKey {
	slices.SortFunc(sc, compareScope)
	return slices.Compact(sc)
}

// scopeNetworks returns the networks of a sorted scope, sorted and unique.
func scopeNetworks(sc []scopeKey) []string {
	var out []string
	for _, k := range sc {
		if len(out) == 0 || out[len(out)-1] != k.network {
			out = append(out, k.network)
		}
	}
	return out
}

type entry struct {
	kind Kind
	key  string
	obj  Object
}

func compareEntries(a, b entry) int {
	if a.kind != b.kind {
		return compareKinds(a.kind, b.kind)
	}
	return strings.Compare(a.key, b.key)
}

// part is an immutable, sorted partition. States share parts: a part is
// never modified once it belongs to a State.
type part struct {
	entries []entry
}

func (p *part) find(kind Kind, key string) (int, bool) {
	return slices.BinarySearchFunc(p.entries, entry{kind: kind, key: key}, compareEntries)
}

// State is a desired or observed set of OVN Northbound objects, partitioned
// by owner (controller, network, node). It also records the (controller,
// network) pairs it speaks for (its scope, see Diff), which may have no
// objects at all.
//
// A State is immutable: every method returns a new State and the objects it
// yields are copies. Build one with a Builder or a planner. The zero value is
// the empty State. States are safe for concurrent use.
type State struct {
	parts map[partKey]*part
	scope []scopeKey // sorted, unique
	// partial marks an incremental plan (PlanNodes) that speaks only for
	// the nodes listed in nodes ("" = the network-wide objects).
	partial bool
	nodes   []string
	n       int
}

// Len returns the number of objects.
func (s State) Len() int { return s.n }

// Networks returns the networks the State speaks for (for any
// controller), sorted.
func (s State) Networks() []string { return scopeNetworks(s.scope) }

// Controllers returns the controllers the State speaks for, sorted
// (ControllerTopology spelled out).
func (s State) Controllers() []Controller {
	var out []Controller
	for _, k := range s.scope {
		out = append(out, k.ctl)
	}
	slices.Sort(out)
	out = slices.Compact(out)
	for i, c := range out {
		if c == "" {
			out[i] = ControllerTopology
		}
	}
	slices.Sort(out)
	return out
}

// SpeaksFor reports whether the State speaks for the rows controller c
// writes for network.
func (s State) SpeaksFor(c Controller, network string) bool {
	_, ok := slices.BinarySearchFunc(s.scope, scopeKey{c.canon(), network}, compareScope)
	return ok
}

// Nodes returns, for an incremental plan (PlanNodes), the nodes it speaks
// for, sorted ("" stands for the network-wide objects), and true; for a full
// state nil and false.
func (s State) Nodes() ([]string, bool) {
	return slices.Clone(s.nodes), s.partial
}

// sortedParts returns the partition keys in order.
func (s State) sortedParts() []partKey {
	keys := slices.Collect(maps.Keys(s.parts))
	slices.SortFunc(keys, compareParts)
	return keys
}

func (s State) allEntries() []entry {
	all := make([]entry, 0, s.n)
	for _, p := range s.parts {
		all = append(all, p.entries...)
	}
	slices.SortFunc(all, compareEntries)
	return all
}

// Objects yields copies of every object, ordered by kind (creation order)
// then key.
func (s State) Objects() iter.Seq[Object] {
	return func(yield func(Object) bool) {
		for _, e := range s.allEntries() {
			if !yield(e.obj.clone()) {
				return
			}
		}
	}
}

// ObjectsOf returns copies of the objects of one kind, ordered by key.
func (s State) ObjectsOf(kind Kind) []Object {
	var es []entry
	for _, p := range s.parts {
		for _, e := range p.entries {
			if e.kind == kind {
				es = append(es, e)
			}
		}
	}
	if len(es) == 0 {
		return nil
	}
	slices.SortFunc(es, compareEntries)
	out := make([]Object, len(es))
	for i, e := range es {
		out[i] = e.obj.clone()
	}
	return out
}

// Get returns a copy of the object of kind with key.
func (s State) Get(kind Kind, key string) (Object, bool) {
	for _, p := range s.parts {
		if i, ok := p.find(kind, key); ok {
			return p.entries[i].obj.clone(), true
		}
	}
	return nil, false
}

// Equal reports whether s and o hold the same objects (with the same
// owners). The networks a State speaks for are its scope, not its content,
// and are not compared.
func (s State) Equal(o State) bool {
	if s.n != o.n || len(s.parts) != len(o.parts) {
		return false
	}
	for k, p := range s.parts {
		q, ok := o.parts[k]
		if !ok || !partsEqual(p, q) {
			return false
		}
	}
	return true
}

func partsEqual(p, q *part) bool {
	if p == q {
		return true
	}
	if len(p.entries) != len(q.entries) {
		return false
	}
	for i := range p.entries {
		a, b := p.entries[i], q.entries[i]
		if a.kind != b.kind || a.key != b.key || len(a.obj.columns(b.obj)) != 0 {
			return false
		}
	}
	return true
}

// Clone returns a deep copy of s. (States are immutable, so a copy is only
// needed to hand objects to code that may keep them.)
func (s State) Clone() State {
	c := State{parts: make(map[partKey]*part, len(s.parts)), scope: slices.Clone(s.scope), n: s.n,
		partial: s.partial, nodes: slices.Clone(s.nodes)}
	for k, p := range s.parts {
		q := &part{entries: make([]entry, len(p.entries))}
		for i, e := range p.entries {
			q.entries[i] = entry{e.kind, e.key, e.obj.clone()}
		}
		c.parts[k] = q
	}
	return c
}

// String renders s as text: a "networks" line, then one line per object
// ordered by kind and key. The text is stable (golden files).
func (s State) String() string {
	var b strings.Builder
	s.render(&b)
	return b.String()
}

// WriteTo writes String to w.
func (s State) WriteTo(w io.Writer) (int64, error) {
	n, err := io.WriteString(w, s.String())
	return int64(n), err
}

func (s State) render(b *strings.Builder) {
	b.WriteString("networks: ")
	b.WriteString(strings.Join(s.Networks(), ", "))
	b.WriteByte('\n')
	if cs := s.Controllers(); len(cs) > 1 || len(cs) == 1 && cs[0] != ControllerTopology {
		b.WriteString("controllers: ")
		for i, c := range cs {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(string(c))
		}
		b.WriteByte('\n')
	}
	if s.partial {
		b.WriteString("nodes: ")
		b.WriteString(strings.Join(s.nodes, ", "))
		b.WriteByte('\n')
	}
	for _, e := range s.allEntries() {
		e.obj.render(b)
		b.WriteByte('\n')
	}
}

// Merge returns the union of s and others. Networks may appear in several
// states (their partitions are united) but a partition (controller,
// network, node) must
// come from one state only, unless the same partition is shared unchanged;
// two networks must not have the same object-name prefix. Errors wrap
// ErrConflict.
func (s State) Merge(others ...State) (State, error) {
	out := State{parts: maps.Clone(s.parts), scope: slices.Clone(s.scope), n: s.n,
		partial: s.partial, nodes: slices.Clone(s.nodes)}
	if out.parts == nil {
		out.parts = map[partKey]*part{}
	}
	for _, o := range others {
		switch {
		case len(o.scope) == 0 && len(o.parts) == 0:
			continue
		case len(out.scope) == 0 && len(out.parts) == 0:
			out.partial = o.partial
		case out.partial != o.partial:
			return State{}, fmt.Errorf("merge: %w: a full state and an incremental (PlanNodes) one", ErrConflict)
		}
		out.nodes = append(out.nodes, o.nodes...)
		for k, p := range o.parts {
			if q, ok := out.parts[k]; ok {
				if q == p {
					continue
				}
				return State{}, fmt.Errorf("merge: controller %q network %q node %q: %w: planned twice", k.ctl.String(), k.network, k.node, ErrConflict)
			}
			out.parts[k] = p
			out.n += len(p.entries)
		}
		out.scope = append(out.scope, o.scope...)
	}
	out.scope = sortScope(out.scope)
	slices.Sort(out.nodes)
	out.nodes = slices.Compact(out.nodes)
	if err := checkPrefixes(scopeNetworks(out.scope)); err != nil {
		return State{}, err
	}
	return out, nil
}

// Without returns s without the objects of the given networks, of every
// controller (they are no longer in its scope either).
func (s State) Without(networks ...string) State {
	drop := map[string]bool{}
	for _, n := range networks {
		drop[n] = true
	}
	out := State{parts: make(map[partKey]*part, len(s.parts)), partial: s.partial, nodes: s.nodes}
	for k, p := range s.parts {
		if !drop[k.network] {
			out.parts[k] = p
			out.n += len(p.entries)
		}
	}
	for _, k := range s.scope {
		if !drop[k.network] {
			out.scope = append(out.scope, k)
		}
	}
	return out
}

// Removal returns an empty State that speaks for the network planners'
// rows (ControllerTopology) of networks: Diff(observed, Removal(n)) deletes
// every object of network n that ControllerTopology owns, and nothing
// another controller wrote.
func Removal(networks ...string) State { return RemovalFor(ControllerTopology, networks...) }

// RemovalFor is Removal for the rows controller c owns.
func RemovalFor(c Controller, networks ...string) State {
	var b Builder
	for _, n := range networks {
		b.OwnFor(c, n)
	}
	s, _ := b.State()
	return s
}

func checkPrefixes(networks []string) error {
	if len(networks) < 2 {
		return nil
	}
	seen := make(map[string]string, len(networks))
	for _, n := range networks {
		p := udn.NetworkPrefix(n)
		if o, ok := seen[p]; ok {
			return fmt.Errorf("networks %q and %q: %w: both use the object-name prefix %q", o, n, ErrConflict, p)
		}
		seen[p] = n
	}
	return nil
}

// Builder collects objects into a State. The zero value is ready to use. A
// Builder is not safe for concurrent use.
//
// A Builder must not be copied once used: a copy would share its storage,
// and what one of them adds would overwrite what the other added. Using a
// copy panics (as with strings.Builder) and go vet reports the copy; use
// Clone for an independent Builder.
type Builder struct {
	_    noCopy
	addr *Builder // the Builder itself once used, to detect copies

	// The objects, in runs of consecutive objects of one partition (a
	// partition may have several runs; State unites them). The last run is
	// open while open is true: its entries are the tail chunk[start:] of a
	// shared chunk, so that the objects of one partition, which planners add
	// together, need no allocation of their own. Closing it caps its slice
	// at its length, so that no later append can overwrite it.
	keys  []partKey
	runs  [][]entry
	open  bool
	start int
	chunk []entry
	strs  strArena // object keys (and the planners' strings)
	scope []scopeKey
	err   error
	// trusted: the objects come from a planner whose names are unique by
	// construction; State checks duplicates per partition only.
	trusted bool
}

// The Builder allocates entries in chunks that start small (a PlanNodes
// plan has few objects) and double up to entryChunk.
const minEntryChunk, entryChunk = 32, 1024

// noCopy makes go vet's copylocks check report a copied Builder.
type noCopy struct{}

func (*noCopy) Lock()   {}
func (*noCopy) Unlock() {}

// copyCheck panics when b is a copy of a used Builder.
func (b *Builder) copyCheck() {
	if b.addr == nil {
		b.addr = b
	} else if b.addr != b {
		panic("topology: a Builder was copied by value after use; use Builder.Clone")
	}
}

// Clone returns an independent copy of b: adding to one never changes
// what the other builds.
func (b *Builder) Clone() *Builder {
	b.copyCheck()
	c := &Builder{keys: slices.Clone(b.keys), runs: make([][]entry, len(b.runs)), scope: slices.Clone(b.scope),
		err: b.err, trusted: b.trusted}
	c.addr = c
	for i, r := range b.runs {
		c.runs[i] = slices.Clone(r)
	}
	if b.open {
		c.runs[len(c.runs)-1] = slices.Clone(b.chunk[b.start:])
	}
	return c
}

// grow prepares b for about n runs.
func (b *Builder) grow(n int) {
	b.copyCheck()
	b.keys, b.runs = slices.Grow(b.keys, n), slices.Grow(b.runs, n)
}

// Own adds the rows ControllerTopology writes for network to the scope of
// the State being built, even if it ends up with no objects.
func (b *Builder) Own(network string) { b.OwnFor(ControllerTopology, network) }

// OwnFor adds the rows controller c writes for network to the scope of the
// State being built, even if it ends up with no objects: Diff against that
// State deletes c's rows of network that the State lacks, and no other
// controller's.
func (b *Builder) OwnFor(c Controller, network string) {
	b.copyCheck()
	b.scope = append(b.scope, scopeKey{c.canon(), network})
}

// Add adds objects. Set-valued columns are normalised (sorted); the objects
// are copied. Each object's (controller, network) is added to the scope. An object
// without an owner network is an error, reported by State.
func (b *Builder) Add(objs ...Object) {
	for _, o := range objs {
		if o == nil {
			continue
		}
		if o.OwnedBy().Network == "" && b.err == nil {
			b.err = invalidOwner(o)
		}
		b.add(o.clone())
	}
}

// invalidOwner is the error of an object without an owner network.
func invalidOwner(o Object) error {
	return fmt.Errorf("%s %q: owner network: %w: empty", o.Kind(), o.Key(), ErrInvalid)
}

// add adds objects the caller hands over (no copy).
func (b *Builder) add(objs ...Object) {
	b.copyCheck()
	for _, o := range objs {
		b.addKeyed(o, b.key(o))
	}
}

// addKeyed adds o, which the caller hands over, with its key o.Key().
func (b *Builder) addKeyed(o Object, key string) {
	if k := partOf(o.OwnedBy()); !b.open || b.keys[len(b.keys)-1] != k {
		b.close()
		b.keys = append(b.keys, k)
		b.runs = append(b.runs, nil)
		b.open, b.start = true, len(b.chunk)
	}
	if len(b.chunk) == cap(b.chunk) {
		b.newChunk()
	}
	b.chunk = append(b.chunk, entry{o.Kind(), key, normalized(o)})
}

// key returns o.Key(), building the composite keys in b's string arena.
func (b *Builder) key(o Object) string {
	var scratch [160]byte
	if k, ok := appendKey(o, scratch[:0]); ok {
		return b.strs.bytes(k)
	}
	return o.Key()
}

// close closes the open run (see Builder).
func (b *Builder) close() {
	if b.open {
		b.runs[len(b.runs)-1] = b.chunk[b.start:len(b.chunk):len(b.chunk)]
		b.open = false
	}
}

// newChunk starts a new chunk with room for the open run to double, and
// moves the open run there.
func (b *Builder) newChunk() {
	var run []entry
	if b.open {
		run = b.chunk[b.start:]
	}
	size := max(min(2*cap(b.chunk), entryChunk), minEntryChunk, 2*len(run))
	b.chunk = append(make([]entry, 0, size), run...)
	b.start = 0
}

// State returns the State built so far. Keys must be unique per kind;
// errors wrap ErrConflict or ErrInvalid and name the object.
func (b *Builder) State() (State, error) {
	b.copyCheck()
	if b.err != nil {
		return State{}, b.err
	}
	b.close()
	// Unite the runs into partitions, in order of first appearance.
	s := State{parts: make(map[partKey]*part, len(b.runs))}
	parts := make([]part, 0, len(b.runs)) // never grows: s.parts points into it
	var keys []partKey
	// A partition added in several runs (an emitter alternating between
	// partitions) is copied once into a slice of its total size: appending
	// run by run would copy it again for each run.
	var sizes map[partKey]int
	for i, es := range b.runs {
		k := b.keys[i]
		if p, ok := s.parts[k]; ok {
			if sizes == nil {
				sizes = make(map[partKey]int)
			}
			if _, counted := sizes[k]; !counted {
				sizes[k] = len(p.entries)
			}
			sizes[k] += len(es)
			continue
		}
		parts = append(parts, part{entries: es})
		s.parts[k] = &parts[len(parts)-1]
		keys = append(keys, k)
	}
	for k, n := range sizes {
		p := s.parts[k]
		p.entries = append(make([]entry, 0, n), p.entries...)
	}
	if sizes != nil {
		first := make(map[partKey]bool, len(sizes))
		for i, es := range b.runs {
			k := b.keys[i]
			if _, multi := sizes[k]; !multi {
				continue
			}
			if !first[k] {
				first[k] = true // the first run is already in place
				continue
			}
			p := s.parts[k]
			p.entries = append(p.entries, es...)
		}
	}
	if !b.trusted {
		for i := range parts {
			if _, multi := sizes[keys[i]]; !multi {
				parts[i].entries = slices.Clone(parts[i].entries) // the Builder may be used again
			}
		}
	}
	scope := slices.Clone(b.scope)
	type kindKey struct {
		kind Kind
		key  string
	}
	var seen map[kindKey]int
	if len(parts) > 1 && !b.trusted {
		total := 0
		for _, p := range parts {
			total += len(p.entries)
		}
		seen = make(map[kindKey]int, total)
	}
	var sorter entrySorter
	for i := range parts {
		es, k := parts[i].entries, keys[i]
		sorter.sort(es)
		for i := 1; i < len(es); i++ {
			if es[i].kind == es[i-1].kind && es[i].key == es[i-1].key {
				return State{}, fmt.Errorf("%s %q: %w: defined twice", es[i].kind, es[i].key, ErrConflict)
			}
		}
		if seen != nil {
			for _, e := range es {
				kk := kindKey{e.kind, e.key}
				if o, ok := seen[kk]; ok {
					ok := keys[o]
					return State{}, fmt.Errorf("%s %q: %w: owned by controller %q network %q node %q and controller %q network %q node %q",
						e.kind, e.key, ErrConflict, ok.ctl.String(), ok.network, ok.node, k.ctl.String(), k.network, k.node)
				}
				seen[kk] = i
			}
		}
		s.n += len(es)
		if sk := (scopeKey{k.ctl, k.network}); len(scope) == 0 || scope[len(scope)-1] != sk {
			scope = append(scope, sk)
		}
	}
	s.scope = sortScope(scope)
	if err := checkPrefixes(scopeNetworks(s.scope)); err != nil {
		return State{}, err
	}
	return s, nil
}

// entrySorter sorts entries by kind and key. It sorts a permutation and
// then moves each entry once: an entry holds three pointers, and moving
// entries around as an in-place sort does costs a write barrier for each
// while the garbage collector runs. Its buffers serve one State call (and
// so hold on to nothing after it).
type entrySorter struct {
	perm []int32
	tmp  []entry
}

func (s *entrySorter) sort(es []entry) {
	if slices.IsSortedFunc(es, compareEntries) {
		return
	}
	s.perm = s.perm[:0]
	for i := range es {
		s.perm = append(s.perm, int32(i))
	}
	slices.SortFunc(s.perm, func(i, j int32) int {
		a, b := &es[i], &es[j]
		if a.kind != b.kind {
			return compareKinds(a.kind, b.kind)
		}
		return strings.Compare(a.key, b.key)
	})
	s.tmp = append(s.tmp[:0], es...)
	for i, j := range s.perm {
		es[i] = s.tmp[j]
	}
}

// Overlay returns s with the partitions of others laid over it: for every
// (network, node) that one of others has objects for, its objects replace
// s's (later states win). The result speaks for the scopes of all. It is
// how incremental plans (PlanNodes) are combined with a full one.
func (s State) Overlay(others ...State) State {
	out := State{parts: maps.Clone(s.parts), n: s.n, scope: slices.Clone(s.scope), partial: s.partial, nodes: s.nodes}
	if out.parts == nil {
		out.parts = map[partKey]*part{}
	}
	out.overlay(others...)
	return out
}

// overlay puts others' partitions into s, whose map must be s's own, and
// adds their scope.
func (s *State) overlay(others ...State) {
	for _, o := range others {
		for k, p := range o.parts {
			if q, ok := s.parts[k]; ok {
				s.n -= len(q.entries)
			}
			s.parts[k] = p
			s.n += len(p.entries)
		}
		s.scope = append(s.scope, o.scope...)
	}
	s.scope = sortScope(s.scope)
}
