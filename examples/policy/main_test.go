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
		"rows of [udnkit-pods udnkit-policy udnkit-services udnkit-topology] in [cluster_udn_shared default]",
		"meter acl-logging unit=pktps fair=true",
		`action=drop log=true severity=alert meter=acl-logging`,
		`k8s.ovn.org/id=cluster_udn_shared-network-controller:NetworkPolicy:tenant-a:db-from-tenant-b:Ingress:0:tcp:-1`,
		`name="NP:tenant-a:db-from-tenant-b:Ingress:0" tier=2 direction=to-lport priority=1001 match="ip4.src == {$`,
		`match="(ip4.dst == 192.0.2.0/24 && ip4.dst != {192.0.2.128/25}) && inport == @`,
		`name="NP:tenant-a:Ingress" tier=2 direction=to-lport priority=1000 match="outport == @`,
		"tenant-b/client  -> tenant-a/db      tcp/5432  allowed",
		"tenant-b/client  -> tenant-a/db      tcp/22    denied",
		"tenant-a/web     -> 192.0.2.10       tcp/443   allowed",
		"tenant-a/web     -> 192.0.2.200      tcp/443   denied",
		"applying everything again: 0 changes",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}
