package topology

import (
	"net/netip"
	"slices"
	"strconv"
	"strings"
)

// Helpers of the generated per-kind clone, normalisation, column comparison
// and rendering (kinds_gen.go). Set-valued OVN columns are kept sorted so
// that states observed from a database compare equal to planned ones.

func cloneOpts(o Options) Options {
	if o == nil {
		return nil
	}
	return slices.Clone(o)
}

func comparePrefix(a, b netip.Prefix) int {
	if c := a.Addr().Compare(b.Addr()); c != 0 {
		return c
	}
	return a.Bits() - b.Bits()
}

func sortedStrings(s []string) []string {
	if slices.IsSorted(s) {
		return s
	}
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

func sortedOptions(o Options) Options {
	if optsSorted(o) {
		return o
	}
	o = slices.Clone(o)
	slices.SortStableFunc(o, compareOptions)
	return o
}

// sortedFunc returns s sorted by cmp, a sorted clone when it is not.
func sortedFunc[T any](s []T, cmp func(a, b T) int) []T {
	if slices.IsSortedFunc(s, cmp) {
		return s
	}
	s = slices.Clone(s)
	slices.SortFunc(s, cmp)
	return s
}

func compareLBVIP(a, b LBVIP) int { return a.VIP.Compare(b.VIP) }

func compareGatewayChassis(a, b GatewayChassis) int { return strings.Compare(a.Name, b.Name) }

// String returns "vip=backend,backend".
func (v LBVIP) String() string {
	var b strings.Builder
	b.WriteString(v.VIP.String())
	b.WriteByte('=')
	for i, x := range v.Backends {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(x.String())
	}
	return b.String()
}

// String returns "name:chassis:priority".
func (g GatewayChassis) String() string {
	return g.Name + ":" + g.Chassis + ":" + strconv.Itoa(g.Priority)
}

// cols collects changed column names.
type cols []string

func (c *cols) add(changed bool, name string) {
	if changed {
		*c = append(*c, name)
	}
}

// --- render ---

type line struct{ b *strings.Builder }

func (l line) s(name, v string) {
	if v == "" {
		return
	}
	l.b.WriteByte(' ')
	l.b.WriteString(name)
	l.b.WriteByte('=')
	l.b.WriteString(v)
}

func (l line) q(name, v string) {
	if v == "" {
		return
	}
	l.s(name, strconv.Quote(v))
}

func (l line) i(name string, v int) {
	if v == 0 {
		return
	}
	l.s(name, strconv.Itoa(v))
}

// flag renders a boolean column, "name=true" or nothing.
func (l line) flag(name string, v bool) {
	if v {
		l.s(name, "true")
	}
}

func (l line) opts(name string, o Options) {
	if len(o) == 0 {
		return
	}
	l.s(name, o.String())
}

func (l line) strs(name string, v []string) {
	if len(v) == 0 {
		return
	}
	q := make([]string, len(v))
	for i, s := range v {
		q[i] = strconv.Quote(s)
	}
	l.s(name, "["+strings.Join(q, ", ")+"]")
}

func (l line) list(name string, n int, f func(i int) string) {
	if n == 0 {
		return
	}
	q := make([]string, n)
	for i := range q {
		q[i] = f(i)
	}
	l.s(name, "["+strings.Join(q, ", ")+"]")
}

func (l line) owner(o Owner) {
	l.b.WriteString(" owner=")
	l.b.WriteString(o.String())
}

func (l line) head(k Kind, name string) {
	l.b.WriteString(k.String())
	if name != "" {
		l.b.WriteByte(' ')
		l.b.WriteString(name)
	}
}

func prefixStr(p netip.Prefix) string {
	if !p.IsValid() {
		return ""
	}
	return p.String()
}

// Render returns the one-line text form of o used by State.String.
func Render(o Object) string {
	var b strings.Builder
	o.render(&b)
	return b.String()
}

// --- isNormal: whether normalize would change nothing ---

func optsSorted(o Options) bool {
	return slices.IsSortedFunc(o, compareOptions)
}

// normalized returns o with its set columns sorted, boxing a new value only
// when something needs sorting.
func normalized(o Object) Object {
	if o.isNormal() {
		return o
	}
	return o.normalize()
}
