package condition

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestCap(t *testing.T) {
	if got := Cap("short"); got != "short" {
		t.Errorf("Cap(short) = %q", got)
	}
	long := strings.Repeat("é", MaxMessageLength) // 2 bytes per rune
	got := Cap(long)
	if len(got) > MaxMessageLength || !utf8.ValidString(got) || !strings.HasSuffix(got, "more bytes left out)") {
		t.Errorf("Cap: %d bytes, valid UTF-8 %v, ends %q", len(got), utf8.ValidString(got), got[len(got)-30:])
	}
}

func TestPut(t *testing.T) {
	t0, t1 := metav1.NewTime(time.Unix(100, 0)), metav1.NewTime(time.Unix(200, 0))
	conds := Put(nil, metav1.Condition{Type: "Ready", Status: metav1.ConditionFalse, Reason: "A", LastTransitionTime: t0})
	conds = Put(conds, metav1.Condition{Type: "Ready", Status: metav1.ConditionFalse, Reason: "B", LastTransitionTime: t1})
	if len(conds) != 1 || conds[0].Reason != "B" || !conds[0].LastTransitionTime.Equal(&t0) {
		t.Errorf("same status: %+v, want reason B at the first transition time", conds)
	}
	conds = Put(conds, metav1.Condition{Type: "Ready", Status: metav1.ConditionTrue, Reason: "C", LastTransitionTime: t1})
	if len(conds) != 1 || !conds[0].LastTransitionTime.Equal(&t1) {
		t.Errorf("changed status: %+v, want the new transition time", conds)
	}
	conds = Put(conds, metav1.Condition{Type: "Other", Status: metav1.ConditionTrue})
	if len(conds) != 2 || conds[1].Type != "Other" {
		t.Errorf("another type: %+v, want it appended", conds)
	}
	c := Copy(conds)
	c[0].Reason = "changed"
	if conds[0].Reason == "changed" || Copy(nil) != nil {
		t.Error("Copy shares memory or makes a list of nil")
	}
}

func TestSet(t *testing.T) {
	if got := NewSet(nil, metav1.Time{}, 1).Sorted(); got != nil {
		t.Errorf("empty Sorted = %v, want nil", got)
	}
	then, now := metav1.NewTime(time.Unix(100, 0)), metav1.NewTime(time.Unix(200, 0))
	existing := []metav1.Condition{{Type: "B", Status: metav1.ConditionTrue, LastTransitionTime: then}}
	s := NewSet(existing, now, 7)
	s.Put("B", metav1.ConditionTrue, "R", strings.Repeat("x", MaxMessageLength+1))
	s.Put("A", metav1.ConditionFalse, "R", "m")
	got := s.Sorted()
	if len(got) != 2 || got[0].Type != "A" || got[1].Type != "B" {
		t.Fatalf("Sorted = %+v", got)
	}
	if !got[1].LastTransitionTime.Equal(&then) || !got[0].LastTransitionTime.Equal(&now) || got[0].ObservedGeneration != 7 {
		t.Errorf("transition times or generation wrong: %+v", got)
	}
	if len(got[1].Message) > MaxMessageLength {
		t.Errorf("message not capped: %d bytes", len(got[1].Message))
	}
	if existing[0].Reason != "" || existing[0].Message != "" {
		t.Errorf("existing conditions changed: %+v", existing[0])
	}
}
