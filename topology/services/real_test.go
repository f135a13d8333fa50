package services_test

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
	"github.com/udnkit/udnkit/netconf/udn"
	"github.com/udnkit/udnkit/topology"
	"github.com/udnkit/udnkit/topology/pods"
	"github.com/udnkit/udnkit/topology/services"
)

// tenant is one primary network of the real test with its pods (by name)
// and its Service's cluster IP.
type tenant struct {
	net       *udn.Network
	in        topology.Input
	pods      map[string]pods.Planned
	clusterIP string
}

// TestRealServices: two tenants' primary Layer3 networks with the same
// subnet, each with a pod on node1 and node2 and a ClusterIP Service whose
// endpoint is the node2 pod (the same address in both). Networks, pods and
// load balancers are planned by udnkit and synced by three controllers;
// ovn-trace referees: a pod's own ClusterIP is load-balanced to its
// network's endpoint and delivered across nodes; the other tenant's
// ClusterIP, and a default-network ClusterIP, are not load-balanced on its
// network (and never reach the endpoint of the same address in it); the
// Kubernetes API's ClusterIP leaves through the management port.
func TestRealServices(t *testing.T) {
	env := ovntest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c, err := ovnnb.Dial(ctx, ovnnb.Config{Endpoints: []string{env.NBUnix}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	nodes := ovntest.Nodes(3, "zone1")
	svcCIDR := netip.MustParsePrefix("10.96.0.0/16")
	blue := ovntest.Layer3Network()
	red := ovntest.Layer3Network()
	red.Name, red.ID = "ns2_red", 2
	tenants := map[string]*tenant{"blue": {net: blue, clusterIP: "10.96.0.50"}, "red": {net: red, clusterIP: "10.96.0.60"}}
	for _, name := range []string{"blue", "red"} {
		tn := tenants[name]
		tn.in = ovntest.PlanInput(tn.net, nodes, "zone1")
		topo, err := topology.Plan(tn.in)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := c.Sync(ctx, topo); err != nil {
			t.Fatal(err)
		}
		tn.pods = map[string]pods.Planned{}
		byNode := map[string][]pods.Planned{}
		for _, node := range []string{"node1", "node2"} {
			a, err := ipam.NewPodIPAllocator(tn.in.HostSubnets[node], nil)
			if err != nil {
				t.Fatal(err)
			}
			ips, err := a.Allocate()
			if err != nil {
				t.Fatal(err)
			}
			pod := name + "-" + node
			p, err := pods.PlanPod(pods.Input{Pod: pods.Pod{Namespace: strings.Split(tn.net.Name, "_")[0], Name: pod, UID: "uid-" + pod, Node: node},
				Attachments: []pods.Attachment{{Network: tn.net, NAD: strings.Replace(tn.net.Name, "_", "/", 1), Role: netconf.PodRolePrimary,
					IPs: ips, HostSubnets: tn.in.HostSubnets[node]}},
				Nodes: nodes, Zone: "zone1", ServiceCIDRs: []netip.Prefix{svcCIDR}})
			if err != nil {
				t.Fatal(err)
			}
			tn.pods[node] = p
			byNode[node] = append(byNode[node], p)
		}
		for node, ps := range byNode {
			s, err := pods.PlanNode(node, []string{tn.net.Name}, ps)
			if err != nil {
				t.Fatal(err)
			}
			if _, _, err := c.Sync(ctx, s); err != nil {
				t.Fatal(err)
			}
		}
		endpoint := tn.pods["node2"].Ports[0].Addresses[0] // "<mac> <ip>"
		_, ip, _ := strings.Cut(endpoint, " ")
		svcs, err := services.Plan(services.Input{Network: tn.net, Nodes: nodes, Zone: "zone1", Services: []services.Service{{
			Namespace: "ns", Name: "web", ClusterIPs: []netip.Addr{netip.MustParseAddr(tn.clusterIP)},
			Ports: []services.Port{{Protocol: services.ProtocolTCP, Port: 80}},
			Slices: []services.EndpointSlice{{Ports: []services.EndpointPort{{Protocol: services.ProtocolTCP, Port: 8080}},
				Endpoints: []services.Endpoint{{Addresses: []netip.Addr{netip.MustParseAddr(ip)}, Node: "node2"}}}}}}})
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := c.Sync(ctx, svcs); err != nil {
			t.Fatal(err)
		}
		// The topology's Sync leaves the load balancers in its group.
		if ch, _, err := c.Sync(ctx, topo); err != nil || len(ch) != 0 {
			t.Fatalf("topology re-sync: %v\n%s", err, ch)
		}
	}
	if err := env.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	blueA, blueB, redB := tenants["blue"].pods["node1"], tenants["blue"].pods["node2"], tenants["red"].pods["node2"]
	_, endpointIP, _ := strings.Cut(blueB.Ports[0].Addresses[0], " ") // "<mac> <ip>"
	if _, redIP, _ := strings.Cut(redB.Ports[0].Addresses[0], " "); redIP != endpointIP {
		t.Fatalf("the endpoints should share an address: %v, %v", blueB.Ports[0].Addresses, redB.Ports[0].Addresses)
	}
	// trace follows a TCP packet from blue's node1 pod to dst:80; lbDst
	// picks the backend of a load balancer's ct_lb_mark (ovn-trace then
	// takes any ct_lb_mark, a VIP's or not, as that DNAT: only the positive
	// case passes it). A VIP's own flow sets reg4 to the VIP.
	trace := func(dst string, lbDst bool) string {
		t.Helper()
		port := blueA.Ports[0]
		mac, ip, _ := strings.Cut(port.Addresses[0], " ")
		match := fmt.Sprintf(`inport == %q && eth.src == %s && eth.dst == %s && ip4.src == %s && ip4.dst == %s && ip.ttl == 64 && tcp && tcp.dst == 80`,
			port.Name, mac, "0a:58:0a:80:01:01", ip, dst)
		args := []string{port.Switch, match}
		if lbDst {
			args = append([]string{"--lb-dst=" + endpointIP + ":8080"}, args...)
		}
		out, err := env.Trace(ctx, args...)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	delivered := func(out string, p pods.Planned) bool {
		return strings.Contains(out, fmt.Sprintf("output to %q", p.Ports[0].Name))
	}
	t.Run("own ClusterIP is load-balanced and delivered", func(t *testing.T) {
		out := trace("10.96.0.50", true)
		if !strings.Contains(out, "reg4 = 10.96.0.50;") || !delivered(out, blueB) {
			t.Errorf("blue-node1 -> 10.96.0.50:80 not load-balanced to blue-node2:\n%s", out)
		}
	})
	t.Run("the other tenant's ClusterIP is not load-balanced", func(t *testing.T) {
		out := trace("10.96.0.60", false)
		if strings.Contains(out, "reg4 = 10.96.0.60;") || delivered(out, blueB) || delivered(out, redB) {
			t.Errorf("blue-node1 -> red's 10.96.0.60:80 was load-balanced:\n%s", out)
		}
		// It leaves untranslated through the gateway router to the
		// external bridge, whose flows drop the service CIDR from a
		// network's patch port (package flows).
		if !strings.Contains(out, `output to "breth0_ns1_blue_node1"`) {
			t.Errorf("blue-node1 -> 10.96.0.60:80 did not leave through the gateway router:\n%s", out)
		}
	})
	t.Run("a default-network ClusterIP is not load-balanced", func(t *testing.T) {
		out := trace("10.96.0.70", false)
		if strings.Contains(out, "reg4 = 10.96.0.70;") || delivered(out, blueB) {
			t.Errorf("blue-node1 -> 10.96.0.70:80 was load-balanced:\n%s", out)
		}
	})
	t.Run("the Kubernetes API's and DNS's ClusterIPs leave through the management port", func(t *testing.T) {
		for _, ip := range []string{"10.96.0.1", "10.96.0.10"} {
			out := trace(ip, false)
			if !strings.Contains(out, `output to "k8s-ns1_blue_node1"`) {
				t.Errorf("blue-node1 -> %s not sent to the management port:\n%s", ip, out)
			}
		}
	})
}
