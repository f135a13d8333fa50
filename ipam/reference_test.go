package ipam

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/netip"
	"slices"
	"testing"
)

// Cases ported from the reference implementation (OVN-Kubernetes, snapshot
// 8871cd9cec9c of github.com/ovn-kubernetes/ovn-kubernetes). Paths are
// relative to its go-controller/ directory.

// pkg/networkmanager/api.go: MaxNetworks = 4096, and
// pkg/networkmanager/nad_controller.go: id.NewIDAllocator("NetworkIDs",
// MaxNetworks) with ReserveID(DefaultNetworkName, 0): a bitmap of IDs
// 0..4095 whose 0 is the default network's, so user-defined networks get
// 1..4095 and the 4096th network is refused.
func TestReferenceNetworkIDRange(t *testing.T) {
	if MaxNetworkID != 4095 {
		t.Fatalf("MaxNetworkID = %d, want 4095 (MaxNetworks-1)", MaxNetworkID)
	}
	a := NewNetworkIDAllocator()
	for i := 1; i <= 4095; i++ {
		if _, err := a.Allocate(fmt.Sprintf("net%d", i)); err != nil {
			t.Fatalf("network %d: %v", i, err)
		}
	}
	if id, err := a.Allocate("net4096"); !errors.Is(err, ErrExhausted) {
		t.Fatalf("4096th network got ID %d, %v; want ErrExhausted", id, err)
	}
	if err := NewNetworkIDAllocator().Reserve("x", 4096); !errors.Is(err, ErrOutOfRange) {
		t.Fatalf("Reserve(4096) = %v, want ErrOutOfRange", err)
	}
}

// pkg/allocator/id/tunnelkeyallocator.go NewTunnelKeyAllocator: rangeStart
// = 16711683 + 4096, freeIDs = (1<<24 - 1) - rangeStart + 1; its test
// (pkg/allocator/id/allocator_test.go TestTunnelKeysAllocator) names
// tunnelKeyBase := 16715779 and totalKeys := 61437.
func TestReferenceDynamicTunnelKeyRange(t *testing.T) {
	const tunnelKeyBase, totalKeys = 16715779, 61437
	if DynamicTunnelKeyFirst != tunnelKeyBase {
		t.Errorf("DynamicTunnelKeyFirst = %d, want %d", DynamicTunnelKeyFirst, tunnelKeyBase)
	}
	if n := DynamicTunnelKeyLast - DynamicTunnelKeyFirst + 1; n != totalKeys {
		t.Errorf("dynamic range holds %d keys, want %d", n, totalKeys)
	}
	// Every network ID's preserved key lies below the dynamic range.
	if PreservedTunnelKey(MaxNetworkID) >= DynamicTunnelKeyFirst {
		t.Errorf("network %d's preserved key %d is in the dynamic range", MaxNetworkID, PreservedTunnelKey(MaxNetworkID))
	}
	// The first key a new allocator hands out is tunnelKeyBase.
	keys, err := NewTunnelKeyAllocator().Allocate("cnc", 1)
	if err != nil || len(keys) != 1 || keys[0] != tunnelKeyBase {
		t.Errorf("first dynamic key %v %v, want [%d]", keys, err, tunnelKeyBase)
	}
}

// The reference's IDAllocator (pkg/allocator/id/allocator.go NewIDAllocator)
// sits on bitmap.NewRoundRobinAllocationMap: allocation resumes after the
// last ID handed out and wraps, so a freed ID is reused only after every
// other one. The cases below are pkg/allocator/bitmap/bitmap_test.go's
// round-robin tests, on an allocator of IDs 0..9 (offsets 0..9).
func TestReferenceRoundRobin(t *testing.T) {
	newTen := func(t *testing.T) *IDAllocator {
		a, err := NewIDAllocator("test", 0, 9)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	alloc := func(t *testing.T, a *IDAllocator, owner string, want int) {
		t.Helper()
		if id, err := a.Allocate(owner); err != nil || id != want {
			t.Fatalf("Allocate(%s) = %d %v, want %d", owner, id, err, want)
		}
	}
	// TestRoundRobinAllocation: 0..9 in order, then exhausted.
	t.Run("TestRoundRobinAllocation", func(t *testing.T) {
		a := newTen(t)
		for i := range 10 {
			alloc(t, a, fmt.Sprint("o", i), i)
		}
		if _, err := a.Allocate("o10"); !errors.Is(err, ErrExhausted) {
			t.Fatalf("11th: %v, want ErrExhausted", err)
		}
	})
	// TestRoundRobinAllocationOrdering: after 0..2 are reserved the next
	// is 3; after 0 is released the next is 4, not 0.
	t.Run("TestRoundRobinAllocationOrdering", func(t *testing.T) {
		a := newTen(t)
		for i := range 3 {
			if err := a.Reserve(fmt.Sprint("r", i), i); err != nil {
				t.Fatal(err)
			}
		}
		alloc(t, a, "a", 3)
		a.Release("r0")
		alloc(t, a, "b", 4)
	})
	// TestRoundRobinAllocateMax: the 11th allocation fails, nothing free.
	t.Run("TestRoundRobinAllocateMax", func(t *testing.T) {
		a := newTen(t)
		for i := range 10 {
			if _, err := a.Allocate(fmt.Sprint("o", i)); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := a.Allocate("x"); !errors.Is(err, ErrExhausted) || a.Len() != 10 {
			t.Fatalf("got %v, Len %d", err, a.Len())
		}
	})
	// TestRoundRobinAllocateError: offset 3 taken twice fails.
	t.Run("TestRoundRobinAllocateError", func(t *testing.T) {
		a := newTen(t)
		if err := a.Reserve("a", 3); err != nil {
			t.Fatal(err)
		}
		if err := a.Reserve("b", 3); !errors.Is(err, ErrConflict) {
			t.Fatalf("second reserve of 3: %v, want ErrConflict", err)
		}
	})
	// TestRoundRobinRelease: a released ID is free again.
	t.Run("TestRoundRobinRelease", func(t *testing.T) {
		a := newTen(t)
		if err := a.Reserve("a", 3); err != nil {
			t.Fatal(err)
		}
		if _, ok := a.Owner(3); !ok {
			t.Fatal("3 not held")
		}
		a.Release("a")
		if _, ok := a.Owner(3); ok {
			t.Fatal("3 still held")
		}
	})
	// TestRoundRobinWrapAround: allocate and release 20 times; the IDs
	// run 0..9 twice.
	t.Run("TestRoundRobinWrapAround", func(t *testing.T) {
		a := newTen(t)
		for i := range 20 {
			alloc(t, a, "o", i%10)
			a.Release("o")
		}
	})
}

// pkg/allocator/id/allocator_test.go TestIDAllocator_ReleaseID: a released
// resource has no ID; releasing it again, or a resource never seen, is a
// no-op.
func TestReferenceReleaseID(t *testing.T) {
	a, _ := NewIDAllocator("test", 0, 9)
	id, err := a.Allocate("resource1")
	if err != nil {
		t.Fatal(err)
	}
	a.Release("resource1")
	if got, ok := a.Lookup("resource1"); ok {
		t.Fatalf("Lookup after release = %d", got)
	}
	if _, ok := a.Owner(id); ok {
		t.Fatalf("ID %d still owned", id)
	}
	a.Release("resource1")
	a.Release("nonexistent")
	if a.Len() != 0 {
		t.Fatalf("Len = %d", a.Len())
	}
}

// Node IDs come from the same round-robin allocator in the reference
// (pkg/clustermanager/node_allocation_controller.go: NewIDAllocator("NodeIDs",
// maxNodeIDs+1), 0 and 1 reserved): a deleted node's ID is not handed to the
// next node that joins.
func TestReferenceNodeIDsRoundRobin(t *testing.T) {
	a := NewNodeIDAllocator()
	for i, want := range []int{2, 3, 4} {
		if id, err := a.Allocate(fmt.Sprint("node", i)); err != nil || id != want {
			t.Fatalf("node%d: %d %v, want %d", i, id, err, want)
		}
	}
	a.Release("node1")
	if id, _ := a.Allocate("node3"); id != 5 {
		t.Fatalf("node3 got %d, want 5 (3 was freed but round-robin goes on)", id)
	}
}

// pkg/allocator/id/allocator_test.go TestIDsAllocator, step by step, on the
// set behind TunnelKeyAllocator: range [3, 8], several IDs per owner, an
// owner asking for more gets the missing ones appended.
func TestReferenceIDsAllocator(t *testing.T) {
	s, err := newIDSet("test", 3, 8)
	if err != nil {
		t.Fatal(err)
	}
	take := func(owner string, n int, want []int) {
		t.Helper()
		got, err := s.take(owner, n)
		if err != nil || !slices.Equal(got, want) {
			t.Fatalf("take(%s, %d) = %v %v, want %v", owner, n, got, err, want)
		}
	}
	if err := s.reserve("test1", []int{4}); err != nil {
		t.Fatal(err)
	}
	take("test2", 3, []int{3, 5, 6}) // skipping the reserved 4
	take("test1", 2, []int{4, 7})    // grows from [4]
	take("test1", 2, []int{4, 7})    // already held
	if got, err := s.take("test3", 2); !errors.Is(err, ErrExhausted) {
		t.Fatalf("more than available: %v %v", got, err)
	}
	if err := s.reserve("test3", []int{8}); err != nil {
		t.Fatalf("reserve the last free ID: %v", err)
	}
	if err := s.reserve("test3", []int{7, 8}); !errors.Is(err, ErrConflict) {
		t.Fatalf("reserve different IDs: %v", err)
	}
	s.release("test1")
	if got, err := s.take("test3", 4); !errors.Is(err, ErrExhausted) {
		t.Fatalf("more than available after release: %v %v", got, err)
	}
	take("test3", 3, []int{8, 4, 7})
	if got, err := s.take("test3", 1); !errors.Is(err, ErrConflict) {
		t.Fatalf("fewer than held: %v %v", got, err)
	}
}

// pkg/allocator/id/allocator_test.go TestTunnelKeysAllocator, step by step:
// AllocateKeys(name, networkID, n) is AllocateForNetwork, ReserveKeys is
// Reserve. The reference only says "error" where udnkit names the sentinel.
func TestReferenceTunnelKeysAllocator(t *testing.T) {
	const transitSwitchBase, tunnelKeyBase, totalKeys = 16711683, 16715779, 61437
	a := NewTunnelKeyAllocator()
	steps := []struct {
		name    string
		owner   string
		id, n   int   // AllocateForNetwork when keys is nil
		keys    []int // Reserve when not nil
		want    []int
		wantErr error
	}{
		{"allocate 1 key for networkID 1 (transit switch key is preserved)", "net1", 1, 1, nil, []int{transitSwitchBase + 1}, nil},
		{"now add one more key for networkID 1", "net1", 1, 2, nil, []int{transitSwitchBase + 1, tunnelKeyBase}, nil},
		{"now ask for 1 key again for networkID 1", "net1", 1, 1, nil, nil, ErrConflict},
		{"check the 0 also works", "net1", 1, 0, nil, nil, ErrInvalid},
		{"same for reserve IDs", "net1", 0, 0, []int{transitSwitchBase + 1}, nil, ErrConflict},
		{"now reserve already allocated ids, should be ok", "net1", 0, 0, []int{transitSwitchBase + 1, tunnelKeyBase}, nil, nil},
		{"allocate 3 keys for networkID 2", "net2", 2, 3, nil, []int{transitSwitchBase + 2, tunnelKeyBase + 1, tunnelKeyBase + 2}, nil},
		{"reserve next 2 keys for networkID 3", "net3", 0, 0, []int{tunnelKeyBase + 3, tunnelKeyBase + 4}, nil, nil},
		{"allocate 2 keys for networkID 4", "net4", 4, 2, nil, []int{transitSwitchBase + 4, tunnelKeyBase + 5}, nil},
		{"check network ID out of reserved range", "net5", 5000, 1, nil, []int{tunnelKeyBase + 6}, nil},
		{"request the rest of them + 1", "net6", 10000, totalKeys - 7 + 1, nil, nil, ErrExhausted},
		{"request the rest of them", "net6", 10000, totalKeys - 7, nil, nil, nil},
	}
	for _, st := range steps {
		if st.keys != nil {
			if err := a.Reserve(st.owner, st.keys...); !errors.Is(err, st.wantErr) {
				t.Fatalf("%s: Reserve(%s, %v) = %v, want %v", st.name, st.owner, st.keys, err, st.wantErr)
			}
			continue
		}
		got, err := a.AllocateForNetwork(st.owner, st.id, st.n)
		if !errors.Is(err, st.wantErr) {
			t.Fatalf("%s: AllocateForNetwork(%s, %d, %d) = %v, want %v", st.name, st.owner, st.id, st.n, err, st.wantErr)
		}
		if st.want != nil && !slices.Equal(got, st.want) {
			t.Fatalf("%s: got %v, want %v", st.name, got, st.want)
		}
	}
	if got, _ := a.Lookup("net6"); len(got) != totalKeys-7 {
		t.Fatalf("net6 holds %d keys", len(got))
	}
	if _, err := a.AllocateForNetwork("net7", 7, 2); !errors.Is(err, ErrExhausted) {
		t.Fatalf("dynamic range full: %v", err)
	}
	// A failed allocation takes nothing: network 7's preserved key is free.
	if got, err := a.AllocateForNetwork("net7", 7, 1); err != nil || !slices.Equal(got, []int{transitSwitchBase + 7}) {
		t.Fatalf("preserved key only: %v %v", got, err)
	}
}

// pkg/util/net.go IPAddrToHWAddr: 0a:58 and the four bytes of an IPv4
// address; for IPv6, 0a:58 and the first four bytes of the SHA-256 of the
// address's text. Each case is a literal of a reference test.
func TestReferenceMACFromIP(t *testing.T) {
	for _, tt := range []struct{ src, ip, mac string }{
		{"pkg/util/net_unit_test.go TestIPAddrToHWAddr IPv4", "192.168.1.5", "0a:58:c0:a8:01:05"},
		{"pkg/util/net_unit_test.go TestIPAddrToHWAddr IPv6", "fd01::1234", "0a:58:11:37:a6:26"},
		{"pkg/util/net_unit_test.go TestIPAddrToHWAddr's comment", "fd98::1", "0a:58:ee:33:fc:1a"},
		{"pkg/ovn/external_gateway_apb_test.go myPod", "fd00:10:244:2::3", "0a:58:49:a1:93:cb"},
		{"pkg/ovn/multicast_test.go myPod2", "fd00:10:244::3", "0a:58:dd:33:05:d8"},
		{"pkg/ovn/multicast_test.go myPod1", "10.128.1.3", "0a:58:0a:80:01:03"},
		{"pkg/node/managementport/port_linux_test.go v6lrpMAC", "fda6:0:0:1::1", "0a:58:23:5a:40:f1"},
		{"pkg/node/managementport/port_linux_test.go v4lrpMAC", "10.1.1.1", "0a:58:0a:01:01:01"},
		{"pkg/kubevirt/dhcp_test.go DHCPv6 server_id (ARPProxyIPv6)", "fe80::1", "0a:58:6d:6d:c1:50"},
	} {
		if got := MACFromIP(addr(tt.ip)).String(); got != tt.mac {
			t.Errorf("%s: MACFromIP(%s) = %s, want %s", tt.src, tt.ip, got, tt.mac)
		}
	}
}

// refIPAddrToHWAddr is pkg/util/net.go IPAddrToHWAddr, verbatim but for
// names.
func refIPAddrToHWAddr(ip net.IP) net.HardwareAddr {
	ip4 := ip.To4()
	if ip4 != nil {
		return net.HardwareAddr{0x0A, 0x58, ip4[0], ip4[1], ip4[2], ip4[3]}
	}
	hash := sha256.Sum256([]byte(ip.String()))
	return net.HardwareAddr{0x0A, 0x58, hash[0], hash[1], hash[2], hash[3]}
}

// MACFromIP and AppendMAC agree with the reference's function on random
// IPv4, IPv6 and IPv4-mapped addresses, and on zoned ones (zone ignored).
func TestMACFromIPAgainstReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for i := range 5000 {
		var b [16]byte
		for j := range b {
			b[j] = byte(rng.Uint32())
		}
		if i%4 == 0 { // sparse addresses, as real ones are (fd00::3)
			for j := 2; j < 14; j++ {
				b[j] = 0
			}
		}
		ip := netip.AddrFrom16(b)
		switch i % 5 {
		case 1:
			ip = netip.AddrFrom4([4]byte(b[:4]))
		case 2:
			ip = netip.AddrFrom16(netip.AddrFrom4([4]byte(b[:4])).As16()) // ::ffff:a.b.c.d
		case 3:
			ip = ip.WithZone("eth0")
		}
		want := refIPAddrToHWAddr(net.IP(ip.AsSlice())).String()
		if got := MACFromIP(ip).String(); got != want {
			t.Fatalf("MACFromIP(%s) = %s, reference %s", ip, got, want)
		}
		if got := string(AppendMAC([]byte("x"), ip)); got != "x"+want {
			t.Fatalf("AppendMAC(%s) = %s, reference %s", ip, got, want)
		}
	}
	if got := AppendMAC(nil, netip.Addr{}); len(got) != 0 {
		t.Fatalf("AppendMAC(invalid) = %q", got)
	}
	buf := make([]byte, 0, 17)
	v6 := netip.MustParseAddr("fd00:10:244::3")
	if n := testing.AllocsPerRun(100, func() { buf = AppendMAC(buf[:0], v6) }); n != 0 {
		t.Fatalf("AppendMAC allocates %v times", n)
	}
}

// refTunnelKeys is pkg/allocator/id/tunnelkeyallocator.go and the
// idsAllocator under it (pkg/allocator/id/allocator.go) with the round-robin
// bitmap (pkg/allocator/bitmap/bitmap.go), transcribed as a model.
type refTunnelKeys struct {
	used  map[int]bool // offsets
	next  int
	names map[string][]int
}

const refRangeStart, refFreeIDs = 16711683 + 4096, (1<<24 - 1) - (16711683 + 4096) + 1

func (r *refTunnelKeys) allocateNext() (int, bool) {
	if len(r.used) >= refFreeIDs {
		return 0, false
	}
	for i := range refFreeIDs {
		at := (r.next + i) % refFreeIDs
		if !r.used[at] {
			r.next = (at + 1) % refFreeIDs
			r.used[at] = true
			return at, true
		}
	}
	return 0, false
}

func (r *refTunnelKeys) AllocateKeys(name string, networkID, numOfKeys int) ([]int, error) {
	allocated := []int{}
	if networkID < 4096 && numOfKeys > 0 {
		allocated = append(allocated, 16711683+networkID)
		numOfKeys--
	}
	ids, ok := r.names[name]
	if ok {
		if len(ids) == numOfKeys {
			return append(allocated, ids...), nil
		}
		if len(ids) > numOfKeys {
			return nil, errors.New("more ids allocated than requested")
		}
	}
	ids = slices.Clone(ids)
	prev := len(ids)
	for len(ids) < numOfKeys {
		id, ok := r.allocateNext()
		if !ok {
			for _, id := range ids[prev:] {
				delete(r.used, id-refRangeStart)
			}
			return nil, errors.New("failed to allocate")
		}
		ids = append(ids, id+refRangeStart)
	}
	if len(ids) > 0 {
		r.names[name] = ids
	}
	return append(allocated, ids...), nil
}

func (r *refTunnelKeys) ReserveKeys(name string, keys []int) error {
	if len(keys) > 0 && keys[0]-16711683 < 4096 {
		keys = keys[1:]
	}
	if ids, ok := r.names[name]; ok {
		if slices.Equal(ids, keys) {
			return nil
		}
		return errors.New("already allocated with different ids")
	}
	var done []int
	for _, id := range keys {
		if r.used[id-refRangeStart] {
			for _, d := range done {
				delete(r.used, d-refRangeStart)
			}
			return errors.New("already reserved")
		}
		r.used[id-refRangeStart] = true
		done = append(done, id)
	}
	// The reference stores an empty slice here, so that after ReserveKeys
	// of the preserved key alone a later ReserveKeys of [preserved,
	// dynamic] fails, while after AllocateKeys of one key it succeeds
	// (AllocateIDs does not store empty slices). udnkit treats both alike,
	// as AllocateIDs does: the one departure this model carries.
	if len(done) > 0 {
		r.names[name] = done
	}
	return nil
}

func (r *refTunnelKeys) ReleaseKeys(name string) {
	for _, id := range r.names[name] {
		delete(r.used, id-refRangeStart)
	}
	delete(r.names, name)
}

// Random AllocateForNetwork / Reserve / Release sequences give the keys and
// the success or failure of the reference's allocator, as a cluster uses it:
// each network keeps its ID (owner i has network ID 3*i, some beyond 4095),
// Reserve restores keys in the shape the reference writes them (the preserved
// key first for IDs up to 4095), and nobody asks for zero keys (which udnkit
// refuses as invalid). udnkit's stricter checks of preserved keys are
// TestTunnelKeysPreserved's.
func TestTunnelKeysAgainstReference(t *testing.T) {
	ref := &refTunnelKeys{used: map[int]bool{}, names: map[string][]int{}}
	got := NewTunnelKeyAllocator()
	rng := rand.New(rand.NewPCG(21, 22))
	for step := range 20000 {
		o := rng.IntN(2000)
		owner, id := fmt.Sprint("net", o), 3*o
		switch op := rng.IntN(10); {
		case op < 5:
			n := 1 + rng.IntN(3)
			want, wantErr := ref.AllocateKeys(owner, id, n)
			keys, err := got.AllocateForNetwork(owner, id, n)
			if (err != nil) != (wantErr != nil) || (err == nil && !slices.Equal(keys, want)) {
				t.Fatalf("step %d: AllocateForNetwork(%s, %d, %d) = %v %v, reference %v %v", step, owner, id, n, keys, err, want, wantErr)
			}
		case op < 7:
			var keys []int
			if id <= MaxNetworkID { // the reference always writes it first
				keys = append(keys, PreservedTunnelKey(id))
			}
			for range rng.IntN(3) {
				keys = append(keys, DynamicTunnelKeyFirst+rng.IntN(3*2000))
			}
			if len(keys) == 0 {
				continue // udnkit refuses an empty Reserve as invalid
			}
			wantErr := ref.ReserveKeys(owner, slices.Clone(keys))
			err := got.Reserve(owner, keys...)
			if (err != nil) != (wantErr != nil) {
				t.Fatalf("step %d: Reserve(%s, %v) = %v, reference %v", step, owner, keys, err, wantErr)
			}
		default:
			ref.ReleaseKeys(owner)
			got.Release(owner)
		}
	}
}
