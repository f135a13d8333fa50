package ovnnb

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/go-logr/logr"
	"github.com/ovn-kubernetes/libovsdb/database/inmemory"
	"github.com/ovn-kubernetes/libovsdb/model"
	"github.com/ovn-kubernetes/libovsdb/ovsdb"
	"github.com/ovn-kubernetes/libovsdb/server"

	"github.com/udnkit/udnkit/internal/nbdb"
	"github.com/udnkit/udnkit/internal/sdkerr"
)

// Embedded is an in-process, in-memory OVSDB server holding an empty OVN
// Northbound database (schema 7.11.0), reachable on a private unix socket.
// It is the default target of the quickstart and of fast tests. Nothing is
// persisted; Close discards everything.
type Embedded struct {
	srv  *server.OvsdbServer
	dir  string
	done chan error
}

// StartEmbedded starts an embedded Northbound server.
func StartEmbedded() (*Embedded, error) {
	return startEmbedded(nbdb.Schema())
}

// startEmbedded serves schema (tests pass an altered one).
func startEmbedded(schema ovsdb.DatabaseSchema) (*Embedded, error) {
	full, err := nbdb.FullDatabaseModel()
	if err != nil {
		return nil, sdkerr.Errorf(sdkerr.Unavailable, "embedded NB model: %w", err)
	}
	dbModel, errs := model.NewDatabaseModel(schema, full)
	if len(errs) > 0 {
		return nil, sdkerr.Errorf(sdkerr.Unavailable, "embedded NB model: %v", errs)
	}
	log := logr.Discard()
	db := inmemory.NewDatabase(map[string]model.ClientDBModel{schema.Name: full}, &log)
	srv, err := server.NewOvsdbServer(db, &log, dbModel)
	if err != nil {
		return nil, sdkerr.Errorf(sdkerr.Unavailable, "embedded NB: %w", err)
	}
	dir, err := os.MkdirTemp("", "udnkit-nb-")
	if err != nil {
		return nil, sdkerr.Errorf(sdkerr.Unavailable, "embedded NB: %w", err)
	}
	e := &Embedded{srv: srv, dir: dir, done: make(chan error, 1)}
	embeddedEndpoints.Store(e.Endpoint(), struct{}{})
	go func() { e.done <- srv.Serve("unix", e.socket()) }()
	deadline := time.Now().Add(5 * time.Second)
	for !srv.Ready() {
		select {
		case err := <-e.done:
			os.RemoveAll(dir)
			return nil, sdkerr.Errorf(sdkerr.Unavailable, "embedded NB: %w", err)
		default:
		}
		if time.Now().After(deadline) {
			srv.Close()
			os.RemoveAll(dir)
			return nil, sdkerr.Errorf(sdkerr.Unavailable, "embedded NB: not ready after 5s")
		}
		time.Sleep(time.Millisecond)
	}
	return e, nil
}

func (e *Embedded) socket() string { return filepath.Join(e.dir, "nb.sock") }

// embeddedEndpoints holds the endpoints of this process's embedded
// servers. Their database (libovsdb's) takes an insert under a UUID that
// is already in use as far as its commit, which then fails as a whole and
// after the monitors were sent the row: a Client of one creates rows
// without a name index under a wait on the name instead (see nameUUID).
var embeddedEndpoints sync.Map

// Endpoint returns the server's endpoint, "unix:/.../nb.sock".
func (e *Embedded) Endpoint() string { return "unix:" + e.socket() }

// Config returns a Config that targets the server.
func (e *Embedded) Config() Config { return Config{Endpoints: []string{e.Endpoint()}} }

// Close stops the server and discards its contents.
func (e *Embedded) Close() error {
	embeddedEndpoints.Delete(e.Endpoint())
	e.srv.Close()
	return os.RemoveAll(e.dir)
}

// Open dials endpoints, comma separated as a command line gives them
// ("unix:/run/ovn/ovnnb_db.sock,tcp:10.0.0.2:6641"), or, when endpoints is
// empty, starts an embedded Northbound database and dials it. Its close
// func closes the client and stops the embedded database. base, when
// given, is the rest of the Config (Monitor, Timeout, ...); its Endpoints
// are replaced.
func Open(ctx context.Context, endpoints string, base ...Config) (*Client, func(), error) {
	var cfg Config
	if len(base) > 0 {
		cfg = base[0]
	}
	cfg.Endpoints = strings.Split(endpoints, ",")
	stop := func() {}
	if endpoints == "" {
		e, err := StartEmbedded()
		if err != nil {
			return nil, nil, err
		}
		cfg.Endpoints, stop = e.Config().Endpoints, func() { _ = e.Close() }
	}
	c, err := Dial(ctx, cfg)
	if err != nil {
		stop()
		return nil, nil, err
	}
	return c, func() { c.Close(); stop() }, nil
}
