package ipam

import (
	"errors"
	"fmt"
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
