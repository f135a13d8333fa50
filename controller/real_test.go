package controller

import (
	"context"
	"fmt"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/udnkit/udnkit/backend/ovnnb"
	"github.com/udnkit/udnkit/internal/ovntest"
	"github.com/udnkit/udnkit/topology/egressip"
	egressipkube "github.com/udnkit/udnkit/topology/egressip/kube"
	egressqoskube "github.com/udnkit/udnkit/topology/egressqos/kube"
)

// TestRealRestart runs the controller against a real NB (ovsdb-server and
// ovn-northd): once it converged, it is stopped and another started; the
// NB read back with ovn-nbctl (every row, UUIDs replaced by contents) is
// the same after the restart as before — nothing renumbered, no duplicate,
// no missing row, the EgressIP's reroute keeps its mark — and northd warns
// about nothing it was given.
func TestRealRestart(t *testing.T) {
	e := startEnv(t)
	ovn := ovntest.Start(t)
	ctx := context.Background()
	nb, err := ovnnb.Dial(ctx, ovnnb.Config{Endpoints: []string{ovn.NBUnix}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nb.Close)
	scenario(t, e)
	// Egress: an egress node, an EgressIP of a pod of blue and blue's
	// EgressQoS, whose rows and mark must survive the restart too.
	node1 := node("node1", 1)
	node1.Labels = map[string]string{egressip.LabelEgressAssignable: ""}
	if err := e.c.Update(ctx, withVersion(t, e, node1)); err != nil {
		t.Fatal(err)
	}
	serviceAccounts(t, e, "blue")
	create(t, e, pod("blue", "web-0", "node1", map[string]string{"app": "web"}, nil), egressIP("eip", "172.18.0.100", "blue"),
		&egressqoskube.EgressQoS{ObjectMeta: metav1.ObjectMeta{Namespace: "blue", Name: "default"}, Spec: egressqoskube.EgressQoSSpec{
			Egress: []egressqoskube.EgressQoSRule{{DSCP: 46}}}})
	first := run(t, e, Config{Zone: "node1", NB: nb})
	converged(t, e)
	var mark string
	eventually(t, "EgressIP eip marked and assigned", func() error {
		var x egressipkube.EgressIP
		if err := e.c.Get(ctx, client.ObjectKey{Name: "eip"}, &x); err != nil {
			return err
		}
		if mark = x.Annotations[egressip.AnnotationMark]; mark == "" || len(x.Status.Items) != 1 {
			return fmt.Errorf("mark %q, status.items %+v", mark, x.Status.Items)
		}
		return nil
	})
	plan, err := first.c.Cluster().Plan("node1")
	if err != nil {
		t.Fatal(err)
	}
	eventually(t, "NB holds the plan", func() error {
		got, err := nb.Observe(ctx, plan.Networks()...)
		if err != nil {
			return err
		}
		if !got.Equal(plan) {
			return fmt.Errorf("NB differs from the plan")
		}
		return nil
	})
	before, err := ovn.Canonical(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(before, "blue_net_ovn_cluster_router") {
		t.Fatalf("no cluster router of blue_net in the NB:\n%s", before)
	}
	// What ovn-nbctl reads: web-0's reroute with the EgressIP's mark, and
	// the EgressQoS's DSCP row.
	pols, err := ovn.NBCtl(ctx, "--format=csv", "--data=bare", "--no-headings", "--columns=match,action,options",
		"find", "Logical_Router_Policy", "priority=100")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(pols, "reroute,pkt_mark="+mark) {
		t.Errorf("no reroute policy with pkt_mark=%s in the NB:\n%s", mark, pols)
	}
	qos, err := ovn.NBCtl(ctx, "--format=csv", "--data=bare", "--no-headings", "--columns=action", "list", "QoS")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(qos, "dscp=46") {
		t.Errorf("no QoS row of blue's EgressQoS (dscp=46) in the NB:\n%s", qos)
	}
	nads, nodes := nadAnnotations(t, e), nodeAnnotations(t, e)
	first.stop()

	second := run(t, e, Config{Zone: "node1", NB: nb})
	converged(t, e)
	eventually(t, "the second controller synced", func() error {
		if second.c.r.passes.Load() == 0 {
			return fmt.Errorf("no pass yet")
		}
		return nil
	})
	second.stop() // its passes are over: the NB is what it left
	after, err := ovn.Canonical(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if after != before {
		t.Errorf("the NB changed across the restart:\n%s", lineDiff(before, after))
	}
	if got := nadAnnotations(t, e); fmt.Sprint(got) != fmt.Sprint(nads) {
		t.Errorf("NAD annotations changed: %v, were %v", got, nads)
	}
	if got := nodeAnnotations(t, e); fmt.Sprint(got) != fmt.Sprint(nodes) {
		t.Errorf("Node annotations changed: %v, were %v", got, nodes)
	}
	if got := egressMarks(t, e)["eip"]; got != mark {
		t.Errorf("EgressIP eip: mark %s after the restart, was %s", got, mark)
	}
	if err := ovn.Sync(ctx); err != nil {
		t.Fatal(err)
	}
}

// lineDiff lists the lines only one of a and b has.
func lineDiff(a, b string) string {
	in := func(s string) map[string]bool {
		m := map[string]bool{}
		for _, l := range strings.Split(s, "\n") {
			m[l] = true
		}
		return m
	}
	ia, ib := in(a), in(b)
	var out []string
	for _, l := range strings.Split(a, "\n") {
		if !ib[l] {
			out = append(out, "- "+l)
		}
	}
	for _, l := range strings.Split(b, "\n") {
		if !ia[l] {
			out = append(out, "+ "+l)
		}
	}
	return strings.Join(out, "\n")
}

// withVersion returns o with the resourceVersion of the stored object, for
// an Update.
func withVersion(t *testing.T, e *env, o client.Object) client.Object {
	t.Helper()
	cur := o.DeepCopyObject().(client.Object)
	if err := e.c.Get(context.Background(), client.ObjectKeyFromObject(o), cur); err != nil {
		t.Fatal(err)
	}
	o.SetResourceVersion(cur.GetResourceVersion())
	return o
}
