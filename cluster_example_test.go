package udnkit_test

import (
	"fmt"
	"net/netip"

	"github.com/udnkit/udnkit"
	"github.com/udnkit/udnkit/netconf"
	"github.com/udnkit/udnkit/topology"
	"github.com/udnkit/udnkit/topology/pods"
)

func exampleNode(name string, last byte) topology.Node {
	return topology.Node{Name: name, Chassis: "chassis-" + name,
		Addresses: []netip.Prefix{netip.PrefixFrom(netip.AddrFrom4([4]byte{172, 18, 0, last}), 16)},
		NextHops:  []netip.Addr{netip.MustParseAddr("172.18.0.1")}}
}

// A controller restarts: it restores the Cluster from the annotations it
// wrote (here, from the Cluster before), adds what still exists in any
// order, and gets the same IDs and host subnets back.
func ExampleCluster_Restore() {
	blue, _ := netconf.DecodeUDN([]byte(`{"kind": "UserDefinedNetwork", "metadata": {"name": "blue", "namespace": "a"},
		"spec": {"topology": "Layer3", "role": "Primary", "subnets": ["10.128.0.0/16/24"]}}`))
	red, _ := netconf.DecodeUDN([]byte(`{"kind": "UserDefinedNetwork", "metadata": {"name": "red", "namespace": "b"},
		"spec": {"topology": "Layer3", "role": "Primary", "subnets": ["10.129.0.0/16/24"]}}`))

	before, _ := udnkit.New(udnkit.Config{Nodes: []topology.Node{exampleNode("node-a", 2), exampleNode("node-b", 3)}})
	before.AddUDN(blue)
	before.AddUDN(red)
	stored := before.Annotations() // what a controller writes on its Nodes and NADs

	after, _ := udnkit.New(udnkit.Config{})
	if err := after.Restore(stored); err != nil {
		panic(err)
	}
	after.AddNode(exampleNode("node-b", 3)) // other order, node-a gone
	r, _ := after.AddUDN(red)
	b, _ := after.AddUDN(blue)
	fmt.Println("freed:", after.EndRestore())
	sub, _ := after.HostSubnets(r.Name, "node-b")
	fmt.Println(b.Name, b.ID, r.Name, r.ID, sub)
	// Output:
	// freed: [Node node-a]
	// a_blue 1 b_red 2 [10.129.1.0/24]
}

// A pod's rows through the Cluster: SetPod allocates its addresses, and
// the event's changes are its port, ready for Apply; PodAnnotation is what
// to write on the pod.
func ExampleCluster_PlanEvent() {
	u, _ := netconf.DecodeUDN([]byte(`{"kind": "UserDefinedNetwork", "metadata": {"name": "blue", "namespace": "a"},
		"spec": {"topology": "Layer2", "role": "Primary", "subnets": ["10.100.0.0/16"]}}`))
	c, _ := udnkit.New(udnkit.Config{Nodes: []topology.Node{exampleNode("node-a", 2)}})
	c.AddUDN(u)
	if _, err := c.Plan("node-a"); err != nil { // Sync this once; then apply events
		panic(err)
	}
	ev, err := c.SetPod(pods.Pod{Namespace: "a", Name: "web-0", UID: "u1", Node: "node-a"}, nil)
	if err != nil {
		panic(err)
	}
	changes, _ := c.PlanEvent("node-a", ev)
	for _, ch := range changes {
		fmt.Println(ch.Op, ch.Kind, ch.Key)
	}
	ann, _ := c.PodAnnotation("a", "web-0")
	fmt.Println(len(ann) > 0)
	// Output:
	// create switch_port a.blue_a_web-0
	// true
}
