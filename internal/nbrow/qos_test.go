package nbrow

import (
	"errors"
	"maps"
	"reflect"
	"strings"
	"testing"

	"github.com/udnkit/udnkit/internal/nbdb"
	"github.com/udnkit/udnkit/topology"
)

// TestQoSRow: a QoS row's integer maps (action, bandwidth) go to the row
// as map[string]int and come back sorted, and RowOf hands renderers the
// same map.
func TestQoSRow(t *testing.T) {
	own := topology.Owner{Controller: "udnkit-egressqos", Network: "ns_net", Topology: "Layer3", Role: "Primary", Node: "n1"}
	q := topology.QoS{Owner: own, Switch: "ns.net_n1", Direction: topology.ACLToLport, Priority: 1000,
		Match: "(ip4.dst == 0.0.0.0/0) && ip4.src == $a1", Action: topology.NewIntOptions(topology.QoSMark, 42).With(topology.QoSDSCP, 46),
		Bandwidth: topology.NewIntOptions(topology.QoSRate, 100)}
	m, err := ToRow(q, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := m.(*nbdb.QoS)
	if !maps.Equal(r.Action, map[string]int{"dscp": 46, "mark": 42}) || !maps.Equal(r.Bandwidth, map[string]int{"rate": 100}) {
		t.Fatalf("row action %v bandwidth %v", r.Action, r.Bandwidth)
	}
	back, err := FromRow(m, own, nil, nbdb.LogicalSwitchTable, "ns.net_n1", nil)
	if err != nil || !reflect.DeepEqual(back, topology.Object(q)) {
		t.Fatalf("FromRow = %#v, %v; want %#v", back, err, q)
	}
	row, err := RowOf(q)
	if err != nil {
		t.Fatal(err)
	}
	if a, ok := row.Columns["action"].(map[string]int); !ok || a["dscp"] != 46 || a["mark"] != 42 {
		t.Errorf("RowOf action %#v", row.Columns["action"])
	}
	if row.Parent == nil || row.Parent.Column != "qos_rules" || row.Parent.Names[0] != "ns.net_n1" {
		t.Errorf("RowOf parent %+v", row.Parent)
	}
	// No action: the column stays unset (nil, not an empty map).
	q.Action, q.Bandwidth = nil, nil
	if m, _ := ToRow(q, nil); m.(*nbdb.QoS).Action != nil {
		t.Error("an empty action wrote a map")
	}
}

// TestQoSCheck: the schema's keys and value ranges of the integer maps,
// and each key once, refused naming the column and key.
func TestQoSCheck(t *testing.T) {
	base := topology.QoS{Switch: "s", Direction: topology.ACLFromLport, Priority: 103, Match: "ip4"}
	cases := []struct {
		name      string
		action    topology.IntOptions
		bandwidth topology.IntOptions
		want      string // "" accepted
	}{
		{"dscp", topology.NewIntOptions("dscp", 63), nil, ""},
		{"mark at the top", topology.NewIntOptions("mark", 4294967295), nil, ""},
		{"mark zero", topology.NewIntOptions("mark", 0), nil, ""},
		{"unknown action key", topology.IntOptions{{Key: "color", Value: 1}}, nil, `action key "color" is not one of dscp, mark`},
		{"action too large", topology.NewIntOptions("mark", 4294967296), nil, `action "mark"=4294967296 is not in 0..4294967295`},
		{"action negative", topology.NewIntOptions("dscp", -1), nil, `action "dscp"=-1 is not in 0..4294967295`},
		{"key twice", topology.IntOptions{{Key: "dscp", Value: 1}, {Key: "dscp", Value: 2}}, nil, `action key "dscp" given twice`},
		{"rate zero", nil, topology.NewIntOptions("rate", 0), `bandwidth "rate"=0 is not in 1..4294967295`},
		{"burst", nil, topology.NewIntOptions("burst", 1), ""},
		{"bandwidth key", nil, topology.IntOptions{{Key: "dscp", Value: 1}}, `bandwidth key "dscp" is not one of burst, rate`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			q := base
			q.Action, q.Bandwidth = tc.action, tc.bandwidth
			err := Check(q)
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, ErrInvalid)):
				t.Fatalf("error %v, want ErrInvalid holding %q", err, tc.want)
			}
		})
	}
}

// FuzzQoSIntOptions: whatever pairs an action holds, Check accepts them
// only when the row written reads back as the same object.
func FuzzQoSIntOptions(f *testing.F) {
	f.Add("dscp", 10, "mark", 42)
	f.Add("dscp", 10, "dscp", 11)
	f.Add("mark", -1, "x", 1)
	f.Fuzz(func(t *testing.T, k1 string, v1 int, k2 string, v2 int) {
		q := topology.QoS{Switch: "s", Direction: topology.ACLToLport, Priority: 1, Match: "ip4",
			Action: topology.IntOptions{{Key: k1, Value: v1}, {Key: k2, Value: v2}}}
		var b topology.Builder
		b.Add(q)
		s, err := b.State()
		if err != nil {
			return
		}
		norm := s.ObjectsOf(topology.KindQoS)[0]
		m, err := ToRow(norm, nil)
		if err != nil {
			return
		}
		back, err := FromRow(m, topology.Owner{}, nil, nbdb.LogicalSwitchTable, "s", nil)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(back, norm) {
			t.Fatalf("accepted %v, read back %v", norm, back)
		}
	})
}
