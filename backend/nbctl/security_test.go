package nbctl_test

import (
	"context"
	"net/netip"
	"strings"
	"testing"

	"github.com/udnkit/udnkit/backend/nbctl"
	"github.com/udnkit/udnkit/backend/ovnnb"
	"github.com/udnkit/udnkit/internal/ovntest"
	"github.com/udnkit/udnkit/topology"
)

// hostile returns s with everything a shell might act on: a newline that
// would end a comment, a command separator, command substitutions in both
// spellings (each creating a marker file if it ever runs) and both quotes.
func hostile(s string) string {
	// (":>FILE" creates FILE; short, as an ACL name takes 63 bytes.)
	return s + "\n:>/tmp/up-n #;:>/tmp/up-s;$(:>/tmp/up-d)`:>/tmp/up-t`'\"\\"
}

var pwnedMarkers = []string{"/tmp/up-n", "/tmp/up-s", "/tmp/up-d", "/tmp/up-t"}

// hostileState is a network whose every name, match and option value is
// hostile, with a row of every kind.
func hostileState(t *testing.T, gwMTU string) topology.State {
	t.Helper()
	net := hostile("ns_evil")
	own := topology.Owner{Network: net, Node: hostile("node")}
	sw, rt, pg, lb, as := hostile("sw"), hostile("rt"), hostile("pg"), hostile("lb"), hostile("as")
	var b topology.Builder
	b.Add(
		topology.AddressSet{Owner: own, Name: as, Addresses: []netip.Prefix{netip.MustParsePrefix("10.9.0.0/16")}},
		topology.LoadBalancer{Owner: own, Name: lb, Protocol: "tcp", Options: topology.NewOptions("k", hostile("v")),
			Groups: []string{hostile("lbg")}, Switches: []string{sw}, Routers: []string{rt}},
		topology.LoadBalancerGroup{Owner: own, Name: hostile("lbg")},
		topology.Switch{Owner: own, Name: sw, OtherConfig: topology.NewOptions(hostile("k"), hostile("v")), LoadBalancerGroups: []string{hostile("lbg")}},
		topology.Router{Owner: own, Name: rt, Options: topology.NewOptions("k", hostile("v"))},
		topology.SwitchPort{Owner: own, Name: hostile("lsp"), Switch: sw, Addresses: []string{hostile("0a:58:0a:09:00:05 10.9.0.5")}},
		topology.RouterPort{Owner: own, Name: hostile("lrp"), Router: rt, MAC: "0a:58:0a:09:00:01",
			Networks: []netip.Prefix{netip.MustParsePrefix("10.9.0.1/16")}, Options: topology.NewOptions(topology.OptGatewayMTU, gwMTU),
			GatewayChassis: []topology.GatewayChassis{{Name: hostile("gc"), Chassis: hostile("chassis"), Priority: 1}}},
		topology.PortGroup{Owner: own, Name: pg, Ports: []string{hostile("lsp")}},
		topology.StaticRoute{Owner: own, Router: rt, RouteTable: hostile("table"), Policy: topology.RouteDstIP,
			Prefix: netip.MustParsePrefix("10.10.0.0/16"), Nexthop: netip.MustParseAddr("10.9.0.7"), OutputPort: hostile("lrp")},
		topology.Policy{Owner: own, Router: rt, Priority: 100, Match: hostile("ip4.src == 10.9.0.5"), Action: topology.PolicyAllow},
		topology.NAT{Owner: own, Router: rt, Type: topology.NATSNAT, LogicalIP: netip.MustParsePrefix("10.9.0.0/16"),
			ExternalIP: netip.MustParseAddr("172.18.0.9"), Match: hostile("ip4"), GatewayPort: hostile("lrp")},
		topology.ACL{Owner: own, PortGroup: pg, Name: hostile("acl"), Direction: topology.ACLToLport, Priority: 1000,
			Match: hostile("ip4"), Action: topology.ACLDrop},
		topology.ACL{Owner: own, Switch: sw, Name: hostile("acl2"), Direction: topology.ACLFromLport, Priority: 1001,
			Match: hostile("ip6"), Action: topology.ACLAllow},
	)
	s, err := b.State()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestRealHostileNames renders change sets whose names, matches and
// option values hold newlines, ';', $( ), backquotes and both quotes, runs
// the scripts with the real sh and ovn-nbctl, and applies the same change
// sets with the ovnnb adapter to a second real NB: after every step both
// hold the same rows, and no marker file exists (nothing else ran).
func TestRealHostileNames(t *testing.T) {
	ctx := context.Background()
	viaScript := ovntest.Start(t)
	viaAdapter := ovntest.Start(t)
	c, err := ovnnb.Dial(ctx, ovnnb.Config{Endpoints: []string{viaAdapter.NBUnix}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	// The root filesystem is shared: clear markers a broken build left.
	if out, err := viaScript.Shell(ctx, "rm -f "+strings.Join(pwnedMarkers, " ")); err != nil {
		t.Fatal(err, out)
	}
	evil := hostileState(t, "1400")
	for _, step := range []struct {
		name    string
		desired topology.State
	}{
		{"create", evil},
		{"update", hostileState(t, "1500")},
		{"remove", topology.Removal(evil.Networks()...)},
	} {
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
		for i, line := range strings.Split(script, "\n") {
			if strings.HasPrefix(line, "# ") && strings.ContainsAny(line, "\r") {
				t.Errorf("%s: comment line %d holds a carriage return", step.name, i)
			}
		}
		if out, err := viaScript.Shell(ctx, script); err != nil {
			t.Fatalf("%s: script failed: %v\n%s\n%s", step.name, err, out, script)
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
			t.Fatalf("%s: NB contents differ\n--- via sh + ovn-nbctl only:\n%s\n--- via ovnnb only:\n%s", step.name, onlyIn(a, d), onlyIn(d, a))
		}
		if step.name == "create" && !strings.Contains(a, "up-d") {
			t.Fatalf("the hostile names are not in the NB:\n%s", a)
		}
		for _, m := range pwnedMarkers {
			if out, err := viaScript.Shell(ctx, "test ! -e "+m); err != nil {
				t.Fatalf("%s: the script ran a command hidden in a name (%s exists): %v %s", step.name, m, err, out)
			}
		}
	}
	if obs, err := c.Observe(ctx); err != nil || obs.Len() != 0 {
		t.Fatalf("after the removal: %v, %d rows", err, obs.Len())
	}
}
