package ovs_test

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"os"
	"strings"

	"github.com/udnkit/udnkit/backend/ovs"
	"github.com/udnkit/udnkit/flows"
)

// Sync a node's flows. Here ovs-ofctl is replaced by a stand-in that
// reports the flows differ and prints the bundle it is given; on a node,
// leave Config.Run nil to run the real ovs-ofctl.
func Example() {
	mac, _ := net.ParseMAC("02:42:ac:12:00:03")
	desired, err := flows.Plan(flows.Input{
		Node: flows.Node{Bridge: "breth0", Physical: flows.Port{Name: "eth0", OFPort: 1}, MAC: mac,
			IPs: []netip.Addr{netip.MustParseAddr("172.18.0.3")}, DefaultPatch: flows.Port{Name: "patch-breth0_node1-to-br-int", OFPort: 2}},
	})
	if err != nil {
		panic(err)
	}
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	standIn := func(_ context.Context, _ []byte, args ...string) ([]byte, error) {
		switch args[2] {
		case "diff-flows": // the bridge holds none of the SDK's flows yet, and a foreign one
			b, _ := os.ReadFile(args[4])
			var out strings.Builder
			out.WriteString("-table=7 priority=5,ip cookie=0x1234 actions=drop\n")
			for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n")[:2] {
				out.WriteString("+" + l + "\n")
			}
			return []byte(out.String()), differ{}
		case "--bundle":
			b, _ := os.ReadFile(args[5])
			fmt.Print(string(b))
		}
		return nil, nil
	}
	br, err := ovs.New(ovs.Config{Bridge: "breth0", Run: standIn, Dir: dir})
	if err != nil {
		panic(err)
	}
	res, err := br.Sync(context.Background(), desired)
	fmt.Println(res.Added, "added,", res.Deleted, "deleted", err)
	// Output:
	// add cookie=0xdeff105,table=0,priority=100,ip,in_port=2,dl_src=02:42:ac:12:00:03,actions=ct(commit,zone=64000,exec(set_field:0x1->ct_mark)),output:1
	// add cookie=0xdeff105,table=0,priority=50,ip,dl_dst=02:42:ac:12:00:03,actions=ct(zone=64000,nat,table=1)
	// 2 added, 0 deleted <nil>
}

// differ is the stand-in's exit status 2: the flows differ.
type differ struct{}

func (differ) Error() string { return "exit status 2" }
func (differ) ExitCode() int { return 2 }
