package manifest

import (
	"errors"
	"strings"
	"testing"

	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/udnkit/udnkit"
)

const policyStream = `
apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Namespace, metadata: {name: a, labels: {kubernetes.io/metadata.name: a}}}
- apiVersion: networking.k8s.io/v1
  kind: NetworkPolicy
  metadata: {name: web, namespace: a}
  spec:
    podSelector: {matchLabels: {app: web}}
    ingress:
    - from: [{podSelector: {matchLabels: {app: web}}}]
      ports: [{protocol: TCP, port: 80}]
- apiVersion: networking.k8s.io/v1
  kind: NetworkPolicy
  metadata: {name: bad, namespace: a}
  spec:
    podSelector: {}
    ingress:
    - ports: [{protocol: ICMP}]
`

// TestNetworkPolicies: NetworkPolicies are decoded, sorted, validated at
// the field PolicyFrom names, and set on the Cluster.
func TestNetworkPolicies(t *testing.T) {
	objs, err := Read(strings.NewReader(policyStream), "p.yaml")
	if err != nil {
		t.Fatal(err)
	}
	set, errs := Decode(objs)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	if len(set.NetworkPolicies) != 2 || set.NetworkPolicies[0].Name != "bad" || len(set.Ignored) != 0 {
		t.Fatalf("policies %d (first %s), ignored %v", len(set.NetworkPolicies), set.NetworkPolicies[0].Name, set.Ignored)
	}
	inv := set.Validate()
	if len(inv) != 1 || !strings.Contains(inv[0].Error(), `p.yaml: document 1, items[2]: NetworkPolicy.networking.k8s.io "bad" is invalid: spec.ingress[0].ports[0].protocol: Invalid value: "ICMP" is not TCP, UDP or SCTP`) {
		t.Fatalf("validate: %v", inv)
	}
	if _, err := Load(set, udnkit.Config{}); err == nil || !strings.Contains(err.Error(), "NetworkPolicy a/bad") {
		t.Errorf("load of an invalid policy: %v", err)
	}
	set.NetworkPolicies = set.NetworkPolicies[1:]
	l, err := Load(set, udnkit.Config{})
	if err != nil {
		t.Fatal(err)
	}
	// The Cluster holds the policy: removing it is an event.
	ev := l.Cluster.RemoveNetworkPolicy("a", "web")
	if ev.Policy != "a/web" {
		t.Errorf("the policy was not set on the Cluster: remove gave %+v", ev)
	}
}

// FuzzPolicyReadError: whatever PolicyFrom's message, the error names a
// field under spec.
func FuzzPolicyReadError(f *testing.F) {
	f.Add("a", "b", "networkpolicy a/b: spec.ingress[0].ports[0].protocol: invalid network policy object: \"ICMP\" is not TCP, UDP or SCTP")
	f.Add("a", "b", "networkpolicy a/b: nope")
	f.Add("", "", ": : :")
	f.Fuzz(func(t *testing.T, ns, name, msg string) {
		np := &networkingv1.NetworkPolicy{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
		e := policyReadError(np, errors.New(msg))
		if !strings.HasPrefix(e.Field, "spec") || e.Detail == "" && msg != "" && !strings.HasSuffix(msg, ": ") {
			t.Errorf("%q -> field %q detail %q", msg, e.Field, e.Detail)
		}
	})
}
