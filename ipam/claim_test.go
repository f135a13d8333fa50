package ipam

import (
	"errors"
	"net/netip"
	"slices"
	"testing"
)

func newClaim(ns, name, network string, ips ...string) RecordedClaim {
	return RecordedClaim{Key: ClaimKey{Namespace: ns, Name: name}, Network: network, IPs: ips}
}

func TestClaimAllocatorPersistsAcrossPodsAndRestarts(t *testing.T) {
	pods, err := NewPodIPAllocator([]netip.Prefix{pfx("10.100.200.0/24"), pfx("fd10:100:200::/64")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := NewClaimAllocator("ns1_vmnet", pods)
	vm := ClaimKey{Namespace: "ns1", Name: "vm-a.eth0"}
	first, err := c.Allocate(vm)
	if err != nil || fmtPrefixes(first) != "[10.100.200.3/24 fd10:100:200::3/64]" {
		t.Fatalf("first: %v %v", first, err)
	}
	// An ordinary pod takes an address in between.
	if _, err := pods.Allocate(); err != nil {
		t.Fatal(err)
	}
	// The VM's pod goes away (nothing released) and a migration target starts.
	again, err := c.Allocate(vm)
	if err != nil || !slices.Equal(again, first) {
		t.Fatalf("migration target got %v %v, want %v", again, err, first)
	}

	// Restart: a fresh allocator restored from the claim's status.
	pods2, _ := NewPodIPAllocator([]netip.Prefix{pfx("10.100.200.0/24"), pfx("fd10:100:200::/64")}, nil)
	c2 := NewClaimAllocator("ns1_vmnet", pods2)
	claim := newClaim("ns1", "vm-a.eth0", "ns1_vmnet", "10.100.200.3/24", "fd10:100:200::3/64")
	got, err := c2.Restore(claim)
	if err != nil || !slices.Equal(got, first) {
		t.Fatalf("restore: %v %v", got, err)
	}
	if _, err := c2.Restore(claim); err != nil {
		t.Fatalf("idempotent restore: %v", err)
	}
	if after, _ := c2.Allocate(vm); !slices.Equal(after, first) {
		t.Fatalf("after restart got %v", after)
	}
	if p, _ := pods2.Allocate(); p[0].Addr() == addr("10.100.200.3") {
		t.Fatal("restored claim address handed to another pod")
	}
	// Claim deleted: the addresses become free.
	if err := c2.Release(vm); err != nil {
		t.Fatal(err)
	}
	if pods2.IsAllocated(addr("10.100.200.3")) || pods2.IsAllocated(addr("fd10:100:200::3")) {
		t.Fatal("deleted claim still holds addresses")
	}
	if _, ok := c2.Lookup(vm); ok {
		t.Fatal("Lookup after release")
	}
	if err := c2.Release(vm); err != nil {
		t.Fatalf("release twice: %v", err)
	}
}

func TestClaimAllocatorRestoreErrors(t *testing.T) {
	pods, _ := NewPodIPAllocator([]netip.Prefix{pfx("10.100.200.0/24")}, nil)
	c := NewClaimAllocator("net", pods)
	if _, err := c.Restore(newClaim("ns", "a", "net", "10.100.200.9")); err != nil {
		t.Fatalf("bare address: %v", err)
	}
	if got, _ := c.Lookup(ClaimKey{"ns", "a"}); fmtPrefixes(got) != "[10.100.200.9/24]" {
		t.Fatalf("normalised to interface address: %v", got)
	}
	tests := []struct {
		name  string
		claim RecordedClaim
		want  error
	}{
		{"other network", newClaim("ns", "b", "other", "10.100.200.10/24"), ErrInvalid},
		{"garbage", newClaim("ns", "b", "net", "10.100.200.300/24"), ErrInvalid},
		{"taken by a", newClaim("ns", "b", "net", "10.100.200.9/24"), ErrConflict},
		{"gateway", newClaim("ns", "b", "net", "10.100.200.1/24"), ErrConflict},
		{"outside", newClaim("ns", "b", "net", "10.9.0.5/24"), ErrOutOfRange},
		{"a with other IPs", newClaim("ns", "a", "net", "10.100.200.10/24"), ErrConflict},
	}
	for _, tt := range tests {
		if _, err := c.Restore(tt.claim); !errors.Is(err, tt.want) {
			t.Errorf("%s: got %v, want %v", tt.name, err, tt.want)
		}
	}
	if got, err := c.Restore(newClaim("ns", "empty", "net")); err != nil || got != nil {
		t.Fatalf("claim without IPs: %v %v", got, err)
	}
	if _, err := c.Allocate(ClaimKey{"ns", "c"}); err != nil {
		t.Fatal(err)
	}
	if keys := c.Claims(); len(keys) != 2 || keys[0].String() != "ns/a" || keys[1].String() != "ns/c" {
		t.Fatalf("Claims() = %v", keys)
	}
	full, _ := NewPodIPAllocator([]netip.Prefix{pfx("10.0.0.0/30")}, nil)
	if _, err := NewClaimAllocator("tiny", full).Allocate(ClaimKey{"ns", "x"}); !errors.Is(err, ErrExhausted) {
		t.Fatalf("exhausted: %v", err)
	}
}
