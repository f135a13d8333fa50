package main

import (
	"strings"
	"testing"
)

func TestRun(t *testing.T) {
	var out strings.Builder
	if err := run(&out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"ovs-ofctl add-flow breth0 'cookie=0xdeff105,table=0,priority=100,ip,in_port=3,dl_src=02:42:ac:12:00:03,nw_src=169.254.0.11,actions=ct(commit,zone=64000,nat(src=172.18.0.3),exec(set_field:0x4->ct_mark)),output:1'",
		"table=1,priority=100,ip,ct_state=+est+trk,ct_mark=0x5,actions=output:4",
		"table=0,priority=501,ip,in_port=LOCAL,nw_dst=10.96.0.6,actions=set_field:0x5->reg1",
		"ip link add name udn-1-vrf type vrf table 1001",
		"ip route add 10.128.0.0/16 via 10.128.0.1 dev ovn-k8s-mp1 proto 85 table 1001",
		"ip rule add priority 2000 fwmark 0x1002 lookup 1002",
		"tcp . 30080 : jump udn-mark-0x1001",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}
