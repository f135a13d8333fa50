package names

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestNetdevError(t *testing.T) {
	for name, ok := range map[string]bool{"eth0": true, "net-1.2": true, "": false, ".": false, "..": false,
		"a/b": false, "a:b": false, "a b": false, "a\x7f": false, "é": false} {
		if got := NetdevError(name, "x"); (got == "") != ok {
			t.Errorf("NetdevError(%q) = %q, want valid %v", name, got, ok)
		}
	}
}

func TestUnsafeByte(t *testing.T) {
	for s, want := range map[string]int{"abc": -1, "é/x": -1, "a b": 1, "\n": 0, "ab\x7f": 2} {
		if got := UnsafeByte(s); got != want {
			t.Errorf("UnsafeByte(%q) = %d, want %d", s, got, want)
		}
	}
}

func TestControl(t *testing.T) {
	for s, want := range map[string]int{"abc": -1, "a b": -1, "é/x;$(y)": -1, "\x00": 0, "ab\x7f": 2, "a\nb": 1,
		"ok\x1f": 2, "a\xffb": 1, "é\xc3": 2, "\u2028": -1} {
		if got := Control(s); got != want {
			t.Errorf("Control(%q) = %d, want %d", s, got, want)
		}
		if msg := ControlError(s); (msg == "") != (want < 0) {
			t.Errorf("ControlError(%q) = %q", s, msg)
		}
	}
}

func TestQuoteBounded(t *testing.T) {
	if got := Quote("a\"b"); got != `"a\"b"` {
		t.Errorf("Quote short = %s", got)
	}
	big := strings.Repeat("é", 5<<20) // 10 MiB, a two-byte rune: the cut must not split one
	q := Quote(big)
	if len(q) > 2*MaxQuoted+32 || !strings.HasSuffix(q, "... (10485760 bytes)") {
		t.Errorf("Quote of 10 MiB = %d bytes: %.200s", len(q), q)
	}
	c := Cap(big)
	if len(c) > MaxDetail+32 || !utf8.ValidString(c) || !strings.Contains(c, "more bytes)") {
		t.Errorf("Cap of 10 MiB = %d bytes", len(c))
	}
	if Cap("short") != "short" {
		t.Error("Cap changed a short detail")
	}
}

func FuzzNames(f *testing.F) {
	for _, s := range []string{"", "a", "a\x00b", "é\xc3", strings.Repeat("x", 200)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		i := Control(s)
		if i < 0 && !utf8.ValidString(s) {
			t.Fatalf("Control(%q) passed invalid UTF-8", s)
		}
		if i >= 0 && s[i] >= 0x20 && s[i] != 0x7f && s[i] < 0x80 {
			t.Fatalf("Control(%q) = %d, a printable byte", s, i)
		}
		if q := Quote(s); len(q) > 4*MaxQuoted+40 {
			t.Fatalf("Quote: %d bytes", len(q))
		}
		if c := Cap(s); len(c) > MaxDetail+40 || (utf8.ValidString(s) && !utf8.ValidString(c)) {
			t.Fatalf("Cap: %d bytes, valid %v", len(c), utf8.ValidString(c))
		}
	})
}

func TestErrorfBounded(t *testing.T) {
	type topo string
	big := strings.Repeat("x", 10<<20)
	base := errors.New("base")
	err := Errorf("a %q b %s c %v d %v: %w", big, topo(big), []string{big, big}, 7, base)
	if !errors.Is(err, base) || len(err.Error()) > 4*MaxQuoted+200 {
		t.Fatalf("Errorf: %d bytes, wraps %v", len(err.Error()), errors.Is(err, base))
	}
	long := fmt.Errorf("parse %q: %w", big, base)
	if err := Errorf("x: %w", long); !errors.Is(err, base) || len(err.Error()) > MaxDetail+64 {
		t.Errorf("Errorf of a 10 MB error: %d bytes, wraps %v", len(err.Error()), errors.Is(err, base))
	}
	if got := Errorf("%q %d", "short", 3).Error(); got != `"short" 3` {
		t.Errorf("Errorf short = %s", got)
	}
}
