package topology

import (
	"flag"
	"net/netip"
	"os"
	"path/filepath"
	"testing"

	"github.com/udnkit/udnkit/ipam"
	"github.com/udnkit/udnkit/netconf"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/")

// golden compares got with testdata/name, rewriting it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs from the golden file; run go test -update and review the diff.\ngot:\n%s", path, got)
	}
}

func pfx(s string) netip.Prefix { return netip.MustParsePrefix(s) }
func addr(s string) netip.Addr  { return netip.MustParseAddr(s) }

// allocatedKeys returns the n tunnel keys a new ipam.TunnelKeyAllocator
// hands out first (DynamicTunnelKeyFirst on).
func allocatedKeys(n int) []int {
	keys, err := ipam.NewTunnelKeyAllocator().Allocate("test", n)
	if err != nil {
		panic(err)
	}
	return keys
}

// seed004Nodes are the three nodes of seed 004's example; ovn-control-plane
// (node ID 4) is the zone being programmed.
func seed004Nodes() []Node {
	return []Node{
		{Name: "ovn-control-plane", ID: 4, Chassis: "chassis-cp",
			Addresses: []netip.Prefix{pfx("172.18.0.3/16"), pfx("fc00:f853:ccd:e793::3/64")},
			NextHops:  []netip.Addr{addr("172.18.0.1"), addr("fc00:f853:ccd:e793::1")}},
		{Name: "ovn-worker", ID: 2, Chassis: "chassis-w1",
			Addresses: []netip.Prefix{pfx("172.18.0.2/16"), pfx("fc00:f853:ccd:e793::2/64")},
			NextHops:  []netip.Addr{addr("172.18.0.1"), addr("fc00:f853:ccd:e793::1")}},
		{Name: "ovn-worker2", ID: 3, Chassis: "chassis-w2",
			Addresses: []netip.Prefix{pfx("172.18.0.4/16"), pfx("fc00:f853:ccd:e793::4/64")},
			NextHops:  []netip.Addr{addr("172.18.0.1"), addr("fc00:f853:ccd:e793::1")}},
	}
}

// seed004Input is seed 004's Layer2 example: network ID 1 (its management
// SNAT goes to 169.254.0.12), subnet v4 (203.203.0.0/24 as the example's
// address config says; the listings show /16), join and transit defaults.
func seed004Input(v4 string) Input {
	return Input{
		Network: &netconf.Network{Name: "test12_namespace-scoped", ID: 1, Topology: netconf.TopologyLayer2,
			Role: netconf.RolePrimary, MTU: 1400,
			Subnets:        []netconf.Subnet{{CIDR: pfx(v4)}, {CIDR: pfx("2010:100:200::/60")}},
			JoinSubnets:    []netip.Prefix{pfx("100.65.0.0/16"), pfx("fd99::/64")},
			TransitSubnets: []netip.Prefix{pfx("100.88.0.0/16"), pfx("fd97::/64")}},
		Nodes:      seed004Nodes(),
		Zone:       "ovn-control-plane",
		TunnelKeys: allocatedKeys(2),
		Cluster:    Cluster{ServiceIPs: []netip.Addr{addr("10.96.0.1"), addr("10.96.0.10")}},
	}
}

// layer3Input is a dual-stack Layer3 primary network on three nodes.
func layer3Input() Input {
	nodes := seed004Nodes()
	return Input{
		Network: &netconf.Network{Name: "ns1_blue", ID: 2, Topology: netconf.TopologyLayer3, Role: netconf.RolePrimary,
			Subnets:        []netconf.Subnet{{CIDR: pfx("10.128.0.0/16"), HostPrefix: 24}, {CIDR: pfx("fd00:10:128::/48"), HostPrefix: 64}},
			JoinSubnets:    ipam.DefaultJoinSubnets(),
			TransitSubnets: ipam.DefaultTransitSubnets()},
		Nodes: nodes,
		Zone:  "ovn-control-plane",
		HostSubnets: map[string][]netip.Prefix{
			"ovn-control-plane": {pfx("10.128.2.0/24"), pfx("fd00:10:128:2::/64")},
			"ovn-worker":        {pfx("10.128.0.0/24"), pfx("fd00:10:128::/64")},
			"ovn-worker2":       {pfx("10.128.1.0/24"), pfx("fd00:10:128:1::/64")},
		},
		Cluster: Cluster{ServiceIPs: []netip.Addr{addr("10.96.0.1"), addr("10.96.0.10")}},
	}
}
