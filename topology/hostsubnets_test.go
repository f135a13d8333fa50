package topology

import (
	"fmt"
	"math/rand/v2"
	"net/netip"
	"testing"

	"github.com/udnkit/udnkit/netconf"
)

// checkHostSubnetsByMap is the obvious implementation of checkHostSubnets:
// remember every subnet, stop at the first one seen before.
func checkHostSubnetsByMap(n *netconf.Network, in Input) error {
	seen := map[netip.Prefix]string{}
	for i := range in.Nodes {
		name := in.Nodes[i].Name
		for _, h := range in.HostSubnets[name] {
			if o, ok := seen[h]; ok {
				return errf("%s: node %q: hostSubnets: %w: %v is also node %q's", n, name, ErrConflict, h, o)
			}
			seen[h] = name
		}
	}
	return nil
}

// TestCheckHostSubnets checks that the sorting checkHostSubnets reports
// exactly what the map-based one does: the same first repetition, naming
// the same two nodes, or nothing.
func TestCheckHostSubnets(t *testing.T) {
	n := &netconf.Network{Name: "ns_net", Topology: netconf.TopologyLayer3}
	rng := rand.New(rand.NewPCG(1, 2))
	pool := func(i int) netip.Prefix {
		switch i % 7 {
		case 3:
			return netip.Prefix{} // invalid prefixes repeat too
		case 5:
			return netip.PrefixFrom(netip.AddrFrom4([4]byte{10, 128, byte(i), 0}), 25) // same address, other length
		}
		if i%2 == 0 {
			return netip.PrefixFrom(netip.AddrFrom4([4]byte{10, 128, byte(i), 0}), 24)
		}
		return netip.PrefixFrom(netip.AddrFrom16([16]byte{0xfd, 0, 7: byte(i)}), 64)
	}
	conflicts := 0
	for iter := range 2000 {
		nodes := 1 + rng.IntN(8)
		in := Input{HostSubnets: map[string][]netip.Prefix{}}
		for i := range nodes {
			name := fmt.Sprintf("node-%d", i)
			in.Nodes = append(in.Nodes, Node{Name: name})
			for range rng.IntN(3) {
				in.HostSubnets[name] = append(in.HostSubnets[name], pool(rng.IntN(4*nodes+1)))
			}
		}
		got, want := checkHostSubnets(n, in), checkHostSubnetsByMap(n, in)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("case %d %v: got %v, want %v", iter, in.HostSubnets, got, want)
		}
		if want != nil {
			conflicts++
		}
	}
	if conflicts < 100 || conflicts > 1900 {
		t.Errorf("%d of 2000 cases conflict: the cases do not exercise both outcomes", conflicts)
	}
}
