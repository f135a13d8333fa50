package controller

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/udnkit/udnkit/backend/ovnnb"
)

// nbCounter counts what the clients of an NB send it, by relaying their
// connections to the real server: transactions that write (any operation
// other than select and wait), transactions that only read, and every
// other request (echo, monitor, schema) by method.
type nbCounter struct {
	writes, reads atomic.Int64
	mu            sync.Mutex
	other         map[string]int
}

func (n *nbCounter) snapshot() (writes, reads int64, other map[string]int) {
	n.mu.Lock()
	defer n.mu.Unlock()
	other = map[string]int{}
	for k, v := range n.other {
		other[k] = v
	}
	return n.writes.Load(), n.reads.Load(), other
}

// count classifies one JSON-RPC request.
func (n *nbCounter) count(msg map[string]json.RawMessage) {
	var method string
	if json.Unmarshal(msg["method"], &method) != nil || method == "" {
		return // a reply (to the server's echo)
	}
	if method != "transact" {
		n.mu.Lock()
		n.other[method]++
		n.mu.Unlock()
		return
	}
	var params []json.RawMessage
	_ = json.Unmarshal(msg["params"], &params)
	write := false
	for _, p := range params[min(1, len(params)):] {
		var op struct {
			Op string `json:"op"`
		}
		if json.Unmarshal(p, &op) == nil && op.Op != "select" && op.Op != "wait" {
			write = true
		}
	}
	if write {
		n.writes.Add(1)
	} else {
		n.reads.Add(1)
	}
}

// countedNB starts an embedded NB behind a counting relay and returns a
// client dialled through the relay (with a monitor when monitor is set),
// and the counter.
func countedNB(t testing.TB, monitor bool) (*ovnnb.Client, *nbCounter) {
	t.Helper()
	e, err := ovnnb.StartEmbedded()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.Close() })
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = l.Close() })
	n := &nbCounter{other: map[string]int{}}
	target := strings.TrimPrefix(e.Endpoint(), "unix:")
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			s, err := net.Dial("unix", target)
			if err != nil {
				c.Close()
				continue
			}
			go func() { _, _ = io.Copy(c, s); c.Close() }()
			go func() {
				defer s.Close()
				dec := json.NewDecoder(io.TeeReader(c, s))
				for {
					var msg map[string]json.RawMessage
					if dec.Decode(&msg) != nil {
						_, _ = io.Copy(s, c) // not JSON any more: relay the rest
						return
					}
					n.count(msg)
				}
			}()
		}
	}()
	nb, err := ovnnb.Dial(context.Background(), ovnnb.Config{Endpoints: []string{"tcp:" + l.Addr().String()}, Monitor: monitor})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nb.Close)
	return nb, n
}
