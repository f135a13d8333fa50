package main

import (
	"context"
	"strings"
	"testing"
)

func TestRun(t *testing.T) {
	var out strings.Builder
	if err := run(context.Background(), &out, ""); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"port tenant.a.blue_tenant-a_web-0 on tenant.a_blue_node-a: [0a:58:0a:80:00:03 10.128.0.3]",
		"port tenant.b.red_tenant-b_web-0 on tenant.b_red_node-a: [0a:58:0a:80:00:03 10.128.0.3]",
		`"tenant-b/red":{"ip_addresses":["10.128.0.3/24"]`,
		`load_balancer tenant.a_blue_Service_tenant-a/web_TCP_cluster protocol=tcp vips=[10.96.0.50:80=10.128.0.3:8080]`,
		`vips=[10.96.0.60:80=10.128.0.3:8080] options={event=false, hairpin_snat_ip=169.254.0.5 fd69::5, neighbor_responder=none, reject=true, skip_snat=false} groups=["tenant.b_red_clusterLBGroup"]`,
		"applying everything again: 0 changes",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}
