package ipam

import (
	"cmp"
	"fmt"
	"math"
	"net/netip"
	"slices"
	"sort"
	"sync"
)

// offRange is an inclusive range of offsets inside a pool's window.
type offRange struct{ lo, hi uint64 }

// PoolStats describes the occupation of an IPPool. Counts saturate at
// math.MaxUint64 for pools of 2^64 addresses or more.
type PoolStats struct {
	// Size is the number of addresses in the subnet.
	Size uint64
	// Usable is Size minus the reserved and excluded addresses.
	Usable uint64
	// Allocated is the number of addresses handed out or restored.
	Allocated uint64
}

// IPPool allocates single addresses of one subnet. It never hands out the
// network address, the gateway (first host), the management address (second
// host), the IPv4 broadcast address, or any address of an excluded subnet.
// Allocate picks the next free address after the last one handed out
// (next-fit), so a released address is not reused at once while others are
// free.
//
// Memory: one bit per address of the part of the subnet in use; a pool larger
// than 2^16 addresses allocates 8 KiB of bitmap per 2^16 addresses on first
// use, so an IPv6 /64 costs memory in proportion to its allocations. Dynamic
// allocation uses the first 2^64-1 addresses of the subnet; addresses beyond
// (IPv6 subnets shorter than /64) can still be allocated by AllocateIP.
//
// An IPPool is safe for concurrent use. The zero value is not usable; use
// NewIPPool.
type IPPool struct {
	subnet  netip.Prefix
	excl    []offRange     // reserved and excluded offsets in the window, sorted, merged
	exclP   []netip.Prefix // excluded subnets, for addresses beyond the window
	exclCnt uint64

	mu      sync.Mutex
	bs      bitset
	cursor  uint64
	outside map[netip.Addr]struct{} // allocations beyond the window
}

// NewIPPool returns a pool over subnet. Excluded subnets that do not overlap
// subnet are ignored; those that do are never handed out.
func NewIPPool(subnet netip.Prefix, exclude ...netip.Prefix) (*IPPool, error) {
	s, ok := normalize(subnet)
	if !ok {
		return nil, fmt.Errorf("IP pool %v: %w: not a valid subnet", subnet, ErrInvalid)
	}
	size := prefixSize(s)
	p := &IPPool{subnet: s, bs: newBitset(size)}
	// reserved: network, gateway, management; IPv4 broadcast.
	p.excl = append(p.excl, offRange{0, min(2, size-1)})
	if s.Addr().Is4() && s.Bits() <= 30 {
		p.excl = append(p.excl, offRange{size - 1, size - 1})
	}
	for _, raw := range exclude {
		e, ok := normalize(raw)
		if !ok {
			return nil, fmt.Errorf("IP pool %s: exclude subnet %v: %w: not a valid prefix", s, raw, ErrInvalid)
		}
		if !e.Overlaps(s) {
			continue
		}
		if e.Bits() < s.Bits() {
			e = s // the exclusion covers the whole subnet
		}
		p.exclP = append(p.exclP, e)
		lo, fits := offsetOf(s, e.Addr())
		if !fits || lo >= size {
			continue // entirely beyond the window
		}
		n := prefixSize(e)
		hi := size - 1
		if n-1 < size-1-lo {
			hi = lo + n - 1
		}
		p.excl = append(p.excl, offRange{lo, hi})
	}
	slices.SortFunc(p.excl, func(a, b offRange) int { return cmp.Compare(a.lo, b.lo) })
	merged := p.excl[:0]
	for _, r := range p.excl {
		if n := len(merged); n > 0 && (r.lo <= merged[n-1].hi || r.lo == merged[n-1].hi+1) {
			merged[n-1].hi = max(merged[n-1].hi, r.hi)
			continue
		}
		merged = append(merged, r)
	}
	p.excl = merged
	for _, r := range p.excl {
		n := r.hi - r.lo + 1
		if n == 0 || p.exclCnt+n < p.exclCnt { // saturate
			p.exclCnt = math.MaxUint64
			break
		}
		p.exclCnt += n
	}
	p.cursor = min(3, size-1)
	return p, nil
}

// Subnet returns the pool's subnet (masked).
func (p *IPPool) Subnet() netip.Prefix { return p.subnet }

// excluded returns the reserved or excluded range holding off, if any.
func (p *IPPool) excluded(off uint64) (offRange, bool) {
	i := sort.Search(len(p.excl), func(i int) bool { return p.excl[i].hi >= off })
	if i < len(p.excl) && p.excl[i].lo <= off {
		return p.excl[i], true
	}
	return offRange{}, false
}

// find returns the first free, non-excluded offset in [from, end).
func (p *IPPool) find(from, end uint64) (uint64, bool) {
	for from < end {
		off, ok := p.bs.nextClear(from, end)
		if !ok {
			return 0, false
		}
		r, ex := p.excluded(off)
		if !ex {
			return off, true
		}
		if r.hi == math.MaxUint64 {
			return 0, false
		}
		from = r.hi + 1
	}
	return 0, false
}

// Allocate hands out the next free address. It fails with ErrExhausted when
// none is left.
func (p *IPPool) Allocate() (netip.Addr, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.exclCnt == math.MaxUint64 || p.bs.count >= p.bs.size-min(p.exclCnt, p.bs.size) {
		return netip.Addr{}, fmt.Errorf("IP pool %s: %w: no free address", p.subnet, ErrExhausted)
	}
	off, ok := p.find(p.cursor, p.bs.size)
	if !ok {
		off, ok = p.find(0, p.cursor)
	}
	if !ok {
		return netip.Addr{}, fmt.Errorf("IP pool %s: %w: no free address", p.subnet, ErrExhausted)
	}
	p.bs.set(off)
	p.cursor = off + 1
	if p.cursor >= p.bs.size {
		p.cursor = 0
	}
	return addrAt(p.subnet, off), nil
}

// locate returns ip's offset and whether it lies in the window; it fails
// when ip is not in the subnet.
func (p *IPPool) locate(ip netip.Addr) (uint64, bool, error) {
	if !ip.IsValid() || !p.subnet.Contains(ip) {
		return 0, false, fmt.Errorf("IP pool %s: address %v: %w: not in the subnet", p.subnet, ip, ErrOutOfRange)
	}
	off, fits := offsetOf(p.subnet, ip)
	return off, fits && off < p.bs.size, nil
}

func (p *IPPool) isExcluded(ip netip.Addr, off uint64, inWindow bool) bool {
	if inWindow {
		_, ex := p.excluded(off)
		return ex
	}
	for _, e := range p.exclP {
		if e.Contains(ip) {
			return true
		}
	}
	return false
}

// AllocateIP allocates a specific address, as when restoring the addresses
// of existing pods after a restart or honouring a requested static IP. It
// fails with ErrConflict when ip is already allocated, reserved or excluded,
// and with ErrOutOfRange when ip is not in the subnet.
func (p *IPPool) AllocateIP(ip netip.Addr) error {
	off, inWindow, err := p.locate(ip)
	if err != nil {
		return err
	}
	if p.isExcluded(ip, off, inWindow) {
		return fmt.Errorf("IP pool %s: address %s: %w: reserved or excluded", p.subnet, ip, ErrConflict)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	fresh := false
	if inWindow {
		fresh = p.bs.set(off)
	} else if _, dup := p.outside[ip]; !dup {
		if p.outside == nil {
			p.outside = make(map[netip.Addr]struct{})
		}
		p.outside[ip] = struct{}{}
		fresh = true
	}
	if !fresh {
		return fmt.Errorf("IP pool %s: address %s: %w: already allocated", p.subnet, ip, ErrConflict)
	}
	return nil
}

// Release returns ip to the pool. Releasing a free address is a no-op; an
// address outside the subnet is an ErrOutOfRange error.
func (p *IPPool) Release(ip netip.Addr) error {
	off, inWindow, err := p.locate(ip)
	if err != nil {
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if inWindow {
		p.bs.clear(off, p.cursor)
	} else {
		delete(p.outside, ip)
	}
	return nil
}

// IsAllocated reports whether ip is currently allocated from the pool.
func (p *IPPool) IsAllocated(ip netip.Addr) bool {
	off, inWindow, err := p.locate(ip)
	if err != nil {
		return false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if inWindow {
		return p.bs.test(off)
	}
	_, ok := p.outside[ip]
	return ok
}

// Stats returns the pool's size and occupation.
func (p *IPPool) Stats() PoolStats {
	p.mu.Lock()
	defer p.mu.Unlock()
	st := PoolStats{Size: prefixSize(p.subnet), Allocated: p.bs.count + uint64(len(p.outside))}
	st.Usable = p.bs.size - min(p.exclCnt, p.bs.size)
	return st
}

// Allocated returns the allocated addresses in increasing order.
func (p *IPPool) Allocated() []netip.Addr {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]netip.Addr, 0, p.bs.count+uint64(len(p.outside)))
	p.bs.forEach(func(off uint64) { out = append(out, addrAt(p.subnet, off)) })
	far := make([]netip.Addr, 0, len(p.outside))
	for a := range p.outside {
		far = append(far, a)
	}
	slices.SortFunc(far, netip.Addr.Compare)
	return append(out, far...)
}
