package netconf

import (
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/udnkit/udnkit/internal/condition"
	"github.com/udnkit/udnkit/internal/names"
)

// MaxMessageLength is the longest condition message written: the
// Kubernetes API's limit for metav1.Condition.Message.
const MaxMessageLength = condition.MaxMessageLength

// capMessage cuts msg to MaxMessageLength bytes, saying how many were left
// out.
func capMessage(msg string) string { return condition.Cap(msg) }

// errorsMessage joins errs the way field.ErrorList's aggregate does, up to
// MaxMessageLength, saying how many errors were left out.
func errorsMessage(errs field.ErrorList) string {
	var b strings.Builder
	if len(errs) > 1 {
		b.WriteByte('[')
	}
	for i, e := range errs {
		s := e.Error()
		tail := " ... and " + strconv.Itoa(len(errs)-i) + " more errors]"
		if b.Len()+len(s)+2+len(tail) > MaxMessageLength {
			b.WriteString(tail)
			return b.String()
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(s)
	}
	if len(errs) > 1 {
		b.WriteByte(']')
	}
	return b.String()
}

// validateSafe refuses control characters, spaces and DEL in a name.
func validateSafe(p *field.Path, value string) field.ErrorList {
	if i := names.UnsafeByte(value); i >= 0 {
		return field.ErrorList{field.Invalid(p, value, "must not contain control characters, spaces or DEL (byte "+
			strconv.Itoa(i)+" is "+strconv.QuoteRune(rune(value[i]))+")")}
	}
	return nil
}
