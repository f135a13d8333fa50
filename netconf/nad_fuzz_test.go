package netconf

import (
	"errors"
	"net/netip"
	"strings"
	"testing"

	nadv1 "github.com/k8snetworkplumbingwg/network-attachment-definition-client/pkg/apis/k8s.cni.cncf.io/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/udnkit/udnkit/ipam"
)

// FuzzParseNAD: a NAD's config parses under ParseNAD exactly when
// ParseNetConf takes it and names the NAD itself; NetworkFromNAD takes no
// more than ParseNAD, and refuses a network of another namespace or of a
// CUDN that does not control the NAD.
func FuzzParseNAD(f *testing.F) {
	for _, s := range []struct{ ns, name, kind, owner, config string }{
		{"demo", "db-network", KindUDN, "db-network", `{"cniVersion":"1.0.0","name":"demo_db-network","type":"ovn-k8s-cni-overlay","topology":"layer2","role":"primary","netAttachDefName":"demo/db-network","subnets":"10.0.0.0/24"}`},
		{"demo", "db-network", KindUDN, "other", `{"cniVersion":"1.0.0","name":"demo_db-network","type":"ovn-k8s-cni-overlay","topology":"layer2","role":"primary","netAttachDefName":"demo/db-network","subnets":"10.0.0.0/24"}`},
		{"a", "x", KindCUDN, "x", `{"cniVersion":"1.0.0","name":"cluster_udn_x","type":"ovn-k8s-cni-overlay","topology":"layer3","role":"primary","netAttachDefName":"a/x","subnets":"10.1.0.0/16/24"}`},
		{"a", "x", "", "", `{"cniVersion":"1.0.0","name":"cluster_udn_x","type":"ovn-k8s-cni-overlay","topology":"layer3","role":"primary","netAttachDefName":"a/x","subnets":"10.1.0.0/16/24"}`},
		{"tenant", "blue", "", "", `{"cniVersion":"1.0.0","name":"other_blue","type":"ovn-k8s-cni-overlay","topology":"layer2","netAttachDefName":"tenant/blue"}`},
		{"ns1", "nad1", "", "", `{"name":"ns1_red","cniVersion":"1.1.0","plugins":[{"type":"ovn-k8s-cni-overlay","topology":"localnet","netAttachDefName":"ns1/nad1"}]}`},
		{"ns", "n", "", "", `{}`},
	} {
		f.Add(s.ns, s.name, s.kind, s.owner, s.config)
	}
	f.Fuzz(func(t *testing.T, ns, name, kind, owner, config string) {
		nad := &nadv1.NetworkAttachmentDefinition{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: nadv1.NetworkAttachmentDefinitionSpec{Config: config}}
		if kind != "" {
			yes := true
			nad.OwnerReferences = []metav1.OwnerReference{{Kind: kind, Name: owner, Controller: &yes}}
		}
		c, perr := ParseNAD(nad)
		plain, err := ParseNetConf([]byte(config))
		switch {
		case perr == nil && (err != nil || plain.NetAttachDefName != ns+"/"+name || c.NetAttachDefName != ns+"/"+name):
			t.Fatalf("ParseNAD took a config ParseNetConf refuses or naming another NAD: %v, %+v", err, c)
		case perr != nil && err == nil && plain.NetAttachDefName == ns+"/"+name:
			t.Fatalf("ParseNAD refused a config ParseNetConf takes for this NAD: %v", perr)
		case perr != nil && !strings.Contains(perr.Error(), "NetworkAttachmentDefinition "+ns+"/"+name):
			t.Fatalf("ParseNAD error does not name the NAD: %v", perr)
		}
		n, nerr := NetworkFromNAD(nad)
		if nerr != nil {
			if perr == nil && !errors.Is(nerr, ErrNADBinding) {
				t.Fatalf("NetworkFromNAD refused a NAD ParseNAD takes, not for its binding: %v", nerr)
			}
			return
		}
		if perr != nil {
			t.Fatalf("NetworkFromNAD took a NAD ParseNAD refuses (%v)", perr)
		}
		if cudn, ok := strings.CutPrefix(n.Name, "cluster_udn_"); ok {
			if kind != KindCUDN || owner != cudn {
				t.Fatalf("network %s from a NAD controlled by %s %q", n.Name, kind, owner)
			}
		} else if !strings.HasPrefix(n.Name, ns+"_") {
			t.Fatalf("network %s from a NAD of namespace %s", n.Name, ns)
		}
	})
}

// FuzzCheckCluster: a network CheckCluster takes has no pod subnet
// overlapping the cluster's service CIDRs or masquerade subnets, and no
// subnet of a family the cluster does not run.
func FuzzCheckCluster(f *testing.F) {
	f.Add("10.0.0.0/24", "172.30.0.0/16", "10.128.0.0/14", true, false)
	f.Add("172.30.1.0/24", "172.30.0.0/16", "10.128.0.0/14", true, true)
	f.Add("fd00::/64", "fd01::/112", "fd02::/48", false, true)
	f.Add("169.254.0.0/24", "", "", true, false)
	f.Fuzz(func(t *testing.T, subnet, svc, pods string, v4, v6 bool) {
		s, err := ParseSubnet(subnet, TopologyLayer2)
		if err != nil {
			return
		}
		n := &Network{Name: "ns_n", Topology: TopologyLayer2, Role: RolePrimary, Subnets: []Subnet{s}}
		var c Cluster
		if p, err := netip.ParsePrefix(svc); err == nil {
			c.ServiceCIDRs = []netip.Prefix{p}
		}
		if p, err := netip.ParsePrefix(pods); err == nil {
			c.PodSubnets = []netip.Prefix{p}
		}
		c.IPv4, c.IPv6 = v4, v6
		err = CheckCluster(n, c)
		if err != nil {
			if !errors.Is(err, ErrInvalidSpec) {
				t.Fatalf("CheckCluster error wraps no ErrInvalidSpec: %v", err)
			}
			return
		}
		for _, q := range append(c.ServiceCIDRs, ipam.DefaultMasqueradeSubnets()...) {
			if s.CIDR.Overlaps(q) {
				t.Fatalf("CheckCluster took %s overlapping %s", s.CIDR, q)
			}
		}
		if (v4 || v6) && (s.CIDR.Addr().Is4() && !v4 || s.CIDR.Addr().Is6() && !v6) {
			t.Fatalf("CheckCluster took %s on a cluster without its family", s.CIDR)
		}
	})
}
