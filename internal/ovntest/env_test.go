package ovntest

import (
	"context"
	"strings"
	"testing"
)

func TestStartRealOVN(t *testing.T) {
	e := Start(t)
	ctx := context.Background()
	if _, err := e.NBCtl(ctx, "ls-add", "probe"); err != nil {
		t.Fatal(err)
	}
	if err := e.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	out, err := e.SBCtl(ctx, "--bare", "--columns=external_ids", "list", "Datapath_Binding")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "name=probe") {
		t.Fatalf("northd made no datapath for switch probe; SB has:\n%s", out)
	}
	if bad, err := e.NorthdErrors(); err != nil || len(bad) > 0 {
		t.Fatalf("northd log: %v %q", err, bad)
	}
	if err := e.Stop(); err != nil {
		t.Fatal(err)
	}
	if _, err := e.NBCtl(ctx, "--timeout=2", "show"); err == nil {
		t.Fatal("NB still answers after Stop")
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
