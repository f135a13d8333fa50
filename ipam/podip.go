package ipam

import (
	"cmp"
	"fmt"
	"maps"
	"net/netip"
	"slices"
	"sync"
)

// PodIPAllocator allocates pod addresses over one subnet per IP family (a
// single-stack or dual-stack network, or one node's host subnets). Each
// allocation takes one address from every subnet. It is safe for concurrent
// use.
type PodIPAllocator struct {
	pools []*IPPool // in the order the subnets were given
}

// NewPodIPAllocator returns an allocator over subnets, at most one per
// family. Excluded subnets must each overlap one of subnets.
func NewPodIPAllocator(subnets []netip.Prefix, exclude []netip.Prefix) (*PodIPAllocator, error) {
	if len(subnets) == 0 || len(subnets) > 2 {
		return nil, fmt.Errorf("pod IP allocator %v: %w: want one subnet per IP family, got %d", subnets, ErrInvalid, len(subnets))
	}
	a := &PodIPAllocator{}
	for _, s := range subnets {
		p, err := NewIPPool(s, exclude...)
		if err != nil {
			return nil, err
		}
		for _, q := range a.pools {
			if q.subnet.Addr().Is4() == p.subnet.Addr().Is4() {
				return nil, fmt.Errorf("pod IP allocator: subnets %s and %s: %w: two subnets of one IP family", q.subnet, p.subnet, ErrInvalid)
			}
		}
		a.pools = append(a.pools, p)
	}
	for _, e := range exclude {
		if !slices.ContainsFunc(a.pools, func(p *IPPool) bool { return e.IsValid() && e.Overlaps(p.subnet) }) {
			return nil, fmt.Errorf("pod IP allocator %v: exclude subnet %v: %w: not inside any subnet", subnets, e, ErrOutOfRange)
		}
	}
	return a, nil
}

// Subnets returns the allocator's subnets in the order they were given.
func (a *PodIPAllocator) Subnets() []netip.Prefix {
	out := make([]netip.Prefix, len(a.pools))
	for i, p := range a.pools {
		out[i] = p.subnet
	}
	return out
}

// Pools returns the per-family pools, in the order of Subnets.
func (a *PodIPAllocator) Pools() []*IPPool { return slices.Clone(a.pools) }

// Allocate takes the next free address of every subnet and returns them as
// interface addresses (10.128.1.3/24), in the order of Subnets. On failure
// nothing stays allocated.
func (a *PodIPAllocator) Allocate() ([]netip.Prefix, error) {
	out := make([]netip.Prefix, 0, len(a.pools))
	for i, p := range a.pools {
		ip, err := p.Allocate()
		if err != nil {
			for j := range i {
				_ = a.pools[j].Release(out[j].Addr())
			}
			return nil, err
		}
		out = append(out, netip.PrefixFrom(ip, p.subnet.Bits()))
	}
	return out, nil
}

func (a *PodIPAllocator) poolFor(ip netip.Addr) (*IPPool, error) {
	for _, p := range a.pools {
		if p.subnet.Contains(ip) {
			return p, nil
		}
	}
	return nil, fmt.Errorf("pod IP allocator %v: address %v: %w: not in any subnet", a.Subnets(), ip, ErrOutOfRange)
}

// AllocateIPs allocates the given addresses, all or none: a pod's static
// IPs, or on restart the addresses recorded in existing pods' annotations.
// It fails with ErrConflict when one is already allocated, reserved or
// excluded, or when two are given for one subnet.
func (a *PodIPAllocator) AllocateIPs(ips ...netip.Addr) error {
	done := make([]netip.Addr, 0, len(ips))
	var err error
	for _, ip := range ips {
		var p *IPPool
		if p, err = a.poolFor(ip); err != nil {
			break
		}
		if slices.ContainsFunc(done, func(d netip.Addr) bool { return p.subnet.Contains(d) }) {
			err = fmt.Errorf("pod IP allocator: subnet %s: %w: more than one address requested (%v)", p.subnet, ErrConflict, ips)
			break
		}
		if err = p.AllocateIP(ip); err != nil {
			break
		}
		done = append(done, ip)
	}
	if err != nil {
		for _, d := range done {
			_ = a.Release(d)
		}
		return err
	}
	return nil
}

// Release returns addresses to their pools; releasing a free address is a
// no-op.
func (a *PodIPAllocator) Release(ips ...netip.Addr) error {
	for _, ip := range ips {
		p, err := a.poolFor(ip)
		if err != nil {
			return err
		}
		if err := p.Release(ip); err != nil {
			return err
		}
	}
	return nil
}

// IsAllocated reports whether ip is allocated in one of the subnets.
func (a *PodIPAllocator) IsAllocated(ip netip.Addr) bool {
	p, err := a.poolFor(ip)
	return err == nil && p.IsAllocated(ip)
}

// ClaimKey identifies an IPAMClaim: its namespace and name.
type ClaimKey struct{ Namespace, Name string }

// String returns "namespace/name".
func (k ClaimKey) String() string { return k.Namespace + "/" + k.Name }

// ClaimAllocator gives persistent addresses (ipam.lifecycle: Persistent) to
// the interfaces of one network: the addresses are keyed by an IPAMClaim and
// stay allocated while pods come and go (pod deletion, restart, VM
// migration) until the claim itself is deleted and Release is called. It is
// safe for concurrent use.
type ClaimAllocator struct {
	network string
	ips     *PodIPAllocator

	mu     sync.Mutex
	claims map[ClaimKey][]netip.Prefix
}

// NewClaimAllocator returns a claim allocator for the network named network
// (the IPAMClaim spec.network value) drawing from ips. ips may be shared with
// non-persistent allocations of the same network.
func NewClaimAllocator(network string, ips *PodIPAllocator) *ClaimAllocator {
	return &ClaimAllocator{network: network, ips: ips, claims: make(map[ClaimKey][]netip.Prefix)}
}

// Allocate returns the claim's addresses, allocating them on first use. A
// pod that reuses a claim (restart, migration) gets the same addresses.
func (c *ClaimAllocator) Allocate(key ClaimKey) ([]netip.Prefix, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if got, ok := c.claims[key]; ok {
		return slices.Clone(got), nil
	}
	got, err := c.ips.Allocate()
	if err != nil {
		return nil, fmt.Errorf("network %q: IPAM claim %s: %w", c.network, key, err)
	}
	c.claims[key] = got
	return slices.Clone(got), nil
}

// RecordedClaim is what an IPAMClaim object records of its addresses: its
// namespace and name, spec.network and status.ips. netconf.RecordedIPAMClaim
// reads one from the Kubernetes object, so that ipam needs no API types.
type RecordedClaim struct {
	Key     ClaimKey
	Network string
	// IPs are the status.ips values: interface addresses ("10.0.0.5/24") or
	// bare addresses.
	IPs []string
}

// Restore re-registers the addresses recorded in an existing claim's status
// (after a restart). A claim without addresses is a no-op; restoring the same
// claim twice is harmless. It fails with ErrInvalid when the claim belongs to
// another network or holds an unparsable address, and with ErrConflict when
// an address is taken by someone else.
func (c *ClaimAllocator) Restore(claim RecordedClaim) ([]netip.Prefix, error) {
	key := claim.Key
	if claim.Network != c.network {
		return nil, fmt.Errorf("IPAM claim %s: spec.network %q: %w: allocator serves network %q", key, claim.Network, ErrInvalid, c.network)
	}
	addrs := make([]netip.Prefix, 0, len(claim.IPs))
	ips := make([]netip.Addr, 0, len(claim.IPs))
	for i, s := range claim.IPs {
		p, err := netip.ParsePrefix(s)
		if err != nil {
			a, aerr := netip.ParseAddr(s)
			if aerr != nil {
				return nil, fmt.Errorf("IPAM claim %s: status.ips[%d] %q: %w: %v", key, i, s, ErrInvalid, err)
			}
			p = netip.PrefixFrom(a, a.BitLen())
		}
		ips = append(ips, p.Addr())
		addrs = append(addrs, p)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if got, ok := c.claims[key]; ok {
		if slices.Equal(prefixAddrs(got), ips) {
			return slices.Clone(got), nil
		}
		return nil, fmt.Errorf("IPAM claim %s: status.ips %v: %w: claim already holds %v", key, claim.IPs, ErrConflict, got)
	}
	if len(ips) == 0 {
		return nil, nil
	}
	if err := c.ips.AllocateIPs(ips...); err != nil {
		return nil, fmt.Errorf("network %q: IPAM claim %s: status.ips: %w", c.network, key, err)
	}
	// Normalise to interface addresses of the allocator's subnets.
	for i, a := range ips {
		p, _ := c.ips.poolFor(a)
		addrs[i] = netip.PrefixFrom(a, p.subnet.Bits())
	}
	c.claims[key] = addrs
	return slices.Clone(addrs), nil
}

// Lookup returns the claim's addresses, if it holds any.
func (c *ClaimAllocator) Lookup(key ClaimKey) ([]netip.Prefix, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	got, ok := c.claims[key]
	return slices.Clone(got), ok
}

// Release frees the claim's addresses; call it when the IPAMClaim is
// deleted, not when a pod using it goes away. Releasing an unknown claim is a
// no-op.
func (c *ClaimAllocator) Release(key ClaimKey) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	got, ok := c.claims[key]
	if !ok {
		return nil
	}
	if err := c.ips.Release(prefixAddrs(got)...); err != nil {
		return err
	}
	delete(c.claims, key)
	return nil
}

// Claims returns the keys of all claims holding addresses, sorted.
func (c *ClaimAllocator) Claims() []ClaimKey {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.SortedFunc(maps.Keys(c.claims), func(a, b ClaimKey) int {
		return cmp.Or(cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name))
	})
}

func prefixAddrs(ps []netip.Prefix) []netip.Addr {
	out := make([]netip.Addr, len(ps))
	for i, p := range ps {
		out[i] = p.Addr()
	}
	return out
}
