package udnkit_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestImportBoundaries holds the dependency rules the design names: planners
// and allocators link only the standard library (no Kubernetes API
// machinery), and the script renderer links neither the libovsdb adapter nor an OVSDB
// client or server.
func TestImportBoundaries(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("the go command is not on PATH: install Go to check import boundaries")
	}
	const mod = "github.com/udnkit/udnkit/"
	rules := []struct {
		pkg     string
		allowed func(dep string) bool
	}{
		{"./topology", stdlibOr(mod+"ipam", mod+"netconf/udn", mod+"topology", mod+"internal/names", mod+"internal/netdev")},
		{"./topology/services", stdlibOr(mod+"ipam", mod+"netconf/udn", mod+"topology", mod+"topology/services", mod+"internal/names", mod+"internal/netdev")},
		{"./topology/diagram", stdlibOr(mod+"ipam", mod+"netconf/udn", mod+"topology", mod+"topology/diagram", mod+"internal/names", mod+"internal/netdev")},
		{"./ipam", stdlibOr(mod + "ipam")},
		{"./netconf/udn", stdlibOr(mod+"netconf/udn", mod+"internal/names")},
		{"./internal/names", stdlibOr(mod + "internal/names")},
		{"./backend/nbctl", func(dep string) bool {
			return dep != mod+"backend/ovnnb" && !strings.Contains(dep, "libovsdb/server") &&
				!strings.Contains(dep, "libovsdb/client") && !strings.Contains(dep, "prometheus")
		}},
		{"./internal/sdkerr", stdlibOr()},
	}
	for _, r := range rules {
		out, err := exec.Command("go", "list", "-deps", r.pkg).Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", r.pkg, err)
		}
		for _, dep := range strings.Fields(string(out)) {
			if !r.allowed(dep) {
				t.Errorf("%s depends on %s", r.pkg, dep)
			}
		}
	}
}

// stdlibOr allows standard-library packages (no dot in the first path
// element), the error classes (internal/sdkerr, itself standard library
// only) and the listed ones, with their internal packages.
func stdlibOr(pkgs ...string) func(string) bool {
	return func(dep string) bool {
		first, _, _ := strings.Cut(dep, "/")
		if !strings.Contains(first, ".") || dep == "github.com/udnkit/udnkit/internal/sdkerr" {
			return true
		}
		for _, p := range pkgs {
			if dep == p || strings.HasPrefix(dep, p+"/internal/") {
				return true
			}
		}
		return false
	}
}
