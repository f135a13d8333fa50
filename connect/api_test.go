package connect

import (
	"errors"
	"net/netip"
	"reflect"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/udnkit/udnkit/ipam"
	"github.com/udnkit/udnkit/netconf"
	"github.com/udnkit/udnkit/netconf/udn"
)

func TestDecodeSeedSample(t *testing.T) {
	c := mustDecode(t, seedSample)
	if c.Name != "colored-enterprise" || len(c.Spec.NetworkSelectors) != 2 || len(c.Spec.ConnectSubnets) != 2 ||
		!c.Spec.Has(PodNetwork) || !c.Spec.Has(ClusterIPServiceNetwork) {
		t.Fatalf("decoded %+v", c.Spec)
	}
	if errs := Validate(c); len(errs) != 0 {
		t.Fatalf("the seed's sample does not validate: %v", errs)
	}
	cp := c.DeepCopy()
	cp.Spec.NetworkSelectors[0].ClusterUserDefinedNetworkSelector.NetworkSelector.MatchExpressions[0].Values[0] = "x"
	cp.Spec.ConnectSubnets[0].CIDR = "x"
	if c.Spec.NetworkSelectors[0].ClusterUserDefinedNetworkSelector.NetworkSelector.MatchExpressions[0].Values[0] != "blue-network" ||
		c.Spec.ConnectSubnets[0].CIDR != "192.168.0.0/16" {
		t.Error("DeepCopy shares storage")
	}
	if !reflect.DeepEqual(c.DeepCopyObject(), c.DeepCopy()) {
		t.Error("DeepCopyObject differs from DeepCopy")
	}
}

// The reference CRD spells connectivityEnabled "connectivity" and
// ClusterIPServiceNetwork "ServiceNetwork"; its docs' manifests decode.
func TestDecodeReferenceSpellings(t *testing.T) {
	doc := strings.Replace(seedSample, "connectivityEnabled:", "connectivity:", 1)
	doc = strings.Replace(doc, "- ClusterIPServiceNetwork", "- ServiceNetwork", 1)
	c := mustDecode(t, doc)
	if !c.Spec.Has(ClusterIPServiceNetwork) || !c.Spec.Has(PodNetwork) {
		t.Fatalf("reference spellings: %v", c.Spec.ConnectivityEnabled)
	}
	both := strings.Replace(seedSample, "connectivityEnabled:", "connectivity: [PodNetwork]\n  connectivityEnabled:", 1)
	if _, err := Decode([]byte(both)); err == nil || !strings.Contains(err.Error(), "not both") {
		t.Errorf("both spellings: %v", err)
	}
	for name, doc := range map[string]string{
		"unknown field": strings.Replace(seedSample, "networkPrefix: 24", "networkPrefix: 24\n    bogus: 1", 1),
		"other kind":    strings.Replace(seedSample, "kind: ClusterNetworkConnect", "kind: UserDefinedNetwork", 1),
		"other version": strings.Replace(seedSample, "k8s.ovn.org/v1", "k8s.ovn.org/v2", 1),
		"not yaml":      "{",
	} {
		if _, err := Decode([]byte(doc)); err == nil {
			t.Errorf("%s: decoded", name)
		}
	}
}

func TestValidate(t *testing.T) {
	valid := func() *ClusterNetworkConnect { return mustDecode(t, seedSample) }
	for _, tc := range []struct {
		name  string
		mod   func(c *ClusterNetworkConnect)
		field string
		msg   string
	}{
		{"no selectors", func(c *ClusterNetworkConnect) { c.Spec.NetworkSelectors = nil }, "spec.networkSelectors", "Required"},
		{"secondary selection type", func(c *ClusterNetworkConnect) {
			c.Spec.NetworkSelectors[1] = NetworkSelector{NetworkSelectionType: SecondaryUserDefinedNetworks,
				SecondaryUserDefinedNetworkSelector: &SecondaryUserDefinedNetworkSelector{}}
		}, "spec", msgOnlyUDNs},
		{"unknown selection type", func(c *ClusterNetworkConnect) { c.Spec.NetworkSelectors[1].NetworkSelectionType = "Pods" },
			"spec.networkSelectors[1].networkSelectionType", "Unsupported value"},
		{"duplicate selection type", func(c *ClusterNetworkConnect) { c.Spec.NetworkSelectors[1] = c.Spec.NetworkSelectors[0] },
			"spec.networkSelectors[1].networkSelectionType", "Duplicate value"},
		{"type without its selector", func(c *ClusterNetworkConnect) { c.Spec.NetworkSelectors[0].ClusterUserDefinedNetworkSelector = nil },
			"spec.networkSelectors[0]", "Inconsistent selector"},
		{"six selectors", func(c *ClusterNetworkConnect) {
			for range 4 {
				c.Spec.NetworkSelectors = append(c.Spec.NetworkSelectors, c.Spec.NetworkSelectors[0])
			}
		}, "spec.networkSelectors", "must have at most 5 items"},
		{"bad label selector", func(c *ClusterNetworkConnect) {
			c.Spec.NetworkSelectors[0].ClusterUserDefinedNetworkSelector.NetworkSelector.MatchExpressions[0].Operator = "Near"
		}, "spec.networkSelectors[0].clusterUserDefinedNetworkSelector.networkSelector", "not a valid label selector operator"},
		{"no connect subnets", func(c *ClusterNetworkConnect) { c.Spec.ConnectSubnets = nil }, "spec.connectSubnets", "Required"},
		{"three connect subnets", func(c *ClusterNetworkConnect) {
			c.Spec.ConnectSubnets = append(c.Spec.ConnectSubnets, ConnectSubnet{CIDR: "10.0.0.0/8", NetworkPrefix: 16})
		}, "spec.connectSubnets", "must have at most 2 items"},
		{"two of one family", func(c *ClusterNetworkConnect) {
			c.Spec.ConnectSubnets[1] = ConnectSubnet{CIDR: "10.0.0.0/8", NetworkPrefix: 16}
		},
			"spec.connectSubnets", msgFamilies},
		{"host bits set", func(c *ClusterNetworkConnect) { c.Spec.ConnectSubnets[0].CIDR = "192.168.0.1/16" },
			"spec.connectSubnets[0].cidr", msgNetworkAddress},
		{"not a CIDR", func(c *ClusterNetworkConnect) { c.Spec.ConnectSubnets[0].CIDR = "192.168.0.0" },
			"spec.connectSubnets[0].cidr", msgNetworkAddress},
		{"CIDR too long", func(c *ClusterNetworkConnect) {
			c.Spec.ConnectSubnets[1].CIDR = "fd01:0000:0000:0000:0000:0000:0000:0000/0064"
		}, "spec.connectSubnets[1].cidr", "may not be more than 43"},
		{"networkPrefix 0", func(c *ClusterNetworkConnect) { c.Spec.ConnectSubnets[0].NetworkPrefix = 0 },
			"spec.connectSubnets[0].networkPrefix", "greater than or equal to 1"},
		{"networkPrefix 128", func(c *ClusterNetworkConnect) { c.Spec.ConnectSubnets[1].NetworkPrefix = 128 },
			"spec.connectSubnets[1].networkPrefix", "less than or equal to 127"},
		{"networkPrefix not longer", func(c *ClusterNetworkConnect) { c.Spec.ConnectSubnets[0].NetworkPrefix = 16 },
			"spec.connectSubnets[0]", msgPrefixLonger},
		{"networkPrefix 32 for IPv4", func(c *ClusterNetworkConnect) { c.Spec.ConnectSubnets[0].NetworkPrefix = 32 },
			"spec.connectSubnets[0]", msgPrefixIPv4},
		{"no connectivity", func(c *ClusterNetworkConnect) { c.Spec.ConnectivityEnabled = nil }, "spec.connectivityEnabled", "Required"},
		{"unknown connectivity", func(c *ClusterNetworkConnect) { c.Spec.ConnectivityEnabled[1] = "NodePort" },
			"spec.connectivityEnabled[1]", "Unsupported value"},
		{"duplicate connectivity", func(c *ClusterNetworkConnect) { c.Spec.ConnectivityEnabled[1] = PodNetwork },
			"spec.connectivityEnabled", msgDuplicateConnType},
		{"three connectivity", func(c *ClusterNetworkConnect) {
			c.Spec.ConnectivityEnabled = append(c.Spec.ConnectivityEnabled, PodNetwork)
		}, "spec.connectivityEnabled", "must have at most 2 items"},
		{"namespaced", func(c *ClusterNetworkConnect) { c.Namespace = "ns" }, "metadata.namespace", "cluster-scoped"},
		{"bad name", func(c *ClusterNetworkConnect) { c.Name = "Bad_Name" }, "metadata.name", "RFC 1123"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := valid()
			tc.mod(c)
			errs := Validate(c)
			if !hasError(errs, tc.field, tc.msg) {
				t.Errorf("want %s: %q, got %v", tc.field, tc.msg, errs)
			}
		})
	}
	if errs := Validate(nil); len(errs) == 0 {
		t.Error("nil validates")
	}
}

func hasError(errs field.ErrorList, path, msg string) bool {
	for _, e := range errs {
		if e.Field == path && strings.Contains(e.Error(), msg) {
			return true
		}
	}
	return false
}

func TestValidateUpdate(t *testing.T) {
	old := mustDecode(t, seedSample)
	same := old.DeepCopy()
	same.Spec.ConnectivityEnabled = []ConnectivityType{PodNetwork}
	if errs := ValidateUpdate(old, same); len(errs) != 0 {
		t.Errorf("changing connectivity: %v", errs)
	}
	moved := old.DeepCopy()
	moved.Spec.ConnectSubnets[0].CIDR = "192.169.0.0/16"
	if errs := ValidateUpdate(old, moved); !hasError(errs, "spec.connectSubnets", msgImmutable) {
		t.Errorf("changing connectSubnets: %v", errs)
	}
}

// seedCluster is a cluster where the seed's sample selects blue-network and
// green-network (CUDNs) and the primary UDNs of namespaces yellow and red.
func seedCluster() Cluster {
	cudn := func(name string, id int, second byte) Network {
		return Network{Network: l3("cluster_udn_"+name, id, second), CUDN: name, Namespaces: []string{"tenant-" + name}}
	}
	udnOf := func(ns string, id int, second byte) Network {
		return Network{Network: l3(ns+"_net", id, second), UDN: ns + "/net", Namespaces: []string{ns}}
	}
	return Cluster{
		Networks: []Network{cudn("blue-network", 1, 1), cudn("green-network", 2, 2), udnOf("yellow", 3, 3), udnOf("red", 4, 4),
			cudn("other-network", 5, 5), udnOf("purple", 6, 6)},
		Namespaces: []netconf.Namespace{{Name: "yellow"}, {Name: "red"}, {Name: "purple"},
			{Name: "tenant-blue-network"}, {Name: "tenant-green-network"}},
		ServiceCIDRs: []netip.Prefix{pfx("10.96.0.0/16")},
		MaxNodeID:    10,
	}
}

func TestSelectSeedSample(t *testing.T) {
	cl := seedCluster()
	got, err := Select(mustDecode(t, seedSample), cl.Networks, cl.Namespaces)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, n := range got {
		names = append(names, n.DisplayName())
	}
	if strings.Join(names, ",") != "blue-network,green-network,red/net,yellow/net" {
		t.Errorf("selected %v", names)
	}
}

// TestAcceptReasons: a case per Accepted reason, with the seed's messages.
func TestAcceptReasons(t *testing.T) {
	v4only := func(c *ClusterNetworkConnect) { c.Spec.ConnectSubnets = c.Spec.ConnectSubnets[:1] }
	for _, tc := range []struct {
		name   string
		mod    func(*ClusterNetworkConnect, *Cluster)
		reason string
		msg    string
	}{
		{"valid", func(c *ClusterNetworkConnect, cl *Cluster) { v4only(c) }, ReasonValidationSucceeded, "All validation checks passed successfully"},
		{"exhausted", func(c *ClusterNetworkConnect, cl *Cluster) {
			v4only(c)
			c.Spec.ConnectSubnets[0] = ConnectSubnet{CIDR: "192.168.0.0/23", NetworkPrefix: 24}
		}, ReasonConnectSubnetExhausted, "Insufficient IP addresses in connect subnet 192.168.0.0/23"},
		{"node IDs beyond the block", func(c *ClusterNetworkConnect, cl *Cluster) { v4only(c); cl.MaxNodeID = 200 },
			ReasonConnectSubnetExhausted, "Insufficient IP addresses in connect subnet 192.168.0.0/16"},
		{"port tunnel keys over the limit", func(c *ClusterNetworkConnect, cl *Cluster) {
			v4only(c)
			c.Spec.ConnectSubnets[0] = ConnectSubnet{CIDR: "172.16.0.0/12", NetworkPrefix: 17}
			for i := range 4 {
				cl.Networks = append(cl.Networks, Network{Network: l3("extra"+string(rune('a'+i)), 20+i, byte(20+i)),
					UDN: "yellow/x", Namespaces: []string{"yellow"}})
			}
		}, ReasonConnectSubnetExhausted, "over OVN's limit of 32767"},
		{"overlapping networks", func(c *ClusterNetworkConnect, cl *Cluster) {
			v4only(c)
			cl.Networks[1].Network.Subnets[0].CIDR = pfx("10.1.0.0/16")
		}, ReasonOverlappingNetworkSubnets, "Cannot connect networks 'blue-network' and 'green-network': overlapping pod subnets 10.1.0.0/16 detected."},
		{"conflict with a pod subnet", func(c *ClusterNetworkConnect, cl *Cluster) {
			v4only(c)
			cl.Networks[0].Network.Subnets[0].CIDR = pfx("192.168.1.0/24")
		}, ReasonConnectSubnetConflict, "Connect subnet 192.168.0.0/16 conflicts with pod subnet 192.168.1.0/24 of network 'blue-network'"},
		{"conflict with the service CIDR", func(c *ClusterNetworkConnect, cl *Cluster) {
			v4only(c)
			cl.ServiceCIDRs = []netip.Prefix{pfx("192.168.128.0/17")}
		}, ReasonConnectSubnetConflict, "conflicts with service CIDR 192.168.128.0/17"},
		{"conflict with the masquerade subnet", func(c *ClusterNetworkConnect, cl *Cluster) {
			v4only(c)
			c.Spec.ConnectSubnets[0].CIDR = "169.254.0.0/16"
		}, ReasonConnectSubnetConflict, "conflicts with masquerade subnet 169.254.0.0/17"},
		{"conflict with a join subnet", func(c *ClusterNetworkConnect, cl *Cluster) {
			v4only(c)
			c.Spec.ConnectSubnets[0].CIDR = "100.64.0.0/10"
			c.Spec.ConnectSubnets[0].NetworkPrefix = 24
		}, ReasonConnectSubnetConflict, "conflicts with transit subnet 100.88.0.0/16"},
		{"overlap with another connect", func(c *ClusterNetworkConnect, cl *Cluster) {
			v4only(c)
			other := v4Connect("enterprise-connect")
			other.Spec.NetworkSelectors = []NetworkSelector{{NetworkSelectionType: ClusterUserDefinedNetworks,
				ClusterUserDefinedNetworkSelector: &ClusterUserDefinedNetworkSelector{NetworkSelector: metav1.LabelSelector{
					MatchLabels: map[string]string{metadataNameLabel: "blue-network"}}}}}
			// The other connect came first: the later one is refused.
			other.CreationTimestamp, c.CreationTimestamp = metav1.Unix(100, 0), metav1.Unix(200, 0)
			cl.Connects = []*ClusterNetworkConnect{other, c}
		}, ReasonConnectSubnetOverlap, "Connect subnet 192.168.0.0/16 overlaps with ClusterNetworkConnect 'enterprise-connect' which also selects network 'blue-network'"},
		{"IPv4 with IPv6", func(c *ClusterNetworkConnect, cl *Cluster) {
			cl.Networks[0].Network.Subnets[0] = udn.Subnet{CIDR: pfx("fd00:1::/48"), HostPrefix: 64}
		}, ReasonIPFamilyMismatch, "Cannot connect single-stack IPv4 network 'green-network' with single-stack IPv6 network 'blue-network'. Networks must use the same IP family"},
		{"no connect subnet of a network's family", func(c *ClusterNetworkConnect, cl *Cluster) {
			c.Spec.ConnectSubnets = c.Spec.ConnectSubnets[1:]
		}, ReasonIPFamilyMismatch, "Network 'blue-network' uses IPv4 but no IPv4 connect subnet is set"},
		{"one network", func(c *ClusterNetworkConnect, cl *Cluster) {
			v4only(c)
			c.Spec.NetworkSelectors = c.Spec.NetworkSelectors[:1]
			cl.Networks = cl.Networks[:1]
		},
			ReasonInsufficientNetworks, "Only 1 network selected, minimum 2 networks required for connection"},
		{"secondary network", func(c *ClusterNetworkConnect, cl *Cluster) {
			v4only(c)
			cl.Networks[0].Network.Role = udn.RoleSecondary
		},
			ReasonUnsupportedNetworkType, "Network 'blue-network' has role 'Secondary'. Only 'Primary' role networks are supported"},
		{"localnet network", func(c *ClusterNetworkConnect, cl *Cluster) {
			v4only(c)
			cl.Networks[0].Network.Topology, cl.Networks[0].Network.Role = udn.TopologyLocalnet, udn.RoleSecondary
		}, ReasonUnsupportedNetworkType, "Network 'blue-network' has type 'localnet'. Localnet networks are not supported"},
		{"no overlay", func(c *ClusterNetworkConnect, cl *Cluster) { v4only(c); cl.OverlayDisabled = true },
			ReasonUnsupportedNetworkType, "Network connect feature is not supported when overlay tunneling is disabled"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, cl := mustDecode(t, seedSample), seedCluster()
			tc.mod(c, &cl)
			a := Accept(c, cl)
			if a.Condition.Reason != tc.reason || !strings.Contains(a.Condition.Message, tc.msg) {
				t.Errorf("got %s: %q\nwant %s: %q", a.Condition.Reason, a.Condition.Message, tc.reason, tc.msg)
			}
			if a.Accepted() != (tc.reason == ReasonValidationSucceeded) || a.Condition.Type != ConditionAccepted {
				t.Errorf("condition %+v", a.Condition)
			}
			cl.Profile = udn.ProfileReference
			ref := Accept(c, cl)
			want := ReasonResourceAllocationFailed
			if a.Accepted() {
				want = ReasonResourceAllocationSucceeded
			}
			if ref.Condition.Reason != want || ref.Condition.Message != a.Condition.Message {
				t.Errorf("reference profile: %s %q", ref.Condition.Reason, ref.Condition.Message)
			}
		})
	}
}

func TestMessagesAreCapped(t *testing.T) {
	c, cl := mustDecode(t, seedSample), seedCluster()
	c.Spec.ConnectSubnets = c.Spec.ConnectSubnets[:1]
	c.Spec.NetworkSelectors = c.Spec.NetworkSelectors[1:]
	cl.Networks = nil
	for i := range 3000 {
		cl.Networks = append(cl.Networks, Network{Network: l3("net"+strings.Repeat("x", 30)+string(rune('a'+i%26))+itoa3(i), i+1, 1),
			UDN: "yellow/n", Namespaces: []string{"yellow"}})
	}
	a := Accept(c, cl)
	if a.Condition.Reason != ReasonOverlappingNetworkSubnets || len(a.Condition.Message) > MaxMessageLength ||
		!strings.Contains(a.Condition.Message, " more") {
		t.Errorf("%s, %d bytes, ends %q", a.Condition.Reason, len(a.Condition.Message), a.Condition.Message[max(0, len(a.Condition.Message)-40):])
	}
}

func itoa3(i int) string {
	return string(rune('0'+i/100%10)) + string(rune('0'+i/10%10)) + string(rune('0'+i%10))
}

func TestZoneConditionsAndSummary(t *testing.T) {
	c := mustDecode(t, seedSample)
	c.Generation = 7
	ok := ZoneCondition(c, "ovn-worker", nil)
	bad := ZoneCondition(c, "ovn-worker2", errors.New("Failed to install routing policies for network 'blue-network'"))
	if ok.Type != "Ready-In-Zone-ovn-worker" || ok.Reason != ReasonOVNSetupSucceeded || ok.Status != metav1.ConditionTrue ||
		ok.Message != "Connect router and all ports created successfully" || ok.ObservedGeneration != 7 {
		t.Errorf("success: %+v", ok)
	}
	if bad.Reason != ReasonOVNSetupFailed || bad.Status != metav1.ConditionFalse || !strings.Contains(bad.Message, "routing policies") {
		t.Errorf("failure: %+v", bad)
	}
	accepted := metav1.Condition{Type: ConditionAccepted, Status: metav1.ConditionTrue}
	refused := metav1.Condition{Type: ConditionAccepted, Status: metav1.ConditionFalse}
	for _, tc := range []struct {
		conds []metav1.Condition
		want  StatusType
	}{
		{nil, ""},
		{[]metav1.Condition{accepted}, Success},
		{[]metav1.Condition{accepted, ok}, Success},
		{[]metav1.Condition{accepted, ok, bad}, Failure},
		{[]metav1.Condition{refused}, Failure},
		{[]metav1.Condition{ok}, ""},
	} {
		if got := Summary(tc.conds); got != tc.want {
			t.Errorf("Summary(%v) = %q, want %q", tc.conds, got, tc.want)
		}
	}
}

func TestAnnotationsRoundTrip(t *testing.T) {
	keys := ipam.NewTunnelKeyAllocator()
	c := mustDecode(t, seedSample)
	a, err := NewAllocator(c, keys)
	if err != nil {
		t.Fatal(err)
	}
	nets := []*udn.Network{l3("a", 1, 1), l3("b", 2, 2), l2("c", 40, 3), l2("d", 103, 4)}
	for _, n := range nets {
		n.Subnets = append(n.Subnets, udn.Subnet{CIDR: pfx("fd00:" + string(rune('0'+n.ID%10)) + "::/48"), HostPrefix: 64})
	}
	al, err := a.Allocate(nets)
	if err != nil {
		t.Fatal(err)
	}
	ann := al.Annotations(udn.ProfileSeeds)
	want := `{"layer2_103":{"ipv4":"192.168.2.2/31","ipv6":"fd01::2:0:2/127"},"layer2_40":{"ipv4":"192.168.2.0/31","ipv6":"fd01::2:0:0/127"},` +
		`"layer3_1":{"ipv4":"192.168.0.0/24","ipv6":"fd01::/96"},"layer3_2":{"ipv4":"192.168.1.0/24","ipv6":"fd01::1:0:0/96"}}`
	if ann[AnnotationNetworkSubnets] != want {
		t.Errorf("annotation\n%s\nwant\n%s", ann[AnnotationNetworkSubnets], want)
	}
	if ann[AnnotationTunnelKey] != "16715779" { // ipam.DynamicTunnelKeyFirst, the reference's first dynamic key
		t.Errorf("tunnel key annotation %q", ann[AnnotationTunnelKey])
	}
	back, err := ParseAnnotations(ann)
	if err != nil || !reflect.DeepEqual(back, al) {
		t.Fatalf("round trip: %v\n%+v\n%+v", err, back, al)
	}
	ref := al.Annotations(udn.ProfileReference)
	if _, ok := ref[AnnotationNetworkConnectSubnet]; !ok {
		t.Errorf("reference profile writes %v", ref)
	}
	if back, err := ParseAnnotations(ref); err != nil || !reflect.DeepEqual(back, al) {
		t.Errorf("reference annotation round trip: %v", err)
	}
	// A restarted allocator restores and keeps the same allocation.
	keys2 := ipam.NewTunnelKeyAllocator()
	a2, _ := NewAllocator(c, keys2)
	if err := a2.Restore(back); err != nil {
		t.Fatal(err)
	}
	again, err := a2.Allocate(nets)
	if err != nil || !reflect.DeepEqual(again, al) {
		t.Fatalf("after restore: %v\n%+v", err, again)
	}
	// A network leaving frees its subnets.
	fewer, err := a2.Allocate(nets[:2])
	if err != nil || len(fewer.Subnets) != 2 {
		t.Fatalf("after a network left: %+v %v", fewer, err)
	}
	for name, bad := range map[string]map[string]string{
		"tunnel key":    {AnnotationTunnelKey: "12"},
		"not json":      {AnnotationNetworkSubnets: "{"},
		"bad key":       {AnnotationNetworkSubnets: `{"layer4_1":{"ipv4":"192.168.0.0/24"}}`},
		"bad subnet":    {AnnotationNetworkSubnets: `{"layer3_1":{"ipv4":"192.168.0.1/24"}}`},
		"wrong family":  {AnnotationNetworkSubnets: `{"layer3_1":{"ipv4":"fd01::/96"}}`},
		"empty entry":   {AnnotationNetworkSubnets: `{"layer3_1":{}}`},
		"id not number": {AnnotationNetworkSubnets: `{"layer3_x":{"ipv4":"192.168.0.0/24"}}`},
	} {
		if _, err := ParseAnnotations(bad); !errors.Is(err, ErrAnnotation) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func FuzzDecodeValidate(f *testing.F) {
	f.Add([]byte(seedSample))
	f.Add([]byte(strings.Replace(seedSample, "connectivityEnabled:", "connectivity:", 1)))
	f.Add([]byte(`{"kind":"ClusterNetworkConnect","metadata":{"name":"a"},"spec":{"networkSelectors":[{"networkSelectionType":"PrimaryUserDefinedNetworks","primaryUserDefinedNetworkSelector":{"namespaceSelector":{}}}],"connectSubnets":[{"cidr":"10.0.0.0/8","networkPrefix":31}],"connectivityEnabled":["PodNetwork"]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Decode(data)
		if err != nil {
			return
		}
		errs := Validate(c)
		_ = ValidateUpdate(c, c.DeepCopy())
		cl := seedCluster()
		a := Accept(c, cl)
		if len(a.Condition.Message) > MaxMessageLength {
			t.Fatalf("message of %d bytes", len(a.Condition.Message))
		}
		if len(errs) > 0 || !a.Accepted() {
			return
		}
		// A valid, accepted connect allocates and plans.
		var nets []*udn.Network
		for _, n := range a.Networks {
			nets = append(nets, n.Network)
		}
		alloc, err := NewAllocator(c, ipam.NewTunnelKeyAllocator())
		if err != nil {
			t.Fatalf("allocator of a valid connect: %v", err)
		}
		al, err := alloc.Allocate(nets)
		if err != nil {
			t.Fatalf("allocation of an accepted connect: %v", err)
		}
		if _, err := Plan(Input{Connect: c, Networks: nets, Allocation: al, Nodes: seedNodes(), Zone: "ovn-worker",
			HostSubnets: hostSubnets(nets, seedNodes())}); err != nil {
			t.Fatalf("plan of an accepted connect: %v", err)
		}
	})
}

func FuzzParseAnnotations(f *testing.F) {
	f.Add(`{"layer3_1":{"ipv4":"192.168.0.0/24","ipv6":"fd01::/96"},"layer2_40":{"ipv4":"192.168.2.0/31"}}`, "16715780")
	f.Add(`{}`, "")
	f.Fuzz(func(t *testing.T, subnets, key string) {
		ann := map[string]string{AnnotationNetworkSubnets: subnets}
		if key != "" {
			ann[AnnotationTunnelKey] = key
		}
		al, err := ParseAnnotations(ann)
		if err != nil {
			if !errors.Is(err, ErrAnnotation) {
				t.Fatalf("error without ErrAnnotation: %v", err)
			}
			return
		}
		// What parses renders and parses back to the same allocation.
		back, err := ParseAnnotations(al.Annotations(udn.ProfileSeeds))
		if al.TunnelKey == 0 {
			return // no key: Annotations writes "0", which is not a key
		}
		if err != nil || !reflect.DeepEqual(back, al) {
			t.Fatalf("round trip: %v\n%+v\n%+v", err, back, al)
		}
	})
}
