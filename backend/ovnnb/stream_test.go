package ovnnb

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"path/filepath"
	"reflect"
	"sort"
	"testing"
	"time"

	"github.com/ovn-kubernetes/libovsdb/client"
	"github.com/ovn-kubernetes/libovsdb/ovsdb"

	"github.com/udnkit/udnkit/topology"
)

// noWrites refuses every write transaction sent through libovsdb: with it,
// an Apply that succeeds wrote through the streaming path.
type noWrites struct{ client.Client }

func (n *noWrites) Transact(ctx context.Context, ops ...ovsdb.Operation) ([]ovsdb.OperationResult, error) {
	for _, op := range ops {
		if op.Op != ovsdb.OperationSelect {
			return nil, fmt.Errorf("test: %s %s sent through libovsdb", op.Op, op.Table)
		}
	}
	return n.Client.Transact(ctx, ops...)
}

// streamRequest is the request streamTransact writes for ops.
func streamRequest(t testing.TB, ops []ovsdb.Operation) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := bufio.NewWriter(&buf)
	if err := writeTransact(w, 1, "OVN_Northbound", ops); err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// canonJSON decodes a JSON document, sorting the elements of every OVSDB
// set and map (["set",[...]], ["map",[...]]): their order carries no
// meaning. Everything else, operation order included, is kept.
func canonJSON(t testing.TB, b []byte) any {
	t.Helper()
	var x any
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	if err := d.Decode(&x); err != nil {
		t.Fatalf("decoding %.200s: %v", b, err)
	}
	if _, err := d.Token(); err != io.EOF {
		t.Fatalf("trailing data after the request: %v", err)
	}
	return canonValue(x)
}

func canonValue(x any) any {
	switch v := x.(type) {
	case map[string]any:
		for k, e := range v {
			v[k] = canonValue(e)
		}
		return v
	case []any:
		for i, e := range v {
			v[i] = canonValue(e)
		}
		if len(v) == 2 && (v[0] == "set" || v[0] == "map") {
			if elems, ok := v[1].([]any); ok {
				sort.Slice(elems, func(i, j int) bool { return fmt.Sprint(elems[i]) < fmt.Sprint(elems[j]) })
			}
		}
		return v
	}
	return x
}

// The streamed request means what libovsdb would send for the same
// operations: the seed 004 plan through create, node removal with every
// switch updated, node re-addition and deletion (inserts, updates,
// mutations, waits and deletes), and the 100-node x 20-network plan.
func TestStreamRequestMatchesLibovsdb(t *testing.T) {
	ctx := context.Background()
	check := func(t *testing.T, ops []ovsdb.Operation) {
		t.Helper()
		got := streamRequest(t, ops)
		if !json.Valid(got) {
			t.Fatalf("streamed request is not valid JSON")
		}
		want, err := json.Marshal(map[string]any{"id": 1, "method": "transact", "params": ovsdb.NewTransactArgs("OVN_Northbound", ops...)})
		if err != nil {
			t.Fatal(err)
		}
		g, w := canonJSON(t, got), canonJSON(t, want)
		if !reflect.DeepEqual(g, w) {
			gp, wp := g.(map[string]any)["params"].([]any), w.(map[string]any)["params"].([]any)
			for i := range min(len(gp), len(wp)) {
				if !reflect.DeepEqual(gp[i], wp[i]) {
					t.Fatalf("operation %d: streamed %v, libovsdb %v", i, gp[i], wp[i])
				}
			}
			t.Fatalf("streamed request (%d params) differs from libovsdb's (%d params)", len(gp), len(wp))
		}
	}
	t.Run("seed004", func(t *testing.T) {
		c, _ := monDial(t, startEmbeddedT(t), false)
		kinds := map[string]bool{}
		for i, step := range monSteps(t, "seed004") {
			observed, err := c.Observe(ctx, step.Networks()...)
			if err != nil {
				t.Fatal(err)
			}
			changes := topology.Diff(observed, step)
			ops, err := c.Operations(ctx, changes)
			if err != nil {
				t.Fatal(err)
			}
			if len(ops) == 0 {
				t.Fatalf("step %d: no operations", i)
			}
			for _, op := range ops {
				kinds[op.Op] = true
			}
			check(t, ops)
			if _, err := c.Apply(ctx, changes); err != nil {
				t.Fatal(err)
			}
		}
		for _, op := range []string{"insert", "update", "mutate", "wait", "delete"} {
			if !kinds[op] {
				t.Errorf("no %s operation compared", op)
			}
		}
	})
	t.Run("100x20", func(t *testing.T) {
		c, _ := monDial(t, startEmbeddedT(t), false)
		ops, err := c.Operations(ctx, topology.Diff(topology.State{}, monBigPlan(t, 100, 20)))
		if err != nil {
			t.Fatal(err)
		}
		if len(ops) < DefaultStreamOps {
			t.Fatalf("%d operations, want at least %d", len(ops), DefaultStreamOps)
		}
		check(t, ops)
	})
}

// startEmbeddedT starts an embedded NB for t and returns its endpoint.
func startEmbeddedT(t testing.TB) string {
	t.Helper()
	e, err := StartEmbedded()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e.Endpoint()
}

// streamClient dials ep with every write streamed (StreamOps 1) and
// libovsdb refusing writes.
func streamClient(t *testing.T, ep string, monitor bool) *Client {
	t.Helper()
	c, _ := monDial(t, ep, monitor)
	c.cfg.StreamOps = 1
	c.ovs = &noWrites{Client: c.ovs}
	return c
}

// Streamed writes create, update and delete through both servers, with and
// without the monitor (which then shows them from its cache).
func TestStreamApply(t *testing.T) {
	for server, start := range monEndpoints(t) {
		for _, monitor := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/monitor=%v", server, monitor), func(t *testing.T) {
				c := streamClient(t, start(t), monitor)
				ctx := context.Background()
				for i, want := range monSteps(t, "seed004") {
					changes, res, err := c.Sync(ctx, want)
					if err != nil {
						t.Fatalf("step %d: %v", i, err)
					}
					if len(changes) == 0 || res.Transactions != 1 {
						t.Fatalf("step %d: %d changes in %d transactions, want some in 1", i, len(changes), res.Transactions)
					}
					if monitor && c.mon.pendingWrites() == 0 {
						t.Fatalf("step %d: the monitor was not told of the streamed write", i)
					}
					got, err := c.Observe(ctx, want.Networks()...)
					if err != nil {
						t.Fatal(err)
					}
					if d := topology.Diff(got, want); len(d) != 0 {
						t.Fatalf("step %d: observed differs from desired: %v", i, d)
					}
					again, _, err := c.Sync(ctx, want)
					if err != nil || len(again) != 0 {
						t.Fatalf("step %d: second Sync: %d changes, %v", i, len(again), err)
					}
				}
			})
		}
	}
}

// A transaction the server refuses fails with ErrTransaction naming the
// change, and nothing of it is written (the real server: the embedded one
// does not check integer ranges).
func TestStreamRefused(t *testing.T) {
	for server, start := range monEndpoints(t) {
		if server != "real" {
			continue
		}
		t.Run(server, func(t *testing.T) {
			c := streamClient(t, start(t), false)
			ctx := context.Background()
			want := monSeed004(t, 1)
			var sw topology.Switch
			for o := range want.Objects() {
				if s, ok := o.(topology.Switch); ok && sw.Name == "" {
					sw = s
				}
			}
			acl := topology.ACL{Owner: sw.Owner, Switch: sw.Name, Direction: "to-lport", Priority: 40000,
				Match: "ip4", Action: "allow"}
			changes := append(topology.Diff(topology.State{}, want),
				topology.Change{Op: topology.OpCreate, Kind: topology.KindACL, Key: acl.Key(), Object: acl})
			_, err := c.Apply(ctx, changes)
			var ce *ChangeError
			if !errors.Is(err, ErrTransaction) || !errors.As(err, &ce) || ce.Kind != topology.KindACL {
				t.Fatalf("err = %v, want ErrTransaction naming the ACL", err)
			}
			got, err := c.Observe(ctx, want.Networks()...)
			if err != nil {
				t.Fatal(err)
			}
			if n := len(topology.Diff(topology.State{}, got)); n != 0 {
				t.Fatalf("%d objects written by a refused transaction", n)
			}
		})
	}
}

// fakeServer accepts one connection on a unix socket and runs serve on it.
func fakeServer(t *testing.T, serve func(net.Conn)) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "s.sock")
	l, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		conn, err := l.Accept()
		if err != nil {
			return
		}
		defer conn.Close()
		serve(conn)
	}()
	return "unix:" + path
}

// readRequest reads one JSON value (the transact request) from conn.
func readRequest(conn net.Conn) (map[string]json.RawMessage, *json.Decoder, error) {
	d := json.NewDecoder(conn)
	var req map[string]json.RawMessage
	err := d.Decode(&req)
	return req, d, err
}

// The streaming client answers the server's echo requests while it waits
// for the reply, and a cancelled context (here after the server read the
// whole request, as if it had committed) ends the wait with the context's
// error, which Apply reports as a failed transaction.
func TestStreamProtocol(t *testing.T) {
	c, _ := monDial(t, startEmbeddedT(t), false)
	ops := []ovsdb.Operation{{Op: ovsdb.OperationInsert, Table: "Address_Set", Row: ovsdb.Row{"name": "a"}}}
	t.Run("echo", func(t *testing.T) {
		echoed := make(chan string, 1)
		ep := fakeServer(t, func(conn net.Conn) {
			_, d, err := readRequest(conn)
			if err != nil {
				return
			}
			io.WriteString(conn, `{"id":"echo","method":"echo","params":["x"]}`)
			var reply map[string]json.RawMessage
			if d.Decode(&reply) != nil {
				return
			}
			echoed <- string(reply["id"]) + " " + string(reply["result"])
			io.WriteString(conn, `{"id":1,"result":[{"uuid":["uuid","8f1c8f8e-6f2b-4c29-9a0f-0f7b3f1d1a2b"]}],"error":null}`)
		})
		res, err := c.streamTransact(context.Background(), ep, ops)
		if err != nil {
			t.Fatal(err)
		}
		if got := <-echoed; got != `"echo" ["x"]` {
			t.Errorf("echo reply %s", got)
		}
		if len(res) != 1 || res[0].UUID.GoUUID != "8f1c8f8e-6f2b-4c29-9a0f-0f7b3f1d1a2b" {
			t.Errorf("results %+v", res)
		}
	})
	t.Run("rpc error", func(t *testing.T) {
		ep := fakeServer(t, func(conn net.Conn) {
			if _, _, err := readRequest(conn); err == nil {
				io.WriteString(conn, `{"id":1,"result":null,"error":"unknown database"}`)
			}
		})
		if _, err := c.streamTransact(context.Background(), ep, ops); err == nil {
			t.Fatal("no error for an RPC error reply")
		}
	})
	t.Run("cancelled", func(t *testing.T) {
		read := make(chan struct{})
		ep := fakeServer(t, func(conn net.Conn) {
			if _, _, err := readRequest(conn); err == nil {
				close(read)
			}
			io.Copy(io.Discard, conn)
		})
		ctx, cancel := context.WithCancel(context.Background())
		go func() {
			<-read
			cancel()
		}()
		done := make(chan error, 1)
		go func() {
			_, err := c.streamTransact(ctx, ep, ops)
			done <- err
		}()
		select {
		case err := <-done:
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("err = %v, want context.Canceled", err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("a cancelled context did not end the wait")
		}
	})
	t.Run("cancelled apply", func(t *testing.T) {
		sc := streamClient(t, startEmbeddedT(t), false)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, err := sc.run(ctx, []*unit{{ops: []taggedOp{{op: ops[0], rows: 1}}}})
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
	})
}

// Connection errors of the streaming path wrap ErrConnect: an ssl:
// endpoint without Config.TLS, an unknown scheme, nothing listening, and a
// TLS handshake with a server that does not speak TLS.
func TestStreamDialErrors(t *testing.T) {
	c, _ := monDial(t, startEmbeddedT(t), false)
	ctx := context.Background()
	for _, ep := range []string{"ssl:127.0.0.1:1", "http:x", "tcp:127.0.0.1:1", "unix:" + filepath.Join(t.TempDir(), "none")} {
		if _, err := c.dialStream(ctx, ep); !errors.Is(err, ErrConnect) {
			t.Errorf("%s: err = %v, want ErrConnect", ep, err)
		}
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		conn, err := l.Accept()
		if err == nil {
			io.WriteString(conn, "not TLS\n")
			conn.Close()
		}
	}()
	c.cfg.TLS = &tls.Config{ServerName: "nb"}
	if _, err := c.dialStream(ctx, "ssl:"+l.Addr().String()); !errors.Is(err, ErrConnect) {
		t.Errorf("TLS handshake with a plain server: err = %v, want ErrConnect", err)
	}
}
