package netdev

import (
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	for _, ok := range []string{"breth0", "udn-1-vrf", "a;>x", "$(id)", "`id`", "'", `"`, "&", "|", "exactly-15-char"} {
		if err := Check(ok); err != nil {
			t.Errorf("Check(%q): %v", ok, err)
		}
	}
	for _, bad := range []string{"", ".", "..", "a/b", "a:b", "a b", "a\tb", "a\x00", "a\n", "sixteen-chars-xx", "\x7f", "eth\u00e9", "\xff"} {
		if err := Check(bad); err == nil {
			t.Errorf("Check(%q) accepted it", bad)
		}
	}
}

func TestCheckText(t *testing.T) {
	for _, ok := range []string{"", "ns1_blue", `k" ; } ; chain x { #`, "ünïcode"} {
		if err := CheckText(ok); err != nil {
			t.Errorf("CheckText(%q): %v", ok, err)
		}
	}
	for _, bad := range []string{"a\x00", "a\nb", "\x1b[2J", "\xff", "a\u0085"} {
		if err := CheckText(bad); err == nil {
			t.Errorf("CheckText(%q) accepted it", bad)
		}
	}
	if msg := CheckText(strings.Repeat("x", 1<<20) + "\x00").Error(); len(msg) > 200 {
		t.Errorf("a 1 MiB name gives a %d-byte message", len(msg))
	}
}

func FuzzCheck(f *testing.F) {
	f.Add("breth0")
	f.Fuzz(func(t *testing.T, s string) {
		if Check(s) == nil && (len(s) == 0 || len(s) > MaxName || strings.ContainsAny(s, "/: \t\n\x00")) {
			t.Fatalf("Check(%q) accepted it", s)
		}
		if err := Check(s); err != nil && len(err.Error()) > 200 {
			t.Fatalf("message of %d bytes", len(err.Error()))
		}
		if err := CheckText(s); err != nil && len(err.Error()) > 200 {
			t.Fatalf("message of %d bytes", len(err.Error()))
		}
	})
}
