package main

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/udnkit/udnkit/internal/ovntest"
	"github.com/udnkit/udnkit/internal/ovstest"
)

// TestRealEgress runs the egress fixture against the real tools. nb: the
// egress node's zone applied to a real NB with ovn-northd (its reroutes,
// no-reroute policies, QoS rows and address sets accepted without a
// northd warning); the stored dump (egress-db's mark allocated, both
// EgressIPs' status written) plans byte for byte the same, allocates
// nothing and finds nothing to change in the NB. ofctl: the egress node's
// flows, the marks' SNAT among them, load into a real gateway bridge.
func TestRealEgress(t *testing.T) {
	f := manifests + "egress.yaml"
	zone := []string{"--zone", "ovn-worker"}
	t.Run("nb", func(t *testing.T) {
		env := ovntest.Start(t)
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		before := runCmd(t, "", append([]string{"plan", "-f", f}, zone...)...)
		if before.code != 0 || !strings.Contains(before.stderr, "allocated: EgressIP egress-db: k8s.ovn.org/egressip-mark=50008") {
			t.Fatalf("plan: exit %d, want egress-db's mark allocated\n%s", before.code, before.stderr)
		}
		if r := runCmd(t, "", append([]string{"apply", "-f", f, "--nb", env.NBUnix}, zone...)...); r.code != 0 {
			t.Fatalf("apply: exit %d\n%s", r.code, r.stderr)
		}
		if err := env.Sync(ctx); err != nil {
			t.Fatal(err)
		}
		if warn, err := env.UnexpectedNorthd(); err != nil || len(warn) > 0 {
			t.Errorf("northd: %v %q", err, warn)
		}
		out, err := env.NBCtl(ctx, "--bare", "--columns=options", "find", "Logical_Router_Policy", "action=reroute")
		if err != nil || !strings.Contains(out, "pkt_mark=50007") || !strings.Contains(out, "pkt_mark=50008") {
			t.Errorf("the NB's reroute policies lack the marks: %v\n%s", err, out)
		}
		stored := runCmd(t, "", "plan", "-f", f, "-o", "stored")
		if stored.code != 0 {
			t.Fatalf("plan -o stored: exit %d\n%s", stored.code, stored.stderr)
		}
		dump := filepath.Join(t.TempDir(), "dump.yaml")
		if err := os.WriteFile(dump, []byte(stored.stdout), 0o644); err != nil {
			t.Fatal(err)
		}
		after := runCmd(t, "", append([]string{"plan", "-f", dump}, zone...)...)
		if after.code != 0 || strings.Contains(after.stderr, "allocated:") || after.stdout != before.stdout {
			t.Errorf("plan of the dump: exit %d, want nothing allocated and the plan before\n%s", after.code, after.stderr)
		}
		if r := runCmd(t, "", append([]string{"diff", "-f", dump, "--nb", env.NBUnix}, zone...)...); r.code != 0 || r.stdout != "" {
			t.Errorf("diff of the dump against the NB: exit %d, want 0\n%s%s", r.code, r.stdout, r.stderr)
		}
	})
	t.Run("ofctl", func(t *testing.T) {
		e := ovstest.Start(t)
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		nets := []string{"tenant_l2-network", "tenant_l3-network"}
		ports, err := e.GatewayBridge(ctx, "breth0", "02:42:ac:12:00:02", "eth0", append([]string{"patch-default"}, nets...)...)
		if err != nil {
			t.Fatal(err)
		}
		flags := []string{"-o", "ofctl", "--uplink", "eth0:" + strconv.Itoa(ports["eth0"]), "--default-patch-ofport", strconv.Itoa(ports["patch-default"])}
		for _, n := range nets {
			flags = append(flags, "--patch-ofport", n+"="+strconv.Itoa(ports[n]))
		}
		r := runCmd(t, "", append(append([]string{"plan", "-f", f}, zone...), flags...)...)
		if r.code != 0 {
			t.Fatalf("exit %d\n%s", r.code, r.stderr)
		}
		var fs []string
		for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
			fl, ok := strings.CutPrefix(line, "ovs-ofctl add-flow breth0 ")
			if !ok {
				t.Fatalf("not an add-flow of breth0: %s", line)
			}
			fs = append(fs, strings.Trim(fl, "'"))
		}
		if out, err := e.Ofctl(ctx, strings.Join(fs, "\n")+"\n", "add-flows", "breth0", "-"); err != nil {
			t.Fatalf("ovs-ofctl refuses plan -o ofctl: %v\n%s", err, out)
		}
		out, err := e.Ofctl(ctx, "", "dump-flows", "breth0", "cookie=0xdeff105/-1")
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(out, "cookie=0xdeff105"); n != len(fs) {
			t.Errorf("the bridge holds %d flows of the cookie, the script adds %d\n%s", n, len(fs), out)
		}
		for _, want := range []string{"pkt_mark=0xc357", "nat(src=172.18.0.100)", "pkt_mark=0xc358", "nat(src=172.18.0.101)"} {
			if !strings.Contains(out, want) {
				t.Errorf("the bridge's flows lack %s\n%s", want, out)
			}
		}
	})
}
