// Command node prints the node-side plan of two primary user-defined
// networks with overlapping pod subnets on one node, as commands a person
// can read: the VRFs, management ports, routes, ip rules and nftables host
// isolation (ip and nft), and the gateway bridge's OpenFlow flows
// (ovs-ofctl add-flow lines, with the ports of a fresh breth0), planned by
// the udnkit.Cluster that holds the networks (calls: New, AddUDN and
// SetService per network, PlanNode). Every word is shell-quoted: the output
// is safe to run whatever the names hold. On a node, backend/kernel and
// backend/ovs apply the same plans (Sync).
//
//	go run ./examples/node
//
// It needs nothing but Go.
package main

import (
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"strings"

	"github.com/udnkit/udnkit"
	"github.com/udnkit/udnkit/flows"
	"github.com/udnkit/udnkit/netconf"
	"github.com/udnkit/udnkit/topology"
	"github.com/udnkit/udnkit/topology/services"
	"github.com/udnkit/udnkit/vrf"
)

func main() {
	if err := run(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "node:", err)
		os.Exit(1)
	}
}

const udns = `
kind: UserDefinedNetwork
metadata: {name: net, namespace: blue}
spec: {topology: Layer3, role: Primary, subnets: ["10.128.0.0/16/24"]}
---
kind: UserDefinedNetwork
metadata: {name: net, namespace: red}
spec: {topology: Layer2, role: Primary, subnets: ["10.128.0.0/16"]}
`

// cluster is what the node's controller holds: the two networks, each
// with a Service, on the cluster's nodes (ovn-worker has the MAC of its
// gateway bridge).
func cluster() (*udnkit.Cluster, error) {
	worker := topology.Node{Name: "ovn-worker", ID: 2, Chassis: "chassis-worker",
		Addresses: []netip.Prefix{netip.MustParsePrefix("172.18.0.3/16")}, NextHops: []netip.Addr{netip.MustParseAddr("172.18.0.1")},
		MAC: net.HardwareAddr{0x02, 0x42, 0xac, 0x12, 0x00, 0x03}}
	c, err := udnkit.New(udnkit.Config{Nodes: []topology.Node{worker},
		DefaultNetwork: netconf.Cluster{ServiceCIDRs: []netip.Prefix{netip.MustParsePrefix("10.96.0.0/16")}}})
	if err != nil {
		return nil, err
	}
	for i, doc := range strings.Split(udns, "---") {
		u, err := netconf.DecodeUDN([]byte(doc))
		if err != nil {
			return nil, err
		}
		if _, err := c.AddUDN(u); err != nil {
			return nil, err
		}
		svc := services.Service{Namespace: u.Namespace, Name: "web", ClusterIPs: []netip.Addr{netip.AddrFrom4([4]byte{10, 96, 0, byte(5 + i)})},
			Ports: []services.Port{{Name: "http", Protocol: services.ProtocolTCP, Port: 80}}}
		if i == 0 {
			svc.Ports[0].NodePort = 30080
		}
		if _, err := c.SetService(svc); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// local is what only the node knows: its bridge's OpenFlow port numbers
// and its kubelet's cgroup.
var local = udnkit.NodeLocal{Uplink: flows.Port{Name: "eth0", OFPort: 1}, DefaultPatchOFPort: 2,
	PatchOFPorts: map[string]int{"blue_net": 3, "red_net": 4}, KubeletCgroup: "kubelet.slice/kubelet.service",
	Pods: vrf.Pods{DefaultIPs: []netip.Addr{netip.MustParseAddr("10.244.1.5")}}}

func run(w io.Writer) error {
	c, err := cluster()
	if err != nil {
		return err
	}
	plan, err := c.PlanNode("ovn-worker", local)
	if err != nil {
		return err
	}
	fmt.Fprintln(w, "# kernel: VRFs, management ports, routes, rules and nftables")
	fmt.Fprint(w, plan.Kernel.Script())
	fmt.Fprintln(w)
	fmt.Fprintf(w, "# breth0 on node 172.18.0.3: %d flows of cookie 0x%x (networks: blue ID 1 on port 3, red ID 2 on port 4)\n",
		len(plan.Flows), flows.Cookie)
	fmt.Fprint(w, flows.Script(plan.Bridge, plan.Flows))
	return nil
}
