package udnkit

import (
	"fmt"
	"net/netip"
	"testing"

	"github.com/udnkit/udnkit/topology"
)

// benchCluster is networks Layer3 primaries (a /27 per node) on nodes
// nodes, each node its own zone, with zone node1 planned.
func benchCluster(tb testing.TB, networks, nodes int) *Cluster {
	tb.Helper()
	var nds []topology.Node
	for i := range nodes {
		nds = append(nds, benchNode(i+1))
	}
	c, err := New(Config{Nodes: nds})
	if err != nil {
		tb.Fatal(err)
	}
	for i := range networks {
		u := udnDoc(fmt.Sprintf("ns%d", i), "net", "Layer3", "Primary", fmt.Sprintf("10.%d.%d.0/20/27", 100+i/16, (i%16)*16))
		if _, err := c.AddUDN(u); err != nil {
			tb.Fatal(err)
		}
	}
	if _, err := c.Plan("node1"); err != nil {
		tb.Fatal(err)
	}
	return c
}

func benchNode(i int) topology.Node {
	nd := testNode(fmt.Sprintf("node%d", i), 0)
	nd.Addresses[0] = netip.PrefixFrom(netip.AddrFrom4([4]byte{172, 18, byte(i >> 8), byte(i)}), 16)
	return nd
}

// BenchmarkClusterNodeJoin: a node joins a cluster of 500 primary
// networks × 100 nodes; what zone node1's controller computes for the
// event (SetNode, then PlanEvent). Each iteration a node joins, the next
// one it leaves again.
func BenchmarkClusterNodeJoin(b *testing.B) {
	for _, size := range []struct{ networks, nodes int }{{100, 100}, {500, 100}} {
		b.Run(fmt.Sprintf("%dx%d", size.networks, size.nodes), func(b *testing.B) {
			c := benchCluster(b, size.networks, size.nodes)
			joiner := benchNode(size.nodes + 1)
			b.ReportAllocs()
			b.ResetTimer()
			changes := 0
			for i := 0; b.Loop(); i++ {
				var ev Event
				var err error
				if i%2 == 0 {
					ev, err = c.SetNode(joiner)
				} else {
					ev = c.RemoveNode(joiner.Name)
				}
				if err != nil {
					b.Fatal(err)
				}
				ch, err := c.PlanEvent("node1", ev)
				if err != nil {
					b.Fatal(err)
				}
				changes = len(ch)
			}
			b.ReportMetric(float64(changes), "changes/event")
		})
	}
}

// BenchmarkClusterPlan is the full replan of zone node1 the events avoid.
func BenchmarkClusterPlan(b *testing.B) {
	c := benchCluster(b, 500, 100)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Plan("node1"); err != nil {
			b.Fatal(err)
		}
	}
}
