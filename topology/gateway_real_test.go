package topology_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/udnkit/udnkit/backend/ovnnb"
	"github.com/udnkit/udnkit/internal/ovntest"
	"github.com/udnkit/udnkit/topology"
)

// TestRealGatewayOptions applies a Layer3 primary network (MTU 1300) of
// node1's interconnect zone to a real NB and reads what ovn-northd made of
// its gateway options in the SB: the rtos- port's gateway_mtu checks the
// length of packets routed out of it (check_pkt_larger: the MTU plus the
// 14-byte Ethernet header), the gateway router's join port does the same,
// and the etor- port announces no NAT address (its Port_Binding's
// nat_addresses hold the node's address alone: nat-addresses=router added
// the masquerade IP, the same on every node). The gateway router's
// disable_garp_rarp is not read by OVN 25.03 (a switch port option there);
// the reference sets it for the OVN that reads it. northd warns about
// nothing (ovntest.Start).
func TestRealGatewayOptions(t *testing.T) {
	env := ovntest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := ovnnb.Dial(ctx, ovnnb.Config{Endpoints: []string{env.NBUnix}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	n := ovntest.Layer3Network()
	n.MTU = 1300
	s, err := topology.Plan(ovntest.PlanInput(n, ovntest.Nodes(2, ""), "node1"))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Sync(ctx, s); err != nil {
		t.Fatal(err)
	}
	if err := env.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	const rtos, rtoj, etor = "rtos-ns1_blue_node1", "rtoj-GR_ns1_blue_node1", "etor-GR_ns1_blue_node1"
	for router, port := range map[string]string{"ns1_blue_ovn_cluster_router": rtos, "GR_ns1_blue_node1": rtoj} {
		flows, err := env.SBCtl(ctx, "lflow-list", router)
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, l := range strings.Split(flows, "\n") {
			if strings.Contains(l, "check_pkt_larger(1314)") && strings.Contains(l, `"`+port+`"`) {
				found = true
			}
		}
		if !found {
			t.Errorf("%s: no check_pkt_larger(1314) for %s:\n%s", router, port, grep(flows, "check_pkt_larger"))
		}
	}
	out, err := env.SBCtl(ctx, "--bare", "--columns=nat_addresses", "find", "Port_Binding", "logical_port="+etor)
	if err != nil {
		t.Fatal(err)
	}
	// northd announces the router port's own address (the node's) on an
	// l3gateway port whatever the options; nat-addresses=router added
	// every NAT address, the masquerade IP among them.
	if got := strings.TrimSpace(out); got != "0a:58:ac:12:00:02 172.18.0.2" {
		t.Errorf("%s: nat_addresses %q, want the node's address alone (no masquerade IP)", etor, got)
	}
}

func grep(text, s string) string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if strings.Contains(l, s) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
