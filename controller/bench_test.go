package controller

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/go-logr/stdr"
	nadv1 "github.com/k8snetworkplumbingwg/network-attachment-definition-client/pkg/apis/k8s.cni.cncf.io/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/udnkit/udnkit/netconf"
)

// benchUDNs is how many UDNs BenchmarkUDNs creates;
// UDNKIT_BENCH_UDNS overrides it.
func benchUDNs() int {
	if n, err := strconv.Atoi(os.Getenv("UDNKIT_BENCH_UDNS")); err == nil && n > 0 {
		return n
	}
	return 1000
}

// benchQuiet is the steady-state window; UDNKIT_BENCH_QUIET (a duration)
// overrides it.
func benchQuiet() time.Duration {
	if d, err := time.ParseDuration(os.Getenv("UDNKIT_BENCH_QUIET")); err == nil && d > 0 {
		return d
	}
	return time.Minute
}

// selfCPU is the processor time this process (test client, controller and
// embedded NB) has used.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkUDNs creates 1,000 primary UDNs (Layer3 and Layer2 in turn,
// each in a namespace of its own) through a real API server on two nodes,
// and measures until every NAD is written, every UDN's NetworkCreated and
// NetworkReady are True and the embedded NB (behind a counting relay)
// holds the zone's plan: wall time, processor time of this process
// (controller, NB, test client) and of kube-apiserver + etcd, the
// controller's passes and the NB's transactions. Then a quiet window (a
// minute) with nothing changed: its NB transactions and passes.
//
//	go test ./controller -run '^$' -bench BenchmarkUDNs -benchtime 1x
func BenchmarkUDNs(b *testing.B) {
	n, quiet := benchUDNs(), benchQuiet()
	for range b.N {
		b.StopTimer()
		e := startEnv(b)
		nb, count := countedNB(b, os.Getenv("UDNKIT_BENCH_MONITOR") != "")
		create(b, e, node("node1", 1), node("node2", 2))
		ctl := run(b, e, Config{Zone: "node1", NB: nb, Logger: benchLogger()})
		eventually(b, "node annotations", func() error {
			for name, v := range nodeAnnotations(b, e) {
				if v == " " {
					return fmt.Errorf("Node %s has no node-id yet", name)
				}
			}
			return nil
		})
		ctx := context.Background()
		cpu0, api0, t0 := selfCPU(), e.server.CPU(), time.Now()
		w0, r0, _ := count.snapshot()
		p0 := ctl.c.r.passes.Load()
		b.StartTimer()

		var wg sync.WaitGroup
		errs := make(chan error, 8)
		for w := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := w; i < n; i += 8 {
					ns := fmt.Sprintf("t%04d", i)
					spec := netconf.UserDefinedNetworkSpec{Topology: netconf.TopologyLayer3, Role: netconf.RolePrimary, Subnets: []string{"10.200.0.0/16/24"}}
					if i%2 == 1 {
						spec = netconf.UserDefinedNetworkSpec{Topology: netconf.TopologyLayer2, Role: netconf.RolePrimary, Subnets: []string{"10.201.0.0/16"}}
					}
					for _, o := range []client.Object{namespace(ns, map[string]string{netconf.LabelPrimaryUDN: ""}), udn(ns, "net", spec)} {
						if err := e.c.Create(ctx, o); err != nil {
							errs <- err
							return
						}
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		if err := errors.Join(<-errs); err != nil {
			b.Fatal(err)
		}
		created := time.Since(t0)
		waitAll(b, e, n)
		nbPlan(b, ctl, nb, "node1")
		b.StopTimer()
		elapsed := time.Since(t0)
		w1, r1, _ := count.snapshot()
		b.ReportMetric(elapsed.Seconds(), "s/converged")
		b.ReportMetric(created.Seconds(), "s/created")
		b.ReportMetric((selfCPU() - cpu0).Seconds(), "cpu-s/controller+nb")
		b.ReportMetric((e.server.CPU() - api0).Seconds(), "cpu-s/apiserver+etcd")
		b.ReportMetric(float64(ctl.c.r.passes.Load()-p0), "passes")
		b.ReportMetric(float64(ctl.c.r.syncs.Load()), "zone-syncs")
		b.ReportMetric(float64(w1-w0), "nb-writes")
		b.ReportMetric(float64(r1-r0), "nb-reads")

		// The quiet window: nothing changes.
		p1 := ctl.c.r.passes.Load()
		cpu1 := selfCPU()
		time.Sleep(quiet)
		w2, r2, other := count.snapshot()
		b.ReportMetric(float64(w2-w1), "quiet-nb-writes")
		b.ReportMetric(float64(r2-r1), "quiet-nb-reads")
		b.ReportMetric(float64(ctl.c.r.passes.Load()-p1), "quiet-passes")
		b.ReportMetric((selfCPU() - cpu1).Seconds(), "quiet-cpu-s")
		b.Logf("%d UDNs: created in %v, converged in %v; quiet %v: other NB requests over the run %v", n, created, elapsed, quiet, other)
		ctl.stop()
		e.server.Stop()
	}
}

// waitAll waits until n NADs exist and every UDN is NetworkCreated and
// NetworkReady.
func waitAll(b *testing.B, e *env, n int) {
	b.Helper()
	ctx := context.Background()
	deadline := time.Now().Add(30 * time.Minute)
	for {
		var nads nadv1.NetworkAttachmentDefinitionList
		var udns netconf.UserDefinedNetworkList
		err := e.c.List(ctx, &nads)
		if err == nil {
			err = e.c.List(ctx, &udns)
		}
		if err == nil {
			ready := 0
			for i := range udns.Items {
				u := &udns.Items[i]
				if condition(u.Status.Conditions, netconf.ConditionNetworkCreated, metav1.ConditionTrue) == nil &&
					condition(u.Status.Conditions, netconf.ConditionNetworkReady, metav1.ConditionTrue) == nil {
					ready++
				}
			}
			if len(nads.Items) == n && ready == n {
				return
			}
			err = fmt.Errorf("%d NADs, %d of %d UDNs ready", len(nads.Items), ready, n)
		}
		if time.Now().After(deadline) {
			b.Fatal(err)
		}
		time.Sleep(time.Second)
	}
}

// benchLogger logs the controller's messages when UDNKIT_BENCH_LOG is set.
func benchLogger() logr.Logger {
	if os.Getenv("UDNKIT_BENCH_LOG") == "" {
		return logr.Discard()
	}
	return stdr.New(nil)
}
