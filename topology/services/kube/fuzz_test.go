package kube

import (
	"errors"
	"net/netip"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/udnkit/udnkit/netconf/udn"
	"github.com/udnkit/udnkit/topology"
	"github.com/udnkit/udnkit/topology/services"
)

// FuzzServiceFrom reads a fuzzed Service and EndpointSlice and plans what
// it read: reading fails with ErrService naming the Service, planning with
// services.ErrInvalid, and every load balancer's VIPs are the Service's
// addresses (or a node's, for a node port) on one of its ports.
func FuzzServiceFrom(f *testing.F) {
	f.Add("10.96.0.10", "", "TCP", int32(80), int32(0), int32(8080), "10.128.1.5", "IPv4", "ClusterIP", int32(0))
	f.Add("fd00:10:96::a", "", "UDP", int32(53), int32(0), int32(53), "fe00::5", "IPv6", "ClusterIP", int32(0))
	f.Add("10.96.0.11", "192.0.2.7", "SCTP", int32(443), int32(30443), int32(8443), "10.128.2.5", "IPv4", "NodePort", int32(60))
	f.Add("None", "", "TCP", int32(80), int32(0), int32(80), "10.128.1.5", "IPv4", "ClusterIP", int32(0))
	f.Add("10.96.0.12", "", "FOO", int32(70000), int32(-1), int32(0), "x", "FQDN", "LoadBalancer", int32(86400))
	f.Fuzz(func(t *testing.T, clusterIP, externalIP, proto string, port, nodePort, targetPort int32, endpoint, addrType, typ string, affinity int32) {
		svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "web"}, Spec: corev1.ServiceSpec{
			Type: corev1.ServiceType(typ), ClusterIP: clusterIP,
			Ports: []corev1.ServicePort{{Protocol: corev1.Protocol(proto), Port: port, NodePort: nodePort}}}}
		if externalIP != "" {
			svc.Spec.ExternalIPs = []string{externalIP}
		}
		if affinity != 0 {
			svc.Spec.SessionAffinity = corev1.ServiceAffinityClientIP
			svc.Spec.SessionAffinityConfig = &corev1.SessionAffinityConfig{ClientIP: &corev1.ClientIPConfig{TimeoutSeconds: &affinity}}
		}
		sl := &discoveryv1.EndpointSlice{AddressType: discoveryv1.AddressType(addrType),
			Ports:     []discoveryv1.EndpointPort{{Protocol: (*corev1.Protocol)(&proto), Port: &targetPort}},
			Endpoints: []discoveryv1.Endpoint{{Addresses: []string{endpoint}, NodeName: ptr("node-a")}}}
		s, ok, err := ServiceFrom(svc, []*discoveryv1.EndpointSlice{sl})
		if err != nil {
			if !errors.Is(err, ErrService) || !strings.Contains(err.Error(), "ns/web") {
				t.Fatalf("ServiceFrom error wraps no ErrService or does not name the Service: %v", err)
			}
			return
		}
		if !ok {
			return
		}
		in := &services.Input{Network: &udn.Network{Name: "ns_blue", ID: 3, Topology: udn.TopologyLayer3, Role: udn.RolePrimary,
			Subnets: []udn.Subnet{{CIDR: netip.MustParsePrefix("10.128.0.0/16"), HostPrefix: 24}, {CIDR: netip.MustParsePrefix("fe00::/48"), HostPrefix: 64}}},
			Nodes: []topology.Node{{Name: "node-a", Zone: "z", Addresses: []netip.Prefix{netip.MustParsePrefix("172.18.0.2/16"), netip.MustParsePrefix("fc00::2/64")}}},
			Zone:  "z"}
		lbs, err := services.PlanService(in, &s)
		if err != nil {
			if !errors.Is(err, services.ErrInvalid) {
				t.Fatalf("PlanService error wraps no ErrInvalid: %v", err)
			}
			return
		}
		known := map[netip.Addr]bool{netip.MustParseAddr("172.18.0.2"): true, netip.MustParseAddr("fc00::2"): true}
		for _, a := range append(append(s.ClusterIPs, s.ExternalIPs...), s.LoadBalancerIPs...) {
			known[a] = true
		}
		for _, lb := range lbs {
			for _, v := range lb.VIPs {
				if !known[v.VIP.Addr()] || v.VIP.Port() != uint16(port) && v.VIP.Port() != uint16(nodePort) {
					t.Fatalf("%s: VIP %s is none of the Service's addresses and ports", lb.Name, v.VIP)
				}
			}
		}
	})
}
