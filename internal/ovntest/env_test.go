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
