package ovntest

import (
	"errors"
	"fmt"
	"testing"

	"github.com/udnkit/udnkit/ipam"
	"github.com/udnkit/udnkit/topology"
)

// TestLayer2TunnelKeys checks the fixtures' derivation against the
// allocator: networks 1..n taking two keys each in turn get exactly
// Layer2TunnelKeys(id), none of them a preserved Layer3 key.
func TestLayer2TunnelKeys(t *testing.T) {
	a := ipam.NewTunnelKeyAllocator()
	for id := 1; id <= 64; id++ {
		got, err := a.Allocate(fmt.Sprintf("net-%d", id), 2)
		if err != nil {
			t.Fatal(err)
		}
		want := Layer2TunnelKeys(id)
		if len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
			t.Fatalf("network %d: allocator gives %v, Layer2TunnelKeys %v", id, got, want)
		}
		for _, k := range want {
			if k <= ipam.PreservedTunnelKey(ipam.MaxNetworkID) {
				t.Errorf("network %d: key %d is in the preserved range", id, k)
			}
		}
	}
}

// TestPlanLayer2Zones checks the fixtures' zones: the primary Layer2 network
// plans for one node's zone of interconnect nodes and is refused for the
// three nodes of one zone.
func TestPlanLayer2Zones(t *testing.T) {
	s, err := Plan(Layer2Network(), Nodes(3, ""), "node1")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := s.Get(topology.KindSwitchPort, "k8s-ns2_red_node1"); !ok {
		t.Error("node1's management port is not planned")
	}
	if _, ok := s.Get(topology.KindSwitchPort, "k8s-ns2_red_node2"); ok {
		t.Error("node2's management port is planned in node1's zone")
	}
	if _, err := Plan(Layer2Network(), Nodes(3, "zone1"), "zone1"); !errors.Is(err, topology.ErrUnsupported) {
		t.Errorf("three nodes in one zone: %v, want ErrUnsupported", err)
	}
}
