// Package netdev holds the name rules of the node-side planners (vrf,
// flows): a Linux network device name, and a name free of control
// characters. Standard library only (with internal/names), as planners
// are.
package netdev

import (
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/udnkit/udnkit/internal/names"
)

// MaxName is the longest Linux network device name (IFNAMSIZ - 1).
const MaxName = 15

// Check returns why name cannot name a Linux network device, or nil: the
// rule netconf applies (names.NetdevError: not empty, not "." or "..",
// printable ASCII without '/', ':' or blanks) and at most MaxName bytes.
// Other printable characters (';', '$', quotes) are valid device names:
// scripts quote them.
func Check(name string) error {
	if len(name) > MaxName {
		return fmt.Errorf("%s is longer than %d bytes", Bounded(name), MaxName)
	}
	if msg := names.NetdevError(name, "a network device name"); msg != "" {
		if name == "" {
			return errors.New(msg)
		}
		return fmt.Errorf("%s: %s", Bounded(name), msg)
	}
	return nil
}

// CheckText returns why s, a name or other text the planners print, is
// not valid UTF-8 without control characters, or nil.
func CheckText(s string) error {
	if !utf8.ValidString(s) {
		return fmt.Errorf("%s is not valid UTF-8", Bounded(s))
	}
	for i, r := range s {
		if r < 0x20 || r == 0x7f || 0x80 <= r && r < 0xa0 {
			return fmt.Errorf("%s holds the control character %U at byte %d", Bounded(s), r, i)
		}
	}
	return nil
}

// Bounded quotes s for an error message, cut so that the quoted prefix
// is at most 64 bytes (an invalid byte quotes to four), then noting the
// full length.
func Bounded(s string) string {
	const max = 64
	n := min(len(s), max)
	for n > 0 && len(strconv.Quote(s[:n])) > max+2 {
		n--
	}
	if n == len(s) {
		return strconv.Quote(s)
	}
	return fmt.Sprintf("%q... (%d bytes)", s[:n], len(s))
}
