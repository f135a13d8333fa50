package controller

import (
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestNodeFromObject(t *testing.T) {
	for _, tc := range []struct {
		name string
		ann  map[string]string
		want string // fmt of the node, or the error
	}{
		{"bare", nil, "{n1 0   [] [] }"},
		{"ready", map[string]string{
			AnnotationChassisID:     "c1",
			AnnotationPrimaryIfAddr: `{"ipv4":"172.18.0.2/16","ipv6":"fc00::2/64"}`,
			AnnotationGatewayConfig: `{"default":{"mac-address":"0a:58:ac:12:00:02","next-hops":["172.18.0.1","fc00::1"]}}`,
		}, "{n1 0  c1 [172.18.0.2/16 fc00::2/64] [172.18.0.1 fc00::1] 0a:58:ac:12:00:02}"},
		{"bad address", map[string]string{AnnotationPrimaryIfAddr: `{"ipv4":"172.18.0.2"}`},
			`Node n1: annotation k8s.ovn.org/node-primary-ifaddr: malformed annotation: "172.18.0.2" is not an interface address`},
		{"bad json", map[string]string{AnnotationGatewayConfig: `{`},
			`Node n1: annotation k8s.ovn.org/l3-gateway-config: malformed annotation: unexpected end of JSON input`},
		{"bad next hop", map[string]string{AnnotationGatewayConfig: `{"default":{"next-hops":["x"]}}`},
			`Node n1: annotation k8s.ovn.org/l3-gateway-config: malformed annotation: default: next-hops: "x" is not an address`},
		// As the udnkit command reads a node (manifest.NodeOf): the
		// gateway's addresses first, one next hop per family, a disabled
		// gateway read as none, a MAC of six bytes.
		{"gateway addresses first", map[string]string{
			AnnotationPrimaryIfAddr: `{"ipv4":"172.18.0.2/16"}`,
			AnnotationGatewayConfig: `{"default":{"ip-addresses":["172.18.0.9/16"],"next-hops":["172.18.0.1","172.18.0.254"]}}`,
		}, "{n1 0   [172.18.0.9/16] [172.18.0.1] }"},
		{"gateway disabled", map[string]string{
			AnnotationPrimaryIfAddr: `{"ipv4":"172.18.0.2/16"}`,
			AnnotationGatewayConfig: `{"default":{"mode":"disabled","next-hops":["172.18.0.1"]}}`,
		}, "{n1 0   [172.18.0.2/16] [] }"},
		{"eight-byte MAC", map[string]string{AnnotationGatewayConfig: `{"default":{"mac-address":"0a:58:ac:12:00:02:00:01"}}`},
			`Node n1: annotation k8s.ovn.org/l3-gateway-config: malformed annotation: default: mac-address: "0a:58:ac:12:00:02:00:01" is not a MAC`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			nd, err := NodeFromObject(&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1", Annotations: tc.ann}})
			got := fmt.Sprint(nd)
			if err != nil {
				got = err.Error()
			}
			if got != tc.want {
				t.Errorf("got %s, want %s", got, tc.want)
			}
		})
	}
}

func FuzzNodeFromObject(f *testing.F) {
	f.Add("c1", `{"ipv4":"172.18.0.2/16"}`, `{"default":{"next-hops":["172.18.0.1"]}}`)
	f.Add("", `{"ipv6":"fc00::2/64"}`, `{"default":{"mac-address":"zz"}}`)
	f.Fuzz(func(t *testing.T, chassis, ifaddr, gw string) {
		nd, err := NodeFromObject(&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n", Annotations: map[string]string{
			AnnotationChassisID: chassis, AnnotationPrimaryIfAddr: ifaddr, AnnotationGatewayConfig: gw}}})
		if err != nil {
			if !strings.HasPrefix(err.Error(), "Node n: annotation k8s.ovn.org/") {
				t.Fatalf("error does not name the node and annotation: %v", err)
			}
			return
		}
		if len(nd.Addresses) > 2 || nd.Chassis != chassis {
			t.Fatalf("node %v from %q %q", nd, chassis, ifaddr)
		}
		for _, p := range nd.Addresses {
			if !p.IsValid() {
				t.Fatalf("invalid address in %v", nd)
			}
		}
	})
}
