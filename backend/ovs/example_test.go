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

// Sync a node's flows. Here ovs-ofctl is replaced by a stand-in: the
// bridge holds one foreign flow and none of the SDK's, and the bundle it
// is given is printed (its first lines). On a node, leave Config.Run nil
// to run the real ovs-ofctl.
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
		case "diff-flows":
			if args[3] == "breth0" { // the bridge's flows: a foreign one
				return []byte("-table=7 priority=5,ip cookie=0x1234 actions=drop\n"), differ{}
			}
			b, _ := os.ReadFile(args[4]) // the desired flows, printed as diff-flows prints them
			var out strings.Builder
			for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
				cookie, rest, _ := strings.Cut(l, ",")
				match, actions, _ := strings.Cut(rest, ",actions=")
				out.WriteString("+" + match + " " + cookie + " actions=" + actions + "\n")
			}
			return []byte(out.String()), differ{}
		case "--bundle":
			b, _ := os.ReadFile(args[5])
			fmt.Print(strings.Join(strings.SplitAfter(string(b), "\n")[:2], ""))
		}
		return nil, nil
	}
	br, err := ovs.New(ovs.Config{Bridge: "breth0", Run: standIn, Dir: dir})
	if err != nil {
		panic(err)
	}
	changes, res, err := br.Sync(context.Background(), desired)
	fmt.Println(changes.Len(), "changes:", res.Added, "added,", res.Deleted, "deleted", err)
	// Output:
	// add cookie=0xdeff105,table=0,priority=100,ip,in_port=2,dl_src=02:42:ac:12:00:03,actions=ct(commit,zone=64000,exec(set_field:0x1->ct_mark)),output:1
	// add cookie=0xdeff105,table=0,priority=50,ip,dl_dst=02:42:ac:12:00:03,actions=ct(zone=64000,nat,table=1)
	// 13 changes: 13 added, 0 deleted <nil>
}

// differ is the stand-in's exit status 2: the flows differ.
type differ struct{}

func (differ) Error() string { return "exit status 2" }
func (differ) ExitCode() int { return 2 }
