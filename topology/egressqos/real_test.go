package egressqos_test

import (
	"context"
	"fmt"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/udnkit/udnkit/backend/ovnnb"
	"github.com/udnkit/udnkit/internal/ovntest"
	"github.com/udnkit/udnkit/ipam"
	"github.com/udnkit/udnkit/netconf"
	"github.com/udnkit/udnkit/topology"
	"github.com/udnkit/udnkit/topology/egressip"
	"github.com/udnkit/udnkit/topology/egressqos"
	"github.com/udnkit/udnkit/topology/pods"
)

// TestRealEgressQoS: a primary network of namespace ns1 (the Layer3
// ns1_blue on two nodes of one zone, and the Layer2 ns1_red in node1's
// interconnect zone), pods "foo" (app=foo) and "bar" on node1, and namespace ns1's
// EgressQoS {dscp 50 to 1.2.3.4/32, dscp 60 for app=foo}. The address
// sets and the QoS rows are synced through ovnnb (a second Sync changes
// nothing). ovn-trace referees: foo's packets to
// 8.8.8.8 get DSCP 60, to 1.2.3.4 DSCP 50; bar's to 8.8.8.8 none, to
// 1.2.3.4 DSCP 50. No northd warning.
func TestRealEgressQoS(t *testing.T) {
	t.Run("Layer3", func(t *testing.T) { realEgressQoS(t, ovntest.Layer3Network(), ovntest.Nodes(2, "zone1"), "zone1") })
	// A Layer2 primary (the namespace's second primary network, seed 002)
	// in its interconnect zone: the rows on its one switch.
	t.Run("Layer2", func(t *testing.T) {
		red := ovntest.Layer2Network()
		red.Name = "ns1_red"
		realEgressQoS(t, red, ovntest.Nodes(2, ""), "node1")
	})
}

func realEgressQoS(t *testing.T, blue *netconf.Network, nodes []topology.Node, zone string) {
	env := ovntest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c, err := ovnnb.Dial(ctx, ovnnb.Config{Endpoints: []string{env.NBUnix}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	in := ovntest.PlanInput(blue, nodes, zone)
	topo, err := topology.Plan(in)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Sync(ctx, topo); err != nil {
		t.Fatal(err)
	}
	if blue.Topology == netconf.TopologyLayer2 {
		in.HostSubnets = map[string][]netip.Prefix{"node1": {blue.Subnets[0].CIDR}}
	}
	alloc, err := ipam.NewPodIPAllocator(in.HostSubnets["node1"], nil)
	if err != nil {
		t.Fatal(err)
	}
	planned := map[string]pods.Planned{}
	var qosPods []egressqos.Pod
	var all []pods.Planned
	for _, name := range []string{"foo", "bar"} {
		ips, err := alloc.Allocate()
		if err != nil {
			t.Fatal(err)
		}
		p, err := pods.PlanPod(pods.Input{Pod: pods.Pod{Namespace: "ns1", Name: name, UID: "uid-" + name, Node: "node1"},
			Attachments: []pods.Attachment{{Network: blue, NAD: strings.Replace(blue.Name, "_", "/", 1), Role: netconf.PodRolePrimary, IPs: ips, HostSubnets: in.HostSubnets["node1"]}},
			Nodes:       nodes, Zone: "zone1", ServiceCIDRs: []netip.Prefix{netip.MustParsePrefix("10.96.0.0/16")}})
		if err != nil {
			t.Fatal(err)
		}
		planned[name] = p
		all = append(all, p)
		qosPods = append(qosPods, egressqos.Pod{Namespace: "ns1", Name: name, Node: "node1", Labels: egressip.NewLabels("app", name),
			IPs: []egressqos.NetworkIPs{{Network: blue.Name, IPs: []netip.Addr{ips[0].Addr()}}}})
	}
	ps, err := pods.PlanNode("node1", []string{blue.Name}, all)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Sync(ctx, ps); err != nil {
		t.Fatal(err)
	}
	plan, err := egressqos.PlanZone(egressqos.Input{
		Networks: []egressqos.Network{{Network: blue, Namespaces: []string{"ns1"}}}, Nodes: nodes, Zone: zone, Pods: qosPods,
		EgressQoS: []egressqos.EgressQoS{{Namespace: "ns1", Rules: []egressqos.Rule{
			{DSCP: 50, DstCIDR: netip.MustParsePrefix("1.2.3.4/32")},
			{DSCP: 60, PodSelector: &egressip.Selector{Requirements: []egressip.Requirement{{Key: "app", Op: egressip.OpIn, Values: []string{"foo"}}}}},
		}}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Sync(ctx, plan); err != nil {
		t.Fatal(err)
	}
	if again, _, err := c.Sync(ctx, plan); err != nil || len(again) != 0 {
		t.Fatalf("second sync: %v, %d changes:\n%v", err, len(again), again)
	}
	if want := 2 * len(in.HostSubnets); len(rows(plan)) != want { // two rules per local node switch, or on the Layer2 switch
		t.Fatalf("QoS rows:\n%v", rows(plan))
	}
	if err := env.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	trace := func(from, dst string) string {
		t.Helper()
		port := planned[from].Ports[0]
		mac, ip, _ := strings.Cut(port.Addresses[0], " ")
		gwMAC := ipam.MACFromIP(in.HostSubnets["node1"][0].Addr().Next())
		match := fmt.Sprintf(`inport == %q && eth.src == %s && eth.dst == `+gwMAC.String()+` && ip4.src == %s && ip4.dst == %s && ip.ttl == 64 && udp && udp.dst == 53`,
			port.Name, mac, ip, dst)
		out, err := env.Trace(ctx, port.Switch, match)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	for _, tc := range []struct {
		from, dst string
		dscp      int // 0: none
	}{{"foo", "8.8.8.8", 60}, {"foo", "1.2.3.4", 50}, {"bar", "8.8.8.8", 0}, {"bar", "1.2.3.4", 50}} {
		t.Run(tc.from+" to "+tc.dst, func(t *testing.T) {
			out := trace(tc.from, tc.dst)
			got := strings.Contains(out, "ip.dscp = ")
			if tc.dscp == 0 && got || tc.dscp != 0 && !strings.Contains(out, fmt.Sprintf("ip.dscp = %d;", tc.dscp)) {
				t.Errorf("want DSCP %d:\n%s", tc.dscp, out)
			}
			if !strings.Contains(out, `output to "breth0_`+blue.Prefix()+`node1"`) {
				t.Errorf("did not leave by node1's gateway:\n%s", out)
			}
		})
	}
}
