package netconf

import (
	"fmt"
	"testing"

	nadv1 "github.com/k8snetworkplumbingwg/network-attachment-definition-client/pkg/apis/k8s.cni.cncf.io/v1"
)

const benchConfig = `{"cniVersion":"1.0.0","name":"default_l3-network","type":"ovn-k8s-cni-overlay","topology":"layer3","role":"primary","netAttachDefName":"default/l3-network","subnets":"10.128.0.0/16/24,2600:db8::/29/64","joinSubnet":"100.65.0.0/24,fd99::/64","mtu":1400}`

func BenchmarkParseNetConf(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		c, err := ParseNetConf([]byte(benchConfig))
		if err != nil {
			b.Fatal(err)
		}
		if _, err := c.Network(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkValidateUDN(b *testing.B) {
	u := validUDN()
	u.Spec.Topology, u.Spec.Subnets = TopologyLayer3, []string{"10.128.0.0/16/24", "fd00:10:128::/48"}
	u.Spec.ExcludeSubnets = []string{"10.128.0.0/29"}
	b.ReportAllocs()
	for b.Loop() {
		if errs := ValidateUDN(u); len(errs) != 0 {
			b.Fatal(errs)
		}
	}
}

func benchNamespaces(n int) ([]Namespace, []string) {
	var nss []Namespace
	var names []string
	for i := range n {
		name := fmt.Sprintf("ns-%03d", i)
		nss = append(nss, Namespace{Name: name, Labels: map[string]string{"tier": "db"}})
		names = append(names, name)
	}
	return nss, names
}

func BenchmarkRenderCUDN100(b *testing.B) {
	c := validCUDN()
	_, names := benchNamespaces(100)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := RenderCUDN(c, 7, names); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReconcileCUDN100 reconciles a CUDN over 100 namespaces, half of
// them already provisioned, against 20 other secondary CUDNs.
func BenchmarkReconcileCUDN100(b *testing.B) {
	c := validCUDN()
	nss, names := benchNamespaces(100)
	r, err := RenderCUDN(c, 7, names[:50])
	if err != nil {
		b.Fatal(err)
	}
	var others []PeerCUDN
	for i := range 20 {
		o := validCUDN()
		o.Name, o.UID = fmt.Sprintf("other-%d", i), "uid-other"
		o.Spec.Template.Spec.Role = RoleSecondary
		others = append(others, PeerCUDN{CUDN: o, NetworkID: 10 + i})
	}
	in := CUDNInput{CUDN: c, NetworkID: 7, Namespaces: nss, NADs: append([]*nadv1.NetworkAttachmentDefinition(nil), r.NADs...), Others: others}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ReconcileCUDN(in); err != nil {
			b.Fatal(err)
		}
	}
}
