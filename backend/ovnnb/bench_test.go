package ovnnb_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/netip"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ovn-kubernetes/libovsdb/ovsdb"

	"github.com/udnkit/udnkit/backend/nbctl"
	"github.com/udnkit/udnkit/backend/ovnnb"
	"github.com/udnkit/udnkit/internal/ovntest"
	"github.com/udnkit/udnkit/netconf"
	"github.com/udnkit/udnkit/topology"
)

// bigPlan is the benchmark plan: networks primary networks, alternately
// Layer3 and Layer2 (pod subnets 10.<n>.0.0/16), on nodes nodes, for the
// NB that holds node1. The Layer3 networks have every node in one zone (all
// local); a primary Layer2 network supports one node per zone, so the
// Layer2 networks are planned the interconnect way for node1's zone (node1
// local, the others remote transit-router peers).
func bigPlan(tb testing.TB, nodes, networks int) topology.State {
	tb.Helper()
	oneZone, ownZones := ovntest.Nodes(nodes, "zone1"), ovntest.Nodes(nodes, "")
	var states []topology.State
	for i := 1; i <= networks; i++ {
		n, ns, zone := ovntest.Layer3Network(), oneZone, "zone1"
		if i%2 == 0 {
			n, ns, zone = ovntest.Layer2Network(), ownZones, "node1"
		}
		n.Name = fmt.Sprintf("ns%d_net%d", i, i)
		n.ID = i
		n.Subnets[0].CIDR = netipPrefix(fmt.Sprintf("10.%d.0.0/16", 100+i))
		in := ovntest.PlanInput(n, ns, zone)
		if n.Topology == netconf.TopologyLayer3 {
			for j, node := range ns {
				in.HostSubnets[node.Name] = []netipP{netipPrefix(fmt.Sprintf("10.%d.%d.0/24", 100+i, j))}
			}
		}
		s, err := topology.Plan(in)
		if err != nil {
			tb.Fatal(err)
		}
		states = append(states, s)
	}
	all, err := states[0].Merge(states[1:]...)
	if err != nil {
		tb.Fatal(err)
	}
	return all
}

// BenchmarkNB100x20 writes a 100-node x 20-network plan (bigPlan) into
// fresh real NB databases three ways, interleaved in every iteration so
// that the machine's load hits them alike:
//   - adapter: ovnnb.Client.Apply, one transaction;
//   - raw: the very operations the adapter sends, as one JSON-RPC transact
//     written straight to the NB socket, timed from the first byte sent to
//     the reply (the floor; ovsdb-client transact cannot carry it because
//     Linux caps one argument at 128 KiB and this transaction is tens of MB);
//   - nbctl: the nbctl script, one ovn-nbctl process per object as shell
//     integrations do, for the plan's first 400 objects (process start-up
//     dominates, so the rate does not depend on the plan's size).
//
// It reports rows per second for each and the adapter's ratios.
func BenchmarkNB100x20(b *testing.B) {
	b.ReportAllocs()
	plan := bigPlan(b, 100, 20)
	changes := topology.Diff(topology.State{}, plan)
	script, err := nbctl.Script(changes[:400], nbctl.Config{})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	var adapterRows, rawRows, nbctlRows, operations int
	var adapterT, rawT, nbctlT time.Duration
	for i := 0; i < b.N; i++ {
		// adapter
		env := ovntest.Start(b)
		c, err := ovnnb.Dial(ctx, ovnnb.Config{Endpoints: []string{env.NBUnix}})
		if err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		res, err := c.Apply(ctx, changes)
		adapterT += time.Since(start)
		if err != nil {
			b.Fatal(err)
		}
		adapterRows += res.Rows
		c.Close()
		_ = env.Stop()

		// raw
		env = ovntest.Start(b)
		c, err = ovnnb.Dial(ctx, ovnnb.Config{Endpoints: []string{env.NBUnix}})
		if err != nil {
			b.Fatal(err)
		}
		ops, err := c.Operations(ctx, changes)
		if err != nil {
			b.Fatal(err)
		}
		operations = len(ops)
		c.Close()
		msg, err := json.Marshal(map[string]any{"id": 1, "method": "transact", "params": append([]any{"OVN_Northbound"}, anyOps(ops)...)})
		if err != nil {
			b.Fatal(err)
		}
		conn, err := net.Dial("unix", strings.TrimPrefix(env.NBUnix, "unix:"))
		if err != nil {
			b.Fatal(err)
		}
		start = time.Now()
		if _, err := conn.Write(msg); err != nil {
			b.Fatal(err)
		}
		var reply struct {
			Result []ovsdb.OperationResult `json:"result"`
			Error  any                     `json:"error"`
		}
		if err := json.NewDecoder(bufio.NewReader(conn)).Decode(&reply); err != nil {
			b.Fatal(err)
		}
		rawT += time.Since(start)
		if _, err := ovsdb.CheckOperationResults(reply.Result, ops); err != nil || reply.Error != nil {
			b.Fatal(err, reply.Error)
		}
		for _, op := range ops {
			if op.Op != ovsdb.OperationMutate {
				rawRows++
			}
		}
		conn.Close()
		_ = env.Stop()

		// nbctl, one process per object
		env = ovntest.Start(b)
		start = time.Now()
		if out, err := env.Shell(ctx, script); err != nil {
			b.Fatal(err, out)
		}
		nbctlT += time.Since(start)
		nbctlRows += 400
		_ = env.Stop()
	}
	a, r, n := float64(adapterRows)/adapterT.Seconds(), float64(rawRows)/rawT.Seconds(), float64(nbctlRows)/nbctlT.Seconds()
	b.ReportMetric(float64(len(changes)), "objects")
	b.ReportMetric(float64(operations), "operations")
	b.ReportMetric(a, "adapter-rows/s")
	b.ReportMetric(r, "raw-rows/s")
	b.ReportMetric(n, "nbctl-rows/s")
	b.ReportMetric(a/r, "adapter/raw")
	b.ReportMetric(a/n, "adapter/nbctl")
}

func anyOps(ops []ovsdb.Operation) []any {
	out := make([]any, len(ops))
	for i, o := range ops {
		out[i] = o
	}
	return out
}

type netipP = netip.Prefix

func netipPrefix(s string) netip.Prefix { return netip.MustParsePrefix(s) }

// BenchmarkApplyBuild isolates the adapter's client-side work for the
// 100x20 plan: reading the (empty) embedded NB, checking and building the
// operations (Client.Operations), and encoding them as libovsdb's JSON-RPC
// client does. No server processes the transaction.
func BenchmarkApplyBuild(b *testing.B) {
	plan := bigPlan(b, 100, 20)
	changes := topology.Diff(topology.State{}, plan)
	e, err := ovnnb.StartEmbedded()
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	ctx := context.Background()
	c, err := ovnnb.Dial(ctx, e.Config())
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	b.ReportAllocs()
	size := 0
	for b.Loop() {
		ops, err := c.Operations(ctx, changes)
		if err != nil {
			b.Fatal(err)
		}
		var buf bytes.Buffer
		if err := json.NewEncoder(&buf).Encode(map[string]any{"method": "transact", "params": ovsdb.NewTransactArgs("OVN_Northbound", ops...), "id": 1}); err != nil {
			b.Fatal(err)
		}
		size = buf.Len()
	}
	b.ReportMetric(float64(len(changes)), "objects")
	b.ReportMetric(float64(size), "request-bytes")
}

// BenchmarkNB100x20Node applies a one-node change to a real NB holding the
// 100-node x 20-network plan: adding node101's rows for all 20 networks,
// then removing them again. It reports the milliseconds of each Apply.
func BenchmarkNB100x20Node(b *testing.B) {
	env := ovntest.Start(b)
	ctx := context.Background()
	c, err := ovnnb.Dial(ctx, ovnnb.Config{Endpoints: []string{env.NBUnix}})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	base, more := bigPlan(b, 100, 20), bigPlan(b, 101, 20)
	if _, err := c.Apply(ctx, topology.Diff(topology.State{}, base)); err != nil {
		b.Fatal(err)
	}
	add, remove := topology.Diff(base, more), topology.Diff(more, base)
	for _, ch := range append(slices.Clone(add), remove...) {
		obj := ch.Object
		if obj == nil {
			obj = ch.Old
		}
		if !strings.Contains(topology.Render(obj), "node101") {
			b.Fatalf("%s %s does not concern node101", ch.Op, topology.Render(obj))
		}
	}
	b.ReportAllocs()
	var addT, removeT time.Duration
	for b.Loop() {
		start := time.Now()
		if _, err := c.Apply(ctx, add); err != nil {
			b.Fatal(err)
		}
		mid := time.Now()
		if _, err := c.Apply(ctx, remove); err != nil {
			b.Fatal(err)
		}
		addT += mid.Sub(start)
		removeT += time.Since(mid)
	}
	b.ReportMetric(float64(len(add)), "add-objects")
	b.ReportMetric(float64(len(remove)), "remove-objects")
	b.ReportMetric(float64(addT.Milliseconds())/float64(b.N), "add-ms")
	b.ReportMetric(float64(removeT.Milliseconds())/float64(b.N), "remove-ms")
}
