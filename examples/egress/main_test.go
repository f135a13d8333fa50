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
		`status patch {"status":{"items":[{"node":"node-b","egressIP":"172.18.0.100"}]}}, unassigned []`,
		`{"k8s.ovn.org/egressip-mark":"50000"}`,
		`priority=100 match="ip4.src == 10.128.0.3" action=reroute nexthops=[100.88.0.3] options={pkt_mark=50000}`,
		`priority=999 match="(ip4.dst == 0.0.0.0/0 || ip6.dst == ::/0) && ip4.src == $`,
		`action={dscp=10}`,
		`k8s.ovn.org/bridge-egress-ips=["172.18.0.100"]`,
		`priority=105,in_port=3,dl_src=0a:58:ac:12:00:03,ip,pkt_mark=50000,actions=ct(commit,zone=64000,nat(src=172.18.0.100)`,
		`priority=105,in_port=3,dl_src=0a:58:ac:12:00:03,ip,pkt_mark=0x3f0,actions=ct(commit,zone=64000,nat(src=172.18.0.3)`,
		"applying everything again: 0 changes",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "10.128.0.4\" action=reroute") {
		t.Errorf("the db pod is rerouted:\n%s", out.String())
	}
}
