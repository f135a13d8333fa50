package ipam

import (
	"fmt"
	"maps"
	"math"
	"net/netip"
	"slices"
	"sync"
)

// ConnectSubnet is one ClusterNetworkConnect connectSubnets entry: CIDR is
// split into /NetworkPrefix blocks, one per connected Layer3 network, while
// Layer2 networks share blocks from which each takes a /31 (IPv4) or /127
// (IPv6).
type ConnectSubnet struct {
	CIDR          netip.Prefix
	NetworkPrefix int
}

// String returns "cidr networkPrefix=N".
func (c ConnectSubnet) String() string {
	return fmt.Sprintf("%s networkPrefix=%d", c.CIDR, c.NetworkPrefix)
}

// Validate checks that CIDR is a network address and that NetworkPrefix is
// longer than CIDR's and leaves room for a point-to-point pair (at most 31 for
// IPv4, 127 for IPv6).
func (c ConnectSubnet) Validate() error {
	p, ok := normalize(c.CIDR)
	if !ok || p != c.CIDR {
		return fmt.Errorf("connect subnet %v: cidr: %w: not a network address", c.CIDR, ErrInvalid)
	}
	if c.NetworkPrefix <= p.Bits() || c.NetworkPrefix > p.Addr().BitLen()-1 {
		return fmt.Errorf("connect subnet %s: networkPrefix %d: %w: must be in [%d, %d]", p, c.NetworkPrefix, ErrInvalid, p.Bits()+1, p.Addr().BitLen()-1)
	}
	return nil
}

// Blocks returns the number of /NetworkPrefix blocks in CIDR, saturated at
// 2^64-1.
func (c ConnectSubnet) Blocks() uint64 {
	return HostSubnetRange{CIDR: c.CIDR, HostPrefix: c.NetworkPrefix}.Capacity()
}

// pairsPerBlock returns the number of point-to-point pairs in one block.
func (c ConnectSubnet) pairsPerBlock() uint64 {
	n := c.CIDR.Addr().BitLen() - c.NetworkPrefix - 1
	if n >= 64 {
		return math.MaxUint64
	}
	return 1 << n
}

// MaxNodeID returns the largest node ID whose point-to-point pair fits in a
// Layer3 network's block (a /24 block: 127).
func (c ConnectSubnet) MaxNodeID() int {
	n := c.pairsPerBlock()
	if n-1 > math.MaxInt32 {
		return math.MaxInt32
	}
	return int(n - 1)
}

// ConnectTopology is how a network attaches to a connect router.
type ConnectTopology int

// Connect topologies.
const (
	// ConnectLayer3: one /networkPrefix block per network, a pair per node.
	ConnectLayer3 ConnectTopology = iota + 1
	// ConnectLayer2: one /31 or /127 per network from a shared block.
	ConnectLayer2
)

// String returns "Layer3" or "Layer2".
func (t ConnectTopology) String() string {
	switch t {
	case ConnectLayer3:
		return "Layer3"
	case ConnectLayer2:
		return "Layer2"
	}
	return fmt.Sprintf("ConnectTopology(%d)", int(t))
}

// ConnectNodeSubnet returns the point-to-point subnet of the node with
// nodeID inside a Layer3 network's connect block: the /31 (or /127) at offset
// nodeID*2 (192.168.2.0/24, node 4 -> 192.168.2.8/31).
func ConnectNodeSubnet(block netip.Prefix, nodeID int) (netip.Prefix, error) {
	b, ok := normalize(block)
	if !ok || b.Bits() >= b.Addr().BitLen() {
		return netip.Prefix{}, fmt.Errorf("connect block %v: %w: not a prefix holding a pair", block, ErrInvalid)
	}
	if nodeID < 0 {
		return netip.Prefix{}, fmt.Errorf("connect block %s: node ID %d: %w: negative", b, nodeID, ErrOutOfRange)
	}
	off := uint64(nodeID) * 2
	if !offsetFits(b, off+1) {
		maxID := (prefixSize(b) / 2) - 1
		return netip.Prefix{}, fmt.Errorf("connect block %s: node ID %d: %w: the block holds node IDs up to %d", b, nodeID, ErrOutOfRange, maxID)
	}
	return netip.PrefixFrom(addrAt(b, off), b.Addr().BitLen()-1), nil
}

// ConnectPeerIPs returns the two interface addresses of a point-to-point
// subnet: the network router side (the first address) and the connect
// router side (the second): 192.168.2.8/31 -> 192.168.2.8/31, 192.168.2.9/31.
func ConnectPeerIPs(p2p netip.Prefix) (networkSide, connectSide netip.Prefix, err error) {
	p, ok := normalize(p2p)
	if !ok || p.Bits() != p.Addr().BitLen()-1 {
		return netip.Prefix{}, netip.Prefix{}, fmt.Errorf("connect point-to-point subnet %v: %w: want a /31 or /127", p2p, ErrInvalid)
	}
	return netip.PrefixFrom(p.Addr(), p.Bits()), netip.PrefixFrom(p.Addr().Next(), p.Bits()), nil
}

// ConnectNodeIPs returns the network-router and connect-router interface
// addresses of the node with nodeID in a Layer3 network's connect block
// (192.168.2.0/24, node 4 -> 192.168.2.8/31 and 192.168.2.9/31).
func ConnectNodeIPs(block netip.Prefix, nodeID int) (networkSide, connectSide netip.Prefix, err error) {
	s, err := ConnectNodeSubnet(block, nodeID)
	if err != nil {
		return netip.Prefix{}, netip.Prefix{}, err
	}
	return ConnectPeerIPs(s)
}

// CheckConnectCapacity reports whether c holds layer3 Layer3 networks and
// layer2 Layer2 networks on nodes with IDs up to maxNodeID. Errors wrap
// ErrExhausted and say what would fit.
func CheckConnectCapacity(c ConnectSubnet, layer3, layer2, maxNodeID int) error {
	if err := c.Validate(); err != nil {
		return err
	}
	if layer3 < 0 || layer2 < 0 || maxNodeID < 0 {
		return fmt.Errorf("connect subnet %s: %w: negative count", c, ErrInvalid)
	}
	if maxNodeID > c.MaxNodeID() {
		want := c.CIDR.Addr().BitLen() - 1 - log2ceil(uint64(maxNodeID)+1)
		return fmt.Errorf("connect subnet %s: a /%d block holds node IDs up to %d, node ID %d needs networkPrefix %d or shorter: %w",
			c.CIDR, c.NetworkPrefix, c.MaxNodeID(), maxNodeID, want, ErrExhausted)
	}
	need := uint64(layer3)
	if layer2 > 0 {
		need += (uint64(layer2) + c.pairsPerBlock() - 1) / c.pairsPerBlock()
	}
	if have := c.Blocks(); need > have {
		want := c.NetworkPrefix - log2ceil(need)
		return fmt.Errorf("connect subnet %s: %d Layer3 and %d Layer2 networks need %d /%d blocks, it holds %d; cidr needs a /%d or shorter: %w",
			c, layer3, layer2, need, c.NetworkPrefix, have, want, ErrExhausted)
	}
	return nil
}

type connectRange struct {
	ConnectSubnet
	blocks hostRange
	l2     map[uint64]*hostRange // shared Layer2 blocks, each split into pairs
}

type connectAlloc struct {
	topo    ConnectTopology
	subnets []netip.Prefix
}

// ConnectSubnetAllocator hands out the connect subnets of one
// ClusterNetworkConnect: a /networkPrefix block per Layer3 network and a /31
// (/127) per Layer2 network, carved from a block shared by Layer2 networks
// until it is full. Blocks are taken lowest first. It is safe for concurrent
// use.
type ConnectSubnetAllocator struct {
	cnc    string
	ranges []*connectRange

	mu    sync.Mutex
	byNet map[int]connectAlloc
}

// NewConnectSubnetAllocator returns an allocator for the ClusterNetworkConnect
// named cnc over its connectSubnets (at most one per family).
func NewConnectSubnetAllocator(cnc string, subnets []ConnectSubnet) (*ConnectSubnetAllocator, error) {
	if len(subnets) == 0 || len(subnets) > 2 {
		return nil, fmt.Errorf("ClusterNetworkConnect %q: connectSubnets: %w: want one or two entries, got %d", cnc, ErrInvalid, len(subnets))
	}
	a := &ConnectSubnetAllocator{cnc: cnc, byNet: make(map[int]connectAlloc)}
	for i, s := range subnets {
		if err := s.Validate(); err != nil {
			return nil, fmt.Errorf("ClusterNetworkConnect %q: connectSubnets[%d]: %w", cnc, i, err)
		}
		for _, r := range a.ranges {
			if r.CIDR.Addr().Is4() == s.CIDR.Addr().Is4() {
				return nil, fmt.Errorf("ClusterNetworkConnect %q: connectSubnets[%d] %s: %w: a second subnet of one IP family", cnc, i, s.CIDR, ErrInvalid)
			}
		}
		a.ranges = append(a.ranges, &connectRange{
			ConnectSubnet: s,
			blocks:        hostRange{HostSubnetRange: HostSubnetRange{CIDR: s.CIDR, HostPrefix: s.NetworkPrefix}, bs: newBitset(s.Blocks())},
			l2:            make(map[uint64]*hostRange),
		})
	}
	return a, nil
}

func (r *connectRange) newL2Block(i uint64) *hostRange {
	blk := r.blocks.subnet(i)
	h := &hostRange{HostSubnetRange: HostSubnetRange{CIDR: blk, HostPrefix: blk.Addr().BitLen() - 1}, bs: newBitset(r.pairsPerBlock())}
	r.l2[i] = h
	return h
}

// undo is one step to roll back.
type undo func()

func (r *connectRange) allocate(topo ConnectTopology) (netip.Prefix, undo, bool) {
	if topo == ConnectLayer2 {
		for _, k := range slices.Sorted(maps.Keys(r.l2)) {
			h := r.l2[k]
			if j, ok := h.bs.nextClear(h.low, h.bs.size); ok {
				h.bs.set(j)
				h.low = j + 1
				return h.subnet(j), func() { r.releasePair(k, j) }, true
			}
		}
	}
	i, ok := r.blocks.bs.nextClear(r.blocks.low, r.blocks.bs.size)
	if !ok {
		return netip.Prefix{}, nil, false
	}
	r.blocks.bs.set(i)
	r.blocks.low = i + 1
	if topo == ConnectLayer3 {
		return r.blocks.subnet(i), func() { r.releaseBlock(i) }, true
	}
	h := r.newL2Block(i)
	h.bs.set(0)
	h.low = 1
	return h.subnet(0), func() { r.releasePair(i, 0) }, true
}

func (r *connectRange) releaseBlock(i uint64) {
	r.blocks.bs.clear(i, 0)
	r.blocks.low = min(r.blocks.low, i)
}

func (r *connectRange) releasePair(block, j uint64) {
	h := r.l2[block]
	if h == nil {
		return
	}
	h.bs.clear(j, 0)
	h.low = min(h.low, j)
	if h.bs.count == 0 {
		delete(r.l2, block)
		r.releaseBlock(block)
	}
}

func (r *connectRange) exhausted(cnc string, networkID int, topo ConnectTopology) error {
	return fmt.Errorf("ClusterNetworkConnect %q: connect subnet %s: %s network ID %d: %w: all %d /%d blocks are taken",
		cnc, r.ConnectSubnet, topo, networkID, ErrExhausted, r.Blocks(), r.NetworkPrefix)
}

// Allocate returns the connect subnets of network networkID, one per family
// in the order of connectSubnets, allocating them on first use: /networkPrefix
// blocks for ConnectLayer3, /31 and /127 for ConnectLayer2.
func (a *ConnectSubnetAllocator) Allocate(networkID int, topo ConnectTopology) ([]netip.Prefix, error) {
	if topo != ConnectLayer3 && topo != ConnectLayer2 {
		return nil, fmt.Errorf("ClusterNetworkConnect %q: network ID %d: topology %s: %w", a.cnc, networkID, topo, ErrInvalid)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if got, ok := a.byNet[networkID]; ok {
		if got.topo != topo {
			return nil, fmt.Errorf("ClusterNetworkConnect %q: network ID %d: %w: holds %s subnets, %s requested", a.cnc, networkID, ErrConflict, got.topo, topo)
		}
		return slices.Clone(got.subnets), nil
	}
	out := make([]netip.Prefix, 0, len(a.ranges))
	var undos []undo
	for _, r := range a.ranges {
		s, u, ok := r.allocate(topo)
		if !ok {
			for _, u := range undos {
				u()
			}
			return nil, r.exhausted(a.cnc, networkID, topo)
		}
		undos = append(undos, u)
		out = append(out, s)
	}
	a.byNet[networkID] = connectAlloc{topo, out}
	return slices.Clone(out), nil
}

// Restore records that network networkID holds subnets, as found in the
// ClusterNetworkConnect's annotation after a restart. It is idempotent; it
// fails with ErrConflict when a subnet overlaps another network's and with
// ErrOutOfRange when it is not a block (Layer3) or a pair (Layer2) of the
// connect subnets.
func (a *ConnectSubnetAllocator) Restore(networkID int, topo ConnectTopology, subnets ...netip.Prefix) error {
	if topo != ConnectLayer3 && topo != ConnectLayer2 {
		return fmt.Errorf("ClusterNetworkConnect %q: network ID %d: topology %s: %w", a.cnc, networkID, topo, ErrInvalid)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if got, ok := a.byNet[networkID]; ok {
		if got.topo == topo && slices.Equal(got.subnets, subnets) {
			return nil
		}
		return fmt.Errorf("ClusterNetworkConnect %q: network ID %d: %w: holds %s %v, restoring %s %v", a.cnc, networkID, ErrConflict, got.topo, got.subnets, topo, subnets)
	}
	var undos []undo
	fail := func(err error) error {
		for i := len(undos) - 1; i >= 0; i-- {
			undos[i]()
		}
		return err
	}
	for i, s := range subnets {
		if slices.ContainsFunc(subnets[:i], func(q netip.Prefix) bool { return q.Addr().Is4() == s.Addr().Is4() }) {
			return fail(fmt.Errorf("ClusterNetworkConnect %q: network ID %d: subnet %v: %w: two subnets of one IP family", a.cnc, networkID, s, ErrInvalid))
		}
		var r *connectRange
		for _, c := range a.ranges {
			if c.CIDR.Addr().Is4() == s.Addr().Is4() && c.CIDR.Contains(s.Addr()) {
				r = c
			}
		}
		if r == nil {
			return fail(fmt.Errorf("ClusterNetworkConnect %q: network ID %d: subnet %v: %w: not inside connectSubnets", a.cnc, networkID, s, ErrOutOfRange))
		}
		u, err := r.restore(topo, s)
		if err != nil {
			return fail(fmt.Errorf("ClusterNetworkConnect %q: network ID %d: %w", a.cnc, networkID, err))
		}
		undos = append(undos, u)
	}
	a.byNet[networkID] = connectAlloc{topo, slices.Clone(subnets)}
	return nil
}

func (r *connectRange) restore(topo ConnectTopology, s netip.Prefix) (undo, error) {
	if topo == ConnectLayer3 {
		i, ok := r.blocks.index(s)
		if !ok {
			return nil, fmt.Errorf("subnet %s: %w: not a /%d block of %s", s, ErrOutOfRange, r.NetworkPrefix, r.CIDR)
		}
		if r.blocks.bs.test(i) {
			return nil, fmt.Errorf("subnet %s: %w: block already taken", s, ErrConflict)
		}
		r.blocks.bs.set(i)
		return func() { r.releaseBlock(i) }, nil
	}
	if s.Bits() != s.Addr().BitLen()-1 || s.Masked() != s {
		return nil, fmt.Errorf("subnet %s: %w: a Layer2 connect subnet is a /31 or /127", s, ErrOutOfRange)
	}
	i := r.blockOf(s)
	h := r.l2[i]
	if h == nil {
		if r.blocks.bs.test(i) {
			return nil, fmt.Errorf("subnet %s: %w: its block is a Layer3 network's", s, ErrConflict)
		}
		r.blocks.bs.set(i)
		h = r.newL2Block(i)
	}
	j, _ := h.index(s)
	if !h.bs.set(j) {
		return nil, fmt.Errorf("subnet %s: %w: already taken", s, ErrConflict)
	}
	return func() { r.releasePair(i, j) }, nil
}

// Release frees the subnets of network networkID; a Layer2 block is freed
// with its last pair. Releasing an unknown network is a no-op.
func (a *ConnectSubnetAllocator) Release(networkID int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	got, ok := a.byNet[networkID]
	if !ok {
		return
	}
	for _, s := range got.subnets {
		for _, r := range a.ranges {
			if r.CIDR.Contains(s.Addr()) {
				r.release(got.topo, s)
			}
		}
	}
	delete(a.byNet, networkID)
}

// release frees subnet s of a network of topology topo, the reverse of
// restore; s must be inside r.
func (r *connectRange) release(topo ConnectTopology, s netip.Prefix) {
	if topo == ConnectLayer3 {
		if i, ok := r.blocks.index(s); ok {
			r.releaseBlock(i)
		}
		return
	}
	i := r.blockOf(s)
	if h := r.l2[i]; h != nil {
		if j, ok := h.index(s); ok {
			r.releasePair(i, j)
		}
	}
}

// blockOf returns the index of the /NetworkPrefix block holding s, which
// must be inside r.
func (r *connectRange) blockOf(s netip.Prefix) uint64 {
	i, _ := r.blocks.index(netip.PrefixFrom(s.Addr(), r.NetworkPrefix).Masked())
	return i
}

// Lookup returns the topology and subnets of network networkID.
func (a *ConnectSubnetAllocator) Lookup(networkID int) (ConnectTopology, []netip.Prefix, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	got, ok := a.byNet[networkID]
	return got.topo, slices.Clone(got.subnets), ok
}

// Networks returns the IDs of the networks holding subnets, sorted.
func (a *ConnectSubnetAllocator) Networks() []int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Sorted(maps.Keys(a.byNet))
}
