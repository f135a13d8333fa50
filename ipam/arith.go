package ipam

import (
	"encoding/binary"
	"math"
	"math/bits"
	"net/netip"
)

// u128 is an unsigned 128-bit integer used for address arithmetic of both
// families (an IPv4 address occupies the low 32 bits).
type u128 struct{ hi, lo uint64 }

func u128From(a netip.Addr) u128 {
	if a.Is4() {
		b := a.As4()
		return u128{lo: uint64(binary.BigEndian.Uint32(b[:]))}
	}
	b := a.As16()
	return u128{hi: binary.BigEndian.Uint64(b[:8]), lo: binary.BigEndian.Uint64(b[8:])}
}

func (u u128) addr(is4 bool) netip.Addr {
	if is4 {
		var b [4]byte
		binary.BigEndian.PutUint32(b[:], uint32(u.lo))
		return netip.AddrFrom4(b)
	}
	var b [16]byte
	binary.BigEndian.PutUint64(b[:8], u.hi)
	binary.BigEndian.PutUint64(b[8:], u.lo)
	return netip.AddrFrom16(b)
}

func (u u128) add64(n uint64) u128 {
	lo, c := bits.Add64(u.lo, n, 0)
	return u128{hi: u.hi + c, lo: lo}
}

func (u u128) sub(v u128) u128 {
	lo, b := bits.Sub64(u.lo, v.lo, 0)
	return u128{hi: u.hi - v.hi - b, lo: lo}
}

func (u u128) less(v u128) bool { return u.hi < v.hi || (u.hi == v.hi && u.lo < v.lo) }

// shl returns u << n for n < 128.
func (u u128) shl(n int) u128 {
	switch {
	case n == 0:
		return u
	case n >= 64:
		return u128{hi: u.lo << (n - 64)}
	default:
		return u128{hi: u.hi<<n | u.lo>>(64-n), lo: u.lo << n}
	}
}

// hostBits returns the number of host bits of p (32 or 128 minus its length).
func hostBits(p netip.Prefix) int { return p.Addr().BitLen() - p.Bits() }

// prefixSize returns the number of addresses in p, saturated at MaxUint64.
func prefixSize(p netip.Prefix) uint64 {
	hb := hostBits(p)
	if hb >= 64 {
		return math.MaxUint64
	}
	return 1 << hb
}

// offsetFits reports whether offset off lies inside p.
func offsetFits(p netip.Prefix, off uint64) bool {
	hb := hostBits(p)
	return hb >= 64 || off < 1<<hb
}

// addrAt returns the address at offset off from p's network address. The
// caller has checked offsetFits.
func addrAt(p netip.Prefix, off uint64) netip.Addr {
	return u128From(p.Addr()).add64(off).addr(p.Addr().Is4())
}

// offsetOf returns the offset of a inside p and whether it fits in 64 bits.
// The caller has checked p.Contains(a).
func offsetOf(p netip.Prefix, a netip.Addr) (uint64, bool) {
	d := u128From(a).sub(u128From(p.Addr()))
	return d.lo, d.hi == 0
}

// isBroadcast4 reports whether off is the IPv4 broadcast offset of p (the
// last address of a prefix of length 30 or shorter).
func isBroadcast4(p netip.Prefix, off uint64) bool {
	return p.Addr().Is4() && p.Bits() <= 30 && off == prefixSize(p)-1
}

// normalize validates p and returns it masked; it rejects zones and 4in6.
func normalize(p netip.Prefix) (netip.Prefix, bool) {
	if !p.IsValid() || p.Addr().Zone() != "" || p.Addr().Is4In6() {
		return netip.Prefix{}, false
	}
	return p.Masked(), true
}

// log2ceil returns the smallest k with 1<<k >= n (n >= 1).
func log2ceil(n uint64) int {
	if n <= 1 {
		return 0
	}
	return bits.Len64(n - 1)
}

func (u u128) add(v u128) u128 {
	lo, c := bits.Add64(u.lo, v.lo, 0)
	return u128{hi: u.hi + v.hi + c, lo: lo}
}
