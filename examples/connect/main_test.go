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
		"Accepted=True (ValidationSucceeded)",
		"port blue-green-to-blue_blue-node-a 0a:58:c0:a8:00:05 [192.168.0.5/31] peer=blue_blue-node-a-to-blue-green",
		"route 10.129.1.0/24 via 192.168.1.6",
		`green_green_ovn_cluster_router: inport == "rtos-green_green_node-b" && ip4.dst == 10.128.0.0/16 -> [192.168.1.7]`,
		"applying the plan again: 0 changes",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "red_red_ovn_cluster_router:") {
		t.Errorf("red, not selected, has connect policies:\n%s", out.String())
	}
}
