// Package condition holds what udnkit's status writers share: the cap on
// a condition's message, the update of one condition in a list and the
// set of conditions a status is built from.
package condition

import (
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// MaxMessageLength is the longest condition message written: the
// Kubernetes API's limit for metav1.Condition.Message.
const MaxMessageLength = 32768

// Cap cuts msg to MaxMessageLength bytes at a rune boundary, saying how
// many bytes were left out.
func Cap(msg string) string {
	if len(msg) <= MaxMessageLength {
		return msg
	}
	cut := MaxMessageLength - 64
	for cut > 0 && !utf8.RuneStart(msg[cut]) {
		cut--
	}
	return msg[:cut] + " ... (" + strconv.Itoa(len(msg)-cut) + " more bytes left out)"
}

// Copy returns a deep copy of conds (nil for nil).
func Copy(conds []metav1.Condition) []metav1.Condition {
	if conds == nil {
		return nil
	}
	out := make([]metav1.Condition, len(conds))
	for i := range conds {
		conds[i].DeepCopyInto(&out[i])
	}
	return out
}

// Put sets c in conds in place of the condition of its type, keeping that
// one's LastTransitionTime when the status did not change, or appends it.
// It returns the list.
func Put(conds []metav1.Condition, c metav1.Condition) []metav1.Condition {
	for i := range conds {
		if conds[i].Type == c.Type {
			if conds[i].Status == c.Status {
				c.LastTransitionTime = conds[i].LastTransitionTime
			}
			conds[i] = c
			return conds
		}
	}
	return append(conds, c)
}

// Set accumulates the conditions a status writer puts on top of a copy of
// an object's existing ones, each stamped with Now (when its status
// changes) and the object's Generation, its message capped.
type Set struct {
	Conds      []metav1.Condition
	Now        metav1.Time
	Generation int64
}

// NewSet returns a Set over a copy of existing.
func NewSet(existing []metav1.Condition, now metav1.Time, generation int64) *Set {
	return &Set{Conds: Copy(existing), Now: now, Generation: generation}
}

// Put puts the condition of type t (see the function Put), its message
// capped.
func (s *Set) Put(t string, status metav1.ConditionStatus, reason, message string) {
	s.Conds = Put(s.Conds, metav1.Condition{Type: t, Status: status, Reason: reason, Message: Cap(message),
		ObservedGeneration: s.Generation, LastTransitionTime: s.Now})
}

// Sorted sorts the conditions by type and returns them, nil when there
// are none.
func (s *Set) Sorted() []metav1.Condition {
	slices.SortFunc(s.Conds, func(a, b metav1.Condition) int { return strings.Compare(a.Type, b.Type) })
	if len(s.Conds) == 0 {
		return nil
	}
	return s.Conds
}
