package ipam

import (
	"fmt"
	"slices"
	"sync"
)

// idSet is a keyed set of integer IDs in [first, last], handed out
// round-robin as the reference's bitmap.NewRoundRobinAllocationMap does: the
// search starts after the last ID handed out and wraps, so a freed ID is
// reused only after every other free one. Reserve and release leave the
// cursor alone. Not safe for concurrent use; its owners lock.
type idSet struct {
	what        string // "network ID", "tunnel key", ... for errors
	first, last int
	bs          bitset
	next        uint64 // offset the next search starts at
	byOwner     map[string][]int
	ownerOf     map[int]string
}

func newIDSet(what string, first, last int) (*idSet, error) {
	if first > last || first < 0 {
		return nil, fmt.Errorf("%s range [%d, %d]: %w: empty or negative", what, first, last, ErrInvalid)
	}
	return &idSet{
		what: what, first: first, last: last,
		bs:      newBitset(uint64(last-first) + 1),
		byOwner: make(map[string][]int),
		ownerOf: make(map[int]string),
	}, nil
}

// take returns owner's n IDs. An owner holding fewer gets the missing ones
// appended (the reference's idsAllocator.AllocateIDs); one holding more is
// refused with ErrConflict. A failed take changes nothing.
func (s *idSet) take(owner string, n int) ([]int, error) {
	held := s.byOwner[owner]
	switch {
	case len(held) == n:
		return slices.Clone(held), nil
	case len(held) > n:
		return nil, fmt.Errorf("%s for %q: %w: holds %d, %d requested", s.what, owner, ErrConflict, len(held), n)
	}
	want := n - len(held)
	if s.bs.count == s.bs.size {
		return nil, fmt.Errorf("%s for %q: %w: all %d IDs in [%d, %d] are taken", s.what, owner, ErrExhausted, s.bs.size, s.first, s.last)
	}
	if s.bs.size-s.bs.count < uint64(want) {
		return nil, fmt.Errorf("%s for %q: %w: %d free in [%d, %d], %d requested", s.what, owner, ErrExhausted,
			s.bs.size-s.bs.count, s.first, s.last, want)
	}
	ids := slices.Grow(slices.Clone(held), want)
	for range want {
		off, ok := s.bs.nextClear(s.next, s.bs.size)
		if !ok {
			off, ok = s.bs.nextClear(0, s.next)
		}
		if !ok { // cannot happen: the count said there was room
			for _, id := range ids[len(held):] {
				s.bs.clear(uint64(id-s.first), 0)
			}
			return nil, fmt.Errorf("%s for %q: %w", s.what, owner, ErrExhausted)
		}
		s.bs.set(off)
		s.next = off + 1
		if s.next == s.bs.size {
			s.next = 0
		}
		ids = append(ids, s.first+int(off))
	}
	s.byOwner[owner] = ids
	for _, id := range ids[len(held):] {
		s.ownerOf[id] = owner
	}
	return slices.Clone(ids), nil
}

func (s *idSet) reserve(owner string, ids []int) error {
	for _, id := range ids {
		if id < s.first || id > s.last {
			return fmt.Errorf("%s %d for %q: %w: not in [%d, %d]", s.what, id, owner, ErrOutOfRange, s.first, s.last)
		}
		if o, ok := s.ownerOf[id]; ok && o != owner {
			return fmt.Errorf("%s %d for %q: %w: already held by %q", s.what, id, owner, ErrConflict, o)
		}
	}
	if got, ok := s.byOwner[owner]; ok {
		if slices.Equal(got, ids) {
			return nil
		}
		return fmt.Errorf("%s for %q: %w: holds %v, restoring %v", s.what, owner, ErrConflict, got, ids)
	}
	for i, id := range ids {
		if slices.Contains(ids[:i], id) {
			return fmt.Errorf("%s %d for %q: %w: given twice", s.what, id, owner, ErrInvalid)
		}
	}
	for _, id := range ids {
		s.bs.set(uint64(id - s.first))
		s.ownerOf[id] = owner
	}
	s.byOwner[owner] = slices.Clone(ids)
	return nil
}

func (s *idSet) release(owner string) {
	for _, id := range s.byOwner[owner] {
		s.bs.clear(uint64(id-s.first), 0)
		delete(s.ownerOf, id)
	}
	delete(s.byOwner, owner)
}

// IDAllocator hands out integer IDs of a closed range, one per owner (a
// network or node name), round-robin as the reference does: each new ID is
// the first free one after the last ID handed out, wrapping at the end of
// the range, so an ID freed by a deleted owner is reused only once the
// others have been. A fresh allocator starts at the first ID; after a
// restart, Reserve what exists first (the cursor does not move on Reserve,
// as in the reference, so allocation then resumes from the first free ID).
// It is safe for concurrent use.
type IDAllocator struct {
	mu sync.Mutex
	s  *idSet
}

// NewIDAllocator returns an allocator of IDs in [first, last]; what names
// the IDs in errors ("network ID").
func NewIDAllocator(what string, first, last int) (*IDAllocator, error) {
	s, err := newIDSet(what, first, last)
	if err != nil {
		return nil, err
	}
	return &IDAllocator{s: s}, nil
}

// NewNetworkIDAllocator returns the allocator of network IDs,
// 1..MaxNetworkID (0 is the default network).
func NewNetworkIDAllocator() *IDAllocator {
	a, _ := NewIDAllocator("network ID", 1, MaxNetworkID)
	return a
}

// NewNodeIDAllocator returns the allocator of node IDs,
// MinNodeID..MaxNodeID (0 and 1 are reserved).
func NewNodeIDAllocator() *IDAllocator {
	a, _ := NewIDAllocator("node ID", MinNodeID, MaxNodeID)
	return a
}

// Allocate returns owner's ID, allocating the next free one (round-robin)
// on first use.
func (a *IDAllocator) Allocate(owner string) (int, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	ids, err := a.s.take(owner, 1)
	if err != nil {
		return 0, err
	}
	return ids[0], nil
}

// Reserve records that owner holds id, as found on an existing object after
// a restart. It is idempotent; it fails with ErrConflict when id belongs to
// another owner or owner holds another ID, and with ErrOutOfRange when id is
// outside the range.
func (a *IDAllocator) Reserve(owner string, id int) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.s.reserve(owner, []int{id})
}

// Release frees owner's ID; releasing an unknown owner is a no-op.
func (a *IDAllocator) Release(owner string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.s.release(owner)
}

// Lookup returns owner's ID.
func (a *IDAllocator) Lookup(owner string) (int, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	ids, ok := a.s.byOwner[owner]
	if !ok {
		return 0, false
	}
	return ids[0], true
}

// Owner returns the owner of id.
func (a *IDAllocator) Owner(id int) (string, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	o, ok := a.s.ownerOf[id]
	return o, ok
}

// Len returns the number of IDs held.
func (a *IDAllocator) Len() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.s.ownerOf)
}

// Range returns the allocator's first and last ID.
func (a *IDAllocator) Range() (first, last int) { return a.s.first, a.s.last }

// Tunnel keys per object.
const (
	// Layer2TunnelKeys is the number of keys of a primary Layer2 network: its
	// switch (the first) and its transit router (the second). From
	// AllocateForNetwork, the switch's is the network's preserved key, as in
	// the reference.
	Layer2TunnelKeys = 2
	// ConnectRouterTunnelKeys is the number of dynamic keys of a connect
	// router.
	ConnectRouterTunnelKeys = 1
)

// PreservedTunnelKey returns the tunnel key preserved for network ID n, the
// key of its Layer3 transit switch (16711683+n), which a primary Layer2
// network's switch takes too (AllocateForNetwork).
func PreservedTunnelKey(networkID int) int { return Layer3TransitSwitchTunnelKey(networkID) }

// isPreservedTunnelKey reports whether k is the preserved key of a network
// ID in 0..MaxNetworkID.
func isPreservedTunnelKey(k int) bool {
	return k >= BaseTransitSwitchTunnelKey && k < DynamicTunnelKeyFirst
}

// CheckNetworkTunnelKeys reports whether keys are tunnel keys the network
// with networkID may carry, as AllocateForNetwork (or the reference) hands
// them out: the first key either the network's preserved key
// PreservedTunnelKey(networkID) or dynamic, every other key dynamic, none
// twice. A planner accepts with it the keys of networks the reference
// created. The error wraps ErrOutOfRange or ErrConflict and names the key's
// index.
func CheckNetworkTunnelKeys(networkID int, keys []int) error {
	for i, k := range keys {
		dynamic := k >= DynamicTunnelKeyFirst && k <= DynamicTunnelKeyLast
		if !dynamic && (i > 0 || networkID < 0 || networkID > MaxNetworkID || k != PreservedTunnelKey(networkID)) {
			if i == 0 && networkID >= 0 && networkID <= MaxNetworkID {
				return fmt.Errorf("tunnelKeys[%d]: %d not %d (network %d's preserved key) nor in %d..%d: %w",
					i, k, PreservedTunnelKey(networkID), networkID, DynamicTunnelKeyFirst, DynamicTunnelKeyLast, ErrOutOfRange)
			}
			return fmt.Errorf("tunnelKeys[%d]: %d not in %d..%d: %w", i, k, DynamicTunnelKeyFirst, DynamicTunnelKeyLast, ErrOutOfRange)
		}
		if slices.Contains(keys[:i], k) {
			return fmt.Errorf("tunnelKeys[%d]: %d given twice: %w", i, k, ErrConflict)
		}
	}
	return nil
}

// TunnelKeyAllocator hands out datapath tunnel keys from the dynamic range
// [DynamicTunnelKeyFirst, DynamicTunnelKeyLast], above the keys preserved for
// network IDs (PreservedTunnelKey), and records which owner holds which
// preserved key. An owner (a Layer2 network, a connect router) holds its
// network's preserved key first, if any, then its dynamic keys. It is safe
// for concurrent use.
type TunnelKeyAllocator struct {
	mu             sync.Mutex
	s              *idSet
	preserved      map[string]int // owner -> its preserved key
	preservedOwner map[int]string
}

// NewTunnelKeyAllocator returns an empty allocator of dynamic tunnel keys.
func NewTunnelKeyAllocator() *TunnelKeyAllocator {
	s, _ := newIDSet("tunnel key", DynamicTunnelKeyFirst, DynamicTunnelKeyLast)
	return &TunnelKeyAllocator{s: s, preserved: make(map[string]int), preservedOwner: make(map[int]string)}
}

// Allocate returns owner's n dynamic keys, allocating the next free ones
// (round-robin) on first use. An owner holding fewer keys gets the missing
// ones appended after those it holds (the reference's AllocateKeys: a
// network that grows from one key to two keeps its first); an owner holding
// more, or a preserved key (AllocateForNetwork), is refused with
// ErrConflict.
func (t *TunnelKeyAllocator) Allocate(owner string, n int) ([]int, error) {
	if n < 1 {
		return nil, fmt.Errorf("tunnel keys for %q: %w: count %d", owner, ErrInvalid, n)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if p, ok := t.preserved[owner]; ok {
		return nil, fmt.Errorf("tunnel keys for %q: %w: holds preserved key %d, %d dynamic keys requested", owner, ErrConflict, p, n)
	}
	return t.s.take(owner, n)
}

// AllocateForNetwork returns the n keys of owner, the network with
// networkID, as the reference's TunnelKeysAllocator.AllocateKeys does: for a
// network ID in 0..MaxNetworkID the first key is the network's preserved key
// PreservedTunnelKey(networkID) and the other n-1 are dynamic; for a larger
// ID (the reference passes 4096+1 for a connect router) all n are dynamic.
// A primary Layer2 network with ID 5 gets [16711688, a dynamic key]: its
// switch keeps the key a Layer3 transit switch of that ID would have. As
// with Allocate, an owner holding fewer dynamic keys gets the missing ones
// appended and one holding more is refused with ErrConflict; so is an owner
// holding another network's preserved key, or a preserved key held by
// another owner (which the reference does not check).
func (t *TunnelKeyAllocator) AllocateForNetwork(owner string, networkID, n int) ([]int, error) {
	if n < 1 {
		return nil, fmt.Errorf("tunnel keys for %q: %w: count %d", owner, ErrInvalid, n)
	}
	if networkID < 0 {
		return nil, fmt.Errorf("tunnel keys for %q: %w: network ID %d", owner, ErrInvalid, networkID)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	held, holds := t.preserved[owner]
	if networkID > MaxNetworkID {
		if holds {
			return nil, fmt.Errorf("tunnel keys for %q: %w: holds preserved key %d, network ID %d has none", owner, ErrConflict, held, networkID)
		}
		return t.s.take(owner, n)
	}
	p := PreservedTunnelKey(networkID)
	if holds && held != p {
		return nil, fmt.Errorf("tunnel key %d for %q: %w: holds preserved key %d", p, owner, ErrConflict, held)
	}
	if o, ok := t.preservedOwner[p]; ok && o != owner {
		return nil, fmt.Errorf("tunnel key %d for %q: %w: already held by %q", p, owner, ErrConflict, o)
	}
	dyn, err := t.s.take(owner, n-1)
	if err != nil {
		return nil, err
	}
	t.preserved[owner], t.preservedOwner[p] = p, owner
	return append([]int{p}, dyn...), nil
}

// Reserve records that owner holds keys, as found on existing routers and
// switches (or in the reference's k8s.ovn.org/tunnel-keys NAD annotation)
// after a restart. The first key may be a network's preserved key
// (16711683..16715778, the reference's ReserveKeys), the others must be
// dynamic: a preserved key elsewhere, or a key outside both ranges, is
// refused with ErrOutOfRange. Reserving what owner holds is a no-op, and an
// owner holding only its preserved key may add dynamic keys (as in the
// reference); other keys than it holds, or a key held by another owner, are
// ErrConflict.
func (t *TunnelKeyAllocator) Reserve(owner string, keys ...int) error {
	if len(keys) == 0 {
		return fmt.Errorf("tunnel keys for %q: %w: nothing to reserve", owner, ErrInvalid)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	p, hasP := 0, isPreservedTunnelKey(keys[0])
	dyn := keys
	if hasP {
		p, dyn = keys[0], keys[1:]
	}
	for _, k := range dyn {
		if isPreservedTunnelKey(k) {
			return fmt.Errorf("tunnel key %d for %q: %w: a preserved key may only come first", k, owner, ErrOutOfRange)
		}
	}
	heldP, holdsP := t.preserved[owner]
	if holdsP && heldP != p {
		return fmt.Errorf("tunnel keys for %q: %w: holds %v, restoring %v", owner, ErrConflict, t.lookup(owner), keys)
	}
	if o, ok := t.preservedOwner[p]; hasP && ok && o != owner {
		return fmt.Errorf("tunnel key %d for %q: %w: already held by %q", p, owner, ErrConflict, o)
	}
	// The dynamic keys compare as the reference's ReserveIDs does: an owner
	// holding only its preserved key may restore dynamic ones.
	if held := t.s.byOwner[owner]; len(held) > 0 {
		if !slices.Equal(held, dyn) {
			return fmt.Errorf("tunnel keys for %q: %w: holds %v, restoring %v", owner, ErrConflict, t.lookup(owner), keys)
		}
	} else if len(dyn) > 0 {
		if err := t.s.reserve(owner, dyn); err != nil {
			return err
		}
	}
	if hasP {
		t.preserved[owner], t.preservedOwner[p] = p, owner
	}
	return nil
}

// Release frees owner's keys; releasing an unknown owner is a no-op.
func (t *TunnelKeyAllocator) Release(owner string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.s.release(owner)
	if p, ok := t.preserved[owner]; ok {
		delete(t.preservedOwner, p)
		delete(t.preserved, owner)
	}
}

// Lookup returns owner's keys: its preserved key first, if it holds one,
// then its dynamic keys.
func (t *TunnelKeyAllocator) Lookup(owner string) ([]int, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	keys := t.lookup(owner)
	return keys, keys != nil
}

func (t *TunnelKeyAllocator) lookup(owner string) []int {
	var keys []int
	if p, ok := t.preserved[owner]; ok {
		keys = append(keys, p)
	}
	if dyn, ok := t.s.byOwner[owner]; ok {
		keys = append(keys, dyn...)
	}
	return keys
}
