package ipam

import (
	"crypto/sha256"
	"fmt"
	"net"
	"net/netip"
)

// Default subnets and IDs (DESIGN "Addresses and IDs").
const (
	// DefaultNetworkJoinSubnetV4 is the default network's IPv4 join subnet; a
	// user-defined network's join subnet must not overlap it.
	DefaultNetworkJoinSubnetV4 = "100.64.0.0/16"
	// DefaultNetworkJoinSubnetV6 is the default network's IPv6 join subnet.
	DefaultNetworkJoinSubnetV6 = "fd98::/64"

	// MaxNetworkID is the largest network ID; 0 is the default network. The
	// reference allocates IDs 0..MaxNetworks-1 (MaxNetworks = 4096).
	MaxNetworkID = 4095
	// MinNodeID is the first node ID handed out; 0 and 1 are reserved.
	MinNodeID = 2
	// MaxNodeID is the largest node ID.
	MaxNodeID = 5000
	// MaxLSPTunnelKey is the largest tunnel key OVN accepts on a logical
	// switch port.
	MaxLSPTunnelKey = 32767

	// BaseTransitSwitchTunnelKey is the tunnel key of the Layer3 transit
	// switch of network ID 0; network n uses BaseTransitSwitchTunnelKey+n.
	BaseTransitSwitchTunnelKey = 16711683
	// DynamicTunnelKeyFirst and DynamicTunnelKeyLast bound the tunnel keys
	// handed out dynamically (Layer2 transit routers, connect routers): the
	// first key after those preserved for network IDs 0..MaxNetworkID,
	// 16711683+4096 = 16715779 as in the reference, 61437 keys in all.
	DynamicTunnelKeyFirst = BaseTransitSwitchTunnelKey + MaxNetworkID + 1
	DynamicTunnelKeyLast  = 1<<24 - 1
)

// Conntrack zones and the br-ex flow cookie.
const (
	ConntrackZone      = 64000
	HostMasqueradeZone = 64001
	OVNMasqueradeZone  = 64002
	HostNodePortZone   = 64003
	ReassemblyZone     = 64004

	BrExCookie = 0xdeff105
)

// DefaultJoinSubnets returns the default join subnets of a user-defined
// network: 100.65.0.0/16 and fd99::/64.
func DefaultJoinSubnets() []netip.Prefix {
	return []netip.Prefix{netip.MustParsePrefix("100.65.0.0/16"), netip.MustParsePrefix("fd99::/64")}
}

// DefaultNetworkJoinSubnets returns the default network's join subnets,
// 100.64.0.0/16 and fd98::/64.
func DefaultNetworkJoinSubnets() []netip.Prefix {
	return []netip.Prefix{netip.MustParsePrefix(DefaultNetworkJoinSubnetV4), netip.MustParsePrefix(DefaultNetworkJoinSubnetV6)}
}

// DefaultTransitSubnets returns the default transit subnets: 100.88.0.0/16
// and fd97::/64.
func DefaultTransitSubnets() []netip.Prefix {
	return []netip.Prefix{netip.MustParsePrefix("100.88.0.0/16"), netip.MustParsePrefix("fd97::/64")}
}

// transitRanges are where a transit subnet may move to when the default
// overlaps a network's subnets: the 100.64.0.0/10 shared address space and
// fd97::/56 (256 /64s).
var transitRanges = [2]netip.Prefix{netip.MustParsePrefix("100.64.0.0/10"), netip.MustParsePrefix("fd97::/56")}

// TransitSubnetAvoiding returns the default transit subnet of the family
// (DefaultTransitSubnets), or when it overlaps one of avoid the next free
// prefix of its length in the family's transit range (SubnetAvoiding:
// 100.89.0.0/16, 100.90.0.0/16, ... wrapping round to 100.64.0.0/16 inside
// 100.64.0.0/10; the next /64 inside fd97::/56). It fails with ErrExhausted
// when every candidate overlaps.
func TransitSubnetAvoiding(is4 bool, avoid []netip.Prefix) (netip.Prefix, error) {
	i := 1
	if is4 {
		i = 0
	}
	return SubnetAvoiding(DefaultTransitSubnets()[i], transitRanges[i], avoid)
}

// DefaultMasqueradeSubnets returns the default masquerade subnets of a
// cluster with user-defined networks: 169.254.0.0/17 and fd69::/112.
func DefaultMasqueradeSubnets() []netip.Prefix {
	return []netip.Prefix{netip.MustParsePrefix("169.254.0.0/17"), netip.MustParsePrefix("fd69::/112")}
}

// hostAt returns the interface address at offset off of subnet. It refuses
// offsets outside the subnet and the IPv4 broadcast address; what names the
// address in errors.
func hostAt(subnet netip.Prefix, off uint64, what string) (netip.Prefix, error) {
	p, ok := normalize(subnet)
	if !ok {
		return netip.Prefix{}, fmt.Errorf("%s: subnet %v: %w: not a valid prefix", what, subnet, ErrInvalid)
	}
	if !offsetFits(p, off) || isBroadcast4(p, off) {
		return netip.Prefix{}, fmt.Errorf("%s: subnet %s has no usable address at offset %d: %w", what, p, off, ErrOutOfRange)
	}
	return netip.PrefixFrom(addrAt(p, off), p.Bits()), nil
}

func checkNodeID(nodeID, min int, what string) error {
	if nodeID < min || nodeID > MaxNodeID {
		return fmt.Errorf("%s: node ID %d not in [%d, %d]: %w", what, nodeID, min, MaxNodeID, ErrOutOfRange)
	}
	return nil
}

func checkNetworkID(networkID, min int, what string) error {
	if networkID < min || networkID > MaxNetworkID {
		return fmt.Errorf("%s: network ID %d not in [%d, %d]: %w", what, networkID, min, MaxNetworkID, ErrOutOfRange)
	}
	return nil
}

// GatewayIP returns the first host address of subnet as an interface
// address (10.128.1.0/24 -> 10.128.1.1/24).
func GatewayIP(subnet netip.Prefix) (netip.Prefix, error) {
	return hostAt(subnet, 1, "gateway IP")
}

// ManagementIP returns the second host address of subnet as an interface
// address (10.128.1.0/24 -> 10.128.1.2/24).
func ManagementIP(subnet netip.Prefix) (netip.Prefix, error) {
	return hostAt(subnet, 2, "management IP")
}

// JoinRouterIP returns the cluster router's join port address, join+1
// (100.65.0.0/16 -> 100.65.0.1/16).
func JoinRouterIP(join netip.Prefix) (netip.Prefix, error) {
	return hostAt(join, 1, "join router IP")
}

// JoinGatewayRouterIP returns the join address of the gateway router of the
// node with nodeID, join+nodeID (node 2 -> 100.65.0.2/16). Node ID 1 would
// collide with JoinRouterIP and is refused.
func JoinGatewayRouterIP(join netip.Prefix, nodeID int) (netip.Prefix, error) {
	if err := checkNodeID(nodeID, MinNodeID, "join gateway router IP"); err != nil {
		return netip.Prefix{}, err
	}
	return hostAt(join, uint64(nodeID), "join gateway router IP")
}

// TransitSwitchIP returns the Layer3 transit switch port address of the node
// with nodeID, transit+nodeID (node 2 -> 100.88.0.2/16).
func TransitSwitchIP(transit netip.Prefix, nodeID int) (netip.Prefix, error) {
	if err := checkNodeID(nodeID, 1, "transit switch IP"); err != nil {
		return netip.Prefix{}, err
	}
	return hostAt(transit, uint64(nodeID), "transit switch IP")
}

// TransitRouterPeerSubnet returns the point-to-point subnet a Layer2 transit
// router shares with the gateway router of the node with nodeID: for IPv4 the
// /30 at index nodeID-1 (node 2 -> 100.88.0.4/30), for IPv6 the /127 at
// offset 2*nodeID (node 4 -> fd97::8/127).
func TransitRouterPeerSubnet(transit netip.Prefix, nodeID int) (netip.Prefix, error) {
	const what = "transit router peer subnet"
	p, ok := normalize(transit)
	if !ok {
		return netip.Prefix{}, fmt.Errorf("%s: transit subnet %v: %w: not a valid prefix", what, transit, ErrInvalid)
	}
	if err := checkNodeID(nodeID, 1, what); err != nil {
		return netip.Prefix{}, err
	}
	bits, base := 127, uint64(2*nodeID)
	if p.Addr().Is4() {
		bits, base = 30, uint64(4*(nodeID-1))
	}
	if p.Bits() > bits {
		return netip.Prefix{}, fmt.Errorf("%s: transit subnet %s is longer than /%d: %w", what, p, bits, ErrInvalid)
	}
	last := base + uint64(1)<<(p.Addr().BitLen()-bits) - 1
	if !offsetFits(p, last) {
		return netip.Prefix{}, fmt.Errorf("%s: transit subnet %s has no /%d for node ID %d: %w", what, p, bits, nodeID, ErrOutOfRange)
	}
	return netip.PrefixFrom(addrAt(p, base), bits), nil
}

// TransitRouterPeerIPs returns the interface addresses of the Layer2 transit
// router port (router) and the gateway router port (gatewayRouter) of the node
// with nodeID: the first and second usable addresses of
// TransitRouterPeerSubnet (node 2 -> 100.88.0.5/30, 100.88.0.6/30; node 4 ->
// fd97::8/127, fd97::9/127).
func TransitRouterPeerIPs(transit netip.Prefix, nodeID int) (router, gatewayRouter netip.Prefix, err error) {
	s, err := TransitRouterPeerSubnet(transit, nodeID)
	if err != nil {
		return netip.Prefix{}, netip.Prefix{}, err
	}
	first := uint64(0)
	if s.Addr().Is4() {
		first = 1 // skip the /30's network address
	}
	return netip.PrefixFrom(addrAt(s, first), s.Bits()), netip.PrefixFrom(addrAt(s, first+1), s.Bits()), nil
}

// TransitRouterPeerPair returns the reference implementation's addresses of
// the Layer2 transit router port (router) and the gateway router port
// (gatewayRouter) of the node with nodeID: the /31 (IPv4) or /127 (IPv6) at
// offset 2*nodeID of transit, the transit router on the first address
// (node 2 -> 100.88.0.4/31, 100.88.0.5/31; node 4 -> fd97::8/127,
// fd97::9/127). TransitRouterPeerIPs is seed 004's.
func TransitRouterPeerPair(transit netip.Prefix, nodeID int) (router, gatewayRouter netip.Prefix, err error) {
	const what = "transit router peer pair"
	p, ok := normalize(transit)
	if !ok {
		return netip.Prefix{}, netip.Prefix{}, fmt.Errorf("%s: transit subnet %v: %w: not a valid prefix", what, transit, ErrInvalid)
	}
	if err := checkNodeID(nodeID, 1, what); err != nil {
		return netip.Prefix{}, netip.Prefix{}, err
	}
	// A connect block's pair (ConnectNodeIPs), short of the broadcast
	// address.
	router, gatewayRouter, err = ConnectNodeIPs(p, nodeID)
	if err != nil || isBroadcast4(p, uint64(2*nodeID+1)) {
		return netip.Prefix{}, netip.Prefix{}, fmt.Errorf("%s: transit subnet %s has no pair for node ID %d: %w", what, p, nodeID, ErrOutOfRange)
	}
	return router, gatewayRouter, nil
}

// Masquerade holds the fixed per-node masquerade addresses of one family:
// base+1 OVN, +2 host, +3 ETP=local, +4 dummy next hop, +5 service hairpin
// (+6..+9 are reserved).
type Masquerade struct {
	Subnet         netip.Prefix
	OVN            netip.Addr
	Host           netip.Addr
	ETPLocal       netip.Addr
	DummyNextHop   netip.Addr
	ServiceHairpin netip.Addr
}

// masqueradeReserved is the last fixed (reserved) masquerade offset.
const masqueradeReserved = 9

// MasqueradeIPs returns the fixed masquerade addresses of subnet
// (169.254.169.0/29 -> OVN .1, host .2, ETP-local .3, ...).
func MasqueradeIPs(subnet netip.Prefix) (Masquerade, error) {
	var addrs [5]netip.Addr
	for i := range addrs {
		a, err := hostAt(subnet, uint64(i+1), "masquerade IPs")
		if err != nil {
			return Masquerade{}, err
		}
		addrs[i] = a.Addr()
	}
	return Masquerade{
		Subnet: subnet.Masked(), OVN: addrs[0], Host: addrs[1], ETPLocal: addrs[2],
		DummyNextHop: addrs[3], ServiceHairpin: addrs[4],
	}, nil
}

// NetworkMasqueradeIPs returns the two masquerade addresses of network ID n
// (n >= 1): the gateway router's base+10+2n-1 and the management port's
// base+10+2n (169.254.0.0/17, n=1 -> 169.254.0.11, 169.254.0.12).
func NetworkMasqueradeIPs(subnet netip.Prefix, networkID int) (gatewayRouter, managementPort netip.Addr, err error) {
	const what = "network masquerade IPs"
	if err := checkNetworkID(networkID, 1, what); err != nil {
		return netip.Addr{}, netip.Addr{}, err
	}
	off := uint64(masqueradeReserved + 1 + 2*networkID)
	gr, err := hostAt(subnet, off-1, what)
	if err != nil {
		return netip.Addr{}, netip.Addr{}, err
	}
	mp, err := hostAt(subnet, off, what)
	if err != nil {
		return netip.Addr{}, netip.Addr{}, err
	}
	return gr.Addr(), mp.Addr(), nil
}

// SmallestMasqueradePrefix returns the longest prefix length of the given
// family whose subnet holds the fixed masquerade addresses and the addresses
// of every network ID up to maxNetworkID (IPv4 4095 -> 18, IPv6 4095 -> 114).
func SmallestMasqueradePrefix(is4 bool, maxNetworkID int) int {
	need := uint64(masqueradeReserved + 1 + 2*max(maxNetworkID, 0) + 1) // offsets 0..last
	bitLen := 128
	if is4 {
		bitLen = 32
		need++ // the broadcast address
	}
	return bitLen - log2ceil(need)
}

// CheckMasqueradeCapacity reports whether subnet holds the masquerade
// addresses of all network IDs up to maxNetworkID. The error wraps
// ErrExhausted and names the smallest prefix that would fit.
func CheckMasqueradeCapacity(subnet netip.Prefix, maxNetworkID int) error {
	p, ok := normalize(subnet)
	if !ok {
		return fmt.Errorf("masquerade subnet %v: %w: not a valid prefix", subnet, ErrInvalid)
	}
	if err := checkNetworkID(maxNetworkID, 0, "masquerade subnet "+p.String()); err != nil {
		return err
	}
	want := SmallestMasqueradePrefix(p.Addr().Is4(), maxNetworkID)
	if p.Bits() > want {
		return fmt.Errorf("masquerade subnet %s is too small for network IDs up to %d: needs /%d or shorter: %w",
			p, maxNetworkID, want, ErrExhausted)
	}
	return nil
}

// NetworkCTMark returns the conntrack mark of network ID n: 3+n.
func NetworkCTMark(networkID int) uint32 { return uint32(3 + networkID) }

// NetworkPktMark returns the packet mark of network ID n: 4096+n.
func NetworkPktMark(networkID int) uint32 { return uint32(4096 + networkID) }

// VRFTable returns the VRF routing table of network ID n: 1000+n.
func VRFTable(networkID int) uint32 { return uint32(1000 + networkID) }

// Layer3TransitSwitchTunnelKey returns the tunnel key of the Layer3 transit
// switch of network ID n: 16711683+n.
func Layer3TransitSwitchTunnelKey(networkID int) int { return BaseTransitSwitchTunnelKey + networkID }

// MACFromIP returns the MAC OVN-Kubernetes derives from an address
// (IPAddrToHWAddr): for IPv4 (and IPv4-mapped IPv6), 0a:58 followed by the
// four bytes (100.65.0.2 -> 0a:58:64:41:00:02); for IPv6, 0a:58 followed by
// the first four bytes of the SHA-256 of the address's text (fd01::1234 ->
// 0a:58:11:37:a6:26). A zone is ignored. It returns nil for an invalid
// address.
func MACFromIP(ip netip.Addr) net.HardwareAddr {
	if !ip.IsValid() {
		return nil
	}
	b := macBytes(ip)
	return net.HardwareAddr(b[:])
}

// AppendMAC appends MACFromIP(ip) in its String form (lowercase, colon
// separated) to b without allocating beyond b's growth; an invalid address
// appends nothing.
func AppendMAC(b []byte, ip netip.Addr) []byte {
	if !ip.IsValid() {
		return b
	}
	const hex = "0123456789abcdef"
	for i, x := range macBytes(ip) {
		if i > 0 {
			b = append(b, ':')
		}
		b = append(b, hex[x>>4], hex[x&15])
	}
	return b
}

func macBytes(ip netip.Addr) [6]byte {
	if ip = ip.Unmap(); ip.Is4() {
		a := ip.As4()
		return [6]byte{0x0a, 0x58, a[0], a[1], a[2], a[3]}
	}
	var text [64]byte // net.IP.String's spelling: no zone
	h := sha256.Sum256(ip.WithZone("").AppendTo(text[:0]))
	return [6]byte{0x0a, 0x58, h[0], h[1], h[2], h[3]}
}

// LinkLocalFromMAC returns the IPv6 link-local address derived from a 48-bit
// MAC by modified EUI-64 (0a:58:cb:cb:00:01 -> fe80::858:cbff:fecb:1). It
// returns the zero Addr when mac is not 6 bytes long.
func LinkLocalFromMAC(mac net.HardwareAddr) netip.Addr {
	if len(mac) != 6 {
		return netip.Addr{}
	}
	return netip.AddrFrom16([16]byte{
		0xfe, 0x80, 0, 0, 0, 0, 0, 0,
		mac[0] ^ 0x02, mac[1], mac[2], 0xff, 0xfe, mac[3], mac[4], mac[5],
	})
}

// SubnetAvoiding returns want when it overlaps none of avoid, else the first
// prefix of want's length above it inside within (wrapping around to the
// start of within) that overlaps none of them: the way to move a transit or
// join subnet off a network's own subnets without leaving the range it
// belongs to. The zero within means the whole address family. Prefixes of
// the other family in avoid are ignored. It fails with ErrInvalid when want
// is not inside within, and with ErrExhausted when no such prefix exists.
func SubnetAvoiding(want, within netip.Prefix, avoid []netip.Prefix) (netip.Prefix, error) {
	w, ok := normalize(want)
	if !ok {
		return netip.Prefix{}, fmt.Errorf("subnet %v: %w: not a valid prefix", want, ErrInvalid)
	}
	is4 := w.Addr().Is4()
	if !within.IsValid() {
		within = netip.PrefixFrom(netip.IPv6Unspecified(), 0)
		if is4 {
			within = netip.PrefixFrom(netip.IPv4Unspecified(), 0)
		}
	}
	within = within.Masked()
	if within.Addr().Is4() != is4 || within.Bits() > w.Bits() || !within.Contains(w.Addr()) {
		return netip.Prefix{}, fmt.Errorf("subnet %s: %w: not inside %s", w, ErrInvalid, within)
	}
	var av []netip.Prefix
	for _, a := range avoid {
		if a, ok := normalize(a); ok && a.Addr().Is4() == is4 {
			av = append(av, a)
		}
	}
	start := u128From(w.Addr())
	cur, wrapped := start, false
	// Every step jumps past one prefix of avoid, so two passes are enough.
	for range 2*len(av) + 2 {
		c := netip.PrefixFrom(cur.addr(is4), w.Bits())
		var hit netip.Prefix
		for _, a := range av {
			if a.Overlaps(c) && (!hit.IsValid() || a.Bits() < hit.Bits()) {
				hit = a
			}
		}
		if !hit.IsValid() {
			return c, nil
		}
		big := c
		if hit.Bits() < c.Bits() {
			big = hit
		}
		base := u128From(big.Addr())
		next := base.add(u128{lo: 1}.shl(hostBits(big)))
		overflow := next.less(base) || next == (u128{}) || (is4 && next.lo > 1<<32-1) || hostBits(big) == 128
		if overflow || !within.Contains(next.addr(is4)) {
			if wrapped {
				break
			}
			wrapped, next = true, u128From(within.Addr())
		}
		if wrapped && !next.less(start) {
			break
		}
		cur = next
	}
	return netip.Prefix{}, fmt.Errorf("subnet %s: %w: every /%d in %s overlaps %v", w, ErrExhausted, w.Bits(), within, av)
}
