package ipam_test

import (
	"fmt"
	"net/netip"

	"github.com/udnkit/udnkit/ipam"
)

// Seed 004: the Layer2 transit-router peers of node ID 4.
func ExampleTransitRouterPeerIPs() {
	for _, transit := range ipam.DefaultTransitSubnets() {
		router, gr, err := ipam.TransitRouterPeerIPs(transit, 4)
		if err != nil {
			panic(err)
		}
		fmt.Println(router, gr)
	}
	// Output:
	// 100.88.0.13/30 100.88.0.14/30
	// fd97::8/127 fd97::9/127
}

func ExampleLinkLocalFromMAC() {
	mac := ipam.MACFromIP(netip.MustParseAddr("203.203.0.1"))
	fmt.Println(mac, ipam.LinkLocalFromMAC(mac))
	// Output: 0a:58:cb:cb:00:01 fe80::858:cbff:fecb:1
}

func ExampleNetworkMasqueradeIPs() {
	subnet := ipam.DefaultMasqueradeSubnets()[0]
	fixed, _ := ipam.MasqueradeIPs(subnet)
	gr, mp, _ := ipam.NetworkMasqueradeIPs(subnet, 2)
	fmt.Println("host:", fixed.Host, "network 2:", gr, mp)
	fmt.Println(ipam.CheckMasqueradeCapacity(netip.MustParsePrefix("169.254.169.0/29"), 1))
	// Output:
	// host: 169.254.0.2 network 2: 169.254.0.13 169.254.0.14
	// masquerade subnet 169.254.169.0/29 is too small for network IDs up to 1: needs /28 or shorter: exhausted
}

func ExamplePodIPAllocator() {
	pods, err := ipam.NewPodIPAllocator(
		[]netip.Prefix{netip.MustParsePrefix("10.128.1.0/24"), netip.MustParsePrefix("fd00:10:128:1::/64")},
		[]netip.Prefix{netip.MustParsePrefix("10.128.1.0/29")},
	)
	if err != nil {
		panic(err)
	}
	// Restore an existing pod's addresses first, then allocate new ones.
	_ = pods.AllocateIPs(netip.MustParseAddr("10.128.1.8"), netip.MustParseAddr("fd00:10:128:1::3"))
	ips, _ := pods.Allocate()
	fmt.Println(ips)
	// Output: [10.128.1.9/24 fd00:10:128:1::4/64]
}

func ExampleHostSubnetAllocator() {
	a, _ := ipam.NewHostSubnetAllocator("cluster_udn_blue", []ipam.HostSubnetRange{
		{CIDR: netip.MustParsePrefix("10.128.0.0/23"), HostPrefix: 24},
	})
	for _, node := range []string{"node1", "node2", "node3"} {
		s, err := a.Allocate(node)
		fmt.Println(node, s, err)
	}
	// Output:
	// node1 [10.128.0.0/24] <nil>
	// node2 [10.128.1.0/24] <nil>
	// node3 [] network "cluster_udn_blue": node "node3": host subnets 10.128.0.0/23/24: exhausted: the network holds at most 2 nodes
}

// Seed 001: a Layer3 network's connect block and the pair of node ID 4.
func ExampleConnectSubnetAllocator() {
	a, _ := ipam.NewConnectSubnetAllocator("colored-enterprise", []ipam.ConnectSubnet{
		{CIDR: netip.MustParsePrefix("192.168.0.0/16"), NetworkPrefix: 24},
	})
	l3, _ := a.Allocate(1, ipam.ConnectLayer3)
	l2, _ := a.Allocate(40, ipam.ConnectLayer2)
	netSide, connSide, _ := ipam.ConnectNodeIPs(l3[0], 4)
	fmt.Println(l3, l2, netSide, connSide)
	// Output: [192.168.0.0/24] [192.168.1.0/31] 192.168.0.8/31 192.168.0.9/31
}

func ExampleIDAllocator() {
	ids := ipam.NewNetworkIDAllocator()
	a, _ := ids.Allocate("ns1_blue")
	b, _ := ids.Allocate("ns1_red")
	ids.Release("ns1_blue")
	c, _ := ids.Allocate("ns2_green") // round-robin: 1 is reused only after 4095
	fmt.Println(a, b, c, ipam.Layer3TransitSwitchTunnelKey(c), ipam.VRFTable(c))
	// Output: 1 2 3 16711686 1003
}

func ExampleTunnelKeyAllocator_AllocateForNetwork() {
	keys := ipam.NewTunnelKeyAllocator()
	// A primary Layer2 network with ID 5: its switch keeps the preserved
	// key, its transit router gets the first dynamic one.
	l2, _ := keys.AllocateForNetwork("ns1_l2", 5, ipam.Layer2TunnelKeys)
	// A connect router has no network ID of its own (the reference passes
	// 4096+1): one dynamic key.
	cr, _ := keys.AllocateForNetwork("colored-enterprise", ipam.MaxNetworkID+2, ipam.ConnectRouterTunnelKeys)
	fmt.Println(l2, cr)
	// Output: [16711688 16715779] [16715780]
}

func ExampleMACFromIP() {
	fmt.Println(ipam.MACFromIP(netip.MustParseAddr("192.168.1.5")))
	fmt.Println(ipam.MACFromIP(netip.MustParseAddr("fd01::1234"))) // SHA-256 of the text
	// Output:
	// 0a:58:c0:a8:01:05
	// 0a:58:11:37:a6:26
}
