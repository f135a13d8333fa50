package ipam

import "github.com/udnkit/udnkit/internal/sdkerr"

// Sentinel errors. Every error returned by this package wraps exactly one of
// them (test with errors.Is) together with the pool, network, node or subnet
// it concerns.
var (
	// ErrExhausted: a pool, ID range or subnet has no free element left.
	ErrExhausted = sdkerr.New(sdkerr.Exhausted, "exhausted")
	// ErrConflict: the requested element is already allocated or reserved.
	ErrConflict = sdkerr.New(sdkerr.Conflict, "conflict")
	// ErrOutOfRange: an address, ID or offset lies outside the range it must
	// belong to.
	ErrOutOfRange = sdkerr.New(sdkerr.Invalid, "out of range")
	// ErrInvalid: an argument is malformed (invalid prefix, wrong family,
	// impossible prefix length, unknown key).
	ErrInvalid = sdkerr.New(sdkerr.Invalid, "invalid")
)
