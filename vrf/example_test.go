package vrf_test

import (
	"fmt"
	"net/netip"
	"strings"

	"github.com/udnkit/udnkit/netconf/udn"
	"github.com/udnkit/udnkit/vrf"
)

// The routes and rules of one Layer3 primary network on a node.
func Example() {
	s, err := vrf.Plan(vrf.Input{
		Node: vrf.Node{Name: "node1", Bridge: "breth0", Gateways: []netip.Addr{netip.MustParseAddr("172.18.0.1")},
			KubeletCgroup: "kubelet.slice/kubelet.service"},
		Networks: []vrf.Network{{Network: &udn.Network{Name: "ns1_blue", ID: 1, Topology: udn.TopologyLayer3, Role: udn.RolePrimary,
			Subnets: []udn.Subnet{{CIDR: netip.MustParsePrefix("10.128.0.0/16"), HostPrefix: 24}}},
			HostSubnets: []netip.Prefix{netip.MustParsePrefix("10.128.1.0/24")}}},
		Cluster: vrf.Cluster{ServiceCIDRs: []netip.Prefix{netip.MustParsePrefix("10.96.0.0/16")}},
	})
	if err != nil {
		panic(err)
	}
	for _, l := range strings.Split(s.Script(), "\n") {
		if strings.HasPrefix(l, "ip ") {
			fmt.Println(l)
		}
	}
	// Output:
	// ip link add name udn-1-vrf type vrf table 1001
	// ip link set dev udn-1-vrf up
	// ip link set dev ovn-k8s-mp1 address 0a:58:0a:80:01:02 mtu 1400 master udn-1-vrf up
	// ip addr add 10.128.1.2/24 dev ovn-k8s-mp1
	// ip route add default via 172.18.0.1 dev breth0 mtu 1400 proto 85 table 1001
	// ip route add unreachable default metric 4278198272 proto 85 table 1001
	// ip route add 10.96.0.0/16 via 169.254.0.4 dev breth0 src 169.254.0.2 mtu 1400 proto 85 table 1001
	// ip route add 10.128.0.0/16 via 10.128.1.1 dev ovn-k8s-mp1 proto 85 table 1001
	// ip route add 169.254.0.3/32 via 10.128.1.1 dev ovn-k8s-mp1 proto 85 table 1001
	// ip route add 169.254.0.12/32 dev ovn-k8s-mp1 mtu 1400 proto 85 table 1001
	// ip rule add priority 2000 to 169.254.0.12/32 lookup 1001
	// ip rule add priority 2000 fwmark 0x1001 lookup 1001
}
