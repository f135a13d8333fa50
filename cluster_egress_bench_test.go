package udnkit

import (
	"fmt"
	"net/netip"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/udnkit/udnkit/netconf"
	"github.com/udnkit/udnkit/topology"
	"github.com/udnkit/udnkit/topology/egressip"
	"github.com/udnkit/udnkit/topology/pods"
)

// egressScale is a Cluster of 20 nodes (each its own zone, node2..node5
// egress-assignable) with one primary Layer3 CUDN serving 100 namespaces,
// an EgressIP per namespace selecting its app=web pods, and perNS pods in
// each namespace spread over the nodes (every other one app=web).
func egressScale(tb testing.TB, perNS int) *Cluster {
	tb.Helper()
	var nodes []topology.Node
	for i := range 20 {
		nodes = append(nodes, testNode(fmt.Sprint("node", i+1), i+2))
	}
	c, err := New(Config{Nodes: nodes})
	if err != nil {
		tb.Fatal(err)
	}
	for ns := range 100 {
		if _, err := c.SetNamespace(netconf.Namespace{Name: fmt.Sprintf("ns%03d", ns), Labels: map[string]string{"tier": "t0"}}); err != nil {
			tb.Fatal(err)
		}
	}
	if _, err := c.AddCUDN(cudnDoc("shared", "t0", "Layer3", "10.128.0.0/14/22")); err != nil {
		tb.Fatal(err)
	}
	for i := 2; i <= 5; i++ {
		if _, err := c.SetEgressAssignable(fmt.Sprint("node", i), true); err != nil {
			tb.Fatal(err)
		}
	}
	for ns := range 100 {
		name := fmt.Sprintf("ns%03d", ns)
		if _, err := c.SetEgressIP(egressip.EgressIP{Name: "eip-" + name, IPs: []netip.Addr{netip.AddrFrom4([4]byte{172, 18, 0, byte(10 + ns)})},
			NamespaceSelector: egressip.Selector{Requirements: []egressip.Requirement{{Key: metadataName, Op: egressip.OpIn, Values: []string{name}}}},
			PodSelector:       egressip.Selector{Requirements: []egressip.Requirement{{Key: "app", Op: egressip.OpIn, Values: []string{"web"}}}}}); err != nil {
			tb.Fatal(err)
		}
		for p := range perNS {
			app := []string{"web", "db"}[p%2]
			if _, err := c.SetPod(Pod{Pod: pods.Pod{Namespace: name, Name: fmt.Sprint("pod", p), UID: fmt.Sprint(name, p), Node: fmt.Sprint("node", 1+(ns*perNS+p)%20)},
				Labels: map[string]string{"app": app}}); err != nil {
				tb.Fatal(err)
			}
		}
	}
	return c
}

// BenchmarkClusterEgressPlan: 100 EgressIPs selecting 5,000 of 10,000 pods
// (100 namespaces of one primary CUDN, 20 nodes), zone node1 planned:
// "egress" is the EgressIP and EgressQoS planners' part of Plan (every
// pod's selection, the zone's reroutes, the served set), "zone" the whole
// Plan (topology, 500 pod ports, policies, egress).
func BenchmarkClusterEgressPlan(b *testing.B) {
	c := egressScale(b, 100)
	nodes := c.nodeList(true)
	b.Run("egress", func(b *testing.B) {
		b.ReportAllocs()
		var rows int
		for b.Loop() {
			eip, _, err := c.egressStates("node1", nodes)
			if err != nil {
				b.Fatal(err)
			}
			rows = eip.Len()
		}
		b.ReportMetric(float64(rows), "rows")
	})
	b.Run("zone", func(b *testing.B) {
		b.ReportAllocs()
		var rows int
		for b.Loop() {
			st, err := c.Plan("node1")
			if err != nil {
				b.Fatal(err)
			}
			rows = st.Len()
		}
		b.ReportMetric(float64(rows), "rows")
	})
}

// BenchmarkClusterEgressPodEvent: a pod of zone node1 flips between
// app=web (served: its reroute, its address in the served set) and app=db,
// through SetPod and PlanEvent, with 1,000 and 10,000 pods in the cluster:
// the time and the changes are the pod's, whatever the number of others.
func BenchmarkClusterEgressPodEvent(b *testing.B) {
	for _, perNS := range []int{10, 100} {
		b.Run(fmt.Sprint(100*perNS, "pods"), func(b *testing.B) {
			c := egressScale(b, perNS)
			if _, err := c.Plan("node1"); err != nil {
				b.Fatal(err)
			}
			runtime.GC() // the setup's garbage is not the event's
			b.ReportAllocs()
			changes := 0
			cpu0 := cpuTime()
			for i := 0; b.Loop(); i++ {
				ev, err := c.SetPod(Pod{Pod: pods.Pod{Namespace: "ns000", Name: "pod0", UID: "ns0000", Node: "node1"},
					Labels: map[string]string{"app": []string{"db", "web"}[i%2]}})
				if err != nil {
					b.Fatal(err)
				}
				ch, err := c.PlanEvent("node1", ev)
				if err != nil {
					b.Fatal(err)
				}
				changes = max(changes, len(ch))
			}
			// The process's CPU time (GC included) per event: on a machine
			// shared with other jobs, wall time says more about them.
			b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/float64(b.N), "cpu-µs/op")
			b.ReportMetric(float64(changes), "changes/event")
		})
	}
}

// cpuTime returns the CPU time the process has used (user and system).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestClusterEgressPodEventSmall: the benchmark's event at 1,000 pods
// changes the pod's reroute and the served set, nothing else.
func TestClusterEgressPodEventSmall(t *testing.T) {
	c := egressScale(t, 10)
	if _, err := c.Plan("node1"); err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{"[update address_set delete policy]", "[create policy update address_set]"} { // creates, updates, deletes
		ev, err := c.SetPod(Pod{Pod: pods.Pod{Namespace: "ns000", Name: "pod0", UID: "ns0000", Node: "node1"},
			Labels: map[string]string{"app": []string{"db", "web"}[i]}})
		if err != nil {
			t.Fatal(err)
		}
		ch, err := c.PlanEvent("node1", ev)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, x := range ch {
			got = append(got, x.Op.String()+" "+x.Kind.String())
		}
		if fmt.Sprint(got) != want {
			t.Errorf("event %d: %v, want %s:\n%v", i, got, want, ch)
		}
	}
}
