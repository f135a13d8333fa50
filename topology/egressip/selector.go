package egressip

import (
	"cmp"
	"slices"
	"strconv"

	"github.com/udnkit/udnkit/internal/labelsel"
)

// Label is one label of a pod or namespace.
type Label struct{ Key, Value string }

// Labels is a set of labels sorted by key with unique keys; build one with
// NewLabels.
type Labels []Label

// NewLabels returns the labels given as key, value pairs, sorted by key (a
// later duplicate wins). It panics on an odd count (a programming error).
func NewLabels(kv ...string) Labels {
	if len(kv)%2 != 0 {
		panic("egressip.NewLabels: odd number of arguments")
	}
	l := make(Labels, 0, len(kv)/2)
	for i := 0; i < len(kv); i += 2 {
		l = append(l, Label{kv[i], kv[i+1]})
	}
	slices.SortStableFunc(l, func(a, b Label) int { return cmp.Compare(a.Key, b.Key) })
	out := l[:0]
	for i, e := range l {
		if i+1 < len(l) && l[i+1].Key == e.Key {
			continue
		}
		out = append(out, e)
	}
	return out
}

// Get returns the value of key.
func (l Labels) Get(key string) (string, bool) {
	i, ok := slices.BinarySearchFunc(l, key, func(e Label, k string) int { return cmp.Compare(e.Key, k) })
	if !ok {
		return "", false
	}
	return l[i].Value, true
}

// Operator is a selector requirement's operator.
type Operator uint8

// Operators of a label selector (metav1.LabelSelectorOperator).
const (
	OpIn Operator = iota + 1
	OpNotIn
	OpExists
	OpDoesNotExist
)

// String returns the Kubernetes spelling ("In").
func (o Operator) String() string {
	switch o {
	case OpIn:
		return "In"
	case OpNotIn:
		return "NotIn"
	case OpExists:
		return "Exists"
	case OpDoesNotExist:
		return "DoesNotExist"
	}
	return "operator(" + strconv.Itoa(int(o)) + ")"
}

// Requirement is one requirement of a Selector.
type Requirement struct {
	Key    string
	Op     Operator
	Values []string
}

// Selector is a label selector: it matches labels that meet every
// requirement. The zero value matches everything (an empty
// metav1.LabelSelector); Nothing matches nothing.
type Selector struct {
	Requirements []Requirement
	Nothing      bool
}

// Matches reports whether l meets every requirement of s.
func (s Selector) Matches(l Labels) bool {
	if s.Nothing {
		return false
	}
	for _, r := range s.Requirements {
		v, ok := l.Get(r.Key)
		if !labelsel.Meets(r.Op.String(), r.Values, v, ok) {
			return false
		}
	}
	return true
}
