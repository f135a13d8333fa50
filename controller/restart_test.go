package controller

import (
	"context"
	"fmt"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/udnkit/udnkit"
	"github.com/udnkit/udnkit/netconf"
)

// TestRestart kills the controller mid-stream and starts another, twice:
// once after it wrote the NADs and before any status, once after it
// converged and more networks came while none ran. Nothing is renumbered:
// the NADs' and Nodes' annotations keep their values, and the NB rows of
// the networks that were there are the same rows.
func TestRestart(t *testing.T) {
	e := startEnv(t)
	nb := embeddedNB(t)
	scenario(t, e)

	// First controller: stopped once its first pass wrote the NADs, before
	// it writes anything else (the hook holds the pass until the stop
	// cancels its context: every later write fails).
	var once sync.Once
	stopped := make(chan struct{})
	first := run(t, e, Config{Zone: "node1", NB: nb, hook: func(ctx context.Context, point string) {
		if point == "nads" {
			once.Do(func() { close(stopped); <-ctx.Done() })
		}
	}})
	select {
	case <-stopped:
	case <-time.After(waitTimeout):
		t.Fatal("the first controller never wrote NADs")
	}
	first.stop()
	nadsAfterKill := nadAnnotations(t, e)
	if len(nadsAfterKill) == 0 {
		t.Fatal("no NAD written before the kill")
	}
	var u netconf.UserDefinedNetwork
	if err := e.c.Get(context.Background(), client.ObjectKey{Namespace: "blue", Name: "net"}, &u); err != nil {
		t.Fatal(err)
	}
	if len(u.Status.Conditions) != 0 {
		t.Errorf("the first controller wrote a status after it was stopped: %v", u.Status.Conditions)
	}

	// Second controller: converges from there.
	second := run(t, e, Config{Zone: "node1", NB: nb})
	converged(t, e)
	nads := nadAnnotations(t, e)
	for k, v := range nadsAfterKill {
		if nads[k] != v {
			t.Errorf("NAD %s renumbered by the second controller: %q, was %q", k, nads[k], v)
		}
	}
	nodes := nodeAnnotations(t, e)
	plan, err := second.c.Cluster().Plan("node1")
	if err != nil {
		t.Fatal(err)
	}
	eventually(t, "NB holds the second controller's plan", func() error {
		got, err := nb.Observe(context.Background(), plan.Networks()...)
		if err != nil {
			return err
		}
		if !got.Equal(plan) {
			return fmt.Errorf("NB:\n%s\nplan:\n%s", got, plan)
		}
		return nil
	})
	rowsBefore, err := nb.Observe(context.Background(), plan.Networks()...)
	if err != nil {
		t.Fatal(err)
	}
	second.stop()

	// While no controller runs: a new namespace and UDN.
	create(t, e, namespace("yellow", map[string]string{netconf.LabelPrimaryUDN: ""}),
		udn("yellow", "net", netconf.UserDefinedNetworkSpec{Topology: netconf.TopologyLayer3, Role: netconf.RolePrimary, Subnets: []string{"10.50.0.0/16/24"}}))

	third := run(t, e, Config{Zone: "node1", NB: nb})
	converged(t, e)
	eventually(t, "the new UDN", func() error { return udnReady(e, "yellow", "net") })
	after := nadAnnotations(t, e)
	for k, v := range nads {
		if after[k] != v {
			t.Errorf("NAD %s renumbered by the third controller: %q, was %q", k, after[k], v)
		}
	}
	afterNodes := nodeAnnotations(t, e)
	for n, v := range nodes {
		id, subs := splitNode(t, v)
		id2, subs2 := splitNode(t, afterNodes[n])
		if id2 != id {
			t.Errorf("Node %s: node ID %s, was %s", n, id2, id)
		}
		for network, p := range subs {
			if fmt.Sprint(subs2[network]) != fmt.Sprint(p) {
				t.Errorf("Node %s: host subnets of %s %v, were %v", n, network, subs2[network], p)
			}
		}
		if len(subs2["yellow_net"]) == 0 {
			t.Errorf("Node %s: no host subnet of yellow_net: %v", n, subs2)
		}
	}
	plan3, err := third.c.Cluster().Plan("node1")
	if err != nil {
		t.Fatal(err)
	}
	eventually(t, "NB converged after the third start", func() error {
		got, err := nb.Observe(context.Background(), plan3.Networks()...)
		if err != nil {
			return err
		}
		if !got.Equal(plan3) {
			return fmt.Errorf("NB:\n%s\nplan:\n%s", got, plan3)
		}
		return nil
	})
	rowsAfter, err := nb.Observe(context.Background(), rowsBefore.Networks()...)
	if err != nil {
		t.Fatal(err)
	}
	greenRows, err := nb.Observe(context.Background(), "green_net")
	if err != nil {
		t.Fatal(err)
	}
	third.stop()

	// While no controller runs: green/net is deleted (its finalizer holds
	// it). The next controller's first pass plans the zone without it and
	// removes every row the Cluster's controllers owned of it.
	if err := e.c.Delete(context.Background(), &netconf.UserDefinedNetwork{ObjectMeta: metav1.ObjectMeta{Namespace: "green", Name: "net"}}); err != nil {
		t.Fatal(err)
	}
	run(t, e, Config{Zone: "node1", NB: nb})
	eventually(t, "green/net's rows gone", func() error {
		if err := e.c.Get(context.Background(), client.ObjectKey{Namespace: "green", Name: "net"}, &netconf.UserDefinedNetwork{}); err == nil {
			return fmt.Errorf("UDN green/net still exists")
		}
		st, err := nb.Observe(context.Background(), "green_net")
		if err != nil {
			return err
		}
		if st.Len() != 0 {
			return fmt.Errorf("NB still holds %d rows of green_net (controllers %v), had %d (controllers %v)", st.Len(), st.Controllers(), greenRows.Len(), greenRows.Controllers())
		}
		return nil
	})
	// The connect and the links between primaries now include yellow; the
	// networks' own rows are the same.
	for _, network := range []string{"blue_net", "green_net", "cluster_udn_shared"} {
		a, b := rowsBefore.Without(othersThan(rowsBefore.Networks(), network)...), rowsAfter.Without(othersThan(rowsAfter.Networks(), network)...)
		if !a.Equal(b) {
			t.Errorf("NB rows of %s changed across the restart:\nbefore:\n%s\nafter:\n%s", network, a, b)
		}
	}
}

// splitNode splits nodeAnnotations' value into the node ID and subnets.
func splitNode(t *testing.T, v string) (string, map[string][]netip.Prefix) {
	t.Helper()
	id, js, _ := strings.Cut(v, " ")
	subs, err := udnkit.ParseNodeSubnets(js)
	if err != nil {
		t.Fatalf("node subnets %q: %v", js, err)
	}
	return id, subs
}

func othersThan(all []string, keep string) []string {
	var out []string
	for _, n := range all {
		if n != keep {
			out = append(out, n)
		}
	}
	return out
}
