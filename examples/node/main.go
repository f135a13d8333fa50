// Command node prints the node-side plan of two primary user-defined
// networks with overlapping pod subnets on one node, as commands a person
// can read: the VRFs, management ports, routes, ip rules and nftables host
// isolation (ip and nft), and the gateway bridge's OpenFlow flows
// (ovs-ofctl add-flow lines, with the ports of a fresh breth0). Every word
// is shell-quoted: the output is safe to run whatever the names hold. On a
// node, backend/kernel and backend/ovs apply the same plans (Sync).
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

	"github.com/udnkit/udnkit/flows"
	"github.com/udnkit/udnkit/netconf/udn"
	"github.com/udnkit/udnkit/vrf"
)

func main() {
	if err := run(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "node:", err)
		os.Exit(1)
	}
}

func mac(s string) net.HardwareAddr {
	m, err := net.ParseMAC(s)
	if err != nil {
		panic(err)
	}
	return m
}

// input is node ovn-worker (172.18.0.3) with the default network and two
// primary networks, blue (ID 1) and red (ID 2), each with a ClusterIP
// service; the OpenFlow port numbers are those a fresh breth0 would give.
func input() flows.Input {
	return flows.Input{
		Node: flows.Node{Bridge: "breth0", Physical: flows.Port{Name: "eth0", OFPort: 1}, MAC: mac("02:42:ac:12:00:03"),
			IPs:          []netip.Addr{netip.MustParseAddr("172.18.0.3")},
			DefaultPatch: flows.Port{Name: "patch-breth0_ovn-worker-to-br-int", OFPort: 2}},
		Networks: []flows.Network{
			{ID: 1, Name: "blue_net", Patch: flows.Port{Name: "patch-breth0_blue_net_ovn-worker-to-br-int", OFPort: 3},
				GatewayMAC: mac("02:42:ac:12:00:03"), IPv4: true, ClusterIPs: []netip.Addr{netip.MustParseAddr("10.96.0.5")}},
			{ID: 2, Name: "red_net", Patch: flows.Port{Name: "patch-breth0_red_net_ovn-worker-to-br-int", OFPort: 4},
				GatewayMAC: mac("02:42:ac:12:00:03"), IPv4: true, ClusterIPs: []netip.Addr{netip.MustParseAddr("10.96.0.6")}},
		},
		Cluster: flows.Cluster{ServiceCIDRs: []netip.Prefix{netip.MustParsePrefix("10.96.0.0/16")}},
	}
}

// kernel is the same node's kernel-side input: blue is Layer3 (node subnet
// 10.128.1.0/24), red Layer2 with the same 10.128.0.0/16.
func kernel() vrf.Input {
	subnet := netip.MustParsePrefix("10.128.0.0/16")
	return vrf.Input{
		Node: vrf.Node{Name: "ovn-worker", Bridge: "breth0", Gateways: []netip.Addr{netip.MustParseAddr("172.18.0.1")},
			KubeletCgroup: "kubelet.slice/kubelet.service"},
		Networks: []vrf.Network{
			{Network: &udn.Network{Name: "blue_net", ID: 1, Topology: udn.TopologyLayer3, Role: udn.RolePrimary,
				Subnets: []udn.Subnet{{CIDR: subnet, HostPrefix: 24}}}, HostSubnets: []netip.Prefix{netip.MustParsePrefix("10.128.1.0/24")},
				NodePorts: []vrf.L4Port{{Protocol: vrf.TCP, Port: 30080}}},
			{Network: &udn.Network{Name: "red_net", ID: 2, Topology: udn.TopologyLayer2, Role: udn.RolePrimary,
				Subnets: []udn.Subnet{{CIDR: subnet}}}},
		},
		Cluster: vrf.Cluster{ServiceCIDRs: []netip.Prefix{netip.MustParsePrefix("10.96.0.0/16")}},
		Pods:    vrf.Pods{DefaultIPs: []netip.Addr{netip.MustParseAddr("10.244.1.5")}},
	}
}

func run(w io.Writer) error {
	k, err := vrf.Plan(kernel())
	if err != nil {
		return err
	}
	fmt.Fprintln(w, "# kernel: VRFs, management ports, routes, rules and nftables")
	fmt.Fprint(w, k.Script())
	fmt.Fprintln(w)
	in := input()
	fs, err := flows.Plan(in)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "# %s on node %s: %d flows of cookie 0x%x (networks: blue ID 1 on port 3, red ID 2 on port 4)\n",
		in.Node.Bridge, in.Node.IPs[0], len(fs), flows.Cookie)
	fmt.Fprint(w, flows.Script(in.Node.Bridge, fs))
	return nil
}
