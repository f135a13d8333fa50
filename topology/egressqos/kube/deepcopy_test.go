package kube

import (
	"reflect"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestDeepCopy: a copy equals its source and shares no storage with it.
func TestDeepCopy(t *testing.T) {
	cidr := "1.2.3.0/24"
	q := &EgressQoS{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "default"},
		Spec: EgressQoSSpec{Egress: []EgressQoSRule{{DSCP: 46, DstCIDR: &cidr,
			PodSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}}}},
		Status: EgressQoSStatus{Conditions: []metav1.Condition{{Type: "Ready-In-Zone-a"}}}}
	l := &EgressQoSList{Items: []EgressQoS{*q}}
	cl := l.DeepCopyObject().(*EgressQoSList)
	if !reflect.DeepEqual(cl, l) {
		t.Fatalf("copy %+v differs from %+v", cl, l)
	}
	c := &cl.Items[0]
	*c.Spec.Egress[0].DstCIDR, c.Spec.Egress[0].PodSelector.MatchLabels["app"], c.Status.Conditions[0].Type = "", "", ""
	if cidr != "1.2.3.0/24" || q.Spec.Egress[0].PodSelector.MatchLabels["app"] != "web" || q.Status.Conditions[0].Type != "Ready-In-Zone-a" {
		t.Errorf("the copy shares storage: %+v", q)
	}
}
