package egressip_test

import (
	"errors"
	"testing"

	"github.com/udnkit/udnkit/topology/egressip"
)

// TestMarkAllocator ports the reference's "EgressIP Mark cache"
// expectations (go-controller/pkg/clustermanager/egressip_controller_test.go):
// marks start at 50000, one per EgressIP, stable for a name, restored
// from the annotation, never handed out twice.
func TestMarkAllocator(t *testing.T) {
	var a egressip.MarkAllocator
	m1, _ := a.Allocate("eip1")
	m2, _ := a.Allocate("eip2")
	again, _ := a.Allocate("eip1")
	if m1 != 50000 || m2 != 50001 || again != m1 {
		t.Fatalf("marks %d %d %d, want 50000 50001 50000", m1, m2, again)
	}
	// Round robin: a released mark is not reused at once.
	a.Release("eip1")
	if m, _ := a.Allocate("eip3"); m != 50002 {
		t.Errorf("after a release got %d, want 50002", m)
	}
	// Restore after a restart: the annotations come back, new marks follow.
	var b egressip.MarkAllocator
	if err := b.Restore("x", 50007); err != nil {
		t.Fatal(err)
	}
	if err := b.Restore("y", 50007); !errors.Is(err, egressip.ErrConflict) {
		t.Errorf("restoring a mark twice: %v, want ErrConflict", err)
	}
	if err := b.Restore("y", 49999); !errors.Is(err, egressip.ErrInvalid) {
		t.Errorf("restoring 49999: %v, want ErrInvalid", err)
	}
	if m, _ := b.Allocate("z"); m != 50008 {
		t.Errorf("after restoring 50007 got %d, want 50008", m)
	}
	// The last mark wraps to the first free one.
	var c egressip.MarkAllocator
	if err := c.Restore("last", egressip.MarkLast); err != nil {
		t.Fatal(err)
	}
	if m, _ := c.Allocate("next"); m != egressip.MarkFirst {
		t.Errorf("after %d got %d, want %d", egressip.MarkLast, m, egressip.MarkFirst)
	}
	// Exhaustion.
	var d egressip.MarkAllocator
	for i := range egressip.MarkLast - egressip.MarkFirst + 1 {
		if _, err := d.Allocate(string(rune('a'+i%26)) + egressip.FormatMark(i)); err != nil {
			t.Fatalf("allocation %d: %v", i, err)
		}
	}
	if _, err := d.Allocate("one-more"); !errors.Is(err, egressip.ErrExhausted) {
		t.Errorf("past the range: %v, want ErrExhausted", err)
	}
}

// TestMarkRoundRobin ports egressip_controller_test.go "EgressIP Mark
// cache: should round robin when mark range is exhausted": allocating and
// releasing one EgressIP's mark past the end of the range wraps within it;
// and "WatchEgressIP: should manage mark cache for add/update/delete": a
// cleared annotation gets the cached mark back.
func TestMarkRoundRobin(t *testing.T) {
	var a egressip.MarkAllocator
	first, _ := a.Allocate("egressip")
	if again, _ := a.Allocate("egressip"); again != first {
		t.Errorf("the cached mark %d, then %d", first, again)
	}
	prev := first
	for i := range 2 * (egressip.MarkLast - egressip.MarkFirst + 1) {
		a.Release("egressip")
		m, err := a.Allocate("egressip")
		if err != nil || m < egressip.MarkFirst || m > egressip.MarkLast {
			t.Fatalf("allocation %d: %d %v", i, m, err)
		}
		if want := prev + 1; m != want && !(prev == egressip.MarkLast && m == egressip.MarkFirst) {
			t.Fatalf("allocation %d: %d after %d, want the next mark", i, m, prev)
		}
		prev = m
	}
}

func TestParseMark(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int
	}{{"50000", 50000}, {"54999", 54999}, {"49999", 0}, {"55000", 0}, {"050000", 0}, {"+50000", 0}, {"", 0}, {"5e4", 0}, {" 50000", 0}} {
		got, err := egressip.ParseMark(tc.in)
		if got != tc.want || (err == nil) != (tc.want != 0) {
			t.Errorf("ParseMark(%q) = %d, %v; want %d", tc.in, got, err, tc.want)
		}
	}
}

// TestMarkSync ports egressip_controller_test.go "syncEgressIP for IPv4:
// should assign new marks and add existing marks to mark cache": an
// EgressIP's mark (50100) is kept, one without gets a new, different mark
// to write back, and the cache answers both; plus the restart cases: a mark
// two EgressIPs claim stays with the first by name, one out of range is
// replaced.
func TestMarkSync(t *testing.T) {
	eips := []egressip.EgressIP{{Name: "egressip", Mark: 50100}, {Name: "egressip2"}}
	var a egressip.MarkAllocator
	changes, err := a.Sync(eips)
	if err != nil {
		t.Fatal(err)
	}
	if eips[0].Mark != 50100 || len(changes) != 1 || changes[0].EgressIP != "egressip2" || changes[0].Mark != eips[1].Mark || eips[1].Mark == 50100 {
		t.Fatalf("changes %v, marks %d %d", changes, eips[0].Mark, eips[1].Mark)
	}
	for _, e := range eips {
		if m, _ := a.Allocate(e.Name); m != e.Mark {
			t.Errorf("%s: cache %d, annotation %d", e.Name, m, e.Mark)
		}
	}
	var b egressip.MarkAllocator
	dup := []egressip.EgressIP{{Name: "b", Mark: 50005}, {Name: "a", Mark: 50005}, {Name: "c", Mark: 99}}
	changes, err = b.Sync(dup)
	if err != nil {
		t.Fatal(err)
	}
	if dup[1].Mark != 50005 || dup[0].Mark != 50006 || dup[2].Mark != 50007 || len(changes) != 2 || changes[0].EgressIP != "b" || changes[1].EgressIP != "c" {
		t.Errorf("changes %v, marks %d %d %d", changes, dup[0].Mark, dup[1].Mark, dup[2].Mark)
	}
}
