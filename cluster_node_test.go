package udnkit

import (
	"errors"
	"net/netip"
	"strings"
	"testing"

	"github.com/udnkit/udnkit/flows"
	"github.com/udnkit/udnkit/ipam"
	"github.com/udnkit/udnkit/topology"
	"github.com/udnkit/udnkit/topology/services"
)

// TestPlanNode: a node's kernel and bridge plans come from the Cluster
// with nothing but what only the node knows (its OpenFlow port numbers
// and kubelet cgroup): its host subnets, the networks' IDs and Services.
func TestPlanNode(t *testing.T) {
	c, err := New(Config{Nodes: []topology.Node{testNode("node-a", 0), testNode("node-b", 0)}})
	if err != nil {
		t.Fatal(err)
	}
	blue, err := c.AddUDN(udnDoc("blue", "net", "Layer3", "Primary", "10.128.0.0/16/24"))
	if err != nil {
		t.Fatal(err)
	}
	red, err := c.AddUDN(udnDoc("red", "net", "Layer2", "Primary", "10.200.0.0/16"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.AddUDN(udnDoc("red", "sec", "Layer2", "Secondary", "192.168.0.0/24")); err != nil {
		t.Fatal(err)
	}
	if _, err := c.SetService(services.Service{Namespace: "blue", Name: "web", ClusterIPs: []netip.Addr{netip.MustParseAddr("10.96.0.50")},
		Ports: []services.Port{{Name: "http", Protocol: services.ProtocolTCP, Port: 80, NodePort: 30080}}}); err != nil {
		t.Fatal(err)
	}
	local := NodeLocal{Uplink: flows.Port{Name: "eth0", OFPort: 1}, DefaultPatchOFPort: 2,
		PatchOFPorts: map[string]int{blue.Name: 3, red.Name: 4}, KubeletCgroup: "kubelet.slice/kubelet.service"}
	plan, err := c.PlanNode("node-b", local)
	if err != nil {
		t.Fatal(err)
	}
	hs, _ := c.HostSubnets(blue.Name, "node-b")
	mp, _ := ipam.ManagementIP(hs[0])
	script := plan.Kernel.Script()
	for _, want := range []string{"ovn-k8s-mp1", "ovn-k8s-mp2", mp.String(), "30080", "table 1001", "table 1002"} {
		if !strings.Contains(script, want) {
			t.Errorf("the kernel plan lacks %q:\n%s", want, script)
		}
	}
	text := flows.Text(plan.Flows)
	nodeIP := testNode("node-b", 0).Addresses[0].Addr().String()
	for _, want := range []string{"in_port=3", "in_port=4", "10.96.0.50", nodeIP} {
		if !strings.Contains(text, want) {
			t.Errorf("the bridge plan lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(script, "red_sec") || strings.Contains(text, "red_sec") {
		t.Error("a secondary network is on the node's plan")
	}
	delete(local.PatchOFPorts, red.Name)
	if _, err := c.PlanNode("node-b", local); !errors.Is(err, ErrUnknownNetwork) || !strings.Contains(err.Error(), red.Name) {
		t.Fatalf("a missing patch port: %v, want an error naming %s", err, red.Name)
	}
	boot := testNode("node-c", 0)
	boot.Chassis = ""
	if err := c.AddNode(boot); err != nil {
		t.Fatal(err)
	}
	if _, err := c.PlanNode("node-c", local); !errors.Is(err, ErrZoneNotReady) {
		t.Fatalf("a bootstrapping node plans: %v", err)
	}
}

// TestExternalBridgeValidatesAndPlans: a bridge name the node plans would
// refuse is refused by New already (it validated and PlanNode refused it),
// and by the zone's plan of a Cluster's Input taken as it is.
func TestExternalBridgeValidatesAndPlans(t *testing.T) {
	for _, bridge := range []string{"a/b", "-x", "a-bridge-name-too-long", "br\x00"} {
		_, err := New(Config{Nodes: []topology.Node{testNode("node-a", 0)}, Cluster: topology.Cluster{ExternalBridge: bridge}})
		if !errors.Is(err, topology.ErrInvalid) || !strings.Contains(err.Error(), "externalBridge") {
			t.Errorf("bridge %q: New = %v, want a refusal naming externalBridge", bridge, err)
		}
		c, err := New(Config{Nodes: []topology.Node{testNode("node-a", 0)}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.AddUDN(udnDoc("blue", "net", "Layer3", "Primary", "10.128.0.0/16/24")); err != nil {
			t.Fatal(err)
		}
		in, err := c.Input("blue_net", "node-a")
		if err != nil {
			t.Fatal(err)
		}
		in.Cluster.ExternalBridge = bridge
		if _, err := topology.Plan(in); !errors.Is(err, topology.ErrInvalid) || !strings.Contains(err.Error(), "externalBridge") {
			t.Errorf("bridge %q: topology.Plan = %v, want a refusal naming externalBridge", bridge, err)
		}
	}
}
