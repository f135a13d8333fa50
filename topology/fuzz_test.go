package topology

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/big"
	"net/netip"
	"strings"
	"testing"

	"github.com/udnkit/udnkit/internal/names"
	"github.com/udnkit/udnkit/netconf"
)

// FuzzPlan feeds the planners arbitrary networks, nodes and zones: they must
// not panic, and must return either an error or a state that diffs and
// applies cleanly.
func FuzzPlan(f *testing.F) {
	f.Add([]byte{0, 0, 1, 24, 3, 4, 2, 3}, "10.128.0.0/16", "fd00::/48", "100.65.0.0/16,fd99::/64", "100.88.0.0/16,fd97::/64", "node-0")
	f.Add([]byte{1, 0, 1, 0, 2, 2, 5, 9}, "203.203.0.0/24", "2010:100:200::/60", "100.65.0.0/16,fd99::/64", "100.88.0.0/16,fd97::/64", "node-1")
	f.Add([]byte{2, 1, 7, 0, 1, 4, 0, 0}, "192.168.0.0/24", "", "", "", "z")
	f.Add([]byte{3, 0, 255, 30, 9, 0, 0, 1}, "10.0.0.0/30", "::/0", "1.2.3.4/32", "fd97::/127", "global")
	f.Add([]byte{1, 0, 1, 0, 2, 2, 5, 8}, "203.203.0.0/24", "", "", "", "node-1")                           // primary Layer2, one local node
	f.Add([]byte{1, 0, 1, 0, 2, 2, 5, 9}, "203.203.0.0/24", "", "", "", "global")                           // primary Layer2, two local nodes
	f.Add([]byte{1, 3, 1, 0, 3, 2, 5, 9}, "203.203.0.0/24", "fd00::/64", "", "", "global")                  // secondary Layer2, three local nodes
	f.Add([]byte{0, 0, 1, 24, 3, 4, 2, 0x12}, "10.128.0.0/16,10.129.0.0/16", "fd00::/48", "", "", "node-0") // two IPv4 subnets, /24 and /25
	f.Add([]byte{0, 1, 1, 24, 3, 4, 2, 0x30}, "10.128.0.0/16,10.129.0.0/16", "fd00::/48", "", "", "global") // two IPv4 subnets, /24 both
	f.Fuzz(func(t *testing.T, b []byte, sub4, sub6, join, transit, zone string) {
		in := fuzzInput(b, sub4, sub6, join, transit, zone)
		n := in.Network
		locals := 0
		for i := range in.Nodes {
			if in.Nodes[i].InZone() == in.Zone {
				locals++
			}
		}
		primaryL2 := n.Topology == netconf.TopologyLayer2 && n.Role == netconf.RolePrimary
		for _, plan := range []func(Input) (State, error){Plan, PlanLegacyLayer2,
			func(in Input) (State, error) { return PlanLayer2Upgrade(in, []string{"node-1"}) },
			func(in Input) (State, error) { return PlanNodes(in, "node-0") }} {
			s, err := plan(in)
			if err == nil && names.Control(in.Zone) >= 0 {
				t.Fatalf("planned zone %q, which holds a control character", in.Zone)
			}
			if err != nil {
				continue
			}
			// The subnets of a family share one host prefix.
			for i, a := range n.Subnets {
				for _, b := range n.Subnets[:i] {
					if a.CIDR.Addr().Is4() == b.CIDR.Addr().Is4() && a.HostPrefix != b.HostPrefix && n.Topology == netconf.TopologyLayer3 {
						t.Fatalf("planned %v and %v", a, b)
					}
				}
			}
			// A primary Layer2 zone holds at most one node.
			if primaryL2 && (locals > 1 || len(mgmtPorts(s)) > 1) {
				t.Fatalf("primary Layer2 planned for zone %q with %d local nodes", in.Zone, locals)
			}
			if d := Diff(s, s); len(d) != 0 {
				t.Fatalf("Diff(s, s) = %s", d)
			}
			got, err := Apply(State{}, Diff(State{}, s))
			if err != nil || !got.Equal(s) {
				t.Fatalf("apply: %v", err)
			}
			for o := range s.Objects() {
				if o.OwnedBy().Network != n.Name || o.Key() == "" {
					t.Fatalf("object %s has owner %v", Render(o), o.OwnedBy())
				}
			}
		}
	})
}

// fuzzInput builds a planner input from fuzz data.
func fuzzInput(b []byte, sub4, sub6, join, transit, zone string) Input {
	for len(b) < 8 {
		b = append(b, 0)
	}
	pp := func(s string) []netip.Prefix { // comma-separated prefixes
		var out []netip.Prefix
		for _, f := range strings.Split(s, ",") {
			if p, err := netip.ParsePrefix(f); err == nil {
				out = append(out, p)
			}
		}
		return out
	}
	n := &netconf.Network{Name: "fz_net", ID: int(b[2]) * 17,
		Topology:    []netconf.Topology{netconf.TopologyLayer3, netconf.TopologyLayer2, netconf.TopologyLocalnet, "Bogus"}[b[0]%4],
		Role:        []netconf.Role{netconf.RolePrimary, netconf.RoleSecondary}[b[1]%2],
		JoinSubnets: pp(join), TransitSubnets: pp(transit), VLANID: int(b[7]) * 20, MTU: int(b[6]) * 40}
	for _, s := range []string{sub4, sub6} {
		for j, p := range pp(s) { // several of a family: host prefixes may differ
			hp := int(b[3])
			if j > 0 {
				hp += int(b[7]>>4) % 3
			}
			if hp != 0 && p.Addr().Is6() {
				hp += 40
			}
			n.Subnets = append(n.Subnets, netconf.Subnet{CIDR: p, HostPrefix: hp})
		}
	}
	in := Input{Network: n, Zone: zone, HostSubnets: map[string][]netip.Prefix{},
		TunnelKeys: []int{int(binary.BigEndian.Uint16(b[4:6])) + 16715779, 16715779 + int(b[6])}}
	if b[1]&2 != 0 {
		in.TunnelKeys = in.TunnelKeys[:1]
	}
	for i := range int(b[4] % 6) {
		nd := Node{Name: fmt.Sprintf("node-%d", i), ID: int(b[5]) + i*int(b[6]%3), Chassis: "c",
			Addresses: []netip.Prefix{pfx("172.18.0.3/16"), pfx("fc00::3/64")}, NextHops: []netip.Addr{addr("172.18.0.1"), addr("fc00::1")}}
		if b[7]&1 != 0 {
			nd.Zone = "global"
		}
		in.Nodes = append(in.Nodes, nd)
		for _, s := range n.Subnets {
			in.HostSubnets[nd.Name] = append(in.HostSubnets[nd.Name], nthSubnet(s.CIDR, s.HostPrefix, i))
		}
	}
	return in
}

// nthSubnet returns the i-th /bits subnet of p (p itself when bits is out
// of range).
func nthSubnet(p netip.Prefix, bits, i int) netip.Prefix {
	if !p.IsValid() || bits < p.Bits() || bits > p.Addr().BitLen() || bits == 0 {
		return p
	}
	a := p.Masked().Addr().As16()
	v := new(big.Int).SetBytes(a[:])
	off := 128 - bits
	if p.Addr().Is4() {
		off = 32 - bits
	}
	v.Add(v, new(big.Int).Lsh(big.NewInt(int64(i)), uint(off)))
	v.FillBytes(a[:])
	na := netip.AddrFrom16(a)
	if p.Addr().Is4() {
		na = na.Unmap()
	}
	return netip.PrefixFrom(na, bits)
}

// TestFuzzSeedsPlan keeps the fuzz seeds meaningful: the first two must
// plan successfully.
func TestFuzzSeedsPlan(t *testing.T) {
	for i, in := range []Input{
		fuzzInput([]byte{0, 0, 1, 24, 3, 4, 2, 3}, "10.128.0.0/16", "fd00::/48", "100.65.0.0/16,fd99::/64", "100.88.0.0/16,fd97::/64", "node-0"),
		fuzzInput([]byte{1, 0, 1, 0, 2, 2, 5, 9}, "203.203.0.0/24", "2010:100:200::/60", "100.65.0.0/16,fd99::/64", "100.88.0.0/16,fd97::/64", "node-1"),
	} {
		if s, err := Plan(in); err != nil || s.Len() == 0 {
			t.Errorf("seed %d: %v (%d objects)", i, err, s.Len())
		}
	}
	// The Layer2 zone seeds: one local node plans, two are refused, and a
	// secondary network takes any number.
	one := fuzzInput([]byte{1, 0, 1, 0, 2, 2, 5, 8}, "203.203.0.0/24", "", "", "", "node-1")
	if s, err := Plan(one); err != nil || len(mgmtPorts(s)) != 1 {
		t.Errorf("primary Layer2, one local node: %v, management ports %q", err, mgmtPorts(s))
	}
	two := fuzzInput([]byte{1, 0, 1, 0, 2, 2, 5, 9}, "203.203.0.0/24", "", "", "", "global")
	if _, err := Plan(two); !errors.Is(err, ErrUnsupported) {
		t.Errorf("primary Layer2, two local nodes: %v, want ErrUnsupported", err)
	}
	sec := fuzzInput([]byte{1, 3, 1, 0, 3, 2, 5, 9}, "203.203.0.0/24", "fd00::/64", "", "", "global")
	if s, err := Plan(sec); err != nil || len(sec.Nodes) != 3 || s.Len() != 1 {
		t.Errorf("secondary Layer2, three local nodes: %v, %d nodes, %d objects", err, len(sec.Nodes), s.Len())
	}
}
