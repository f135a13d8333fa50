package ovnnb

import (
	"github.com/udnkit/udnkit/internal/nbrow"

	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/cenkalti/backoff/v4"
	"github.com/ovn-kubernetes/libovsdb/client"
	"github.com/ovn-kubernetes/libovsdb/model"
	"github.com/udnkit/udnkit/internal/sdkerr"
)

// MinSchemaVersion is the oldest OVN Northbound schema the adapter writes
// to: OVN 25.03 (transit routers, ACL tiers, the pass action).
const MinSchemaVersion = "7.11.0"

// Errors callers branch on. Every error the adapter returns wraps one of
// these or a context error.
var (
	// ErrConnect: no endpoint could be reached or none was usable.
	ErrConnect = sdkerr.New(sdkerr.Unavailable, "ovnnb: cannot connect to the Northbound database")
	// ErrSchema: the server's schema is older than MinSchemaVersion or
	// lacks a table or column the adapter writes.
	ErrSchema = sdkerr.New(sdkerr.NotSupported, "ovnnb: unsupported Northbound schema")
	// ErrInvalidChange: a change set is malformed (unknown kind, missing
	// parent, a row to update or delete that is not there, a duplicate).
	// Nothing was written. A row that already exists also wraps
	// topology.ErrConflict, one that is not there topology.ErrNotFound.
	ErrInvalidChange = nbrow.ErrInvalid
	// ErrTransaction: the server refused a transaction. Nothing of that
	// transaction was written.
	ErrTransaction = sdkerr.New(sdkerr.Refused, "ovnnb: transaction failed")
	// ErrOutcomeUnknown: a transaction was sent (or may have been) but no
	// reply came: the context ended while waiting, or the connection was
	// lost. The server may have committed it or not. Observe (or Sync)
	// again before writing; applying the same changes again blindly may
	// fail or write twice.
	ErrOutcomeUnknown = sdkerr.New(sdkerr.OutcomeUnknown, "ovnnb: transaction outcome unknown")
)

// Config says where the Northbound database is and how to write to it.
// The zero value is not usable: Endpoints must name at least one server.
type Config struct {
	// Endpoints in OVSDB connection syntax: "unix:/path", "tcp:host:port",
	// "ssl:host:port". Several endpoints name the members of a clustered
	// database; the adapter then only talks to the leader.
	Endpoints []string
	// TLS is required for ssl: endpoints.
	TLS *tls.Config
	// Timeout bounds connecting to one endpoint and each reconnect
	// attempt. Zero means 10s.
	Timeout time.Duration
	// NoReconnect disables the automatic reconnect (with exponential
	// backoff) after the connection drops. While reconnecting, Apply
	// and Observe wait, bounded by their context.
	NoReconnect bool
	// MaxOpsPerTransaction bounds the size of one transaction. Zero
	// means one transaction for a change set of up to
	// DefaultMaxOpsPerTransaction operations and transactions of
	// DefaultBatchOps for a larger one; a negative value means one
	// transaction per Apply, whatever its size. A bounded Apply that fails midway
	// leaves the earlier batches written; the next Observe/Diff/Apply
	// converges.
	MaxOpsPerTransaction int
	// Monitor keeps a client cache of the adapter's tables (an OVSDB
	// monitor narrowed to the tables and columns the adapter reads,
	// re-established on reconnect): Observe then reads the cache instead
	// of sending a select transaction, and Apply and Sync plan against it,
	// checking by UUID only the rows the plan touches. See the package
	// documentation for what Observe sees.
	Monitor bool
	// StreamOps is the transaction size, in operations, from which Apply
	// streams the transaction on a connection of its own to the endpoint
	// in use (the leader) instead of sending it through the libovsdb
	// client: its operations are encoded straight onto the socket, so
	// the server parses while the client encodes. Zero means
	// DefaultStreamOps (100); a negative value never streams.
	StreamOps int
}

// tables the adapter reads and writes, from the kinds (nbrow.Models): the
// client model and every select are narrowed to them.
var tables = nbrow.Models()

func clientModel() (model.ClientDBModel, error) {
	return model.NewClientDBModel("OVN_Northbound", tables)
}

// Client is a connection to one Northbound database. It is safe for
// concurrent use, but concurrent Applies of overlapping changes race like
// any two writers.
type Client struct {
	cfg     Config
	ovs     client.Client
	dbModel model.DatabaseModel
	layouts map[reflect.Type]*layout
	mon     *monitor // nil unless Config.Monitor
	closed  atomic.Bool
	// nameWaits: creates of rows without a name index are guarded by a
	// wait on the name, not a given UUID (see nameUUID): the embedded
	// server cannot refuse a duplicate UUID as an operation error.
	nameWaits bool
}

// Dial connects to the Northbound database and checks its schema.
func Dial(ctx context.Context, cfg Config) (*Client, error) {
	if len(cfg.Endpoints) == 0 {
		return nil, fmt.Errorf("%w: Config.Endpoints is empty", ErrConnect)
	}
	timeout := cfg.Timeout
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	opts := []client.Option{}
	for _, ep := range cfg.Endpoints {
		scheme, rest, ok := strings.Cut(ep, ":")
		if !ok || rest == "" || (scheme != "unix" && scheme != "tcp" && scheme != "ssl") {
			return nil, fmt.Errorf("%w: endpoint %q: want unix:PATH, tcp:HOST:PORT or ssl:HOST:PORT", ErrConnect, ep)
		}
		if scheme == "ssl" && cfg.TLS == nil {
			return nil, fmt.Errorf("%w: endpoint %q needs Config.TLS", ErrConnect, ep)
		}
		opts = append(opts, client.WithEndpoint(ep))
	}
	if cfg.TLS != nil {
		opts = append(opts, client.WithTLSConfig(cfg.TLS))
	}
	if len(cfg.Endpoints) > 1 {
		opts = append(opts, client.WithLeaderOnly(true))
	}
	if !cfg.NoReconnect {
		bo := backoff.NewExponentialBackOff()
		bo.MaxInterval = 5 * time.Second
		bo.MaxElapsedTime = 0
		opts = append(opts, client.WithReconnect(timeout, bo))
	}
	cm, err := clientModel()
	if err != nil {
		return nil, err
	}
	ovs, err := client.NewOVSDBClient(cm, opts...)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrConnect, err)
	}
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if err := ovs.Connect(cctx); err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("%w: %s: %w", ErrConnect, strings.Join(cfg.Endpoints, ","), ctx.Err())
		}
		if strings.Contains(err.Error(), "validation error") || strings.Contains(err.Error(), "not found") {
			return nil, fmt.Errorf("%w: %s: %v", ErrSchema, strings.Join(cfg.Endpoints, ","), err)
		}
		return nil, fmt.Errorf("%w: %s: %v", ErrConnect, strings.Join(cfg.Endpoints, ","), err)
	}
	schema := ovs.Schema()
	if !versionAtLeast(schema.Version, MinSchemaVersion) {
		ovs.Close()
		return nil, fmt.Errorf("%w: %s serves OVN_Northbound %s, need at least %s (OVN 25.03)",
			ErrSchema, ovs.CurrentEndpoint(), schema.Version, MinSchemaVersion)
	}
	dbModel, errs := model.NewDatabaseModel(schema, cm)
	if len(errs) > 0 {
		ovs.Close()
		return nil, fmt.Errorf("%w: %v", ErrSchema, errors.Join(errs...))
	}
	lay, err := layouts(schema)
	if err != nil {
		ovs.Close()
		return nil, err
	}
	c := &Client{cfg: cfg, ovs: ovs, dbModel: dbModel, layouts: lay}
	for _, ep := range cfg.Endpoints {
		if _, ok := embeddedEndpoints.Load(ep); ok {
			c.nameWaits = true
		}
	}
	if cfg.Monitor {
		mctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		if err := c.startMonitor(mctx); err != nil {
			ovs.Close()
			return nil, err
		}
	}
	return c, nil
}

// timeout is Config.Timeout or its default.
func (c *Client) timeout() time.Duration {
	if c.cfg.Timeout <= 0 {
		return 10 * time.Second
	}
	return c.cfg.Timeout
}

func joinEndpoints(eps []string) string { return strings.Join(eps, ",") }

// Close closes the connection.
func (c *Client) Close() {
	c.closed.Store(true)
	c.ovs.Close()
}

// open refuses a closed client: libovsdb would wait for a reconnect that
// never comes.
func (c *Client) open() error {
	if c.closed.Load() {
		return fmt.Errorf("%w: the client is closed", ErrConnect)
	}
	return nil
}

// Endpoint returns the endpoint currently connected to.
func (c *Client) Endpoint() string { return c.ovs.CurrentEndpoint() }

// SchemaVersion returns the server's OVN_Northbound schema version.
func (c *Client) SchemaVersion() string { return c.ovs.Schema().Version }

// versionAtLeast compares dotted x.y.z versions numerically.
func versionAtLeast(have, want string) bool {
	h, w := strings.Split(have, "."), strings.Split(want, ".")
	for i := range w {
		var a int
		if i < len(h) {
			a, _ = strconv.Atoi(h[i])
		}
		b, _ := strconv.Atoi(w[i])
		if a != b {
			return a > b
		}
	}
	return true
}
