package kube

import (
	"errors"
	"net/netip"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/udnkit/udnkit/internal/ovntest"
	"github.com/udnkit/udnkit/ipam"
	"github.com/udnkit/udnkit/netconf"
	"github.com/udnkit/udnkit/topology/policy"
)

const manifest = `
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {namespace: ns1, name: db, annotations: {k8s.ovn.org/acl-stateless: "true"}}
spec:
  podSelector: {matchLabels: {app: db}}
  policyTypes: [Ingress, Egress]
  ingress:
  - from:
    - podSelector: {matchLabels: {app: web}}
    - namespaceSelector: {matchExpressions: [{key: team, operator: In, values: [a, b]}]}
      podSelector: {}
    - ipBlock: {cidr: 172.16.0.0/12, except: [172.16.5.0/24]}
    ports:
    - {port: postgres}
    - {protocol: UDP, port: 9000, endPort: 9100}
    - {protocol: SCTP}
  egress:
  - {}
`

func TestPolicyFrom(t *testing.T) {
	var np networkingv1.NetworkPolicy
	if err := yaml.UnmarshalStrict([]byte(manifest), &np); err != nil {
		t.Fatal(err)
	}
	got, err := PolicyFrom(&np)
	if err != nil {
		t.Fatal(err)
	}
	if errs := policy.Validate(&got); len(errs) > 0 {
		t.Fatal(errs)
	}
	if got.Namespace != "ns1" || got.Name != "db" || got.PodSelector.MatchLabels["app"] != "db" || !got.Stateless {
		t.Errorf("metadata or pod selector: %+v", got)
	}
	if len(got.PolicyTypes) != 2 || got.PolicyTypes[0] != policy.Ingress || got.PolicyTypes[1] != policy.Egress {
		t.Errorf("policy types %v", got.PolicyTypes)
	}
	r := got.Ingress[0]
	if len(r.Peers) != 3 || r.Peers[0].PodSelector.MatchLabels["app"] != "web" || r.Peers[0].NamespaceSelector != nil {
		t.Fatalf("peer 0: %+v", r.Peers)
	}
	if ns := r.Peers[1].NamespaceSelector; ns == nil || ns.MatchExpressions[0].Operator != policy.OpIn || r.Peers[1].PodSelector == nil || !r.Peers[1].PodSelector.Empty() {
		t.Errorf("peer 1: %+v", r.Peers[1])
	}
	if b := r.Peers[2].IPBlock; b == nil || b.CIDR != netip.MustParsePrefix("172.16.0.0/12") || b.Except[0] != netip.MustParsePrefix("172.16.5.0/24") {
		t.Errorf("peer 2: %+v", r.Peers[2])
	}
	want := []policy.Port{{Name: "postgres"}, {Protocol: policy.UDP, Number: 9000, EndPort: 9100}, {Protocol: policy.SCTP}}
	if len(r.Ports) != len(want) {
		t.Fatalf("ports %+v", r.Ports)
	}
	for i := range want {
		if r.Ports[i] != want[i] {
			t.Errorf("port %d: %+v, want %+v", i, r.Ports[i], want[i])
		}
	}
	if len(got.Egress) != 1 || len(got.Egress[0].Peers) != 0 || len(got.Egress[0].Ports) != 0 {
		t.Errorf("egress %+v", got.Egress)
	}
}

func TestPolicyFromRefuses(t *testing.T) {
	udp := corev1.Protocol("ICMP")
	for _, tc := range []struct {
		name string
		spec networkingv1.NetworkPolicySpec
		want string
	}{
		{"protocol", networkingv1.NetworkPolicySpec{Ingress: []networkingv1.NetworkPolicyIngressRule{{Ports: []networkingv1.NetworkPolicyPort{{Protocol: &udp}}}}}, "spec.ingress[0].ports[0].protocol"},
		{"cidr", networkingv1.NetworkPolicySpec{Egress: []networkingv1.NetworkPolicyEgressRule{{To: []networkingv1.NetworkPolicyPeer{{IPBlock: &networkingv1.IPBlock{CIDR: "10.0.0.0"}}}}}}, "spec.egress[0].to[0].ipBlock.cidr"},
		{"except", networkingv1.NetworkPolicySpec{Egress: []networkingv1.NetworkPolicyEgressRule{{To: []networkingv1.NetworkPolicyPeer{{IPBlock: &networkingv1.IPBlock{CIDR: "10.0.0.0/8", Except: []string{"x"}}}}}}}, "spec.egress[0].to[0].ipBlock.except[0]"},
		{"operator", networkingv1.NetworkPolicySpec{PodSelector: metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "a", Operator: "Near"}}}}, "spec.podSelector"},
		{"policy type", networkingv1.NetworkPolicySpec{PolicyTypes: []networkingv1.PolicyType{"Sideways"}}, "spec.policyTypes[0]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			np := &networkingv1.NetworkPolicy{ObjectMeta: metav1.ObjectMeta{Namespace: "ns1", Name: "p"}, Spec: tc.spec}
			_, err := PolicyFrom(np)
			if !errors.Is(err, ErrPolicy) || !strings.Contains(err.Error(), "networkpolicy ns1/p: "+tc.want) {
				t.Errorf("got %v, want ErrPolicy at %s", err, tc.want)
			}
		})
	}
}

func TestPodFrom(t *testing.T) {
	ann, err := netconf.PodNetworks{
		"default":  {IPs: []netip.Prefix{netip.MustParsePrefix("10.244.1.5/24")}, MAC: ipam.MACFromIP(netip.MustParseAddr("10.244.1.5")), Role: netconf.PodRoleInfrastructureLocked},
		"ns1/blue": {IPs: []netip.Prefix{netip.MustParsePrefix("10.128.1.5/24")}, MAC: ipam.MACFromIP(netip.MustParseAddr("10.128.1.5")), Role: netconf.PodRolePrimary},
	}.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns1", Name: "db", Labels: map[string]string{"app": "db"},
		Annotations: map[string]string{netconf.AnnotationPodNetworks: ann}},
		Spec: corev1.PodSpec{NodeName: "node1", Containers: []corev1.Container{{Name: "c", Ports: []corev1.ContainerPort{
			{Name: "postgres", ContainerPort: 5432}, {ContainerPort: 9}, {Name: "dns", ContainerPort: 53, Protocol: corev1.ProtocolUDP}}}}}}
	p, ok, err := PodFrom(pod, map[string]string{"ns1/blue": "ns1_blue"})
	if err != nil || !ok {
		t.Fatalf("ok %v, %v", ok, err)
	}
	if p.Node != "node1" || p.Labels["app"] != "db" || len(p.Networks) != 1 {
		t.Fatalf("%+v", p)
	}
	if a := p.Networks[0]; a.Network != "ns1_blue" || a.Port != "ns1.blue_ns1_db" || len(a.IPs) != 1 || a.IPs[0] != netip.MustParseAddr("10.128.1.5") {
		t.Errorf("attachment %+v", a)
	}
	if len(p.Ports) != 2 || p.Ports[0] != (policy.ContainerPort{Name: "postgres", Number: 5432}) || p.Ports[1] != (policy.ContainerPort{Name: "dns", Protocol: policy.UDP, Number: 53}) {
		t.Errorf("ports %+v", p.Ports)
	}
	pod.Spec.HostNetwork = true
	if _, ok, err := PodFrom(pod, map[string]string{"ns1/blue": "ns1_blue"}); ok || err != nil {
		t.Errorf("host-network pod: ok %v, %v", ok, err)
	}
	pod.Spec.HostNetwork = false
	pod.Annotations[netconf.AnnotationPodNetworks] = "{"
	if _, _, err := PodFrom(pod, nil); err == nil || !strings.Contains(err.Error(), "pod ns1/db: annotations[k8s.ovn.org/pod-networks]") {
		t.Errorf("bad annotation: %v", err)
	}
}

// FuzzPolicyFrom reads fuzzed NetworkPolicy manifests: no panic; an error
// wraps ErrPolicy and names the policy; what it reads and validates plans.
func FuzzPolicyFrom(f *testing.F) {
	f.Add(manifest)
	f.Add(`{"metadata":{"namespace":"a","name":"b"},"spec":{"ingress":[{"ports":[{"port":"x","endPort":3}]}]}}`)
	f.Add(`{"metadata":{"namespace":"a","name":"b"},"spec":{"egress":[{"to":[{"ipBlock":{"cidr":"::/0","except":["fd00::/8"]}}]}]}}`)
	f.Fuzz(func(t *testing.T, doc string) {
		var np networkingv1.NetworkPolicy
		if err := yaml.Unmarshal([]byte(doc), &np); err != nil {
			return
		}
		p, err := PolicyFrom(&np)
		if err != nil {
			if !errors.Is(err, ErrPolicy) || !strings.Contains(err.Error(), "networkpolicy "+np.Namespace+"/"+np.Name) {
				t.Fatalf("error wraps no ErrPolicy or does not name the policy: %v", err)
			}
			return
		}
		if len(policy.Validate(&p)) > 0 {
			return
		}
		in := policy.Input{Networks: []policy.Network{{Network: ovntest.Layer2Network(), Namespaces: []string{p.Namespace}}},
			Namespaces: []policy.Namespace{{Name: p.Namespace}}, Policies: []policy.Policy{p}}
		if _, err := policy.Plan(in); err != nil {
			t.Fatalf("a valid policy did not plan: %v", err)
		}
	})
}

func TestNamespaceFrom(t *testing.T) {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "ns1", Labels: map[string]string{"team": "a"},
		Annotations: map[string]string{AnnotationMulticast: "true"}}}
	got, err := NamespaceFrom(ns)
	if err != nil || got.Name != "ns1" || got.Labels["team"] != "a" || !got.Multicast || got.Logging.Logs() {
		t.Errorf("%+v (%v)", got, err)
	}
	ns.Annotations = nil
	if got, _ := NamespaceFrom(ns); got.Multicast {
		t.Error("multicast without the annotation")
	}
	// The reference's annotation (ovn/policy_test.go's ACL logging tests).
	ns.Annotations = map[string]string{policy.AnnotationACLLogging: `{ "deny": "alert", "allow": "notice" }`}
	if got, err := NamespaceFrom(ns); err != nil || got.Logging != (policy.ACLLogging{Deny: "alert", Allow: "notice"}) {
		t.Errorf("logging %+v (%v)", got.Logging, err)
	}
	// A bad severity disables its key, keeps the other, and says so.
	ns.Annotations[policy.AnnotationACLLogging] = `{"deny": "loud", "allow": "notice"}`
	got, err = NamespaceFrom(ns)
	if err == nil || !strings.Contains(err.Error(), "namespace ns1: annotations[k8s.ovn.org/acl-logging].deny") || got.Logging != (policy.ACLLogging{Allow: "notice"}) {
		t.Errorf("bad deny: %+v (%v)", got.Logging, err)
	}
}

// TestPodFromDefaultPort: a pod whose default network is
// infrastructure-locked (its primary network a user-defined one) has its
// default-network port and its open default ports.
func TestPodFromDefaultPort(t *testing.T) {
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns1", Name: "web", Annotations: map[string]string{
		netconf.AnnotationPodNetworks: `{"default":{"ip_addresses":["10.244.1.5/24"],"mac_address":"0a:58:0a:f4:01:05","role":"infrastructure-locked"},` +
			`"ns1/blue":{"ip_addresses":["10.128.1.3/24"],"mac_address":"0a:58:0a:80:01:03","role":"primary"}}`,
		policy.AnnotationOpenPorts: `[{"protocol":"tcp","port":80},{"protocol":"icmp"}]`,
	}}, Spec: corev1.PodSpec{NodeName: "node1"}}
	p, ok, err := PodFrom(pod, map[string]string{"ns1/blue": "ns1_blue"})
	if err != nil || !ok {
		t.Fatalf("%v %v", ok, err)
	}
	if p.DefaultPort != "ns1_web" || len(p.OpenPorts) != 2 || p.OpenPorts[0] != (policy.OpenPort{Protocol: "tcp", Port: 80}) {
		t.Errorf("default port %q open ports %v", p.DefaultPort, p.OpenPorts)
	}
	pod.Annotations[policy.AnnotationOpenPorts] = `[{"protocol":"tcp"}]`
	if _, _, err := PodFrom(pod, map[string]string{"ns1/blue": "ns1_blue"}); err == nil || !strings.Contains(err.Error(), "pod ns1/web: annotations[k8s.ovn.org/open-default-ports][0].port") {
		t.Errorf("bad open ports: %v", err)
	}
	// The default network primary: no default port of its own to isolate.
	pod.Annotations = map[string]string{netconf.AnnotationPodNetworks: `{"default":{"ip_addresses":["10.244.1.5/24"],"mac_address":"0a:58:0a:f4:01:05","role":"primary"}}`}
	if p, _, err := PodFrom(pod, nil); err != nil || p.DefaultPort != "" {
		t.Errorf("default-network pod: default port %q (%v)", p.DefaultPort, err)
	}
}

// FuzzPodFrom: a pod's pod-networks and open-default-ports annotations
// never panic PodFrom; a pod it reads plans (on its network, with the
// isolation of its default port), and an error names the pod.
func FuzzPodFrom(f *testing.F) {
	f.Add(`{"default":{"ip_addresses":["10.244.1.5/24"],"mac_address":"0a:58:0a:f4:01:05","role":"infrastructure-locked"},"ns1/blue":{"ip_addresses":["10.128.1.3/24"],"mac_address":"0a:58:0a:80:01:03","role":"primary"}}`,
		`[{"protocol":"tcp","port":80},{"protocol":"icmp"}]`)
	f.Add(`{"ns1/blue":{"ip_addresses":["10.128.1.3/24"],"mac_address":"0a:58:0a:80:01:03","role":"primary"}}`, `[{"protocol":"tcp"}]`)
	f.Add(`{}`, `x`)
	f.Fuzz(func(t *testing.T, podNetworks, open string) {
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns1", Name: "web",
			Annotations: map[string]string{netconf.AnnotationPodNetworks: podNetworks, policy.AnnotationOpenPorts: open}},
			Spec: corev1.PodSpec{NodeName: "node1"}}
		p, ok, err := PodFrom(pod, map[string]string{"ns1/blue": "ns1_blue"})
		if err != nil {
			if !strings.Contains(err.Error(), "pod ns1/web") {
				t.Fatalf("error without the pod: %v", err)
			}
			return
		}
		if !ok {
			return
		}
		blue := ovntest.Layer3Network()
		in := policy.Input{Networks: []policy.Network{{Network: blue, Namespaces: []string{"ns1"}}}, Nodes: ovntest.Nodes(1, ""),
			DefaultNetwork: &policy.DefaultNetwork{}, Pods: []policy.Pod{p}}
		if _, err := policy.Plan(in); err != nil {
			t.Fatalf("%+v does not plan: %v", p, err)
		}
	})
}

// FuzzNamespaceFrom: any acl-logging annotation reads to valid severities
// (a bad key off), and the namespace plans.
func FuzzNamespaceFrom(f *testing.F) {
	f.Add(`{"deny":"alert","allow":"notice"}`)
	f.Add(`{"deny":"loud"}`)
	f.Add(`[`)
	f.Fuzz(func(t *testing.T, ann string) {
		ns, _ := NamespaceFrom(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "ns1", Annotations: map[string]string{policy.AnnotationACLLogging: ann}}})
		blue := ovntest.Layer3Network()
		in := policy.Input{Networks: []policy.Network{{Network: blue, Namespaces: []string{"ns1"}}}, Namespaces: []policy.Namespace{ns}}
		if _, err := policy.Plan(in); err != nil {
			t.Fatalf("%q: %+v does not plan: %v", ann, ns.Logging, err)
		}
	})
}
