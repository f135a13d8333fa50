package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestGeneratedUpToDate checks that kinds_gen.go and nbrow's rows_gen.go
// are what kindgen makes of the kind types now (run go generate
// ./topology after changing one).
func TestGeneratedUpToDate(t *testing.T) {
	topo, rows, err := generate("../..")
	if err != nil {
		t.Fatal(err)
	}
	for file, got := range map[string][]byte{"../../kinds_gen.go": topo, "../../../internal/nbrow/rows_gen.go": rows} {
		want, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Errorf("%s is stale: run go generate ./topology", file)
		}
	}
}

// TestNewKind adds a kind to package topology as one file
// (testdata/newkind/kind_qos.go), generates, and builds and tests package
// nbrow with the result through an overlay: a new kind takes that file and
// go generate, nothing else.
func TestNewKind(t *testing.T) {
	if testing.Short() {
		t.Skip("builds packages")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		goTool = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	kindFile, err := filepath.Abs("testdata/newkind/kind_qos.go")
	if err != nil {
		t.Fatal(err)
	}
	topo, rows, err := generate("../..", kindFile)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(topo), "KindQoS") || !strings.Contains(string(rows), "*nbdb.QoS") {
		t.Fatal("the new kind is not in the generated code")
	}
	root, err := filepath.Abs("../../..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	testFile, err := filepath.Abs("testdata/newkind/qos_test.go")
	if err != nil {
		t.Fatal(err)
	}
	overlay, err := json.Marshal(map[string]map[string]string{"Replace": {
		filepath.Join(root, "topology", "kinds_gen.go"):         write("kinds_gen.go", topo),
		filepath.Join(root, "internal", "nbrow", "rows_gen.go"): write("rows_gen.go", rows),
		filepath.Join(root, "topology", "kind_qos.go"):          kindFile,
		filepath.Join(root, "internal", "nbrow", "qos_test.go"): testFile,
	}})
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(goTool, "test", "-overlay="+write("overlay.json", overlay), "-count=1", "-v",
		"./internal/nbrow", "./topology")
	cmd.Dir = root
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go test with the new kind: %v\n%s", err, out)
	}
	for _, want := range []string{"--- PASS: TestNewKindQoS", "--- PASS: TestDescriptorsMatchSchema/qos"} {
		if !strings.Contains(string(out), want) {
			t.Fatalf("go test did not print %q:\n%s", want, out)
		}
	}
}
