package kernel_test

import (
	"context"
	"fmt"
	"net/netip"

	"github.com/google/nftables"
	"github.com/vishvananda/netlink"

	"github.com/udnkit/udnkit/backend"
	"github.com/udnkit/udnkit/backend/kernel"
	"github.com/udnkit/udnkit/netconf/udn"
	"github.com/udnkit/udnkit/vrf"
)

// Sync a node's kernel to its plan: VRFs, management ports, routes, rules
// and nftables in one call (as root, in the node's network namespace).
// Not run here: it changes the machine.
func Example() {
	state, err := vrf.Plan(vrf.Input{
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
	h, err := netlink.NewHandle()
	if err != nil {
		panic(err)
	}
	conn, err := nftables.New()
	if err != nil {
		panic(err)
	}
	k, err := kernel.New(kernel.Config{Netlink: h, NFT: conn}) // cgroups below /sys/fs/cgroup
	if err != nil {
		panic(err)
	}
	var node backend.NodeApplier[vrf.State, vrf.Changes, kernel.Result] = k
	changes, res, err := node.Sync(context.Background(), state)
	fmt.Println(changes.Len(), res.Batches, err) // the second Sync: 0 0 <nil>
}
