package topology

import (
	"errors"
	"strings"
	"testing"

	"github.com/udnkit/udnkit/netconf"
)

// zoned returns seed 004's Layer2 input with the named nodes moved into
// zone z, which is the zone programmed.
func zoned(z string, nodes ...string) Input {
	in := seed004Input("203.203.0.0/24")
	for i := range in.Nodes {
		for _, n := range nodes {
			if in.Nodes[i].Name == n {
				in.Nodes[i].Zone = z
			}
		}
	}
	in.Zone = z
	return in
}

// TestLayer2OneLocalNodePerZone checks that a primary Layer2 network is
// refused for a zone of several nodes (seed 004 supports interconnect
// only), naming the network, the zone and the local nodes, by the full
// and the incremental planner alike.
func TestLayer2OneLocalNodePerZone(t *testing.T) {
	two := zoned("zone-x", "ovn-worker2", "ovn-worker")
	all := zoned("zone-x", "ovn-control-plane", "ovn-worker", "ovn-worker2")
	tests := []struct {
		name  string
		plan  func(Input) (State, error)
		in    Input
		nodes []string // the local nodes the message must name
	}{
		{"PlanLayer2, two local nodes", PlanLayer2, two, []string{"ovn-worker", "ovn-worker2"}},
		{"PlanLayer2, three local nodes", PlanLayer2, all, []string{"ovn-control-plane", "ovn-worker", "ovn-worker2"}},
		{"Plan dispatches to PlanLayer2", Plan, two, []string{"ovn-worker", "ovn-worker2"}},
		{"PlanNodes for a local node", func(in Input) (State, error) { return PlanNodes(in, "ovn-worker") }, two,
			[]string{"ovn-worker", "ovn-worker2"}},
		{"PlanNodes for a remote node", func(in Input) (State, error) { return PlanNodes(in, "ovn-control-plane") }, two,
			[]string{"ovn-worker", "ovn-worker2"}},
		{"PlanLegacyLayer2", PlanLegacyLayer2, all, []string{"ovn-control-plane", "ovn-worker", "ovn-worker2"}},
		{"PlanLayer2Upgrade", func(in Input) (State, error) { return PlanLayer2Upgrade(in, nil) }, two,
			[]string{"ovn-worker", "ovn-worker2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := tt.plan(tt.in)
			if !errors.Is(err, ErrUnsupported) {
				t.Fatalf("error %v (state of %d objects), want ErrUnsupported", err, s.Len())
			}
			msg := err.Error()
			want := []string{`network "test12_namespace-scoped"`, `zone "zone-x"`, "one node per zone (interconnect)"}
			for _, n := range tt.nodes {
				want = append(want, `"`+n+`"`)
			}
			for _, w := range want {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q does not name %s", msg, w)
				}
			}
			// Only the local nodes are named as such.
			for _, nd := range tt.in.Nodes {
				if nd.Zone != "zone-x" && strings.Contains(msg, `"`+nd.Name+`"`) {
					t.Errorf("error %q names remote node %s", msg, nd.Name)
				}
			}
		})
	}
}

// TestLayer2ZonesThatStayValid checks the zones a Layer2 network may still
// be planned for: one local node, no local node (a zone that only sees
// remote peers), and any number of local nodes of a secondary network.
func TestLayer2ZonesThatStayValid(t *testing.T) {
	t.Run("primary, one local node", func(t *testing.T) {
		s := mustPlan(t, PlanLayer2, zoned("zone-x", "ovn-worker"))
		rp := routerPort(t, s, "trtos-"+seedSwitch)
		if len(rp.GatewayChassis) != 1 || rp.GatewayChassis[0].Chassis != "chassis-w1" || rp.GatewayChassis[0].Priority != 1 {
			t.Errorf("trtos- gateway chassis %v, want chassis-w1 alone", rp.GatewayChassis)
		}
		if got := mgmtPorts(s); strings.Join(got, ",") != "k8s-test12_namespace.scoped_ovn-worker" {
			t.Errorf("management ports %q", got)
		}
	})
	t.Run("primary, no local node", func(t *testing.T) {
		in := zoned("zone-x")
		s := mustPlan(t, PlanLayer2, in)
		if got := mgmtPorts(s); len(got) != 0 {
			t.Errorf("management ports %q in a zone without nodes", got)
		}
		if rs := s.ObjectsOf(KindRouter); len(rs) != 1 || rs[0].Key() != seedTR {
			t.Errorf("routers %v, want the transit router only", rs)
		}
		if rp := routerPort(t, s, "trtos-"+seedSwitch); len(rp.GatewayChassis) != 0 {
			t.Errorf("trtos- bound to %v in a zone without nodes", rp.GatewayChassis)
		}
		for _, nd := range in.Nodes { // every node is a remote peer
			p := routerPort(t, s, "trtor-GR_test12_namespace.scoped_"+nd.Name)
			if v, _ := p.Options.Get(OptRequestedChassis); v != nd.Chassis {
				t.Errorf("%s: requested-chassis %q, want %q", p.Name, v, nd.Chassis)
			}
		}
		// Incremental planning agrees.
		part, err := PlanNodes(in, "ovn-worker")
		if err != nil {
			t.Fatal(err)
		}
		if inc := s.Overlay(part); !inc.Equal(s) {
			t.Errorf("overlaying PlanNodes(ovn-worker) changes the state:\n%s", Diff(s, inc))
		}
	})
	t.Run("secondary, every node local", func(t *testing.T) {
		in := zoned("zone-x", "ovn-control-plane", "ovn-worker", "ovn-worker2")
		in.Network.Role, in.Network.Name, in.TunnelKeys = netconf.RoleSecondary, "ns1_red", in.TunnelKeys[:1]
		s := mustPlan(t, PlanLayer2, in)
		if s.Len() != 1 || len(s.ObjectsOf(KindSwitch)) != 1 {
			t.Errorf("secondary Layer2 in a zone of three nodes: %s", s)
		}
		if _, err := PlanNodes(in, "ovn-worker"); err != nil {
			t.Errorf("PlanNodes: %v", err)
		}
	})
}

func mgmtPorts(s State) []string {
	var out []string
	for _, o := range s.ObjectsOf(KindSwitchPort) {
		if strings.HasPrefix(o.Key(), "k8s-") {
			out = append(out, o.Key())
		}
	}
	return out
}
