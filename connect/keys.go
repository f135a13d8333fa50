package connect

import (
	"encoding/binary"
	"net/netip"

	"github.com/udnkit/udnkit/ipam"
)

// maxNodesPerBlock is the reference's cap on the node slots of a block in
// the tunnel-key space.
const maxNodesPerBlock = 5000

// slotsPerBlock returns the tunnel-key slots one block takes:
// min(2^(bits-networkPrefix), 5000), as the reference numbers them.
func slotsPerBlock(s ipam.ConnectSubnet) int {
	shift := s.CIDR.Addr().BitLen() - s.NetworkPrefix
	if shift >= 13 {
		return maxNodesPerBlock
	}
	return min(1<<shift, maxNodesPerBlock)
}

// pairsPerBlock returns the point-to-point pairs of one block.
func pairsPerBlock(s ipam.ConnectSubnet) int {
	shift := s.CIDR.Addr().BitLen() - s.NetworkPrefix - 1
	if shift >= 30 {
		return 1 << 30
	}
	return 1 << shift
}

// blockIndex returns the index of block (or of the block holding a Layer2
// pair) inside s.
func blockIndex(s ipam.ConnectSubnet, p netip.Prefix) int {
	shift := s.CIDR.Addr().BitLen() - s.NetworkPrefix
	d := addrDiff(s.CIDR.Addr(), p.Addr())
	return int(d >> uint(shift))
}

// pairIndex returns the index of a /31 (/127) inside its block.
func pairIndex(s ipam.ConnectSubnet, p netip.Prefix) int {
	shift := s.CIDR.Addr().BitLen() - s.NetworkPrefix
	d := addrDiff(s.CIDR.Addr(), p.Addr())
	return int((d & (1<<uint(shift) - 1)) >> 1)
}

// addrDiff returns the low 64 bits of b-a for addresses of one family
// (block and pair indexes of a connect subnet fit in them).
func addrDiff(a, b netip.Addr) uint64 {
	x, y := a.As16(), b.As16()
	return binary.BigEndian.Uint64(y[8:]) - binary.BigEndian.Uint64(x[8:])
}

// portTunnelKey returns the tunnel key of a connect-router port: slot
// index (node ID for Layer3, pair index for Layer2) of the block at
// blockIndex, as the reference numbers them.
func portTunnelKey(s ipam.ConnectSubnet, block, slot int) int {
	return block*slotsPerBlock(s) + slot + 1
}

// maxPortKey returns the largest port tunnel key layer3 Layer3 and layer2
// Layer2 networks on nodes up to maxNodeID would take from s.
func maxPortKey(s ipam.ConnectSubnet, layer3, layer2, maxNodeID int) int {
	pairs := pairsPerBlock(s)
	used := layer3 + (layer2+pairs-1)/pairs
	if used == 0 {
		return 0
	}
	slot := maxNodeID
	if layer2 > 0 {
		slot = max(slot, min(layer2, pairs)-1)
	}
	return portTunnelKey(s, used-1, slot)
}
