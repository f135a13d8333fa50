package egressip_test

import (
	"context"
	"fmt"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/udnkit/udnkit/backend/ovnnb"
	"github.com/udnkit/udnkit/internal/ovntest"
	"github.com/udnkit/udnkit/topology"
	"github.com/udnkit/udnkit/topology/egressip"
)

// TestRealLayer2: the primary Layer2 network ns2_red on its transit
// router, zone node1, under both profiles (their transit-router peer
// addresses differ). With the egress IP on node1, the selected pod's
// traffic to 8.8.8.8 is rerouted to node1's gateway router and leaves by
// its external port marked; with it on node2 (another zone), the reroute
// sends it marked out of the transit router's port towards node2's gateway
// router. The unselected pod's leaves by node1 unmarked. No northd warning.
func TestRealLayer2(t *testing.T) {
	for _, profile := range []topology.Profile{topology.ProfileSeeds, topology.ProfileReference} {
		t.Run(profile.String(), func(t *testing.T) {
			env := ovntest.Start(t)
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			c, err := ovnnb.Dial(ctx, ovnnb.Config{Endpoints: []string{env.NBUnix}})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			nodes := ovntest.Nodes(2, "")
			red := ovntest.Layer2Network()
			in := ovntest.PlanInput(red, nodes, "node1")
			in.Profile = profile
			topo, err := topology.Plan(in)
			if err != nil {
				t.Fatal(err)
			}
			if _, _, err := c.Sync(ctx, topo); err != nil {
				t.Fatal(err)
			}
			in.HostSubnets = map[string][]netip.Prefix{"node1": {red.Subnets[0].CIDR}}
			pods := planPods(t, c, ctx, red, in, nodes, "node1", "selected", "plain")
			sel := egressip.Selector{Requirements: []egressip.Requirement{{Key: "egress", Op: egressip.OpIn, Values: []string{"needed"}}}}
			eipPods := []egressip.Pod{
				{Namespace: "ns1", Name: "selected", Node: "node1", Labels: egressPodLabel, IPs: []netip.Addr{pods["selected"].ip}},
				{Namespace: "ns1", Name: "plain", Node: "node1", IPs: []netip.Addr{pods["plain"].ip}},
			}
			trace := func(name string) string {
				p := pods[name]
				match := fmt.Sprintf(`inport == %q && eth.src == %s && eth.dst == 0a:58:0a:80:00:01 && ip4.src == %s && ip4.dst == 8.8.8.8 && ip.ttl == 64 && udp && udp.dst == 53`,
					p.port, p.mac, p.ip)
				out, err := env.Trace(ctx, "ns2_red_ovn_layer2_switch", match)
				if err != nil {
					t.Fatal(err)
				}
				return out
			}
			for _, tc := range []struct {
				egress, out string
			}{{"node1", `output to "breth0_ns2_red_node1"`}, {"node2", `output to "trtor-GR_ns2_red_node2"`}} {
				rows, err := egressip.Plan(egressip.Input{Network: red, Nodes: nodes, Zone: "node1", Profile: profile,
					EgressIPs: []egressip.EgressIP{{Name: "eip", IPs: addrs("172.18.0.100"), Mark: 50000, PodSelector: sel,
						Status: []egressip.Assignment{{Node: tc.egress, IP: netip.MustParseAddr("172.18.0.100")}}}},
					Namespaces: []egressip.Namespace{{Name: "ns1"}}, Pods: eipPods, NodeIPs: addrs("172.18.0.2", "172.18.0.3"), ServiceIPs: in.Cluster.ServiceIPs})
				if err != nil {
					t.Fatal(err)
				}
				if _, _, err := c.Sync(ctx, rows); err != nil {
					t.Fatal(err)
				}
				if err := env.Sync(ctx); err != nil {
					t.Fatal(err)
				}
				if out := trace("selected"); !strings.Contains(out, tc.out) || !strings.Contains(out, "pkt.mark = 50000;") {
					t.Errorf("egress on %s: the selected pod's traffic, want %s marked:\n%s", tc.egress, tc.out, out)
				}
				if out := trace("plain"); !strings.Contains(out, `output to "breth0_ns2_red_node1"`) || strings.Contains(out, "pkt.mark = 50000;") {
					t.Errorf("egress on %s: the unselected pod's traffic:\n%s", tc.egress, out)
				}
			}
		})
	}
}
