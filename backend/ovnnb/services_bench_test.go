package ovnnb_test

import (
	"context"
	"fmt"
	"net/netip"
	"testing"
	"time"

	"github.com/udnkit/udnkit/backend/ovnnb"
	"github.com/udnkit/udnkit/internal/ovntest"
	"github.com/udnkit/udnkit/netconf"
	"github.com/udnkit/udnkit/topology"
)

// servicesLBs is n ClusterIP load balancers of a services controller in
// network's cluster group.
func servicesLBs(tb testing.TB, network string, n int) topology.State {
	tb.Helper()
	p := netconf.NetworkPrefix(network)
	own := topology.Owner{Controller: servicesController, Network: network, Topology: netconf.TopologyLayer3, Role: netconf.RolePrimary}
	var b topology.Builder
	b.OwnFor(servicesController, network)
	for i := range n {
		b.Add(topology.LoadBalancer{Owner: own, Name: fmt.Sprintf("%sService_ns1/svc-%d_TCP_cluster", p, i), Protocol: topology.ProtocolTCP,
			VIPs: []topology.LBVIP{{VIP: netip.AddrPortFrom(netip.AddrFrom4([4]byte{10, 96, byte(i >> 8), byte(i)}), 80),
				Backends: []netip.AddrPort{netip.AddrPortFrom(netip.AddrFrom4([4]byte{10, 128, byte(i >> 8), byte(i)}), 8080)}}},
			Groups: []string{p + "clusterLBGroup"}})
	}
	s, err := b.State()
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// BenchmarkRealApplyServices applies 10,000 services' load balancers, each
// attached to the network's cluster group, to a real NB holding the
// network, then removes them; it reports the milliseconds of each.
func BenchmarkRealApplyServices(b *testing.B) {
	env := ovntest.Start(b)
	ctx := context.Background()
	c, err := ovnnb.Dial(ctx, ovnnb.Config{Endpoints: []string{env.NBUnix}})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	topo, err := ovntest.Plan(ovntest.Layer3Network(), ovntest.Nodes(3, "zone1"), "zone1")
	if err != nil {
		b.Fatal(err)
	}
	if _, _, err := c.Sync(ctx, topo); err != nil {
		b.Fatal(err)
	}
	const n = 10000
	svc := servicesLBs(b, "ns1_blue", n)
	var add, del time.Duration
	for b.Loop() {
		t0 := time.Now()
		ch, _, err := c.Sync(ctx, svc)
		if err != nil || len(ch) != n {
			b.Fatal(len(ch), err)
		}
		t1 := time.Now()
		if _, _, err := c.Sync(ctx, topology.RemovalFor(servicesController, "ns1_blue")); err != nil {
			b.Fatal(err)
		}
		add, del = add+t1.Sub(t0), del+time.Since(t1)
	}
	b.ReportMetric(float64(add.Milliseconds())/float64(b.N), "add-ms")
	b.ReportMetric(float64(del.Milliseconds())/float64(b.N), "remove-ms")
}
