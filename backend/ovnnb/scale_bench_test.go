package ovnnb

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ovn-kubernetes/libovsdb/ovsdb"

	"github.com/udnkit/udnkit/internal/ovntest"
	"github.com/udnkit/udnkit/topology"
)

// icPlan is networks Layer3 primary networks on nodes nodes, every node in
// its own zone (interconnect), planned for node1's zone: network i has the
// pod subnet 10.0.0.0/8's i-th /20, a /27 per node.
func icPlan(tb testing.TB, nodes, networks int) topology.State {
	tb.Helper()
	ns := ovntest.Nodes(nodes, "")
	var states []topology.State
	for i := 1; i <= networks; i++ {
		n := ovntest.Layer3Network()
		n.Name = fmt.Sprintf("ns%d_net%d", i, i)
		n.ID = i
		base := netip.AddrFrom4([4]byte{10, byte(i >> 4), byte(i&15) << 4, 0})
		n.Subnets[0].CIDR = netip.PrefixFrom(base, 20)
		n.Subnets[0].HostPrefix = 27
		in := ovntest.PlanInput(n, ns, "node1")
		for j, node := range ns {
			a := base.As4()
			off := j * 32
			a[2] += byte(off >> 8)
			a[3] = byte(off)
			in.HostSubnets[node.Name] = []netip.Prefix{netip.PrefixFrom(netip.AddrFrom4(a), 27)}
		}
		s, err := topology.Plan(in)
		if err != nil {
			tb.Fatal(err)
		}
		states = append(states, s)
	}
	return monMerge(tb, states...)
}

// BenchmarkScale measures the read path where a controller meets it: a
// real NB (ovn-northd running) holding node1's zone of an interconnect
// cluster of Layer3 primary networks on 100 nodes, each figure beside its
// floor in the same run:
//   - NoopSync: a monitoring Client's Sync of the State the NB holds
//     (nothing to change);
//   - Observe/monitor: Observe from the monitor's cache;
//   - Observe/select: Observe without the monitor, interleaved (each
//     first in turn) with the raw select of the same tables and columns
//     (one JSON-RPC transact written to the socket, the reply read whole,
//     nothing decoded into Go values);
//   - NodeApply: node101 joins: a monitoring Client's Observe (the cache
//     changed since its last read: observe-ms) then Apply of the node's
//     changes (apply-ms), interleaved with the raw transact of the very
//     operations Apply sends (Client.Operations, marshalled off the
//     clock); each is undone off the clock.
//
// 500x100 is large and 1000x100 (the 331,000-object zone, where
// only NoopSync and Observe/monitor run) larger: run each alone.
func BenchmarkScale(b *testing.B) {
	for _, size := range []struct{ networks, nodes int }{{100, 100}, {500, 100}, {1000, 100}} {
		b.Run(fmt.Sprintf("%dx%d", size.networks, size.nodes), func(b *testing.B) {
			benchScale(b, size.networks, size.nodes)
		})
	}
}

func benchScale(b *testing.B, networks, nodes int) {
	ctx := context.Background()
	env := ovntest.Start(b)
	// northd rate-limits the chassis warnings of this many ports (which
	// Start allows) and says how many it dropped.
	env.AllowNorthd(regexp.MustCompile(`\|WARN\|Dropped \d+ log messages in last \d+ seconds`))
	base, more := icPlan(b, nodes, networks), icPlan(b, nodes+1, networks)
	add, remove := topology.Diff(base, more), topology.Diff(more, base)
	w, _ := scaleDial(b, env.NBUnix, false)
	start := time.Now()
	if _, _, err := w.Sync(ctx, base); err != nil {
		b.Fatal(err)
	}
	b.Logf("%d objects synced from empty in %v; node101: %d changes", base.Len(), time.Since(start).Round(time.Millisecond), len(add))
	mon, sent := scaleDial(b, env.NBUnix, true)
	plain, _ := scaleDial(b, env.NBUnix, false)
	// The first read of a new monitor indexes every row; the
	// sub-benchmarks measure the steady state.
	start, c0 := time.Now(), cpuTime()
	if _, err := mon.Observe(ctx); err != nil {
		b.Fatal(err)
	}
	b.Logf("first monitored Observe: %v, %v CPU", time.Since(start).Round(time.Millisecond), (cpuTime() - c0).Round(time.Millisecond))

	b.Run("NoopSync", func(b *testing.B) {
		b.ReportAllocs()
		defer reportCPU(b)()
		before := sent.n.Load()
		for b.Loop() {
			ch, res, err := mon.Sync(ctx, base)
			if err != nil {
				b.Fatal(err)
			}
			if len(ch) != 0 || res.Transactions != 0 {
				b.Fatalf("no-op Sync: %d changes, %d transactions", len(ch), res.Transactions)
			}
		}
		b.ReportMetric(float64(sent.n.Load()-before)/float64(b.N), "selects/op")
	})
	b.Run("Observe/monitor", func(b *testing.B) {
		b.ReportAllocs()
		defer reportCPU(b)()
		for b.Loop() {
			got, err := mon.Observe(ctx)
			if err != nil {
				b.Fatal(err)
			}
			if got.Len() != base.Len() {
				b.Fatalf("observed %d objects, want %d", got.Len(), base.Len())
			}
		}
		b.ReportMetric(float64(base.Len())*float64(b.N)/b.Elapsed().Seconds(), "objects/s")
	})
	if networks >= 1000 {
		// The select (minutes an iteration) and a node's Apply are
		// measured at 100 and 500 networks.
		return
	}
	b.Run("Observe/select", func(b *testing.B) {
		b.ReportAllocs()
		var obsT, obsCPU, rawT time.Duration
		i := 0
		for b.Loop() {
			// Alternately first, so that neither always meets the
			// server right after the other.
			if i++; i%2 == 0 {
				rawT += rawSelect(b, env.NBUnix)
			}
			t0, c0 := time.Now(), cpuTime()
			got, err := plain.Observe(ctx)
			obsT += time.Since(t0)
			obsCPU += cpuTime() - c0
			if err != nil {
				b.Fatal(err)
			}
			if got.Len() != base.Len() {
				b.Fatalf("observed %d objects, want %d", got.Len(), base.Len())
			}
			if i%2 == 1 {
				rawT += rawSelect(b, env.NBUnix)
			}
		}
		b.ReportMetric(float64(obsT.Milliseconds())/float64(b.N), "observe-ms")
		b.ReportMetric(float64(obsCPU.Milliseconds())/float64(b.N), "observe-cpu-ms")
		b.ReportMetric(float64(rawT.Milliseconds())/float64(b.N), "raw-ms")
		b.ReportMetric(rawT.Seconds()/obsT.Seconds(), "raw/observe")
	})
	b.Run("NodeApply", func(b *testing.B) {
		b.ReportAllocs()
		var observeT, observeCPU, applyT, applyCPU, rawT time.Duration
		ops := 0
		// Each measurement starts with ovn-northd done with the last
		// change (off the clock): else whichever follows an undo more
		// closely shares the CPUs with northd's recomputation of it.
		quiet := func() {
			b.StopTimer()
			// northd's first pass over a large NB takes minutes here.
			wctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
			defer cancel()
			if _, err := env.NBCtl(wctx, "--wait=sb", "sync"); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
		}
		// round is one event and its floor; the first, a warm-up, is
		// not counted.
		round := func(count bool) {
			quiet()
			// A controller's event: Observe (the cache changed since the
			// last read), Diff, Apply.
			t0, c0 := time.Now(), cpuTime()
			if _, err := mon.Observe(ctx); err != nil {
				b.Fatal(err)
			}
			t1, c1 := time.Now(), cpuTime()
			if _, err := mon.Apply(ctx, add); err != nil {
				b.Fatal(err)
			}
			if count {
				observeCPU += c1 - c0
				observeT += t1.Sub(t0)
				applyT += time.Since(t1)
				applyCPU += cpuTime() - c1
			}
			b.StopTimer()
			if _, err := mon.Apply(ctx, remove); err != nil {
				b.Fatal(err)
			}
			o, err := mon.Operations(ctx, add)
			if err != nil {
				b.Fatal(err)
			}
			ops = len(o)
			b.StartTimer()
			quiet()
			d := rawTransact(b, env.NBUnix, o)
			if count {
				rawT += d
			}
			b.StopTimer()
			// The raw write is not this client's: the echo makes its
			// cache show it before the undo is planned on it.
			if err := mon.mon.echo(ctx); err != nil {
				b.Fatal(err)
			}
			if _, err := mon.Apply(ctx, remove); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
		}
		b.StopTimer()
		round(false)
		b.StartTimer()
		for b.Loop() {
			round(true)
		}
		b.ReportMetric(float64(len(add)), "changes")
		b.ReportMetric(float64(ops), "operations")
		b.ReportMetric(float64(observeT.Milliseconds())/float64(b.N), "observe-ms")
		b.ReportMetric(float64(observeCPU.Milliseconds())/float64(b.N), "observe-cpu-ms")
		b.ReportMetric(float64(applyT.Milliseconds())/float64(b.N), "apply-ms")
		b.ReportMetric(float64(applyCPU.Milliseconds())/float64(b.N), "apply-cpu-ms")
		b.ReportMetric(float64(rawT.Milliseconds())/float64(b.N), "raw-ms")
		b.ReportMetric(applyT.Seconds()/rawT.Seconds(), "apply/raw")
	})
}

// BenchmarkScaleFill fills an empty NB (ovn-northd running) with
// BenchmarkScale's zone by an unmonitored Sync (the default batches),
// beside the raw transact of the same operations in one transaction into
// another empty NB (marshalled off the clock): the issue's "plan + Sync
// from empty" row and its floor.
func BenchmarkScaleFill(b *testing.B) {
	ctx := context.Background()
	for _, size := range []struct{ networks, nodes int }{{100, 100}, {500, 100}, {1000, 100}} {
		b.Run(fmt.Sprintf("%dx%d", size.networks, size.nodes), func(b *testing.B) {
			base := icPlan(b, size.nodes, size.networks)
			// Two fresh NBs an iteration: one filled by Sync (the default
			// batches), the other by the raw transact of the same operations
			// in one transaction (marshalled off the clock).
			var syncT, rawT time.Duration
			ops := 0
			for b.Loop() {
				b.StopTimer()
				e1 := ovntest.Start(b)
				e1.AllowNorthd(regexp.MustCompile(`\|WARN\|Dropped \d+ log messages in last \d+ seconds`))
				c1, _ := scaleDial(b, e1.NBUnix, false)
				b.StartTimer()
				t0 := time.Now()
				if _, _, err := c1.Sync(ctx, base); err != nil {
					b.Fatal(err)
				}
				syncT += time.Since(t0)
				b.StopTimer()
				c1.Close()
				_ = e1.Stop()
				e2 := ovntest.Start(b)
				e2.AllowNorthd(regexp.MustCompile(`\|WARN\|Dropped \d+ log messages in last \d+ seconds`))
				c2, _ := scaleDial(b, e2.NBUnix, false)
				o, err := c2.Operations(ctx, topology.Diff(topology.State{}, base))
				if err != nil {
					b.Fatal(err)
				}
				ops = len(o)
				b.StartTimer()
				rawT += rawTransact(b, e2.NBUnix, o)
				b.StopTimer()
				c2.Close()
				_ = e2.Stop()
				b.StartTimer()
			}
			b.ReportMetric(float64(ops), "operations")
			b.ReportMetric(syncT.Seconds()/float64(b.N), "sync-s")
			b.ReportMetric(rawT.Seconds()/float64(b.N), "raw-s")
			b.ReportMetric(syncT.Seconds()/rawT.Seconds(), "sync/raw")
		})
	}
}

// reportCPU reports, when the function it returns is called, the
// process's CPU time (user and system, every goroutine: the cache's
// update handling and the GC included) per iteration: on a loaded machine
// the wall clock measures the load more than the code.
func reportCPU(b *testing.B) func() {
	start := cpuTime()
	return func() { b.ReportMetric(float64((cpuTime()-start).Microseconds())/1000/float64(b.N), "cpu-ms") }
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// scaleDial is monDial with room for a large database on a loaded
// machine: the monitor's first fill and every call may take long.
func scaleDial(tb testing.TB, ep string, monitor bool) (*Client, *monCounter) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	c, err := Dial(ctx, Config{Endpoints: []string{ep}, Monitor: monitor, Timeout: 2 * time.Minute})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(c.Close)
	cnt := &monCounter{Client: c.ovs}
	c.ovs = cnt
	return c, cnt
}

// rawCall writes one JSON-RPC request to a fresh connection to the unix
// endpoint ep and reads the reply whole; it returns the time from the
// first byte sent to the reply read, and the reply.
func rawCall(tb testing.TB, ep string, msg []byte) (time.Duration, json.RawMessage) {
	tb.Helper()
	conn, err := net.Dial("unix", strings.TrimPrefix(ep, "unix:"))
	if err != nil {
		tb.Fatal(err)
	}
	defer conn.Close()
	start := time.Now()
	if _, err := conn.Write(msg); err != nil {
		tb.Fatal(err)
	}
	var reply json.RawMessage
	if err := json.NewDecoder(bufio.NewReaderSize(conn, 1<<20)).Decode(&reply); err != nil {
		tb.Fatal(err)
	}
	return time.Since(start), reply
}

// rawSelect sends the select Observe sends (selectOps: every row of the
// adapter's tables, the columns it reads) and returns the time the reply
// took.
func rawSelect(tb testing.TB, ep string) time.Duration {
	tb.Helper()
	params := []any{"OVN_Northbound"}
	for _, op := range selectOps() {
		params = append(params, op)
	}
	msg, err := json.Marshal(map[string]any{"id": 1, "method": "transact", "params": params})
	if err != nil {
		tb.Fatal(err)
	}
	d, raw := rawCall(tb, ep, msg)
	var reply struct {
		Result []json.RawMessage `json:"result"`
		Error  any               `json:"error"`
	}
	if err := json.Unmarshal(raw, &reply); err != nil || reply.Error != nil || len(reply.Result) != len(snapshotTables) {
		tb.Fatalf("raw select: %v %v, %d results", err, reply.Error, len(reply.Result))
	}
	return d
}

// rawTransact sends ops as one transaction and checks every result.
func rawTransact(tb testing.TB, ep string, ops []ovsdb.Operation) time.Duration {
	tb.Helper()
	params := []any{"OVN_Northbound"}
	for _, o := range ops {
		params = append(params, o)
	}
	msg, err := json.Marshal(map[string]any{"id": 1, "method": "transact", "params": params})
	if err != nil {
		tb.Fatal(err)
	}
	d, raw := rawCall(tb, ep, msg)
	var reply struct {
		Result []ovsdb.OperationResult `json:"result"`
		Error  any                     `json:"error"`
	}
	if err := json.Unmarshal(raw, &reply); err != nil {
		tb.Fatal(err)
	}
	if _, err := ovsdb.CheckOperationResults(reply.Result, ops); err != nil || reply.Error != nil {
		tb.Fatal(err, reply.Error)
	}
	return d
}

// centralPlan is networks Layer3 primary networks on nodes nodes, all in
// one zone (a central NB), pod subnets as icPlan's.
func centralPlan(tb testing.TB, nodes, networks int) topology.State {
	tb.Helper()
	ns := ovntest.Nodes(nodes, "zone1")
	var states []topology.State
	for i := 1; i <= networks; i++ {
		n := ovntest.Layer3Network()
		n.Name = fmt.Sprintf("ns%d_net%d", i, i)
		n.ID = i
		base := netip.AddrFrom4([4]byte{10, byte(i >> 4), byte(i&15) << 4, 0})
		n.Subnets[0].CIDR = netip.PrefixFrom(base, 20)
		n.Subnets[0].HostPrefix = 27
		in := ovntest.PlanInput(n, ns, "zone1")
		for j, node := range ns {
			a := base.As4()
			off := j * 32
			a[2] += byte(off >> 8)
			a[3] = byte(off)
			in.HostSubnets[node.Name] = []netip.Prefix{netip.PrefixFrom(netip.AddrFrom4(a), 27)}
		}
		s, err := topology.Plan(in)
		if err != nil {
			tb.Fatal(err)
		}
		states = append(states, s)
	}
	return monMerge(tb, states...)
}

// BenchmarkBatchCurve fills a central NB (centralPlan, ovn-northd running)
// from empty by one Sync per batch size (Config.MaxOpsPerTransaction; -1:
// one transaction), a fresh database each, and reports the seconds, the
// NB ovsdb-server's CPU seconds during the Sync (the server's own work:
// what it allows) and the peak resident memory (VmHWM) of the NB
// ovsdb-server, of ovn-northd and of the SB ovsdb-server. Sizes are
// sub-benchmark names, NETWORKSxNODES: -bench 'BatchCurve/50x100'.
// 500x100 and 1000x100 (the 2.3 M-object central NB: 2,511,000
// objects here) run the default batch only, 1000x100 only with
// UDNKIT_BENCH_CENTRAL=1. UDNKIT_BENCH_NORTHD=stop
// stops ovn-northd before the Sync: the NB server alone (northd keeps a
// copy of the whole NB, and paused it still does: at 2.3 M objects the NB
// server, northd and this process do not fit in 23 GiB together).
func BenchmarkBatchCurve(b *testing.B) {
	for _, size := range []struct{ networks, nodes int }{{25, 100}, {50, 100}, {100, 100}, {500, 100}, {1000, 100}} {
		b.Run(fmt.Sprintf("%dx%d", size.networks, size.nodes), func(b *testing.B) {
			batches := []int{-1, 50000, 10000, 2000}
			if size.networks >= 500 {
				batches = []int{0} // the default
			}
			if size.networks >= 1000 && os.Getenv("UDNKIT_BENCH_CENTRAL") != "1" {
				b.Skip("the 2.5 M-object central NB needs UDNKIT_BENCH_CENTRAL=1 and about 16 GiB")
			}
			plan := centralPlan(b, size.nodes, size.networks)
			for _, batch := range batches {
				b.Run(fmt.Sprintf("ops=%d", batch), func(b *testing.B) {
					ctx := context.Background()
					var total, serverCPU time.Duration
					var hwm, northdHWM, sbHWM int64
					txs := 0
					for b.Loop() {
						b.StopTimer()
						env := ovntest.Start(b)
						env.AllowNorthd(regexp.MustCompile(`\|WARN\|Dropped \d+ log messages in last \d+ seconds`))
						if os.Getenv("UDNKIT_BENCH_NORTHD") == "stop" {
							unixctl(b, filepath.Join(env.Dir, "northd.ctl"), "exit")
						}
						c, _ := scaleDial(b, env.NBUnix, false)
						c.cfg.MaxOpsPerTransaction = batch
						cpu0 := procCPU(b, env.Dir, "nb")
						b.StartTimer()
						t0 := time.Now()
						_, res, err := c.Sync(ctx, plan)
						total += time.Since(t0)
						b.StopTimer()
						if err != nil {
							b.Fatal(err)
						}
						serverCPU += procCPU(b, env.Dir, "nb") - cpu0
						txs = res.Transactions
						hwm = max(hwm, procHWM(b, env.Dir, "nb"))
						if os.Getenv("UDNKIT_BENCH_NORTHD") != "stop" {
							northdHWM = max(northdHWM, procHWM(b, env.Dir, "northd"))
						}
						sbHWM = max(sbHWM, procHWM(b, env.Dir, "sb"))
						c.Close()
						_ = env.Stop()
						b.StartTimer()
					}
					b.ReportMetric(float64(plan.Len()), "objects")
					b.ReportMetric(float64(txs), "transactions")
					b.ReportMetric(total.Seconds()/float64(b.N), "s")
					b.ReportMetric(serverCPU.Seconds()/float64(b.N), "server-cpu-s")
					b.ReportMetric(float64(hwm)/(1<<20), "server-MiB")
					b.ReportMetric(float64(northdHWM)/(1<<20), "northd-MiB")
					b.ReportMetric(float64(sbHWM)/(1<<20), "sb-MiB")
				})
			}
		})
	}
}

// procFile returns /proc/PID/file of the process of the environment in
// dir whose pid file is name.pid.
func procFile(tb testing.TB, dir, name, file string) string {
	tb.Helper()
	pid, err := os.ReadFile(filepath.Join(dir, name+".pid"))
	if err != nil {
		tb.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join("/proc", strings.TrimSpace(string(pid)), file))
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}

// procHWM returns the peak resident memory, in bytes, of the process of
// the environment in dir whose pid file is name.pid ("nb": the NB
// ovsdb-server).
func procHWM(tb testing.TB, dir, name string) int64 {
	tb.Helper()
	for _, l := range strings.Split(procFile(tb, dir, name, "status"), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				tb.Fatal(err)
			}
			return kb << 10
		}
	}
	tb.Fatalf("no VmHWM in the status of %s", name)
	return 0
}

// procCPU returns the CPU time (user and system) the process of the
// environment in dir whose pid file is name.pid has used.
func procCPU(tb testing.TB, dir, name string) time.Duration {
	tb.Helper()
	stat := procFile(tb, dir, name, "stat")
	// The fields after the command (in parentheses, which may hold
	// spaces): utime and stime are the 14th and 15th of the line.
	i := strings.LastIndexByte(stat, ')')
	f := strings.Fields(stat[i+1:])
	if len(f) < 13 {
		tb.Fatalf("short stat of %s: %q", name, stat)
	}
	var ticks int64
	for _, s := range f[11:13] {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			tb.Fatal(err)
		}
		ticks += n
	}
	return time.Duration(ticks) * time.Second / clockTicks
}

// unixctl sends an OVS unixctl command (a JSON-RPC request) to the
// control socket at path and fails on an error reply.
func unixctl(tb testing.TB, path, method string) {
	tb.Helper()
	conn, err := net.Dial("unix", path)
	if err != nil {
		tb.Fatal(err)
	}
	defer conn.Close()
	if err := json.NewEncoder(conn).Encode(map[string]any{"id": 0, "method": method, "params": []string{}}); err != nil {
		tb.Fatal(err)
	}
	var reply struct {
		Error any `json:"error"`
	}
	if err := json.NewDecoder(conn).Decode(&reply); err != nil || reply.Error != nil {
		tb.Fatalf("%s on %s: %v %v", method, path, err, reply.Error)
	}
}

// clockTicks is USER_HZ, the unit of /proc's CPU times (100 on Linux).
const clockTicks = 100
