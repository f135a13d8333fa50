package probe_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/udnkit/udnkit/internal/golden"
	"github.com/udnkit/udnkit/internal/probe"
	"github.com/udnkit/udnkit/topology"
)

// judged judges seed 001's probes by the recorded traces where one fits
// (a delivery for every probe meant delivered, the gateway's exit for the
// others) and breaks blue -> green on ovn-worker.
func judged(t *testing.T) (*probe.Plan, []probe.Result) {
	t.Helper()
	p, _ := load(t, "../../examples/manifests/seed-001.yaml", "ovn-worker")
	var out []probe.Result
	for _, pr := range p.Probes {
		var r probe.Result
		switch {
		case pr.From.String() == "blue_blue-network@ovn-worker" && pr.To.String() == "green_green-network@ovn-worker":
			r = p.Judge(pr, readTrace(t, "trace_dropped_unknown"), nil)
		case pr.Intent.Delivered:
			r = probe.Result{Probe: pr, Outcome: probe.Delivered, Where: "somewhere: output to " + pr.To.Port}
		default:
			r = p.Judge(pr, readTrace(t, "trace_isolated_left"), nil)
		}
		out = append(out, r)
	}
	return p, out
}

// TestReport: the matrix marks the pair with a surprise, the probe list
// every probe, the surprise its rows; JSON carries the same.
func TestReport(t *testing.T) {
	p, results := judged(t)
	missing := topology.Change{Op: topology.OpCreate, Kind: topology.KindRouterPort, Key: "colored-enterprise-to-green_green-network-ovn-worker",
		Object: topology.RouterPort{Owner: topology.Owner{Controller: "udnkit-connect", Network: "colored-enterprise"}, Name: "colored-enterprise-to-green_green-network-ovn-worker"}}
	for i := range results {
		results[i].Rows = probe.Blame(results[i], probe.Hop{}, topology.Changes{missing}, topology.State{})
	}
	r := probe.NewReport(p, results)
	if r.Surprises() != 1 {
		t.Fatalf("%d surprises, want 1", r.Surprises())
	}
	if c := r.Cell("blue_blue-network", "green_green-network"); c != "mixed!" {
		t.Errorf("blue -> green cell %q, want mixed!", c)
	}
	if c := r.Cell("red_red-network", "green_green-network"); c != "left" {
		t.Errorf("red -> green cell %q, want left", c)
	}
	if c := r.Cell("yellow_yellow-network", "yellow_yellow-network"); c != "-" {
		t.Errorf("yellow -> yellow cell %q, want - (a Layer2 network without pods has one probe port)", c)
	}
	var text strings.Builder
	if err := r.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "  row: missing router_port colored-enterprise-to-green_green-network-ovn-worker\n") {
		t.Errorf("the surprise does not name the missing port:\n%s", text.String())
	}
	golden.Check(t, "report_seed-001.txt", text.String())
	var js strings.Builder
	if err := r.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	var back struct {
		Surprises int                          `json:"surprises"`
		Matrix    map[string]map[string]string `json:"matrix"`
		Probes    []struct {
			Outcome  string   `json:"outcome"`
			Surprise bool     `json:"surprise"`
			Rows     []string `json:"rows"`
		} `json:"probes"`
	}
	if err := json.Unmarshal([]byte(js.String()), &back); err != nil {
		t.Fatal(err)
	}
	if back.Surprises != 1 || len(back.Probes) != len(results) || back.Matrix["blue_blue-network"]["green_green-network"] != "mixed!" {
		t.Errorf("JSON: %d surprises, %d probes, matrix %v", back.Surprises, len(back.Probes), back.Matrix)
	}
	golden.Check(t, "report_seed-001.json", js.String())
}

// TestBlame: only rows of the two networks and of what joins them are
// named, at most six and a count; an ACL drop names udnkit's ACL by
// priority and match, or the foreign flow; no surprise, no rows.
func TestBlame(t *testing.T) {
	p, results := judged(t)
	var r probe.Result
	for _, res := range results {
		if res.Surprise {
			r = res
		}
	}
	port := func(network, name string) topology.Change {
		return topology.Change{Op: topology.OpCreate, Kind: topology.KindRouterPort, Key: name,
			Object: topology.RouterPort{Owner: topology.Owner{Network: network}, Name: name}}
	}
	changes := topology.Changes{port("red_red-network", "r1"), port("blue_blue-network", "b1"),
		{Op: topology.OpDelete, Kind: topology.KindSwitch, Key: "g1", Object: topology.Switch{Owner: topology.Owner{Network: "green_green-network"}, Name: "g1"}},
		{Op: topology.OpUpdate, Kind: topology.KindRouter, Key: "c1", Columns: []string{"options"},
			Object: topology.Router{Owner: topology.Owner{Network: "colored-enterprise"}, Name: "c1"}}}
	got := probe.Blame(r, probe.Hop{}, changes, topology.State{})
	want := []string{"missing router_port b1", "extra switch g1", "router c1 differs in options"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("rows %q, want %q", got, want)
	}
	var many topology.Changes
	for i := range 9 {
		many = append(many, port("blue_blue-network", string(rune('a'+i))))
	}
	if got := probe.Blame(r, probe.Hop{}, many, topology.State{}); len(got) != 7 || got[6] != "and 3 more" {
		t.Errorf("nine rows: %q", got)
	}
	acl := topology.ACL{Owner: topology.Owner{Network: "blue_blue-network"}, PortGroup: "pg1", Tier: 2, Direction: topology.ACLToLport,
		Priority: 1000, Match: "outport == @pg1", Action: topology.ACLDrop}
	var b topology.Builder
	b.Add(topology.PortGroup{Owner: acl.Owner, Name: "pg1"})
	b.Add(acl)
	observed, err := b.State()
	if err != nil {
		t.Fatal(err)
	}
	drop := probe.Hop{Datapath: "sw", Stage: "ls_out_acl_eval", Priority: 2000, Match: "reg8[30..31] == 2 && (outport == @pg1)"}
	if got := probe.Blame(r, drop, nil, observed); len(got) != 1 || got[0] != "acl "+acl.Key()+" dropped it (action drop)" {
		t.Errorf("udnkit's ACL: %q", got)
	}
	drop.Priority = 2500
	if got := probe.Blame(r, drop, nil, observed); len(got) != 1 || !strings.HasPrefix(got[0], "an ACL udnkit does not own dropped it: priority 1500") {
		t.Errorf("a foreign ACL: %q", got)
	}
	r.Surprise = false
	if got := probe.Blame(r, drop, changes, observed); got != nil {
		t.Errorf("no surprise: %q", got)
	}
	_ = p
}
