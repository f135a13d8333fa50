package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/udnkit/udnkit/internal/ovntest"
	"github.com/udnkit/udnkit/internal/ovstest"
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

// TestRealNodeFormats feeds plan's node formats to the real tools: -o nft
// is a ruleset nft accepts (checked against the kernel in a fresh network
// namespace), and -o ofctl, with the OpenFlow ports of a real gateway
// bridge given by flags, adds every flow to it (ovs-ofctl reads them back,
// one per line of the script).
func TestRealNodeFormats(t *testing.T) {
	args := []string{"plan", "-f", manifests + "seed-001.yaml", "--zone", "ovn-worker"}
	t.Run("nft", func(t *testing.T) {
		nft, err := exec.LookPath("nft")
		if err != nil {
			skipReal(t, "nft is not installed (apt-get install nftables)")
		}
		if os.Geteuid() != 0 {
			skipReal(t, "checking nftables against the kernel needs root")
		}
		r := runCmd(t, "", append(args, "-o", "nft")...)
		if r.code != 0 {
			t.Fatalf("exit %d\n%s", r.code, r.stderr)
		}
		file := filepath.Join(t.TempDir(), "udn.nft")
		if err := os.WriteFile(file, []byte(r.stdout), 0o644); err != nil {
			t.Fatal(err)
		}
		if out, err := exec.Command("unshare", "-n", nft, "-c", "-f", file).CombinedOutput(); err != nil {
			t.Fatalf("nft refuses plan -o nft: %v\n%s", err, out)
		}
	})
	t.Run("ofctl", func(t *testing.T) {
		e := ovstest.Start(t)
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		nets := []string{"blue_blue-network", "green_green-network", "red_red-network", "yellow_yellow-network"}
		ports, err := e.GatewayBridge(ctx, "breth0", "02:42:ac:12:00:02", "eth0", append([]string{"patch-default"}, nets...)...)
		if err != nil {
			t.Fatal(err)
		}
		flags := []string{"-o", "ofctl", "--uplink", "eth0:" + strconv.Itoa(ports["eth0"]), "--default-patch-ofport", strconv.Itoa(ports["patch-default"])}
		for _, n := range nets {
			flags = append(flags, "--patch-ofport", n+"="+strconv.Itoa(ports[n]))
		}
		r := runCmd(t, "", append(args, flags...)...)
		if r.code != 0 {
			t.Fatalf("exit %d\n%s", r.code, r.stderr)
		}
		var fs []string
		for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
			f, ok := strings.CutPrefix(line, "ovs-ofctl add-flow breth0 ")
			if !ok {
				t.Fatalf("not an add-flow of breth0: %s", line)
			}
			fs = append(fs, strings.Trim(f, "'"))
		}
		if out, err := e.Ofctl(ctx, strings.Join(fs, "\n")+"\n", "add-flows", "breth0", "-"); err != nil {
			t.Fatalf("ovs-ofctl refuses plan -o ofctl: %v\n%s", err, out)
		}
		out, err := e.Ofctl(ctx, "", "dump-flows", "breth0", "cookie=0xdeff105/-1")
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(out, "cookie=0xdeff105"); n != len(fs) || n == 0 {
			t.Errorf("the bridge holds %d flows of the cookie, the script adds %d\n%s", n, len(fs), out)
		}
	})
}

func skipReal(t *testing.T, why string) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf("CI=true and %s", why)
	}
	t.Skip(why)
}
