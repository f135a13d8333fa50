package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/udnkit/udnkit/internal/ovntest"
)

// TestRealApplyDiff runs the command against a real NB with ovn-northd:
// diff exits 1 before apply, apply writes seed 001's networks and connect,
// a second apply writes nothing, diff exits 0; after a router is deleted
// by hand with ovn-nbctl, diff exits 1 and names it. northd must not warn
// about anything written (ovntest fails the test otherwise).
func TestRealApplyDiff(t *testing.T) {
	env := ovntest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	const router = "blue_blue.network_ovn_cluster_router"
	checkDiffApply(t, env.NBUnix, func() string {
		if out, err := env.NBCtl(ctx, "lr-del", router); err != nil {
			t.Fatalf("ovn-nbctl lr-del %s: %v: %s", router, err, out)
		}
		return router
	})
	if err := env.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if warn, err := env.UnexpectedNorthd(); err != nil || len(warn) > 0 {
		t.Errorf("northd: %v %q", err, warn)
	}
}

// TestRealRestart applies the quickstart's cluster, which stores no
// allocation, to a real NB; then reads the cluster as it would be stored
// after that plan (plan -o stored: the allocations in the Nodes', NADs' and
// pods' annotations): plan allocates nothing and prints byte for byte what
// it printed before, and diff against the NB finds nothing to change.
func TestRealRestart(t *testing.T) {
	env := ovntest.Start(t)
	f := manifests + "quickstart.yaml"
	before := runCmd(t, "", "plan", "-f", f)
	if before.code != 0 || !strings.Contains(before.stderr, "allocated:") {
		t.Fatalf("plan: exit %d, want allocations reported\n%s", before.code, before.stderr)
	}
	if r := runCmd(t, "", "apply", "-f", f, "--nb", env.NBUnix); r.code != 0 {
		t.Fatalf("apply: exit %d\n%s", r.code, r.stderr)
	}

	stored := runCmd(t, "", "plan", "-f", f, "-o", "stored")
	if stored.code != 0 {
		t.Fatalf("plan -o stored: exit %d\n%s", stored.code, stored.stderr)
	}
	dump := filepath.Join(t.TempDir(), "dump.yaml")
	if err := os.WriteFile(dump, []byte(stored.stdout), 0o644); err != nil {
		t.Fatal(err)
	}

	after := runCmd(t, "", "plan", "-f", dump)
	if after.code != 0 || strings.Contains(after.stderr, "allocated:") {
		t.Errorf("plan of the dump: exit %d, want nothing allocated\n%s", after.code, after.stderr)
	}
	if after.stdout != before.stdout {
		t.Errorf("plan of the dump differs from the plan before:\n%s\nbefore:\n%s", after.stdout, before.stdout)
	}
	if r := runCmd(t, "", "diff", "-f", dump, "--nb", env.NBUnix); r.code != 0 || r.stdout != "" {
		t.Errorf("diff of the dump against the NB: exit %d, want 0\n%s%s", r.code, r.stdout, r.stderr)
	}
}
