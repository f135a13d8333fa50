package ipam

import (
	"errors"
	"net/netip"
	"testing"
)

func TestConnectNodeIPs(t *testing.T) {
	tests := []struct {
		name         string
		block        string
		nodeID       int
		network, cnc string
		err          error
	}{
		// seed 001's connect-router listing (network side even, connect side odd)
		{"yellow worker", "192.168.2.0/24", 4, "192.168.2.8/31", "192.168.2.9/31", nil},
		{"blue worker", "192.168.0.0/24", 3, "192.168.0.6/31", "192.168.0.7/31", nil},
		{"green worker", "192.168.1.0/24", 5, "192.168.1.10/31", "192.168.1.11/31", nil},
		{"green worker2", "192.168.1.0/24", 8, "192.168.1.16/31", "192.168.1.17/31", nil},
		// seed 001's static allocator example
		{"node-id 0", "10.2.0.0/24", 0, "10.2.0.0/31", "10.2.0.1/31", nil},
		{"node-id 5", "10.2.0.0/24", 5, "10.2.0.10/31", "10.2.0.11/31", nil},
		{"v6", "fd01:0:0:3::/64", 4, "fd01:0:0:3::8/127", "fd01:0:0:3::9/127", nil},
		{"last node of /24", "192.168.2.0/24", 127, "192.168.2.254/31", "192.168.2.255/31", nil},
		{"node beyond /24", "192.168.2.0/24", 128, "", "", ErrOutOfRange},
		{"negative", "192.168.2.0/24", -1, "", "", ErrOutOfRange},
		{"host block", "192.168.2.1/32", 0, "", "", ErrInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, c, err := ConnectNodeIPs(pfx(tt.block), tt.nodeID)
			if tt.err != nil {
				if !errors.Is(err, tt.err) {
					t.Fatalf("got %v %v %v, want %v", n, c, err, tt.err)
				}
				return
			}
			if err != nil || n.String() != tt.network || c.String() != tt.cnc {
				t.Fatalf("got %v %v %v, want %s %s", n, c, err, tt.network, tt.cnc)
			}
			if mac := MACFromIP(n.Addr()); len(mac) != 6 {
				t.Fatal("MAC")
			}
		})
	}
	_, err := ConnectNodeSubnet(pfx("192.168.2.0/24"), 128)
	if err == nil || err.Error() != "connect block 192.168.2.0/24: node ID 128: out of range: the block holds node IDs up to 127" {
		t.Fatalf("message: %v", err)
	}
	if _, _, err := ConnectPeerIPs(pfx("192.168.4.0/30")); !errors.Is(err, ErrInvalid) {
		t.Fatalf("/30 pair: %v", err)
	}
	if n, c, _ := ConnectPeerIPs(pfx("fd01:0:0:4::2/127")); n.String() != "fd01:0:0:4::2/127" || c.String() != "fd01:0:0:4::3/127" {
		t.Fatalf("v6 pair %v %v", n, c)
	}
}

// TestConnectSubnetAllocatorSeed reproduces seed 001's k8s.ovn.org/network-subnets
// sample: Layer3 networks take whole blocks, Layer2 networks share block 4.
func TestConnectSubnetAllocatorSeed(t *testing.T) {
	a, err := NewConnectSubnetAllocator("colored-enterprise", []ConnectSubnet{
		{CIDR: pfx("192.168.0.0/16"), NetworkPrefix: 24},
		{CIDR: pfx("fd01::/48"), NetworkPrefix: 64},
	})
	if err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		id   int
		topo ConnectTopology
		want string
	}{
		{1, ConnectLayer3, "[192.168.0.0/24 fd01::/64]"},
		{2, ConnectLayer3, "[192.168.1.0/24 fd01:0:0:1::/64]"},
		{5, ConnectLayer3, "[192.168.2.0/24 fd01:0:0:2::/64]"},
		{12, ConnectLayer3, "[192.168.3.0/24 fd01:0:0:3::/64]"},
		{40, ConnectLayer2, "[192.168.4.0/31 fd01:0:0:4::/127]"},
		{103, ConnectLayer2, "[192.168.4.2/31 fd01:0:0:4::2/127]"},
		{15, ConnectLayer3, "[192.168.5.0/24 fd01:0:0:5::/64]"},
		{2000, ConnectLayer2, "[192.168.4.4/31 fd01:0:0:4::4/127]"},
		{12, ConnectLayer3, "[192.168.3.0/24 fd01:0:0:3::/64]"}, // stable
	}
	for _, s := range steps {
		got, err := a.Allocate(s.id, s.topo)
		if err != nil || fmtPrefixes(got) != s.want {
			t.Fatalf("network %d %s: got %v %v, want %s", s.id, s.topo, got, err, s.want)
		}
	}
	if _, err := a.Allocate(12, ConnectLayer2); !errors.Is(err, ErrConflict) {
		t.Fatalf("topology change: %v", err)
	}
	// Release: a Layer2 block goes away with its last pair; blocks are reused lowest first.
	a.Release(2)
	a.Release(40)
	a.Release(103)
	a.Release(2000)
	for _, s := range []struct {
		id   int
		topo ConnectTopology
		want string
	}{
		{7, ConnectLayer3, "[192.168.1.0/24 fd01:0:0:1::/64]"},
		{8, ConnectLayer3, "[192.168.4.0/24 fd01:0:0:4::/64]"},
		{9, ConnectLayer2, "[192.168.6.0/31 fd01:0:0:6::/127]"},
	} {
		got, err := a.Allocate(s.id, s.topo)
		if err != nil || fmtPrefixes(got) != s.want {
			t.Fatalf("network %d: got %v %v, want %s", s.id, got, err, s.want)
		}
	}
	if topo, got, ok := a.Lookup(9); !ok || topo != ConnectLayer2 || len(got) != 2 {
		t.Fatalf("Lookup(9) = %v %v %v", topo, got, ok)
	}
	if ids := a.Networks(); len(ids) != 7 || ids[0] != 1 || ids[6] != 15 {
		t.Fatalf("Networks() = %v", ids)
	}
}

func TestConnectSubnetAllocatorRestoreAndExhaustion(t *testing.T) {
	a, err := NewConnectSubnetAllocator("c", []ConnectSubnet{{CIDR: pfx("10.0.0.0/26"), NetworkPrefix: 28}}) // 4 blocks of 8 pairs
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Restore(3, ConnectLayer3, pfx("10.0.0.16/28")); err != nil {
		t.Fatal(err)
	}
	if err := a.Restore(3, ConnectLayer3, pfx("10.0.0.16/28")); err != nil {
		t.Fatalf("idempotent: %v", err)
	}
	if err := a.Restore(4, ConnectLayer2, pfx("10.0.0.6/31")); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name    string
		id      int
		topo    ConnectTopology
		subnets []netip.Prefix
		want    error
	}{
		{"pair in Layer3 block", 5, ConnectLayer2, []netip.Prefix{pfx("10.0.0.18/31")}, ErrConflict},
		{"block taken by Layer2", 5, ConnectLayer3, []netip.Prefix{pfx("10.0.0.0/28")}, ErrConflict},
		{"pair taken", 5, ConnectLayer2, []netip.Prefix{pfx("10.0.0.6/31")}, ErrConflict},
		{"not a block", 5, ConnectLayer3, []netip.Prefix{pfx("10.0.0.32/27")}, ErrOutOfRange},
		{"not a pair", 5, ConnectLayer2, []netip.Prefix{pfx("10.0.0.8/30")}, ErrOutOfRange},
		{"outside", 5, ConnectLayer3, []netip.Prefix{pfx("10.9.0.0/28")}, ErrOutOfRange},
		{"two of a family", 5, ConnectLayer2, []netip.Prefix{pfx("10.0.0.8/31"), pfx("10.0.0.10/31")}, ErrInvalid},
		{"network 3 holds other", 3, ConnectLayer3, []netip.Prefix{pfx("10.0.0.32/28")}, ErrConflict},
		{"bad topology", 5, ConnectTopology(9), []netip.Prefix{pfx("10.0.0.32/28")}, ErrInvalid},
	} {
		if err := a.Restore(tt.id, tt.topo, tt.subnets...); !errors.Is(err, tt.want) {
			t.Errorf("%s: got %v, want %v", tt.name, err, tt.want)
		}
	}
	// The failed restores left nothing behind: Layer2 fills block 0 first.
	got, _ := a.Allocate(6, ConnectLayer2)
	if fmtPrefixes(got) != "[10.0.0.0/31]" {
		t.Fatalf("got %v", got)
	}
	for id := 10; id < 12; id++ {
		if _, err := a.Allocate(id, ConnectLayer3); err != nil {
			t.Fatal(err)
		}
	}
	_, err = a.Allocate(12, ConnectLayer3)
	const msg = `ClusterNetworkConnect "c": connect subnet 10.0.0.0/26 networkPrefix=28: Layer3 network ID 12: exhausted: all 4 /28 blocks are taken`
	if err == nil || err.Error() != msg {
		t.Fatalf("got %v\nwant %s", err, msg)
	}
	// Layer2 networks still fit in the shared block.
	for id := 20; id < 26; id++ {
		if _, err := a.Allocate(id, ConnectLayer2); err != nil {
			t.Fatalf("layer2 %d: %v", id, err)
		}
	}
	if _, err := a.Allocate(26, ConnectLayer2); !errors.Is(err, ErrExhausted) {
		t.Fatalf("full: %v", err)
	}
}

func TestConnectSubnetAllocatorDualStackRollback(t *testing.T) {
	a, err := NewConnectSubnetAllocator("c", []ConnectSubnet{
		{CIDR: pfx("10.0.0.0/24"), NetworkPrefix: 25}, // 2 blocks
		{CIDR: pfx("fd01::/127"), NetworkPrefix: 127}, // invalid: no room
	})
	if !errors.Is(err, ErrInvalid) || a != nil {
		t.Fatalf("got %v", err)
	}
	a, err = NewConnectSubnetAllocator("c", []ConnectSubnet{
		{CIDR: pfx("10.0.0.0/24"), NetworkPrefix: 25}, // 2 blocks
		{CIDR: pfx("fd01::/120"), NetworkPrefix: 121}, // 2 blocks
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Restore(1, ConnectLayer3, pfx("fd01::/121")); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Allocate(2, ConnectLayer3); err != nil {
		t.Fatal(err)
	}
	// IPv4 has a block left, IPv6 does not: the IPv4 block must be rolled back.
	if _, err := a.Allocate(3, ConnectLayer3); !errors.Is(err, ErrExhausted) {
		t.Fatalf("got %v", err)
	}
	if err := a.Restore(4, ConnectLayer3, pfx("10.0.0.128/25")); err != nil {
		t.Fatalf("IPv4 block leaked by failed allocation: %v", err)
	}
	for _, bad := range [][]ConnectSubnet{
		nil,
		{{pfx("10.0.0.0/24"), 26}, {pfx("10.1.0.0/24"), 26}},
		{{pfx("10.0.0.1/24"), 26}},
		{{pfx("10.0.0.0/24"), 24}},
		{{pfx("10.0.0.0/24"), 32}},
	} {
		if _, err := NewConnectSubnetAllocator("c", bad); !errors.Is(err, ErrInvalid) {
			t.Errorf("%v: got %v", bad, err)
		}
	}
}

func TestCheckConnectCapacity(t *testing.T) {
	seed := ConnectSubnet{CIDR: pfx("192.168.0.0/16"), NetworkPrefix: 24}
	tests := []struct {
		name         string
		cs           ConnectSubnet
		l3, l2, maxN int
		want         string
	}{
		{"seed: 256 Layer3", seed, 256, 0, 100, ""},
		{"seed: 255 Layer3 and 128 Layer2", seed, 255, 128, 100, ""},
		{"seed: 255 Layer3 and 129 Layer2", seed, 255, 129, 100,
			"connect subnet 192.168.0.0/16 networkPrefix=24: 255 Layer3 and 129 Layer2 networks need 257 /24 blocks, it holds 256; cidr needs a /15 or shorter: exhausted"},
		{"seed: node 128", seed, 1, 0, 128,
			"connect subnet 192.168.0.0/16: a /24 block holds node IDs up to 127, node ID 128 needs networkPrefix 23 or shorter: exhausted"},
		// seed 001's guidance: 5000 nodes need a /18 (10000+ IPs)
		{"5000 nodes in /18", ConnectSubnet{pfx("10.0.0.0/8"), 18}, 10, 0, 5000, ""},
		{"5000 nodes not in /19", ConnectSubnet{pfx("10.0.0.0/8"), 19}, 10, 0, 5000,
			"connect subnet 10.0.0.0/8: a /19 block holds node IDs up to 4095, node ID 5000 needs networkPrefix 18 or shorter: exhausted"},
		{"v6", ConnectSubnet{pfx("fd01::/64"), 96}, 1000, 1000, MaxNodeID, ""},
		{"invalid", ConnectSubnet{pfx("fd01::/64"), 64}, 1, 1, 1, "connect subnet fd01::/64: networkPrefix 64: invalid: must be in [65, 127]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckConnectCapacity(tt.cs, tt.l3, tt.l2, tt.maxN)
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tt.want {
				t.Fatalf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
	if ConnectLayer3.String() != "Layer3" || ConnectLayer2.String() != "Layer2" || ConnectTopology(0).String() != "ConnectTopology(0)" {
		t.Fatal("String")
	}
}
