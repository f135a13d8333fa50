package topology

import (
	"fmt"
	"net/netip"
	"syscall"
	"testing"
	"time"

	"github.com/udnkit/udnkit/ipam"
	"github.com/udnkit/udnkit/netconf"
)

// benchCluster builds n dual-stack nodes (zone "" = interconnect, each node
// its own zone) and the host subnets every Layer3 network shares (UDN
// subnets may overlap between networks).
func benchCluster(n int, zone string) ([]Node, map[string][]netip.Prefix) {
	nodes := make([]Node, n)
	hs := make(map[string][]netip.Prefix, n)
	for i := range nodes {
		nd := randomNode(i, ipam.MinNodeID+i, zone)
		nodes[i] = nd
		hs[nd.Name] = []netip.Prefix{
			netip.PrefixFrom(netip.AddrFrom4([4]byte{10, 128 + byte(i>>8), byte(i), 0}), 24),
			netip.PrefixFrom(netip.AddrFrom16([16]byte{0xfd, 0, 0, 0x10, 1, 0x28, byte(i >> 8), byte(i)}), 64)}
	}
	return nodes, hs
}

// benchInputs returns count networks (Layer3 if l3, else Layer2) planned
// for zone.
func benchInputs(count int, l3 bool, nodes []Node, hs map[string][]netip.Prefix, zone string) []Input {
	ins := make([]Input, count)
	keys := ipam.NewTunnelKeyAllocator()
	for i := range ins {
		n := &netconf.Network{Name: fmt.Sprintf("ns%d_net", i), ID: 1 + i, Role: netconf.RolePrimary,
			JoinSubnets: ipam.DefaultJoinSubnets(), TransitSubnets: ipam.DefaultTransitSubnets()}
		in := Input{Network: n, Nodes: nodes, Zone: zone}
		if l3 {
			n.Topology = netconf.TopologyLayer3
			n.Subnets = []netconf.Subnet{{CIDR: pfx("10.128.0.0/14"), HostPrefix: 24}, {CIDR: pfx("fd00:10:128::/48"), HostPrefix: 64}}
			in.HostSubnets = hs
		} else {
			n.Topology = netconf.TopologyLayer2
			n.Subnets = []netconf.Subnet{{CIDR: pfx("10.10.0.0/16")}, {CIDR: pfx("fd00:10:10::/64")}}
			k, err := keys.Allocate(n.Name, 2)
			if err != nil {
				panic(err)
			}
			in.TunnelKeys = k
		}
		in.Cluster.ServiceIPs = []netip.Addr{addr("10.96.0.1"), addr("10.96.0.10")}
		ins[i] = in
	}
	return ins
}

func planAll(b *testing.B, ins []Input) int {
	rows := 0
	for _, in := range ins {
		s, err := Plan(in)
		if err != nil {
			b.Fatal(err)
		}
		rows += s.Len()
	}
	return rows
}

func benchPlan(b *testing.B, nodes, networks int, l3, singleZone bool) {
	zone, nodeZone := "node-0", ""
	if singleZone {
		zone, nodeZone = "global", "global"
	}
	ns, hs := benchCluster(nodes, nodeZone)
	ins := benchInputs(networks, l3, ns, hs, zone)
	b.ReportAllocs()
	b.ResetTimer()
	rows := 0
	cpu0 := cpuTime()
	for b.Loop() {
		rows += planAll(b, ins)
	}
	cpu := cpuTime() - cpu0
	b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "rows/s")
	b.ReportMetric(float64(rows)/cpu.Seconds(), "rows/cpu-s")
	b.ReportMetric(float64(rows)/float64(b.N), "rows/op")
}

// cpuTime returns the process's user+system CPU time: on a shared machine
// rows per CPU-second is steadier than rows per wall-second. It includes the
// garbage collector's work on other threads.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkPlanLayer3 plans 100 primary Layer3 networks on 1000 nodes: for
// one interconnect zone (a node's own view), and for a single zone holding
// every node.
func BenchmarkPlanLayer3(b *testing.B) {
	b.Run("1000nodes_100nets_interconnect", func(b *testing.B) { benchPlan(b, 1000, 100, true, false) })
	b.Run("1000nodes_100nets_single_zone", func(b *testing.B) { benchPlan(b, 1000, 100, true, true) })
}

// BenchmarkPlanLayer2 plans 500 primary Layer2 networks (transit router) on
// 500 nodes for one interconnect zone. (There is no single-zone variant: a
// primary Layer2 zone holds one node.)
func BenchmarkPlanLayer2(b *testing.B) {
	b.Run("500nodes_500nets_interconnect", func(b *testing.B) { benchPlan(b, 500, 500, false, false) })
}

// BenchmarkAddNode adds a node to a 100-node cluster with 500 primary
// networks (250 Layer3, 250 Layer2) seen from one interconnect zone, and
// computes the changes: incrementally (PlanNodes + Overlay + DiffScope),
// and by re-planning every network in full and diffing the whole state.
func BenchmarkAddNode(b *testing.B) {
	const nodes, nets = 100, 500
	ns, hs := benchCluster(nodes+1, "")
	ins := append(benchInputs(nets/2, true, ns[:nodes], hs, "node-0"), benchInputs(nets/2, false, ns[:nodes], hs, "node-0")...)
	for i := nets / 2; i < nets; i++ { // distinct names and IDs for the Layer2 half
		n := ins[i].Network
		n.Name, n.ID = fmt.Sprintf("ns%d_l2", i), 1+i
	}
	var observed State
	var parts []State
	for _, in := range ins {
		s, err := Plan(in)
		if err != nil {
			b.Fatal(err)
		}
		parts = append(parts, s)
	}
	observed, err := State{}.Merge(parts...)
	if err != nil {
		b.Fatal(err)
	}
	added := make([]Input, len(ins))
	names := make([]string, len(ins))
	for i, in := range ins {
		in.Nodes = ns
		added[i], names[i] = in, in.Network.Name
	}
	newNode := ns[nodes].Name
	scope := Scope{Networks: names, Nodes: []string{"", newNode}}
	b.Logf("observed: %d networks, %d nodes, %d rows", len(names), nodes, observed.Len())
	planNew := func(b *testing.B) []State {
		inc := make([]State, 0, len(added))
		for _, in := range added {
			s, err := PlanNodes(in, newNode)
			if err != nil {
				b.Fatal(err)
			}
			inc = append(inc, s)
		}
		return inc
	}
	// The changes only: plan what the node adds and diff it against the
	// observed partitions it concerns.
	b.Run("incremental", func(b *testing.B) {
		b.ReportAllocs()
		var changes int
		cpu0 := cpuTime()
		defer func() { b.ReportMetric(float64((cpuTime()-cpu0).Nanoseconds())/float64(b.N), "cpu-ns/op") }()
		for b.Loop() {
			partial, err := State{}.Merge(planNew(b)...)
			if err != nil {
				b.Fatal(err)
			}
			changes = len(Diff(observed, partial))
		}
		b.ReportMetric(float64(changes), "changes/op")
		b.ReportMetric(float64(observed.Len()), "observed_rows")
	})
	// The same, also building the complete new desired state.
	b.Run("incremental_overlay", func(b *testing.B) {
		b.ReportAllocs()
		var changes int
		for b.Loop() {
			desired := observed.Overlay(planNew(b)...)
			changes = len(DiffScope(observed, desired, scope))
		}
		b.ReportMetric(float64(changes), "changes/op")
	})
	b.Run("full_replan", func(b *testing.B) {
		b.ReportAllocs()
		var changes int
		for b.Loop() {
			var full []State
			for _, in := range added {
				s, err := Plan(in)
				if err != nil {
					b.Fatal(err)
				}
				full = append(full, s)
			}
			desired, err := State{}.Merge(full...)
			if err != nil {
				b.Fatal(err)
			}
			changes = len(Diff(observed, desired))
		}
		b.ReportMetric(float64(changes), "changes/op")
	})
}

// BenchmarkDiff diffs two independently planned (unshared) 100-network
// Layer3 states of 1000 nodes that differ by one node.
func BenchmarkDiff(b *testing.B) {
	ns, hs := benchCluster(1001, "")
	plan := func(nodes []Node) State {
		var parts []State
		for _, in := range benchInputs(100, true, nodes, hs, "node-0") {
			s, err := Plan(in)
			if err != nil {
				b.Fatal(err)
			}
			parts = append(parts, s)
		}
		s, err := State{}.Merge(parts...)
		if err != nil {
			b.Fatal(err)
		}
		return s
	}
	a, c := plan(ns[:1000]), plan(ns)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if len(Diff(a, c)) == 0 {
			b.Fatal("no changes")
		}
	}
	b.ReportMetric(float64(a.Len()+c.Len())*float64(b.N)/b.Elapsed().Seconds(), "rows_compared/s")
}
