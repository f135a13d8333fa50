// Package ipam allocates and derives every address, subnet, ID and tunnel key
// a user-defined network's OVN topology needs.
//
// # Derivations
//
// GatewayIP, ManagementIP, JoinRouterIP, JoinGatewayRouterIP,
// TransitSwitchIP, TransitRouterPeerIPs, MasqueradeIPs, NetworkMasqueradeIPs,
// ConnectNodeIPs, MACFromIP (AppendMAC), LinkLocalFromMAC,
// CheckNetworkTunnelKeys, the marks, zones and tables are pure functions: no
// I/O, no clock, no global state; the same input always gives the same
// output. Interface addresses are a netip.Prefix whose
// Addr is the host address and whose Bits are the containing subnet's length
// (100.65.0.2/16), the form OVN router ports use.
//
// # Allocators
//
// IPPool, PodIPAllocator, ClaimAllocator (persistent IPs keyed by an
// IPAMClaim), HostSubnetAllocator, IDAllocator, TunnelKeyAllocator and
// ConnectSubnetAllocator hold state. Every one of them is safe for concurrent
// use by multiple goroutines and restorable: after a restart, feed it what
// already exists (pod annotations, IPAMClaim status, node annotations,
// database rows) through AllocateIPs / Restore / Reserve before allocating
// anything new. IP pools cost one bit per address of the part of the subnet
// in use, so an IPv6 /64 costs memory in proportion to its allocations.
//
// # Errors
//
// Every error wraps one of ErrExhausted, ErrConflict, ErrOutOfRange or
// ErrInvalid (test with errors.Is) and names the pool, network, node or
// subnet concerned.
//
// # Seeds and the reference implementation
//
// Layer2 transit-router peers follow seed 004's concrete listing: IPv4 uses
// the /30 at index nodeID-1 (node 2: 100.88.0.5 and .6), IPv6 the /127 at
// offset 2*nodeID (node 4: fd97::8 and ::9); the transit router takes the
// first usable address, the gateway router the second. ClusterNetworkConnect
// point-to-point pairs follow seed 001: the network router takes the even
// address, the connect router the odd one.
//
// Where the seeds are silent, IDs and keys are the reference's
// (OVN-Kubernetes, pkg/allocator/id and pkg/networkmanager):
//
//   - Network IDs run 1..4095 (MaxNetworks = 4096 IDs, 0 the default
//     network's); DESIGN.md's "max 4096" is the count, not the last ID.
//   - Dynamic tunnel keys run 16711683+4096 = 16715779 .. 2^24-1 (61437
//     keys), just above network 4095's preserved key 16715778.
//   - IDAllocator (network and node IDs) and TunnelKeyAllocator hand out IDs
//     round-robin (bitmap.NewRoundRobinAllocationMap): the first free ID
//     after the last one handed out, wrapping; Reserve and Release leave
//     that cursor alone, so after a restart (Reserve everything found, then
//     Allocate) allocation resumes from the first free ID, as in the
//     reference. A caller whose masquerade subnet holds fewer network IDs
//     than MaxNetworkID must bound the allocator's range to what it holds
//     (NewIDAllocator("network ID", 1, n)): freed IDs are no longer reused
//     first. One departure: a request that cannot be met fails before it
//     moves the cursor (the reference moves it past the IDs it took and gave
//     back), so a failed allocation has no effect at all; and Reserve of an
//     ID outside the range is ErrOutOfRange (the reference's bitmap takes
//     it silently).
//   - An owner asking TunnelKeyAllocator for more keys than it holds gets the
//     missing ones appended (idsAllocator.AllocateIDs); asking for fewer is
//     ErrConflict, as in the reference.
//   - TunnelKeyAllocator.AllocateForNetwork is the reference's AllocateKeys:
//     a network ID in 0..MaxNetworkID contributes its preserved key
//     16711683+ID as the first key (a primary Layer2 network's switch takes
//     it, its transit router a dynamic key), and Reserve accepts a preserved
//     key first, so networks the reference created are adopted as they are.
//     Allocate still hands out dynamic keys only. Stricter than the
//     reference: a preserved key has one owner at a time (ErrConflict), and
//     a preserved key anywhere but first, or below 16711683, is
//     ErrOutOfRange (the reference drops or mis-indexes it); an owner
//     holding a preserved key cannot restore keys without it. An owner
//     holding only its preserved key may restore dynamic keys whether it got
//     the preserved key from AllocateForNetwork or from Reserve (the
//     reference refuses the second: its ReserveIDs stores an empty list).
//   - MACFromIP is IPAddrToHWAddr (pkg/util/net.go): 0a:58 and the four
//     bytes of an IPv4 address, but for IPv6 0a:58 and the first four bytes
//     of the SHA-256 of the address's text (fd01::1234 -> 0a:58:11:37:a6:26),
//     not its last four bytes.
package ipam
