package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/udnkit/udnkit/internal/ovntest"
)

func check(t *testing.T, out string) {
	t.Helper()
	for _, want := range []string{
		"applied 130 changes (130 create, 0 update, 0 delete)",
		"network tenant-a_blue: 74 objects",
		"network tenant-b_red: 56 objects",
		"  router tenant.a_blue_ovn_cluster_router",
		"      port rtos-tenant.a_blue_node-b 10.128.1.1/24",
		"  router tenant.b_red_transit_router",
		"      port trtos-tenant.b_red_ovn_layer2_switch 10.128.0.1/16",
		"applying the same plan again: 0 changes, 0 operations",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestQuickstartEmbedded(t *testing.T) {
	var out bytes.Buffer
	if err := run(context.Background(), &out, "", false); err != nil {
		t.Fatal(err)
	}
	check(t, out.String())
}

func TestQuickstartRealNB(t *testing.T) {
	env := ovntest.Start(t)
	var out bytes.Buffer
	if err := run(context.Background(), &out, env.NBTCP, false); err != nil {
		t.Fatal(err)
	}
	check(t, out.String())
	if err := env.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	if bad, _ := env.NorthdErrors(); len(bad) > 0 {
		t.Errorf("northd: %q", bad)
	}
}

func TestQuickstartScript(t *testing.T) {
	var out bytes.Buffer
	if err := run(context.Background(), &out, "", true); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(out.String(), "\novn-nbctl "); n != 130 {
		t.Errorf("script has %d ovn-nbctl commands, want 130", n)
	}
}
