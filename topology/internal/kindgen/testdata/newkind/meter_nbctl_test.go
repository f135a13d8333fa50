package nbctl_test

import (
	"strings"
	"testing"

	"github.com/udnkit/udnkit/backend/nbctl"
	"github.com/udnkit/udnkit/topology"
)

// The Meter, Meter_Band and Forwarding_Group kinds go through
// TestRealEveryKind: created, observed, synced again and removed on a real
// NB through ovnnb, the ovn-nbctl script and ovnnb with its monitor.
func init() {
	moreKinds = append(moreKinds, func(own topology.Owner) []topology.Object {
		return []topology.Object{
			topology.Meter{Owner: own, Name: "ns_every_meter", Unit: "pktps", Fair: true},
			topology.MeterBand{Owner: own, Meter: "ns_every_meter", Action: "drop", Rate: 100},
			topology.MeterBand{Owner: own, Meter: "ns_every_meter", Action: "drop", Rate: 1000, BurstSize: 100},
			topology.Meter{Owner: own, Name: "ns_every_meter2", Unit: "kbps"},
			topology.MeterBand{Owner: own, Meter: "ns_every_meter2", Action: "drop", Rate: 8},
			topology.ForwardingGroup{Owner: own, Name: "ns_every_fg", Switch: "ns_every_sw", VIP: "10.9.0.254",
				VMAC: "0a:58:0a:09:00:fe", Liveness: true, ChildPorts: []string{"ns_every_pod"}},
			topology.ForwardingGroup{Owner: own, Name: "ns_every_fg2", Switch: "ns_every_sw", VIP: "10.9.0.253",
				VMAC: "0a:58:0a:09:00:fd", ChildPorts: []string{"ns_every_pod"}},
		}
	})
}

// TestNewKindMeterScript: a Meter is created with its bands in one
// ovn-nbctl invocation (the schema wants at least one band, and each
// invocation is a transaction), and a Meter the change set gives no band
// is refused, naming it.
func TestNewKindMeterScript(t *testing.T) {
	own := topology.Owner{Network: "ns_m"}
	m := topology.Meter{Owner: own, Name: "m1", Unit: "kbps"}
	b1 := topology.MeterBand{Owner: own, Meter: "m1", Action: "drop", Rate: 10}
	b2 := topology.MeterBand{Owner: own, Meter: "m1", Action: "drop", Rate: 20}
	var b topology.Builder
	b.Add(m, b1, b2)
	s, err := b.State()
	if err != nil {
		t.Fatal(err)
	}
	script, err := nbctl.Script(topology.Diff(topology.State{}, s), nbctl.Config{})
	if err != nil {
		t.Fatal(err)
	}
	var commands []string
	for _, l := range strings.Split(script, "\n") {
		if strings.HasPrefix(l, "ovn-nbctl ") {
			commands = append(commands, l)
		}
	}
	if len(commands) != 1 || strings.Count(commands[0], " create Meter_Band ") != 2 || !strings.Contains(commands[0], " create Meter ") {
		t.Fatalf("want one invocation creating the meter and its two bands:\n%s", script)
	}
	var lone topology.Builder
	lone.Add(m)
	ls, err := lone.State()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := nbctl.Script(topology.Diff(topology.State{}, ls), nbctl.Config{}); err == nil || !strings.Contains(err.Error(), `meter "m1"`) || !strings.Contains(err.Error(), "bands") {
		t.Errorf("a meter without bands: %v, want an error naming it and its bands", err)
	}
}
