package topology_test

import (
	"testing"

	"github.com/udnkit/udnkit/internal/ovntest"
	"github.com/udnkit/udnkit/topology"
)

// TestReplace: the partition surgery the udnkit.Cluster's incremental
// paths use gives what a plan from scratch gives, and a Diff against the
// old state deletes or creates just the replaced rows.
func TestReplace(t *testing.T) {
	nodes := ovntest.Nodes(4, "")
	full, err := ovntest.Plan(ovntest.Layer3Network(), nodes, "node1")
	if err != nil {
		t.Fatal(err)
	}
	three, err := ovntest.Plan(ovntest.Layer3Network(), nodes[:3], "node1")
	if err != nil {
		t.Fatal(err)
	}
	network := full.Networks()[0]

	// A remote node's rows, removed and added again.
	gone := full.ReplaceNode("node4", full.Empty().Partial("node4"))
	if d := topology.Diff(gone, three); len(d) != 0 {
		t.Fatalf("without node4's partitions the state differs from a plan without node4:\n%v", d)
	}
	del := topology.Diff(full, full.Empty().Partial("node4"))
	for _, ch := range del {
		if ch.Op != topology.OpDelete || ch.Object.OwnedBy().Node != "node4" {
			t.Fatalf("the partial removal touches another row: %v", ch)
		}
	}
	if len(del) == 0 || len(del) != full.Len()-three.Len() {
		t.Fatalf("%d deletions, want node4's %d rows", len(del), full.Len()-three.Len())
	}
	part, err := topology.PlanNodes(ovntest.PlanInput(ovntest.Layer3Network(), nodes, "node1"), "node4")
	if err != nil {
		t.Fatal(err)
	}
	if back := three.ReplaceNode("node4", part); !back.Equal(full) {
		t.Fatalf("node4's partitions put back differ from the full plan:\n%v", topology.Diff(back, full))
	}
	if p := full.Partial("node4"); p.Len() != full.Len()-three.Len() {
		t.Fatalf("Partial holds %d objects, want %d", p.Len(), full.Len()-three.Len())
	}

	// A network replaced whole, by its removal and back.
	removed := full.Replace(topology.ControllerTopology, network, topology.Removal(network))
	if removed.Len() != 0 || !removed.SpeaksFor(topology.ControllerTopology, network) {
		t.Fatalf("the replaced network holds %d objects (speaks for it: %v)", removed.Len(), removed.SpeaksFor(topology.ControllerTopology, network))
	}
	if d := topology.Diff(full, removed); len(d) != full.Len() {
		t.Fatalf("%d changes, want every row deleted", len(d))
	}
	if back := removed.ReplaceEach(topology.ControllerTopology, map[string]topology.State{network: full}); !back.Equal(full) {
		t.Fatalf("ReplaceEach does not put the network back:\n%v", topology.Diff(back, full))
	}
	if got := full.Scope(topology.ControllerTopology); len(got) != 1 || got[0] != network {
		t.Fatalf("Scope = %v", got)
	}
}
