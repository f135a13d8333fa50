package nbctl_test

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"strings"
	"testing"

	"github.com/udnkit/udnkit/backend/nbctl"
	"github.com/udnkit/udnkit/backend/ovnnb"
	"github.com/udnkit/udnkit/internal/ovntest"
	"github.com/udnkit/udnkit/topology"
)

// hostile returns s with everything a shell might act on that a name may
// hold: a comment, a command separator, command substitutions in both
// spellings (each creating a marker file if it ever runs) and both quotes.
// (Control characters, a newline among them, are refused before a script
// is written: TestRealControlCharactersRefused.)
func hostile(s string) string {
	// (":>FILE" creates FILE; short, as an ACL name takes 63 bytes.)
	return s + " :>/tmp/up-n #;:>/tmp/up-s;$(:>/tmp/up-d)`:>/tmp/up-t`'\"\\"
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
// option values hold '#', ';', $( ), backquotes and both quotes, runs
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

// TestRealControlCharactersRefused: a NUL, a newline, DEL or invalid UTF-8
// anywhere in a row (name, external_ids, options, a referenced row's
// name, a Gateway_Chassis) is refused by both backends before anything is
// sent or written: the script renderer and the adapter return
// ErrInvalidChange naming the object and the column; the adapter's
// connection to the real NB stays up (the NB drops a connection on a NUL)
// and its next transaction commits.
func TestRealControlCharactersRefused(t *testing.T) {
	ctx := context.Background()
	nb := ovntest.Start(t)
	c, err := ovnnb.Dial(ctx, ovnnb.Config{Endpoints: []string{nb.NBUnix}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	own := topology.Owner{Network: "ns_ok"}
	ok := topology.Switch{Owner: own, Name: "sw"}
	for _, tc := range []struct {
		name, object, column string
		obj                  topology.Object
	}{
		{"NUL in a name", `switch "sw\x00x"`, "name", topology.Switch{Owner: own, Name: "sw\x00x"}},
		{"newline in the owner", `switch "sw2"`, "external_ids", topology.Switch{Owner: topology.Owner{Network: "ns\nx"}, Name: "sw2"}},
		{"DEL in an option value", `router "rt"`, "options", topology.Router{Owner: own, Name: "rt", Options: topology.NewOptions("k", "v\x7f")}},
		{"invalid UTF-8 in a match", `switch "sw"`, "match", topology.ACL{Owner: own, Switch: "sw", Name: "a", Direction: topology.ACLToLport,
			Priority: 1000, Match: "ip4\xff", Action: topology.ACLDrop}},
		{"NUL in a referenced switch", `switch_port "p"`, "switch", topology.SwitchPort{Owner: own, Name: "p", Switch: "s\x00w"}},
		{"NUL in a gateway chassis", `router_port "rp"`, "gateway_chassis", topology.RouterPort{Owner: own, Name: "rp", Router: "rt",
			MAC: "0a:58:0a:09:00:01", Networks: []netip.Prefix{netip.MustParsePrefix("10.9.0.1/16")},
			GatewayChassis: []topology.GatewayChassis{{Name: "gc", Chassis: "ch\x00", Priority: 1}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			changes := topology.Changes{{Op: topology.OpCreate, Kind: tc.obj.Kind(), Key: tc.obj.Key(), Object: tc.obj}}
			if tc.obj.Kind() != topology.KindSwitch && tc.obj.Kind() != topology.KindRouter {
				changes = append(topology.Changes{{Op: topology.OpCreate, Kind: topology.KindSwitch, Key: "sw", Object: ok},
					{Op: topology.OpCreate, Kind: topology.KindRouter, Key: "rt", Object: topology.Router{Owner: own, Name: "rt"}}}, changes...)
			}
			_, err := nbctl.Script(changes, nbctl.Config{})
			if !errors.Is(err, nbctl.ErrInvalidChange) || !strings.Contains(err.Error(), tc.column) || strings.ContainsAny(err.Error(), "\x00\n\x7f") {
				t.Errorf("Script: %q, want ErrInvalidChange naming %s, no control character", err, tc.column)
			}
			_, err = c.Apply(ctx, changes)
			var ce *ovnnb.ChangeError
			if !errors.Is(err, ovnnb.ErrInvalidChange) || !errors.As(err, &ce) || ce.Key != tc.obj.Key() ||
				!strings.Contains(err.Error(), tc.column) && !strings.Contains(err.Error(), "key: byte") {
				t.Errorf("Apply: %q, want ErrInvalidChange of %s naming %s", err, tc.obj.Key(), tc.column)
			}
			if strings.ContainsAny(fmt.Sprint(err), "\x00\n\x7f") {
				t.Errorf("Apply's error holds a control character: %q", err)
			}
		})
	}
	// Sync plans from a full read, without the pre-check of Apply: its rows
	// are refused all the same, the Gateway_Chassis ones included.
	for name, obj := range map[string]topology.Object{
		"NUL in a switch name": topology.Switch{Owner: own, Name: "s\x00"},
		"NUL in a gateway chassis": topology.RouterPort{Owner: own, Name: "rp", Router: "rt", MAC: "0a:58:0a:09:00:01",
			Networks: []netip.Prefix{netip.MustParsePrefix("10.9.0.1/16")}, GatewayChassis: []topology.GatewayChassis{{Name: "gc", Chassis: "ch\x00", Priority: 1}}},
	} {
		var b topology.Builder
		b.Add(topology.Router{Owner: own, Name: "rt"}, obj)
		s, err := b.State()
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := c.Sync(ctx, s); !errors.Is(err, ovnnb.ErrInvalidChange) {
			t.Errorf("Sync, %s: %v, want ErrInvalidChange", name, err)
		}
	}
	// The connection survived: a clean change commits and reads back.
	if _, err := c.Apply(ctx, topology.Changes{{Op: topology.OpCreate, Kind: topology.KindSwitch, Key: "sw", Object: ok}}); err != nil {
		t.Fatalf("a clean change after the refused ones: %v", err)
	}
	obs, err := c.Observe(ctx)
	if err != nil || obs.Len() != 1 {
		t.Fatalf("Observe: %v, %d rows", err, obs.Len())
	}
}
