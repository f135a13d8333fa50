package ovnnb_test

import (
	"context"
	"net/netip"
	"testing"

	"github.com/udnkit/udnkit/backend/ovnnb"
	"github.com/udnkit/udnkit/internal/ovntest"
	"github.com/udnkit/udnkit/netconf"
	"github.com/udnkit/udnkit/topology"
)

// TestMonitorLoadBalancerColumns: a monitoring client reads back a load
// balancer's selection_fields and its attachments to switches and routers
// (Logical_Switch/Logical_Router load_balancer) written by another client.
// The monitored columns lacked them before they were generated with the
// kinds; the embedded server does not narrow a monitor to its columns, so
// only the real one shows it.
func TestMonitorLoadBalancerColumns(t *testing.T) {
	t.Run("embedded", func(t *testing.T) {
		e, err := ovnnb.StartEmbedded()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = e.Close() })
		monitorLoadBalancer(t, e.Endpoint())
	})
	t.Run("real", func(t *testing.T) { monitorLoadBalancer(t, ovntest.Start(t).NBUnix) })
}

func monitorLoadBalancer(t *testing.T, ep string) {
	ctx := context.Background()
	dial := func(mon bool) *ovnnb.Client {
		c, err := ovnnb.Dial(ctx, ovnnb.Config{Endpoints: []string{ep}, Monitor: mon})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(c.Close)
		return c
	}
	writer := dial(false)
	const network = "ns1_blue"
	topo, err := ovntest.Plan(ovntest.Layer3Network(), ovntest.Nodes(1, "zone1"), "zone1")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := writer.Sync(ctx, topo); err != nil {
		t.Fatal(err)
	}
	p := netconf.NetworkPrefix(network)
	own := topology.Owner{Controller: servicesController, Network: network, Topology: netconf.TopologyLayer3, Role: netconf.RolePrimary}
	var b topology.Builder
	b.OwnFor(servicesController, network)
	b.Add(topology.LoadBalancer{Owner: own, Name: p + "Service_ns1/web_TCP_node_router+switch_node1", Protocol: topology.ProtocolTCP,
		VIPs:            []topology.LBVIP{{VIP: netip.MustParseAddrPort("172.18.0.2:30080"), Backends: []netip.AddrPort{netip.MustParseAddrPort("10.128.1.10:8080")}}},
		SelectionFields: []string{"ip_src"},
		Switches:        []string{p + "node1"}, Routers: []string{"GR_" + p + "node1"}})
	svc, err := b.State()
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := writer.Sync(ctx, svc); err != nil {
		t.Fatal(err)
	}
	for _, mon := range []bool{false, true} {
		c := dial(mon)
		got, err := c.Observe(ctx, network)
		if err != nil {
			t.Fatal(err)
		}
		if d := topology.Diff(ofController(t, got, servicesController, network), svc); len(d) != 0 {
			t.Errorf("Monitor=%v: Observe differs from what was written:\n%s", mon, d)
		}
		if ch, _, err := c.Sync(ctx, svc); err != nil || len(ch) != 0 {
			t.Errorf("Monitor=%v: Sync of what is there: %v\n%s", mon, err, ch)
		}
	}
}
