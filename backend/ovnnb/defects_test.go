package ovnnb

import (
	"context"
	"errors"
	"io"
	"net/netip"
	"sync"
	"testing"
	"time"

	"github.com/ovn-kubernetes/libovsdb/client"
	"github.com/ovn-kubernetes/libovsdb/ovsdb"

	"github.com/udnkit/udnkit/internal/nbdb"
	"github.com/udnkit/udnkit/topology"
)

// lostReply sends each write transaction and then reports err instead of
// its reply: the server committed, the client cannot know.
type lostReply struct {
	client.Client
	err    func(ctx context.Context) error
	unsent bool // fail before sending instead
}

func (l *lostReply) Transact(ctx context.Context, ops ...ovsdb.Operation) ([]ovsdb.OperationResult, error) {
	if l.unsent && len(ops) > 0 && ops[0].Op != ovsdb.OperationSelect {
		return nil, l.err(ctx)
	}
	res, err := l.Client.Transact(ctx, ops...)
	if err != nil || len(ops) == 0 || ops[0].Op == ovsdb.OperationSelect {
		return res, err
	}
	return nil, l.err(ctx)
}

// TestOutcomeUnknown: a transaction whose reply is lost (the context ends
// while waiting, or the connection drops) may have committed; Apply says
// so with ErrOutcomeUnknown, never ErrTransaction (which promises nothing
// was written). A request that never left wraps ErrConnect.
func TestOutcomeUnknown(t *testing.T) {
	ctx := context.Background()
	s := monSeed004(t, 2)
	for _, tc := range []struct {
		name    string
		err     func(ctx context.Context) error
		want    error
		written bool
		unsent  bool
	}{
		{"context ends while waiting", func(context.Context) error { return context.DeadlineExceeded }, ErrOutcomeUnknown, true, false},
		{"connection lost", func(context.Context) error { return io.ErrUnexpectedEOF }, ErrOutcomeUnknown, true, false},
		{"not connected", func(context.Context) error { return client.ErrNotConnected }, ErrConnect, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, _ := monDial(t, startEmbeddedT(t), false)
			inner := c.ovs
			c.ovs = &lostReply{Client: inner, err: tc.err, unsent: tc.unsent}
			_, _, err := c.Sync(ctx, s)
			if !errors.Is(err, tc.want) || errors.Is(err, ErrTransaction) {
				t.Fatalf("Sync with a lost reply: %v, want %v and not ErrTransaction", err, tc.want)
			}
			c.ovs = inner
			got, err := c.Observe(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if got.Equal(s) != tc.written {
				t.Errorf("the transaction committed: %v, want %v", got.Equal(s), tc.written)
			}
		})
	}
}

// TestOptionsUpdateWritesNoGatewayChassis: an update of a router port's
// options alone inserts no Gateway_Chassis rows (it used to insert a new
// set, unreferenced, on every such update).
func TestOptionsUpdateWritesNoGatewayChassis(t *testing.T) {
	ctx := context.Background()
	c, _ := monDial(t, startEmbeddedT(t), false)
	own := topology.Owner{Network: "ns_gc"}
	rp := topology.RouterPort{Owner: own, Name: "rtoe-GR_ns_gc_node1", Router: "GR_ns_gc_node1", MAC: "0a:58:ac:12:00:02",
		Networks:       []netip.Prefix{netip.MustParsePrefix("172.18.0.2/16")},
		GatewayChassis: []topology.GatewayChassis{{Name: "rtoe-GR_ns_gc_node1-chassis-1", Chassis: "chassis-1", Priority: 1}}}
	state := func(rp topology.RouterPort) topology.State {
		var b topology.Builder
		b.Add(topology.Router{Owner: own, Name: rp.Router}, rp)
		s, err := b.State()
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	if _, _, err := c.Sync(ctx, state(rp)); err != nil {
		t.Fatal(err)
	}
	obs, err := c.Observe(ctx)
	if err != nil {
		t.Fatal(err)
	}
	rp.Options = topology.NewOptions(topology.OptGatewayMTU, "1400")
	changes := topology.Diff(obs, state(rp))
	if len(changes) != 1 || len(changes[0].Columns) != 1 || changes[0].Columns[0] != "options" {
		t.Fatalf("want one options update, got:\n%s", changes)
	}
	ops, err := c.Operations(ctx, changes)
	if err != nil {
		t.Fatal(err)
	}
	for _, op := range ops {
		if op.Table == nbdb.GatewayChassisTable || op.Row["gateway_chassis"] != nil {
			t.Errorf("options-only update writes %s on %s", op.Op, op.Table)
		}
	}
	if _, err := c.Apply(ctx, changes); err != nil {
		t.Fatal(err)
	}
	if got, err := c.Observe(ctx); err != nil || !got.Equal(state(rp)) {
		t.Fatalf("after the update: %v\n%s", err, topology.Diff(got, state(rp)))
	}
}

// TestCacheRowsBounded: reading the monitor's cache while another client
// writes without pause returns within the context (rows, or an error
// wrapping the context's), instead of spinning.
func TestCacheRowsBounded(t *testing.T) {
	ep := startEmbeddedT(t)
	c, _ := monDial(t, ep, true)
	w, _ := monDial(t, ep, false)
	ctx := context.Background()
	s := monSeed004(t, 2)
	if _, _, err := w.Sync(ctx, s); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			if _, _, err := w.Sync(ctx, monWithSwitchOption(t, s, "x", string(rune('a'+i%26)))); err != nil {
				t.Error(err)
				return
			}
		}
	})
	defer func() { close(stop); wg.Wait() }()
	for range 20 {
		cctx, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
		start := time.Now()
		_, err := c.mon.cacheRows(cctx)
		cancel()
		if d := time.Since(start); d > time.Second {
			t.Fatalf("cacheRows took %v under a 20ms context", d)
		}
		if err != nil && !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("cacheRows: %v", err)
		}
	}
	// A context already ended stops it before it reads twice more.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := c.mon.cacheRows(cctx); err == nil || !errors.Is(err, context.Canceled) {
		t.Errorf("cacheRows with an ended context: %v", err)
	}
}
