package probe_test

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/udnkit/udnkit/internal/probe"
)

func readTrace(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name + ".txt")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestParseTrace reads real ovn-trace output (OVN 25.03, seed 001's zone
// ovn-worker and the policy fixture's node-a): the datapaths, stages and
// outputs, and where a dropped packet ended.
func TestParseTrace(t *testing.T) {
	t.Run("connected, local", func(t *testing.T) {
		tr := probe.ParseTrace(readTrace(t, "trace_connected_local"))
		var dps []string
		for _, h := range tr.Hops {
			if !slices.Contains(dps, h.Datapath) {
				dps = append(dps, h.Datapath)
			}
		}
		want := []string{"blue_blue.network_ovn-worker", "blue_blue.network_ovn_cluster_router", "connect-router-colored-enterprise",
			"green_green.network_ovn_cluster_router", "green_green.network_ovn-worker"}
		if !slices.Equal(dps, want) {
			t.Errorf("datapaths %v, want %v", dps, want)
		}
		o, ok := tr.OutputTo("k8s-green_green.network_ovn-worker")
		if !ok || o.Datapath != "green_green.network_ovn-worker" || o.Type != "" {
			t.Errorf("output to green's management port: %+v %v (outputs %+v)", o, ok, tr.Outputs)
		}
		if tr.Drop.Stage != "" {
			t.Errorf("drop %+v in a delivered trace", tr.Drop)
		}
		first := tr.Hops[0]
		if first != (probe.Hop{Datapath: "blue_blue.network_ovn-worker", Pipeline: "ingress", Table: 0, Stage: "ls_in_check_port_sec",
			Match: "1", Priority: 50, UUID: first.UUID}) || len(first.UUID) != 8 {
			t.Errorf("first hop %+v", first)
		}
	})
	t.Run("dropped: unknown address on a Layer2 switch", func(t *testing.T) {
		tr := probe.ParseTrace(readTrace(t, "trace_dropped_unknown"))
		if tr.Drop.Stage != "ls_in_l2_unknown" || tr.Drop.Datapath != "yellow_yellow.network_ovn_layer2_switch" || tr.End() != tr.Drop {
			t.Errorf("drop %+v, end %+v", tr.Drop, tr.End())
		}
		// The transit router's ARP request for the address floods the
		// switch: that is not the probe's packet.
		if o, ok := tr.OutputTo("k8s-yellow_yellow.network_ovn-worker"); ok {
			t.Errorf("the ARP request's flood taken for the probe: %+v", o)
		}
	})
	t.Run("dropped by a policy's ACL: no drop printed", func(t *testing.T) {
		tr := probe.ParseTrace(readTrace(t, "trace_policy_drop"))
		end := tr.End()
		if tr.Drop.Stage != "" || len(tr.Outputs) != 0 {
			t.Errorf("drop %+v, outputs %+v", tr.Drop, tr.Outputs)
		}
		if end.Stage != "ls_out_acl_eval" || end.Priority != 2000 || !strings.HasSuffix(end.Match, "(outport == @a8389620024099792334)") {
			t.Errorf("end %+v, want the default deny's evaluation", end)
		}
		if last := tr.Last(); last.Stage != "ls_out_acl_action" {
			t.Errorf("last hop %+v", last)
		}
	})
	t.Run("isolated: out through the gateway", func(t *testing.T) {
		tr := probe.ParseTrace(readTrace(t, "trace_isolated_left"))
		o, ok := tr.OutputTo("breth0_red_red.network_ovn-worker")
		if !ok || o.Type != "localnet" {
			t.Errorf("localnet output %+v %v", o, ok)
		}
	})
	t.Run("empty", func(t *testing.T) {
		tr := probe.ParseTrace("")
		if len(tr.Hops) != 0 || len(tr.Outputs) != 0 || tr.End() != (probe.Hop{}) || tr.Last() != (probe.Hop{}) {
			t.Errorf("%+v", tr)
		}
	})
}

// FuzzParseTrace: any text parses; every output and hop comes from a
// line of it, and End is a hop read or the zero Hop.
func FuzzParseTrace(f *testing.F) {
	for _, name := range []string{"trace_connected_local", "trace_dropped_unknown", "trace_policy_drop"} {
		b, err := os.ReadFile("testdata/" + name + ".txt")
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
	f.Add("drop;\n")
	f.Add(" 3. x_acl_action (n.c:1): 1, priority 1, uuid ab\ndrop;\n")
	f.Fuzz(func(t *testing.T, s string) {
		tr := probe.ParseTrace(s)
		for _, o := range tr.Outputs {
			if !strings.Contains(s, `output to "`+o.Port+`"`) {
				t.Errorf("output %+v not in the text", o)
			}
		}
		for _, h := range tr.Hops {
			if !strings.Contains(s, h.Stage) || !strings.Contains(s, "uuid "+h.UUID) {
				t.Errorf("hop %+v not in the text", h)
			}
		}
		if end := tr.End(); end != tr.Drop && end != (probe.Hop{}) && !slices.Contains(tr.Hops, end) {
			t.Errorf("end %+v is neither a hop nor the drop", end)
		}
	})
}
