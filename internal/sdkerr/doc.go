// Package sdkerr holds udnkit's error taxonomy: a small, closed set of
// classes that every error the SDK returns belongs to, so that a caller
// classifies any error with errors.Is against one set (re-exported by the
// root package as udnkit.ErrInvalid, udnkit.ErrConflict, …).
//
// A package declares its sentinels with [New], which keeps the sentinel's
// name and message and adds its class: errors.Is(pkg.ErrX, Invalid) holds,
// and errors.Is(err, pkg.ErrX) still works by identity. An error that has no
// sentinel of its own is built with [Errorf], which formats exactly as
// fmt.Errorf (%w included) and adds the class; [With] adds a class to an
// error built otherwise.
//
// Classes (the caller's decision in brackets):
//
//   - Invalid: the input is malformed or breaks a rule [fix the input].
//   - Conflict: the input contradicts something already held or another
//     input (an address, ID, key or name taken twice) [resolve, then retry].
//   - Exhausted: a pool, range or subnet has no room left [free or grow it].
//   - NotFound: the object an operation names does not exist [create it or
//     drop the reference].
//   - NotSupported: valid input the SDK, the server's schema or the kernel
//     does not handle [change the input or the environment].
//   - Unavailable: a server, tool or connection could not be reached or used
//     [retry later].
//   - Refused: a server, tool or the kernel was reached and refused the
//     operation; it had no effect, the steps before it did [read the
//     detail, observe again].
//   - OutcomeUnknown: an operation may or may not have taken effect [observe
//     before writing again].
//
// The package links only the standard library and keeps no mutable state;
// its errors are immutable and safe for concurrent use.
package sdkerr
