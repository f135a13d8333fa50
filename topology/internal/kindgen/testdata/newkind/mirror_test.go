package nbrow

import (
	"reflect"
	"strings"
	"testing"

	"github.com/udnkit/udnkit/internal/nbdb"
	"github.com/udnkit/udnkit/topology"
)

// TestNewKindMirror runs in package nbrow with the Mirror kind of
// kind_mirror.go added and the generated files regenerated (TestNewKind).
func TestNewKindMirror(t *testing.T) {
	owner := topology.Owner{Network: "ns_net", Topology: "Layer3", Role: "Primary"}
	m := topology.Mirror{Owner: owner, Name: "ns_net_mirror", Filter: "both", Type: "gre", Sink: "172.18.0.9", Index: 7}
	if got := m.Key(); got != "ns_net_mirror" {
		t.Errorf("Key %q", got)
	}
	if _, _, ok := topology.Parent(m); ok {
		t.Error("a root kind has a parent")
	}
	if topology.KindMirror.Table() != "Mirror" || topology.KindMirror.String() != "mirror" {
		t.Errorf("kind %q table %q", topology.KindMirror.String(), topology.KindMirror.Table())
	}
	row, err := ToRow(m, nil)
	if err != nil {
		t.Fatal(err)
	}
	r, ok := row.(*nbdb.Mirror)
	if !ok || r.Filter != "both" || r.Type != "gre" || r.Sink != "172.18.0.9" || r.Index != 7 || r.ExternalIDs[ExtNetwork] != "ns_net" {
		t.Fatalf("row %#v", row)
	}
	back, err := FromRow(row, owner, nil, "", "", nil)
	if err != nil || !reflect.DeepEqual(back, topology.Object(m)) {
		t.Errorf("FromRow = %#v, %v; want %#v", back, err, m)
	}
	if err := Check(topology.Mirror{Owner: owner, Name: "x", Filter: "sideways", Type: "gre", Sink: "s"}); err == nil {
		t.Error("a filter the schema does not list was accepted")
	}
	var b topology.Builder
	b.Add(m)
	s, err := b.State()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := s.String(), `mirror ns_net_mirror filter=both type=gre sink=172.18.0.9 index=7 owner=ns_net/Layer3/Primary/`; !strings.Contains(got, want) {
		t.Errorf("State.String() = %q, want it to hold %q", got, want)
	}
	changes := topology.Diff(topology.State{}, s)
	if len(changes) != 1 || changes[0].Kind != topology.KindMirror {
		t.Errorf("Diff: %v", changes)
	}
}
