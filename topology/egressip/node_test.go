package egressip_test

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/udnkit/udnkit/flows"
	"github.com/udnkit/udnkit/internal/ovstest"
	"github.com/udnkit/udnkit/topology/egressip"
)

func bridgeInput(patchA, patchB, phys int) egressip.BridgeInput {
	mac, _ := net.ParseMAC("02:42:ac:12:00:03")
	return egressip.BridgeInput{Node: "node1", Physical: flows.Port{Name: "eth0", OFPort: phys}, MAC: mac, NodeIPs: addrs("172.18.0.3"),
		Networks: []egressip.BridgeNetwork{{ID: 1, Patch: flows.Port{Name: "a", OFPort: patchA}}, {ID: 2, Patch: flows.Port{Name: "b", OFPort: patchB}}},
		EgressIPs: []egressip.EgressIP{
			{Name: "e1", Mark: 50000, Status: []egressip.Assignment{{Node: "node1", IP: netip.MustParseAddr("172.18.0.100")}, {Node: "node2", IP: netip.MustParseAddr("172.18.0.101")}}},
			{Name: "e2", Mark: 50001, Status: []egressip.Assignment{{Node: "node2", IP: netip.MustParseAddr("172.18.0.102")}}},
			{Name: "e6", Mark: 50002, Status: []egressip.Assignment{{Node: "node1", IP: netip.MustParseAddr("fc00::100")}}},
		}}
}

// TestBridgeFlows: the reference's br-ex flow for a UDN egress IP
// (node/bridgeconfig/bridgeflows.go: table 0, priority 105, pkt_mark,
// ct(commit,zone=64000,nat(src=<EIP>))) per network and egress IP of the
// node only.
func TestBridgeFlows(t *testing.T) {
	fs, err := egressip.BridgeFlows(bridgeInput(5, 6, 1))
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Join([]string{
		"table=0,priority=105,in_port=5,dl_src=02:42:ac:12:00:03,ip,pkt_mark=0x3f0 actions=ct(commit,zone=64000,nat(src=172.18.0.3),exec(set_field:0x4->ct_mark)),output:1",
		"table=0,priority=105,in_port=5,dl_src=02:42:ac:12:00:03,ip,pkt_mark=50000 actions=ct(commit,zone=64000,nat(src=172.18.0.100),exec(set_field:0x4->ct_mark)),output:1",
		"table=0,priority=105,in_port=5,dl_src=02:42:ac:12:00:03,ipv6,pkt_mark=50002 actions=ct(commit,zone=64000,nat(src=fc00::100),exec(set_field:0x4->ct_mark)),output:1",
		"table=0,priority=105,in_port=6,dl_src=02:42:ac:12:00:03,ip,pkt_mark=0x3f0 actions=ct(commit,zone=64000,nat(src=172.18.0.3),exec(set_field:0x5->ct_mark)),output:1",
		"table=0,priority=105,in_port=6,dl_src=02:42:ac:12:00:03,ip,pkt_mark=50000 actions=ct(commit,zone=64000,nat(src=172.18.0.100),exec(set_field:0x5->ct_mark)),output:1",
		"table=0,priority=105,in_port=6,dl_src=02:42:ac:12:00:03,ipv6,pkt_mark=50002 actions=ct(commit,zone=64000,nat(src=fc00::100),exec(set_field:0x5->ct_mark)),output:1",
	}, "\n")
	var got []string
	for _, f := range fs {
		got = append(got, f.Key()+" actions="+f.Actions)
	}
	if strings.Join(got, "\n") != want {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), want)
	}
	if ips := egressip.BridgeIPs("node1", bridgeInput(5, 6, 1).EgressIPs); !slices.Equal(ips, addrs("172.18.0.100", "fc00::100")) {
		t.Errorf("bridge IPs %v", ips)
	}
	if v := egressip.FormatBridgeIPs(addrs("172.18.0.100", "fc00::100")); v != `["172.18.0.100","fc00::100"]` {
		t.Errorf("annotation %s", v)
	}
	in := bridgeInput(5, 6, 1)
	in.EgressIPs[0].Mark = 0
	if _, err := egressip.BridgeFlows(in); err == nil || !strings.Contains(err.Error(), `egressip "e1"`) {
		t.Errorf("no mark: %v", err)
	}
}

// TestRealBridgeSNAT: on a real Open vSwitch bridge with package flows'
// plan and the egress-IP flows, a packet of network a carrying the
// EgressIP's mark leaves the uplink SNATed to the egress IP; one without
// the mark to the node IP.
func TestRealBridgeSNAT(t *testing.T) {
	env := ovstest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	const mac, pa, pb = "02:42:ac:12:00:03", "patch-breth0_ns1_a_node1-to-br-int", "patch-breth0_ns2_b_node1-to-br-int"
	ports, err := env.GatewayBridge(ctx, "breth0", mac, "eth0", "patch-breth0_node1-to-br-int", pa, pb)
	if err != nil {
		t.Fatal(err)
	}
	hw, _ := net.ParseMAC(mac)
	port := func(n string) flows.Port { return flows.Port{Name: n, OFPort: ports[n]} }
	base, err := flows.Plan(flows.Input{
		Node: flows.Node{Bridge: "breth0", Physical: port("eth0"), MAC: hw, IPs: addrs("172.18.0.3"), DefaultPatch: port("patch-breth0_node1-to-br-int")},
		Networks: []flows.Network{{ID: 1, Name: "ns1_a", Patch: port(pa), GatewayMAC: hw, IPv4: true},
			{ID: 2, Name: "ns2_b", Patch: port(pb), GatewayMAC: hw, IPv4: true}},
		Cluster: flows.Cluster{ServiceCIDRs: []netip.Prefix{netip.MustParsePrefix("10.96.0.0/16")}}})
	if err != nil {
		t.Fatal(err)
	}
	bin := bridgeInput(ports[pa], ports[pb], ports["eth0"])
	bin.MAC = hw
	eip, err := egressip.BridgeFlows(bin)
	if err != nil {
		t.Fatal(err)
	}
	if out, err := env.Ofctl(ctx, flows.Text(append(base, eip...)), "add-flows", "breth0", "-"); err != nil {
		t.Fatal(err, out)
	}
	trace := func(mark string, src ...string) string {
		from := "169.254.0.11" // network a's masquerade IP, which its gateway router SNATs to
		if len(src) > 0 {
			from = src[0]
		}
		flow := fmt.Sprintf("in_port=%d,ip,dl_src=%s,dl_dst=02:00:00:00:00:99,nw_src=%s,nw_dst=8.8.8.8%s", ports[pa], mac, from, mark)
		out, err := env.Trace(ctx, "breth0", flow)
		if err != nil {
			t.Fatal(err, out)
		}
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(l, "Datapath actions:") {
				return l
			}
		}
		return out
	}
	if got := trace(",pkt_mark=50000"); !strings.Contains(got, "nat(src=172.18.0.100)") {
		t.Errorf("marked packet: %s, want nat(src=172.18.0.100)", got)
	}
	if got := trace(""); !strings.Contains(got, "nat(src=172.18.0.3)") {
		t.Errorf("unmarked packet: %s, want nat(src=172.18.0.3)", got)
	}
	if got := trace(",pkt_mark=50001"); !strings.Contains(got, "nat(src=172.18.0.3)") {
		t.Errorf("another node's EgressIP's mark: %s, want the node IP", got)
	}
	// From another source than the masquerade IP only the 1008 flow applies.
	if got := trace(",pkt_mark=1008", "10.128.0.5"); !strings.Contains(got, "nat(src=172.18.0.3)") || !strings.Contains(got, "zone=64000,mark=0x4") {
		t.Errorf("a served pod's traffic to a node IP: %s, want the node IP and network a's ct_mark", got)
	}
}
