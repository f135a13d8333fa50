package netconf

import (
	"bytes"
	"encoding/json"
	"maps"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/udnkit/udnkit/netconf/udn"
)

var refOpts = RenderOptions{Profile: udn.ProfileReference}

// referenceBytes is what the reference template writes for the expected
// NetConf of one of its tests: json.Marshal of a map, keys sorted, numbers
// as written.
func referenceBytes(t *testing.T, expected string) []byte {
	t.Helper()
	d := json.NewDecoder(strings.NewReader(expected))
	d.UseNumber()
	var m map[string]any
	if err := d.Decode(&m); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// checkRoundTrip: the NAD's config parses (ParseNAD), and the parsed
// NetConf marshals back to the same bytes under the reference profile.
func checkRoundTrip(t *testing.T, r *Rendered) {
	t.Helper()
	for _, nad := range r.NADs {
		c, err := ParseNAD(nad)
		if err != nil {
			t.Fatalf("rendered NAD does not parse: %v", err)
		}
		again, err := refOpts.MarshalNetConf(c)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(again, []byte(nad.Spec.Config)) {
			t.Errorf("round trip:\n got %s\nwant %s", again, nad.Spec.Config)
		}
		if _, err := NetworkFromNAD(nad); err != nil {
			t.Errorf("NetworkFromNAD: %v", err)
		}
	}
}

var (
	refPersistent = &IPAMSpec{Lifecycle: IPAMPersistent}
)

// TestRenderReferenceUDN ports go-controller/pkg/clustermanager/
// userdefinednetwork/template/net-attach-def-template_test.go
// DescribeTable("should create UDN NAD from spec") (OVN-Kubernetes
// 8871cd9c): the NetConf bytes, labels and annotations.
func TestRenderReferenceUDN(t *testing.T) {
	for _, tc := range []struct {
		name string
		spec UserDefinedNetworkSpec
		want string
	}{
		{"primary network, layer3",
			UserDefinedNetworkSpec{Topology: TopologyLayer3, Role: RolePrimary, Subnets: []string{"192.168.100.0/16", "2001:dbb::/60"}, MTU: 1500},
			`{"cniVersion": "1.1.0", "type": "ovn-k8s-cni-overlay", "name": "mynamespace_test-net", "netAttachDefName": "mynamespace/test-net",
			  "role": "primary", "topology": "layer3", "joinSubnet": "100.65.0.0/16,fd99::/64", "subnets": "192.168.100.0/16,2001:dbb::/60", "mtu": 1500}`},
		{"primary network, layer2",
			UserDefinedNetworkSpec{Topology: TopologyLayer2, Role: RolePrimary, Subnets: []string{"192.168.100.0/24", "2001:dbb::/64"}, MTU: 1500, IPAM: refPersistent},
			`{"cniVersion": "1.1.0", "type": "ovn-k8s-cni-overlay", "name": "mynamespace_test-net", "netAttachDefName": "mynamespace/test-net",
			  "role": "primary", "topology": "layer2", "joinSubnet": "100.65.0.0/16,fd99::/64", "transitSubnet": "100.88.0.0/16,fd97::/64",
			  "subnets": "192.168.100.0/24,2001:dbb::/64", "mtu": 1500, "allowPersistentIPs": true}`},
		{"primary network, should override join-subnets when specified",
			UserDefinedNetworkSpec{Topology: TopologyLayer2, Role: RolePrimary, Subnets: []string{"192.168.100.0/24", "2001:dbb::/64"},
				JoinSubnets: []string{"100.62.0.0/24", "fd92::/64"}, MTU: 1500, IPAM: refPersistent},
			`{"cniVersion": "1.1.0", "type": "ovn-k8s-cni-overlay", "name": "mynamespace_test-net", "netAttachDefName": "mynamespace/test-net",
			  "role": "primary", "topology": "layer2", "joinSubnet": "100.62.0.0/24,fd92::/64", "transitSubnet": "100.88.0.0/16,fd97::/64",
			  "subnets": "192.168.100.0/24,2001:dbb::/64", "mtu": 1500, "allowPersistentIPs": true}`},
		{"secondary network, no join-subnets should be set",
			UserDefinedNetworkSpec{Topology: TopologyLayer2, Role: RoleSecondary, Subnets: []string{"192.168.100.0/24", "2001:dbb::/64"}, MTU: 1500, IPAM: refPersistent},
			`{"cniVersion": "1.1.0", "type": "ovn-k8s-cni-overlay", "name": "mynamespace_test-net", "netAttachDefName": "mynamespace/test-net",
			  "role": "secondary", "topology": "layer2", "subnets": "192.168.100.0/24,2001:dbb::/64", "mtu": 1500, "allowPersistentIPs": true}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u := &UserDefinedNetwork{
				ObjectMeta: metav1.ObjectMeta{Namespace: "mynamespace", Name: "test-net", UID: "1",
					Annotations: map[string]string{"testAnnotation": "test", "k8s.ovn.org/testAnnotation": "test"},
					Labels:      map[string]string{"testLabel": "test"}},
				Spec: tc.spec,
			}
			r, err := refOpts.RenderUDN(u)
			if err != nil {
				t.Fatal(err)
			}
			nad := r.NADs[0]
			if want := referenceBytes(t, tc.want); nad.Spec.Config != string(want) {
				t.Errorf("config\n got %s\nwant %s", nad.Spec.Config, want)
			}
			if want := map[string]string{"k8s.ovn.org/user-defined-network": "", "testLabel": "test"}; !maps.Equal(nad.Labels, want) {
				t.Errorf("labels %v, want %v", nad.Labels, want)
			}
			if want := map[string]string{"testAnnotation": "test"}; !maps.Equal(nad.Annotations, want) {
				t.Errorf("annotations %v, want %v", nad.Annotations, want)
			}
			if o := nad.OwnerReferences; len(o) != 1 || o[0].Kind != KindUDN || o[0].UID != "1" || o[0].APIVersion != "k8s.ovn.org/v1" ||
				!*o[0].Controller || !*o[0].BlockOwnerDeletion || nad.Finalizers[0] != FinalizerProtection || nad.Name != "test-net" {
				t.Errorf("metadata %+v", nad.ObjectMeta)
			}
			checkRoundTrip(t, r)
			// The seeds profile is unchanged by the options: the zero value
			// renders what RenderUDN renders.
			seeds, err := RenderOptions{}.RenderUDN(u)
			if err != nil {
				t.Fatal(err)
			}
			plain, _ := RenderUDN(u)
			if seeds.NADs[0].Spec.Config != plain.NADs[0].Spec.Config || seeds.NADs[0].Spec.Config == nad.Spec.Config {
				t.Errorf("seeds profile: %s", seeds.NADs[0].Spec.Config)
			}
		})
	}
}

// TestRenderReferenceCUDN ports net-attach-def-template_test.go
// DescribeTable("should create CUDN NAD from spec") (the entries without
// EVPN transport, which udnkit does not model) and It("should correctly
// assign transit Subnets") through a CUDN whose subnets force the move.
func TestRenderReferenceCUDN(t *testing.T) {
	for _, tc := range []struct {
		name string
		spec UserDefinedNetworkSpec
		want string
	}{
		{"primary network, layer3",
			UserDefinedNetworkSpec{Topology: TopologyLayer3, Role: RolePrimary, Subnets: []string{"192.168.100.0/16", "2001:dbb::/60"}, MTU: 1500},
			`{"cniVersion": "1.1.0", "type": "ovn-k8s-cni-overlay", "name": "cluster_udn_test-net", "netAttachDefName": "mynamespace/test-net",
			  "role": "primary", "topology": "layer3", "joinSubnet": "100.65.0.0/16,fd99::/64", "subnets": "192.168.100.0/16,2001:dbb::/60", "mtu": 1500}`},
		{"primary network, layer2",
			UserDefinedNetworkSpec{Topology: TopologyLayer2, Role: RolePrimary, Subnets: []string{"192.168.100.0/24", "2001:dbb::/64"}, MTU: 1500, IPAM: refPersistent},
			`{"cniVersion": "1.1.0", "type": "ovn-k8s-cni-overlay", "name": "cluster_udn_test-net", "netAttachDefName": "mynamespace/test-net",
			  "role": "primary", "topology": "layer2", "joinSubnet": "100.65.0.0/16,fd99::/64", "transitSubnet": "100.88.0.0/16,fd97::/64",
			  "subnets": "192.168.100.0/24,2001:dbb::/64", "mtu": 1500, "allowPersistentIPs": true}`},
		{"primary network, should override join-subnets when specified",
			UserDefinedNetworkSpec{Topology: TopologyLayer2, Role: RolePrimary, Subnets: []string{"192.168.100.0/24", "2001:dbb::/64"},
				JoinSubnets: []string{"100.62.0.0/24", "fd92::/64"}, MTU: 1500, IPAM: refPersistent},
			`{"cniVersion": "1.1.0", "type": "ovn-k8s-cni-overlay", "name": "cluster_udn_test-net", "netAttachDefName": "mynamespace/test-net",
			  "role": "primary", "topology": "layer2", "joinSubnet": "100.62.0.0/24,fd92::/64", "transitSubnet": "100.88.0.0/16,fd97::/64",
			  "subnets": "192.168.100.0/24,2001:dbb::/64", "mtu": 1500, "allowPersistentIPs": true}`},
		{"secondary network, layer2",
			UserDefinedNetworkSpec{Topology: TopologyLayer2, Role: RoleSecondary, Subnets: []string{"192.168.100.0/24", "2001:dbb::/64"}, MTU: 1500, IPAM: refPersistent},
			`{"cniVersion": "1.1.0", "type": "ovn-k8s-cni-overlay", "name": "cluster_udn_test-net", "netAttachDefName": "mynamespace/test-net",
			  "role": "secondary", "topology": "layer2", "subnets": "192.168.100.0/24,2001:dbb::/64", "mtu": 1500, "allowPersistentIPs": true}`},
		{"secondary network, localnet",
			UserDefinedNetworkSpec{Topology: TopologyLocalnet, Role: RoleSecondary, MTU: 1600,
				Localnet: &LocalnetSpec{PhysicalNetworkName: "mylocalnet1", VLANID: 200},
				Subnets:  []string{"192.168.100.0/24", "2001:dbb::/64"}, ExcludeSubnets: []string{"192.168.100.1/32", "2001:dbb::0/128"}, IPAM: refPersistent},
			`{"cniVersion": "1.1.0", "type": "ovn-k8s-cni-overlay", "name": "cluster_udn_test-net", "netAttachDefName": "mynamespace/test-net",
			  "role": "secondary", "topology": "localnet", "physicalNetworkName": "mylocalnet1", "subnets": "192.168.100.0/24,2001:dbb::/64",
			  "excludeSubnets": "192.168.100.1/32,2001:dbb::0/128", "mtu": 1600, "vlanID": 200, "allowPersistentIPs": true}`},
		{"secondary network, localnet, when MTU is unset it should set default MTU",
			UserDefinedNetworkSpec{Topology: TopologyLocalnet, Role: RoleSecondary,
				Localnet: &LocalnetSpec{PhysicalNetworkName: "mylocalnet1", VLANID: 200},
				Subnets:  []string{"192.168.100.0/24", "2001:dbb::/64"}, ExcludeSubnets: []string{"192.168.100.1/32", "2001:dbb::0/128"}, IPAM: refPersistent},
			`{"cniVersion": "1.1.0", "type": "ovn-k8s-cni-overlay", "name": "cluster_udn_test-net", "netAttachDefName": "mynamespace/test-net",
			  "role": "secondary", "topology": "localnet", "physicalNetworkName": "mylocalnet1", "subnets": "192.168.100.0/24,2001:dbb::/64",
			  "excludeSubnets": "192.168.100.1/32,2001:dbb::0/128", "mtu": 1500, "vlanID": 200, "allowPersistentIPs": true}`},
		// The EVPN entries' non-EVPN part: a single-stack primary Layer2
		// network gets both join families and one transit subnet.
		{"primary network, layer2 with EVPN transport and MAC-VRF (without the evpn keys)",
			UserDefinedNetworkSpec{Topology: TopologyLayer2, Role: RolePrimary, Subnets: []string{"192.168.100.0/24"}, MTU: 1500},
			`{"cniVersion": "1.1.0", "type": "ovn-k8s-cni-overlay", "name": "cluster_udn_test-net", "netAttachDefName": "mynamespace/test-net",
			  "role": "primary", "topology": "layer2", "joinSubnet": "100.65.0.0/16,fd99::/64", "transitSubnet": "100.88.0.0/16",
			  "subnets": "192.168.100.0/24", "mtu": 1500}`},
		{"primary network, layer3 with EVPN transport and IP-VRF (without the evpn keys)",
			UserDefinedNetworkSpec{Topology: TopologyLayer3, Role: RolePrimary, Subnets: []string{"192.168.100.0/16"}, MTU: 1500},
			`{"cniVersion": "1.1.0", "type": "ovn-k8s-cni-overlay", "name": "cluster_udn_test-net", "netAttachDefName": "mynamespace/test-net",
			  "role": "primary", "topology": "layer3", "joinSubnet": "100.65.0.0/16,fd99::/64", "subnets": "192.168.100.0/16", "mtu": 1500}`},
		{"should correctly assign transit Subnets: no overlap, default values",
			UserDefinedNetworkSpec{Topology: TopologyLayer2, Role: RolePrimary, Subnets: []string{"10.12.0.0/16", "fd12:dbba::/64"}},
			`{"cniVersion": "1.1.0", "type": "ovn-k8s-cni-overlay", "name": "cluster_udn_test-net", "netAttachDefName": "mynamespace/test-net",
			  "role": "primary", "topology": "layer2", "joinSubnet": "100.65.0.0/16,fd99::/64", "transitSubnet": "100.88.0.0/16,fd97::/64",
			  "subnets": "10.12.0.0/16,fd12:dbba::/64"}`},
		{"should correctly assign transit Subnets: subnet overlaps the default transit subnet",
			UserDefinedNetworkSpec{Topology: TopologyLayer2, Role: RolePrimary, Subnets: []string{"100.88.0.0/15", "fd97::/63"}},
			`{"cniVersion": "1.1.0", "type": "ovn-k8s-cni-overlay", "name": "cluster_udn_test-net", "netAttachDefName": "mynamespace/test-net",
			  "role": "primary", "topology": "layer2", "joinSubnet": "100.65.0.0/16,fd99::/64", "transitSubnet": "100.90.0.0/16,fd97:0:0:2::/64",
			  "subnets": "100.88.0.0/15,fd97::/63"}`},
		{"should correctly assign transit Subnets: joinSubnet overlaps the default transit subnet",
			UserDefinedNetworkSpec{Topology: TopologyLayer2, Role: RolePrimary, Subnets: []string{"10.12.0.0/16", "fd12:dbba::/64"},
				JoinSubnets: []string{"100.88.0.0/17", "fd97::/65"}},
			`{"cniVersion": "1.1.0", "type": "ovn-k8s-cni-overlay", "name": "cluster_udn_test-net", "netAttachDefName": "mynamespace/test-net",
			  "role": "primary", "topology": "layer2", "joinSubnet": "100.88.0.0/17,fd97::/65", "transitSubnet": "100.89.0.0/16,fd97:0:0:1::/64",
			  "subnets": "10.12.0.0/16,fd12:dbba::/64"}`},
		{"should correctly assign transit Subnets: subnet overlaps the default, join the next one",
			UserDefinedNetworkSpec{Topology: TopologyLayer2, Role: RolePrimary, Subnets: []string{"100.88.0.0/15", "fd97::/65"},
				JoinSubnets: []string{"100.90.0.0/16", "fd97:0:0:1::/64"}},
			`{"cniVersion": "1.1.0", "type": "ovn-k8s-cni-overlay", "name": "cluster_udn_test-net", "netAttachDefName": "mynamespace/test-net",
			  "role": "primary", "topology": "layer2", "joinSubnet": "100.90.0.0/16,fd97:0:0:1::/64", "transitSubnet": "100.91.0.0/16,fd97:0:0:2::/64",
			  "subnets": "100.88.0.0/15,fd97::/65"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &ClusterUserDefinedNetwork{
				ObjectMeta: metav1.ObjectMeta{Name: "test-net", UID: "1"},
				Spec: ClusterUserDefinedNetworkSpec{
					NamespaceSelector: metav1.LabelSelector{MatchLabels: map[string]string{"x": "y"}},
					Template:          &UserDefinedNetworkTemplateSpec{Spec: tc.spec},
				},
			}
			r, err := refOpts.RenderCUDN(c, 7, []string{"mynamespace"})
			if err != nil {
				t.Fatal(err)
			}
			nad := r.NADs[0]
			if want := referenceBytes(t, tc.want); nad.Spec.Config != string(want) {
				t.Errorf("config\n got %s\nwant %s", nad.Spec.Config, want)
			}
			if want := map[string]string{"k8s.ovn.org/user-defined-network": ""}; !maps.Equal(nad.Labels, want) || nad.Annotations != nil {
				t.Errorf("labels %v annotations %v", nad.Labels, nad.Annotations)
			}
			if o := nad.OwnerReferences; len(o) != 1 || o[0].Kind != KindCUDN || o[0].Name != "test-net" || nad.Namespace != "mynamespace" {
				t.Errorf("metadata %+v", nad.ObjectMeta)
			}
			checkRoundTrip(t, r)
		})
	}
}

// TestRenderReferenceRefused ports the reference template test's tables
// DescribeTable("should fail to render NAD spec given") and
// DescribeTable("should fail to render NAD manifest, given"), for the
// entries udnkit's spec can express (it has no per-topology config
// structs, so the topology/config mismatch entries have no counterpart).
// Both profiles refuse them.
func TestRenderReferenceRefused(t *testing.T) {
	l2p := func(join ...string) UserDefinedNetworkSpec {
		return UserDefinedNetworkSpec{Topology: TopologyLayer2, Role: RolePrimary, Subnets: []string{"10.10.0.0/24"}, JoinSubnets: join}
	}
	for _, tc := range []struct {
		name, want string
		spec       UserDefinedNetworkSpec
	}{
		{"invalid layer2 subnets", "subnets[0]", UserDefinedNetworkSpec{Topology: TopologyLayer2, Role: RoleSecondary, Subnets: []string{"abc"}}},
		{"invalid layer3 cluster-subnet", "subnets[0]", UserDefinedNetworkSpec{Topology: TopologyLayer3, Role: RoleSecondary, Subnets: []string{"!/16"}}},
		{"layer3 host-subnet mask is smaller then cluster-subnet mask", "subnets[0]", UserDefinedNetworkSpec{Topology: TopologyLayer3, Role: RoleSecondary, Subnets: []string{"10.10.0.0/24/16"}}},
		{"layer3 host-subnet mask equal to cluster-subnet mask", "subnets[0]", UserDefinedNetworkSpec{Topology: TopologyLayer3, Role: RoleSecondary, Subnets: []string{"10.10.0.0/24/24"}}},
		{"invalid layer3 host-subnet; IPv4 mask is bigger then 32", "subnets[0]", UserDefinedNetworkSpec{Topology: TopologyLayer3, Role: RoleSecondary, Subnets: []string{"10.10.0.0/24/33"}}},
		{"invalid layer2 join subnets", "joinSubnets[0]", l2p("abc")},
		{"invalid layer2 dual-stack join subnets, invalid IPv4 CIDR", "joinSubnets[1]", l2p("fd50::0/125", "!")},
		{"invalid layer2 dual-stack join subnets, invalid IPv6 CIDR", "joinSubnets[1]", l2p("10.10.0.0/24", "!")},
		{"invalid join subnets, overlapping with cluster-default join-subnet, IPv4", "100.64.0.0/16", l2p("100.64.10.0/24")},
		{"invalid join subnets, overlapping with cluster-default join-subnet, IPv6", "joinSubnets[0]", l2p("fd98::4/127")},
		{"invalid join subnets, overlapping with cluster-default join-subnet, dual-stack", "100.64.0.0/16", l2p("100.64.10.0/24", "fd98::4/127")},
		{"UDN, invalid IPAM config: IPAM lifecycle & disabled ipam mode", "ipam.lifecycle",
			UserDefinedNetworkSpec{Topology: TopologyLayer2, Role: RoleSecondary, Subnets: []string{"192.168.100.0/16"}, IPAM: &IPAMSpec{Lifecycle: IPAMPersistent, Mode: IPAMDisabled}}},
		{"UDN, invalid IPAM config: IPAM enabled & no subnet", "subnets: Required value",
			UserDefinedNetworkSpec{Topology: TopologyLayer2, Role: RoleSecondary, IPAM: &IPAMSpec{Mode: IPAMEnabled}}},
		{"UDN, invalid IPAM config: IPAM disabled & subnet", "must be omitted when ipam.mode is Disabled",
			UserDefinedNetworkSpec{Topology: TopologyLayer2, Role: RoleSecondary, Subnets: []string{"192.168.100.0/16"}, IPAM: &IPAMSpec{Mode: IPAMDisabled}}},
		{"CUDN, localnet: IPv4 excludeSubnets not in range of subnets", "excludeSubnets[0]",
			UserDefinedNetworkSpec{Topology: TopologyLocalnet, Role: RoleSecondary, Localnet: &LocalnetSpec{PhysicalNetworkName: "localnet1"},
				Subnets: []string{"192.168.0.0/16", "2001:dbb::/64"}, ExcludeSubnets: []string{"192.200.0.0/30"}}},
		{"CUDN, localnet: IPv6 excludeSubnets not in range of subnets", "excludeSubnets[0]",
			UserDefinedNetworkSpec{Topology: TopologyLocalnet, Role: RoleSecondary, Localnet: &LocalnetSpec{PhysicalNetworkName: "localnet1"},
				Subnets: []string{"192.168.0.0/16", "2001:dbb::/64"}, ExcludeSubnets: []string{"2001:aaa::/127"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u := &UserDefinedNetwork{ObjectMeta: metav1.ObjectMeta{Namespace: "test", Name: "bar"}, Spec: tc.spec}
			for _, o := range []RenderOptions{{}, refOpts} {
				if _, err := o.RenderUDN(u); err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Errorf("%v: err = %v, want one containing %q", o.Profile, err, tc.want)
				}
			}
		})
	}
}
