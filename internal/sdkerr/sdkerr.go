package sdkerr

import (
	"errors"
	"fmt"
)

// Class is one error class. Its value is itself an error, so it is the
// target of errors.Is; a Class is compared by identity.
type Class struct{ name string }

// Error returns the class's name ("invalid", "not found", …).
func (c *Class) Error() string { return c.name }

// The classes.
var (
	Invalid        = &Class{"invalid"}
	Conflict       = &Class{"conflict"}
	Exhausted      = &Class{"exhausted"}
	NotFound       = &Class{"not found"}
	NotSupported   = &Class{"not supported"}
	Unavailable    = &Class{"unavailable"}
	Refused        = &Class{"refused"}
	OutcomeUnknown = &Class{"outcome unknown"}
)

// Classes returns every class, the most telling first: what happened to
// the operation (outcome unknown, unavailable, refused), then why the input
// was refused (conflict, exhausted, not found, not supported), then invalid.
func Classes() []*Class {
	return []*Class{OutcomeUnknown, Unavailable, Refused, Conflict, Exhausted, NotFound, NotSupported, Invalid}
}

// Of returns the first class, in the order of [Classes], that err belongs
// to (an error may belong to two: an invalid NetConf that chains plugins is
// also not supported), or nil when it belongs to none (nil, or an error
// from outside the SDK such as a context error).
func Of(err error) *Class {
	if err == nil {
		return nil
	}
	for _, c := range Classes() {
		if errors.Is(err, c) {
			return c
		}
	}
	return nil
}

// New returns a sentinel of class c whose message is msg: errors.Is holds
// for the sentinel itself (by identity) and for c. c must not be nil.
func New(c *Class, msg string) error {
	if c == nil {
		panic("sdkerr.New: nil class")
	}
	return &sentinel{class: c, msg: msg}
}

type sentinel struct {
	class *Class
	msg   string
}

func (s *sentinel) Error() string { return s.msg }

// Unwrap returns the class.
func (s *sentinel) Unwrap() error { return s.class }

// Errorf formats as fmt.Errorf (the message is the same, %w wraps) and
// returns an error that also belongs to class c. c must not be nil.
func Errorf(c *Class, format string, args ...any) error {
	if c == nil {
		panic("sdkerr.Errorf: nil class")
	}
	return &classed{class: c, err: fmt.Errorf(format, args...)}
}

// With returns err, its message unchanged, as an error that also belongs to
// class c (nil when err is nil): for an error built elsewhere, such as one
// whose message another helper bounds. c must not be nil.
func With(c *Class, err error) error {
	if c == nil {
		panic("sdkerr.With: nil class")
	}
	if err == nil {
		return nil
	}
	return &classed{class: c, err: err}
}

type classed struct {
	class *Class
	err   error
}

func (e *classed) Error() string { return e.err.Error() }

// Unwrap returns the formatted error (and so what it wrapped) and the class.
func (e *classed) Unwrap() []error { return []error{e.err, e.class} }
