package ipam

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestNetworkIDsRoundRobin(t *testing.T) {
	a := NewNetworkIDAllocator()
	for i := 1; i <= 5; i++ {
		id, err := a.Allocate(fmt.Sprintf("net%d", i))
		if err != nil || id != i {
			t.Fatalf("net%d: got %d %v", i, id, err)
		}
	}
	if id, _ := a.Allocate("net3"); id != 3 {
		t.Fatalf("second Allocate for net3 = %d, want 3 (stable)", id)
	}
	a.Release("net4")
	a.Release("net2")
	// Freed IDs wait until the cursor comes round again.
	for _, want := range []struct {
		owner string
		id    int
	}{{"a", 6}, {"b", 7}, {"c", 8}} {
		if id, _ := a.Allocate(want.owner); id != want.id {
			t.Fatalf("%s: got %d, want %d", want.owner, id, want.id)
		}
	}
	if o, ok := a.Owner(7); !ok || o != "b" {
		t.Fatalf("Owner(7) = %q %v", o, ok)
	}
	if first, last := a.Range(); first != 1 || last != MaxNetworkID {
		t.Fatalf("range %d..%d", first, last)
	}
	// Round the end: after MaxNetworkID the search wraps to 2, then 4.
	if err := a.Reserve("top", MaxNetworkID-1); err != nil {
		t.Fatal(err)
	}
	for i := 9; i < MaxNetworkID-1; i++ {
		if _, err := a.Allocate(fmt.Sprint("fill", i)); err != nil {
			t.Fatal(err)
		}
	}
	for _, want := range []int{MaxNetworkID, 2, 4} {
		if id, err := a.Allocate(fmt.Sprint("wrap", want)); err != nil || id != want {
			t.Fatalf("got %d %v, want %d", id, err, want)
		}
	}
}

// With round-robin IDs, a masquerade subnet sized for N networks holds every
// ID only if the allocator's range stops at N: bound it so, and create/delete
// cycles never overflow, while the IDs do travel over the whole range.
func TestNetworkIDsCreateDeleteCyclesStayBelowCapacity(t *testing.T) {
	const n = 10
	masq := pfx("169.254.169.0/27") // holds network IDs up to 10
	if err := CheckMasqueradeCapacity(masq, n); err != nil {
		t.Fatal(err)
	}
	a, err := NewIDAllocator("network ID", 1, n)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	live := map[string]bool{}
	seen := map[int]bool{}
	for i := range 5000 {
		if len(live) < n && (len(live) == 0 || rng.IntN(2) == 0) {
			name := fmt.Sprintf("net-%d", i)
			id, err := a.Allocate(name)
			if err != nil {
				t.Fatal(err)
			}
			if _, _, err := NetworkMasqueradeIPs(masq, id); err != nil {
				t.Fatalf("cycle %d: network ID %d overflows the masquerade subnet: %v", i, id, err)
			}
			live[name], seen[id] = true, true
			continue
		}
		for name := range live {
			a.Release(name)
			delete(live, name)
			break
		}
	}
	if len(seen) != n {
		t.Fatalf("round-robin used %d of %d IDs", len(seen), n)
	}
}

func TestIDAllocatorExhaustionAndReserve(t *testing.T) {
	a, err := NewIDAllocator("node ID", 2, 4)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Reserve("node-b", 3); err != nil {
		t.Fatal(err)
	}
	if err := a.Reserve("node-b", 3); err != nil {
		t.Fatalf("idempotent reserve: %v", err)
	}
	for _, tt := range []struct {
		owner string
		id    int
		want  error
	}{
		{"node-c", 3, ErrConflict},   // held by node-b
		{"node-b", 4, ErrConflict},   // node-b holds 3
		{"node-c", 1, ErrOutOfRange}, // below range
		{"node-c", 5, ErrOutOfRange},
	} {
		if err := a.Reserve(tt.owner, tt.id); !errors.Is(err, tt.want) {
			t.Errorf("Reserve(%s, %d) = %v, want %v", tt.owner, tt.id, err, tt.want)
		}
	}
	for _, want := range []struct {
		owner string
		id    int
	}{{"node-a", 2}, {"node-c", 4}} {
		if id, err := a.Allocate(want.owner); err != nil || id != want.id {
			t.Fatalf("Allocate(%s) = %d %v, want %d", want.owner, id, err, want.id)
		}
	}
	if id, ok := a.Lookup("node-a"); !ok || id != 2 {
		t.Fatalf("Lookup(node-a) = %d %v", id, ok)
	}
	_, err = a.Allocate("node-d")
	if !errors.Is(err, ErrExhausted) || err.Error() != `node ID for "node-d": exhausted: all 3 IDs in [2, 4] are taken` {
		t.Fatalf("got %v", err)
	}
	if a.Len() != 3 {
		t.Fatalf("Len = %d", a.Len())
	}
	if _, err := NewIDAllocator("x", 5, 4); !errors.Is(err, ErrInvalid) {
		t.Fatalf("empty range: %v", err)
	}
	n := NewNodeIDAllocator()
	if id, _ := n.Allocate("first"); id != MinNodeID {
		t.Fatalf("first node ID %d, want %d", id, MinNodeID)
	}
}

func TestTunnelKeys(t *testing.T) {
	ta := NewTunnelKeyAllocator()
	keys, err := ta.Allocate("l2-net-7", Layer2TunnelKeys)
	if err != nil {
		t.Fatal(err)
	}
	// The first dynamic keys sit just above network ID 4095's preserved key.
	if want := []int{16715779, 16715780}; !slices.Equal(keys, want) {
		t.Fatalf("got %v, want %v", keys, want)
	}
	if PreservedTunnelKey(MaxNetworkID) != DynamicTunnelKeyFirst-1 {
		t.Fatal("preserved/dynamic boundary moved")
	}
	if again, _ := ta.Allocate("l2-net-7", Layer2TunnelKeys); !slices.Equal(again, keys) {
		t.Fatalf("not stable: %v", again)
	}
	if _, err := ta.Allocate("l2-net-7", 1); !errors.Is(err, ErrConflict) {
		t.Fatalf("different count: %v", err)
	}
	cr, _ := ta.Allocate("connect-router-a", ConnectRouterTunnelKeys)
	if !slices.Equal(cr, []int{DynamicTunnelKeyFirst + 2}) {
		t.Fatalf("connect router key %v", cr)
	}
	for _, tt := range []struct {
		name string
		keys []int
		want error
	}{
		{"preserved key second", []int{DynamicTunnelKeyFirst + 9, PreservedTunnelKey(5)}, ErrOutOfRange},
		{"two preserved keys", []int{PreservedTunnelKey(6), PreservedTunnelKey(7)}, ErrOutOfRange},
		{"below the preserved range", []int{BaseTransitSwitchTunnelKey - 1}, ErrOutOfRange},
		{"taken", []int{DynamicTunnelKeyFirst}, ErrConflict},
		{"preserved, then taken", []int{PreservedTunnelKey(8), DynamicTunnelKeyFirst}, ErrConflict},
		{"above 2^24", []int{1 << 24}, ErrOutOfRange},
		{"empty", nil, ErrInvalid},
		{"duplicate", []int{50000 + DynamicTunnelKeyFirst, 50000 + DynamicTunnelKeyFirst}, ErrInvalid},
	} {
		if err := ta.Reserve("x-"+tt.name, tt.keys...); !errors.Is(err, tt.want) {
			t.Errorf("%s: got %v, want %v", tt.name, err, tt.want)
		}
	}
	if err := ta.Reserve("restored", DynamicTunnelKeyLast); err != nil {
		t.Fatal(err)
	}
	ta.Release("l2-net-7")
	if k, _ := ta.Allocate("connect-router-b", 1); !slices.Equal(k, []int{DynamicTunnelKeyFirst + 3}) {
		t.Fatalf("freed key reused before the cursor came round: %v", k)
	}
	if _, ok := ta.Lookup("l2-net-7"); ok {
		t.Fatal("released owner still holds keys")
	}
	if _, err := ta.Allocate("zero", 0); !errors.Is(err, ErrInvalid) {
		t.Fatalf("zero keys: %v", err)
	}
	// A failed Reserve left nothing behind: network 8's key is free.
	if err := ta.Reserve("net8", PreservedTunnelKey(8)); err != nil {
		t.Fatalf("preserved key left held by a failed reserve: %v", err)
	}
	ta.Release("connect-router-a")
	ta.Release("connect-router-b")
}

// A primary Layer2 network the reference created carries the tunnel keys
// [16711683+ID, dynamic] (pkg/networkmanager/nad_controller.go AllocateKeys
// with the network ID; pkg/ovn/base_secondary_layer2_network_controller.go
// gives tunnelKeys[0] to the switch): udnkit adopts them, hands the same
// shape out, and keeps one owner per preserved key.
func TestTunnelKeysPreserved(t *testing.T) {
	ta := NewTunnelKeyAllocator()
	adopted := []int{PreservedTunnelKey(5), DynamicTunnelKeyFirst + 40}
	if err := ta.Reserve("ns_l2", adopted...); err != nil {
		t.Fatalf("adopting the reference's keys: %v", err)
	}
	if err := ta.Reserve("ns_l2", adopted...); err != nil {
		t.Fatalf("idempotent: %v", err)
	}
	if got, err := ta.AllocateForNetwork("ns_l2", 5, Layer2TunnelKeys); err != nil || !slices.Equal(got, adopted) {
		t.Fatalf("AllocateForNetwork after Reserve = %v %v, want %v", got, err, adopted)
	}
	if got, ok := ta.Lookup("ns_l2"); !ok || !slices.Equal(got, adopted) {
		t.Fatalf("Lookup = %v %v", got, ok)
	}
	for _, tt := range []struct {
		name  string
		owner string
		id, n int
		want  error
	}{
		{"another network ID", "ns_l2", 6, 2, ErrConflict},
		{"fewer keys", "ns_l2", 5, 1, ErrConflict},
		{"ID beyond the preserved range", "ns_l2", MaxNetworkID + 1, 2, ErrConflict},
		{"preserved key of another owner", "other", 5, 2, ErrConflict},
		{"negative ID", "other", -1, 1, ErrInvalid},
		{"no keys", "other", 5, 0, ErrInvalid},
	} {
		if got, err := ta.AllocateForNetwork(tt.owner, tt.id, tt.n); !errors.Is(err, tt.want) {
			t.Errorf("%s: got %v %v, want %v", tt.name, got, err, tt.want)
		}
	}
	if _, err := ta.Allocate("ns_l2", 2); !errors.Is(err, ErrConflict) {
		t.Errorf("Allocate of dynamic keys for a network holding a preserved key: %v", err)
	}
	if err := ta.Reserve("ns_l2", PreservedTunnelKey(5)); !errors.Is(err, ErrConflict) {
		t.Errorf("restoring fewer keys: %v", err)
	}
	if err := ta.Reserve("thief", PreservedTunnelKey(5), DynamicTunnelKeyFirst+41); !errors.Is(err, ErrConflict) {
		t.Errorf("another owner restoring network 5's key: %v", err)
	}
	if _, ok := ta.Lookup("thief"); ok {
		t.Error("a failed reserve left keys behind")
	}
	ta.Release("ns_l2")
	if _, ok := ta.Lookup("ns_l2"); ok {
		t.Fatal("released owner still holds keys")
	}
	got, err := ta.AllocateForNetwork("l2-new", 5, Layer2TunnelKeys)
	if err != nil || len(got) != 2 || got[0] != PreservedTunnelKey(5) || got[1] < DynamicTunnelKeyFirst {
		t.Fatalf("network 5's key after release: %v %v", got, err)
	}
	// Only the preserved key: the reference's Layer3 and secondary
	// networks need no dynamic key; the owner may grow later.
	if got, err := ta.AllocateForNetwork("l3", 7, 1); err != nil || !slices.Equal(got, []int{PreservedTunnelKey(7)}) {
		t.Fatalf("one key for network 7: %v %v", got, err)
	}
	if got, ok := ta.Lookup("l3"); !ok || !slices.Equal(got, []int{PreservedTunnelKey(7)}) {
		t.Fatalf("Lookup(l3) = %v %v", got, ok)
	}
}

// TestIDAllocatorRandomAgainstReference checks random allocate/reserve/release
// sequences against a map: IDs unique, handed out round-robin (the first
// free one after the last handed out, wrapping), all reusable.
func TestIDAllocatorRandomAgainstReference(t *testing.T) {
	const first, last = 10, 200
	a, _ := NewIDAllocator("id", first, last)
	rng := rand.New(rand.NewPCG(7, 8))
	ref := map[string]int{}
	used := map[int]string{}
	cursor := first
	nextFree := func() int {
		for i := range last - first + 1 {
			id := first + (cursor-first+i)%(last-first+1)
			if _, ok := used[id]; !ok {
				return id
			}
		}
		return -1
	}
	for i := range 20000 {
		owner := fmt.Sprintf("o%d", rng.IntN(300))
		switch rng.IntN(3) {
		case 0:
			want, held := ref[owner]
			if !held {
				want = nextFree()
			}
			id, err := a.Allocate(owner)
			if want == -1 {
				if !errors.Is(err, ErrExhausted) {
					t.Fatalf("step %d: got %d %v, want exhausted", i, id, err)
				}
				continue
			}
			if err != nil || id != want {
				t.Fatalf("step %d: Allocate(%s) = %d %v, want %d", i, owner, id, err, want)
			}
			if !held {
				cursor = first + (id-first+1)%(last-first+1)
			}
			ref[owner], used[id] = id, owner
		case 1:
			id := first + rng.IntN(last-first+1)
			err := a.Reserve(owner, id)
			cur, held := ref[owner]
			o, taken := used[id]
			switch {
			case held && cur == id:
				if err != nil {
					t.Fatalf("step %d: idempotent reserve: %v", i, err)
				}
			case held || (taken && o != owner):
				if !errors.Is(err, ErrConflict) {
					t.Fatalf("step %d: Reserve(%s,%d) = %v, want conflict", i, owner, id, err)
				}
			default:
				if err != nil {
					t.Fatalf("step %d: Reserve(%s,%d) = %v", i, owner, id, err)
				}
				ref[owner], used[id] = id, owner
			}
		default:
			a.Release(owner)
			if id, ok := ref[owner]; ok {
				delete(used, id)
				delete(ref, owner)
			}
		}
	}
	if a.Len() != len(used) {
		t.Fatalf("Len %d, reference %d", a.Len(), len(used))
	}
}

// An owner that grows from one key to two (a Layer2 network turning primary,
// or restored from an annotation that listed one key) gets the missing key
// after the one it holds, as the reference's AllocateKeys does
// (pkg/networkmanager/nad_controller.go: "AllocateKeys will add missing
// keys"); asking for fewer than held stays a conflict.
func TestTunnelKeysGrow(t *testing.T) {
	ta := NewTunnelKeyAllocator()
	one, err := ta.Allocate("net", 1)
	if err != nil {
		t.Fatal(err)
	}
	other, _ := ta.Allocate("other", 1)
	two, err := ta.Allocate("net", 2)
	if err != nil || len(two) != 2 || two[0] != one[0] || two[1] != other[0]+1 {
		t.Fatalf("grow: %v %v (held %v, other %v)", two, err, one, other)
	}
	if err := ta.Reserve("restored", DynamicTunnelKeyLast); err != nil {
		t.Fatal(err)
	}
	three, err := ta.Allocate("restored", 3)
	if err != nil || len(three) != 3 || three[0] != DynamicTunnelKeyLast {
		t.Fatalf("grow a restored owner: %v %v", three, err)
	}
	if _, err := ta.Allocate("net", 1); !errors.Is(err, ErrConflict) {
		t.Fatalf("shrink: %v", err)
	}
	if keys, _ := ta.Lookup("net"); !slices.Equal(keys, two) {
		t.Fatalf("a refused shrink changed the keys: %v", keys)
	}
}

func TestCheckNetworkTunnelKeys(t *testing.T) {
	for _, tt := range []struct {
		name string
		id   int
		keys []int
		want string
	}{
		{"reference Layer2", 5, []int{16711688, 16715779}, ""},
		{"dynamic only", 5, []int{16715779, 16715780}, ""},
		{"none", 5, nil, ""},
		{"another network's preserved key", 5, []int{16711689, 16715779}, "tunnelKeys[0]: 16711689 not 16711688 (network 5's preserved key) nor in 16715779..16777215: out of range"},
		{"preserved key second", 5, []int{16715779, 16711688}, "tunnelKeys[1]: 16711688 not in 16715779..16777215: out of range"},
		{"no preserved key beyond 4095", 4096, []int{16715779 + 1}, ""},
		{"beyond 4095, 16715779 is dynamic", 4096, []int{16715779}, ""},
		{"above 2^24-1", 5, []int{1 << 24}, "tunnelKeys[0]: 16777216 not 16711688 (network 5's preserved key) nor in 16715779..16777215: out of range"},
		{"twice", 5, []int{16715779, 16715779}, "tunnelKeys[1]: 16715779 given twice: conflict"},
	} {
		err := CheckNetworkTunnelKeys(tt.id, tt.keys)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, got, tt.want)
		}
	}
	// What AllocateForNetwork hands out always passes.
	ta := NewTunnelKeyAllocator()
	for id := range 50 {
		keys, err := ta.AllocateForNetwork(fmt.Sprint("n", id), id*83, 1+id%3)
		if err != nil {
			t.Fatal(err)
		}
		if err := CheckNetworkTunnelKeys(id*83, keys); err != nil {
			t.Fatalf("network %d keys %v: %v", id*83, keys, err)
		}
	}
}

// After a restart the reference reserves every annotated network ID
// (pkg/networkmanager/nad_controller.go: ReserveID of the
// k8s.ovn.org/network-id annotation) before allocating new ones; the
// round-robin cursor starts at the beginning and Reserve does not move it,
// so new networks fill the gaps first, then continue above.
func TestNetworkIDsRestore(t *testing.T) {
	a := NewNetworkIDAllocator()
	for owner, id := range map[string]int{"a": 1, "b": 2, "c": 5, "d": 9} {
		if err := a.Reserve(owner, id); err != nil {
			t.Fatal(err)
		}
	}
	for _, want := range []int{3, 4, 6, 7, 8, 10} {
		if id, err := a.Allocate(fmt.Sprint("new", want)); err != nil || id != want {
			t.Fatalf("got %d %v, want %d", id, err, want)
		}
	}
	// A restored owner keeps its ID, and a restore after allocation
	// conflicts as it would in the reference.
	if id, _ := a.Allocate("c"); id != 5 {
		t.Fatalf("restored owner c got %d", id)
	}
	if err := a.Reserve("e", 10); !errors.Is(err, ErrConflict) {
		t.Fatalf("reserving an allocated ID: %v", err)
	}
}
