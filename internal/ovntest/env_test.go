package ovntest

import (
	"context"
	"regexp"
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

// TestNorthdCheck: a plan northd warns about is reported by
// UnexpectedNorthd (and would fail the test at cleanup), unless allowed.
func TestNorthdCheck(t *testing.T) {
	e := Start(t)
	ctx := context.Background()
	// Two ports of one switch requesting one tunnel key.
	if out, err := e.Shell(ctx, `
ovn-nbctl ls-add sw -- lsp-add sw p1 -- lsp-add sw p2 \
  -- set Logical_Switch_Port p1 options:requested-tnl-key=7 -- set Logical_Switch_Port p2 options:requested-tnl-key=7
`); err != nil {
		t.Fatal(err, out)
	}
	if err := e.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	bad, err := e.UnexpectedNorthd()
	if err != nil {
		t.Fatal(err)
	}
	if len(bad) == 0 || !strings.Contains(strings.Join(bad, "\n"), "requests same tunnel key 7") {
		t.Fatalf("northd's complaint about a duplicate tunnel key not reported: %v", bad)
	}
	e.AllowNorthd(regexp.MustCompile(`requests same tunnel key 7 as another LSP or LRP`))
	if bad, _ := e.UnexpectedNorthd(); len(bad) != 0 {
		t.Errorf("allowed warnings still reported: %v", bad)
	}
}
