package ovnnb

import (
	"bufio"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ovn-kubernetes/libovsdb/ovsdb"
)

// DefaultStreamOps is the transaction size (in operations) from which
// Apply streams a transaction on its own connection when
// Config.StreamOps is zero.
//
// At 100 (it was 1000): a node's 700-operation Apply with the monitor
// waited 3.0 times the raw transact of its operations through libovsdb
// and 1.6 times streamed (BENCHMARKS.md, round 6); a transaction of fewer
// operations goes through libovsdb, saving a connection.
const DefaultStreamOps = 100

// streamOps is the streaming threshold: 0 when streaming is off.
func (c *Client) streamOps() int {
	switch n := c.cfg.StreamOps; {
	case n < 0:
		return 0
	case n == 0:
		return DefaultStreamOps
	default:
		return n
	}
}

// transact sends one write transaction: through libovsdb, or streamed on a
// dedicated connection when it is large. Either way a committed
// transaction is recorded for the monitor.
func (c *Client) transact(ctx context.Context, ops []ovsdb.Operation) ([]ovsdb.OperationResult, error) {
	if err := c.open(); err != nil {
		return nil, err
	}
	ep := c.ovs.CurrentEndpoint()
	if n := c.streamOps(); n == 0 || len(ops) < n || ep == "" {
		// Small, or not connected: libovsdb waits for the reconnect.
		return c.ovs.Transact(ctx, ops...)
	}
	res, err := c.streamTransact(ctx, ep, ops)
	if err == nil && c.mon != nil {
		c.mon.record(ops, res)
	}
	return res, err
}

// dialStream opens a connection to endpoint (unix:, tcp: or ssl:).
func (c *Client) dialStream(ctx context.Context, endpoint string) (net.Conn, error) {
	scheme, addr, ok := strings.Cut(endpoint, ":")
	if !ok || addr == "" {
		return nil, fmt.Errorf("%w: endpoint %q", ErrConnect, endpoint)
	}
	d := &net.Dialer{Timeout: c.timeout()}
	var (
		conn net.Conn
		err  error
	)
	switch scheme {
	case "unix", "tcp":
		conn, err = d.DialContext(ctx, scheme, addr)
	case "ssl":
		if c.cfg.TLS == nil {
			return nil, fmt.Errorf("%w: endpoint %q needs Config.TLS", ErrConnect, endpoint)
		}
		td := &tls.Dialer{NetDialer: d, Config: c.cfg.TLS}
		conn, err = td.DialContext(ctx, "tcp", addr)
	default:
		return nil, fmt.Errorf("%w: endpoint %q: want unix:, tcp: or ssl:", ErrConnect, endpoint)
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("%w: %s: %v", ErrConnect, endpoint, err)
	}
	return conn, nil
}

// streamTransact writes ops as one JSON-RPC transact request on a new
// connection to endpoint, encoding each operation straight into the
// socket's buffer (encoded row values are copied as they are), and reads
// the reply, answering the server's echo requests meanwhile. A cancelled
// ctx closes the connection; the returned error is then the context's.
func (c *Client) streamTransact(ctx context.Context, endpoint string, ops []ovsdb.Operation) ([]ovsdb.OperationResult, error) {
	raw, err := c.streamCall(ctx, endpoint, ops)
	if err != nil {
		return nil, err
	}
	var res []ovsdb.OperationResult
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, fmt.Errorf("reply from %s: %w", endpoint, err)
	}
	return res, nil
}

// streamCall is streamTransact returning the reply's result undecoded.
func (c *Client) streamCall(ctx context.Context, endpoint string, ops []ovsdb.Operation) (json.RawMessage, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	conn, err := c.dialStream(ctx, endpoint)
	if err != nil {
		return nil, err
	}
	var closeOnce sync.Once
	closeConn := func() { closeOnce.Do(func() { conn.Close() }) }
	defer closeConn()
	stop := context.AfterFunc(ctx, closeConn)
	defer stop()
	fail := func(err error) error {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return err
	}

	w := bufio.NewWriterSize(conn, 256<<10)
	if err := writeTransact(w, 1, c.dbModel.Schema.Name, ops); err != nil {
		return nil, fail(fmt.Errorf("sending to %s: %w", endpoint, err))
	}
	if err := w.Flush(); err != nil {
		return nil, fail(fmt.Errorf("sending to %s: %w", endpoint, err))
	}
	dec := json.NewDecoder(bufio.NewReaderSize(conn, 64<<10))
	for {
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if err := dec.Decode(&msg); err != nil {
			return nil, fail(fmt.Errorf("reading from %s: %w", endpoint, err))
		}
		if msg.Method != "" {
			if msg.Method == "echo" {
				params := msg.Params
				if len(params) == 0 {
					params = json.RawMessage("[]")
				}
				b := append([]byte(`{"id":`), msg.ID...)
				b = append(b, `,"result":`...)
				b = append(b, params...)
				b = append(b, `,"error":null}`...)
				conn.SetWriteDeadline(time.Now().Add(c.timeout()))
				if _, err := conn.Write(b); err != nil {
					return nil, fail(fmt.Errorf("answering echo from %s: %w", endpoint, err))
				}
			}
			continue
		}
		if string(msg.ID) != "1" {
			continue
		}
		if len(msg.Error) > 0 && string(msg.Error) != "null" {
			return nil, fmt.Errorf("%s: %s", endpoint, msg.Error)
		}
		return msg.Result, nil
	}
}

// writeTransact writes {"id":id,"method":"transact","params":[db,op...]}.
func writeTransact(w *bufio.Writer, id int, db string, ops []ovsdb.Operation) error {
	var b []byte
	b = append(b, `{"id":`...)
	b = strconv.AppendInt(b, int64(id), 10)
	b = append(b, `,"method":"transact","params":[`...)
	b = appendString(b, db)
	if _, err := w.Write(b); err != nil {
		return err
	}
	for i := range ops {
		b = append(b[:0], ',')
		var err error
		b, err = appendOp(b, &ops[i])
		if err != nil {
			return err
		}
		if _, err := w.Write(b); err != nil {
			return err
		}
	}
	_, err := w.WriteString("]}")
	return err
}

// opRest is the part of an operation encoded by encoding/json: every field
// but op, table, row and uuid-name, with the tags of ovsdb.Operation.
type opRest struct {
	Rows      []ovsdb.Row       `json:"rows,omitempty"`
	Columns   []string          `json:"columns,omitempty"`
	Mutations []ovsdb.Mutation  `json:"mutations,omitempty"`
	Timeout   *int              `json:"timeout,omitempty"`
	Where     []ovsdb.Condition `json:"where,omitempty"`
	Until     string            `json:"until,omitempty"`
	Durable   *bool             `json:"durable,omitempty"`
	Comment   *string           `json:"comment,omitempty"`
	Lock      *string           `json:"lock,omitempty"`
	UUID      string            `json:"uuid,omitempty"`
}

// appendOp appends op as ovsdb.Operation's MarshalJSON would mean it: the
// row's json.RawMessage values (the adapter's own encoding) are copied
// unchecked, plain strings, integers and booleans are encoded directly,
// anything else through encoding/json.
func appendOp(b []byte, op *ovsdb.Operation) ([]byte, error) {
	b = append(b, `{"op":`...)
	b = appendString(b, op.Op)
	if op.Table != "" {
		b = append(b, `,"table":`...)
		b = appendString(b, op.Table)
	}
	if op.UUIDName != "" {
		b = append(b, `,"uuid-name":`...)
		b = appendString(b, op.UUIDName)
	}
	if len(op.Row) > 0 {
		b = append(b, `,"row":{`...)
		first := true
		for k, v := range op.Row {
			if !first {
				b = append(b, ',')
			}
			first = false
			b = appendString(b, k)
			b = append(b, ':')
			var err error
			if b, err = appendAny(b, v); err != nil {
				return nil, fmt.Errorf("%s row column %s: %w", op.Table, k, err)
			}
		}
		b = append(b, '}')
	}
	where := op.Where
	if op.Op == ovsdb.OperationSelect && where == nil {
		where = []ovsdb.Condition{}
	}
	rest := opRest{Rows: op.Rows, Columns: op.Columns, Mutations: op.Mutations, Timeout: op.Timeout, Where: where,
		Until: op.Until, Durable: op.Durable, Comment: op.Comment, Lock: op.Lock, UUID: op.UUID}
	if rest.Rows != nil || rest.Columns != nil || rest.Mutations != nil || rest.Timeout != nil || rest.Where != nil ||
		rest.Until != "" || rest.Durable != nil || rest.Comment != nil || rest.Lock != nil || rest.UUID != "" {
		j, err := json.Marshal(rest)
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", op.Op, op.Table, err)
		}
		if op.Op == ovsdb.OperationSelect && len(op.Where) == 0 {
			// omitempty dropped the empty where a select needs.
			j = append([]byte(`{"where":[],`), j[1:]...)
			if string(j) == `{"where":[],}` {
				j = []byte(`{"where":[]}`)
			}
		}
		if len(j) > 2 {
			b = append(b, ',')
			b = append(b, j[1:len(j)-1]...)
		}
	}
	return append(b, '}'), nil
}

// appendAny appends one row value.
func appendAny(b []byte, v any) ([]byte, error) {
	switch x := v.(type) {
	case json.RawMessage:
		if len(x) == 0 {
			return nil, errors.New("empty encoded value")
		}
		return append(b, x...), nil
	case string:
		return appendString(b, x), nil
	case int:
		return strconv.AppendInt(b, int64(x), 10), nil
	case bool:
		return strconv.AppendBool(b, x), nil
	}
	j, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return append(b, j...), nil
}
