package egressip

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// The packet marks of EgressIPs (the reference's range).
const (
	MarkFirst = 50000
	MarkLast  = 54999
)

// ParseMark parses an AnnotationMark value: a decimal in
// MarkFirst..MarkLast.
func ParseMark(s string) (int, error) {
	if len(s) > 5 {
		return 0, fmt.Errorf("annotation %s: %w: %.16q is not a mark", AnnotationMark, ErrInvalid, s)
	}
	m, err := strconv.Atoi(s)
	if err != nil || m < MarkFirst || m > MarkLast || strconv.Itoa(m) != s {
		return 0, fmt.Errorf("annotation %s: %w: %q is not a decimal in %d..%d", AnnotationMark, ErrInvalid, s, MarkFirst, MarkLast)
	}
	return m, nil
}

// FormatMark returns the AnnotationMark value of m.
func FormatMark(m int) string { return strconv.Itoa(m) }

// MarkAllocator hands out one mark per EgressIP, round robin over
// MarkFirst..MarkLast as the reference does (a released mark is reused
// only after the others), and is rebuilt after a restart from the
// annotations with Restore. The zero value is ready to use; it is not safe
// for concurrent use.
type MarkAllocator struct {
	byName map[string]int
	byMark map[int]string
	next   int // the next mark to try, 0 meaning MarkFirst
}

func (a *MarkAllocator) init() {
	if a.byName == nil {
		a.byName, a.byMark = map[string]int{}, map[int]string{}
	}
}

// Allocate returns name's mark, allocating one if it has none.
func (a *MarkAllocator) Allocate(name string) (int, error) {
	a.init()
	if m, ok := a.byName[name]; ok {
		return m, nil
	}
	if len(a.byMark) > MarkLast-MarkFirst {
		return 0, fmt.Errorf("egressip %q: mark: %w (%d in use)", name, ErrExhausted, len(a.byMark))
	}
	m := a.next
	if m < MarkFirst || m > MarkLast {
		m = MarkFirst
	}
	for a.byMark[m] != "" {
		if m++; m > MarkLast {
			m = MarkFirst
		}
	}
	a.byName[name], a.byMark[m] = m, name
	if a.next = m + 1; a.next > MarkLast {
		a.next = MarkFirst
	}
	return m, nil
}

// Restore records name's mark read back from its annotation. A mark out of
// range or held by another EgressIP is refused (ErrInvalid, ErrConflict).
func (a *MarkAllocator) Restore(name string, mark int) error {
	a.init()
	if mark < MarkFirst || mark > MarkLast {
		return fmt.Errorf("egressip %q: annotation %s: %w: %d not in %d..%d", name, AnnotationMark, ErrInvalid, mark, MarkFirst, MarkLast)
	}
	if other := a.byMark[mark]; other != "" && other != name {
		return fmt.Errorf("egressip %q: annotation %s: %w: mark %d is egressip %q's", name, AnnotationMark, ErrConflict, mark, other)
	}
	if old, ok := a.byName[name]; ok && old != mark {
		delete(a.byMark, old)
	}
	a.byName[name], a.byMark[mark] = mark, name
	if mark >= a.next {
		a.next = mark + 1
	}
	return nil
}

// Release frees name's mark.
func (a *MarkAllocator) Release(name string) {
	if m, ok := a.byName[name]; ok {
		delete(a.byName, name)
		delete(a.byMark, m)
	}
}

// Lookup returns name's mark.
func (a *MarkAllocator) Lookup(name string) (int, bool) {
	m, ok := a.byName[name]
	return m, ok
}

// Names returns the EgressIPs holding a mark, sorted.
func (a *MarkAllocator) Names() []string {
	out := make([]string, 0, len(a.byName))
	for n := range a.byName {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// MarkChange is a mark Sync allocated: the EgressIP's annotation must be
// written (FormatMark) before its rows are planned.
type MarkChange struct {
	EgressIP string
	Mark     int
}

// Sync rebuilds the allocator after a restart from every EgressIP's Mark
// (0 when its annotation is absent or did not parse), as the reference's
// cluster manager does at sync: marks in range are restored, the first
// EgressIP by name keeping a mark two claim; the others, and those without
// one, are allocated afresh, after every restored mark. It returns those
// new marks (sorted by name) for the caller to write back, and sets Mark on
// eips. Allocation errors (ErrExhausted) stop it.
func (a *MarkAllocator) Sync(eips []EgressIP) ([]MarkChange, error) {
	order := make([]int, len(eips))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(x, y int) int { return strings.Compare(eips[x].Name, eips[y].Name) })
	var fresh []int
	for _, i := range order {
		if m := eips[i].Mark; m == 0 || a.Restore(eips[i].Name, m) != nil {
			fresh = append(fresh, i)
		}
	}
	var out []MarkChange
	for _, i := range fresh {
		m, err := a.Allocate(eips[i].Name)
		if err != nil {
			return out, err
		}
		eips[i].Mark = m
		out = append(out, MarkChange{EgressIP: eips[i].Name, Mark: m})
	}
	return out, nil
}
