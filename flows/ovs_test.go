package flows

import (
	"strings"
	"testing"

	"github.com/digitalocean/go-openvswitch/ovs"
)

// TestOVSValues: every flow of the seed's example is a go-openvswitch
// value whose text carries the flow's table, priority, cookie, matches and
// actions (the real-OVS test proves Open vSwitch reads it as the same
// flow).
func TestOVSValues(t *testing.T) {
	for _, f := range mustPlan(t, seedInput()) {
		v, err := f.OVS()
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if v.Table != f.Table || v.Priority != f.Priority || v.Cookie != Cookie {
			t.Errorf("%s: table %d, priority %d, cookie %#x", f, v.Table, v.Priority, v.Cookie)
		}
		b, err := v.MarshalText()
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		text := string(b)
		_, actions, _ := strings.Cut(text, ",actions=")
		if want := strings.NewReplacer("output:LOCAL", "local", ",LOCAL", ",local", "NORMAL", "normal").Replace(f.Actions); actions != want {
			t.Errorf("%s: actions %q, want %q", f, actions, want)
		}
		for _, m := range splitTop(f.Match) {
			if !strings.Contains(text, m) {
				t.Errorf("%s: text %q lacks %q", f, text, m)
			}
		}
	}
	v, _ := Flow{Table: 2, Priority: 300, Match: "reg1=0x4", Actions: "drop"}.OVS()
	if got := v.Matches[0]; got.(interface{ GoString() string }).GoString() != "ovs.FieldMatch(reg1,0x4)" {
		t.Errorf("reg1 match %#v", got)
	}
	if v.InPort != 0 {
		t.Error(v.InPort)
	}
	local, _ := Flow{Match: "ip,in_port=LOCAL", Actions: "LOCAL"}.OVS()
	if local.InPort != ovs.PortLOCAL || local.Protocol != ovs.ProtocolIPv4 {
		t.Errorf("%+v", local)
	}
	for _, bad := range []Flow{{Match: "ip", Actions: "resubmit(,3)"}, {Match: "in_port=x", Actions: "drop"}, {Match: "ip"}} {
		if _, err := bad.OVS(); err == nil {
			t.Errorf("%+v: no error", bad)
		}
	}
}
