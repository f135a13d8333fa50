package kube

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8stypes "k8s.io/apimachinery/pkg/types"

	"github.com/udnkit/udnkit/netconf"
	"github.com/udnkit/udnkit/topology/pods"
)

func pod(mod func(*corev1.Pod)) *corev1.Pod {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns1", Name: "web-0", UID: "u1",
		Annotations: map[string]string{pods.AnnotationNetworks: "ns1/sec", "unrelated": "x"}},
		Spec: corev1.PodSpec{NodeName: "node-a"}, Status: corev1.PodStatus{Phase: corev1.PodRunning}}
	if mod != nil {
		mod(p)
	}
	return p
}

func TestPodFrom(t *testing.T) {
	got, err := PodFrom(pod(nil))
	if err != nil {
		t.Fatal(err)
	}
	if got.Pod != (pods.Pod{Namespace: "ns1", Name: "web-0", UID: "u1", Node: "node-a"}) {
		t.Fatalf("pod %+v", got.Pod)
	}
	if len(got.Annotations) != 1 || got.Annotations[pods.AnnotationNetworks] != "ns1/sec" {
		t.Fatalf("annotations %v: want only the networks request", got.Annotations)
	}
	for name, tc := range map[string]struct {
		mod  func(*corev1.Pod)
		want error
		path string
	}{
		"host network": {func(p *corev1.Pod) { p.Spec.HostNetwork = true }, ErrNotAttached, "spec.hostNetwork"},
		"unscheduled":  {func(p *corev1.Pod) { p.Spec.NodeName = "" }, ErrNotAttached, "spec.nodeName"},
		"completed":    {func(p *corev1.Pod) { p.Status.Phase = corev1.PodSucceeded }, ErrNotAttached, "status.phase"},
		"no uid":       {func(p *corev1.Pod) { p.UID = "" }, pods.ErrInvalid, "metadata.uid"},
		"no namespace": {func(p *corev1.Pod) { p.Namespace = "" }, pods.ErrInvalid, "metadata"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := PodFrom(pod(tc.mod))
			if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.path) {
				t.Fatalf("PodFrom = %v, want %v naming %s", err, tc.want, tc.path)
			}
		})
	}
}

func TestAnnotationPatch(t *testing.T) {
	value := `{"ns1/blue":{"ip_addresses":["10.128.0.3/24"],"mac_address":"0a:58:0a:80:00:03","role":"primary"}}`
	patch, err := AnnotationPatch(value)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]map[string]map[string]string
	if err := json.Unmarshal(patch, &m); err != nil {
		t.Fatal(err)
	}
	if got := m["metadata"]["annotations"]; len(got) != 1 || got[netconf.AnnotationPodNetworks] != value {
		t.Fatalf("patch %s", patch)
	}
	if _, err := AnnotationPatch(`{"x":`); err == nil {
		t.Fatal("a malformed value makes a patch")
	}
	if a := Annotated(pod(nil), value); a["unrelated"] != "x" || a[netconf.AnnotationPodNetworks] != value {
		t.Fatalf("Annotated lost or missed an annotation: %v", a)
	}
}

func FuzzPodFrom(f *testing.F) {
	f.Add("ns1", "web-0", "u1", "node-a", "ns1/sec", false)
	f.Add("", "x", "", "", `[{"name":"a"}]`, true)
	f.Fuzz(func(t *testing.T, ns, name, uid, node, networks string, host bool) {
		p := pod(func(p *corev1.Pod) {
			p.Namespace, p.Name, p.Spec.NodeName, p.Spec.HostNetwork = ns, name, node, host
			p.UID = k8stypes.UID(uid)
			p.Annotations[pods.AnnotationNetworks] = networks
		})
		got, err := PodFrom(p)
		if err != nil {
			return
		}
		if got.Namespace != ns || got.Name != name || got.Node != node || got.Annotations[pods.AnnotationNetworks] != networks {
			t.Fatalf("PodFrom(%v) = %+v", p, got)
		}
		_, _ = pods.Secondaries(got.Pod, got.Annotations) // never panics
	})
}
