package kube_test

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/udnkit/udnkit/topology/services/kube"
)

// Read a NodePort Service and its EndpointSlice for the planner.
func ExampleServiceFrom() {
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "tenant-a", Name: "web"},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeNodePort, ClusterIPs: []string{"10.96.0.50"},
			Ports: []corev1.ServicePort{{Name: "http", Port: 80, NodePort: 30080}}}}
	port, name, proto := int32(8080), "http", corev1.ProtocolTCP
	slice := &discoveryv1.EndpointSlice{AddressType: discoveryv1.AddressTypeIPv4,
		Ports:     []discoveryv1.EndpointPort{{Name: &name, Protocol: &proto, Port: &port}},
		Endpoints: []discoveryv1.Endpoint{{Addresses: []string{"10.128.0.5"}}}}
	s, ok, err := kube.ServiceFrom(svc, []*discoveryv1.EndpointSlice{slice})
	if err != nil || !ok {
		panic(err)
	}
	fmt.Println(s.ClusterIPs, s.Ports, s.Slices[0].Endpoints[0].Addresses)
	// Output: [10.96.0.50] [{http TCP 80 30080}] [10.128.0.5]
}
