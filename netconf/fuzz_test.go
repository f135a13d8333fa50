package netconf

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/udnkit/udnkit/netconf/udn"
)

var fuzzTopologies = []Topology{TopologyLayer2, TopologyLayer3, TopologyLocalnet, "", "layer3"}

func FuzzParseSubnet(f *testing.F) {
	for _, s := range []string{"10.128.0.0/16/24", "10.0.0.0/24", "fd00::/48/64", "10.0.0.100/26", "::ffff:1.2.3.4/120", "1.2.3.4/32/33", "/", "a/b/c"} {
		for i := range 3 {
			f.Add(s, uint8(i))
		}
	}
	f.Fuzz(func(t *testing.T, s string, ti uint8) {
		topo := fuzzTopologies[int(ti)%len(fuzzTopologies)]
		sn, err := ParseSubnet(s, topo)
		if err != nil {
			return
		}
		if sn.CIDR != sn.CIDR.Masked() || !sn.CIDR.IsValid() || sn.CIDR.Addr().Is4In6() {
			t.Fatalf("%q parsed to a non-canonical prefix %v", s, sn.CIDR)
		}
		if topo == TopologyLayer3 {
			if sn.HostPrefix <= sn.CIDR.Bits() || sn.HostPrefix > sn.CIDR.Addr().BitLen() {
				t.Fatalf("%q: host prefix %d vs /%d", s, sn.HostPrefix, sn.CIDR.Bits())
			}
		} else if sn.HostPrefix != 0 {
			t.Fatalf("%q: host prefix on %s", s, topo)
		}
		// The canonical spelling parses to the same subnet.
		again, err := ParseSubnet(sn.String(), topo)
		if err != nil || again != sn {
			t.Fatalf("%q -> %q -> %v, %v", s, sn, again, err)
		}
		// And the list form of one subnet agrees.
		list, err := ParseSubnets(sn.String(), topo)
		if err != nil || len(list) != 1 || list[0] != sn {
			t.Fatalf("ParseSubnets(%q) = %v, %v", sn, list, err)
		}
	})
}

func FuzzParseNetConf(f *testing.F) {
	for _, s := range []string{
		`{"cniVersion":"1.0.0","name":"demo_db-network","type":"ovn-k8s-cni-overlay","topology":"layer2","role":"primary","netAttachDefName":"demo/db-network","subnets":"10.0.0.0/24","excludeSubnets":"10.0.0.64/26","joinSubnet":"100.65.0.0/16","transitSubnet":"100.88.0.0/16","mtu":9000,"allowPersistentIPs":true}`,
		`{"cniVersion":"0.3.1","name":"l3-network","type":"ovn-k8s-cni-overlay","topology":"layer3","subnets":"10.128.0.0/16/24,2600:db8::/29","joinSubnet":"100.65.0.0/24,fd99::/64","mtu":1400,"netAttachDefName":"default/l3-network","primaryNetwork":true}`,
		`{"cniVersion":"1.0.0","name":"n","type":"ovn-k8s-cni-overlay","topology":"localnet","netAttachDefName":"ns/n","subnets":"192.168.0.0/24","physicalNetworkName":"tenant","vlanID":7,"allowPersistentIPs":true}`,
		`{"cniVersion":"1.0.0","name":"n","type":"ovn-k8s-cni-overlay","topology":"layer2","netAttachDefName":"ns/n"}`,
		`{"cniVersion":"1.0.0","name":"cluster_udn_x","type":"ovn-k8s-cni-overlay","topology":"layer2","role":"primary","netAttachDefName":"a/x","subnets":"100.88.0.0/24,fd97::/64","vrf":"x"}`,
		`{}`, `[]`, `null`,
		`{"name":"tenantred","cniVersion":"1.1.0","plugins":[{"type":"ovn-k8s-cni-overlay","topology":"localnet","vlanID":10,"netAttachDefName":"ns1/nad1"}]}`,
		`{"allowPersistentIPs":true,"cniVersion":"1.1.0","joinSubnet":"100.65.0.0/16,fd99::/64","mtu":1500,"name":"mynamespace_test-net","netAttachDefName":"mynamespace/test-net","role":"primary","subnets":"192.168.100.0/24","topology":"layer2","transitSubnet":"100.88.0.0/16","type":"ovn-k8s-cni-overlay"}`,
		`{"cniVersion":"1.1.0","name":"ns_n","type":"ovn-k8s-cni-overlay","topology":"layer3","role":"primary","netAttachDefName":"ns/n","subnets":"10.0.0.0/16/24,10.1.0.0/16,fd00::/48,fd01::/48/64"}`,
		`{"cniVersion":"1.1.0","name":"ns_n","type":"ovn-k8s-cni-overlay","topology":"layer3","netAttachDefName":"ns/n","subnets":"10.0.0.0/16/24,10.1.0.0/16/26"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := ParseNetConf(data)
		if err != nil {
			return
		}
		n, err := c.Network()
		if err != nil {
			t.Fatalf("ParseNetConf accepted what Network rejects: %v", err)
		}
		assertRoundTrip(t, n)
		// The subnets of a family share one host-subnet length (the
		// reference's parser), and the network plans with a pod.
		hostLen := map[bool]int{}
		for _, s := range n.Subnets {
			v6 := s.CIDR.Addr().Is6()
			if l, ok := hostLen[v6]; ok && l != s.HostPrefix {
				t.Fatalf("accepted host prefixes /%d and /%d in one family: %s", l, s.HostPrefix, data)
			}
			hostLen[v6] = s.HostPrefix
		}
		checkPlansWithPod(t, n)
		// Under the reference profile a parsed NetConf marshals to bytes
		// that parse again and marshal to the same bytes.
		ref := RenderOptions{Profile: udn.ProfileReference}
		b, err := ref.MarshalNetConf(c)
		if err != nil {
			t.Fatal(err)
		}
		c2, err := ParseNetConf(b)
		if err != nil {
			t.Fatalf("reference marshal of an accepted NetConf does not parse: %v\n%s", err, b)
		}
		if b2, _ := ref.MarshalNetConf(c2); string(b2) != string(b) {
			t.Fatalf("reference marshal not stable:\n%s\n%s", b, b2)
		}
	})
}

func fuzzSpec(topo, role uint8, mtu int32, subnets, exclude, join, mode, lifecycle, physnet string, vlan int) UserDefinedNetworkSpec {
	roles := []Role{RolePrimary, RoleSecondary, "", "primary"}
	s := UserDefinedNetworkSpec{
		Topology:       fuzzTopologies[int(topo)%len(fuzzTopologies)],
		Role:           roles[int(role)%len(roles)],
		MTU:            mtu,
		Subnets:        splitList(subnets),
		ExcludeSubnets: splitList(exclude),
		JoinSubnets:    splitList(join),
	}
	if mode != "" || lifecycle != "" {
		s.IPAM = &IPAMSpec{Mode: IPAMMode(mode), Lifecycle: IPAMLifecycle(lifecycle)}
	}
	if physnet != "" || vlan != 0 {
		s.Localnet = &LocalnetSpec{PhysicalNetworkName: physnet, VLANID: vlan}
	}
	return s
}

func addSpecSeeds(f *testing.F, withVRF bool) {
	type seed struct {
		topo, role                                              uint8
		mtu                                                     int32
		subnets, exclude, join, mode, lifecycle, physnet, extra string
		vlan                                                    int
	}
	for _, s := range []seed{
		{0, 0, 9000, "10.0.0.0/24", "10.0.0.100/26", "", "", "Persistent", "", "db-network", 0},
		{1, 0, 1400, "10.128.0.0/16/24,2600:db8::/29", "", "100.65.0.0/24,fd99::/64", "", "", "", "l3", 0},
		{2, 1, 1500, "192.168.100.0/24", "192.168.100.0/29", "", "", "Persistent", "physnet-db", "udn-1-vrf", 100},
		{0, 1, 0, "", "", "", "Disabled", "", "", "", 0},
		{0, 0, 0, "100.88.0.0/24,fd97::/64", "", "100.89.0.0/16", "", "", "", "a-very-long-network-name", 0},
		{1, 0, 0, "10.0.0.0/24", "", "", "", "", "", "x", 0},
		{1, 0, 0, "10.0.0.0/28/29,fd00::/63", "10.0.0.4/30", "", "", "", "", "l3-small", 0},
		{1, 1, 0, "10.0.0.0/29/30", "", "", "", "", "", "l3-none", 0},
		{1, 0, 0, "10.0.0.0/16/24,10.1.0.0/16/26", "", "", "", "", "", "l3-two", 0},
	} {
		extra := s.extra
		if !withVRF {
			extra = "demo"
		}
		f.Add(s.topo, s.role, s.mtu, s.subnets, s.exclude, s.join, s.mode, s.lifecycle, s.physnet, s.vlan, extra, uint16(3))
	}
}

func FuzzValidateUDN(f *testing.F) {
	addSpecSeeds(f, false)
	f.Fuzz(func(t *testing.T, topo, role uint8, mtu int32, subnets, exclude, join, mode, lifecycle, physnet string, vlan int, namespace string, _ uint16) {
		u := &UserDefinedNetwork{
			ObjectMeta: metav1.ObjectMeta{Name: "net", Namespace: namespace, UID: "uid"},
			Spec:       fuzzSpec(topo, role, mtu, subnets, exclude, join, mode, lifecycle, physnet, vlan),
		}
		checkCRDForm(t, u.Spec)
		errs := ValidateUDN(u)
		if _, err := ReconcileUDN(UDNInput{UDN: u}); err != nil {
			t.Fatalf("reconcile: %v", err)
		}
		r, err := RenderUDN(u)
		if (len(errs) == 0) != (err == nil) {
			t.Fatalf("ValidateUDN says %v, RenderUDN says %v", errs, err)
		}
		if err != nil {
			for _, e := range errs {
				if e.Field == "" || !strings.HasPrefix(e.Field, "spec.") && !strings.HasPrefix(e.Field, "metadata.") {
					t.Fatalf("error without a useful path: %v", e)
				}
			}
			return
		}
		if len(ValidateUDNUpdate(u, u)) != 0 {
			t.Fatal("a valid UDN is not a valid update of itself")
		}
		n, err := NetworkFromNAD(r.NADs[0])
		if err != nil || !n.Equal(r.Network) {
			t.Fatalf("rendered NAD parses to %+v, %v; want %+v", n, err, r.Network)
		}
		assertRoundTrip(t, r.Network)
		checkPlansWithPod(t, r.Network)

		// The reference profile renders every valid UDN, and its NAD parses
		// back to the same network (Localnet: with the default mtu filled)
		// and marshals back to the same bytes.
		ref := RenderOptions{Profile: udn.ProfileReference}
		rr, err := ref.RenderUDN(u)
		if err != nil {
			t.Fatalf("reference render: %v", err)
		}
		c, err := ParseNAD(rr.NADs[0])
		if err != nil {
			t.Fatalf("reference NAD does not parse: %v\n%s", err, rr.NADs[0].Spec.Config)
		}
		if b, _ := ref.MarshalNetConf(c); string(b) != rr.NADs[0].Spec.Config {
			t.Fatalf("reference round trip:\n%s\n%s", b, rr.NADs[0].Spec.Config)
		}
		rn, err := c.Network()
		want := r.Network.Clone()
		if want.Topology == TopologyLocalnet && want.MTU == 0 {
			want.MTU = DefaultClusterMTU + 100
		}
		if err != nil || !rn.Equal(want) {
			t.Fatalf("reference NAD parses to %+v, %v; want %+v", rn, err, want)
		}
	})
}

func FuzzValidateCUDN(f *testing.F) {
	addSpecSeeds(f, true)
	f.Fuzz(func(t *testing.T, topo, role uint8, mtu int32, subnets, exclude, join, mode, lifecycle, physnet string, vlan int, vrfOrName string, id uint16) {
		c := &ClusterUserDefinedNetwork{
			ObjectMeta: metav1.ObjectMeta{Name: "net", UID: "uid"},
			Spec: ClusterUserDefinedNetworkSpec{
				NamespaceSelector: metav1.LabelSelector{MatchLabels: map[string]string{"a": "b"}},
				Template:          &UserDefinedNetworkTemplateSpec{Spec: fuzzSpec(topo, role, mtu, subnets, exclude, join, mode, lifecycle, physnet, vlan)},
			},
		}
		if id%2 == 0 {
			c.Spec.VRF = vrfOrName
		} else {
			c.Name = vrfOrName
		}
		checkCRDForm(t, c.Spec.Template.Spec)
		networkID := int(id) % (MaxNetworkID + 2)
		errs := ValidateCUDN(c)
		nss := []Namespace{{Name: "x", Labels: map[string]string{"a": "b"}}, {Name: "y"}}
		if _, err := ReconcileCUDN(CUDNInput{CUDN: c, NetworkID: networkID, Namespaces: nss}); err != nil && c.UID != "" {
			t.Fatalf("reconcile: %v", err)
		}
		r, err := RenderCUDN(c, networkID, []string{"x", "y"})
		if len(errs) > 0 {
			if err == nil {
				t.Fatalf("RenderCUDN accepted an invalid CUDN: %v", errs)
			}
			return
		}
		if err != nil {
			return // network ID out of range or needed for the VRF name
		}
		if r.Network.IsPrimary() && r.Network.VRF == "" {
			t.Fatal("primary CUDN network without a VRF")
		}
		if len(validateVRFName(r.Network.VRF, nil)) != 0 && r.Network.VRF != "" {
			t.Fatalf("invalid VRF %q rendered", r.Network.VRF)
		}
		for _, nad := range r.NADs {
			n, err := NetworkFromNAD(nad)
			want := r.Network.Clone()
			want.ID, want.NADs = 0, []string{nad.Namespace + "/" + nad.Name}
			if err != nil || !n.Equal(want) {
				t.Fatalf("NAD %s/%s parses to %+v, %v; want %+v", nad.Namespace, nad.Name, n, err, want)
			}
			assertRoundTrip(t, n)
		}
		checkPlansWithPod(t, r.Network)

		// The reference profile: its NADs parse back to the network
		// without VRF (Localnet: default mtu filled) and marshal back
		// byte-identical; reconciling with it never fails.
		ref := RenderOptions{Profile: udn.ProfileReference}
		if _, err := ReconcileCUDN(CUDNInput{CUDN: c, NetworkID: networkID, Namespaces: nss, Render: ref}); err != nil {
			t.Fatalf("reconcile (reference): %v", err)
		}
		rr, err := ref.RenderCUDN(c, networkID, []string{"x", "y"})
		if err != nil {
			t.Fatalf("reference render: %v", err)
		}
		for _, nad := range rr.NADs {
			pc, err := ParseNAD(nad)
			if err != nil {
				t.Fatalf("reference NAD does not parse: %v\n%s", err, nad.Spec.Config)
			}
			if b, _ := ref.MarshalNetConf(pc); string(b) != nad.Spec.Config {
				t.Fatalf("reference round trip:\n%s\n%s", b, nad.Spec.Config)
			}
			n, err := NetworkFromNAD(nad)
			want := r.Network.Clone()
			want.ID, want.NADs, want.VRF = 0, []string{nad.Namespace + "/" + nad.Name}, ""
			if want.Topology == TopologyLocalnet && want.MTU == 0 {
				want.MTU = DefaultClusterMTU + 100
			}
			if err != nil || !n.Equal(want) {
				t.Fatalf("reference NAD %s/%s parses to %+v, %v; want %+v", nad.Namespace, nad.Name, n, err, want)
			}
		}
	})
}
