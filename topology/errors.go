package topology

import "errors"

// Sentinel errors. Errors returned by this package wrap one of them (test
// with errors.Is) together with the network, node, object and field they
// concern.
var (
	// ErrInvalid: an input is malformed or missing (network, node, subnet,
	// ID, tunnel key, object owner).
	ErrInvalid = errors.New("invalid")
	// ErrConflict: two objects or partitions claim the same key, or an
	// object to create already exists.
	ErrConflict = errors.New("conflict")
	// ErrNotFound: a change updates or deletes an object that does not exist.
	ErrNotFound = errors.New("not found")
	// ErrUnsupported: the input asks for a topology the planner does not
	// build (for example a primary Layer2 zone with several local nodes).
	ErrUnsupported = errors.New("unsupported")
)
