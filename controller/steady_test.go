package controller

import (
	"context"
	"fmt"
	"maps"
	"sync"
	"sync/atomic"
	"testing"

	nadv1 "github.com/k8snetworkplumbingwg/network-attachment-definition-client/pkg/apis/k8s.cni.cncf.io/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/udnkit/udnkit/backend/ovnnb"
	"github.com/udnkit/udnkit/connect"
	"github.com/udnkit/udnkit/netconf"
	egressipkube "github.com/udnkit/udnkit/topology/egressip/kube"
	egressqoskube "github.com/udnkit/udnkit/topology/egressqos/kube"
)

// versions returns the resourceVersion of every object the controller
// writes, by kind and key.
func versions(t *testing.T, e *env) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, l := range []client.ObjectList{&corev1.NodeList{}, &corev1.PodList{}, &nadv1.NetworkAttachmentDefinitionList{},
		&netconf.UserDefinedNetworkList{}, &netconf.ClusterUserDefinedNetworkList{}, &connect.ClusterNetworkConnectList{},
		&egressipkube.EgressIPList{}, &egressqoskube.EgressQoSList{}} {
		if err := e.c.List(context.Background(), l); err != nil {
			t.Fatal(err)
		}
		items, err := meta.ExtractList(l)
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range items {
			m := o.(client.Object)
			out[fmt.Sprintf("%T %s", l, client.ObjectKeyFromObject(m))] = m.GetResourceVersion()
		}
	}
	return out
}

// checkSteady runs on a converged cluster: passes that find nothing
// changed (annotations the controller does not read, edited on a
// Namespace and on a Pod, ten times) send the NB no transaction at all,
// not even a read, and write nothing to the API server.
func checkSteady(t *testing.T, e *env, ctl *running, nb *ovnnb.Client, count *nbCounter, writes *atomic.Int64) {
	t.Helper()
	ctx := context.Background()
	nbPlan(t, ctl, nb, "node1")
	before := versions(t, e)
	w0, r0, _ := count.snapshot()
	if w0 == 0 || r0 == 0 {
		t.Fatalf("the relay counted %d writing and %d reading transactions before: it does not see the controller's", w0, r0)
	}
	passes := ctl.c.r.passes.Load()
	apiWrites := writes.Load()
	for i := range 10 {
		for _, obj := range []client.Object{&corev1.Namespace{}, &corev1.Pod{}} {
			key := client.ObjectKey{Name: "blue"}
			if _, ok := obj.(*corev1.Pod); ok {
				key = client.ObjectKey{Namespace: "blue", Name: "web-0"}
			}
			if err := e.c.Get(ctx, key, obj); err != nil {
				t.Fatal(err)
			}
			base := obj.DeepCopyObject().(client.Object)
			ann := maps.Clone(obj.GetAnnotations())
			if ann == nil {
				ann = map[string]string{}
			}
			ann["example.com/touched"] = fmt.Sprint(i)
			obj.SetAnnotations(ann)
			want := ctl.c.r.passes.Load() + 1
			if err := e.c.Patch(ctx, obj, client.MergeFrom(base)); err != nil {
				t.Fatal(err)
			}
			if _, ok := obj.(*corev1.Pod); ok { // the test's own write
				before[fmt.Sprintf("%T %s", &corev1.PodList{}, key)] = obj.GetResourceVersion()
			}
			eventually(t, "a pass", func() error {
				if n := ctl.c.r.passes.Load(); n < want {
					return fmt.Errorf("%d passes, want %d", n, want)
				}
				return nil
			})
		}
	}
	w1, r1, _ := count.snapshot()
	if w1 != w0 || r1 != r0 {
		t.Errorf("%d passes with nothing changed sent the NB %d writing and %d reading transactions, want none",
			ctl.c.r.passes.Load()-passes, w1-w0, r1-r0)
	}
	after := versions(t, e)
	for k, v := range after {
		if before[k] != v {
			t.Errorf("passes with nothing changed wrote %s: resourceVersion %s, was %s", k, v, before[k])
		}
	}
	// A write that changes nothing keeps the resourceVersion: count them.
	if n := writes.Load() - apiWrites; n != 0 {
		t.Errorf("%d passes with nothing changed sent the API server %d writes, want none", ctl.c.r.passes.Load()-passes, n)
	}
}

// gate holds the controller's passes at the "nads" hook while closed.
type gate struct {
	mu     sync.Mutex
	held   chan struct{} // closed by a pass that waits at the gate
	open   chan struct{}
	closed bool
}

func (g *gate) hook(_ context.Context, point string) {
	if point != "nads" {
		return
	}
	g.mu.Lock()
	if !g.closed {
		g.mu.Unlock()
		return
	}
	held, open := g.held, g.open
	g.closed = false // one pass waits
	g.mu.Unlock()
	close(held)
	<-open
}

// close makes the next pass wait at the hook until release.
func (g *gate) close() (held, release chan struct{}) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.held, g.open, g.closed = make(chan struct{}), make(chan struct{}), true
	return g.held, g.open
}

// checkOnePass: a namespace and its primary UDN that one pass meets
// together are applied as that pass's events (each planned right after
// its Set: planned after both, the namespace's event named the network's
// management port before the network's event created it, and the zone
// was planned again).
func checkOnePass(t *testing.T, e *env, ctl *running, g *gate) {
	ctx := context.Background()
	syncs := ctl.c.r.syncs.Load()
	held, release := g.close()
	var ns corev1.Namespace
	if err := e.c.Get(ctx, client.ObjectKey{Name: "blue"}, &ns); err != nil {
		t.Fatal(err)
	}
	base := ns.DeepCopy()
	ns.Annotations = map[string]string{"example.com/touched": "gate"}
	if err := e.c.Patch(ctx, &ns, client.MergeFrom(base)); err != nil {
		t.Fatal(err)
	}
	<-held // a pass waits: what follows comes to the next one together
	create(t, e, namespace("teal", map[string]string{netconf.LabelPrimaryUDN: ""}),
		udn("teal", "net", netconf.UserDefinedNetworkSpec{Topology: netconf.TopologyLayer3, Role: netconf.RolePrimary, Subnets: []string{"10.70.0.0/16/24"}}))
	var nt corev1.Namespace
	eventually(t, "the cache has both", func() error {
		var u netconf.UserDefinedNetwork
		if err := ctl.c.mgr.GetCache().Get(ctx, client.ObjectKey{Namespace: "teal", Name: "net"}, &u); err != nil {
			return err
		}
		return ctl.c.mgr.GetCache().Get(ctx, client.ObjectKey{Name: "teal"}, &nt)
	})
	close(release)
	eventually(t, "UDN teal/net", func() error { return udnReady(e, "teal", "net") })
	if n := ctl.c.r.syncs.Load(); n != syncs {
		t.Errorf("a namespace and its UDN in one pass planned the zone again (%d Syncs, were %d)", n, syncs)
	}
}
