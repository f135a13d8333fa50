package udnkit

import (
	"errors"
	"testing"

	"github.com/udnkit/udnkit/topology"
	"github.com/udnkit/udnkit/topology/pods"
)

// TestSetPodRefusedKeepsPod: a pod set again on a node the Cluster does
// not hold is refused with no Event, so the pod it held stays (its ports
// stay in Plan, as in the plan PlanEvent keeps).
func TestSetPodRefusedKeepsPod(t *testing.T) {
	c, err := New(Config{Nodes: []topology.Node{testNode("node1", 0)}})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.SetUDN(udnDoc("ns-a", "n1", "Layer3", "Primary", "10.100.0.0/16/24")); err != nil {
		t.Fatal(err)
	}
	p := pods.Pod{Namespace: "ns-a", Name: "p", UID: "uid", Node: "node1"}
	if _, err := c.SetPod(Pod{Pod: p}); err != nil {
		t.Fatal(err)
	}
	planned, err := c.Plan("node1")
	if err != nil {
		t.Fatal(err)
	}
	moved := p
	moved.Node = "ghost"
	if ev, err := c.SetPod(Pod{Pod: moved}); !errors.Is(err, ErrUnknownNode) || ev.Kind != EventNone {
		t.Fatalf("a pod on an unknown node: %v, %v", ev, err)
	}
	want, err := c.fresh("node1")
	if err != nil {
		t.Fatal(err)
	}
	if d := topology.Diff(planned, want); len(d) > 0 {
		t.Errorf("a refused SetPod changed the plan without an Event:\n%v", d)
	}
	if _, err := c.PodAnnotation("ns-a", "p"); err != nil {
		t.Errorf("the pod held before: %v", err)
	}
}
