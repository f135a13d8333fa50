package diagram

import (
	"net/netip"
	"strings"
	"testing"

	"github.com/udnkit/udnkit/internal/golden"
	"github.com/udnkit/udnkit/internal/ovntest"
	"github.com/udnkit/udnkit/topology"
)

func seed004(t *testing.T) topology.State {
	t.Helper()
	st, err := topology.Plan(ovntest.Seed004Input())
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func TestGolden(t *testing.T) {
	st := seed004(t)
	golden.Check(t, "seed004.dot", DOT(st))
	golden.Check(t, "seed004.mmd", Mermaid(st))
	layer3, err := ovntest.Plan(ovntest.Layer3Network(), ovntest.Nodes(3, ""), "node1")
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "layer3.dot", DOT(layer3))
	golden.Check(t, "layer3.mmd", Mermaid(layer3))
}

// TestEdges checks seed 004's picture fact by fact: the layer2 switch
// reaches the transit router through stotr/trtos, the gateway router
// through the rtotr/trtor peers, the remote nodes' transit router ports
// are remote ends on their chassis, and every switch and router is drawn.
func TestEdges(t *testing.T) {
	st := seed004(t)
	g := Of(st)
	has := func(from, to string, words ...string) bool {
		for _, e := range g.Edges {
			if e.From == from && e.To == to {
				text := strings.Join(e.Lines, "\n")
				for _, w := range words {
					if !strings.Contains(text, w) {
						return false
					}
				}
				return true
			}
		}
		return false
	}
	const (
		sw = "switch:test12_namespace.scoped_ovn_layer2_switch"
		tr = "router:test12_namespace.scoped_transit_router"
		gr = "router:GR_test12_namespace.scoped_ovn-control-plane"
	)
	for _, c := range []struct {
		from, to string
		words    []string
	}{
		{sw, tr, []string{"stotr-test12_namespace.scoped_ovn_layer2_switch", "203.203.0.1/16"}},
		{gr, tr, []string{"rtotr-GR_test12_namespace.scoped_ovn-control-plane", "100.88.0.14/30", "trtor-GR_test12_namespace.scoped_ovn-control-plane 100.88.0.13/30"}},
		{tr, "remote:trtor-GR_test12_namespace.scoped_ovn-worker", []string{"tunnel key 2"}},
		{"switch:ext_test12_namespace.scoped_ovn-control-plane", "external:physnet", nil},
	} {
		if !has(c.from, c.to, c.words...) {
			t.Errorf("no edge %s -- %s with %q", c.from, c.to, c.words)
		}
	}
	drawn := map[string]bool{}
	for _, grp := range g.Groups {
		for _, v := range grp.Vertices {
			drawn[v.ID] = true
		}
	}
	for _, v := range g.Shared {
		drawn[v.ID] = true
	}
	for o := range st.Objects() {
		var id string
		switch x := o.(type) {
		case topology.Switch:
			id = "switch:" + x.Name
		case topology.Router:
			id = "router:" + x.Name
		default:
			continue
		}
		if !drawn[id] {
			t.Errorf("%s not drawn", id)
		}
	}
	for _, e := range g.Edges {
		if !drawn[e.From] || !drawn[e.To] {
			t.Errorf("edge %s -- %s ends at a vertex not drawn", e.From, e.To)
		}
	}
}

// TestMissingPeer draws a switch port whose router port another plan
// holds as a vertex marked "not in this plan", and a router port whose
// router is elsewhere likewise.
func TestMissingPeer(t *testing.T) {
	var b topology.Builder
	own := topology.Owner{Network: "n"}
	b.Add(topology.Switch{Owner: own, Name: "s"})
	b.Add(topology.SwitchPort{Owner: own, Name: "stor", Switch: "s", Type: topology.PortRouter, Addresses: []string{"router"},
		Options: topology.NewOptions(topology.OptRouterPort, "rtos")})
	b.Add(topology.Router{Owner: own, Name: "r"})
	b.Add(topology.RouterPort{Owner: own, Name: "rp", Router: "r", MAC: "0a:58:0a:00:00:01",
		Networks: []netip.Prefix{netip.MustParsePrefix("10.0.0.1/24")}, Peer: "elsewhere"})
	st, err := b.State()
	if err != nil {
		t.Fatal(err)
	}
	dot := DOT(st)
	for _, want := range []string{`"port:rtos" [shape=plaintext, label="rtos\n(not in this plan)"]`, `"router:r" -- "port:rp";`, `"switch:s" -- "port:rtos" [label="stor"];`} {
		if !strings.Contains(dot, want) {
			t.Errorf("DOT lacks %s:\n%s", want, dot)
		}
	}
}

func TestEscaping(t *testing.T) {
	if got := dotQuote("a\"b\\c\nd"); got != `"a\"b\\c\nd"` {
		t.Errorf("dotQuote: %s", got)
	}
	if got := mermaidText([]string{`x "y" <z> #1 |p|`, "second"}); got != `x #quot;y#quot; #lt;z#gt; #35;1 #124;p#124;<br/>second` {
		t.Errorf("mermaidText: %s", got)
	}
}

// TestDeterministic draws the same State twice, and a State built in
// another order, to the same text.
func TestDeterministic(t *testing.T) {
	st := seed004(t)
	again := seed004(t)
	if DOT(st) != DOT(again) || Mermaid(st) != Mermaid(again) {
		t.Error("two draws of one plan differ")
	}
	var b topology.Builder
	var objs []topology.Object
	for o := range st.Objects() {
		objs = append(objs, o)
	}
	for i := len(objs) - 1; i >= 0; i-- {
		b.Add(objs[i])
	}
	rev, err := b.State()
	if err != nil {
		t.Fatal(err)
	}
	if DOT(rev) != DOT(st) {
		t.Error("a State built in reverse order draws differently")
	}
}

func BenchmarkDOT(b *testing.B) {
	st, err := topology.Plan(ovntest.Seed004Input())
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		_ = DOT(st)
	}
}
