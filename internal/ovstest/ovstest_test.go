package ovstest

import (
	"context"
	"strings"
	"testing"
	"time"
)

func TestGatewayBridge(t *testing.T) {
	e := Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ports, err := e.GatewayBridge(ctx, "breth0", "02:42:ac:12:00:03", "eth0", "patch-a")
	if err != nil {
		t.Fatal(err)
	}
	if len(ports) != 2 || ports["eth0"] == ports["patch-a"] || ports["eth0"] <= 0 {
		t.Fatalf("ports %v", ports)
	}
	out, err := e.Trace(ctx, "breth0", "in_port=eth0,ip,nw_dst=10.0.0.1")
	if err != nil || !strings.Contains(out, "Datapath actions") {
		t.Fatalf("ofproto/trace: %v\n%s", err, out)
	}
}
