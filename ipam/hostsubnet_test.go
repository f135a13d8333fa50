package ipam

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"net/netip"
	"strings"
	"testing"
)

func TestHostSubnetRestoreOnePerFamily(t *testing.T) {
	a, err := NewHostSubnetAllocator("tenant_v4", []HostSubnetRange{
		{CIDR: pfx("10.128.0.0/16"), HostPrefix: 24}, {CIDR: pfx("10.129.0.0/16"), HostPrefix: 24},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Restore("node1", pfx("10.128.0.0/24"), pfx("10.129.0.0/24")); !errors.Is(err, ErrInvalid) {
		t.Errorf("two IPv4 subnets for one node: %v, want ErrInvalid", err)
	}
	if err := a.Restore("node1", pfx("10.129.7.0/24")); err != nil {
		t.Errorf("one subnet of the second range: %v", err)
	}
	if err := a.Restore("node2", pfx("10.129.7.0/24")); !errors.Is(err, ErrConflict) || !strings.Contains(err.Error(), `"node1"`) {
		t.Errorf("node1's subnet for node2: %v, want ErrConflict naming node1", err)
	}
}

func TestHostSubnetAllocator(t *testing.T) {
	a, err := NewHostSubnetAllocator("tenant_blue", []HostSubnetRange{
		{CIDR: pfx("10.128.0.0/22"), HostPrefix: 24},
		{CIDR: pfx("fd00:10:128::/48"), HostPrefix: 64},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"node1": "[10.128.0.0/24 fd00:10:128::/64]",
		"node2": "[10.128.1.0/24 fd00:10:128:1::/64]",
	}
	for _, n := range []string{"node1", "node2", "node1"} {
		got, err := a.Allocate(n)
		if err != nil || fmtPrefixes(got) != want[n] {
			t.Fatalf("%s: got %v %v, want %s", n, got, err, want[n])
		}
	}
	// restore what another node held before a restart
	if err := a.Restore("node3", pfx("10.128.3.0/24"), pfx("fd00:10:128:3::/64")); err != nil {
		t.Fatal(err)
	}
	if err := a.Restore("node3", pfx("10.128.3.0/24"), pfx("fd00:10:128:3::/64")); err != nil {
		t.Fatalf("idempotent restore: %v", err)
	}
	for _, tt := range []struct {
		name    string
		node    string
		subnets []netip.Prefix
		want    error
	}{
		{"taken by node1", "node4", []netip.Prefix{pfx("10.128.0.0/24"), pfx("fd00:10:128:2::/64")}, ErrConflict},
		{"node3 holds others", "node3", []netip.Prefix{pfx("10.128.2.0/24")}, ErrConflict},
		{"empty", "node4", nil, ErrInvalid},
		{"one family of a dual-stack network", "node4", []netip.Prefix{pfx("10.128.2.0/24")}, ErrInvalid},
		{"same subnet as node1, both families", "node4", []netip.Prefix{pfx("10.128.0.0/24"), pfx("fd00:10:128::/64")}, ErrConflict},
		{"wrong length", "node4", []netip.Prefix{pfx("10.128.2.0/25")}, ErrOutOfRange},
		{"unmasked", "node4", []netip.Prefix{pfx("10.128.2.1/24")}, ErrOutOfRange},
		{"outside", "node4", []netip.Prefix{pfx("10.129.0.0/24")}, ErrOutOfRange},
		{"same twice", "node4", []netip.Prefix{pfx("10.128.2.0/24"), pfx("10.128.2.0/24")}, ErrConflict},
	} {
		if err := a.Restore(tt.node, tt.subnets...); !errors.Is(err, tt.want) {
			t.Errorf("%s: got %v, want %v", tt.name, err, tt.want)
		}
	}
	got, err := a.Allocate("node4")
	if err != nil || fmtPrefixes(got) != "[10.128.2.0/24 fd00:10:128:2::/64]" {
		t.Fatalf("node4: %v %v", got, err)
	}
	_, err = a.Allocate("node5")
	if !errors.Is(err, ErrExhausted) {
		t.Fatalf("node5: %v", err)
	}
	const msg = `network "tenant_blue": node "node5": host subnets 10.128.0.0/22/24: exhausted: the network holds at most 4 nodes`
	if err.Error() != msg {
		t.Fatalf("message:\n got %s\nwant %s", err, msg)
	}
	if _, ok := a.Lookup("node5"); ok {
		t.Fatal("failed node holds subnets")
	}
	a.Release("node2")
	got, err = a.Allocate("node5")
	if err != nil || fmtPrefixes(got) != "[10.128.1.0/24 fd00:10:128:1::/64]" {
		t.Fatalf("node5 after release of node2: %v %v", got, err)
	}
	if fmt.Sprint(a.Nodes()) != "[node1 node3 node4 node5]" {
		t.Fatalf("Nodes() = %v", a.Nodes())
	}
}

func TestHostSubnetAllocatorRangesAndValidation(t *testing.T) {
	a, err := NewHostSubnetAllocator("n", []HostSubnetRange{
		{CIDR: pfx("10.0.0.0/24"), HostPrefix: 25},
		{CIDR: pfx("10.1.0.0/24"), HostPrefix: 26},
	})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for i := range 6 {
		s, err := a.Allocate(fmt.Sprint("n", i))
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, s[0].String())
	}
	if fmt.Sprint(got) != "[10.0.0.0/25 10.0.0.128/25 10.1.0.0/26 10.1.0.64/26 10.1.0.128/26 10.1.0.192/26]" {
		t.Fatalf("got %v", got)
	}
	_, err = a.Allocate("n6")
	if err == nil || err.Error() != `network "n": node "n6": host subnets 10.0.0.0/24/25,10.1.0.0/24/26: exhausted: the network holds at most 6 nodes` {
		t.Fatalf("got %v", err)
	}
	for _, bad := range []struct {
		name   string
		ranges []HostSubnetRange
		want   error
	}{
		{"none", nil, ErrInvalid},
		{"unmasked", []HostSubnetRange{{pfx("10.0.0.1/24"), 26}}, ErrInvalid},
		{"host prefix short", []HostSubnetRange{{pfx("10.0.0.0/24"), 16}}, ErrInvalid},
		{"host prefix long", []HostSubnetRange{{pfx("10.0.0.0/24"), 33}}, ErrInvalid},
		{"overlap", []HostSubnetRange{{pfx("10.0.0.0/16"), 24}, {pfx("10.0.1.0/24"), 26}}, ErrConflict},
	} {
		if _, err := NewHostSubnetAllocator("n", bad.ranges); !errors.Is(err, bad.want) {
			t.Errorf("%s: got %v, want %v", bad.name, err, bad.want)
		}
	}
	if s := (HostSubnetRange{pfx("10.128.0.0/16"), 24}).String(); s != "10.128.0.0/16/24" {
		t.Errorf("String() = %s", s)
	}
	if c := (HostSubnetRange{pfx("fd00::/32"), 128}).Capacity(); c != 1<<64-1 {
		t.Errorf("capacity saturates: %d", c)
	}
}

func TestHostSubnetIPv6Wide(t *testing.T) {
	// 2^32 host subnets: the bitmap must stay sparse.
	a, err := NewHostSubnetAllocator("wide", []HostSubnetRange{{pfx("fd00::/32"), 64}})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Restore("far", pfx("fd00:0:ffff:ffff::/64")); err != nil {
		t.Fatal(err)
	}
	got, _ := a.Allocate("near")
	if fmtPrefixes(got) != "[fd00::/64]" {
		t.Fatalf("got %v", got)
	}
	if n := len(a.ranges[0].bs.sparse); n != 2 {
		t.Fatalf("%d chunks, want 2", n)
	}
}

func TestHostSubnetRandomAgainstReference(t *testing.T) {
	a, _ := NewHostSubnetAllocator("r", []HostSubnetRange{{pfx("10.0.0.0/20"), 26}}) // 64 subnets
	rng := rand.New(rand.NewPCG(5, 6))
	ref := map[string]netip.Prefix{}
	owner := map[netip.Prefix]string{}
	for i := range 20000 {
		node := fmt.Sprint("node", rng.IntN(100))
		if rng.IntN(3) < 2 {
			got, err := a.Allocate(node)
			if prev, ok := ref[node]; ok {
				if err != nil || got[0] != prev {
					t.Fatalf("step %d: %s moved from %s to %v (%v)", i, node, prev, got, err)
				}
				continue
			}
			if len(ref) == 64 {
				if !errors.Is(err, ErrExhausted) {
					t.Fatalf("step %d: want exhausted, got %v %v", i, got, err)
				}
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
			s := got[0]
			if o, dup := owner[s]; dup || !pfx("10.0.0.0/20").Contains(s.Addr()) || s.Bits() != 26 {
				t.Fatalf("step %d: %s got %s, held by %q", i, node, s, o)
			}
			ref[node], owner[s] = s, node
		} else {
			a.Release(node)
			if s, ok := ref[node]; ok {
				delete(owner, s)
				delete(ref, node)
			}
		}
	}
}
