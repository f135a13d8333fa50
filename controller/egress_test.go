package controller

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/udnkit/udnkit/backend/ovnnb"
	"github.com/udnkit/udnkit/topology"
	"github.com/udnkit/udnkit/topology/egressip"
	egressipkube "github.com/udnkit/udnkit/topology/egressip/kube"
	"github.com/udnkit/udnkit/topology/egressqos"
	egressqoskube "github.com/udnkit/udnkit/topology/egressqos/kube"
)

// egressIP returns an EgressIP of ip for the pods labelled app=web of
// namespace ns.
func egressIP(name, ip, ns string) *egressipkube.EgressIP {
	return &egressipkube.EgressIP{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: egressipkube.EgressIPSpec{
		EgressIPs:         []string{ip},
		NamespaceSelector: metav1.LabelSelector{MatchLabels: map[string]string{"kubernetes.io/metadata.name": ns}},
		PodSelector:       metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
	}}
}

// egressMarks returns every EgressIP's k8s.ovn.org/egressip-mark, by name.
func egressMarks(t testing.TB, e *env) map[string]string {
	t.Helper()
	var l egressipkube.EgressIPList
	if err := e.c.List(context.Background(), &l); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, x := range l.Items {
		out[x.Name] = x.Annotations[egressip.AnnotationMark]
	}
	return out
}

// checkEgress runs on the end-to-end test's cluster once its workloads are
// in (pod blue/web-0 on node1, labelled app=web, on the primary UDN
// blue/net): node1 labelled egress-assignable and an EgressIP selecting
// web-0 give the EgressIP a status item on node1 and a mark annotation,
// and the NB a reroute policy of web-0 with that mark; the namespace's
// EgressQoS gives QoS rows and a Ready-In-Zone condition. Then the
// controller is stopped, an EgressIP that sorts first is created, and a
// new controller keeps every mark (the new one takes another).
func checkEgress(t *testing.T, e *env, ctl *running, nb *ovnnb.Client) *running {
	ctx := context.Background()
	syncs := ctl.c.r.syncs.Load()
	patch := client.RawPatch(types.MergePatchType, []byte(`{"metadata":{"labels":{"`+egressip.LabelEgressAssignable+`":""}}}`))
	if err := e.c.Patch(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node1"}}, patch); err != nil {
		t.Fatal(err)
	}
	create(t, e, egressIP("eip-b", "172.18.0.100", "blue"))
	eventually(t, "EgressIP eip-b marked", func() error {
		if m := egressMarks(t, e)["eip-b"]; m == "" {
			return fmt.Errorf("no mark")
		}
		return nil
	})
	create(t, e, egressIP("eip-a", "172.18.0.101", "nobody"))
	eventually(t, "EgressIP status and marks", func() error {
		var x egressipkube.EgressIP
		if err := e.c.Get(ctx, client.ObjectKey{Name: "eip-b"}, &x); err != nil {
			return err
		}
		want := []egressipkube.EgressIPStatusItem{{Node: "node1", EgressIP: "172.18.0.100"}}
		if !slices.Equal(x.Status.Items, want) {
			return fmt.Errorf("eip-b status.items %+v, want %+v", x.Status.Items, want)
		}
		if m := egressMarks(t, e); m["eip-a"] == "" || m["eip-a"] == m["eip-b"] {
			return fmt.Errorf("marks %v", m)
		}
		return nil
	})
	marks := egressMarks(t, e)
	pn, _, err := podNetworks(e, "blue", "web-0")
	if err != nil {
		t.Fatal(err)
	}
	web0, err := firstIP(pn, "blue/net")
	if err != nil {
		t.Fatal(err)
	}
	reroute := func() error {
		st, err := nb.Observe(ctx, "blue_net")
		if err != nil {
			return err
		}
		for o := range st.Objects() {
			p, ok := o.(topology.Policy)
			if !ok || p.Action != topology.PolicyReroute || p.Match != "ip4.src == "+web0.String() {
				continue
			}
			if m, _ := p.Options.Get(topology.OptPktMark); m == marks["eip-b"] {
				return nil
			}
			return fmt.Errorf("reroute policy of web-0 %+v: pkt_mark is not eip-b's mark %s", p, marks["eip-b"])
		}
		return fmt.Errorf("no reroute policy of web-0 (%s) in the NB", web0)
	}
	eventually(t, "NB reroute policy", reroute)

	dscp := egressqoskube.EgressQoS{ObjectMeta: metav1.ObjectMeta{Namespace: "blue", Name: "default"}, Spec: egressqoskube.EgressQoSSpec{
		Egress: []egressqoskube.EgressQoSRule{{DSCP: 46, PodSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}}}}}
	create(t, e, &dscp)
	eventually(t, "EgressQoS rows and condition", func() error {
		st, err := nb.Observe(ctx, "blue_net")
		if err != nil {
			return err
		}
		var rows int
		for o := range st.Objects() {
			if q, ok := o.(topology.QoS); ok {
				if v, _ := q.Action.Get(topology.QoSDSCP); v == 46 {
					rows++
				}
			}
		}
		if rows == 0 {
			return fmt.Errorf("no QoS row with dscp 46 in the NB")
		}
		var q egressqoskube.EgressQoS
		if err := e.c.Get(ctx, client.ObjectKeyFromObject(&dscp), &q); err != nil {
			return err
		}
		if q.Status.Status != egressqoskube.MessageApplied {
			return fmt.Errorf("status %q", q.Status.Status)
		}
		return condition(q.Status.Conditions, "Ready-In-Zone-node1", metav1.ConditionTrue)
	})
	bad := egressqoskube.EgressQoS{ObjectMeta: metav1.ObjectMeta{Namespace: "green", Name: "default"}, Spec: egressqoskube.EgressQoSSpec{
		Egress: []egressqoskube.EgressQoSRule{{DSCP: 10, PodSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
			{Key: "app", Operator: "Near"}}}}}}}
	create(t, e, &bad)
	eventually(t, "refused EgressQoS condition", func() error {
		var q egressqoskube.EgressQoS
		if err := e.c.Get(ctx, client.ObjectKeyFromObject(&bad), &q); err != nil {
			return err
		}
		if err := condition(q.Status.Conditions, "Ready-In-Zone-node1", metav1.ConditionFalse); err != nil {
			return err
		}
		if msg := q.Status.Conditions[0].Message; !strings.Contains(msg, "spec.egress[0].podSelector.matchExpressions[0].operator") {
			return fmt.Errorf("message %q names no field", msg)
		}
		return nil
	})

	if n := ctl.c.r.syncs.Load(); n != syncs {
		t.Errorf("the egress events planned the zone %d times, want none (PlanEvent's changes only)", n-syncs)
	}

	// A restart with an EgressIP created while no controller ran, sorting
	// before the others: nothing is renumbered.
	ctl.stop()
	create(t, e, egressIP("eip-0", "172.18.0.102", "nobody"))
	counted, writes := countWrites(e) // the new controller's requests other than reads
	next := run(t, counted, Config{Zone: "node1", NB: nb})
	eventually(t, "EgressIP eip-0 marked", func() error {
		if m := egressMarks(t, e)["eip-0"]; m == "" {
			return fmt.Errorf("no mark")
		}
		return nil
	})
	after := egressMarks(t, e)
	for _, name := range []string{"eip-a", "eip-b"} {
		if after[name] != marks[name] {
			t.Errorf("EgressIP %s: mark %s after the restart, was %s", name, after[name], marks[name])
		}
	}
	if m := after["eip-0"]; m == marks["eip-a"] || m == marks["eip-b"] {
		t.Errorf("EgressIP eip-0 took mark %s of another: %v", m, after)
	}
	if _, err := strconv.Atoi(after["eip-0"]); err != nil {
		t.Errorf("EgressIP eip-0 mark %q", after["eip-0"])
	}
	nbPlan(t, next, nb, "node1")
	if err := reroute(); err != nil {
		t.Error(err)
	}

	// Quiet: a pass with nothing changed writes nothing (the API server
	// would not change a resourceVersion for a write of the same object:
	// the controller's requests are counted).
	eventually(t, "eip-0 status written", func() error {
		var x egressipkube.EgressIP
		if err := e.c.Get(ctx, client.ObjectKey{Name: "eip-0"}, &x); err != nil {
			return err
		}
		if len(x.Status.Items) != 1 {
			return fmt.Errorf("status.items %+v", x.Status.Items)
		}
		return nil
	})
	before := versions(t, e)
	w0 := writes.Load()
	want := next.c.r.passes.Load() + 1
	touch := client.RawPatch(types.MergePatchType, []byte(`{"metadata":{"annotations":{"example.com/touched":"egress"}}}`))
	if err := e.c.Patch(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "red"}}, touch); err != nil {
		t.Fatal(err)
	}
	eventually(t, "a pass", func() error {
		if n := next.c.r.passes.Load(); n < want {
			return fmt.Errorf("%d passes, want %d", n, want)
		}
		return nil
	})
	for k, v := range versions(t, e) {
		if before[k] != v {
			t.Errorf("a pass with nothing changed wrote %s: resourceVersion %s, was %s", k, v, before[k])
		}
	}
	if n := writes.Load() - w0; n != 0 {
		t.Errorf("a pass with nothing changed sent the API server %d writes, want none", n)
	}

	// node1 losing its egress-assignable label unassigns eip-b (empty
	// status.items, no reroute); getting it back assigns it again.
	label := func(v string) {
		t.Helper()
		p := client.RawPatch(types.MergePatchType, []byte(`{"metadata":{"labels":{"`+egressip.LabelEgressAssignable+`":`+v+`}}}`))
		if err := e.c.Patch(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node1"}}, p); err != nil {
			t.Fatal(err)
		}
	}
	items := func() []egressipkube.EgressIPStatusItem {
		var x egressipkube.EgressIP
		if err := e.c.Get(ctx, client.ObjectKey{Name: "eip-b"}, &x); err != nil {
			t.Fatal(err)
		}
		return x.Status.Items
	}
	label("null")
	eventually(t, "eip-b unassigned", func() error {
		if it := items(); len(it) != 0 {
			return fmt.Errorf("status.items %+v", it)
		}
		if reroute() == nil {
			return fmt.Errorf("the NB still reroutes web-0")
		}
		return nil
	})
	label(`""`)
	eventually(t, "eip-b assigned again", func() error {
		if it := items(); len(it) != 1 || it[0].Node != "node1" {
			return fmt.Errorf("status.items %+v", it)
		}
		return reroute()
	})

	// Deleting eip-b removes its reroute; the others keep their marks.
	if err := e.c.Delete(ctx, &egressipkube.EgressIP{ObjectMeta: metav1.ObjectMeta{Name: "eip-b"}}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "eip-b's reroute gone", func() error {
		if err := reroute(); err == nil {
			return fmt.Errorf("the NB still reroutes web-0 with eip-b's mark")
		}
		return nil
	})
	if m := egressMarks(t, e); m["eip-a"] != after["eip-a"] || m["eip-0"] != after["eip-0"] {
		t.Errorf("marks %v after deleting eip-b, were %v", m, after)
	}

	// Every egress object deleted while no controller runs: the next
	// one's whole-zone Sync removes their rows.
	egressRows := func() (int, error) {
		st, err := nb.Observe(ctx, "blue_net")
		if err != nil {
			return 0, err
		}
		n := 0
		for o := range st.Objects() {
			if c := o.OwnedBy().Controller; c == egressip.Controller || c == egressqos.Controller {
				n++
			}
		}
		return n, nil
	}
	if n, err := egressRows(); err != nil || n == 0 {
		t.Fatalf("%d egress rows of blue_net in the NB before (%v): the check below proves nothing", n, err)
	}
	next.stop()
	for _, o := range []client.Object{&egressipkube.EgressIP{ObjectMeta: metav1.ObjectMeta{Name: "eip-a"}},
		&egressipkube.EgressIP{ObjectMeta: metav1.ObjectMeta{Name: "eip-0"}}, &dscp, &bad} {
		if err := e.c.Delete(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	last := run(t, e, Config{Zone: "node1", NB: nb})
	nbPlan(t, last, nb, "node1")
	if n, err := egressRows(); err != nil || n != 0 {
		t.Errorf("%d egress rows of blue_net left in the NB (%v), want none", n, err)
	}
	return last
}

// countWrites returns a copy of e whose rest config counts the requests
// other than reads (GET) that a controller run on it sends: the API server
// keeps an object's resourceVersion on a write that changes nothing, so
// resourceVersions alone do not show such writes.
func countWrites(e *env) (*env, *atomic.Int64) {
	counted := *e
	writes := new(atomic.Int64)
	counted.cfg = rest.CopyConfig(e.cfg)
	counted.cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper {
		return roundTripper(func(req *http.Request) (*http.Response, error) {
			if req.Method != http.MethodGet {
				writes.Add(1)
			}
			return rt.RoundTrip(req)
		})
	})
	return &counted, writes
}

// roundTripper is an http.RoundTripper of a function.
type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }
