package ipam

import (
	"errors"
	"math/rand/v2"
	"net/netip"
	"slices"
	"sync"
	"testing"
)

func mustPool(t testing.TB, subnet string, exclude ...string) *IPPool {
	t.Helper()
	var ex []netip.Prefix
	for _, e := range exclude {
		ex = append(ex, pfx(e))
	}
	p, err := NewIPPool(pfx(subnet), ex...)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// drain allocates until the pool is exhausted and returns what it got.
func drain(t *testing.T, p *IPPool, limit int) []string {
	t.Helper()
	var got []string
	for range limit {
		a, err := p.Allocate()
		if errors.Is(err, ErrExhausted) {
			return got
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, a.String())
	}
	t.Fatalf("pool %s not exhausted after %d allocations", p.Subnet(), limit)
	return nil
}

func TestIPPoolNeverHandsOutReserved(t *testing.T) {
	tests := []struct {
		name    string
		subnet  string
		exclude []string
		want    []string
	}{
		{"v4 /29", "10.0.0.0/29", nil, []string{"10.0.0.3", "10.0.0.4", "10.0.0.5", "10.0.0.6"}},
		{"v4 /30 has nothing", "10.0.0.0/30", nil, nil},
		{"v4 /31 has nothing", "10.0.0.0/31", nil, nil},
		{"v4 /32 has nothing", "10.0.0.7/32", nil, nil},
		{"v4 /29 exclude /31", "10.0.0.0/29", []string{"10.0.0.4/31"}, []string{"10.0.0.3", "10.0.0.6"}},
		{"v4 exclude other family and outside ignored", "10.0.0.0/29", []string{"fd00::/64", "10.1.0.0/16"}, []string{"10.0.0.3", "10.0.0.4", "10.0.0.5", "10.0.0.6"}},
		{"v4 exclude covering subnet", "10.0.0.0/29", []string{"10.0.0.0/8"}, nil},
		{"v6 /125 no broadcast", "fd00::/125", nil, []string{"fd00::3", "fd00::4", "fd00::5", "fd00::6", "fd00::7"}},
		{"v6 /125 exclude last", "fd00::/125", []string{"fd00::7/128", "fd00::4/128"}, []string{"fd00::3", "fd00::5", "fd00::6"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := mustPool(t, tt.subnet, tt.exclude...)
			got := drain(t, p, 64)
			if !slices.Equal(got, tt.want) {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
			st := p.Stats()
			if st.Allocated != uint64(len(tt.want)) || st.Usable != uint64(len(tt.want)) {
				t.Fatalf("stats %+v, want %d allocated and usable", st, len(tt.want))
			}
		})
	}
}

func TestIPPoolAllocateIP(t *testing.T) {
	p := mustPool(t, "10.128.1.0/24", "10.128.1.128/25")
	tests := []struct {
		ip   string
		want error
	}{
		{"10.128.1.10", nil},
		{"10.128.1.10", ErrConflict}, // twice
		{"10.128.1.0", ErrConflict},  // network
		{"10.128.1.1", ErrConflict},  // gateway
		{"10.128.1.2", ErrConflict},  // management
		{"10.128.1.255", ErrConflict},
		{"10.128.1.200", ErrConflict}, // excluded
		{"10.128.2.1", ErrOutOfRange},
		{"fd00::1", ErrOutOfRange},
		{"10.128.1.127", nil},
	}
	for _, tt := range tests {
		err := p.AllocateIP(addr(tt.ip))
		if !errors.Is(err, tt.want) || (tt.want == nil) != (err == nil) {
			t.Errorf("AllocateIP(%s) = %v, want %v", tt.ip, err, tt.want)
		}
	}
	if err := p.AllocateIP(netip.Addr{}); !errors.Is(err, ErrOutOfRange) {
		t.Errorf("zero address: %v", err)
	}
	if !p.IsAllocated(addr("10.128.1.10")) || p.IsAllocated(addr("10.128.1.11")) {
		t.Error("IsAllocated disagrees")
	}
	if got := p.Allocated(); !slices.Equal(got, []netip.Addr{addr("10.128.1.10"), addr("10.128.1.127")}) {
		t.Errorf("Allocated() = %v", got)
	}
	// The next dynamic allocation skips the restored address.
	for range 7 {
		if _, err := p.Allocate(); err != nil {
			t.Fatal(err)
		}
	}
	if a, _ := p.Allocate(); a != addr("10.128.1.11") {
		t.Errorf("allocation after .3-.9 = %s, want 10.128.1.11", a)
	}
	if err := p.Release(addr("10.128.1.10")); err != nil || p.IsAllocated(addr("10.128.1.10")) {
		t.Errorf("release: %v", err)
	}
	if err := p.Release(addr("10.128.1.10")); err != nil {
		t.Errorf("second release must be a no-op: %v", err)
	}
	if err := p.Release(addr("10.9.9.9")); !errors.Is(err, ErrOutOfRange) {
		t.Errorf("release outside: %v", err)
	}
}

func TestIPPoolNextFit(t *testing.T) {
	p := mustPool(t, "10.0.0.0/24")
	a, _ := p.Allocate()
	if err := p.Release(a); err != nil {
		t.Fatal(err)
	}
	b, _ := p.Allocate()
	if a == b {
		t.Fatalf("released %s was handed out again at once", a)
	}
	// Wrap-around: after the last address the search restarts at the bottom.
	if err := p.AllocateIP(addr("10.0.0.254")); err != nil {
		t.Fatal(err)
	}
	for range 249 {
		if _, err := p.Allocate(); err != nil {
			t.Fatal(err)
		}
	}
	if c, err := p.Allocate(); err != nil || c != a {
		t.Fatalf("after wrap got %v %v, want %s", c, err, a)
	}
	if _, err := p.Allocate(); !errors.Is(err, ErrExhausted) {
		t.Fatalf("full pool: %v", err)
	}
}

func TestIPPoolIPv6Large(t *testing.T) {
	p := mustPool(t, "fd00:10:244:1::/64", "fd00:10:244:1::/120")
	a, err := p.Allocate()
	if err != nil || a != addr("fd00:10:244:1::100") {
		t.Fatalf("first = %v %v, want fd00:10:244:1::100", a, err)
	}
	far := addr("fd00:10:244:1:ffff:ffff:ffff:fff0")
	if err := p.AllocateIP(far); err != nil {
		t.Fatal(err)
	}
	if len(p.bs.sparse) != 2 {
		t.Fatalf("a /64 with two allocations holds %d chunks, want 2", len(p.bs.sparse))
	}
	if err := p.Release(far); err != nil {
		t.Fatal(err)
	}
	if len(p.bs.sparse) != 1 {
		t.Fatalf("after release %d chunks, want 1", len(p.bs.sparse))
	}
	st := p.Stats()
	if st.Size != 1<<64-1 || st.Allocated != 1 {
		t.Fatalf("stats %+v", st)
	}
	// The very last address of a /64 is outside the 2^64-1 window.
	last := addr("fd00:10:244:1:ffff:ffff:ffff:ffff")
	if err := p.AllocateIP(last); err != nil || !p.IsAllocated(last) {
		t.Fatalf("last address: %v", err)
	}
	if err := p.AllocateIP(last); !errors.Is(err, ErrConflict) {
		t.Fatalf("last address twice: %v", err)
	}
}

func TestIPPoolBeyondWindow(t *testing.T) {
	p := mustPool(t, "2010:100:200::/48", "2010:100:200:ff00::/56")
	beyond := addr("2010:100:200:1::5")
	if err := p.AllocateIP(beyond); err != nil {
		t.Fatal(err)
	}
	if err := p.AllocateIP(beyond); !errors.Is(err, ErrConflict) {
		t.Fatalf("twice: %v", err)
	}
	if err := p.AllocateIP(addr("2010:100:200:ff00::9")); !errors.Is(err, ErrConflict) {
		t.Fatalf("excluded beyond window: %v", err)
	}
	if got := p.Allocated(); len(got) != 1 || got[0] != beyond {
		t.Fatalf("Allocated() = %v", got)
	}
	if err := p.Release(beyond); err != nil || p.IsAllocated(beyond) {
		t.Fatalf("release: %v", err)
	}
}

func TestPodIPAllocatorDualStack(t *testing.T) {
	a, err := NewPodIPAllocator([]netip.Prefix{pfx("10.128.1.0/30"), pfx("fd00::/64")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	// The IPv4 /30 has no usable address: nothing may stay allocated in the IPv6 pool.
	if _, err := a.Allocate(); !errors.Is(err, ErrExhausted) {
		t.Fatalf("got %v, want ErrExhausted", err)
	}
	if a.Pools()[1].Stats().Allocated != 0 {
		t.Fatal("IPv6 address leaked after failed dual-stack allocation")
	}

	a, err = NewPodIPAllocator([]netip.Prefix{pfx("10.128.1.0/24"), pfx("fd00::/64")}, []netip.Prefix{pfx("10.128.1.0/28")})
	if err != nil {
		t.Fatal(err)
	}
	got, err := a.Allocate()
	if err != nil || fmtPrefixes(got) != "[10.128.1.16/24 fd00::3/64]" {
		t.Fatalf("got %v %v", got, err)
	}
	// all-or-nothing restore
	if err := a.AllocateIPs(addr("10.128.1.50"), addr("fd00::3")); !errors.Is(err, ErrConflict) {
		t.Fatalf("restore over taken: %v", err)
	}
	if a.IsAllocated(addr("10.128.1.50")) {
		t.Fatal("partial restore left 10.128.1.50 allocated")
	}
	if err := a.AllocateIPs(addr("10.128.1.50"), addr("10.128.1.51")); !errors.Is(err, ErrConflict) {
		t.Fatalf("two of one family: %v", err)
	}
	if err := a.AllocateIPs(addr("10.128.1.50"), addr("fd00::50")); err != nil {
		t.Fatal(err)
	}
	if err := a.Release(addr("10.128.1.50"), addr("fd00::50")); err != nil || a.IsAllocated(addr("fd00::50")) {
		t.Fatalf("release: %v", err)
	}
	if fmtPrefixes(a.Subnets()) != "[10.128.1.0/24 fd00::/64]" {
		t.Fatalf("Subnets() = %v", a.Subnets())
	}

	for _, bad := range []struct {
		name    string
		subnets []netip.Prefix
		exclude []netip.Prefix
		want    error
	}{
		{"none", nil, nil, ErrInvalid},
		{"two v4", []netip.Prefix{pfx("10.0.0.0/24"), pfx("10.0.1.0/24")}, nil, ErrInvalid},
		{"three", []netip.Prefix{pfx("10.0.0.0/24"), pfx("fd00::/64"), pfx("10.0.1.0/24")}, nil, ErrInvalid},
		{"exclude outside", []netip.Prefix{pfx("10.0.0.0/24")}, []netip.Prefix{pfx("10.9.0.0/24")}, ErrOutOfRange},
		{"invalid subnet", []netip.Prefix{{}}, nil, ErrInvalid},
	} {
		if _, err := NewPodIPAllocator(bad.subnets, bad.exclude); !errors.Is(err, bad.want) {
			t.Errorf("%s: got %v, want %v", bad.name, err, bad.want)
		}
	}
}

// TestIPPoolRandomAgainstReference runs random allocate / allocate-specific /
// release sequences and checks them against a map-based reference: never a
// duplicate, never a reserved or excluded address, exhaustion exactly when the
// reference is full, and everything released is reusable.
func TestIPPoolRandomAgainstReference(t *testing.T) {
	tests := []struct {
		subnet  string
		exclude []string
		window  uint64 // offsets the random specific allocations pick from
	}{
		{"10.0.0.0/26", []string{"10.0.0.16/30", "10.0.0.40/29"}, 64},
		{"10.0.0.0/23", []string{"10.0.1.0/25"}, 512},
		{"10.64.0.0/14", []string{"10.64.0.0/17"}, 1 << 18}, // chunked
		// chunked, 4095 usable addresses: fills up and wraps around
		{"10.64.0.0/15", []string{"10.64.0.0/16", "10.65.0.0/17", "10.65.128.0/18", "10.65.192.0/19", "10.65.224.0/20"}, 1 << 17},
		{"fd00::/64", []string{"fd00::8/125"}, 300}, // sparse
		{"fd00::/120", nil, 256},
	}
	for _, tt := range tests {
		t.Run(tt.subnet, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, uint64(len(tt.subnet))))
			p := mustPool(t, tt.subnet, tt.exclude...)
			subnet := pfx(tt.subnet)
			var excl []netip.Prefix
			for _, e := range tt.exclude {
				excl = append(excl, pfx(e))
			}
			forbidden := func(a netip.Addr) bool {
				off, _ := offsetOf(subnet, a)
				if off <= 2 || isBroadcast4(subnet, off) {
					return true
				}
				return slices.ContainsFunc(excl, func(e netip.Prefix) bool { return e.Contains(a) })
			}
			usable := 0
			if tt.window <= 1<<18 && prefixSize(subnet) <= 1<<18 {
				for off := range prefixSize(subnet) {
					if !forbidden(addrAt(subnet, off)) {
						usable++
					}
				}
			}
			ref := map[netip.Addr]bool{}
			var held []netip.Addr
			steps := 20000
			for i := range steps {
				switch op := rng.IntN(10); {
				case op < 5: // allocate
					a, err := p.Allocate()
					if errors.Is(err, ErrExhausted) {
						if usable == 0 || len(ref) != usable {
							t.Fatalf("step %d: exhausted with %d of %d held", i, len(ref), usable)
						}
						continue
					}
					if err != nil {
						t.Fatal(err)
					}
					if ref[a] || !subnet.Contains(a) || forbidden(a) {
						t.Fatalf("step %d: bad allocation %s (dup %v)", i, a, ref[a])
					}
					ref[a] = true
					held = append(held, a)
				case op < 7: // allocate specific
					a := addrAt(subnet, rng.Uint64N(tt.window))
					err := p.AllocateIP(a)
					switch {
					case forbidden(a) || ref[a]:
						if !errors.Is(err, ErrConflict) {
							t.Fatalf("step %d: AllocateIP(%s) = %v, want conflict", i, a, err)
						}
					case err != nil:
						t.Fatalf("step %d: AllocateIP(%s) = %v", i, a, err)
					default:
						ref[a] = true
						held = append(held, a)
					}
				default: // release
					if len(held) == 0 {
						continue
					}
					k := rng.IntN(len(held))
					a := held[k]
					held[k] = held[len(held)-1]
					held = held[:len(held)-1]
					delete(ref, a)
					if err := p.Release(a); err != nil {
						t.Fatal(err)
					}
				}
				if i%997 == 0 && p.Stats().Allocated != uint64(len(ref)) {
					t.Fatalf("step %d: pool counts %d, reference %d", i, p.Stats().Allocated, len(ref))
				}
			}
			for a := range ref {
				if !p.IsAllocated(a) {
					t.Fatalf("%s held by reference but free in pool", a)
				}
			}
			// Release everything; the pool must then hand out every usable
			// address again (checked fully on small pools).
			for _, a := range held {
				if err := p.Release(a); err != nil {
					t.Fatal(err)
				}
			}
			if p.Stats().Allocated != 0 {
				t.Fatalf("after releasing all: %+v", p.Stats())
			}
			if usable > 0 && usable <= 1<<12 {
				if got := drain(t, p, usable+1); len(got) != usable {
					t.Fatalf("after release got %d addresses, want %d", len(got), usable)
				}
			}
		})
	}
}

func TestPodIPAllocatorConcurrent(t *testing.T) {
	a, err := NewPodIPAllocator([]netip.Prefix{pfx("10.0.0.0/22"), pfx("fd00::/64")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	live := map[netip.Addr]bool{}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var mine [][]netip.Prefix
			for i := range 2000 {
				if i%3 == 2 && len(mine) > 0 {
					got := mine[0]
					mine = mine[1:]
					mu.Lock()
					for _, p := range got {
						delete(live, p.Addr())
					}
					mu.Unlock()
					if err := a.Release(prefixAddrs(got)...); err != nil {
						t.Error(err)
						return
					}
					continue
				}
				got, err := a.Allocate()
				if errors.Is(err, ErrExhausted) {
					continue
				}
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				for _, p := range got {
					if live[p.Addr()] {
						t.Errorf("goroutine %d: %s handed out twice", g, p.Addr())
					}
					live[p.Addr()] = true
				}
				mu.Unlock()
				mine = append(mine, got)
			}
		}()
	}
	wg.Wait()
	v4 := a.Pools()[0].Stats().Allocated
	if v4 != uint64(len(live))/2 {
		t.Fatalf("pool holds %d IPv4 addresses, goroutines hold %d", v4, len(live)/2)
	}
}
