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
		"zone: node-a's (interconnect: every node its own zone; the other nodes are remote peers)",
		"applied 79 changes (79 create, 0 update, 0 delete)",
		"network tenant-a_blue: 44 objects",
		"network tenant-b_red: 35 objects",
		"  router tenant.a_blue_ovn_cluster_router",
		"      port rtos-tenant.a_blue_node-a 10.128.0.1/24",
		"      port tenant.a_blue_tstor-node-b (remote)",
		"  router tenant.b_red_transit_router",
		"      port trtor-GR_tenant.b_red_node-b 100.88.0.9/30 (remote, on chassis-node-b)",
		"      port trtos-tenant.b_red_ovn_layer2_switch 10.128.0.1/16",
		"      port k8s-tenant.b_red_node-a 0a:58:0a:80:00:02 10.128.0.2",
		"applying the same plan again: 0 changes, 0 operations",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// Only node-a is local: one management port and one gateway router
	// per network, none for node-b or node-c.
	for _, name := range []string{"k8s-tenant.b_red_node-a", "GR_tenant.b_red_node-a", "k8s-tenant.a_blue_node-a", "GR_tenant.a_blue_node-a"} {
		if n := strings.Count(out, " "+name+"\n") + strings.Count(out, " "+name+" "); n != 1 {
			t.Errorf("%s listed %d times, want once:\n%s", name, n, out)
		}
	}
	for _, remote := range []string{"k8s-tenant.b_red_node-b", "k8s-tenant.b_red_node-c", "GR_tenant.b_red_node-b", "GR_tenant.a_blue_node-c"} {
		if strings.Contains(out, " "+remote+"\n") || strings.Contains(out, " "+remote+" ") {
			t.Errorf("remote node object %s is programmed in node-a's zone:\n%s", remote, out)
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
	if bad, err := env.NorthdErrors(); err != nil || len(bad) > 0 {
		t.Errorf("northd: %q %v", bad, err)
	}
}

func TestQuickstartScript(t *testing.T) {
	var out bytes.Buffer
	if err := run(context.Background(), &out, "", true); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(out.String(), "\novn-nbctl "); n != 79 {
		t.Errorf("script has %d ovn-nbctl commands, want 79", n)
	}
	for _, want := range []string{"\n# applied 79 changes (79 create, 0 update, 0 delete) as 79 operations in 79 transaction(s)",
		"\n#   router tenant.b_red_transit_router\n", "\n# applying the same plan again: 0 changes, 0 operations\n"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("script lacks %q:\n%s", want, out.String())
		}
	}
}
