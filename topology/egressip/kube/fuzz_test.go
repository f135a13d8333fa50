package kube_test

import (
	"encoding/json"
	"testing"

	"github.com/udnkit/udnkit/topology/egressip"
	"github.com/udnkit/udnkit/topology/egressip/kube"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// FuzzEgressIPFrom: any bytes decode or fail without a panic; an EgressIP
// that converts has valid, distinct IPs and a mark of the range or none,
// and its status patch decodes back to the same items.
func FuzzEgressIPFrom(f *testing.F) {
	f.Add([]byte(sample))
	f.Add([]byte(`{"metadata":{"name":"e"},"spec":{"egressIPs":["1.2.3.4"],"namespaceSelector":{}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		obj, err := kube.Decode(data)
		if err != nil {
			return
		}
		e, err := kube.EgressIPFrom(obj)
		if err != nil {
			return
		}
		seen := map[string]bool{}
		for _, a := range e.IPs {
			if !a.IsValid() || seen[a.String()] {
				t.Errorf("IP %v", a)
			}
			seen[a.String()] = true
		}
		if e.Mark != 0 && (e.Mark < egressip.MarkFirst || e.Mark > egressip.MarkLast) {
			t.Errorf("mark %d", e.Mark)
		}
		var back struct{ Status kube.EgressIPStatus }
		if err := json.Unmarshal(kube.StatusPatch(egressip.Status{Items: e.Status}), &back); err != nil {
			t.Fatalf("status patch does not decode: %v", err)
		}
		if len(back.Status.Items) != len(e.Status) {
			t.Errorf("status round trip %v -> %v", e.Status, back.Status.Items)
		}
	})
}

// FuzzNodeFrom: any annotation values give a node or an error naming it.
func FuzzNodeFrom(f *testing.F) {
	f.Add(`{"ipv4": "192.168.126.202/24", "ipv6": ""}`, `["192.168.126.202/24"]`)
	f.Add(`{"ipv6": "fc00::1/64"}`, `[]`)
	f.Fuzz(func(t *testing.T, primary, cidrs string) {
		n, err := kube.NodeFrom(&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n",
			Annotations: map[string]string{kube.AnnotationPrimaryIfAddr: primary, kube.AnnotationHostCIDRs: cidrs}}})
		if err != nil {
			if len(err.Error()) > 500 {
				t.Errorf("error of %d bytes", len(err.Error()))
			}
			return
		}
		if len(n.Subnets) > 2 {
			t.Errorf("subnets %v", n.Subnets)
		}
		for _, s := range n.Subnets {
			if !s.IsValid() {
				t.Errorf("subnet %v", s)
			}
		}
	})
}
