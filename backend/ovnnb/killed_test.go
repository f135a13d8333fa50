package ovnnb

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/ovn-kubernetes/libovsdb/ovsdb"

	"github.com/udnkit/udnkit/internal/ovntest"
	"github.com/udnkit/udnkit/topology"
)

// killAfter lets n write transactions through, then ends the apply's
// context: the apply stops between two batches, as a process killed there
// would.
type killAfter struct {
	*monCounter
	n      int64
	writes atomic.Int64
	cancel context.CancelFunc
}

func (k *killAfter) Transact(ctx context.Context, ops ...ovsdb.Operation) ([]ovsdb.OperationResult, error) {
	res, err := k.monCounter.Transact(ctx, ops...)
	if err == nil && len(ops) > 0 && ops[0].Op != ovsdb.OperationSelect && k.writes.Add(1) == k.n {
		k.cancel()
	}
	return res, err
}

// TestRealKilledBetweenBatches: a batched Sync (MaxOpsPerTransaction 500)
// stopped after its first, second, ... fifth batch leaves a database from
// which the next Sync converges (orphans adopted or deleted by their
// owner), 5 runs out of 5, with and without the monitor, against a real
// ovsdb-server: its changes applied, the Sync after it sends nothing, and
// Observe equals the plan.
// A removal stopped between batches (of 10 operations) converges the same
// way.
func TestRealKilledBetweenBatches(t *testing.T) {
	plan := monBigPlan(t, 20, 10) // 2685 rows, 7 batches of 500
	for _, monitor := range []bool{false, true} {
		t.Run(fmt.Sprintf("monitor=%v", monitor), func(t *testing.T) { killedBetweenBatches(t, plan, monitor) })
	}
}

// killedBetweenBatches runs TestRealKilledBetweenBatches' five runs with
// or without the monitor (which plans against the cache).
func killedBetweenBatches(t *testing.T, plan topology.State, monitor bool) {
	for run := 1; run <= 5; run++ {
		env := ovntest.Start(t)
		c, cnt := monDial(t, env.NBUnix, monitor)
		// A removal deletes parents with their members: few operations,
		// so smaller batches.
		for _, step := range []struct {
			name    string
			desired topology.State
			batch   int
		}{{"create", plan, 500}, {"remove", topology.Removal(plan.Networks()[:3]...), 10}} {
			c.cfg.MaxOpsPerTransaction = step.batch
			c.cfg.StreamOps = -1 // killAfter counts libovsdb's transactions
			ctx, cancel := context.WithCancel(context.Background())
			k := &killAfter{monCounter: cnt, n: int64(run), cancel: cancel}
			c.ovs = k
			_, res, err := c.Sync(ctx, step.desired)
			cancel()
			c.ovs = cnt
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("run %d, %s: Sync stopped after %d batches: %v (%d transactions), want context.Canceled",
					run, step.name, run, err, res.Transactions)
			}
			if res.Transactions != run {
				t.Fatalf("run %d, %s: %d transactions before the stop, want %d", run, step.name, res.Transactions, run)
			}
			ctx = context.Background()
			if _, _, err := c.Sync(ctx, step.desired); err != nil {
				t.Fatalf("run %d, %s: the Sync after the stop: %v", run, step.name, err)
			}
			if ch, r, err := c.Sync(ctx, step.desired); err != nil || len(ch) != 0 || r.Operations != 0 {
				t.Fatalf("run %d, %s: not converged: %v, %d ops:\n%s", run, step.name, err, r.Operations, ch)
			}
			want := step.desired
			if step.name == "remove" {
				want = plan.Without(plan.Networks()[:3]...)
			}
			got, err := c.Observe(ctx)
			if err != nil || !got.Equal(want) {
				t.Fatalf("run %d, %s: %v\n%s", run, step.name, err, topology.Diff(got, want))
			}
		}
		rows := 0
		all, err := env.Rows(context.Background(), "Load_Balancer_Group")
		if err != nil {
			t.Fatal(err)
		}
		rows = len(all["Load_Balancer_Group"])
		if want := len(plan.Without(plan.Networks()[:3]...).ObjectsOf(topology.KindLoadBalancerGroup)); rows != want {
			t.Errorf("run %d: %d load balancer groups left, want %d", run, rows, want)
		}
	}
}
