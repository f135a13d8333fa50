package ipam

import (
	"fmt"
	"maps"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// HostSubnetRange is one Layer3 cluster subnet split into per-node subnets:
// CIDR 10.128.0.0/16 with HostPrefix 24 ("10.128.0.0/16/24").
type HostSubnetRange struct {
	CIDR       netip.Prefix
	HostPrefix int
}

// String returns the "cidr/hostPrefix" spelling.
func (r HostSubnetRange) String() string { return r.CIDR.String() + "/" + strconv.Itoa(r.HostPrefix) }

// Capacity returns the number of host subnets in r, saturated at 2^64-1.
func (r HostSubnetRange) Capacity() uint64 {
	n := r.HostPrefix - r.CIDR.Bits()
	if n >= 64 {
		return 1<<64 - 1
	}
	return 1 << n
}

type hostRange struct {
	HostSubnetRange
	bs  bitset
	low uint64
}

func (r *hostRange) subnet(i uint64) netip.Prefix {
	b := u128From(r.CIDR.Addr())
	off := u128{lo: i}.shl(r.CIDR.Addr().BitLen() - r.HostPrefix)
	return netip.PrefixFrom(u128{hi: b.hi | off.hi, lo: b.lo | off.lo}.addr(r.CIDR.Addr().Is4()), r.HostPrefix)
}

// index returns the index of subnet s in r, if s is one of r's host subnets.
func (r *hostRange) index(s netip.Prefix) (uint64, bool) {
	if s.Bits() != r.HostPrefix || !r.CIDR.Contains(s.Addr()) || s.Masked() != s {
		return 0, false
	}
	d := u128From(s.Addr()).sub(u128From(r.CIDR.Addr()))
	sh := r.CIDR.Addr().BitLen() - r.HostPrefix
	// d >> sh
	var lo, hi uint64
	switch {
	case sh == 0:
		hi, lo = d.hi, d.lo
	case sh >= 64:
		lo = d.hi >> (sh - 64)
	default:
		lo = d.lo>>sh | d.hi<<(64-sh)
		hi = d.hi >> sh
	}
	if hi != 0 || lo >= r.bs.size {
		return 0, false
	}
	return lo, true
}

// HostSubnetAllocator gives every node of a Layer3 network one host subnet
// per IP family, carved from the network's cluster subnets. A node keeps its
// subnets until released; the lowest free subnet is handed out first. It is
// safe for concurrent use.
type HostSubnetAllocator struct {
	network string
	ranges  []*hostRange
	fams    []bool // IPv4?, per family in order of first appearance

	mu     sync.Mutex
	byNode map[string][]netip.Prefix
}

// NewHostSubnetAllocator returns an allocator for the network named network
// over ranges. Several ranges of one family are used in order.
func NewHostSubnetAllocator(network string, ranges []HostSubnetRange) (*HostSubnetAllocator, error) {
	if len(ranges) == 0 {
		return nil, fmt.Errorf("network %q: host subnets: %w: no cluster subnet", network, ErrInvalid)
	}
	a := &HostSubnetAllocator{network: network, byNode: make(map[string][]netip.Prefix)}
	for i, r := range ranges {
		c, ok := normalize(r.CIDR)
		if !ok || c != r.CIDR {
			return nil, fmt.Errorf("network %q: subnets[%d] %s: %w: not a network address", network, i, r, ErrInvalid)
		}
		if r.HostPrefix < c.Bits() || r.HostPrefix > c.Addr().BitLen() {
			return nil, fmt.Errorf("network %q: subnets[%d] %s: %w: host prefix must be in [%d, %d]", network, i, r, ErrInvalid, c.Bits(), c.Addr().BitLen())
		}
		for j, q := range a.ranges {
			if q.CIDR.Overlaps(c) {
				return nil, fmt.Errorf("network %q: subnets[%d] %s: %w: overlaps subnets[%d] %s", network, i, r, ErrConflict, j, q.HostSubnetRange)
			}
		}
		a.ranges = append(a.ranges, &hostRange{HostSubnetRange: r, bs: newBitset(r.Capacity())})
		if !slices.Contains(a.fams, c.Addr().Is4()) {
			a.fams = append(a.fams, c.Addr().Is4())
		}
	}
	return a, nil
}

func (a *HostSubnetAllocator) exhausted(node string, is4 bool) error {
	var names []string
	var total uint64
	for _, r := range a.ranges {
		if r.CIDR.Addr().Is4() == is4 {
			names = append(names, r.String())
			total += r.Capacity()
		}
	}
	return fmt.Errorf("network %q: node %q: host subnets %s: %w: the network holds at most %d nodes",
		a.network, node, strings.Join(names, ","), ErrExhausted, total)
}

// Allocate returns node's host subnets, one per family in the order the
// families first appear in the ranges, allocating them on first use.
func (a *HostSubnetAllocator) Allocate(node string) ([]netip.Prefix, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if got, ok := a.byNode[node]; ok {
		return slices.Clone(got), nil
	}
	type taken struct {
		r *hostRange
		i uint64
	}
	var done []taken
	out := make([]netip.Prefix, 0, 2)
	for _, is4 := range a.fams {
		found := false
		for _, r := range a.ranges {
			if r.CIDR.Addr().Is4() != is4 {
				continue
			}
			i, ok := r.bs.nextClear(r.low, r.bs.size)
			if !ok {
				continue
			}
			r.bs.set(i)
			r.low = i + 1
			done = append(done, taken{r, i})
			out = append(out, r.subnet(i))
			found = true
			break
		}
		if !found {
			for _, t := range done {
				t.r.bs.clear(t.i, 0)
				t.r.low = min(t.r.low, t.i)
			}
			return nil, a.exhausted(node, is4)
		}
	}
	a.byNode[node] = out
	return slices.Clone(out), nil
}

// Restore records that node holds subnets, as found in its annotation after
// a restart. It is idempotent; it fails with ErrConflict when a subnet is
// held by another node or node holds other subnets, and with ErrOutOfRange
// when a subnet is not a host subnet of the network.
func (a *HostSubnetAllocator) Restore(node string, subnets ...netip.Prefix) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if got, ok := a.byNode[node]; ok {
		if slices.Equal(got, subnets) {
			return nil
		}
		return fmt.Errorf("network %q: node %q: host subnets %v: %w: node holds %v", a.network, node, subnets, ErrConflict, got)
	}
	type at struct {
		r *hostRange
		i uint64
	}
	locs := make([]at, 0, len(subnets))
	for _, s := range subnets {
		var loc *at
		for _, r := range a.ranges {
			if i, ok := r.index(s); ok {
				loc = &at{r, i}
				break
			}
		}
		if loc == nil {
			return fmt.Errorf("network %q: node %q: host subnet %v: %w: not a host subnet of the network", a.network, node, s, ErrOutOfRange)
		}
		if loc.r.bs.test(loc.i) || slices.Contains(locs, *loc) {
			return fmt.Errorf("network %q: node %q: host subnet %s: %w: held by %s", a.network, node, s, ErrConflict, a.holder(s))
		}
		locs = append(locs, *loc)
	}
	// A node holds one host subnet per family of the network, as Allocate
	// hands them out.
	var want, have [2]int
	for _, r := range a.ranges {
		want[famIndex(r.CIDR)] = 1
	}
	for _, s := range subnets {
		have[famIndex(s)]++
	}
	if have != want {
		return fmt.Errorf("network %q: node %q: host subnets %v: %w: want one subnet per family of the network (%s)",
			a.network, node, subnets, ErrInvalid, a.familiesString())
	}
	for _, l := range locs {
		l.r.bs.set(l.i)
	}
	a.byNode[node] = slices.Clone(subnets)
	return nil
}

func famIndex(p netip.Prefix) int {
	if p.Addr().Is4() {
		return 0
	}
	return 1
}

// familiesString returns "IPv4", "IPv6" or "IPv4 and IPv6".
func (a *HostSubnetAllocator) familiesString() string {
	var v4, v6 bool
	for _, r := range a.ranges {
		v4 = v4 || r.CIDR.Addr().Is4()
		v6 = v6 || !r.CIDR.Addr().Is4()
	}
	switch {
	case v4 && v6:
		return "IPv4 and IPv6"
	case v6:
		return "IPv6"
	}
	return "IPv4"
}

func (a *HostSubnetAllocator) holder(s netip.Prefix) string {
	for n, got := range a.byNode {
		if slices.Contains(got, s) {
			return strconv.Quote(n)
		}
	}
	return "this node"
}

// Release frees node's subnets; releasing an unknown node is a no-op.
func (a *HostSubnetAllocator) Release(node string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, s := range a.byNode[node] {
		for _, r := range a.ranges {
			if i, ok := r.index(s); ok {
				r.bs.clear(i, 0)
				r.low = min(r.low, i)
				break
			}
		}
	}
	delete(a.byNode, node)
}

// Lookup returns node's subnets.
func (a *HostSubnetAllocator) Lookup(node string) ([]netip.Prefix, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	got, ok := a.byNode[node]
	return slices.Clone(got), ok
}

// Nodes returns the names of the nodes holding subnets, sorted.
func (a *HostSubnetAllocator) Nodes() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Sorted(maps.Keys(a.byNode))
}
