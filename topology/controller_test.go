package topology

import (
	"errors"
	"net/netip"
	"strings"
	"testing"
)

// ctlStates returns a topology state and a "pods" state of one network:
// the pods controller's port sits on the topology controller's switch.
func ctlStates(t *testing.T) (topo, pods State) {
	t.Helper()
	own := Owner{Network: "ns_net", Node: "n1"}
	var tb Builder
	tb.Add(Switch{Owner: own, Name: "ns_net_n1"}, SwitchPort{Owner: own, Name: "k8s-ns_net_n1", Switch: "ns_net_n1"})
	topo, err := tb.State()
	if err != nil {
		t.Fatal(err)
	}
	po := own
	po.Controller = "pods"
	var pb Builder
	pb.Add(SwitchPort{Owner: po, Name: "pod-1", Switch: "ns_net_n1", Addresses: []string{"0a:58:0a:00:00:05 10.0.0.5"}},
		Policy{Owner: po, Router: "ns_net_ovn_cluster_router", Priority: 9001, Match: "ip4.dst == 10.1.0.0/16", Action: PolicyDrop,
			Nexthops: []netip.Addr{}})
	pods, err = pb.State()
	if err != nil {
		t.Fatal(err)
	}
	return topo, pods
}

func TestDiffPerController(t *testing.T) {
	topo, pods := ctlStates(t)
	both, err := topo.Merge(pods)
	if err != nil {
		t.Fatal(err)
	}
	var eb Builder
	for o := range topo.Objects() {
		switch x := o.(type) {
		case Switch:
			x.Owner.Controller = ControllerTopology
			eb.Add(x)
		case SwitchPort:
			x.Owner.Controller = ControllerTopology
			eb.Add(x)
		}
	}
	explicit, err := eb.State()
	if err != nil || explicit.Len() != topo.Len() {
		t.Fatal(err)
	}
	tests := []struct {
		name              string
		observed, desired State
		want              string // the changes, one "op kind key" per line
	}{
		{"topology plan leaves the pods rows", both, topo, ""},
		{"topology removal deletes only topology rows", both, Removal("ns_net"),
			"delete switch_port k8s-ns_net_n1\ndelete switch ns_net_n1\n"},
		{"pods plan leaves the topology rows", both, pods, ""},
		{"pods removal deletes only pods rows", both, RemovalFor("pods", "ns_net"),
			"delete policy ns_net_ovn_cluster_router|9001|ip4.dst == 10.1.0.0/16\ndelete switch_port pod-1\n"},
		{"pods plan creates only pods rows", topo, pods,
			"create switch_port pod-1\ncreate policy ns_net_ovn_cluster_router|9001|ip4.dst == 10.1.0.0/16\n"},
		{"ControllerTopology spelled out is the empty controller", both, explicit, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got strings.Builder
			for _, c := range Diff(tt.observed, tt.desired) {
				got.WriteString(c.String() + "\n")
			}
			if got.String() != tt.want {
				t.Errorf("Diff:\n%s\nwant:\n%s", got.String(), tt.want)
			}
		})
	}
}

func TestDiffScopeController(t *testing.T) {
	topo, pods := ctlStates(t)
	both, err := topo.Merge(pods)
	if err != nil {
		t.Fatal(err)
	}
	if d := DiffScope(both, State{}, Scope{Networks: []string{"ns_net"}}); len(d) != 2 {
		t.Errorf("topology scope: %d changes, want the 2 topology deletes:\n%s", len(d), d)
	}
	d := DiffScope(both, State{}, Scope{Controller: "pods", Networks: []string{"ns_net"}, Nodes: []string{"n1"}})
	if len(d) != 2 {
		t.Fatalf("pods scope: %d changes, want 2:\n%s", len(d), d)
	}
	for _, c := range d {
		if c.Object.OwnedBy().Controller != "pods" {
			t.Errorf("pods scope touched %s", c)
		}
	}
}

func TestStateControllers(t *testing.T) {
	topo, pods := ctlStates(t)
	both, err := topo.Merge(pods)
	if err != nil {
		t.Fatal(err)
	}
	if got := both.Controllers(); len(got) != 2 || got[0] != "pods" || got[1] != ControllerTopology {
		t.Errorf("Controllers() = %v", got)
	}
	if !both.SpeaksFor("", "ns_net") || !both.SpeaksFor(ControllerTopology, "ns_net") || !both.SpeaksFor("pods", "ns_net") || both.SpeaksFor("x", "ns_net") {
		t.Error("SpeaksFor is wrong")
	}
	if !strings.Contains(both.String(), "controllers: pods, udnkit-topology\n") || !strings.Contains(both.String(), "owner=pods:ns_net") {
		t.Errorf("String() does not show the controllers:\n%s", both)
	}
	if strings.Contains(topo.String(), "controllers:") {
		t.Errorf("a topology-only State renders a controllers line:\n%s", topo)
	}
	// Apply puts the pods rows back in their own partition.
	back, err := Apply(topo, Diff(topo, pods))
	if err != nil {
		t.Fatal(err)
	}
	if !back.Equal(both) {
		t.Errorf("Apply(topo, Diff(topo, pods)) != topo+pods:\n%s", Diff(back, both))
	}
	// Two controllers may not claim one key.
	var b Builder
	b.Add(SwitchPort{Owner: Owner{Network: "ns_net"}, Name: "p"}, SwitchPort{Owner: Owner{Controller: "pods", Network: "ns_net"}, Name: "p"})
	if _, err := b.State(); !errors.Is(err, ErrConflict) || !strings.Contains(err.Error(), `controller "pods"`) {
		t.Errorf("one key, two controllers: %v", err)
	}
}

// TestChangesStringNilObject: rendering a change without an object (a
// malformed change set) does not panic.
func TestChangesStringNilObject(t *testing.T) {
	cs := Changes{{Op: OpCreate, Kind: KindSwitch, Key: "s"}, {Op: OpUpdate, Kind: KindRouter, Key: "r", Columns: []string{"options"}},
		{Op: OpDelete, Kind: KindSwitch, Key: "d"}}
	want := "create switch s\n    (no object)\nupdate router r [options]\n    (no object)\ndelete switch d\n"
	if got := cs.String(); got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}
