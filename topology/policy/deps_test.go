package policy_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestImportBoundaries: the planner takes plain values; only package kube
// links the Kubernetes API types, and no planner reaches a backend.
func TestImportBoundaries(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("the go command is not on PATH: install Go to check import boundaries")
	}
	out, err := exec.Command("go", "list", "-deps", "github.com/udnkit/udnkit/topology/policy").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, dep := range strings.Fields(string(out)) {
		if strings.HasPrefix(dep, "k8s.io/api/") || strings.Contains(dep, "/backend") || strings.Contains(dep, "libovsdb") {
			t.Errorf("package policy depends on %s", dep)
		}
	}
}
