package ovntest

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestHost: a Host's ovn-controller registers its chassis with a Geneve
// encap at the given address in the zone's SB, and its br-int (netdev
// datapath) exists in the host's namespace, not in the test's.
func TestHost(t *testing.T) {
	env := Start(t)
	h := StartHost(t, env, "node1", "192.168.100.1")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := env.SBCtl(ctx, "--bare", "--columns=type,ip", "find", "Encap", "chassis_name=node1")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(strings.Fields(out), " "); got != "geneve 192.168.100.1" {
		t.Fatalf("node1's encap: %q, want geneve 192.168.100.1", got)
	}
	if dp, err := h.VSCtl(ctx, "get", "Bridge", "br-int", "datapath_type"); err != nil || strings.TrimSpace(dp) != "netdev" {
		t.Fatalf("br-int datapath_type %q (%v), want netdev", dp, err)
	}
	if err := h.IP(ctx, "link", "show", "br-int"); err != nil {
		t.Fatal(err)
	}
}

// TestUnderlay: two zones' hosts joined by Underlay reach each other both
// ways over TCP through their userspace (netdev) br-phy bridges: the path
// Geneve's outer packets take.
func TestUnderlay(t *testing.T) {
	z1, z2 := Start(t), Start(t)
	h1 := StartHost(t, z1, "node1", "172.31.0.1")
	h2 := StartHost(t, z2, "node2", "172.31.0.2")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := Underlay(ctx, h1, h2, "172.31.0.1/24", "172.31.0.2/24"); err != nil {
		t.Fatal(err)
	}
	if err := TCPCheck(ctx, h2, "172.31.0.2", h1); err != nil {
		t.Fatalf("underlay node1 → node2: %v", err)
	}
	if err := TCPCheck(ctx, h1, "172.31.0.1", h2); err != nil {
		t.Fatalf("underlay node2 → node1: %v", err)
	}
	// Not across: node1's address is not in node2's namespace.
	if err := TCPCheck(ctx, h2, "172.31.0.2", h2); err != nil {
		t.Fatalf("node2 to itself: %v", err)
	}
	if err := h2.In(func() error {
		_, err := net.Listen("tcp", "172.31.0.1:0")
		return err
	}); err == nil {
		t.Fatal("node2's namespace holds node1's address")
	}
}

// twoZones starts two zones with one host each, joined by Underlay, and a
// hand-written interconnect switch "ts" (tunnel key 5) in each zone's NB:
// the zone's own port (p1 in zone 1, p2 in zone 2) bound to an internal
// port of its br-int holding 10.0.0.N/24, and the other zone's port as a
// remote port on the chassis remoteOf names, registered in the SB as
// remote chassis (other_config:is-remote=true).
func twoZones(t *testing.T, remoteOf map[string]string) (h1, h2 *Host) {
	t.Helper()
	z1, z2 := Start(t), Start(t)
	h1 = StartHost(t, z1, "node1", "172.31.0.1")
	h2 = StartHost(t, z2, "node2", "172.31.0.2")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := Underlay(ctx, h1, h2, "172.31.0.1/24", "172.31.0.2/24"); err != nil {
		t.Fatal(err)
	}
	encap := map[string]string{"node1": "172.31.0.1", "node2": "172.31.0.2", "node3": "172.31.0.3"}
	for i, x := range []struct {
		z    *Env
		h    *Host
		l, r string
	}{{z1, h1, "p1", "p2"}, {z2, h2, "p2", "p1"}} {
		peer := remoteOf[x.r]
		if _, err := x.z.SBCtl(ctx, "chassis-add", peer, "geneve", encap[peer], "--", "set", "Chassis", peer,
			"other_config:is-remote=true"); err != nil {
			t.Fatal(err)
		}
		// Each port's tunnel key is the same in both zones.
		if _, err := x.z.NBCtl(ctx, "ls-add", "ts", "--", "set", "Logical_Switch", "ts", "other_config:requested-tnl-key=5",
			"--", "lsp-add", "ts", x.l, "--", "lsp-set-addresses", x.l, "unknown",
			"--", "lsp-add", "ts", x.r, "--", "lsp-set-addresses", x.r, "unknown", "--", "lsp-set-type", x.r, "remote",
			"--", "lsp-set-options", x.r, "requested-chassis="+peer,
			"--", "set", "Logical_Switch_Port", "p1", "options:requested-tnl-key=1",
			"--", "set", "Logical_Switch_Port", "p2", "options:requested-tnl-key=2"); err != nil {
			t.Fatal(err)
		}
		if _, err := x.h.VSCtl(ctx, "add-port", "br-int", x.l, "--", "set", "Interface", x.l, "type=internal",
			"external_ids:iface-id="+x.l); err != nil {
			t.Fatal(err)
		}
		if err := x.h.IP(ctx, "addr", "add", fmt.Sprintf("10.0.0.%d/24", i+1), "dev", x.l); err != nil {
			t.Fatal(err)
		}
		if err := x.h.IP(ctx, "link", "set", x.l, "up"); err != nil {
			t.Fatal(err)
		}
		if err := x.z.Sync(ctx); err != nil {
			t.Fatal(err)
		}
	}
	return h1, h2
}

// TestTwoZonesTCP: TCP both ways between two zones over Geneve, through
// each zone's northd and ovn-controller and userspace Open vSwitch, with
// the interconnect switch written by hand (the SDK's plans are the next
// step); a remote port bound to the wrong chassis (node3, whose tunnel
// leads nowhere) makes it fail, so the check can fail.
func TestTwoZonesTCP(t *testing.T) {
	t.Run("bound right", func(t *testing.T) {
		h1, h2 := twoZones(t, map[string]string{"p1": "node1", "p2": "node2"})
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		if err := TCPCheck(ctx, h2, "10.0.0.2", h1); err != nil {
			t.Fatalf("zone 1 → zone 2: %v", err)
		}
		if err := TCPCheck(ctx, h1, "10.0.0.1", h2); err != nil {
			t.Fatalf("zone 2 → zone 1: %v", err)
		}
	})
	t.Run("remote port on the wrong chassis", func(t *testing.T) {
		h1, h2 := twoZones(t, map[string]string{"p1": "node1", "p2": "node3"})
		// Zone 1 has no tunnel to node2: what node2 sends arrives on no
		// tunnel port of node1's.
		h1.AllowLog(regexp.MustCompile(`\|tunnel\|WARN\|receive tunnel port not found \(.*,tun_src=172\.31\.0\.2,`))
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := TCPCheck(ctx, h2, "10.0.0.2", h1); err == nil {
			t.Fatal("zone 1 reached zone 2 through a port bound to node3")
		}
	})
}

// TestHostErrors: Errors reports a warning or error of ovs-vswitchd or
// ovn-controller that a correct host does not log, and not the ones it
// does, nor what follows an Underlay peer's stop.
func TestHostErrors(t *testing.T) {
	dir := t.TempDir()
	logs := map[string]string{
		"vswitchd.log": `2026-01-01T00:00:00.000Z|00001|bridge|INFO|bridge br-int: added interface br-int on port 65534
2026-01-01T00:00:01.000Z|00002|bridge|WARN|could not open network device nodev0 (No such device)
2026-01-01T00:00:02.000Z|00003|timeval|WARN|Unreasonably long 1200ms poll interval (0ms user, 0ms system)
2026-01-01T00:00:09.000Z|00004|dpif_netdev|ERR|error receiving data from u1: Network is down
`,
		"controller.log": `2026-01-01T00:00:00.000Z|00002|vif_plug_provider|WARN|failed to initialize representor VIF plug provider class: No such file or directory
2026-01-01T00:00:00.000Z|00011|rconn|WARN|unix:/tmp/x/br-int.mgmt: connection failed (No such file or directory)
2026-01-01T00:00:03.000Z|00012|binding|EMER|claimed a port twice
2026-01-01T00:00:10.000Z|00013|fatal_signal|WARN|terminating with signal 15 (Terminated)
`,
		"ovsdb.log": "2026-01-01T00:00:04.000Z|00003|jsonrpc|WARN|unix#5: send error: Broken pipe\n",
	}
	for name, body := range logs {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	h := &Host{Name: "node1", Dir: dir}
	want := []string{
		"vswitchd: 2026-01-01T00:00:01.000Z|00002|bridge|WARN|could not open network device nodev0 (No such device)",
		"vswitchd: 2026-01-01T00:00:09.000Z|00004|dpif_netdev|ERR|error receiving data from u1: Network is down",
		"controller: 2026-01-01T00:00:03.000Z|00012|binding|EMER|claimed a port twice",
	}
	if got := h.Errors(); !slices.Equal(got, want) {
		t.Errorf("Errors:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	h.quiet = time.Date(2026, 1, 1, 0, 0, 5, 0, time.UTC) // a peer stopped
	if got := h.Errors(); !slices.Equal(got, slices.Delete(slices.Clone(want), 1, 2)) {
		t.Errorf("Errors after a peer stopped at 00:00:05: %q", got)
	}
}
