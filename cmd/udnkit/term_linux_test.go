package main

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"
)

// runTerm runs args as on a terminal with t's settings.
func runTerm(t *testing.T, term terminal, args ...string) result {
	t.Helper()
	var out, errOut bytes.Buffer
	code := runStreams(context.Background(), args, streams{in: strings.NewReader(""), out: &out, errOut: &errOut, term: term})
	return result{out.String(), errOut.String(), code}
}

// TestValidateColour: on a colour terminal validate paints what needs a
// look (each error red, its source bold) and says the same words as the
// plain run, which has no escape sequence at all.
func TestValidateColour(t *testing.T) {
	args := []string{"validate", "-f", manifests + "invalid.yaml"}
	plain := runCmd(t, "", args...)
	col := runTerm(t, terminal{color: true}, args...)
	if plain.code != 1 || col.code != 1 {
		t.Fatalf("exit %d, %d; want 1", plain.code, col.code)
	}
	if strings.Contains(plain.stderr, "\x1b[") {
		t.Errorf("plain output holds escape sequences:\n%q", plain.stderr)
	}
	if !strings.Contains(col.stderr, sgrRed+"error:"+sgrReset+" "+sgrBold) {
		t.Errorf("coloured output does not paint the errors:\n%q", col.stderr)
	}
	stripped := strings.NewReplacer(sgrRed, "", sgrBold, "", sgrReset, "").Replace(col.stderr)
	if stripped != plain.stderr || col.stdout != plain.stdout {
		t.Errorf("coloured output says something else:\n%s\n%s", stripped, plain.stderr)
	}
}

// TestDetectTerminal: a pipe or a file is no terminal (no colour, no
// progress), and NO_COLOR or TERM=dumb turn colour off.
func TestDetectTerminal(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	f, err := os.CreateTemp(t.TempDir(), "out")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	env := func(string) string { return "" }
	for name, file := range map[string]*os.File{"pipe": w, "file": f} {
		if got := detectTerminal(file, env); got != (terminal{}) {
			t.Errorf("%s: %+v, want plain", name, got)
		}
	}
	tty := openPTY(t)
	for _, tc := range []struct {
		noColor, term string
		want          terminal
	}{
		{"", "xterm", terminal{color: true, progress: true}},
		{"1", "xterm", terminal{progress: true}},
		{"", "dumb", terminal{}},
	} {
		got := detectTerminal(tty, func(k string) string {
			return map[string]string{"NO_COLOR": tc.noColor, "TERM": tc.term}[k]
		})
		if got != tc.want {
			t.Errorf("NO_COLOR=%q TERM=%q: %+v, want %+v", tc.noColor, tc.term, got, tc.want)
		}
	}
}

// TestApplyProgress: on a terminal apply draws its steps on stderr and
// clears the line after each; stdout is the plain run's summary.
func TestApplyProgress(t *testing.T) {
	args := []string{"apply", "-f", manifests + "seed-002.yaml"}
	plain := runCmd(t, "", args...)
	tty := runTerm(t, terminal{progress: true}, args...)
	if plain.code != 0 || tty.code != 0 || tty.stdout != plain.stdout {
		t.Fatalf("exit %d, %d; stdout\n%s\nwant\n%s", plain.code, tty.code, tty.stdout, plain.stdout)
	}
	for _, step := range []string{"planning zone ovn-control-plane", "zone ovn-control-plane: syncing "} {
		if !strings.Contains(tty.stderr, "\r\x1b[K"+spinnerFrames[0]+" "+step) {
			t.Errorf("no progress of %q:\n%q", step, tty.stderr)
		}
	}
	if strings.Count(tty.stderr, "s\r\x1b[K") < 2 { // each step's last frame ("… 0.0s") is cleared
		t.Errorf("progress line not cleared:\n%q", tty.stderr)
	}
	if strings.Contains(plain.stderr, "\r") {
		t.Errorf("plain apply draws progress:\n%q", plain.stderr)
	}
}
