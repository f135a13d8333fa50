package ipam

import (
	"maps"
	"math"
	"math/bits"
	"slices"
)

const (
	chunkShift = 16
	chunkBits  = 1 << chunkShift // bits per lazily allocated chunk (8 KiB)
	chunkWords = chunkBits / 64
	// maxSliceChunks bounds the chunk directory kept as a slice (ranges up to
	// 2^28 bits); larger ranges keep their chunks in a map.
	maxSliceChunks = 1 << 12
)

// chunk is exactly 8 KiB, a Go size class: no allocator slack.
type chunk [chunkWords]uint64

// sparseChunk is a chunk of the map form with its count of set bits.
type sparseChunk struct {
	w chunk
	n uint32
}

// bitset is a set of offsets in [0, size). Memory is one bit per offset of
// the touched part of the range: a range of at most chunkBits is one exact
// slice of words; a larger range allocates 8 KiB chunks on first use (in a
// slice directory up to 2^28 offsets, in a map beyond), so an IPv6 /64 costs
// memory in proportion to what is allocated, not to its size.
//
// bitset is not safe for concurrent use; its owners lock.
type bitset struct {
	size   uint64
	count  uint64
	dense  []uint64
	chunks []*chunk // slice form
	counts []uint32 // set bits per chunk of the slice form
	sparse map[uint64]*sparseChunk
}

func newBitset(size uint64) bitset {
	switch {
	case size <= chunkBits:
		return bitset{size: size, dense: make([]uint64, (size+63)/64)}
	case (size-1)>>chunkShift < maxSliceChunks:
		n := (size-1)>>chunkShift + 1
		return bitset{size: size, chunks: make([]*chunk, n), counts: make([]uint32, n)}
	default:
		return bitset{size: size, sparse: make(map[uint64]*sparseChunk)}
	}
}

// getChunk returns chunk ci and its count of set bits, or nil if the chunk
// was never touched (all clear).
func (b *bitset) getChunk(ci uint64) (*chunk, *uint32) {
	if b.chunks != nil {
		return b.chunks[ci], &b.counts[ci]
	}
	if c := b.sparse[ci]; c != nil {
		return &c.w, &c.n
	}
	return nil, nil
}

func (b *bitset) test(i uint64) bool {
	if b.dense != nil {
		return b.dense[i>>6]&(1<<(i&63)) != 0
	}
	c, _ := b.getChunk(i >> chunkShift)
	return c != nil && c[(i&(chunkBits-1))>>6]&(1<<(i&63)) != 0
}

// set sets bit i and reports whether it was clear.
func (b *bitset) set(i uint64) bool {
	m := uint64(1) << (i & 63)
	if b.dense != nil {
		w := &b.dense[i>>6]
		if *w&m != 0 {
			return false
		}
		*w |= m
		b.count++
		return true
	}
	ci := i >> chunkShift
	c, n := b.getChunk(ci)
	if c == nil {
		if b.chunks != nil {
			c, n = new(chunk), &b.counts[ci]
			b.chunks[ci] = c
		} else {
			sc := new(sparseChunk)
			b.sparse[ci] = sc
			c, n = &sc.w, &sc.n
		}
	}
	w := &c[(i&(chunkBits-1))>>6]
	if *w&m != 0 {
		return false
	}
	*w |= m
	*n++
	b.count++
	return true
}

// clear clears bit i and reports whether it was set. keep names a chunk
// index that is not freed when it empties (the allocation cursor's), to avoid
// churn on alternating allocate and release.
func (b *bitset) clear(i uint64, keep uint64) bool {
	m := uint64(1) << (i & 63)
	if b.dense != nil {
		w := &b.dense[i>>6]
		if *w&m == 0 {
			return false
		}
		*w &^= m
		b.count--
		return true
	}
	ci := i >> chunkShift
	c, n := b.getChunk(ci)
	if c == nil {
		return false
	}
	w := &c[(i&(chunkBits-1))>>6]
	if *w&m == 0 {
		return false
	}
	*w &^= m
	*n--
	b.count--
	if *n == 0 && b.sparse != nil && ci != keep>>chunkShift {
		delete(b.sparse, ci) // only the map form frees chunks: it is the one whose range is unbounded
	}
	return true
}

// nextClear returns the first clear offset in [from, end), end <= size.
func (b *bitset) nextClear(from, end uint64) (uint64, bool) {
	for from < end {
		if b.dense == nil {
			ci := from >> chunkShift
			c, n := b.getChunk(ci)
			if c == nil {
				return from, true
			}
			if *n == chunkBits {
				next := (ci + 1) << chunkShift
				if next == 0 { // wrapped past the top of the range
					return 0, false
				}
				from = next
				continue
			}
			// scan this chunk's words
			wi := (from & (chunkBits - 1)) >> 6
			w := c[wi] | (1<<(from&63) - 1)
			for {
				if w != math.MaxUint64 {
					off := ci<<chunkShift | wi<<6 | uint64(bits.TrailingZeros64(^w))
					return off, off < end
				}
				wi++
				if wi == chunkWords {
					break
				}
				w = c[wi]
			}
			next := (ci + 1) << chunkShift
			if next == 0 {
				return 0, false
			}
			from = next
			continue
		}
		wi := from >> 6
		w := b.dense[wi] | (1<<(from&63) - 1)
		for {
			if w != math.MaxUint64 {
				off := wi<<6 | uint64(bits.TrailingZeros64(^w))
				return off, off < end
			}
			wi++
			if wi >= uint64(len(b.dense)) {
				return 0, false
			}
			w = b.dense[wi]
		}
	}
	return 0, false
}

// forEach calls f for every set offset in increasing order.
func (b *bitset) forEach(f func(uint64)) {
	emit := func(base uint64, words []uint64) {
		for wi, w := range words {
			for w != 0 {
				t := bits.TrailingZeros64(w)
				f(base + uint64(wi)<<6 + uint64(t))
				w &= w - 1
			}
		}
	}
	switch {
	case b.dense != nil:
		emit(0, b.dense)
	case b.chunks != nil:
		for ci, c := range b.chunks {
			if c != nil {
				emit(uint64(ci)<<chunkShift, c[:])
			}
		}
	default:
		for _, k := range slices.Sorted(maps.Keys(b.sparse)) {
			emit(k<<chunkShift, b.sparse[k].w[:])
		}
	}
}
