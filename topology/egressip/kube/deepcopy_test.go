package kube

import (
	"reflect"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestDeepCopy: a copy equals its source and shares no storage with it.
func TestDeepCopy(t *testing.T) {
	e := &EgressIP{ObjectMeta: metav1.ObjectMeta{Name: "e", Annotations: map[string]string{"a": "b"}},
		Spec: EgressIPSpec{EgressIPs: []string{"10.0.0.1"},
			NamespaceSelector: metav1.LabelSelector{MatchLabels: map[string]string{"x": "y"}}},
		Status: EgressIPStatus{Items: []EgressIPStatusItem{{Node: "n", EgressIP: "10.0.0.1"}}}}
	l := &EgressIPList{Items: []EgressIP{*e}}
	cl := l.DeepCopyObject().(*EgressIPList)
	if !reflect.DeepEqual(cl, l) {
		t.Fatalf("copy %+v differs from %+v", cl, l)
	}
	c := &cl.Items[0]
	c.Annotations["a"], c.Spec.EgressIPs[0], c.Spec.NamespaceSelector.MatchLabels["x"], c.Status.Items[0].Node = "", "", "", ""
	if !reflect.DeepEqual(&l.Items[0], e) || e.Annotations["a"] != "b" || e.Spec.EgressIPs[0] != "10.0.0.1" ||
		e.Spec.NamespaceSelector.MatchLabels["x"] != "y" || e.Status.Items[0].Node != "n" {
		t.Errorf("the copy shares storage: %+v", e)
	}
}
