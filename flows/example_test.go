package flows_test

import (
	"fmt"
	"net"
	"net/netip"

	"github.com/udnkit/udnkit/flows"
)

// The egress and reply flows of one network on a node, as ovs-ofctl lines.
func Example() {
	mac, _ := net.ParseMAC("02:42:ac:12:00:03")
	gw, _ := net.ParseMAC("02:42:ac:12:00:05")
	fs, err := flows.Plan(flows.Input{
		Node: flows.Node{Bridge: "breth0", Physical: flows.Port{Name: "eth0", OFPort: 1}, MAC: mac,
			IPs: []netip.Addr{netip.MustParseAddr("172.18.0.3")}, DefaultPatch: flows.Port{Name: "patch-breth0_node1-to-br-int", OFPort: 2}},
		Networks: []flows.Network{{ID: 1, Name: "ns1_blue", Patch: flows.Port{Name: "patch-breth0_ns1_blue_node1-to-br-int", OFPort: 3},
			GatewayMAC: gw, IPv4: true}},
	})
	if err != nil {
		panic(err)
	}
	for _, f := range fs {
		if f.Table <= 1 && f.Priority == 100 && (f.Table == 1 || f.Match != "ip,in_port=2,dl_src=02:42:ac:12:00:03") {
			fmt.Println(f)
		}
	}
	// Output:
	// cookie=0xdeff105,table=0,priority=100,ip,in_port=3,dl_src=02:42:ac:12:00:03,nw_src=169.254.0.11,actions=ct(commit,zone=64000,nat(src=172.18.0.3),exec(set_field:0x4->ct_mark)),output:1
	// cookie=0xdeff105,table=1,priority=100,ip,ct_state=+est+trk,ct_mark=0x1,actions=output:2
	// cookie=0xdeff105,table=1,priority=100,ip,ct_state=+est+trk,ct_mark=0x2,actions=output:LOCAL
	// cookie=0xdeff105,table=1,priority=100,ip,ct_state=+est+trk,ct_mark=0x4,actions=output:3
	// cookie=0xdeff105,table=1,priority=100,ip,ct_state=+rel+trk,ct_mark=0x1,actions=output:2
	// cookie=0xdeff105,table=1,priority=100,ip,ct_state=+rel+trk,ct_mark=0x2,actions=output:LOCAL
	// cookie=0xdeff105,table=1,priority=100,ip,ct_state=+rel+trk,ct_mark=0x4,actions=output:3
}
