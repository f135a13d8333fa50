package main

import (
	"os"
	"path/filepath"
	"testing"
)

// TestGeneratedUpToDate checks that kinds_gen.go is what kindgen makes of
// kinds.go now (run go generate ./topology after changing a descriptor).
func TestGeneratedUpToDate(t *testing.T) {
	kinds, err := read("../../kinds.go")
	if err != nil {
		t.Fatal(err)
	}
	if len(kinds) < 12 {
		t.Fatalf("read %d kinds", len(kinds))
	}
	out := filepath.Join(t.TempDir(), "kinds_gen.go")
	if err := write(out, "kinds.go", kinds); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("../../kinds_gen.go")
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Error("kinds_gen.go is stale: run go generate ./topology")
	}
}
