package netconf

import (
	"strconv"
	"strings"
	"unicode/utf8"

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
		if i == 0 && len(s)+2+len(tail) > MaxMessageLength {
			// The first error is never dropped: it names the field.
			s = capTo(s, MaxMessageLength-len(tail)-8)
		}
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

// capTo cuts s to at most n bytes at a rune boundary, saying how many
// bytes were left out.
func capTo(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n - 40
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + " ... (" + strconv.Itoa(len(s)-cut) + " more bytes left out)"
}

// boundedErrors is a field.ErrorList as an error whose message is
// errorsMessage's (bounded), unwrapping to the list's aggregate.
type boundedErrors field.ErrorList

func (e boundedErrors) Error() string { return errorsMessage(field.ErrorList(e)) }
func (e boundedErrors) Unwrap() error { return field.ErrorList(e).ToAggregate() }

// validateSafe refuses control characters, spaces and DEL in a name.
func validateSafe(p *field.Path, value string) field.ErrorList {
	if i := names.UnsafeByte(value); i >= 0 {
		return field.ErrorList{field.Invalid(p, value, "must not contain control characters, spaces or DEL (byte "+
			strconv.Itoa(i)+" is "+strconv.QuoteRune(rune(value[i]))+")")}
	}
	return nil
}
