package kube

import (
	"errors"
	"net/netip"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/udnkit/udnkit/netconf"
	"github.com/udnkit/udnkit/topology/services"
)

func ptr[T any](v T) *T { return &v }

// TestMirrorEndpointSlice is the reference's mirror controller case
// (clustermanager/endpointslicemirror/endpointslice_mirror_controller_test.go,
// "should delete stale mirrored EndpointSlices and create missing ones"):
// the pod's default address 10.244.2.3 becomes its primary network's
// 10.132.2.4, with the mirror's labels.
func TestMirrorEndpointSlice(t *testing.T) {
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "test-pod", Namespace: "testns", Annotations: map[string]string{
		netconf.AnnotationPodNetworks: `{"default":{"mac_address":"0a:58:0a:f4:02:03","ip_address":"10.244.2.3/24","role":"infrastructure-locked"},"testns/l3-network":{"mac_address":"0a:58:0a:84:02:04","ip_address":"10.132.2.4/24","role":"primary"}}`}}}
	host := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "host-pod", Namespace: "testns"}, Spec: corev1.PodSpec{HostNetwork: true},
		Status: corev1.PodStatus{PodIPs: []corev1.PodIP{{IP: "fd00::3"}, {IP: "172.18.0.3"}}}}
	get := func(ns, name string) (*corev1.Pod, error) {
		for _, p := range []*corev1.Pod{pod, host} {
			if p.Namespace == ns && p.Name == name {
				return p, nil
			}
		}
		return nil, errors.New("not found")
	}
	src := &discoveryv1.EndpointSlice{
		ObjectMeta: metav1.ObjectMeta{Name: "default-endpointslice", Namespace: "testns", ResourceVersion: "7",
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "Service", Name: "svc2", UID: "uid-svc2"}},
			Labels:          map[string]string{discoveryv1.LabelServiceName: "svc2", discoveryv1.LabelManagedBy: "endpointslice-controller.k8s.io"}},
		AddressType: discoveryv1.AddressTypeIPv4,
		Ports:       []discoveryv1.EndpointPort{{Name: ptr("http"), Protocol: ptr(corev1.ProtocolTCP), Port: ptr(int32(8080))}},
		Endpoints: []discoveryv1.Endpoint{
			{Addresses: []string{"10.244.2.3"}, TargetRef: &corev1.ObjectReference{Kind: "Pod", Namespace: "testns", Name: "test-pod"},
				NodeName: ptr("node-a")},
			{Addresses: []string{"172.18.0.3"}, TargetRef: &corev1.ObjectReference{Kind: "Pod", Namespace: "testns", Name: "host-pod"}},
			{Addresses: []string{"192.0.2.9"}}, // no pod behind it
		},
	}
	m, err := MirrorEndpointSlice(src, nil, "testns_l3-network", "testns/l3-network", get)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{discoveryv1.LabelManagedBy: EndpointSliceMirrorController, LabelSourceEndpointSlice: "default-endpointslice",
		LabelSourceEndpointSliceVer: "7", LabelEndpointSliceNetwork: "testns_l3-network", LabelServiceName: "svc2"}
	for k, v := range want {
		if m.Labels[k] != v {
			t.Errorf("label %s = %q, want %q", k, m.Labels[k], v)
		}
	}
	if _, ok := m.Labels[discoveryv1.LabelServiceName]; ok {
		t.Error("the mirror carries the default network's service-name label")
	}
	// "testns_l3-network-default-endpointslice" is no DNS name: the source's.
	if m.GenerateName != "default-endpointslice" || m.Namespace != "testns" || m.AddressType != discoveryv1.AddressTypeIPv4 {
		t.Errorf("generateName %q, namespace %q, address type %q", m.GenerateName, m.Namespace, m.AddressType)
	}
	if len(m.Endpoints) != 2 || m.Endpoints[0].Addresses[0] != "10.132.2.4" || *m.Endpoints[0].NodeName != "node-a" ||
		m.Endpoints[1].Addresses[0] != "172.18.0.3" {
		t.Errorf("endpoints %+v", m.Endpoints)
	}
	// The mirror read back for the services planner.
	s, ok, err := EndpointSliceFrom(m)
	if err != nil || !ok || len(s.Endpoints) != 2 || s.Endpoints[0].Addresses[0] != netip.MustParseAddr("10.132.2.4") ||
		s.Ports[0] != (services.EndpointPort{Name: "http", Protocol: services.ProtocolTCP, Port: 8080}) {
		t.Errorf("EndpointSliceFrom: %+v %v %v", s, ok, err)
	}
	// The mirror shares no memory with the source: writing through it
	// leaves the source as it was.
	m.Endpoints[0].Addresses[0], *m.Endpoints[0].NodeName = "10.0.0.99", "elsewhere"
	m.Labels["x"] = "y"
	*m.Ports[0].Port, *m.Ports[0].Name = 9090, "other"
	m.OwnerReferences[0].Name = "other"
	if src.Endpoints[0].Addresses[0] != "10.244.2.3" || *src.Endpoints[0].NodeName != "node-a" || src.Labels["x"] != "" ||
		*src.Ports[0].Port != 8080 || *src.Ports[0].Name != "http" || src.OwnerReferences[0].Name != "svc2" {
		t.Error("the mirror shares memory with the source slice")
	}
	// A pod without an address on the network is an error naming it.
	pod.Annotations[netconf.AnnotationPodNetworks] = `{"default":{"mac_address":"0a:58:0a:f4:02:03","ip_address":"10.244.2.3/24","role":"primary"}}`
	if _, err := MirrorEndpointSlice(src, nil, "testns_l3-network", "testns/l3-network", get); err == nil ||
		!strings.Contains(err.Error(), "testns/test-pod") {
		t.Errorf("pod without the network: %v", err)
	}
}

func TestServiceFrom(t *testing.T) {
	local := corev1.ServiceInternalTrafficPolicyLocal
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "ns"},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer, ClusterIPs: []string{"10.96.0.50", "fd00:96::50"},
			ExternalIPs: []string{"192.0.2.1"}, ExternalTrafficPolicy: corev1.ServiceExternalTrafficPolicyLocal,
			InternalTrafficPolicy: &local, SessionAffinity: corev1.ServiceAffinityClientIP,
			Ports: []corev1.ServicePort{{Name: "http", Port: 80, NodePort: 30080}, {Name: "dns", Protocol: corev1.ProtocolUDP, Port: 53}}},
		Status: corev1.ServiceStatus{LoadBalancer: corev1.LoadBalancerStatus{Ingress: []corev1.LoadBalancerIngress{{IP: "198.51.100.7"}, {Hostname: "lb.example"}}}}}
	fqdn := &discoveryv1.EndpointSlice{AddressType: discoveryv1.AddressTypeFQDN, Endpoints: []discoveryv1.Endpoint{{Addresses: []string{"a.example"}}}}
	v4 := &discoveryv1.EndpointSlice{AddressType: discoveryv1.AddressTypeIPv4,
		Endpoints: []discoveryv1.Endpoint{{Addresses: []string{"10.128.0.5"}, Conditions: discoveryv1.EndpointConditions{Ready: ptr(false), Serving: ptr(true), Terminating: ptr(true)}}}}
	got, ok, err := ServiceFrom(svc, []*discoveryv1.EndpointSlice{fqdn, v4})
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	if len(got.ClusterIPs) != 2 || got.LoadBalancerIPs[0] != netip.MustParseAddr("198.51.100.7") || len(got.LoadBalancerIPs) != 1 ||
		got.ExternalIPs[0] != netip.MustParseAddr("192.0.2.1") {
		t.Errorf("addresses %+v", got)
	}
	if !got.ExternalTrafficLocal || !got.InternalTrafficLocal || got.AffinitySeconds != DefaultAffinitySeconds {
		t.Errorf("policies %+v", got)
	}
	if got.Ports[0] != (services.Port{Name: "http", Protocol: services.ProtocolTCP, Port: 80, NodePort: 30080}) ||
		got.Ports[1].Protocol != services.ProtocolUDP {
		t.Errorf("ports %+v", got.Ports)
	}
	if len(got.Slices) != 1 || *got.Slices[0].Endpoints[0].Serving != true {
		t.Errorf("slices %+v", got.Slices)
	}
	// ETP applies to NodePort and LoadBalancer Services only.
	svc.Spec.Type = corev1.ServiceTypeClusterIP
	if got, _, _ := ServiceFrom(svc, nil); got.ExternalTrafficLocal || got.LoadBalancerIPs != nil {
		t.Errorf("a ClusterIP Service: %+v", got)
	}
	for name, s := range map[string]corev1.ServiceSpec{
		"headless":     {ClusterIP: corev1.ClusterIPNone},
		"externalName": {Type: corev1.ServiceTypeExternalName, ExternalName: "x.example"},
	} {
		if _, ok, err := ServiceFrom(&corev1.Service{Spec: s}, nil); ok || err != nil {
			t.Errorf("%s: ok %v, err %v", name, ok, err)
		}
	}
	bad := svc.DeepCopy()
	bad.Spec.ExternalIPs = []string{"192.0.2.300"}
	if _, _, err := ServiceFrom(bad, nil); !errors.Is(err, ErrService) || !strings.Contains(err.Error(), "spec.externalIPs[0]") {
		t.Errorf("bad external IP: %v", err)
	}
}

// TestServiceFromClusterIPs: a mapped cluster IP, contradicting clusterIP
// and clusterIPs, two of a family and three are refused, naming the field.
func TestServiceFromClusterIPs(t *testing.T) {
	for name, sp := range map[string]corev1.ServiceSpec{
		"mapped":            {ClusterIPs: []string{"::ffff:10.96.0.1"}},
		"zone":              {ClusterIPs: []string{"fe80::1%eth0"}},
		"contradicting":     {ClusterIP: "10.96.0.1", ClusterIPs: []string{"10.96.0.2"}},
		"two IPv4":          {ClusterIPs: []string{"10.96.0.1", "10.96.0.2"}},
		"two IPv6":          {ClusterIPs: []string{"fd00::1", "fd00::2"}},
		"three":             {ClusterIPs: []string{"10.96.0.1", "fd00::1", "fd00::2"}},
		"10 MB cluster IP":  {ClusterIPs: []string{strings.Repeat("1", 10<<20)}},
		"10 MB contradicts": {ClusterIP: strings.Repeat("1", 10<<20), ClusterIPs: []string{"10.96.0.1"}},
	} {
		svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "ns"}, Spec: sp}
		if _, _, err := ServiceFrom(svc, nil); !errors.Is(err, ErrService) || !strings.Contains(err.Error(), "spec.clusterIP") || len(err.Error()) > 2048 {
			t.Errorf("%s: %.300v", name, err)
		}
	}
	ok := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "ns"},
		Spec: corev1.ServiceSpec{ClusterIP: "10.96.0.1", ClusterIPs: []string{"10.96.0.1", "fd00::1"}}}
	if s, ok, err := ServiceFrom(ok, nil); err != nil || !ok || len(s.ClusterIPs) != 2 {
		t.Errorf("dual-stack Service: %v %v %v", s.ClusterIPs, ok, err)
	}
}
