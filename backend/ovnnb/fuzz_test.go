package ovnnb

import (
	"encoding/json"
	"testing"
	"unicode/utf8"
)

// FuzzAppendString checks the JSON string encoder used for rows: valid JSON
// always, the same string back for valid UTF-8.
func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "a", `"q"`, `\`, "\x00\x1f\x7f", "ünï", "\xff", "line\nbreak"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b := appendString(nil, s)
		var back string
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatalf("appendString(%q) = %s: invalid JSON: %v", s, b, err)
		}
		if utf8.ValidString(s) && back != s {
			t.Fatalf("appendString(%q) = %s reads back as %q", s, b, back)
		}
	})
}
