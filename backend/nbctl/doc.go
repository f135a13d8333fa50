// Package nbctl renders a topology change set as a POSIX shell script of
// ovn-nbctl commands: a dry run that people can read, review or run.
//
// Every object becomes one ovn-nbctl invocation (several commands joined
// by "--" where a row and its parent's reference set change together), so
// the script is what a shell integration would run. Each invocation is one
// transaction, so a parent whose member column has a schema minimum (a
// Meter's bands, topology.ParentColumn.Min) is created in one invocation
// with its members of the change set, and refused (ErrInvalidChange,
// naming it) without enough of them; the members of a parent the change
// set deletes are not removed first but go with it. Rows are written with
// the generic database commands (create, add, set, clear, remove, destroy)
// and the same columns the ovnnb adapter writes: running the script and
// applying the changes with ovnnb leave identical Northbound contents
// (this is tested against the real ovn-nbctl). Routes, policies, NAT rows
// and ACLs have no name, so the script finds them by their key columns;
// an update of one is one invocation that creates the new row and removes
// the old one.
//
// # Quoting
//
// Names, matches and values come from users (a NetConf name, a cluster's
// external bridge) and may hold anything. Every argument is quoted the one
// way a POSIX shell reads back exactly: a word of letters, digits and
// @%+=:,./_- as it is, anything else between single quotes (inside which
// newline, ;, $( ), backquotes and double quotes are plain characters),
// a single quote as close quote, backslash, quote, open quote. Column
// values are OVSDB atoms (JSON strings) inside that quoting. The "# change" comment above each command escapes control
// characters, DEL, Unicode line separators and the backslash (\n, \x1b,
// \\), so a newline in a name cannot end the comment and start a command.
// A test runs such names through the real sh and ovn-nbctl and checks the
// rows equal the adapter's and that nothing else ran. Config.Command is
// written as it is: it is the caller's command line, not data.
//
// Errors wrap ErrInvalidChange (a change without its object, or with
// another kind's or key's, or holding a control character, DEL or invalid
// UTF-8 anywhere in its row: nothing is written) or ErrUnsupported; they
// name the object with a bounded quote of its key.
//
// Render is pure and deterministic; it is safe for concurrent use.
package nbctl
