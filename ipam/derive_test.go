package ipam

import (
	"errors"
	"net"
	"net/netip"
	"testing"
)

var (
	pfx  = netip.MustParsePrefix
	addr = netip.MustParseAddr
)

func TestInterfaceAddressDerivations(t *testing.T) {
	tests := []struct {
		name string
		fn   func() (netip.Prefix, error)
		want string
		err  error
	}{
		{"gateway v4", func() (netip.Prefix, error) { return GatewayIP(pfx("10.128.1.0/24")) }, "10.128.1.1/24", nil},
		{"gateway unmasked input", func() (netip.Prefix, error) { return GatewayIP(pfx("10.128.1.77/24")) }, "10.128.1.1/24", nil},
		{"gateway v6", func() (netip.Prefix, error) { return GatewayIP(pfx("2010:100:200::/60")) }, "2010:100:200::1/60", nil},
		{"gateway /31", func() (netip.Prefix, error) { return GatewayIP(pfx("10.0.0.0/31")) }, "10.0.0.1/31", nil},
		{"gateway /32", func() (netip.Prefix, error) { return GatewayIP(pfx("10.0.0.0/32")) }, "", ErrOutOfRange},
		{"gateway invalid", func() (netip.Prefix, error) { return GatewayIP(netip.Prefix{}) }, "", ErrInvalid},
		{"management v4", func() (netip.Prefix, error) { return ManagementIP(pfx("10.128.1.0/24")) }, "10.128.1.2/24", nil},
		{"management /30", func() (netip.Prefix, error) { return ManagementIP(pfx("10.0.0.0/30")) }, "10.0.0.2/30", nil},
		{"management /31", func() (netip.Prefix, error) { return ManagementIP(pfx("10.0.0.0/31")) }, "", ErrOutOfRange},
		{"management v6", func() (netip.Prefix, error) { return ManagementIP(pfx("fd00:10:244:1::/64")) }, "fd00:10:244:1::2/64", nil},
		{"join router", func() (netip.Prefix, error) { return JoinRouterIP(pfx("100.65.0.0/16")) }, "100.65.0.1/16", nil},
		{"join router v6", func() (netip.Prefix, error) { return JoinRouterIP(pfx("fd99::/64")) }, "fd99::1/64", nil},
		// seed 004: GR of node ID 2..4 on the join subnet.
		{"join GR node 2", func() (netip.Prefix, error) { return JoinGatewayRouterIP(pfx("100.65.0.0/16"), 2) }, "100.65.0.2/16", nil},
		{"join GR node 4", func() (netip.Prefix, error) { return JoinGatewayRouterIP(pfx("100.65.0.0/16"), 4) }, "100.65.0.4/16", nil},
		{"join GR node 4 v6", func() (netip.Prefix, error) { return JoinGatewayRouterIP(pfx("fd99::/64"), 4) }, "fd99::4/64", nil},
		{"join GR node 1 reserved", func() (netip.Prefix, error) { return JoinGatewayRouterIP(pfx("100.65.0.0/16"), 1) }, "", ErrOutOfRange},
		{"join GR node too big", func() (netip.Prefix, error) { return JoinGatewayRouterIP(pfx("100.65.0.0/16"), MaxNodeID+1) }, "", ErrOutOfRange},
		{"join GR broadcast", func() (netip.Prefix, error) { return JoinGatewayRouterIP(pfx("100.65.0.0/24"), 255) }, "", ErrOutOfRange},
		{"join GR /24 last host", func() (netip.Prefix, error) { return JoinGatewayRouterIP(pfx("100.65.0.0/24"), 254) }, "100.65.0.254/24", nil},
		{"transit switch node 2", func() (netip.Prefix, error) { return TransitSwitchIP(pfx("100.88.0.0/16"), 2) }, "100.88.0.2/16", nil},
		{"transit switch node 4 v6", func() (netip.Prefix, error) { return TransitSwitchIP(pfx("fd97::/64"), 4) }, "fd97::4/64", nil},
		{"transit switch node 0", func() (netip.Prefix, error) { return TransitSwitchIP(pfx("fd97::/64"), 0) }, "", ErrOutOfRange},
		{"peer subnet node 2", func() (netip.Prefix, error) { return TransitRouterPeerSubnet(pfx("100.88.0.0/16"), 2) }, "100.88.0.4/30", nil},
		{"peer subnet node 4", func() (netip.Prefix, error) { return TransitRouterPeerSubnet(pfx("100.88.0.0/16"), 4) }, "100.88.0.12/30", nil},
		{"peer subnet node 3", func() (netip.Prefix, error) { return TransitRouterPeerSubnet(pfx("100.88.0.0/16"), 3) }, "100.88.0.8/30", nil},
		{"peer subnet node 4 v6", func() (netip.Prefix, error) { return TransitRouterPeerSubnet(pfx("fd97::/64"), 4) }, "fd97::8/127", nil},
		{"peer subnet node 3 v6", func() (netip.Prefix, error) { return TransitRouterPeerSubnet(pfx("fd97::/64"), 3) }, "fd97::6/127", nil},
		{"peer subnet too long v4", func() (netip.Prefix, error) { return TransitRouterPeerSubnet(pfx("100.88.0.0/31"), 1) }, "", ErrInvalid},
		{"peer subnet overflow", func() (netip.Prefix, error) { return TransitRouterPeerSubnet(pfx("100.88.0.0/28"), 5) }, "", ErrOutOfRange},
		{"peer subnet last fits", func() (netip.Prefix, error) { return TransitRouterPeerSubnet(pfx("100.88.0.0/28"), 4) }, "100.88.0.12/30", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.fn()
			if tt.err != nil {
				if !errors.Is(err, tt.err) {
					t.Fatalf("got %v, %v; want error %v", got, err, tt.err)
				}
				return
			}
			if err != nil || got.String() != tt.want {
				t.Fatalf("got %v, %v; want %s", got, err, tt.want)
			}
		})
	}
}

func TestTransitRouterPeerIPs(t *testing.T) {
	tests := []struct {
		name       string
		transit    string
		nodeID     int
		router, gr string
	}{
		// seed 004's concrete listing.
		{"v4 node 2", "100.88.0.0/16", 2, "100.88.0.5/30", "100.88.0.6/30"},
		{"v4 node 3", "100.88.0.0/16", 3, "100.88.0.9/30", "100.88.0.10/30"},
		{"v4 node 4", "100.88.0.0/16", 4, "100.88.0.13/30", "100.88.0.14/30"},
		{"v6 node 4", "fd97::/64", 4, "fd97::8/127", "fd97::9/127"},
		{"v6 node 3", "fd97::/64", 3, "fd97::6/127", "fd97::7/127"},
		{"v6 node 2", "fd97::/64", 2, "fd97::4/127", "fd97::5/127"},
		{"v4 max node", "100.88.0.0/16", MaxNodeID, "100.88.78.29/30", "100.88.78.30/30"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, g, err := TransitRouterPeerIPs(pfx(tt.transit), tt.nodeID)
			if err != nil || r.String() != tt.router || g.String() != tt.gr {
				t.Fatalf("got %v %v %v; want %s %s", r, g, err, tt.router, tt.gr)
			}
		})
	}
	if _, _, err := TransitRouterPeerIPs(pfx("100.88.0.0/16"), 0); !errors.Is(err, ErrOutOfRange) {
		t.Fatalf("node 0: got %v, want ErrOutOfRange", err)
	}
}

func TestTransitRouterPeerPair(t *testing.T) {
	// The reference's /31 (/127) pairs
	// (secondary_layer2_network_controller_test.go).
	for _, a := range []struct {
		transit string
		id      int
		tr, gr  string
	}{{"100.88.0.0/16", 2, "100.88.0.4/31", "100.88.0.5/31"}, {"100.88.0.0/16", 200, "100.88.1.144/31", "100.88.1.145/31"},
		{"fd97::/64", 4, "fd97::8/127", "fd97::9/127"}} {
		r, g, err := TransitRouterPeerPair(pfx(a.transit), a.id)
		if err != nil || r.String() != a.tr || g.String() != a.gr {
			t.Errorf("TransitRouterPeerPair(%s, %d) = %s, %s, %v", a.transit, a.id, r, g, err)
		}
	}
	if _, _, err := TransitRouterPeerPair(pfx("100.88.0.0/30"), 2); err == nil {
		t.Error("a pair outside the transit subnet")
	}
	if _, _, err := TransitRouterPeerPair(pfx("100.88.0.0/16"), 0); !errors.Is(err, ErrOutOfRange) {
		t.Errorf("node 0: got %v, want ErrOutOfRange", err)
	}
}

func TestTransitSubnetAvoiding(t *testing.T) {
	// Everything in the range but its last /16 (/64) taken: the move stays
	// inside 100.64.0.0/10 (fd97::/56).
	v4 := []netip.Prefix{pfx("100.64.0.0/11"), pfx("100.96.0.0/12"), pfx("100.112.0.0/13"),
		pfx("100.120.0.0/14"), pfx("100.124.0.0/15"), pfx("100.126.0.0/16")}
	if got, err := TransitSubnetAvoiding(true, v4); err != nil || got.String() != "100.127.0.0/16" {
		t.Errorf("last IPv4 candidate %s %v", got, err)
	}
	v6 := []netip.Prefix{pfx("fd97::/57"), pfx("fd97:0:0:80::/58"), pfx("fd97:0:0:c0::/59"),
		pfx("fd97:0:0:e0::/60"), pfx("fd97:0:0:f0::/61"), pfx("fd97:0:0:f8::/62"),
		pfx("fd97:0:0:fc::/63"), pfx("fd97:0:0:fe::/64")}
	if got, err := TransitSubnetAvoiding(false, v6); err != nil || got.String() != "fd97:0:0:ff::/64" {
		t.Errorf("last IPv6 candidate %s %v", got, err)
	}
	if got, err := TransitSubnetAvoiding(true, []netip.Prefix{pfx("10.0.0.0/8")}); err != nil || got.String() != "100.88.0.0/16" {
		t.Errorf("no overlap: %s %v, want the default", got, err)
	}
	if got, err := TransitSubnetAvoiding(true, []netip.Prefix{pfx("100.88.0.0/24")}); err != nil || got.String() != "100.89.0.0/16" {
		t.Errorf("overlap: %s %v, want the next /16", got, err)
	}
	if _, err := TransitSubnetAvoiding(true, []netip.Prefix{pfx("100.64.0.0/10")}); !errors.Is(err, ErrExhausted) {
		t.Errorf("an avoided /10: %v, want ErrExhausted", err)
	}
}

func TestMasquerade(t *testing.T) {
	// seed 000: the legacy /29 has host masquerade .2 and ETP=local .3.
	m, err := MasqueradeIPs(pfx("169.254.169.0/29"))
	if err != nil {
		t.Fatal(err)
	}
	want := Masquerade{
		Subnet: pfx("169.254.169.0/29"), OVN: addr("169.254.169.1"), Host: addr("169.254.169.2"),
		ETPLocal: addr("169.254.169.3"), DummyNextHop: addr("169.254.169.4"), ServiceHairpin: addr("169.254.169.5"),
	}
	if m != want {
		t.Fatalf("got %+v, want %+v", m, want)
	}
	m6, err := MasqueradeIPs(pfx("fd69::/112"))
	if err != nil || m6.Host != addr("fd69::2") || m6.ServiceHairpin != addr("fd69::5") {
		t.Fatalf("v6: got %+v, %v", m6, err)
	}
	if _, err := MasqueradeIPs(pfx("169.254.169.0/30")); !errors.Is(err, ErrOutOfRange) {
		t.Fatalf("/30: got %v, want ErrOutOfRange", err)
	}

	perNet := []struct {
		name    string
		subnet  string
		id      int
		gr, mp  string
		wantErr error
	}{
		{"v4 net 1", "169.254.0.0/17", 1, "169.254.0.11", "169.254.0.12", nil},
		{"v4 net 2", "169.254.0.0/17", 2, "169.254.0.13", "169.254.0.14", nil},
		{"v4 net 4095", "169.254.0.0/17", 4095, "169.254.32.7", "169.254.32.8", nil},
		{"v6 net 3", "fd69::/112", 3, "fd69::f", "fd69::10", nil},
		{"net 0", "169.254.0.0/17", 0, "", "", ErrOutOfRange},
		{"net too big", "169.254.0.0/17", MaxNetworkID + 1, "", "", ErrOutOfRange},
		{"/29 too small", "169.254.169.0/29", 1, "", "", ErrOutOfRange},
		{"/28 broadcast refused", "169.254.169.0/28", 3, "", "", ErrOutOfRange},
		{"/28 fits net 2", "169.254.169.0/28", 2, "169.254.169.13", "169.254.169.14", nil},
	}
	for _, tt := range perNet {
		t.Run(tt.name, func(t *testing.T) {
			gr, mp, err := NetworkMasqueradeIPs(pfx(tt.subnet), tt.id)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("got %v %v %v, want %v", gr, mp, err, tt.wantErr)
				}
				return
			}
			if err != nil || gr.String() != tt.gr || mp.String() != tt.mp {
				t.Fatalf("got %v %v %v; want %s %s", gr, mp, err, tt.gr, tt.mp)
			}
		})
	}
}

func TestCheckMasqueradeCapacity(t *testing.T) {
	tests := []struct {
		name    string
		subnet  string
		max     int
		wantErr string
	}{
		{"default v4 holds 4095", "169.254.0.0/17", 4095, ""},
		{"/18 holds 4095", "169.254.0.0/18", 4095, ""},
		{"/19 too small for 4095", "169.254.0.0/19", 4095, "masquerade subnet 169.254.0.0/19 is too small for network IDs up to 4095: needs /18 or shorter: exhausted"},
		{"default v6 holds 4095", "fd69::/112", 4095, ""},
		{"v6 /115 too small", "fd69::/115", 4095, "masquerade subnet fd69::/115 is too small for network IDs up to 4095: needs /114 or shorter: exhausted"},
		{"legacy /29 holds no network", "169.254.169.0/29", 1, "masquerade subnet 169.254.169.0/29 is too small for network IDs up to 1: needs /28 or shorter: exhausted"},
		{"/28 holds 2", "169.254.169.0/28", 2, ""},
		{"/28 not 3", "169.254.169.0/28", 3, "masquerade subnet 169.254.169.0/28 is too small for network IDs up to 3: needs /27 or shorter: exhausted"},
		{"max out of range", "169.254.0.0/17", 5000, "masquerade subnet 169.254.0.0/17: network ID 5000 not in [0, 4095]: out of range"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckMasqueradeCapacity(pfx(tt.subnet), tt.max)
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tt.wantErr {
				t.Fatalf("got %q, want %q", got, tt.wantErr)
			}
		})
	}
	// Capacity check and derivation agree: the largest ID accepted by the
	// check is derivable, the next one is not.
	for bits := 20; bits <= 28; bits++ {
		p := netip.PrefixFrom(addr("169.254.0.0"), bits)
		maxOK := 0
		for n := 1; n <= MaxNetworkID; n++ {
			if CheckMasqueradeCapacity(p, n) != nil {
				break
			}
			maxOK = n
		}
		if maxOK > 0 {
			if _, _, err := NetworkMasqueradeIPs(p, maxOK); err != nil {
				t.Errorf("%s: check accepts %d but derivation fails: %v", p, maxOK, err)
			}
		}
		if maxOK < MaxNetworkID {
			if _, _, err := NetworkMasqueradeIPs(p, maxOK+1); err == nil {
				t.Errorf("%s: check refuses %d but derivation succeeds", p, maxOK+1)
			}
		}
	}
}

func TestMarksZonesTables(t *testing.T) {
	if NetworkCTMark(2) != 5 || NetworkPktMark(2) != 4098 || VRFTable(2) != 1002 {
		t.Fatalf("network 2: ct %d pkt %d table %d", NetworkCTMark(2), NetworkPktMark(2), VRFTable(2))
	}
	if Layer3TransitSwitchTunnelKey(1) != 16711684 || Layer3TransitSwitchTunnelKey(MaxNetworkID) != DynamicTunnelKeyFirst-1 {
		t.Fatalf("transit switch keys: %d %d", Layer3TransitSwitchTunnelKey(1), Layer3TransitSwitchTunnelKey(MaxNetworkID))
	}
	consts := []struct {
		name      string
		got, want int
	}{
		{"DynamicTunnelKeyFirst", DynamicTunnelKeyFirst, 16715779},
		{"DynamicTunnelKeyLast", DynamicTunnelKeyLast, 16777215},
		{"MaxLSPTunnelKey", MaxLSPTunnelKey, 32767},
		{"ConntrackZone", ConntrackZone, 64000},
		{"HostMasqueradeZone", HostMasqueradeZone, 64001},
		{"OVNMasqueradeZone", OVNMasqueradeZone, 64002},
		{"HostNodePortZone", HostNodePortZone, 64003},
		{"ReassemblyZone", ReassemblyZone, 64004},
		{"BrExCookie", BrExCookie, 0xdeff105},
		{"MaxNetworkID", MaxNetworkID, 4095},
		{"MaxNodeID", MaxNodeID, 5000},
		{"MinNodeID", MinNodeID, 2},
	}
	for _, c := range consts {
		if c.got != c.want {
			t.Errorf("%s = %d, want %d", c.name, c.got, c.want)
		}
	}
	if DefaultNetworkJoinSubnetV4 != "100.64.0.0/16" {
		t.Errorf("DefaultNetworkJoinSubnetV4 = %s", DefaultNetworkJoinSubnetV4)
	}
}

func TestMACAndLinkLocal(t *testing.T) {
	tests := []struct {
		ip, mac, lla string
	}{
		{"100.65.0.2", "0a:58:64:41:00:02", "fe80::858:64ff:fe41:2"},
		{"100.65.0.4", "0a:58:64:41:00:04", "fe80::858:64ff:fe41:4"},
		{"203.203.0.1", "0a:58:cb:cb:00:01", "fe80::858:cbff:fecb:1"},
		{"fd97::9", "0a:58:34:9d:c6:90", "fe80::858:34ff:fe9d:c690"}, // SHA-256 of "fd97::9"
	}
	for _, tt := range tests {
		t.Run(tt.ip, func(t *testing.T) {
			mac := MACFromIP(addr(tt.ip))
			if mac.String() != tt.mac {
				t.Fatalf("MACFromIP = %s, want %s", mac, tt.mac)
			}
			if lla := LinkLocalFromMAC(mac); lla.String() != tt.lla || !lla.IsLinkLocalUnicast() {
				t.Fatalf("LinkLocalFromMAC = %s, want %s", lla, tt.lla)
			}
		})
	}
	if MACFromIP(netip.Addr{}) != nil || LinkLocalFromMAC(net.HardwareAddr{1, 2, 3}).IsValid() {
		t.Fatal("invalid input must give a zero result")
	}
}

func TestDefaults(t *testing.T) {
	for _, tt := range []struct {
		name string
		got  []netip.Prefix
		want string
	}{
		{"join", DefaultJoinSubnets(), "[100.65.0.0/16 fd99::/64]"},
		{"transit", DefaultTransitSubnets(), "[100.88.0.0/16 fd97::/64]"},
		{"masquerade", DefaultMasqueradeSubnets(), "[169.254.0.0/17 fd69::/112]"},
		{"default join", DefaultNetworkJoinSubnets(), "[100.64.0.0/16 fd98::/64]"},
	} {
		if got := fmtPrefixes(tt.got); got != tt.want {
			t.Errorf("%s: got %s, want %s", tt.name, got, tt.want)
		}
	}
	if DefaultJoinSubnets()[0].Overlaps(DefaultNetworkJoinSubnets()[0]) {
		t.Error("default join subnets overlap")
	}
}

func fmtPrefixes(ps []netip.Prefix) string {
	s := "["
	for i, p := range ps {
		if i > 0 {
			s += " "
		}
		s += p.String()
	}
	return s + "]"
}

func TestSubnetAvoiding(t *testing.T) {
	tests := []struct {
		name   string
		want   string
		avoid  []string
		got    string
		err    error
		within string
	}{
		{"no overlap", "100.88.0.0/16", []string{"10.0.0.0/8", "fd97::/64"}, "100.88.0.0/16", nil, ""},
		{"same subnet", "100.88.0.0/16", []string{"100.88.0.0/16"}, "100.89.0.0/16", nil, ""},
		{"inside", "100.88.0.0/16", []string{"100.88.4.0/24", "100.89.0.0/17"}, "100.90.0.0/16", nil, ""},
		{"covering", "100.88.0.0/16", []string{"100.64.0.0/10"}, "100.128.0.0/16", nil, ""},
		{"wraps", "255.255.0.0/16", []string{"255.255.0.0/16", "0.0.0.0/16"}, "0.1.0.0/16", nil, ""},
		{"v6", "fd97::/64", []string{"fd97::/63"}, "fd97:0:0:2::/64", nil, ""},
		{"v6 wraps", "ffff:ffff:ffff:ffff::/64", []string{"ffff::/16"}, "::/64", nil, ""},
		{"all taken", "10.0.0.0/1", []string{"0.0.0.0/1", "128.0.0.0/1"}, "", ErrExhausted, ""},
		{"all taken /0", "0.0.0.0/0", []string{"1.2.3.4/32"}, "", ErrExhausted, ""},
		{"invalid", "", nil, "", ErrInvalid, ""},
		// Bounded: a transit subnet stays in the shared address space.
		{"within: covering wraps inside", "100.88.0.0/16", []string{"100.88.0.0/13", "100.96.0.0/11"}, "100.64.0.0/16", nil, "100.64.0.0/10"},
		{"within: last /16", "100.88.0.0/16", []string{"100.64.0.0/11", "100.96.0.0/12", "100.112.0.0/13", "100.120.0.0/14", "100.124.0.0/15", "100.126.0.0/16"}, "100.127.0.0/16", nil, "100.64.0.0/10"},
		{"within: all taken", "100.88.0.0/16", []string{"100.64.0.0/10"}, "", ErrExhausted, "100.64.0.0/10"},
		{"within: v6 last /64", "fd97::/64", []string{"fd97::/57", "fd97:0:0:80::/58", "fd97:0:0:c0::/59", "fd97:0:0:e0::/60", "fd97:0:0:f0::/61", "fd97:0:0:f8::/62", "fd97:0:0:fc::/63", "fd97:0:0:fe::/64"}, "fd97:0:0:ff::/64", nil, "fd97::/56"},
		{"within: want outside", "100.88.0.0/16", nil, "", ErrInvalid, "10.0.0.0/8"},
		{"within: other family", "100.88.0.0/16", nil, "", ErrInvalid, "fd97::/56"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var w netip.Prefix
			if tt.want != "" {
				w = pfx(tt.want)
			}
			var av []netip.Prefix
			for _, a := range tt.avoid {
				av = append(av, pfx(a))
			}
			var within netip.Prefix
			if tt.within != "" {
				within = pfx(tt.within)
			}
			got, err := SubnetAvoiding(w, within, av)
			if tt.err != nil {
				if !errors.Is(err, tt.err) {
					t.Fatalf("got %v %v, want %v", got, err, tt.err)
				}
				return
			}
			if err != nil || got.String() != tt.got {
				t.Fatalf("got %v %v, want %s", got, err, tt.got)
			}
		})
	}
}
