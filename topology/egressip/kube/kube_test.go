package kube_test

import (
	"errors"
	"net/netip"
	"strings"
	"testing"

	"github.com/udnkit/udnkit/topology/egressip"
	"github.com/udnkit/udnkit/topology/egressip/kube"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

const sample = `apiVersion: k8s.ovn.org/v1
kind: EgressIP
metadata:
  name: egressip-prod
  annotations:
    k8s.ovn.org/egressip-mark: "50001"
spec:
  egressIPs: ["172.18.0.33", "fc00:f853:ccd:e793::33"]
  namespaceSelector:
    matchLabels: {env: prod}
  podSelector:
    matchExpressions:
    - {key: app, operator: In, values: [web, api]}
    - {key: debug, operator: DoesNotExist}
status:
  items:
  - {node: ovn-worker, egressIP: 172.18.0.33}
`

func TestEgressIPFrom(t *testing.T) {
	obj, err := kube.Decode([]byte(sample))
	if err != nil {
		t.Fatal(err)
	}
	e, err := kube.EgressIPFrom(obj)
	if err != nil {
		t.Fatal(err)
	}
	if e.Name != "egressip-prod" || e.Mark != 50001 || len(e.IPs) != 2 || len(e.Status) != 1 || e.Status[0].Node != "ovn-worker" {
		t.Fatalf("got %+v", e)
	}
	for _, tc := range []struct {
		ns, pod egressip.Labels
		want    bool
	}{
		{egressip.NewLabels("env", "prod"), egressip.NewLabels("app", "web"), true},
		{egressip.NewLabels("env", "prod"), egressip.NewLabels("app", "web", "debug", "1"), false},
		{egressip.NewLabels("env", "dev"), egressip.NewLabels("app", "web"), false},
		{egressip.NewLabels("env", "prod"), egressip.NewLabels("app", "db"), false},
	} {
		if got := e.NamespaceSelector.Matches(tc.ns) && e.PodSelector.Matches(tc.pod); got != tc.want {
			t.Errorf("ns %v pod %v: %v, want %v", tc.ns, tc.pod, got, tc.want)
		}
	}
}

// TestEgressIPFromErrors: one case per field; each error names its path.
func TestEgressIPFromErrors(t *testing.T) {
	for _, tc := range []struct {
		name, yaml, want string
	}{
		{"bad IP", `{metadata: {name: e}, spec: {egressIPs: ["1.2.3"], namespaceSelector: {}}}`, "spec.egressIPs[0]"},
		{"duplicate IP", `{metadata: {name: e}, spec: {egressIPs: ["1.2.3.4", "1.2.3.4"], namespaceSelector: {}}}`, "spec.egressIPs[1]: Duplicate"},
		{"multicast IP", `{metadata: {name: e}, spec: {egressIPs: ["224.0.0.1"], namespaceSelector: {}}}`, "not a unicast"},
		{"mapped IP", `{metadata: {name: e}, spec: {egressIPs: ["::ffff:1.2.3.4"], namespaceSelector: {}}}`, "spec.egressIPs[0]"},
		{"bad operator", `{metadata: {name: e}, spec: {egressIPs: [], namespaceSelector: {matchExpressions: [{key: a, operator: Gt}]}}}`, "spec.namespaceSelector.matchExpressions[0].operator"},
		{"In without values", `{metadata: {name: e}, spec: {egressIPs: [], podSelector: {matchExpressions: [{key: a, operator: In}]}, namespaceSelector: {}}}`, "spec.podSelector.matchExpressions[0].values"},
		{"mark out of range", `{metadata: {name: e, annotations: {k8s.ovn.org/egressip-mark: "42"}}, spec: {egressIPs: [], namespaceSelector: {}}}`, "metadata.annotations[k8s.ovn.org/egressip-mark]"},
		{"status IP", `{metadata: {name: e}, spec: {egressIPs: [], namespaceSelector: {}}, status: {items: [{node: n, egressIP: x}]}}`, "status.items[0].egressIP"},
		{"status node", `{metadata: {name: e}, spec: {egressIPs: [], namespaceSelector: {}}, status: {items: [{egressIP: 1.2.3.4}]}}`, "status.items[0].node"},
		// egressip_controller_test.go "IPv6 assignment: should not be able to allocate invalid IP"
		{"invalid IP", `{metadata: {name: e}, spec: {egressIPs: ["0:0:0:0:0:feff:c0a8:8e32:5"], namespaceSelector: {}}}`, "spec.egressIPs[0]"},
		// egressip_controller_test.go "IPv4 assignment: Should not be able to assign egress IP defined in CIDR notation"
		{"CIDR notation", `{metadata: {name: e}, spec: {egressIPs: ["192.168.126.99/32"], namespaceSelector: {}}}`, "spec.egressIPs[0]"},
		{"no name", `{spec: {egressIPs: [], namespaceSelector: {}}}`, "metadata.name"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			obj, err := kube.Decode([]byte(tc.yaml))
			if err != nil {
				t.Fatal(err)
			}
			_, err = kube.EgressIPFrom(obj)
			if !errors.Is(err, egressip.ErrInvalid) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want ErrInvalid naming %q", err, tc.want)
			}
		})
	}
	if _, err := kube.Decode([]byte("apiVersion: v1\nkind: Pod\n")); !errors.Is(err, egressip.ErrInvalid) {
		t.Errorf("a Pod decoded: %v", err)
	}
	if _, err := kube.Decode([]byte("spec: {egressIP: []}\n")); err == nil {
		t.Error("an unknown field decoded")
	}
}

// TestNodeFrom reads the node the way the reference's cluster manager does
// (clustermanager/egressip_controller_test.go builds nodes from
// k8s.ovn.org/node-primary-ifaddr, k8s.ovn.org/host-cidrs and the label).
func TestNodeFrom(t *testing.T) {
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node1",
		Labels: map[string]string{"k8s.ovn.org/egress-assignable": ""},
		Annotations: map[string]string{
			kube.AnnotationPrimaryIfAddr: `{"ipv4": "192.168.126.202/24", "ipv6": ""}`,
			kube.AnnotationHostCIDRs:     `["192.168.126.202/24", "10.0.0.5/8"]`,
		}},
		Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}}}
	n, err := kube.NodeFrom(node)
	if err != nil {
		t.Fatal(err)
	}
	if !n.Assignable || !n.Ready || len(n.Subnets) != 1 || n.Subnets[0] != netip.MustParsePrefix("192.168.126.202/24") ||
		len(n.HostIPs) != 2 {
		t.Errorf("got %+v", n)
	}
	node.Annotations[kube.AnnotationPrimaryIfAddr] = `{"ipv4": "fc00::1/64"}`
	if _, err := kube.NodeFrom(node); err == nil || !strings.Contains(err.Error(), `node "node1": metadata.annotations[k8s.ovn.org/node-primary-ifaddr]`) {
		t.Errorf("IPv6 as ipv4: %v", err)
	}
	delete(node.Labels, "k8s.ovn.org/egress-assignable")
	delete(node.Annotations, kube.AnnotationPrimaryIfAddr)
	node.Status.Conditions[0].Status = corev1.ConditionFalse
	if n, _ := kube.NodeFrom(node); n.Assignable || n.Ready {
		t.Errorf("unlabelled, not ready: %+v", n)
	}
}

func TestPatches(t *testing.T) {
	s := egressip.Status{EgressIP: "e", Items: []egressip.Assignment{{Node: "node1", IP: netip.MustParseAddr("172.18.0.33")}}}
	if got := string(kube.StatusPatch(s)); got != `{"status":{"items":[{"node":"node1","egressIP":"172.18.0.33"}]}}` {
		t.Errorf("status patch %s", got)
	}
	if got := string(kube.StatusPatch(egressip.Status{EgressIP: "e"})); got != `{"status":{"items":[]}}` {
		t.Errorf("empty status patch %s", got)
	}
	if got := string(kube.MarkPatch(50000)); got != `{"metadata":{"annotations":{"k8s.ovn.org/egressip-mark":"50000"}}}` {
		t.Errorf("mark patch %s", got)
	}
}
