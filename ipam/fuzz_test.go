package ipam

import (
	"errors"
	"fmt"
	"net/netip"
	"testing"
)

func isSentinel(err error) bool {
	return errors.Is(err, ErrExhausted) || errors.Is(err, ErrConflict) || errors.Is(err, ErrOutOfRange) || errors.Is(err, ErrInvalid)
}

// inside reports whether interface address a lies in subnet s and carries
// the expected prefix length.
func inside(s netip.Prefix, a netip.Prefix, bits int) bool {
	return a.IsValid() && s.Contains(a.Addr()) && a.Bits() == bits
}

func FuzzDerivations(f *testing.F) {
	for _, s := range []string{"100.88.0.0/16", "fd97::/64", "169.254.0.0/17", "fd69::/112", "10.0.0.0/30", "1.2.3.4/32", "::/0", "0.0.0.0/0", "192.168.2.0/24"} {
		f.Add(s, 4, 7)
	}
	f.Add("100.88.0.0/16", MaxNodeID, MaxNetworkID)
	f.Fuzz(func(t *testing.T, subnet string, nodeID, networkID int) {
		p, err := netip.ParsePrefix(subnet)
		if err != nil {
			return
		}
		m := p.Masked()
		check := func(what string, a netip.Prefix, bits int, err error) {
			if err != nil {
				if !isSentinel(err) {
					t.Fatalf("%s(%s): error %v wraps no sentinel", what, p, err)
				}
				return
			}
			if !inside(m, a, bits) {
				t.Fatalf("%s(%s, %d) = %s: outside the subnet", what, p, nodeID, a)
			}
			if a.Addr().Is4() && m.Bits() <= 30 && a.Addr() == netipxLast(m) {
				t.Fatalf("%s(%s) = %s: IPv4 broadcast", what, p, a)
			}
		}
		g, err := GatewayIP(p)
		check("GatewayIP", g, m.Bits(), err)
		mg, err := ManagementIP(p)
		check("ManagementIP", mg, m.Bits(), err)
		j, err := JoinGatewayRouterIP(p, nodeID)
		check("JoinGatewayRouterIP", j, m.Bits(), err)
		if err == nil {
			if r, _ := JoinRouterIP(p); r == j {
				t.Fatalf("gateway router of node %d collides with the join router %s", nodeID, r)
			}
		}
		ts, err := TransitSwitchIP(p, nodeID)
		check("TransitSwitchIP", ts, m.Bits(), err)
		r, gr, err := TransitRouterPeerIPs(p, nodeID)
		bits := 127
		if p.Addr().Is4() {
			bits = 30
		}
		check("TransitRouterPeerIPs router", r, bits, err)
		check("TransitRouterPeerIPs gateway router", gr, bits, err)
		if err == nil && (r.Addr() == gr.Addr() || !r.Masked().Contains(gr.Addr())) {
			t.Fatalf("peer IPs %s %s not a pair", r, gr)
		}
		r, gr, err = TransitRouterPeerPair(p, nodeID)
		check("TransitRouterPeerPair router", r, p.Addr().BitLen()-1, err)
		check("TransitRouterPeerPair gateway router", gr, p.Addr().BitLen()-1, err)
		if err == nil && (r.Addr().Next() != gr.Addr() || !r.Masked().Contains(gr.Addr())) {
			t.Fatalf("reference peer IPs %s %s not a pair", r, gr)
		}
		cn, cc, err := ConnectNodeIPs(p, nodeID)
		check("ConnectNodeIPs", cn, p.Addr().BitLen()-1, err)
		check("ConnectNodeIPs", cc, p.Addr().BitLen()-1, err)
		gw, mp, err := NetworkMasqueradeIPs(p, networkID)
		check("NetworkMasqueradeIPs", netip.PrefixFrom(gw, m.Bits()), m.Bits(), err)
		check("NetworkMasqueradeIPs", netip.PrefixFrom(mp, m.Bits()), m.Bits(), err)
		capErr := CheckMasqueradeCapacity(p, networkID)
		if networkID >= 1 && networkID <= MaxNetworkID && (capErr == nil) != (err == nil) {
			t.Fatalf("%s network %d: capacity check %v disagrees with derivation %v", p, networkID, capErr, err)
		}
		if _, err := MasqueradeIPs(p); err != nil && !isSentinel(err) {
			t.Fatal(err)
		}
		fam := 1
		if p.Addr().Is4() {
			fam = 0
		}
		if s, err := SubnetAvoiding(DefaultTransitSubnets()[fam], netip.Prefix{}, []netip.Prefix{m}); err == nil {
			if s.Overlaps(m) || s.Bits() != DefaultTransitSubnets()[fam].Bits() {
				t.Fatalf("SubnetAvoiding(%s) = %s", m, s)
			}
		} else if !errors.Is(err, ErrExhausted) {
			t.Fatal(err)
		}
		if lla := LinkLocalFromMAC(MACFromIP(p.Addr())); !lla.IsLinkLocalUnicast() {
			t.Fatalf("LinkLocalFromMAC(MACFromIP(%s)) = %s", p.Addr(), lla)
		}
	})
}

// netipxLast returns the last address of p.
func netipxLast(p netip.Prefix) netip.Addr {
	hb := hostBits(p)
	ones := u128{hi: ^uint64(0), lo: ^uint64(0)}
	var mask u128
	if hb >= 64 {
		mask = u128{hi: ones.hi >> (128 - hb), lo: ones.lo}
	} else if hb > 0 {
		mask = u128{lo: ones.lo >> (64 - hb)}
	}
	b := u128From(p.Addr())
	return u128{hi: b.hi | mask.hi, lo: b.lo | mask.lo}.addr(p.Addr().Is4())
}

func FuzzIPPool(f *testing.F) {
	f.Add("10.0.0.0/28", "10.0.0.4/30", []byte{0, 0, 1, 2, 0, 3, 4})
	f.Add("fd00::/64", "fd00::/125", []byte{0, 1, 2, 3, 200, 7})
	f.Add("2010:100:200::/48", "2010:100:200:1::/64", []byte{9, 9, 9})
	f.Add("10.0.0.0/31", "", []byte{0, 0})
	f.Fuzz(func(t *testing.T, subnet, exclude string, ops []byte) {
		p, err := netip.ParsePrefix(subnet)
		if err != nil {
			return
		}
		var ex []netip.Prefix
		if e, err := netip.ParsePrefix(exclude); err == nil {
			ex = append(ex, e)
		}
		pool, err := NewIPPool(p, ex...)
		if err != nil {
			if !isSentinel(err) {
				t.Fatal(err)
			}
			return
		}
		m := p.Masked()
		held := map[netip.Addr]bool{}
		if len(ops) > 300 {
			ops = ops[:300]
		}
		for i, op := range ops {
			switch op % 3 {
			case 0:
				a, err := pool.Allocate()
				if err != nil {
					if !errors.Is(err, ErrExhausted) {
						t.Fatal(err)
					}
					continue
				}
				off, _ := offsetOf(m, a)
				if !m.Contains(a) || held[a] || off <= 2 || isBroadcast4(m, off) || (len(ex) > 0 && ex[0].Contains(a)) {
					t.Fatalf("op %d: bad allocation %s", i, a)
				}
				held[a] = true
			case 1:
				a := addrAt(m, uint64(op)*uint64(i+1))
				if !m.Contains(a) {
					continue
				}
				if err := pool.AllocateIP(a); err == nil {
					if held[a] {
						t.Fatalf("op %d: %s allocated twice", i, a)
					}
					held[a] = true
				} else if !errors.Is(err, ErrConflict) {
					t.Fatalf("op %d: AllocateIP(%s): %v", i, a, err)
				}
			default:
				for a := range held {
					if err := pool.Release(a); err != nil {
						t.Fatal(err)
					}
					delete(held, a)
					break
				}
			}
		}
		if got := pool.Stats().Allocated; got != uint64(len(held)) {
			t.Fatalf("pool counts %d, reference %d", got, len(held))
		}
	})
}

func FuzzHostSubnets(f *testing.F) {
	f.Add("10.128.0.0/16", 24, uint8(10))
	f.Add("fd00::/48", 64, uint8(200))
	f.Add("10.0.0.0/30", 31, uint8(5))
	f.Fuzz(func(t *testing.T, cidr string, hostPrefix int, nodes uint8) {
		p, err := netip.ParsePrefix(cidr)
		if err != nil {
			return
		}
		a, err := NewHostSubnetAllocator("fuzz", []HostSubnetRange{{CIDR: p, HostPrefix: hostPrefix}})
		if err != nil {
			if !isSentinel(err) {
				t.Fatal(err)
			}
			return
		}
		seen := map[netip.Prefix]bool{}
		for i := range int(nodes) {
			got, err := a.Allocate(fmt.Sprint(i))
			if err != nil {
				if !errors.Is(err, ErrExhausted) || uint64(len(seen)) != (HostSubnetRange{p, hostPrefix}).Capacity() {
					t.Fatalf("node %d: %v with %d allocated", i, err, len(seen))
				}
				return
			}
			s := got[0]
			if seen[s] || s.Bits() != hostPrefix || !p.Contains(s.Addr()) || s.Masked() != s {
				t.Fatalf("node %d: bad host subnet %s", i, s)
			}
			seen[s] = true
		}
	})
}

func FuzzConnectSubnets(f *testing.F) {
	f.Add("192.168.0.0/16", 24, []byte{3, 2, 2, 3, 2, 5})
	f.Add("fd01::/48", 64, []byte{2, 3, 2, 2})
	f.Add("10.0.0.0/28", 30, []byte{2, 2, 2, 2, 3, 3, 3, 3, 3})
	f.Fuzz(func(t *testing.T, cidr string, networkPrefix int, ops []byte) {
		p, err := netip.ParsePrefix(cidr)
		if err != nil {
			return
		}
		a, err := NewConnectSubnetAllocator("fuzz", []ConnectSubnet{{CIDR: p, NetworkPrefix: networkPrefix}})
		if err != nil {
			if !isSentinel(err) {
				t.Fatal(err)
			}
			return
		}
		if len(ops) > 200 {
			ops = ops[:200]
		}
		held := map[int]netip.Prefix{}
		for i, op := range ops {
			id := int(op) % 40
			if op%5 == 4 {
				a.Release(id)
				delete(held, id)
				continue
			}
			topo := ConnectLayer3
			if op%2 == 0 {
				topo = ConnectLayer2
			}
			got, err := a.Allocate(id, topo)
			if err != nil {
				if !errors.Is(err, ErrExhausted) && !errors.Is(err, ErrConflict) {
					t.Fatalf("op %d: %v", i, err)
				}
				continue
			}
			s := got[0]
			if !p.Contains(s.Addr()) {
				t.Fatalf("op %d: %s outside %s", i, s, p)
			}
			for other, q := range held {
				if other != id && q.Overlaps(s) {
					t.Fatalf("op %d: network %d got %s overlapping network %d's %s", i, id, s, other, q)
				}
			}
			held[id] = s
			if topo == ConnectLayer3 {
				if n, c, err := ConnectNodeIPs(s, 0); err != nil || !s.Contains(n.Addr()) || !s.Contains(c.Addr()) {
					t.Fatalf("op %d: node pair of %s: %v %v %v", i, s, n, c, err)
				}
			}
		}
	})
}
