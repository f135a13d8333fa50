package ovnnb_test

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/udnkit/udnkit/backend/ovnnb"
	"github.com/udnkit/udnkit/internal/ovntest"
	"github.com/udnkit/udnkit/topology"
)

// pod is a test pod: a switch port of a network.
type pod struct {
	name, sw, mac, ip, gwMAC, gwIP string
}

func (p pod) port(own topology.Owner) topology.SwitchPort {
	return topology.SwitchPort{Owner: own, Name: p.name, Switch: p.sw, Addresses: []string{p.mac + " " + p.ip}}
}

// withPods returns s plus pod ports owned by network/node, and the remote
// pod ports.
func withPods(t *testing.T, s topology.State, pods map[topology.Owner][]pod, remote ...topology.SwitchPort) topology.State {
	t.Helper()
	var b topology.Builder
	for o := range s.Objects() {
		b.Add(o)
	}
	for own, ps := range pods {
		for _, p := range ps {
			b.Add(p.port(own))
		}
	}
	for _, p := range remote {
		b.Add(p)
	}
	out, err := b.State()
	if err != nil {
		t.Fatal(err)
	}
	return out
}

var dpRE = regexp.MustCompile(`dp="([^"]+)"`)

// trace runs ovn-trace for a packet entering at p and returns the full
// output, the datapaths it crossed and the ports it was output to.
func trace(t *testing.T, env *ovntest.Env, p pod, flow string) (out string, datapaths, outputs []string) {
	t.Helper()
	match := fmt.Sprintf(`inport == %q && eth.src == %s && `, p.name, p.mac) + flow
	out, err := env.Trace(context.Background(), p.sw, match)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range dpRE.FindAllStringSubmatch(out, -1) {
		if !slices.Contains(datapaths, m[1]) {
			datapaths = append(datapaths, m[1])
		}
	}
	for _, m := range regexp.MustCompile(`output to "([^"]+)"`).FindAllStringSubmatch(out, -1) {
		outputs = append(outputs, m[1])
	}
	return out, datapaths, outputs
}

func ipFlow(p pod, dstMAC, dst string) string {
	return fmt.Sprintf("eth.dst == %s && ip4.src == %s && ip4.dst == %s && ip.ttl == 64 && icmp4.type == 8", dstMAC, p.ip, dst)
}

// Integration test 2: ovn-trace proofs with a Layer3 and a Layer2 primary
// network whose pod subnets overlap (10.128.0.0/16 in both). The NB holds
// node1: the Layer3 network's three nodes share its zone, the Layer2
// network is programmed for node1's interconnect zone, so its pods on node2
// are remote ports bound to node2's chassis (as a pod controller writes
// them), reached through the tunnel.
func TestRealTraceIsolationAndConnectivity(t *testing.T) {
	env, c := realOVN(t, ovnnb.Config{})
	ctx := context.Background()
	l3, l2 := twoPrimaries(t)
	merged, err := l3.Merge(l2)
	if err != nil {
		t.Fatal(err)
	}
	blueA := pod{"blue-a", "ns1_blue_node1", "0a:58:0a:80:01:05", "10.128.1.5", "0a:58:0a:80:01:01", "10.128.1.1"}
	blueB := pod{"blue-b", "ns1_blue_node2", "0a:58:0a:80:02:05", "10.128.2.5", "0a:58:0a:80:02:01", "10.128.2.1"}
	// The red pods reuse the blue pods' addresses, and red-c has an address
	// only the red network uses.
	redA := pod{"red-a", "ns2_red_ovn_layer2_switch", "0a:58:0a:80:01:05", "10.128.1.5", "0a:58:0a:80:00:01", "10.128.0.1"}
	redB := pod{"red-b", "ns2_red_ovn_layer2_switch", "0a:58:0a:80:02:05", "10.128.2.5", "0a:58:0a:80:00:01", "10.128.0.1"}
	redC := pod{"red-c", "ns2_red_ovn_layer2_switch", "0a:58:0a:80:c8:05", "10.128.200.5", "0a:58:0a:80:00:01", "10.128.0.1"}
	own := func(s topology.State, node string) topology.Owner {
		for o := range s.Objects() {
			ow := o.OwnedBy()
			ow.Node = node
			return ow
		}
		return topology.Owner{}
	}
	node2 := l2Nodes()[1]
	remote := func(p pod) topology.SwitchPort {
		return ovntest.RemotePod(own(l2, ""), p.name, p.sw, p.mac+" "+p.ip, node2)
	}
	want := withPods(t, merged, map[topology.Owner][]pod{
		own(l3, "node1"): {blueA}, own(l3, "node2"): {blueB},
		own(l2, "node1"): {redA},
	}, remote(redB), remote(redC))
	if _, _, err := c.Sync(ctx, want); err != nil {
		t.Fatal(err)
	}
	if err := env.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	onlyNetwork := func(t *testing.T, dps []string, prefix string) {
		t.Helper()
		if len(dps) == 0 {
			t.Fatal("trace crossed no datapath")
		}
		for _, dp := range dps {
			if !strings.Contains(dp, prefix) {
				t.Errorf("packet left its network: crossed datapath %q (path %v)", dp, dps)
			}
		}
	}
	t.Run("blue pod reaches blue pod on another node switch", func(t *testing.T) {
		out, dps, outs := trace(t, env, blueA, ipFlow(blueA, blueA.gwMAC, blueB.ip))
		if !slices.Contains(outs, "blue-b") || !slices.Contains(dps, "ns1_blue_node2") {
			t.Fatalf("not delivered to blue-b on ns1_blue_node2 (outputs %v, path %v):\n%s", outs, dps, out)
		}
		onlyNetwork(t, dps, "ns1_blue")
	})
	t.Run("red pod reaches red pod on another node", func(t *testing.T) {
		// red-b runs on node2: the switch outputs to its remote port, that
		// is through the tunnel to node2's chassis.
		out, dps, outs := trace(t, env, redA, ipFlow(redA, redB.mac, redB.ip))
		if !slices.Contains(outs, "red-b") || !strings.Contains(out, `output to "red-b", type "remote"`) {
			t.Fatalf("not delivered to red-b's remote port (outputs %v):\n%s", outs, out)
		}
		onlyNetwork(t, dps, "ns2_red")
	})
	t.Run("same IP in the other network is never reached", func(t *testing.T) {
		// 10.128.2.5 is blue-b and red-b: each side reaches its own.
		_, dps, outs := trace(t, env, blueA, ipFlow(blueA, blueA.gwMAC, redB.ip))
		if slices.Contains(outs, "red-b") || !slices.Contains(outs, "blue-b") {
			t.Errorf("blue-a to %s: outputs %v", redB.ip, outs)
		}
		onlyNetwork(t, dps, "ns1_blue")
		_, dps, outs = trace(t, env, redA, ipFlow(redA, redA.gwMAC, blueB.ip))
		if slices.Contains(outs, "blue-b") {
			t.Errorf("red-a to %s: outputs %v", blueB.ip, outs)
		}
		onlyNetwork(t, dps, "ns2_red")
		// 10.128.200.5 exists only in red: blue's packet must not find it.
		out, dps, outs := trace(t, env, blueA, ipFlow(blueA, blueA.gwMAC, redC.ip))
		if slices.Contains(outs, "red-c") {
			t.Errorf("blue-a reached red-c:\n%s", out)
		}
		onlyNetwork(t, dps, "ns1_blue")
	})
	t.Run("default gateway answers from its network's router", func(t *testing.T) {
		for _, p := range []pod{blueA, redA} {
			arp := fmt.Sprintf("eth.dst == ff:ff:ff:ff:ff:ff && arp.op == 1 && arp.sha == %s && arp.spa == %s && arp.tpa == %s && arp.tha == 00:00:00:00:00:00",
				p.mac, p.ip, p.gwIP)
			out, _, _ := trace(t, env, p, arp)
			if !strings.Contains(out, "arp.sha = "+p.gwMAC) || !strings.Contains(out, `output("`+p.name+`")`) &&
				!strings.Contains(out, `output to "`+p.name+`"`) {
				t.Errorf("%s: ARP for %s not answered with %s:\n%s", p.name, p.gwIP, p.gwMAC, out)
			}
			out, dps, outs := trace(t, env, p, ipFlow(p, p.gwMAC, p.gwIP))
			if !strings.Contains(out, "ip4.dst == "+p.gwIP+" && icmp4.type == 8") || !strings.Contains(out, "icmp4.type = 0;") ||
				!strings.Contains(out, "ip4.dst <-> ip4.src;") || !slices.Contains(outs, p.name) {
				t.Errorf("%s: ping %s not answered by the router:\n%s", p.name, p.gwIP, out)
			}
			router, port := "ns1_blue_ovn_cluster_router", "rtos-ns1_blue_node1"
			if strings.HasPrefix(p.name, "red") {
				router, port = "ns2_red_transit_router", "trtos-ns2_red_ovn_layer2_switch"
			}
			if !slices.Contains(dps, router) || !strings.Contains(out, `ingress(dp="`+router+`", inport="`+port+`")`) {
				t.Errorf("%s: gateway reply did not come from %s's port %s (path %v):\n%s", p.name, router, port, dps, out)
			}
		}
	})
}
