package ovntest

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/ovn-kubernetes/libovsdb/database/inmemory"
	"github.com/ovn-kubernetes/libovsdb/model"
	"github.com/ovn-kubernetes/libovsdb/server"

	"github.com/udnkit/udnkit/internal/nbdb"
)

// MemoryNB starts an in-process, in-memory OVSDB server with the OVN
// Northbound schema for tb and returns its endpoint ("unix:..."). It is
// stopped when tb ends. Use it where real OVN is not needed: it starts in
// milliseconds and needs nothing installed.
func MemoryNB(tb testing.TB) string {
	tb.Helper()
	full, err := nbdb.FullDatabaseModel()
	if err != nil {
		tb.Fatal(err)
	}
	schema := nbdb.Schema()
	dbModel, errs := model.NewDatabaseModel(schema, full)
	if len(errs) > 0 {
		tb.Fatal(errs)
	}
	log := logr.Discard()
	db := inmemory.NewDatabase(map[string]model.ClientDBModel{schema.Name: full}, &log)
	srv, err := server.NewOvsdbServer(db, &log, dbModel)
	if err != nil {
		tb.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "udnkit-memnb-")
	if err != nil {
		tb.Fatal(err)
	}
	sock := filepath.Join(dir, "nb.sock")
	go func() { _ = srv.Serve("unix", sock) }()
	tb.Cleanup(func() {
		srv.Close()
		os.RemoveAll(dir)
	})
	for deadline := time.Now().Add(5 * time.Second); !srv.Ready(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			tb.Fatal("in-memory NB not ready after 5s")
		}
	}
	return "unix:" + sock
}
