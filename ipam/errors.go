package ipam

import "errors"

// Sentinel errors. Every error returned by this package wraps exactly one of
// them (test with errors.Is) together with the pool, network, node or subnet
// it concerns.
var (
	// ErrExhausted: a pool, ID range or subnet has no free element left.
	ErrExhausted = errors.New("exhausted")
	// ErrConflict: the requested element is already allocated or reserved.
	ErrConflict = errors.New("conflict")
	// ErrOutOfRange: an address, ID or offset lies outside the range it must
	// belong to.
	ErrOutOfRange = errors.New("out of range")
	// ErrInvalid: an argument is malformed (invalid prefix, wrong family,
	// impossible prefix length, unknown key).
	ErrInvalid = errors.New("invalid")
)
