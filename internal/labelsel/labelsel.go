// Package labelsel evaluates one requirement of a Kubernetes label selector
// (metav1.LabelSelectorRequirement), for the planners that keep their own
// label and selector types (topology/policy, topology/egressip). It is pure
// and safe for concurrent use.
package labelsel

import "slices"

// Meets reports whether a label meets one requirement: op is the operator's
// Kubernetes spelling ("In", "NotIn", "Exists", "DoesNotExist"), values the
// requirement's values, v the label's value and ok whether the label is
// present. An unknown operator is met by nothing.
func Meets(op string, values []string, v string, ok bool) bool {
	switch op {
	case "In":
		return ok && slices.Contains(values, v)
	case "NotIn":
		return !ok || !slices.Contains(values, v)
	case "Exists":
		return ok
	case "DoesNotExist":
		return !ok
	}
	return false
}
