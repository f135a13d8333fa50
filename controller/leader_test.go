package controller

import (
	"context"
	"fmt"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/udnkit/udnkit/netconf"
)

// TestLeaderElection: of two replicas only the Lease holder reconciles
// (and so writes); when it stops, the other takes the Lease and carries
// on.
func TestLeaderElection(t *testing.T) {
	e := startEnv(t)
	nb := embeddedNB(t)
	cfg := func() Config {
		return Config{Zone: "node1", NB: nb, LeaderElection: true, LeaseName: "udnkit-test",
			LeaseDuration: 4 * time.Second, RenewDeadline: 3 * time.Second, RetryPeriod: 500 * time.Millisecond}
	}
	create(t, e, node("node1", 1), namespace("blue", primaryLabel),
		udn("blue", "net", netconf.UserDefinedNetworkSpec{Topology: netconf.TopologyLayer3, Role: netconf.RolePrimary, Subnets: []string{"10.10.0.0/16/24"}}))
	a := run(t, e, cfg())
	select {
	case <-a.c.Elected():
	case <-time.After(waitTimeout):
		t.Fatal("replica a never elected")
	}
	b := run(t, e, cfg())
	eventually(t, "the leader's writes", func() error { return udnReady(e, "blue", "net") })
	time.Sleep(2 * time.Second) // b had time to act, were it leading
	select {
	case <-b.c.Elected():
		t.Fatal("replica b elected while a holds the Lease")
	default:
	}
	if n := b.c.r.passes.Load(); n != 0 {
		t.Fatalf("replica b reconciled %d times without the Lease", n)
	}
	if a.c.r.passes.Load() == 0 {
		t.Fatal("the leader never reconciled")
	}

	a.stop() // releases the Lease
	start := time.Now()
	select {
	case <-b.c.Elected():
	case <-time.After(waitTimeout):
		t.Fatal("replica b never took over")
	}
	t.Logf("replica b took over after %v", time.Since(start))
	var lease coordinationv1.Lease
	if err := e.c.Get(context.Background(), client.ObjectKey{Namespace: "kube-system", Name: "udnkit-test"}, &lease); err != nil {
		t.Fatal(err)
	}
	if lease.Spec.HolderIdentity == nil || *lease.Spec.HolderIdentity == "" {
		t.Fatalf("lease holder %v", lease.Spec.HolderIdentity)
	}
	create(t, e, namespace("green", primaryLabel),
		udn("green", "net", netconf.UserDefinedNetworkSpec{Topology: netconf.TopologyLayer2, Role: netconf.RolePrimary, Subnets: []string{"10.20.0.0/16"}}))
	eventually(t, "the new leader's writes", func() error {
		if err := udnReady(e, "green", "net"); err != nil {
			return fmt.Errorf("UDN green/net: %w", err)
		}
		return nil
	})
}
