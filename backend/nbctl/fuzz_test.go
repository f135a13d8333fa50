package nbctl

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/udnkit/udnkit/internal/shell"
)

// unshell undoes shell.Quote for one word: bare, or single-quoted with a quote
// written as quote, backslash, quote, quote.
func unshell(w string) (string, bool) {
	if !strings.HasPrefix(w, "'") {
		return w, !strings.ContainsAny(w, " \t\n'\"\\$`;&|<>()*?[]#~!{}")
	}
	var b strings.Builder
	rest := w
	for rest != "" {
		if !strings.HasPrefix(rest, "'") {
			return "", false
		}
		end := strings.Index(rest[1:], "'")
		if end < 0 {
			return "", false
		}
		b.WriteString(rest[1 : 1+end])
		rest = rest[end+2:]
		if strings.HasPrefix(rest, `\'`) {
			b.WriteByte('\'')
			rest = rest[2:]
		}
	}
	return b.String(), true
}

// FuzzQuoting checks that any string survives OVSDB quoting (read back as
// JSON, which is how ovn-nbctl reads string atoms) and shell quoting.
func FuzzQuoting(f *testing.F) {
	for _, s := range []string{"", "a", `it's "x"`, "$HOME `id`", "tab\tnl\n", "\x00\x1f", "ünï", `\'`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) {
			return
		}
		a := atom(s)
		var back string
		if err := json.Unmarshal([]byte(a), &back); err != nil || back != s {
			t.Fatalf("atom(%q) = %s reads back as %q (%v)", s, a, back, err)
		}
		w := shell.Quote("k=" + a)
		got, ok := unshell(w)
		if !ok || got != "k="+a {
			t.Fatalf("shell.Quote(%q) = %s unquotes to %q", "k="+a, w, got)
		}
	})
}
