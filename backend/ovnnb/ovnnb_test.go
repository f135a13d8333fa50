package ovnnb_test

import (
	"context"
	"errors"
	"net/netip"
	"strings"
	"testing"

	"github.com/udnkit/udnkit/backend/ovnnb"
	"github.com/udnkit/udnkit/netconf"
	"github.com/udnkit/udnkit/topology"
)

func embedded(t testing.TB, cfg ovnnb.Config) *ovnnb.Client {
	t.Helper()
	e, err := ovnnb.StartEmbedded()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.Close() })
	cfg.Endpoints = []string{e.Endpoint()}
	c, err := ovnnb.Dial(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

var (
	pfx  = netip.MustParsePrefix
	addr = netip.MustParseAddr
)

// handState is a small Layer3-like network built by hand from the model
// types: every kind the adapter maps appears at least once.
func handState(t testing.TB, network string, nodes ...string) topology.State {
	t.Helper()
	p := netconf.NetworkPrefix(network)
	own := topology.Owner{Network: network, Topology: netconf.TopologyLayer3, Role: netconf.RolePrimary}
	var b topology.Builder
	cr := p + "ovn_cluster_router"
	b.Add(
		topology.Router{Owner: own, Name: cr, Options: topology.NewOptions("mcast_relay", "false"), LoadBalancerGroups: []string{p + "clusterLBGroup"}},
		topology.LoadBalancer{Owner: own, Name: p + "svc", Protocol: "tcp", VIPs: []topology.LBVIP{{
			VIP: netip.MustParseAddrPort("10.96.0.10:53"), Backends: []netip.AddrPort{netip.MustParseAddrPort("10.128.1.5:53")}}},
			Groups: []string{p + "clusterLBGroup"}, Routers: []string{cr}},
		topology.LoadBalancerGroup{Owner: own, Name: p + "clusterLBGroup"},
		topology.AddressSet{Owner: own, Name: p + "subnets", Addresses: []netip.Prefix{pfx("10.128.0.0/16"), pfx("10.96.0.10/32")}},
		topology.PortGroup{Owner: own, Name: p + "pg"},
		topology.ACL{Owner: own, PortGroup: p + "pg", Tier: 0, Direction: topology.ACLToLport, Priority: 1000,
			Match: "ip4.src == $" + p + "subnets", Action: topology.ACLPass, Name: "pass-all"},
	)
	var ports []string
	for i, n := range nodes {
		on := own
		on.Node = n
		ls := p + n
		sub := netip.PrefixFrom(netip.AddrFrom4([4]byte{10, 128, byte(i + 1), 0}), 24)
		gw := sub.Addr().Next()
		mac := "0a:58:0a:80:" + string("0123456789"[i+1]) + "0:01"
		b.Add(
			topology.Switch{Owner: on, Name: ls, OtherConfig: topology.NewOptions("subnet", sub.String()), LoadBalancerGroups: []string{p + "clusterLBGroup"}},
			topology.RouterPort{Owner: on, Name: "rtos-" + ls, Router: cr, MAC: mac, Networks: []netip.Prefix{netip.PrefixFrom(gw, 24)},
				GatewayChassis: []topology.GatewayChassis{{Name: "rtos-" + ls + "-" + n, Chassis: n, Priority: 1}}},
			topology.SwitchPort{Owner: on, Name: "stor-" + ls, Switch: ls, Type: topology.PortRouter, Addresses: []string{"router"},
				Options: topology.NewOptions(topology.OptRouterPort, "rtos-"+ls)},
			topology.SwitchPort{Owner: on, Name: "k8s-" + ls, Switch: ls, Addresses: []string{"0a:58:0a:80:01:02 " + gw.Next().String()}},
			topology.StaticRoute{Owner: on, Router: cr, Prefix: sub, Nexthop: gw.Next(), Policy: topology.RouteSrcIP},
			topology.Policy{Owner: on, Router: cr, Priority: 1004, Match: "inport == \"rtos-" + ls + "\" && ip4.dst == 172.18.0.2 /* " + n + " */",
				Action: topology.PolicyReroute, Nexthops: []netip.Addr{gw.Next()}},
			topology.NAT{Owner: on, Router: cr, Type: topology.NATSNAT, LogicalIP: sub, ExternalIP: addr("100.65.0.2"), GatewayPort: "rtos-" + ls},
			topology.ACL{Owner: on, Switch: ls, Direction: topology.ACLFromLport, Priority: 1001, Match: "ip4", Action: topology.ACLAllowRelated},
		)
		ports = append(ports, "k8s-"+ls)
	}
	b.Add(topology.PortGroup{Owner: own, Name: p + "mgmt", Ports: ports})
	s, err := b.State()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestSyncRoundTrip(t *testing.T) {
	for _, batch := range []int{0, 3} {
		t.Run("batch="+string(rune('0'+batch)), func(t *testing.T) {
			ctx := context.Background()
			c := embedded(t, ovnnb.Config{MaxOpsPerTransaction: batch})
			want := handState(t, "ns1_blue", "node1", "node2")
			changes, res, err := c.Sync(ctx, want)
			if err != nil {
				t.Fatal(err)
			}
			if cr, _, _ := changes.Count(); cr != want.Len() || res.Rows < want.Len() {
				t.Fatalf("first sync: %d creates, %+v; want %d objects", cr, res, want.Len())
			}
			if batch > 0 && res.Transactions < 2 {
				t.Fatalf("batch %d: %d transactions", batch, res.Transactions)
			}
			got, err := c.Observe(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if !got.Equal(want) {
				t.Fatalf("observed state differs\n got: %s\nwant: %s\ndiff: %s", got, want, topology.Diff(got, want))
			}
			changes, res, err = c.Sync(ctx, want)
			if err != nil || len(changes) != 0 || res.Operations != 0 {
				t.Fatalf("second sync: %v, %d changes, %+v", err, len(changes), res)
			}
			// Remove a node: exactly its objects go.
			smaller := handState(t, "ns1_blue", "node1")
			changes, _, err = c.Sync(ctx, smaller)
			if err != nil {
				t.Fatal(err)
			}
			for _, ch := range changes {
				if ch.Op == topology.OpDelete && ch.Object.OwnedBy().Node != "node2" {
					t.Errorf("removing node2 deleted %v", ch)
				}
			}
			got, err = c.Observe(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if !got.Equal(smaller) {
				t.Fatalf("after node removal:\n got: %s\nwant: %s", got, smaller)
			}
			// Remove the network.
			if _, _, err := c.Sync(ctx, topology.Removal("ns1_blue")); err != nil {
				t.Fatal(err)
			}
			got, err = c.Observe(ctx)
			if err != nil || got.Len() != 0 {
				t.Fatalf("after network removal: %v\n%s", err, got)
			}
		})
	}
}

func TestApplyInvalid(t *testing.T) {
	ctx := context.Background()
	c := embedded(t, ovnnb.Config{})
	own := topology.Owner{Network: "ns_x", Topology: netconf.TopologyLayer3, Role: netconf.RolePrimary}
	sw := topology.Switch{Owner: own, Name: "ns_x_sw"}
	orphan := topology.SwitchPort{Owner: own, Name: "p1", Switch: "ns_x_missing"}
	tests := []struct {
		name    string
		changes topology.Changes
		want    string
	}{
		{"missing parent", topology.Changes{
			{Op: topology.OpCreate, Kind: topology.KindSwitch, Key: sw.Name, Object: sw},
			{Op: topology.OpCreate, Kind: topology.KindSwitchPort, Key: "p1", Object: orphan},
		}, `create switch_port "p1"`},
		{"delete unknown", topology.Changes{{Op: topology.OpDelete, Kind: topology.KindSwitch, Key: "nope", Object: topology.Switch{Owner: own, Name: "nope"}}}, `delete switch "nope"`},
		{"key mismatch", topology.Changes{{Op: topology.OpCreate, Kind: topology.KindSwitch, Key: "a", Object: sw}}, `create switch "a"`},
		{"no owner", topology.Changes{{Op: topology.OpCreate, Kind: topology.KindSwitch, Key: "b", Object: topology.Switch{Name: "b"}}}, "owner network is empty"},
		{"no object", topology.Changes{{Op: topology.OpCreate, Kind: topology.KindSwitch, Key: "c"}}, "no object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := c.Apply(ctx, tt.changes)
			var ce *ovnnb.ChangeError
			if !errors.Is(err, ovnnb.ErrInvalidChange) || !errors.As(err, &ce) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want ErrInvalidChange naming %s", err, tt.want)
			}
			if res.Operations != 0 {
				t.Fatalf("wrote %d operations", res.Operations)
			}
			got, err := c.Observe(ctx)
			if err != nil || got.Len() != 0 {
				t.Fatalf("something was written: %v %s", err, got)
			}
		})
	}
}

func TestFastRowsMatchMapper(t *testing.T) {
	c := embedded(t, ovnnb.Config{})
	if err := ovnnb.CompareRows(c, handState(t, "ns1_blue", "node1", "node2")); err != nil {
		t.Fatal(err)
	}
}

// Updates that rewrite rows referenced from their parents: gateway
// chassis of a router port, an ACL moved from a switch to a port group, a
// port group's members.
func TestSyncUpdates(t *testing.T) {
	ctx := context.Background()
	c := embedded(t, ovnnb.Config{})
	base := handState(t, "ns1_blue", "node1", "node2")
	if _, _, err := c.Sync(ctx, base); err != nil {
		t.Fatal(err)
	}
	var b topology.Builder
	for o := range base.Objects() {
		switch x := o.(type) {
		case topology.RouterPort:
			if len(x.GatewayChassis) > 0 {
				x.GatewayChassis = append(x.GatewayChassis, topology.GatewayChassis{Name: x.Name + "-backup", Chassis: "backup", Priority: 2})
				o = x
			}
		case topology.ACL:
			if x.Switch == "ns1_blue_node1" {
				x.Switch, x.PortGroup = "", "ns1_blue_pg"
				o = x
			}
		case topology.PortGroup:
			if x.Name == "ns1_blue_mgmt" {
				x.Ports = x.Ports[:1]
				o = x
			}
		}
		b.Add(o)
	}
	want, err := b.State()
	if err != nil {
		t.Fatal(err)
	}
	changes, _, err := c.Sync(ctx, want)
	if err != nil {
		t.Fatal(err)
	}
	if len(changes) == 0 {
		t.Fatal("no changes")
	}
	got, err := c.Observe(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !got.Equal(want) {
		t.Fatalf("after updates:\n%s", topology.Diff(got, want))
	}
	if again, _, err := c.Sync(ctx, want); err != nil || len(again) != 0 {
		t.Fatalf("second sync: %v %v", err, again)
	}
}
