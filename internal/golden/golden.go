// Package golden compares test output with golden files under a package's
// testdata/ directory; `go test -update` rewrites them. A test binary that
// imports it must not define its own -update flag.
package golden

import (
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// Check compares got with testdata/name, or writes it there with -update.
func Check(tb testing.TB, name, got string) {
	tb.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			tb.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		tb.Fatalf("%v (run go test -update to create it)", err)
	}
	if string(want) != got {
		tb.Errorf("%s differs from the golden file; run go test -update and review the diff.\ngot:\n%s", path, got)
	}
}
