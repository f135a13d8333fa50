package topology

import "github.com/udnkit/udnkit/internal/sdkerr"

// Sentinel errors. Errors returned by this package wrap one of them (test
// with errors.Is) together with the network, node, object and field they
// concern.
var (
	// ErrInvalid: an input is malformed or missing (network, node, subnet,
	// ID, tunnel key, object owner).
	ErrInvalid = sdkerr.New(sdkerr.Invalid, "invalid")
	// ErrConflict: two objects or partitions claim the same key, or an
	// object to create already exists.
	ErrConflict = sdkerr.New(sdkerr.Conflict, "conflict")
	// ErrNotFound: a change updates or deletes an object that does not exist.
	ErrNotFound = sdkerr.New(sdkerr.NotFound, "not found")
	// ErrUnsupported: the input asks for a topology the planner does not
	// build (for example a primary Layer2 zone with several local nodes).
	ErrUnsupported = sdkerr.New(sdkerr.NotSupported, "unsupported")
)
