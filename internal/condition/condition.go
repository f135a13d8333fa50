// Package condition holds what udnkit's status writers share: the cap on
// a condition's message and the update of one condition in a list.
package condition

import (
	"strconv"
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
