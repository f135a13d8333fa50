package topology

import (
	"errors"
	"strings"
	"testing"
)

// TestPlanRefusesControlCharacters: a NUL (or another control character,
// DEL, invalid UTF-8) in any name of the input is refused at the planner's
// boundary, naming the field, before OVSDB or ovn-nbctl see it.
func TestPlanRefusesControlCharacters(t *testing.T) {
	cases := []struct {
		field string
		edit  func(in *Input)
	}{
		{"network: name", func(in *Input) { in.Network.Name = "ns1_bl\x00ue" }},
		{"network: vrf", func(in *Input) { in.Network.VRF = "vrf\n1" }},
		{"network: nads[0]", func(in *Input) { in.Network.NADs = []string{"ns1/\x7fblue"} }},
		{"nodes[0]: zone", func(in *Input) { in.Nodes[0].Zone = "z\x00" }},
		{"nodes[1]: chassis", func(in *Input) { in.Nodes[1].Chassis = "ch\xff" }},
		{"zone", func(in *Input) { in.Zone = "ovn-control-plane\x1b" }},
		{"cluster: externalBridge", func(in *Input) { in.Cluster.ExternalBridge = "br\x00ex" }},
		{"cluster: physicalNetworkName", func(in *Input) { in.Cluster.PhysicalNetworkName = "phys\tnet" }},
		{"legacyNodes[1]", func(in *Input) { in.LegacyNodes = []string{"node1", "node\x002"} }},
	}
	for _, tc := range cases {
		t.Run(tc.field, func(t *testing.T) {
			in := layer3Input()
			in.Network = in.Network.Clone()
			in.Nodes = append([]Node(nil), in.Nodes...)
			tc.edit(&in)
			_, err := Plan(in)
			if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tc.field) {
				t.Fatalf("Plan = %v, want ErrInvalid naming %s", err, tc.field)
			}
		})
	}
	// A 10 MB name with a NUL: the error quotes a bounded prefix.
	in := layer3Input()
	in.Network = in.Network.Clone()
	in.Network.Name = strings.Repeat("a", 10<<20) + "\x00"
	_, err := Plan(in)
	if err == nil {
		t.Fatal("Plan of a 10 MB name with a NUL: no error")
	}
	if len(err.Error()) > 1024 {
		t.Fatalf("Plan of a 10 MB name: %d-byte error", len(err.Error()))
	}
}
