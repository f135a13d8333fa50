package ovntest

import (
	"context"
	"testing"

	"github.com/ovn-kubernetes/libovsdb/client"
	"github.com/ovn-kubernetes/libovsdb/ovsdb"

	"github.com/udnkit/udnkit/internal/nbdb"
)

func TestMemoryNB(t *testing.T) {
	ep := MemoryNB(t)
	m, err := nbdb.FullDatabaseModel()
	if err != nil {
		t.Fatal(err)
	}
	c, err := client.NewOVSDBClient(m, client.WithEndpoint(ep))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := c.Connect(ctx); err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if v := c.Schema().Version; v != "7.11.0" {
		t.Fatalf("schema version %s, want 7.11.0", v)
	}
	ops, err := c.Create(&nbdb.LogicalSwitch{Name: "probe"})
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.Transact(ctx, ops...)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ovsdb.CheckOperationResults(res, ops); err != nil {
		t.Fatal(err)
	}
	sel := ovsdb.Operation{Op: ovsdb.OperationSelect, Table: nbdb.LogicalSwitchTable, Where: []ovsdb.Condition{}}
	res, err = c.Transact(ctx, sel)
	if err != nil || len(res) != 1 || len(res[0].Rows) != 1 || res[0].Rows[0]["name"] != "probe" {
		t.Fatalf("select: %v %+v", err, res)
	}
}

func TestSkipInCI(t *testing.T) {
	for _, tc := range []struct {
		ci                string
		wantFatal, wantSk bool
	}{{"true", true, false}, {"", false, true}, {"false", false, true}} {
		t.Setenv("CI", tc.ci)
		ft := &fakeTB{TB: t}
		Skip(ft, ErrUnavailable)
		if ft.fatal != tc.wantFatal || ft.skipped != tc.wantSk {
			t.Errorf("CI=%q: fatal %v skipped %v, want %v %v", tc.ci, ft.fatal, ft.skipped, tc.wantFatal, tc.wantSk)
		}
	}
}

// fakeTB records Fatalf and Skipf instead of ending the test.
type fakeTB struct {
	testing.TB
	fatal, skipped bool
}

func (f *fakeTB) Helper()               {}
func (f *fakeTB) Fatalf(string, ...any) { f.fatal = true }
func (f *fakeTB) Skipf(string, ...any)  { f.skipped = true }
