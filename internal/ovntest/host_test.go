package ovntest

import (
	"context"
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
