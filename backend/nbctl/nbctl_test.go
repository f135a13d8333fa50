package nbctl_test

import (
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/udnkit/udnkit/backend/nbctl"
	"github.com/udnkit/udnkit/backend/ovnnb"
	"github.com/udnkit/udnkit/internal/ovntest"
	"github.com/udnkit/udnkit/topology"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/")

// plans plans the Layer3 network on nodes of one zone, and the Layer2
// network, which supports one node per zone, on the same nodes each in its
// own zone, for node1's zone (its other nodes are remote peers).
func plans(t testing.TB, nodes int) (l3, l2 topology.State) {
	t.Helper()
	l3, err := ovntest.Plan(ovntest.Layer3Network(), ovntest.Nodes(nodes, "zone1"), "zone1")
	if err != nil {
		t.Fatal(err)
	}
	l2, err = ovntest.Plan(ovntest.Layer2Network(), ovntest.Nodes(nodes, ""), "node1")
	if err != nil {
		t.Fatal(err)
	}
	return l3, l2
}

func TestGoldenScript(t *testing.T) {
	l3, _ := plans(t, 2)
	got, err := nbctl.Script(topology.Diff(topology.State{}, l3), nbctl.Config{})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", "layer3_create.sh")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update)", err)
	}
	if got != string(want) {
		t.Errorf("script differs from %s; run go test -update and review the diff", path)
	}
}

func TestScriptQuoting(t *testing.T) {
	own := topology.Owner{Network: "ns_q"}
	changes := topology.Changes{{Op: topology.OpCreate, Kind: topology.KindSwitch, Key: "sw'1",
		Object: topology.Switch{Owner: own, Name: "sw'1", OtherConfig: topology.NewOptions("k", `v "x" $y`)}}}
	got, err := nbctl.Script(changes, nbctl.Config{Command: "ovn-nbctl --db=tcp:127.0.0.1:6641"})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`'name="sw'\''1"'`, `'other_config={"k"="v \"x\" $y"}'`, "ovn-nbctl --db=tcp:127.0.0.1:6641 -- "} {
		if !strings.Contains(got, want) {
			t.Errorf("script lacks %s:\n%s", want, got)
		}
	}
}

// TestDifferential applies the same change sets to two real NB databases:
// one through the script run by the real ovn-nbctl, one through the ovnnb
// adapter. After every step both hold the same rows (UUIDs aside).
func TestDifferential(t *testing.T) {
	ctx := context.Background()
	viaScript := ovntest.Start(t)
	viaAdapter := ovntest.Start(t)
	c, err := ovnnb.Dial(ctx, ovnnb.Config{Endpoints: []string{viaAdapter.NBUnix}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()

	l3, l2 := plans(t, 3)
	both, err := l3.Merge(l2)
	if err != nil {
		t.Fatal(err)
	}
	l3two, _ := plans(t, 2)
	withoutNode3, err := l3two.Merge(l2)
	if err != nil {
		t.Fatal(err)
	}
	// An update: a changed switch option and a moved router port network.
	var b topology.Builder
	for o := range withoutNode3.Objects() {
		if sw, ok := o.(topology.Switch); ok && sw.Name == "ns1_blue_join" {
			sw.OtherConfig = sw.OtherConfig.With("mcast_snoop", "true")
			o = sw
		}
		if st, ok := o.(topology.StaticRoute); ok && st.Router == "GR_ns1_blue_node1" && st.Prefix.Bits() == 0 {
			st.Options = topology.NewOptions("ecmp_symmetric_reply", "true")
			o = st
		}
		b.Add(o)
	}
	updated, err := b.State()
	if err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		name    string
		desired topology.State
	}{
		{"create two networks", both},
		{"remove node3", withoutNode3},
		{"update a switch and a route", updated},
		{"remove the Layer2 network", topology.Removal("ns2_red")},
		{"remove the Layer3 network", topology.Removal("ns1_blue")},
	}
	for _, step := range steps {
		observed, err := c.Observe(ctx)
		if err != nil {
			t.Fatal(err)
		}
		changes := topology.Diff(observed, step.desired)
		if len(changes) == 0 {
			t.Fatalf("%s: no changes", step.name)
		}
		script, err := nbctl.Script(changes, nbctl.Config{})
		if err != nil {
			t.Fatalf("%s: %v", step.name, err)
		}
		if out, err := viaScript.Shell(ctx, script); err != nil {
			t.Fatalf("%s: script failed: %v\n%s", step.name, err, out)
		}
		if _, err := c.Apply(ctx, changes); err != nil {
			t.Fatalf("%s: %v", step.name, err)
		}
		a, err := viaScript.Canonical(ctx)
		if err != nil {
			t.Fatal(err)
		}
		d, err := viaAdapter.Canonical(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if a != d {
			t.Fatalf("%s: NB contents differ\n--- via ovn-nbctl only:\n%s\n--- via ovnnb only:\n%s", step.name, onlyIn(a, d), onlyIn(d, a))
		}
		t.Logf("%s: %d changes, %d rows equal", step.name, len(changes), strings.Count(a, "\n"))
	}
}

func onlyIn(a, b string) string {
	in := map[string]bool{}
	for _, l := range strings.Split(b, "\n") {
		in[l] = true
	}
	var out []string
	for _, l := range strings.Split(a, "\n") {
		if !in[l] {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// TestScriptMalformedChange: a change without an object, or with an object
// of another kind or key, is an error naming the change, not a panic.
func TestScriptMalformedChange(t *testing.T) {
	own := topology.Owner{Network: "ns_net"}
	for _, tc := range []struct {
		name string
		ch   topology.Change
	}{
		{"create without object", topology.Change{Op: topology.OpCreate, Kind: topology.KindSwitch, Key: "s"}},
		{"update without object", topology.Change{Op: topology.OpUpdate, Kind: topology.KindSwitch, Key: "s", Columns: []string{"other_config"}}},
		{"delete without object", topology.Change{Op: topology.OpDelete, Kind: topology.KindSwitch, Key: "s"}},
		{"object of another key", topology.Change{Op: topology.OpCreate, Kind: topology.KindSwitch, Key: "s",
			Object: topology.Switch{Owner: own, Name: "t"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := nbctl.Script(topology.Changes{tc.ch}, nbctl.Config{})
			if !errors.Is(err, nbctl.ErrInvalidChange) || !strings.Contains(err.Error(), `switch "s"`) {
				t.Errorf("Script: %v, want ErrInvalidChange naming switch s", err)
			}
		})
	}
}
