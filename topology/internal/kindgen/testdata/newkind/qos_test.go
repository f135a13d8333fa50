package nbrow

import (
	"reflect"
	"strings"
	"testing"

	"github.com/udnkit/udnkit/internal/nbdb"
	"github.com/udnkit/udnkit/topology"
)

// TestNewKindQoS runs in package nbrow with the QoS kind of
// kind_qos.go added and the generated files regenerated (TestNewKind).
func TestNewKindQoS(t *testing.T) {
	owner := topology.Owner{Network: "ns_net", Topology: "Layer3", Role: "Primary"}
	q := topology.QoS{Owner: owner, Switch: "ns_net_node-a", Direction: topology.ACLToLport, Priority: 100, Match: "ip4"}
	if got, want := q.Key(), "ns_net_node-a|to-lport|100|ip4"; got != want {
		t.Errorf("Key %q, want %q", got, want)
	}
	if k, name, ok := topology.Parent(q); k != topology.KindSwitch || name != "ns_net_node-a" || !ok {
		t.Errorf("Parent %v %q %v", k, name, ok)
	}
	if topology.KindQoS.Table() != "QoS" || topology.KindQoS.String() != "qos" {
		t.Errorf("kind %q table %q", topology.KindQoS.String(), topology.KindQoS.Table())
	}
	m, err := ToRow(q, nil)
	if err != nil {
		t.Fatal(err)
	}
	r, ok := m.(*nbdb.QoS)
	if !ok || r.Direction != "to-lport" || r.Priority != 100 || r.Match != "ip4" || r.ExternalIDs[ExtNetwork] != "ns_net" {
		t.Fatalf("row %#v", m)
	}
	back, err := FromRow(m, owner, nil, nbdb.LogicalSwitchTable, "ns_net_node-a", nil)
	if err != nil || !reflect.DeepEqual(back, topology.Object(q)) {
		t.Errorf("FromRow = %#v, %v; want %#v", back, err, q)
	}
	if err := Check(topology.QoS{Owner: owner, Switch: "s", Direction: "sideways", Match: "ip4"}); err == nil {
		t.Error("a direction the schema does not list was accepted")
	}
	var b topology.Builder
	b.Add(q)
	s, err := b.State()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := s.String(), "qos switch=ns_net_node-a direction=to-lport priority=100 match=\"ip4\" owner=ns_net/Layer3/Primary/"; !strings.Contains(got, want) {
		t.Errorf("State.String() = %q, want it to hold %q", got, want)
	}
	changes := topology.Diff(topology.State{}, s)
	if len(changes) != 1 || changes[0].Kind != topology.KindQoS {
		t.Errorf("Diff: %v", changes)
	}
	if !IsMemberColumn(nbdb.LogicalSwitchTable, "qos_rules") {
		t.Error("qos_rules is not a member column of Logical_Switch")
	}
}
