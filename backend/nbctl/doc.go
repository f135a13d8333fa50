// Package nbctl renders a topology change set as a POSIX shell script of
// ovn-nbctl commands: a dry run that people can read, review or run.
//
// Every object becomes one ovn-nbctl invocation (several commands joined
// by "--" where a row and its parent's reference set change together), so
// the script is what a shell integration would run. Rows are written with
// the generic database commands (create, add, set, clear, remove, destroy)
// and the same columns the ovnnb adapter writes: running the script and
// applying the changes with ovnnb leave identical Northbound contents
// (this is tested against the real ovn-nbctl). Routes, policies, NAT rows
// and ACLs have no name, so the script finds them by their key columns;
// an update of one is rendered as delete then create.
//
// Render is pure and deterministic; it is safe for concurrent use.
package nbctl
