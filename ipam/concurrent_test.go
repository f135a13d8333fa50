package ipam

import (
	"fmt"
	"net/netip"
	"sync"
	"testing"
)

// TestAllocatorsConcurrent hammers every keyed allocator from several
// goroutines (run with -race) and checks that no two owners ever share an
// ID, subnet or address.
func TestAllocatorsConcurrent(t *testing.T) {
	nets := NewNetworkIDAllocator()
	keys := NewTunnelKeyAllocator()
	hosts, err := NewHostSubnetAllocator("c", []HostSubnetRange{{pfx("10.128.0.0/16"), 24}, {pfx("fd00::/48"), 64}})
	if err != nil {
		t.Fatal(err)
	}
	conn, err := NewConnectSubnetAllocator("c", []ConnectSubnet{{pfx("192.168.0.0/16"), 24}})
	if err != nil {
		t.Fatal(err)
	}
	pods, err := NewPodIPAllocator([]netip.Prefix{pfx("10.1.0.0/16")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	claims := NewClaimAllocator("c", pods)

	const workers, perWorker = 6, 40
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range perWorker {
				owner := fmt.Sprintf("w%d-%d", w, i)
				id, err := nets.Allocate(owner)
				if err != nil {
					t.Error(err)
					return
				}
				topo := ConnectLayer3
				if i%2 == 0 {
					topo = ConnectLayer2
				}
				for _, err := range []error{
					func() error { _, err := keys.Allocate(owner, Layer2TunnelKeys); return err }(),
					func() error { _, err := hosts.Allocate(owner); return err }(),
					func() error { _, err := conn.Allocate(id, topo); return err }(),
					func() error { _, err := claims.Allocate(ClaimKey{"ns", owner}); return err }(),
				} {
					if err != nil {
						t.Error(err)
						return
					}
				}
				if i%3 == 0 { // churn
					keys.Release(owner)
					hosts.Release(owner)
					conn.Release(id)
					if err := claims.Release(ClaimKey{"ns", owner}); err != nil {
						t.Error(err)
					}
					nets.Release(owner)
				}
			}
		}()
	}
	wg.Wait()

	seenKey := map[int]string{}
	seenNet := map[netip.Prefix]string{}
	seenIP := map[netip.Addr]ClaimKey{}
	for w := range workers {
		for i := range perWorker {
			owner := fmt.Sprintf("w%d-%d", w, i)
			id, ok := nets.Lookup(owner)
			if ok != (i%3 != 0) {
				t.Fatalf("%s: held %v", owner, ok)
			}
			if !ok {
				continue
			}
			ks, _ := keys.Lookup(owner)
			for _, k := range ks {
				if o, dup := seenKey[k]; dup {
					t.Fatalf("tunnel key %d held by %s and %s", k, o, owner)
				}
				seenKey[k] = owner
			}
			hs, _ := hosts.Lookup(owner)
			_, cs, _ := conn.Lookup(id)
			for _, s := range append(hs, cs...) {
				for q, o := range seenNet {
					if q.Overlaps(s) {
						t.Fatalf("subnet %s of %s overlaps %s of %s", s, owner, q, o)
					}
				}
				seenNet[s] = owner
			}
			ips, _ := claims.Lookup(ClaimKey{"ns", owner})
			for _, p := range ips {
				if o, dup := seenIP[p.Addr()]; dup {
					t.Fatalf("%s held by %s and %s", p.Addr(), o, owner)
				}
				seenIP[p.Addr()] = ClaimKey{"ns", owner}
			}
		}
	}
	if nets.Len() != len(hosts.Nodes()) || len(conn.Networks()) != nets.Len() || len(claims.Claims()) != nets.Len() {
		t.Fatalf("held: %d network IDs, %d nodes, %d connect networks, %d claims", nets.Len(), len(hosts.Nodes()), len(conn.Networks()), len(claims.Claims()))
	}
}
