package udnkit

import "github.com/udnkit/udnkit/internal/sdkerr"

// The error classes. Every error the SDK's packages return belongs to one of
// them (a few to two, such as an invalid NetConf that chains plugins, which is
// also not supported): classify any of them with errors.Is against these,
// whichever package returned it. Each package's own sentinels (ipam.ErrExhausted,
// ovnnb.ErrOutcomeUnknown, …) keep their names and messages and belong to
// exactly one class.
var (
	// ErrInvalid: an input is malformed or breaks a rule; fix the input.
	ErrInvalid error = sdkerr.Invalid
	// ErrConflict: an input contradicts what is already held or another
	// input (an address, ID, key or name taken twice, an object that exists).
	ErrConflict error = sdkerr.Conflict
	// ErrExhausted: a pool, ID range or subnet has no room left.
	ErrExhausted error = sdkerr.Exhausted
	// ErrNotFound: the object an operation names does not exist.
	ErrNotFound error = sdkerr.NotFound
	// ErrNotSupported: valid input that the SDK, the server's schema or the
	// kernel does not handle.
	ErrNotSupported error = sdkerr.NotSupported
	// ErrUnavailable: a server, tool or connection could not be reached or
	// used; retrying later may succeed.
	ErrUnavailable error = sdkerr.Unavailable
	// ErrRefused: a server, tool or the kernel was reached and refused the
	// operation, which had no effect (the steps of an apply before it did).
	ErrRefused error = sdkerr.Refused
	// ErrOutcomeUnknown: an operation may or may not have taken effect;
	// observe before writing again.
	ErrOutcomeUnknown error = sdkerr.OutcomeUnknown
)

// ErrorClass returns the class of err, one of ErrInvalid … ErrOutcomeUnknown,
// or nil for nil and errors from outside the SDK (a context error). Of an
// error of two classes it returns the more telling, in this order: outcome
// unknown, unavailable, refused, conflict, exhausted, not found, not
// supported, invalid (an apply of a row that exists is ovnnb's invalid
// change and a conflict: ErrConflict).
func ErrorClass(err error) error {
	if c := sdkerr.Of(err); c != nil {
		return c
	}
	return nil
}
