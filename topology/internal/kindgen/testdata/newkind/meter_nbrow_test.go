package nbrow

import (
	"reflect"
	"strings"
	"testing"

	"github.com/udnkit/udnkit/internal/nbdb"
	"github.com/udnkit/udnkit/topology"
)

// TestNewKindMeter runs in package nbrow with the kinds of kind_meter.go
// and kind_fwdgroup.go added and the generated files regenerated
// (TestNewKindMeter of kindgen): both kinds map both ways, boolean columns
// included, and a Meter's bands are a member column of minimum 1.
func TestNewKindMeter(t *testing.T) {
	owner := topology.Owner{Network: "ns_net", Topology: "Layer3", Role: "Primary"}
	for _, tc := range []struct {
		obj         topology.Object
		parentTable string
		parent      string
		check       func(m any) bool
		columns     map[string]any
	}{
		{topology.Meter{Owner: owner, Name: "m", Unit: "kbps", Fair: true}, "", "",
			func(m any) bool { r := m.(*nbdb.Meter); return r.Fair != nil && *r.Fair && r.Unit == "kbps" },
			map[string]any{"name": "m", "unit": "kbps", "fair": true}},
		{topology.Meter{Owner: owner, Name: "m", Unit: "pktps"}, "", "",
			func(m any) bool { return m.(*nbdb.Meter).Fair == nil },
			map[string]any{"name": "m", "unit": "pktps"}},
		{topology.MeterBand{Owner: owner, Meter: "m", Action: "drop", Rate: 100, BurstSize: 10}, nbdb.MeterTable, "m",
			func(m any) bool {
				r := m.(*nbdb.MeterBand)
				return r.Rate == 100 && r.BurstSize == 10 && r.Action == "drop"
			},
			map[string]any{"action": "drop", "rate": 100, "burst_size": 10}},
		{topology.ForwardingGroup{Owner: owner, Name: "fg", Switch: "sw", VIP: "10.0.0.1", VMAC: "0a:58:0a:00:00:01", Liveness: true, ChildPorts: []string{"p1"}},
			nbdb.LogicalSwitchTable, "sw",
			func(m any) bool { return m.(*nbdb.ForwardingGroup).Liveness },
			map[string]any{"name": "fg", "vip": "10.0.0.1", "vmac": "0a:58:0a:00:00:01", "liveness": true, "child_port": []string{"p1"}}},
		{topology.ForwardingGroup{Owner: owner, Name: "fg", Switch: "sw", VIP: "10.0.0.1", VMAC: "0a:58:0a:00:00:01", ChildPorts: []string{"p1"}},
			nbdb.LogicalSwitchTable, "sw",
			func(m any) bool { return !m.(*nbdb.ForwardingGroup).Liveness },
			// A plain boolean is always written: an update to false sets it.
			map[string]any{"name": "fg", "vip": "10.0.0.1", "vmac": "0a:58:0a:00:00:01", "liveness": false, "child_port": []string{"p1"}}},
	} {
		t.Run(topology.Render(tc.obj), func(t *testing.T) {
			m, err := ToRow(tc.obj, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !tc.check(m) {
				t.Fatalf("row %#v", m)
			}
			back, err := FromRow(m, owner, nil, tc.parentTable, tc.parent, nil)
			if err != nil || !reflect.DeepEqual(back, tc.obj) {
				t.Errorf("FromRow = %#v, %v; want %#v", back, err, tc.obj)
			}
			row, err := RowOf(tc.obj)
			if err != nil {
				t.Fatal(err)
			}
			delete(row.Columns, "external_ids")
			if !reflect.DeepEqual(row.Columns, tc.columns) {
				t.Errorf("RowOf columns %v, want %v", row.Columns, tc.columns)
			}
		})
	}
	band := topology.MeterBand{Owner: owner, Meter: "m", Action: "drop", Rate: 100}
	if got, want := band.Key(), "m|drop|100|0"; got != want {
		t.Errorf("Key %q, want %q", got, want)
	}
	if ps := topology.KindMeterBand.Descriptor().Parents; len(ps) != 1 || ps[0] != (topology.ParentColumn{Kind: topology.KindMeter, Column: "bands", Min: 1}) {
		t.Errorf("Parents %v", ps)
	}
	if err := Check(topology.Meter{Owner: owner, Name: "m", Unit: "mbps"}); err == nil || !strings.Contains(err.Error(), "unit") {
		t.Errorf("a unit the schema does not list: %v", err)
	}
	if err := Check(topology.MeterBand{Owner: owner, Meter: "m", Action: "drop"}); err == nil || !strings.Contains(err.Error(), "rate") {
		t.Errorf("a band without a rate: %v", err)
	}
	if topology.KindMeter.Order() >= topology.KindAddressSet.Order() || topology.Kinds()[0] != topology.KindMeter {
		t.Errorf("Meter (order=5) is not first in creation order: %v", topology.Kinds())
	}
}
