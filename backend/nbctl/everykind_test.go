package nbctl_test

import (
	"context"
	"net/netip"
	"testing"

	"github.com/udnkit/udnkit/backend/nbctl"
	"github.com/udnkit/udnkit/backend/ovnnb"
	"github.com/udnkit/udnkit/internal/ovntest"
	"github.com/udnkit/udnkit/netconf"
	"github.com/udnkit/udnkit/topology"
)

// moreKinds adds the objects of kinds beyond the ones everyKind knows: a
// test file that comes with a new kind appends its own (TestNewKindMeter
// in topology/internal/kindgen does, through an overlay), so that the
// kind goes through TestRealEveryKind.
var moreKinds []func(own topology.Owner) []topology.Object

// everyKind is a State with at least one object of every kind, each
// referencing, holding or attached to the others as OVN takes them: an
// ACL on a port group and one on a switch, a NAT on a gateway port, a
// router port with Gateway_Chassis, a load balancer in a group, on a
// switch and on a router.
func everyKind(t *testing.T) topology.State {
	t.Helper()
	own := topology.Owner{Network: "ns_every", Topology: netconf.TopologyLayer3, Role: netconf.RolePrimary, Node: "node1"}
	pfx, addr := netip.MustParsePrefix, netip.MustParseAddr
	ap := netip.MustParseAddrPort
	objs := []topology.Object{
		topology.AddressSet{Owner: own, Name: "ns_every_as", Addresses: []netip.Prefix{pfx("10.9.1.0/24"), pfx("10.9.0.5/32")}},
		topology.LoadBalancer{Owner: own, Name: "ns_every_lb", Protocol: topology.ProtocolTCP,
			VIPs:    []topology.LBVIP{{VIP: ap("10.96.0.10:80"), Backends: []netip.AddrPort{ap("10.9.0.5:8080")}}},
			Options: topology.NewOptions("reject", "true"), SelectionFields: []string{"ip_src"},
			Groups: []string{"ns_every_lbg"}, Switches: []string{"ns_every_sw"}, Routers: []string{"ns_every_rt"},
			ExternalIDs: topology.NewOptions("k8s.ovn.org/kind", "Service")},
		// A group's owner is its referrers' without the node (it has no
		// external_ids of its own).
		topology.LoadBalancerGroup{Owner: topology.Owner{Network: own.Network, Topology: own.Topology, Role: own.Role}, Name: "ns_every_lbg"},
		topology.Switch{Owner: own, Name: "ns_every_sw", OtherConfig: topology.NewOptions("subnet", "10.9.0.0/24"),
			LoadBalancerGroups: []string{"ns_every_lbg"}},
		topology.Router{Owner: own, Name: "ns_every_rt", Options: topology.NewOptions("always_learn_from_arp_request", "false")},
		topology.SwitchPort{Owner: own, Name: "stor-ns_every", Switch: "ns_every_sw", Type: topology.PortRouter,
			Addresses: []string{"router"}, Options: topology.NewOptions(topology.OptRouterPort, "rtos-ns_every")},
		topology.SwitchPort{Owner: own, Name: "ns_every_pod", Switch: "ns_every_sw",
			Addresses: []string{"0a:58:0a:09:00:05 10.9.0.5"}, PortSecurity: []string{"0a:58:0a:09:00:05 10.9.0.5"},
			ExternalIDs: topology.NewOptions("pod", "true")},
		topology.SwitchPort{Owner: own, Name: "ns_every_localnet", Switch: "ns_every_sw", Type: topology.PortLocalnet,
			Addresses: []string{"unknown"}, Options: topology.NewOptions(topology.OptNetworkName, "physnet"), TagRequest: 100},
		topology.RouterPort{Owner: own, Name: "rtos-ns_every", Router: "ns_every_rt", MAC: "0a:58:0a:09:00:01",
			Networks: []netip.Prefix{pfx("10.9.0.1/24")}},
		topology.RouterPort{Owner: own, Name: "rtoe-ns_every", Router: "ns_every_rt", MAC: "0a:58:ac:12:00:09",
			Networks:       []netip.Prefix{pfx("172.18.0.9/16")},
			GatewayChassis: []topology.GatewayChassis{{Name: "rtoe-ns_every-chassis1", Chassis: "chassis1", Priority: 1}}},
		topology.PortGroup{Owner: own, Name: "ns_every_pg", Ports: []string{"ns_every_pod"}},
		topology.StaticRoute{Owner: own, Router: "ns_every_rt", Policy: topology.RouteDstIP, Prefix: pfx("10.10.0.0/16"),
			Nexthop: addr("172.18.0.1"), OutputPort: "rtoe-ns_every"},
		topology.StaticRoute{Owner: own, Router: "ns_every_rt", RouteTable: "rtb", Policy: topology.RouteSrcIP, Prefix: pfx("10.9.0.0/24"),
			Nexthop: addr("10.9.0.2"), Options: topology.NewOptions("ecmp_symmetric_reply", "true")},
		topology.Policy{Owner: own, Router: "ns_every_rt", Priority: 1004, Match: "ip4.src == 10.9.0.5 && ip4.dst == 10.10.0.0/16",
			Action: topology.PolicyReroute, Nexthops: []netip.Addr{addr("10.9.0.2")}, Options: topology.NewOptions(topology.OptPktMark, "1008")},
		topology.NAT{Owner: own, Router: "ns_every_rt", Type: topology.NATSNAT, LogicalIP: pfx("10.9.0.0/24"),
			ExternalIP: addr("172.18.0.9"), GatewayPort: "rtoe-ns_every", Match: "ip4.dst != 10.10.0.0/16"},
		topology.ACL{Owner: own, PortGroup: "ns_every_pg", Name: "ns_every_deny", Tier: 2, Direction: topology.ACLToLport, Priority: 1000,
			Match: "outport == @ns_every_pg && ip4.src == $ns_every_as", Action: topology.ACLDrop},
		topology.ACL{Owner: own, Switch: "ns_every_sw", Direction: topology.ACLFromLport, Priority: 1001,
			Match: "ip4", Action: topology.ACLAllowRelated, Options: topology.NewOptions("apply-after-lb", "true")},
		// A QoS row with both integer maps: two keys of action, the
		// bandwidth's rate and burst.
		topology.QoS{Owner: own, Switch: "ns_every_sw", Direction: topology.ACLToLport, Priority: 1000,
			Match: "ip4.src == $ns_every_as", Action: topology.NewIntOptions(topology.QoSDSCP, 46).With(topology.QoSMark, 42),
			Bandwidth: topology.NewIntOptions(topology.QoSRate, 10000).With(topology.QoSBurst, 1000)},
	}
	for _, more := range moreKinds {
		objs = append(objs, more(own)...)
	}
	var b topology.Builder
	b.Add(objs...)
	s, err := b.State()
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range topology.Kinds() {
		if len(s.ObjectsOf(k)) == 0 {
			t.Fatalf("no %s in the every-kind state: add one to everyKind (or, with a new kind, to moreKinds)", k)
		}
	}
	return s
}

// TestRealEveryKind syncs a row of every kind onto a real NB, observes it
// back equal, and syncs again with zero changes, then removes it all:
// through the ovnnb adapter, through the ovn-nbctl script run by the real
// ovn-nbctl, and through the adapter with its monitor.
func TestRealEveryKind(t *testing.T) {
	for _, path := range []string{"ovnnb", "nbctl", "ovnnb-monitor"} {
		t.Run(path, func(t *testing.T) {
			ctx := context.Background()
			env := ovntest.Start(t)
			c, err := ovnnb.Dial(ctx, ovnnb.Config{Endpoints: []string{env.NBUnix}, Monitor: path == "ovnnb-monitor"})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			want := everyKind(t)
			sync := func(desired topology.State) topology.Changes {
				t.Helper()
				if path != "nbctl" {
					changes, _, err := c.Sync(ctx, desired)
					if err != nil {
						t.Fatal(err)
					}
					return changes
				}
				observed, err := c.Observe(ctx, desired.Networks()...)
				if err != nil {
					t.Fatal(err)
				}
				changes := topology.Diff(observed, desired)
				if len(changes) == 0 {
					return nil
				}
				script, err := nbctl.Script(changes, nbctl.Config{})
				if err != nil {
					t.Fatal(err)
				}
				if out, err := env.Shell(ctx, script); err != nil {
					t.Fatalf("script failed: %v\n%s\n%s", err, out, script)
				}
				return changes
			}
			if cr, up, del := sync(want).Count(); cr != want.Len() || up != 0 || del != 0 {
				t.Fatalf("first sync: %d creates, %d updates, %d deletes; want %d creates", cr, up, del, want.Len())
			}
			got, err := c.Observe(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if !got.Equal(want) {
				t.Fatalf("observed differs from the synced state:\n%s", topology.Diff(got, want))
			}
			if again := sync(want); len(again) != 0 {
				t.Fatalf("second sync changed %d rows:\n%s", len(again), again)
			}
			if _, _, del := sync(topology.Removal(want.Networks()...)).Count(); del != want.Len() {
				t.Fatalf("removal: %d deletes, want %d", del, want.Len())
			}
			if got, err := c.Observe(ctx); err != nil || got.Len() != 0 {
				t.Fatalf("after the removal: %v, %d rows observed", err, got.Len())
			}
			left, err := env.Rows(ctx, tablesOf(want)...)
			if err != nil {
				t.Fatal(err)
			}
			for table, rows := range left {
				if len(rows) > 0 {
					t.Errorf("after the removal: %d rows left in %s", len(rows), table)
				}
			}
		})
	}
}

// tablesOf lists the tables the objects of s are in, and Gateway_Chassis.
func tablesOf(s topology.State) []string {
	seen := map[string]bool{"Gateway_Chassis": true}
	out := []string{"Gateway_Chassis"}
	for o := range s.Objects() {
		if t := o.Kind().Table(); !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}
