package kube_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/udnkit/udnkit/topology/egressip"
	"github.com/udnkit/udnkit/topology/egressqos"
	"github.com/udnkit/udnkit/topology/egressqos/kube"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// sample is the reference's documented example (docs: EgressQoS).
const sample = `apiVersion: k8s.ovn.org/v1
kind: EgressQoS
metadata:
  name: default
  namespace: default
spec:
  egress:
  - dscp: 30
    dstCIDR: 1.2.3.0/24
  - dscp: 42
    podSelector:
      matchLabels:
        app: example
  - dscp: 28
`

func TestEgressQoSFrom(t *testing.T) {
	obj, err := kube.Decode([]byte(sample))
	if err != nil {
		t.Fatal(err)
	}
	q, ok, err := kube.EgressQoSFrom(obj)
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	if q.Namespace != "default" || len(q.Rules) != 3 || q.Rules[0].DSCP != 30 || q.Rules[0].DstCIDR.String() != "1.2.3.0/24" ||
		q.Rules[1].PodSelector == nil || !q.Rules[1].PodSelector.Matches(egressip.NewLabels("app", "example")) ||
		q.Rules[1].PodSelector.Matches(egressip.NewLabels("app", "other")) || q.Rules[2].PodSelector != nil || q.Rules[2].DstCIDR.IsValid() {
		t.Errorf("got %+v", q)
	}
	obj.Name = "other"
	if _, ok, err := kube.EgressQoSFrom(obj); ok || err != nil {
		t.Errorf("an EgressQoS not named default: %v %v", ok, err)
	}
}

func TestEgressQoSFromErrors(t *testing.T) {
	for _, tc := range []struct{ name, yaml, want string }{
		{"dscp", `{metadata: {name: default, namespace: ns}, spec: {egress: [{dscp: 64}]}}`, "spec.egress[0].dscp"},
		{"negative dscp", `{metadata: {name: default, namespace: ns}, spec: {egress: [{dscp: 1}, {dscp: -1}]}}`, "spec.egress[1].dscp"},
		{"dstCIDR", `{metadata: {name: default, namespace: ns}, spec: {egress: [{dscp: 1, dstCIDR: 1.2.3.4/24}]}}`, "spec.egress[0].dstCIDR"},
		{"not a CIDR", `{metadata: {name: default, namespace: ns}, spec: {egress: [{dscp: 1, dstCIDR: x}]}}`, "spec.egress[0].dstCIDR"},
		{"selector", `{metadata: {name: default, namespace: ns}, spec: {egress: [{dscp: 1, podSelector: {matchExpressions: [{key: a, operator: Exists, values: [x]}]}}]}}`, "spec.egress[0].podSelector.matchExpressions[0].values"},
		{"namespace", `{metadata: {name: default}, spec: {egress: []}}`, "metadata.namespace"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			obj, err := kube.Decode([]byte(tc.yaml))
			if err != nil {
				t.Fatal(err)
			}
			_, _, err = kube.EgressQoSFrom(obj)
			if !errors.Is(err, egressqos.ErrInvalid) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want ErrInvalid naming %q", err, tc.want)
			}
		})
	}
}

// TestCondition ports the reference's status expectations
// (egressqos_test.go "updates EgressQoS status with 1 zone": type
// Ready-In-Zone-zone1, SetupSucceeded, "EgressQoS Rules applied"; and the
// cluster manager's summary, status_manager/egressqos_manager.go).
func TestCondition(t *testing.T) {
	ok := kube.Condition("zone1", 3, nil)
	if ok.Type != "Ready-In-Zone-zone1" || ok.Status != metav1.ConditionTrue || ok.Reason != "SetupSucceeded" || ok.Message != "EgressQoS Rules applied" || ok.ObservedGeneration != 3 {
		t.Errorf("success %+v", ok)
	}
	bad := kube.Condition("zone2", 3, errors.New("boom"))
	if bad.Status != metav1.ConditionFalse || bad.Reason != "SetupFailed" || !strings.Contains(bad.Message, "boom") {
		t.Errorf("failure %+v", bad)
	}
	if s := kube.Summary([]metav1.Condition{ok}); s != kube.MessageApplied {
		t.Errorf("summary %q", s)
	}
	if s := kube.Summary([]metav1.Condition{ok, bad}); s != kube.MessageFailed {
		t.Errorf("summary with a failed zone %q", s)
	}
	if s := kube.Summary(nil); s != "" {
		t.Errorf("summary of no zone %q", s)
	}
}
