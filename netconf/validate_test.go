package netconf

import (
	"fmt"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

func validUDN() *UserDefinedNetwork {
	return &UserDefinedNetwork{
		TypeMeta:   metav1.TypeMeta{APIVersion: GroupVersion, Kind: KindUDN},
		ObjectMeta: metav1.ObjectMeta{Name: "db-network", Namespace: "demo", UID: "uid-udn"},
		Spec: UserDefinedNetworkSpec{
			Topology: TopologyLayer2,
			Role:     RolePrimary,
			Subnets:  []string{"10.0.0.0/24"},
		},
	}
}

func validCUDN() *ClusterUserDefinedNetwork {
	return &ClusterUserDefinedNetwork{
		TypeMeta:   metav1.TypeMeta{APIVersion: GroupVersion, Kind: KindCUDN},
		ObjectMeta: metav1.ObjectMeta{Name: "db-network", UID: "uid-cudn"},
		Spec: ClusterUserDefinedNetworkSpec{
			NamespaceSelector: metav1.LabelSelector{MatchLabels: map[string]string{"tier": "db"}},
			Template: &UserDefinedNetworkTemplateSpec{Spec: UserDefinedNetworkSpec{
				Topology: TopologyLayer2,
				Role:     RolePrimary,
				Subnets:  []string{"10.0.0.0/24"},
			}},
		},
	}
}

// wantErr describes one expected field error: type, path and a detail fragment.
type wantErr struct {
	typ    field.ErrorType
	path   string
	detail string
}

func checkErrs(t *testing.T, got field.ErrorList, want []wantErr) {
	t.Helper()
	used := make([]bool, len(got))
	for _, w := range want {
		found := false
		for i, e := range got {
			if !used[i] && e.Type == w.typ && e.Field == w.path && strings.Contains(e.Error(), w.detail) {
				used[i], found = true, true
				break
			}
		}
		if !found {
			t.Errorf("missing error %s %s %q", w.typ, w.path, w.detail)
		}
	}
	for i, e := range got {
		if !used[i] {
			t.Errorf("unexpected error: %v", e)
		}
	}
}

func TestValidateUDN(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(u *UserDefinedNetwork)
		want   []wantErr
	}{
		{name: "valid primary layer2", mutate: func(u *UserDefinedNetwork) {}},
		{name: "valid primary layer3 dual-stack", mutate: func(u *UserDefinedNetwork) {
			u.Spec.Topology, u.Spec.Subnets = TopologyLayer3, []string{"10.128.0.0/16/24", "2600:db8::/29"}
		}},
		{name: "valid secondary localnet", mutate: func(u *UserDefinedNetwork) {
			u.Spec.Topology, u.Spec.Role = TopologyLocalnet, RoleSecondary
			u.Spec.Localnet = &LocalnetSpec{PhysicalNetworkName: "physnet", VLANID: 10}
		}},
		{name: "valid secondary layer2 without IPAM", mutate: func(u *UserDefinedNetwork) {
			u.Spec.Role, u.Spec.Subnets, u.Spec.IPAM = RoleSecondary, nil, &IPAMSpec{Mode: IPAMDisabled}
		}},
		{name: "valid persistent layer2", mutate: func(u *UserDefinedNetwork) {
			u.Spec.IPAM = &IPAMSpec{Lifecycle: IPAMPersistent}
		}},
		{name: "valid legacy ipamLifecycle", mutate: func(u *UserDefinedNetwork) { u.Spec.IPAMLifecycle = IPAMPersistent }},
		{name: "valid mtu", mutate: func(u *UserDefinedNetwork) { u.Spec.MTU = 9000 }},

		// Enums.
		{name: "topology required", mutate: func(u *UserDefinedNetwork) { u.Spec.Topology = "" },
			want: []wantErr{{field.ErrorTypeRequired, "spec.topology", "Layer2, Layer3, Localnet"}}},
		{name: "topology unknown", mutate: func(u *UserDefinedNetwork) { u.Spec.Topology = "layer2" },
			want: []wantErr{{field.ErrorTypeNotSupported, "spec.topology", `"Layer2"`}}},
		{name: "role required", mutate: func(u *UserDefinedNetwork) { u.Spec.Role = "" },
			want: []wantErr{{field.ErrorTypeRequired, "spec.role", "Primary, Secondary"}}},
		{name: "role unknown", mutate: func(u *UserDefinedNetwork) { u.Spec.Role = "Tertiary" },
			want: []wantErr{{field.ErrorTypeNotSupported, "spec.role", `"Secondary"`}}},

		// Topology rules.
		{name: "layer3 needs subnets", mutate: func(u *UserDefinedNetwork) { u.Spec.Topology, u.Spec.Subnets = TopologyLayer3, nil },
			want: []wantErr{{field.ErrorTypeRequired, "spec.subnets", "Layer3 topology requires subnets"}}},
		{name: "localnet is never primary", mutate: func(u *UserDefinedNetwork) {
			u.Spec.Topology, u.Spec.Localnet = TopologyLocalnet, &LocalnetSpec{PhysicalNetworkName: "physnet"}
		}, want: []wantErr{{field.ErrorTypeInvalid, "spec.role", "Localnet topology is not supported for primary networks"}}},

		// IPAM lifecycle.
		{name: "persistent not for layer3", mutate: func(u *UserDefinedNetwork) {
			u.Spec.Topology, u.Spec.Subnets = TopologyLayer3, []string{"10.128.0.0/16"}
			u.Spec.IPAM = &IPAMSpec{Lifecycle: IPAMPersistent}
		}, want: []wantErr{{field.ErrorTypeInvalid, "spec.ipam.lifecycle", "Layer2 and Localnet topologies only"}}},
		{name: "legacy persistent not for layer3 names the legacy field", mutate: func(u *UserDefinedNetwork) {
			u.Spec.Topology, u.Spec.Subnets = TopologyLayer3, []string{"10.128.0.0/16"}
			u.Spec.IPAMLifecycle = IPAMPersistent
		}, want: []wantErr{{field.ErrorTypeInvalid, "spec.ipamLifecycle", "Layer2 and Localnet topologies only"}}},
		{name: "persistent needs mode enabled", mutate: func(u *UserDefinedNetwork) {
			u.Spec.Role, u.Spec.Subnets = RoleSecondary, nil
			u.Spec.IPAM = &IPAMSpec{Mode: IPAMDisabled, Lifecycle: IPAMPersistent}
		}, want: []wantErr{{field.ErrorTypeInvalid, "spec.ipam.lifecycle", "requires IPAM"}}},
		{name: "lifecycle unknown", mutate: func(u *UserDefinedNetwork) { u.Spec.IPAM = &IPAMSpec{Lifecycle: "Sticky"} },
			want: []wantErr{{field.ErrorTypeNotSupported, "spec.ipam.lifecycle", `"Persistent"`}}},
		{name: "legacy lifecycle conflicts with ipam.lifecycle", mutate: func(u *UserDefinedNetwork) {
			u.Spec.IPAM, u.Spec.IPAMLifecycle = &IPAMSpec{Lifecycle: IPAMPersistent}, "Sticky"
		}, want: []wantErr{{field.ErrorTypeInvalid, "spec.ipamLifecycle", "set only spec.ipam.lifecycle"}}},

		// IPAM mode.
		{name: "mode unknown", mutate: func(u *UserDefinedNetwork) { u.Spec.IPAM = &IPAMSpec{Mode: "Auto"} },
			want: []wantErr{{field.ErrorTypeNotSupported, "spec.ipam.mode", `"Disabled"`}}},
		{name: "mode disabled not for layer3", mutate: func(u *UserDefinedNetwork) {
			u.Spec.Topology, u.Spec.Role, u.Spec.Subnets = TopologyLayer3, RoleSecondary, nil
			u.Spec.IPAM = &IPAMSpec{Mode: IPAMDisabled}
		}, want: []wantErr{{field.ErrorTypeInvalid, "spec.ipam.mode", "Layer2 and Localnet topologies only"}}},
		{name: "mode disabled not for primary", mutate: func(u *UserDefinedNetwork) {
			u.Spec.Subnets, u.Spec.IPAM = nil, &IPAMSpec{Mode: IPAMDisabled}
		}, want: []wantErr{{field.ErrorTypeInvalid, "spec.ipam.mode", "Secondary networks only"}}},
		{name: "mode disabled forbids subnets", mutate: func(u *UserDefinedNetwork) {
			u.Spec.Role, u.Spec.IPAM = RoleSecondary, &IPAMSpec{Mode: IPAMDisabled}
		}, want: []wantErr{{field.ErrorTypeForbidden, "spec.subnets", "must be omitted when ipam.mode is Disabled"}}},
		{name: "mode enabled needs subnets", mutate: func(u *UserDefinedNetwork) {
			u.Spec.Role, u.Spec.Subnets, u.Spec.IPAM = RoleSecondary, nil, &IPAMSpec{Mode: IPAMEnabled}
		}, want: []wantErr{{field.ErrorTypeRequired, "spec.subnets", "set ipam.mode to Disabled"}}},
		{name: "default mode needs subnets on localnet", mutate: func(u *UserDefinedNetwork) {
			u.Spec.Topology, u.Spec.Role, u.Spec.Subnets = TopologyLocalnet, RoleSecondary, nil
			u.Spec.Localnet = &LocalnetSpec{PhysicalNetworkName: "physnet"}
		}, want: []wantErr{{field.ErrorTypeRequired, "spec.subnets", "required when ipam.mode is Enabled"}}},
		{name: "primary needs subnets", mutate: func(u *UserDefinedNetwork) { u.Spec.Subnets = nil },
			want: []wantErr{{field.ErrorTypeRequired, "spec.subnets", "primary networks require subnets"}}},

		// Subnets.
		{name: "subnet not a CIDR", mutate: func(u *UserDefinedNetwork) { u.Spec.Subnets = []string{"10.0.0.0"} },
			want: []wantErr{{field.ErrorTypeInvalid, "spec.subnets[0]", "not a CIDR"}}},
		{name: "subnet IPv4-mapped IPv6", mutate: func(u *UserDefinedNetwork) { u.Spec.Subnets = []string{"::ffff:10.0.0.0/120"} },
			want: []wantErr{{field.ErrorTypeInvalid, "spec.subnets[0]", "IPv4-mapped"}}},
		{name: "three subnets", mutate: func(u *UserDefinedNetwork) {
			u.Spec.Subnets = []string{"10.0.0.0/24", "fd00::/64", "10.1.0.0/24"}
		}, want: []wantErr{
			{field.ErrorTypeTooMany, "spec.subnets", "must have at most 2 items"},
			{field.ErrorTypeInvalid, "spec.subnets[2]", "at most one subnet per IP family"},
		}},
		{name: "two IPv4 subnets", mutate: func(u *UserDefinedNetwork) { u.Spec.Subnets = []string{"10.0.0.0/24", "10.1.0.0/24"} },
			want: []wantErr{{field.ErrorTypeInvalid, "spec.subnets[1]", "another IPv4 subnet"}}},
		{name: "host prefix form only for layer3", mutate: func(u *UserDefinedNetwork) { u.Spec.Subnets = []string{"10.0.0.0/16/24"} },
			want: []wantErr{{field.ErrorTypeInvalid, "spec.subnets[0]", "only valid for Layer3"}}},
		{name: "layer3 host prefix not longer than cluster prefix", mutate: func(u *UserDefinedNetwork) {
			u.Spec.Topology, u.Spec.Subnets = TopologyLayer3, []string{"10.0.0.0/24/16"}
		}, want: []wantErr{{field.ErrorTypeInvalid, "spec.subnets[0]", "host prefix /16 must be longer than the subnet's /24"}}},
		{name: "layer3 default host prefix too short", mutate: func(u *UserDefinedNetwork) {
			u.Spec.Topology, u.Spec.Subnets = TopologyLayer3, []string{"10.0.0.0/24"}
		}, want: []wantErr{{field.ErrorTypeInvalid, "spec.subnets[0]", "default host prefix /24 must be longer than the subnet's /24; write 10.0.0.0/24/<hostPrefix>"}}},
		{name: "layer3 IPv6 host prefix must be 64", mutate: func(u *UserDefinedNetwork) {
			u.Spec.Topology, u.Spec.Subnets = TopologyLayer3, []string{"fd00::/48/56"}
		}, want: []wantErr{{field.ErrorTypeInvalid, "spec.subnets[0]", "IPv6 host prefix must be /64, got /56"}}},
		{name: "layer3 IPv6 default host prefix too short", mutate: func(u *UserDefinedNetwork) {
			u.Spec.Topology, u.Spec.Subnets = TopologyLayer3, []string{"fd00::/64"}
		}, want: []wantErr{{field.ErrorTypeInvalid, "spec.subnets[0]", "default host prefix /64 must be longer"}}},
		{name: "layer3 IPv4 host prefix leaves no room", mutate: func(u *UserDefinedNetwork) {
			u.Spec.Topology, u.Spec.Subnets = TopologyLayer3, []string{"10.0.0.0/16/31"}
		}, want: []wantErr{{field.ErrorTypeInvalid, "spec.subnets[0]", "leaves no room for pods"}}},
		{name: "layer3 host prefix not a number", mutate: func(u *UserDefinedNetwork) {
			u.Spec.Topology, u.Spec.Subnets = TopologyLayer3, []string{"10.0.0.0/16/+4"}
		}, want: []wantErr{{field.ErrorTypeInvalid, "spec.subnets[0]", "is not a number"}}},

		// Exclude subnets.
		{name: "exclude outside subnets", mutate: func(u *UserDefinedNetwork) { u.Spec.ExcludeSubnets = []string{"10.1.0.0/26"} },
			want: []wantErr{{field.ErrorTypeInvalid, "spec.excludeSubnets[0]", "must be inside one of spec.subnets [10.0.0.0/24]"}}},
		{name: "exclude larger than subnet", mutate: func(u *UserDefinedNetwork) { u.Spec.ExcludeSubnets = []string{"10.0.0.0/16"} },
			want: []wantErr{{field.ErrorTypeInvalid, "spec.excludeSubnets[0]", "must be inside"}}},
		{name: "exclude not a CIDR", mutate: func(u *UserDefinedNetwork) { u.Spec.ExcludeSubnets = []string{"ten"} },
			want: []wantErr{{field.ErrorTypeInvalid, "spec.excludeSubnets[0]", "not a CIDR"}}},
		{name: "exclude without subnets", mutate: func(u *UserDefinedNetwork) {
			u.Spec.Role, u.Spec.Subnets, u.Spec.IPAM = RoleSecondary, nil, &IPAMSpec{Mode: IPAMDisabled}
			u.Spec.ExcludeSubnets = []string{"10.0.0.0/26"}
		}, want: []wantErr{{field.ErrorTypeInvalid, "spec.excludeSubnets[0]", "must be inside one of spec.subnets []"}}},

		// Join subnets.
		{name: "three join subnets", mutate: func(u *UserDefinedNetwork) {
			u.Spec.JoinSubnets = []string{"100.70.0.0/16", "fd99::/64", "100.71.0.0/16"}
		}, want: []wantErr{
			{field.ErrorTypeTooMany, "spec.joinSubnets", "at most 2"},
			{field.ErrorTypeInvalid, "spec.joinSubnets[2]", "per IP family"},
			{field.ErrorTypeInvalid, "spec.joinSubnets[1]", "the network has no IPv6 subnet"},
		}},
		{name: "two IPv4 join subnets", mutate: func(u *UserDefinedNetwork) { u.Spec.JoinSubnets = []string{"100.70.0.0/16", "100.71.0.0/16"} },
			want: []wantErr{{field.ErrorTypeInvalid, "spec.joinSubnets[1]", "at most one of the join subnets per IP family"}}},
		{name: "join not a CIDR", mutate: func(u *UserDefinedNetwork) { u.Spec.JoinSubnets = []string{"100.70.0.0/33"} },
			want: []wantErr{{field.ErrorTypeInvalid, "spec.joinSubnets[0]", "not a CIDR"}}},
		{name: "join overlaps default network join", mutate: func(u *UserDefinedNetwork) { u.Spec.JoinSubnets = []string{"100.64.0.0/24"} },
			want: []wantErr{{field.ErrorTypeInvalid, "spec.joinSubnets[0]", "overlaps the default network's join subnet 100.64.0.0/16"}}},
		{name: "IPv6 join overlaps default network join", mutate: func(u *UserDefinedNetwork) {
			u.Spec.Subnets, u.Spec.JoinSubnets = []string{"fd00:10::/64"}, []string{"fd98::/48"}
		}, want: []wantErr{{field.ErrorTypeInvalid, "spec.joinSubnets[0]", "overlaps the default network's join subnet fd98::/64"}}},
		{name: "join overlaps pod subnet", mutate: func(u *UserDefinedNetwork) { u.Spec.JoinSubnets = []string{"10.0.0.0/16"} },
			want: []wantErr{{field.ErrorTypeInvalid, "spec.joinSubnets[0]", "overlaps the network's pod subnet 10.0.0.0/24"}}},
		{name: "join family the network lacks", mutate: func(u *UserDefinedNetwork) { u.Spec.JoinSubnets = []string{"fd90::/64"} },
			want: []wantErr{{field.ErrorTypeInvalid, "spec.joinSubnets[0]", "the network has no IPv6 subnet"}}},
		{name: "pod subnet overlaps default join", mutate: func(u *UserDefinedNetwork) { u.Spec.Subnets = []string{"100.65.1.0/24"} },
			want: []wantErr{{field.ErrorTypeInvalid, "spec.subnets[0]", "overlaps the default join subnet 100.65.0.0/16; choose another subnet or set spec.joinSubnets"}}},
		{name: "pod subnet overlaps default join fixed by joinSubnets", mutate: func(u *UserDefinedNetwork) {
			u.Spec.Subnets, u.Spec.JoinSubnets = []string{"100.65.1.0/24"}, []string{"100.70.0.0/16"}
		}},
		{name: "primary pod subnet overlaps default network join", mutate: func(u *UserDefinedNetwork) { u.Spec.Subnets = []string{"100.64.0.0/24"} },
			want: []wantErr{{field.ErrorTypeInvalid, "spec.subnets[0]", "overlaps the default network's join subnet 100.64.0.0/16"}}},
		// Secondary join subnets were accepted (checked for syntax only)
		// until the reference CRD's rule was adopted: "JoinSubnets is only
		// supported for Primary network" (crd/userdefinednetwork/v1/shared.go).
		{name: "secondary join refused", mutate: func(u *UserDefinedNetwork) {
			u.Spec.Role, u.Spec.JoinSubnets = RoleSecondary, []string{"100.64.0.0/16", "bad"}
		}, want: []wantErr{{field.ErrorTypeForbidden, "spec.joinSubnets", "JoinSubnets is only supported for Primary network"},
			{field.ErrorTypeInvalid, "spec.joinSubnets[1]", "not a CIDR"}}},

		// MTU.
		{name: "mtu too small", mutate: func(u *UserDefinedNetwork) { u.Spec.MTU = 500 },
			want: []wantErr{{field.ErrorTypeInvalid, "spec.mtu", "between 576 and 65536"}}},
		{name: "mtu negative", mutate: func(u *UserDefinedNetwork) { u.Spec.MTU = -1 },
			want: []wantErr{{field.ErrorTypeInvalid, "spec.mtu", "between 576 and 65536"}}},
		{name: "mtu too large", mutate: func(u *UserDefinedNetwork) { u.Spec.MTU = 65537 },
			want: []wantErr{{field.ErrorTypeInvalid, "spec.mtu", "between 576 and 65536"}}},
		{name: "mtu too small for IPv6", mutate: func(u *UserDefinedNetwork) { u.Spec.MTU, u.Spec.Subnets = 1000, []string{"fd00::/64"} },
			want: []wantErr{{field.ErrorTypeInvalid, "spec.mtu", "at least 1280"}}},

		// Localnet.
		{name: "localnet needs physical network name", mutate: func(u *UserDefinedNetwork) {
			u.Spec.Topology, u.Spec.Role = TopologyLocalnet, RoleSecondary
		}, want: []wantErr{{field.ErrorTypeRequired, "spec.localnet.physicalNetworkName", "bridge mapping"}}},
		{name: "localnet physical network name with colon", mutate: func(u *UserDefinedNetwork) {
			u.Spec.Topology, u.Spec.Role = TopologyLocalnet, RoleSecondary
			u.Spec.Localnet = &LocalnetSpec{PhysicalNetworkName: "physnet:br-ex"}
		}, want: []wantErr{{field.ErrorTypeInvalid, "spec.localnet.physicalNetworkName", "colons"}}},
		{name: "localnet physical network name not UTF-8", mutate: func(u *UserDefinedNetwork) {
			u.Spec.Topology, u.Spec.Role = TopologyLocalnet, RoleSecondary
			u.Spec.Localnet = &LocalnetSpec{PhysicalNetworkName: "phys\xeb"}
		}, want: []wantErr{{field.ErrorTypeInvalid, "spec.localnet.physicalNetworkName", "printable UTF-8"}}},
		{name: "localnet VLAN out of range", mutate: func(u *UserDefinedNetwork) {
			u.Spec.Topology, u.Spec.Role = TopologyLocalnet, RoleSecondary
			u.Spec.Localnet = &LocalnetSpec{PhysicalNetworkName: "physnet", VLANID: 4095}
		}, want: []wantErr{{field.ErrorTypeInvalid, "spec.localnet.vlanID", "between 1 and 4094"}}},
		{name: "localnet section on layer2", mutate: func(u *UserDefinedNetwork) {
			u.Spec.Localnet = &LocalnetSpec{PhysicalNetworkName: "physnet"}
		}, want: []wantErr{{field.ErrorTypeForbidden, "spec.localnet", "only valid for the Localnet topology"}}},

		// Metadata.
		{name: "name required", mutate: func(u *UserDefinedNetwork) { u.Name = "" },
			want: []wantErr{{field.ErrorTypeRequired, "metadata.name", ""}}},
		{name: "name not a DNS subdomain", mutate: func(u *UserDefinedNetwork) { u.Name = "DB_Network" },
			want: []wantErr{{field.ErrorTypeInvalid, "metadata.name", "RFC 1123"}}},
		{name: "namespace required", mutate: func(u *UserDefinedNetwork) { u.Namespace = "" },
			want: []wantErr{{field.ErrorTypeRequired, "metadata.namespace", ""}}},
		{name: "namespace not a DNS label", mutate: func(u *UserDefinedNetwork) { u.Namespace = "a.b" },
			want: []wantErr{{field.ErrorTypeInvalid, "metadata.namespace", "must not contain dots"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u := validUDN()
			tt.mutate(u)
			checkErrs(t, ValidateUDN(u), tt.want)
		})
	}
}

func TestValidateUDNNil(t *testing.T) {
	if errs := ValidateUDN(nil); len(errs) != 1 {
		t.Errorf("nil UDN: %v", errs)
	}
	if errs := ValidateCUDN(nil); len(errs) != 1 {
		t.Errorf("nil CUDN: %v", errs)
	}
}

func TestValidateCUDN(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(c *ClusterUserDefinedNetwork)
		want   []wantErr
	}{
		{name: "valid", mutate: func(c *ClusterUserDefinedNetwork) {}},
		{name: "valid vrf", mutate: func(c *ClusterUserDefinedNetwork) { c.Spec.VRF = "blue-vrf" }},
		{name: "valid 15 character vrf", mutate: func(c *ClusterUserDefinedNetwork) { c.Spec.VRF = "abcdefghijklmno" }},
		{name: "namespace forbidden", mutate: func(c *ClusterUserDefinedNetwork) { c.Namespace = "demo" },
			want: []wantErr{{field.ErrorTypeForbidden, "metadata.namespace", "cluster-scoped"}}},
		{name: "empty selector", mutate: func(c *ClusterUserDefinedNetwork) { c.Spec.NamespaceSelector = metav1.LabelSelector{} },
			want: []wantErr{{field.ErrorTypeRequired, "spec.namespaceSelector", "every namespace"}}},
		{name: "invalid selector", mutate: func(c *ClusterUserDefinedNetwork) {
			c.Spec.NamespaceSelector = metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "a", Operator: "Near"}}}
		}, want: []wantErr{{field.ErrorTypeInvalid, "spec.namespaceSelector", "not a valid label selector operator"}}},
		{name: "template required", mutate: func(c *ClusterUserDefinedNetwork) { c.Spec.Template = nil },
			want: []wantErr{{field.ErrorTypeRequired, "spec.template", ""}}},
		{name: "template rules apply with template paths", mutate: func(c *ClusterUserDefinedNetwork) {
			c.Spec.Template.Spec.Topology, c.Spec.Template.Spec.Subnets = TopologyLayer3, nil
		}, want: []wantErr{{field.ErrorTypeRequired, "spec.template.spec.subnets", "Layer3 topology requires subnets"}}},
		{name: "join overlap in template", mutate: func(c *ClusterUserDefinedNetwork) { c.Spec.Template.Spec.JoinSubnets = []string{"100.64.0.0/16"} },
			want: []wantErr{{field.ErrorTypeInvalid, "spec.template.spec.joinSubnets[0]", "default network's join subnet"}}},
		{name: "vrf too long", mutate: func(c *ClusterUserDefinedNetwork) { c.Spec.VRF = "abcdefghijklmnop" },
			want: []wantErr{{field.ErrorTypeTooLong, "spec.vrf", "15"}}},
		{name: "vrf with slash", mutate: func(c *ClusterUserDefinedNetwork) { c.Spec.VRF = "a/b" },
			want: []wantErr{{field.ErrorTypeInvalid, "spec.vrf", "network device name"}}},
		{name: "vrf with blank", mutate: func(c *ClusterUserDefinedNetwork) { c.Spec.VRF = "a b" },
			want: []wantErr{{field.ErrorTypeInvalid, "spec.vrf", "network device name"}}},
		{name: "vrf dot", mutate: func(c *ClusterUserDefinedNetwork) { c.Spec.VRF = "." },
			want: []wantErr{{field.ErrorTypeInvalid, "spec.vrf", `must not be "."`}}},
		{name: "vrf on secondary network", mutate: func(c *ClusterUserDefinedNetwork) {
			c.Spec.VRF, c.Spec.Template.Spec.Role = "blue", RoleSecondary
		}, want: []wantErr{{field.ErrorTypeInvalid, "spec.vrf", "only used by primary networks"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := validCUDN()
			tt.mutate(c)
			checkErrs(t, ValidateCUDN(c), tt.want)
		})
	}
}

func TestValidateUpdate(t *testing.T) {
	t.Run("UDN spec change is forbidden", func(t *testing.T) {
		old, u := validUDN(), validUDN()
		u.Spec.MTU = 1500
		checkErrs(t, ValidateUDNUpdate(old, u), []wantErr{{field.ErrorTypeForbidden, "spec", "Spec is immutable"}})
	})
	t.Run("UDN metadata change is allowed", func(t *testing.T) {
		old, u := validUDN(), validUDN()
		u.Labels = map[string]string{"a": "b"}
		u.Spec.ExcludeSubnets = []string{} // empty and nil are the same spec
		checkErrs(t, ValidateUDNUpdate(old, u), nil)
	})
	t.Run("UDN update also validates the new object", func(t *testing.T) {
		old, u := validUDN(), validUDN()
		old.Spec.Topology, u.Spec.Topology = "", ""
		checkErrs(t, ValidateUDNUpdate(old, u), []wantErr{{field.ErrorTypeRequired, "spec.topology", ""}})
	})
	t.Run("CUDN template change is forbidden", func(t *testing.T) {
		old, c := validCUDN(), validCUDN()
		c.Spec.Template.Spec.Subnets = []string{"10.1.0.0/24"}
		checkErrs(t, ValidateCUDNUpdate(old, c), []wantErr{{field.ErrorTypeForbidden, "spec.template", "immutable"}})
	})
	t.Run("CUDN vrf change is forbidden", func(t *testing.T) {
		old, c := validCUDN(), validCUDN()
		c.Spec.VRF = "blue"
		checkErrs(t, ValidateCUDNUpdate(old, c), []wantErr{{field.ErrorTypeForbidden, "spec.vrf", "immutable"}})
	})
	t.Run("CUDN selector change is allowed", func(t *testing.T) {
		old, c := validCUDN(), validCUDN()
		c.Spec.NamespaceSelector.MatchLabels = map[string]string{"tier": "web"}
		checkErrs(t, ValidateCUDNUpdate(old, c), nil)
	})
}

// TestValidationMessagesNameTheFix spot-checks that aggregated messages are
// readable as a whole.
func TestValidationMessagesNameTheFix(t *testing.T) {
	u := validUDN()
	u.Spec.Topology, u.Spec.Subnets = TopologyLayer3, []string{"10.0.0.0/24"}
	got := fmt.Sprint(ValidateUDN(u).ToAggregate())
	want := `spec.subnets[0]: Invalid value: "10.0.0.0/24": default host prefix /24 must be longer than the subnet's /24; write 10.0.0.0/24/<hostPrefix>`
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// TestSubnetHoldsAPod: a Layer2 subnet must hold the gateway's and the
// management port's addresses when primary, and, primary or secondary, an
// address for a pod beside them (and the IPv4 broadcast), in a spec and in
// a NetConf; /32, /31 and /30 (/128, /127) validated and could hold no pod
// (issue 22). A Layer3 host subnet likewise; excludeSubnets covering the
// subnet leave no pod.
func TestSubnetHoldsAPod(t *testing.T) {
	for subnet, ok := range map[string]bool{
		"10.0.0.0/32": false, "10.0.0.0/31": false, "fd00::/128": false, "fd00::/127": false, "10.0.0.0/30": false,
		"10.0.0.0/29": true, "fd00::/126": true,
	} {
		for _, role := range []Role{RolePrimary, RoleSecondary} {
			spec := UserDefinedNetworkSpec{Topology: TopologyLayer2, Role: role, Subnets: []string{subnet}}
			errs := ValidateUDN(&UserDefinedNetwork{ObjectMeta: metav1.ObjectMeta{Name: "n", Namespace: "ns"}, Spec: spec})
			if (len(errs) == 0) != ok {
				t.Errorf("%s spec subnet %s: %v, want valid %v", role, subnet, errs, ok)
			}
			conf := `{"cniVersion":"1.0.0","name":"ns_n","type":"ovn-k8s-cni-overlay","topology":"layer2","role":"` + role.NetConfValue() +
				`","netAttachDefName":"ns/n","subnets":"` + subnet + `"}`
			if _, err := ParseNetConf([]byte(conf)); (err == nil) != ok {
				t.Errorf("%s NetConf subnet %s: %v, want valid %v", role, subnet, err, ok)
			}
		}
	}
	for _, tc := range []struct {
		topo            Topology
		subnet, exclude string
		ok              bool
	}{
		{TopologyLayer3, "10.128.0.0/16/30", "", false},
		{TopologyLayer3, "10.128.0.0/16/29", "", true},
		{TopologyLayer3, "fd00::/48/127", "", false},
		{TopologyLayer2, "10.0.0.0/24", "10.0.0.0/24", false},
		{TopologyLayer2, "10.0.0.0/24", "10.0.0.0/16", false},
		{TopologyLayer2, "10.0.0.0/29", "10.0.0.0/30", true},
		{TopologyLayer2, "10.0.0.0/29", "10.0.0.0/29", false},
		// A Layer3 node may be given any host subnet: excludeSubnets must
		// leave each a pod.
		{TopologyLayer3, "10.0.0.0/16/24", "10.0.5.0/24", false},
		{TopologyLayer3, "10.0.0.0/16/24", "10.0.4.0/23", false},
		{TopologyLayer3, "10.0.0.0/16/24", "10.0.5.0/25,10.0.5.128/25", false},
		{TopologyLayer3, "10.0.0.0/16/24", "10.0.5.0/25", true},
		{TopologyLayer3, "10.0.0.0/16/24", "10.0.5.0/25,10.0.6.128/25", true},
		{TopologyLayer3, "10.0.0.0/16/29", "10.0.0.8/30", true},
		{TopologyLayer3, "10.0.0.0/16/29", "10.0.0.12/30", true},
		{TopologyLayer3, "10.0.0.0/16/29", "10.0.0.8/30,10.0.0.12/30", false},
		{TopologyLayer3, "fd00::/48", "fd00:0:0:7::/64", false},
		{TopologyLayer3, "fd00::/48", "fd00:0:0:7::/65", true},
	} {
		spec := UserDefinedNetworkSpec{Topology: tc.topo, Role: RoleSecondary, Subnets: []string{tc.subnet}}
		if tc.exclude != "" {
			spec.ExcludeSubnets = strings.Split(tc.exclude, ",")
		}
		errs := ValidateUDN(&UserDefinedNetwork{ObjectMeta: metav1.ObjectMeta{Name: "n", Namespace: "ns"}, Spec: spec})
		if (len(errs) == 0) != tc.ok {
			t.Errorf("%s %s exclude %q: %v, want valid %v", tc.topo, tc.subnet, tc.exclude, errs, tc.ok)
		}
	}
}

// TestJoinSubnetHoldsNodes: a primary network's join subnet must hold the
// cluster router's address and a node's gateway router's.
func TestJoinSubnetHoldsNodes(t *testing.T) {
	for join, ok := range map[string]bool{"100.65.0.0/32": false, "100.65.0.0/31": false, "100.65.0.0/30": true, "fd99::/128": false} {
		subnet := "10.0.0.0/24"
		if strings.Contains(join, ":") {
			subnet = "fd00::/64"
		}
		spec := UserDefinedNetworkSpec{Topology: TopologyLayer2, Role: RolePrimary, Subnets: []string{subnet}, JoinSubnets: []string{join}}
		errs := ValidateUDN(&UserDefinedNetwork{ObjectMeta: metav1.ObjectMeta{Name: "n", Namespace: "ns"}, Spec: spec})
		if (len(errs) == 0) != ok {
			t.Errorf("join %s: %v, want valid %v", join, errs, ok)
		}
	}
}
