package shell

import (
	"os/exec"
	"strings"
	"testing"
)

func TestQuote(t *testing.T) {
	for in, want := range map[string]string{
		"breth0":            "breth0",
		"10.0.0.0/8":        "10.0.0.0/8",
		"":                  "''",
		"a;>x":              "'a;>x'",
		"it's":              `'it'\''s'`,
		"$(id)":             "'$(id)'",
		"a b":               "'a b'",
		"~root":             "'~root'",
		"udn-1-vrf":         "udn-1-vrf",
		"fe80::1%eth0":      "fe80::1%eth0",
		"x=1,y=2":           "x=1,y=2",
		"*":                 "'*'",
		"\n":                "'\n'",
		"-":                 "-",
		"0a:58:0a:80:01:02": "0a:58:0a:80:01:02",
	} {
		if got := Quote(in); got != want {
			t.Errorf("Quote(%q) = %s, want %s", in, got, want)
		}
	}
}

// echoed runs `printf '%s\n' <quoted words>` in sh and returns its lines.
func echoed(t testing.TB, words []string) []string {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	out, err := exec.Command(sh, "-c", "printf '%s\\n' "+Join(words...)).Output()
	if err != nil {
		t.Fatalf("sh -c printf %s: %v", Join(words...), err)
	}
	return strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
}

func TestQuotedWordsReachTheCommandAsIs(t *testing.T) {
	words := []string{"a;>x", "$(touch /tmp/udnkit-shell-test)", "`id`", `"q"`, "'", "&", "|", "a b", "~", "*", "#c", "!x", `\`, "{a,b}"}
	got := echoed(t, words)
	if strings.Join(got, "\x00") != strings.Join(words, "\x00") {
		t.Errorf("sh saw %q, want %q", got, words)
	}
}

// FuzzQuote: sh reads every quoted word back as the word (a NUL cannot
// be an argument, and a newline would split the printed lines).
func FuzzQuote(f *testing.F) {
	for _, s := range []string{"", "a;b", "'", "$(x)", "a'b'c", "\\'"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if strings.ContainsAny(s, "\x00\n") {
			return
		}
		q := Quote(s)
		if q != s && (!strings.HasPrefix(q, "'") || !strings.HasSuffix(q, "'")) {
			t.Fatalf("Quote(%q) = %s", s, q)
		}
		if got := echoed(t, []string{s}); len(got) != 1 || got[0] != s {
			t.Fatalf("sh read %q back as %q", s, got)
		}
	})
}
