package ipam

import (
	"fmt"
	"net/netip"
	"runtime"
	"testing"
)

func benchAllocRelease(b *testing.B, subnet string) {
	p := mustPool(b, subnet)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		a, err := p.Allocate()
		if err != nil {
			b.Fatal(err)
		}
		if err := p.Release(a); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkIPPoolAllocRelease: one Allocate and one Release per op.
func BenchmarkIPPoolAllocRelease(b *testing.B) {
	for _, s := range []string{"10.0.0.0/16", "10.0.0.0/8", "fd00::/64"} {
		b.Run(s, func(b *testing.B) { benchAllocRelease(b, s) })
	}
}

// BenchmarkIPPoolAllocate: Allocate only, into a pool large enough never to
// fill (the /8 holds 16M addresses; the pool is renewed when it fills).
func BenchmarkIPPoolAllocate(b *testing.B) {
	for _, s := range []string{"10.0.0.0/8", "fd00::/64"} {
		b.Run(s, func(b *testing.B) {
			p := mustPool(b, s)
			b.ReportAllocs()
			n := 0
			for b.Loop() {
				if _, err := p.Allocate(); err != nil {
					b.StopTimer()
					p, n = mustPool(b, s), 0
					b.StartTimer()
					continue
				}
				n++
			}
		})
	}
}

// BenchmarkIPPoolMemory fills a pool completely and reports the heap it holds
// per address.
func BenchmarkIPPoolMemory(b *testing.B) {
	for _, s := range []string{"10.0.0.0/16", "10.0.0.0/8"} {
		b.Run(s, func(b *testing.B) {
			b.ReportAllocs()
			var bitsPerAddr float64
			for b.Loop() {
				var before, after runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&before)
				p := mustPool(b, s)
				for {
					if _, err := p.Allocate(); err != nil {
						break
					}
				}
				runtime.GC()
				runtime.ReadMemStats(&after)
				size := float64(p.Stats().Size)
				bitsPerAddr = float64(after.HeapAlloc-before.HeapAlloc) * 8 / size
				runtime.KeepAlive(p)
			}
			b.ReportMetric(bitsPerAddr, "heapbits/addr")
		})
	}
	b.Run("fd00::/64 with 100k", func(b *testing.B) {
		b.ReportAllocs()
		var bytes float64
		for b.Loop() {
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			p := mustPool(b, "fd00::/64")
			for range 100_000 {
				if _, err := p.Allocate(); err != nil {
					b.Fatal(err)
				}
			}
			runtime.GC()
			runtime.ReadMemStats(&after)
			bytes = float64(after.HeapAlloc - before.HeapAlloc)
			runtime.KeepAlive(p)
		}
		b.ReportMetric(bytes, "heapbytes/pool")
	})
}

// BenchmarkHostSubnets5000 allocates dual-stack host subnets for 5000 nodes
// per op.
func BenchmarkHostSubnets5000(b *testing.B) {
	names := make([]string, 5000)
	for i := range names {
		names[i] = fmt.Sprintf("node-%d", i)
	}
	ranges := []HostSubnetRange{{pfx("10.128.0.0/10"), 24}, {pfx("fd00:10:128::/48"), 64}}
	b.ReportAllocs()
	for b.Loop() {
		a, err := NewHostSubnetAllocator("bench", ranges)
		if err != nil {
			b.Fatal(err)
		}
		for _, n := range names {
			if _, err := a.Allocate(n); err != nil {
				b.Fatal(err)
			}
		}
	}
}

func BenchmarkPodIPAllocatorDualStack(b *testing.B) {
	a, err := NewPodIPAllocator([]netip.Prefix{pfx("10.0.0.0/16"), pfx("fd00::/64")}, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		got, err := a.Allocate()
		if err != nil {
			b.Fatal(err)
		}
		if err := a.Release(got[0].Addr(), got[1].Addr()); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkNetworkIDs(b *testing.B) {
	names := make([]string, MaxNetworkID)
	for i := range names {
		names[i] = fmt.Sprint("net", i)
	}
	b.ReportAllocs()
	for b.Loop() {
		a := NewNetworkIDAllocator()
		for _, n := range names {
			if _, err := a.Allocate(n); err != nil {
				b.Fatal(err)
			}
		}
	}
}
