package topology

import "strings"

// strArena builds many short strings (object names, keys, addresses) with
// few allocations: each string is a substring of a shared chunk that is
// only ever appended to, so earlier strings never change. A chunk stays
// alive while one of its strings does; all of them belong to one plan.
// The zero value is ready to use; an arena lives in the value that owns it
// (a Builder, a planner), never in a global. It holds its chunk through a
// pointer so that copying its owner (a Builder value) stays legal.
type strArena struct {
	b *strings.Builder
}

// Arena chunks start small and double up to strChunk bytes; longer
// strings get their own.
const minStrChunk, strChunk = 256, 4096

// reserve makes room for n more bytes, starting a new chunk if needed (the
// old one is left to the strings that use it).
func (a *strArena) reserve(n int) {
	if a.b == nil || a.b.Cap()-a.b.Len() < n {
		size := minStrChunk
		if a.b != nil {
			size = min(2*a.b.Cap(), strChunk)
		}
		a.b = new(strings.Builder)
		a.b.Grow(max(size, n))
	}
}

// tail returns the bytes written since offset start as a string.
func (a *strArena) tail(start int) string { return a.b.String()[start:] }

// cat returns the concatenation of parts.
func (a *strArena) cat(parts ...string) string {
	n := 0
	for _, s := range parts {
		n += len(s)
	}
	if n == 0 {
		return ""
	}
	a.reserve(n)
	start := a.b.Len()
	for _, s := range parts {
		a.b.WriteString(s)
	}
	return a.tail(start)
}

// bytes returns b as a string.
func (a *strArena) bytes(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	a.reserve(len(b))
	start := a.b.Len()
	a.b.Write(b)
	return a.tail(start)
}

// slab hands out short slices (column values) carved from shared chunks,
// so that the many small slices of a plan cost few allocations. Each slice
// handed out is capped at its length: appending to it reallocates rather
// than overwriting its neighbour. The zero value is ready to use.
type slab[T any] struct {
	buf []T
}

// Slab chunks start small and double up to slabChunk elements.
const minSlabChunk, slabChunk = 8, 128

// of returns a copy of vals.
func (s *slab[T]) of(vals ...T) []T {
	if len(vals) == 0 {
		return nil
	}
	if cap(s.buf)-len(s.buf) < len(vals) {
		s.buf = make([]T, 0, max(min(2*cap(s.buf), slabChunk), minSlabChunk, len(vals)))
	}
	start := len(s.buf)
	s.buf = append(s.buf, vals...)
	return s.buf[start:len(s.buf):len(s.buf)]
}

// make returns n zero elements.
func (s *slab[T]) make(n int) []T {
	var zero [4]T
	if n <= len(zero) {
		return s.of(zero[:n]...)
	}
	return make([]T, n)
}
