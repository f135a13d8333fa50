// Package names holds the rules every package applies to the names and
// values it takes from its callers, with the standard library only, so
// that the planners (topology, connect, pods, services) and the backends
// share one check: no control characters (what OVSDB cannot hold and a
// printed script cannot carry), network device names, and bounded quoting
// of input in error messages.
package names

import (
	"fmt"
	"reflect"
	"strconv"
	"unicode/utf8"
)

// Bounds of what an error message echoes of its input.
const (
	// MaxQuoted is the longest prefix of a value Quote echoes, in bytes.
	MaxQuoted = 128
	// MaxDetail is the longest detail Cap keeps, in bytes.
	MaxDetail = 1024
)

// Control returns the index of the first byte of s that no name may hold:
// a C0 control character (NUL included), DEL, or a byte of invalid UTF-8
// (OVSDB strings are UTF-8 and a NUL ends the server's JSON string). It
// returns -1 for a clean s.
func Control(s string) int {
	for i := 0; i < len(s); {
		c := s[i]
		if c < 0x80 {
			if c < 0x20 || c == 0x7f {
				return i
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n <= 1 {
			return i
		}
		i += n
	}
	return -1
}

// ControlError says why s is refused as a name ("byte 3 is '\x00': ..."),
// or returns "" when Control finds nothing.
func ControlError(s string) string {
	i := Control(s)
	if i < 0 {
		return ""
	}
	what := "invalid UTF-8"
	if c := s[i]; c < 0x80 {
		what = strconv.QuoteRune(rune(c))
	}
	return "byte " + strconv.Itoa(i) + " is " + what + ": control characters, DEL and invalid UTF-8 are not allowed"
}

// Quote returns s quoted as Go would (strconv.Quote), cut to its first
// MaxQuoted bytes at a character boundary with the full length noted
// ("...\"... (10485760 bytes)"), so that an error never echoes more than a
// bounded prefix of its input.
func Quote(s string) string {
	if len(s) <= MaxQuoted {
		return strconv.Quote(s)
	}
	return strconv.Quote(prefix(s, MaxQuoted)) + "... (" + strconv.Itoa(len(s)) + " bytes)"
}

// Cut returns s unquoted, cut like Quote: at most MaxQuoted bytes, then
// "... (N bytes)" when it was longer.
func Cut(s string) string {
	if len(s) <= MaxQuoted {
		return s
	}
	return prefix(s, MaxQuoted) + "... (" + strconv.Itoa(len(s)) + " bytes)"
}

// Errorf is fmt.Errorf with every argument that is a string (of any
// string type) or a slice of strings longer than MaxDetail bytes cut as Cut
// cuts it, so that a message never echoes more than a bounded prefix of a
// value (shorter ones, such as an already quoted value or a message part,
// pass whole); an error with a longer message prints cut to MaxDetail
// bytes but still unwraps (%w) to itself; other values pass unchanged.
func Errorf(format string, a ...any) error {
	for i, v := range a {
		switch x := v.(type) {
		case string:
			if len(x) > MaxDetail {
				a[i] = Cut(x)
			}
		case []string:
			n := 0
			for _, s := range x {
				n += len(s) + 1
			}
			if n > MaxDetail {
				a[i] = Cut(fmt.Sprint(x))
			}
		case error:
			if msg := x.Error(); len(msg) > MaxDetail {
				a[i] = cutError{x, Cap(msg)}
			}
		case nil:
		default:
			if rv := reflect.ValueOf(v); rv.Kind() == reflect.String && rv.Len() > MaxDetail {
				a[i] = Cut(rv.String())
			}
		}
	}
	return fmt.Errorf(format, a...)
}

// cutError is an error whose message was cut; it still unwraps to it.
type cutError struct {
	err error
	msg string
}

func (e cutError) Error() string { return e.msg }
func (e cutError) Unwrap() error { return e.err }

// Cap cuts a message detail to MaxDetail bytes at a character boundary,
// noting how many bytes were left out.
func Cap(s string) string {
	if len(s) <= MaxDetail {
		return s
	}
	return prefix(s, MaxDetail) + "... (" + strconv.Itoa(len(s)-len(prefix(s, MaxDetail))) + " more bytes)"
}

// prefix returns at most n bytes of s, not splitting a UTF-8 sequence.
func prefix(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := n
	for i > 0 && i > n-utf8.UTFMax && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i]
}

// NetdevError applies the kernel's dev_valid_name to a network device
// name (a VRF, a pod interface): not empty, not "." or "..", printable
// ASCII without '/', ':' or blanks; what names the device in the message.
// The length (IFNAMSIZ) is the caller's to check. It returns "" for a
// valid name.
func NetdevError(name, what string) string {
	switch {
	case name == "":
		return "must not be empty"
	case name == "." || name == "..":
		return "must not be \".\" or \"..\""
	}
	for _, r := range name {
		if r == '/' || r == ':' || r <= ' ' || r >= 0x7f {
			return "must be printable ASCII without '/', ':' or blanks (" + what + ")"
		}
	}
	return ""
}

// UnsafeByte returns the index of the first control character, space or
// DEL in s, or -1 when there is none.
func UnsafeByte(s string) int {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x21 || c == 0x7f {
			return i
		}
	}
	return -1
}
