package udnkit_test

import (
	"context"
	"fmt"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/udnkit/udnkit"
	"github.com/udnkit/udnkit/backend/ovnnb"
	"github.com/udnkit/udnkit/flows"
	"github.com/udnkit/udnkit/internal/ovntest"
	"github.com/udnkit/udnkit/internal/ovstest"
	"github.com/udnkit/udnkit/ipam"
	"github.com/udnkit/udnkit/netconf"
	"github.com/udnkit/udnkit/topology"
	"github.com/udnkit/udnkit/topology/egressip"
	"github.com/udnkit/udnkit/topology/egressqos"
	"github.com/udnkit/udnkit/topology/pods"
)

// TestRealClusterEgressFailover: a Cluster of three nodes (each its own
// zone; node2 and node3 egress-assignable) with a primary Layer3 UDN, an
// EgressIP selecting app=web and an EgressQoS, zone node1 synced to a real
// NB with northd. ovn-trace: web's packet to an external address crosses
// the transit switch to node2 marked 50000 with DSCP 46, db's leaves by
// node1 unmarked. node2 leaves: the IP moves to node3, PlanEvent's
// changes applied to the NB reroute web's traffic to node3, the rows
// changed are node2's own and web's reroute (and the node-IP set), and
// the NB then holds the plan from scratch (a Sync of it changes nothing).
func TestRealClusterEgressFailover(t *testing.T) {
	env := ovntest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	nb, err := ovnnb.Dial(ctx, ovnnb.Config{Endpoints: []string{env.NBUnix}})
	if err != nil {
		t.Fatal(err)
	}
	defer nb.Close()
	c, err := udnkit.New(udnkit.Config{Nodes: ovntest.Nodes(3, "")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.SetNamespace(netconf.Namespace{Name: "tenant", Labels: map[string]string{"team": "a"}}); err != nil {
		t.Fatal(err)
	}
	u, err := netconf.DecodeUDN([]byte("kind: UserDefinedNetwork\nmetadata: {name: blue, namespace: tenant}\nspec: {topology: Layer3, role: Primary, subnets: [\"10.128.0.0/16/24\"]}"))
	if err != nil {
		t.Fatal(err)
	}
	n, err := c.AddUDN(u)
	if err != nil {
		t.Fatal(err)
	}
	for _, node := range []string{"node2", "node3"} {
		if _, err := c.SetEgressAssignable(node, true); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.SetEgressIP(egressip.EgressIP{Name: "web", IPs: []netip.Addr{netip.MustParseAddr("172.18.0.100")},
		PodSelector: egressip.Selector{Requirements: []egressip.Requirement{{Key: "app", Op: egressip.OpIn, Values: []string{"web"}}}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.SetEgressQoS(egressqos.EgressQoS{Namespace: "tenant", Rules: []egressqos.Rule{{DSCP: 46}}}); err != nil {
		t.Fatal(err)
	}
	for _, app := range []string{"web", "db"} {
		if _, err := c.SetPod(udnkit.Pod{Pod: pods.Pod{Namespace: "tenant", Name: app, UID: "uid-" + app, Node: "node1"}, Labels: map[string]string{"app": app}}); err != nil {
			t.Fatal(err)
		}
	}
	desired, err := c.Plan("node1")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := nb.Sync(ctx, desired); err != nil {
		t.Fatal(err)
	}
	in, err := c.Input(n.Name, "node1")
	if err != nil {
		t.Fatal(err)
	}
	gwMAC := ipam.MACFromIP(in.HostSubnets["node1"][0].Addr().Next())
	trace := func(app string) string {
		t.Helper()
		if err := env.Sync(ctx); err != nil {
			t.Fatal(err)
		}
		o, ok := desired.Get(topology.KindSwitchPort, pods.PortName("tenant", app, "tenant/blue"))
		if !ok {
			t.Fatalf("no port of pod %s", app)
		}
		port := o.(topology.SwitchPort)
		mac, ip, _ := strings.Cut(port.Addresses[0], " ")
		out, err := env.Trace(ctx, port.Switch, fmt.Sprintf(`inport == %q && eth.src == %s && eth.dst == %s && ip4.src == %s && ip4.dst == 8.8.8.8 && ip.ttl == 64 && udp && udp.dst == 53`,
			port.Name, mac, gwMAC, ip))
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	p := n.Prefix()
	if out := trace("web"); !strings.Contains(out, `output to "`+p+`tstor-node2"`) || !strings.Contains(out, "pkt.mark = 50000;") ||
		!strings.Contains(out, "ip.dscp = 46;") {
		t.Fatalf("web is not rerouted to node2 marked, with DSCP 46:\n%s", out)
	}
	if out := trace("db"); !strings.Contains(out, `output to "breth0_`+p+`node1"`) || strings.Contains(out, "pkt.mark = 50000;") {
		t.Fatalf("db does not leave by node1 unmarked:\n%s", out)
	}

	ev := c.RemoveNode("node2")
	if st, _ := c.EgressIPStatus("web"); len(st.Items) != 1 || st.Items[0].Node != "node3" {
		t.Fatalf("the IP did not move to node3: %+v", st)
	}
	changes, err := c.PlanEvent("node1", ev)
	if err != nil {
		t.Fatal(err)
	}
	for _, ch := range changes {
		own := ch.Object.OwnedBy()
		rerouted := own.Controller == egressip.Controller && ch.Kind == topology.KindPolicy && ch.Op == topology.OpUpdate
		nodeSet := own.Controller == egressip.Controller && ch.Kind == topology.KindAddressSet
		if own.Node != "node2" && !rerouted && !nodeSet {
			t.Errorf("a change beyond node2's rows and the reroute: %v", ch)
		}
	}
	if _, err := nb.Apply(ctx, changes); err != nil {
		t.Fatal(err)
	}
	if out := trace("web"); !strings.Contains(out, `output to "`+p+`tstor-node3"`) || !strings.Contains(out, "pkt.mark = 50000;") {
		t.Fatalf("after the failover web is not rerouted to node3:\n%s", out)
	}
	fresh, err := c.Plan("node1")
	if err != nil {
		t.Fatal(err)
	}
	if again, _, err := nb.Sync(ctx, fresh); err != nil || len(again) != 0 {
		t.Fatalf("the NB after the event differs from the plan from scratch: %v\n%v", err, again)
	}
}

// TestRealClusterEgressBridge: the egress node's PlanNode on a real Open
// vSwitch bridge (ofproto/trace): a packet of the network's patch port
// from the bridge MAC with the EgressIP's mark is SNATed to the egress IP,
// an unmarked one to the node IP; after the egress node leaves, the new
// egress node's bridge SNATs the mark to the egress IP.
func TestRealClusterEgressBridge(t *testing.T) {
	env := ovstest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := udnkit.New(udnkit.Config{Nodes: ovntest.Nodes(3, "")})
	if err != nil {
		t.Fatal(err)
	}
	u, err := netconf.DecodeUDN([]byte("kind: UserDefinedNetwork\nmetadata: {name: blue, namespace: tenant}\nspec: {topology: Layer3, role: Primary, subnets: [\"10.128.0.0/16/24\"]}"))
	if err != nil {
		t.Fatal(err)
	}
	n, err := c.AddUDN(u)
	if err != nil {
		t.Fatal(err)
	}
	for _, node := range []string{"node2", "node3"} {
		if _, err := c.SetEgressAssignable(node, true); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.SetEgressIP(egressip.EgressIP{Name: "web", IPs: []netip.Addr{netip.MustParseAddr("172.18.0.100")}}); err != nil {
		t.Fatal(err)
	}
	check := func(node string) {
		t.Helper()
		var nd topology.Node
		for _, x := range c.Nodes() {
			if x.Name == node {
				nd = x
			}
		}
		mac := ipam.MACFromIP(nd.Addresses[0].Addr()).String()
		patch, def := "patch-breth0_"+n.Prefix()+node+"-to-br-int", "patch-breth0_"+node+"-to-br-int"
		bridge := "br" + node // one bridge per node on this switch
		ports, err := env.GatewayBridge(ctx, bridge, mac, "eth-"+node, def, patch)
		if err != nil {
			t.Fatal(err)
		}
		plan, err := c.PlanNode(node, udnkit.NodeLocal{Uplink: flows.Port{Name: "eth-" + node, OFPort: ports["eth-"+node]},
			DefaultPatchOFPort: ports[def], PatchOFPorts: map[string]int{n.Name: ports[patch]}})
		if err != nil {
			t.Fatal(err)
		}
		if out, err := env.Ofctl(ctx, flows.Text(plan.Flows), "add-flows", bridge, "-"); err != nil {
			t.Fatal(err, out)
		}
		trace := func(mark string) string {
			out, err := env.Trace(ctx, bridge, fmt.Sprintf("in_port=%d,ip,dl_src=%s,dl_dst=02:00:00:00:00:99,nw_src=10.128.0.5,nw_dst=8.8.8.8%s", ports[patch], mac, mark))
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
			t.Errorf("%s: marked packet: %s, want nat(src=172.18.0.100)", node, got)
		}
		if got := trace(",pkt_mark=1008"); !strings.Contains(got, "nat(src="+nd.Addresses[0].Addr().String()+")") {
			t.Errorf("%s: a served pod's packet to a node IP: %s, want the node IP", node, got)
		}
		if fmt.Sprint(plan.BridgeEgressIPs) != "[172.18.0.100]" {
			t.Errorf("%s: bridge egress IPs %v", node, plan.BridgeEgressIPs)
		}
	}
	check("node2")
	c.RemoveNode("node2")
	check("node3")
}
