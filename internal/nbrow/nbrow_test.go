package nbrow

import (
	"errors"
	"maps"
	"testing"

	"github.com/udnkit/udnkit/internal/nbdb"
	"github.com/udnkit/udnkit/topology"
	"github.com/udnkit/udnkit/topology/pods"
	"github.com/udnkit/udnkit/topology/services"
)

// TestToRowSharedIDs: a row's extra external_ids never leak into the map
// the caller shares between the rows of one owner.
func TestToRowSharedIDs(t *testing.T) {
	own := topology.Owner{Network: "ns_net", Node: "n1"}
	shared := OwnerIDs(own)
	before := maps.Clone(shared)
	pod := topology.SwitchPort{Owner: own, Name: "p1", Switch: "s", ExternalIDs: topology.NewOptions("pod", "true")}
	lb := topology.LoadBalancer{Owner: own, Name: "lb", Protocol: topology.ProtocolTCP,
		ExternalIDs: topology.NewOptions("k8s.ovn.org/kind", "Service")}
	m, err := ToRow(pod, shared)
	if err != nil {
		t.Fatal(err)
	}
	if ids := m.(*nbdb.LogicalSwitchPort).ExternalIDs; ids["pod"] != "true" || ids[ExtNetwork] != "ns_net" {
		t.Errorf("port external_ids %v", ids)
	}
	m, err = ToRow(lb, shared)
	if err != nil {
		t.Fatal(err)
	}
	if ids := m.(*nbdb.LoadBalancer).ExternalIDs; ids["k8s.ovn.org/kind"] != "Service" || ids["pod"] != "" {
		t.Errorf("load balancer external_ids %v", ids)
	}
	if !maps.Equal(shared, before) {
		t.Fatalf("the shared owner map changed: %v, was %v", shared, before)
	}
}

// TestCheckSelectionFields: every value the schema allows in
// selection_fields is taken, and nothing else.
func TestCheckSelectionFields(t *testing.T) {
	lb := topology.LoadBalancer{Owner: topology.Owner{Network: "ns_net"}, Name: "lb", Protocol: topology.ProtocolTCP}
	for _, f := range []string{"eth_src", "eth_dst", "ip_src", "ip_dst", "ipv6_src", "ipv6_dst", "tp_src", "tp_dst"} {
		lb.SelectionFields = []string{f}
		if err := Check(lb); err != nil {
			t.Errorf("selection_fields %s: %v", f, err)
		}
	}
	lb.SelectionFields = []string{"ip6_src"}
	if err := Check(lb); !errors.Is(err, ErrInvalid) {
		t.Errorf("selection_fields ip6_src: %v, want ErrInvalid", err)
	}
}

// TestOwnerOfReferenceRows: rows the reference wrote without
// owner-controller are its pods' and services' controllers' when they
// carry those rows' keys; any other is the topology's.
func TestOwnerOfReferenceRows(t *testing.T) {
	if ControllerPods != pods.ControllerPods || ControllerServices != services.ControllerServices ||
		ExtPod != pods.ExtPod || ExtNAD != pods.ExtNAD || ExtKind != services.ExtKind {
		t.Fatal("nbrow's names of the pods' and services' controllers and keys differ from theirs")
	}
	for _, tc := range []struct {
		ids  map[string]string
		want topology.Controller
	}{
		{map[string]string{ExtNetwork: "n", ExtNAD: "ns/n", ExtPod: "true", "namespace": "ns"}, pods.ControllerPods},
		{map[string]string{ExtNetwork: "n", ExtKind: "Service", "k8s.ovn.org/owner": "ns/s"}, services.ControllerServices},
		{map[string]string{ExtNetwork: "n"}, ""},
		{map[string]string{ExtNetwork: "n", ExtPod: "true"}, ""},
		// An owner-controller always wins.
		{map[string]string{ExtNetwork: "n", ExtController: "udnkit-topology", ExtNAD: "ns/n", ExtPod: "true"}, ""},
		{map[string]string{ExtNetwork: "n", ExtController: "x", ExtKind: "Service"}, "x"},
	} {
		o, ok := OwnerOf(tc.ids)
		if !ok || o.Controller != tc.want {
			t.Errorf("OwnerOf(%v) = %v %v, want controller %q", tc.ids, o, ok, tc.want)
		}
	}
}
