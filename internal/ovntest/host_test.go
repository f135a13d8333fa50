package ovntest

import (
	"context"
	"net"
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
