package golden

import (
	"os"
	"path/filepath"
	"testing"
)

type recorder struct {
	testing.TB
	failed bool
}

func (r *recorder) Errorf(string, ...any) { r.failed = true }
func (r *recorder) Fatalf(string, ...any) { r.failed = true }
func (r *recorder) Helper()               {}

func TestCheck(t *testing.T) {
	dir := t.TempDir()
	wd, _ := os.Getwd()
	if err := os.Chdir(dir); err != nil {
		t.Fatal(err)
	}
	defer os.Chdir(wd)
	if err := os.Mkdir("testdata", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join("testdata", "x.txt"), []byte("same"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, got string
		fail      bool
	}{{"x.txt", "same", false}, {"x.txt", "other", true}, {"missing.txt", "x", true}} {
		r := &recorder{TB: t}
		Check(r, tc.name, tc.got)
		if r.failed != tc.fail {
			t.Errorf("Check(%s, %q) failed=%v, want %v", tc.name, tc.got, r.failed, tc.fail)
		}
	}
}
