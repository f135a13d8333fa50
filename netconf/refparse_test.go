package netconf

import (
	"errors"
	"strings"
	"testing"

	nadv1 "github.com/k8snetworkplumbingwg/network-attachment-definition-client/pkg/apis/k8s.cni.cncf.io/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestParseNADReference ports the reference implementation's NetConf
// parsing tables (OVN-Kubernetes 8871cd9c): go-controller/pkg/util/
// multi_network_test.go TestParseNetconf (every NAD is "ns1/nad1"),
// go-controller/pkg/config/cni_test.go Describe("ParseNetConf"), and the
// branches of go-controller/pkg/config/cni.go ParseNetConf that those
// tests do not reach. Each case names its source.
func TestParseNADReference(t *testing.T) {
	const (
		mnt = "multi_network_test.go TestParseNetconf: "
		cni = "config/cni_test.go ParseNetConf: "
		cgo = "config/cni.go ParseNetConf: "
	)
	tests := []struct {
		name, config string
		// wantErr is a fragment of the error; "" means the NAD parses.
		wantErr string
		// wantIs is a sentinel the error must wrap besides ErrInvalidNetConf.
		wantIs error
		check  func(t *testing.T, c *NetConf, n *Network)
	}{
		{name: mnt + "empty network attachment configuration", config: ``, wantErr: "unexpected end of JSON input"},
		{name: mnt + "net-attach-def-name attribute does not match the metadata",
			config:  `{"name": "tenantred", "type": "ovn-k8s-cni-overlay", "topology": "localnet", "vlanID": 10, "netAttachDefName": "default/tenantred"}`,
			wantErr: "net-attach-def name (ns1/nad1) is inconsistent with config (default/tenantred)", wantIs: ErrNADBinding},
		{name: mnt + "attachment definition with no `name` attribute",
			config:  `{"type": "ovn-k8s-cni-overlay", "topology": "localnet", "vlanID": 10, "netAttachDefName": "default/tenantred"}`,
			wantErr: "name: Required value"},
		{name: mnt + "attachment definition for another plugin",
			config:  `{"name": "tenantred", "type": "some other thing", "topology": "localnet", "vlanID": 10, "netAttachDefName": "default/tenantred"}`,
			wantErr: "not managed by OVN", wantIs: ErrNotOVNManaged},
		{name: mnt + "attachment definition with IPAM key defined, using a wrong type",
			config:  `{"name": "tenantred", "type": "ovn-k8s-cni-overlay", "topology": "localnet", "vlanID": 10, "netAttachDefName": "default/tenantred", "ipam": "this is wrong"}`,
			wantErr: "cannot unmarshal string"},
		{name: mnt + "attachment definition with IPAM key defined",
			config:  `{"name": "tenantred", "type": "ovn-k8s-cni-overlay", "topology": "localnet", "vlanID": 10, "netAttachDefName": "ns1/nad1", "ipam": {"type": "ninjaturtle"}}`,
			wantErr: "IPAM key is not supported"},
		{name: mnt + "attachment definition missing the NAD name attribute",
			config:  `{"name": "tenantred", "type": "ovn-k8s-cni-overlay", "topology": "localnet", "vlanID": 10}`,
			wantErr: "netAttachDefName: Invalid value"},
		{name: mnt + "valid attachment definition for a localnet topology with a VLAN",
			config: `{"name": "tenantred", "type": "ovn-k8s-cni-overlay", "topology": "localnet", "vlanID": 10, "netAttachDefName": "ns1/nad1"}`,
			check: func(t *testing.T, c *NetConf, n *Network) {
				if c.CNIVersion != "" || n.Topology != TopologyLocalnet || n.VLANID != 10 || !n.IPAMDisabled || n.Name != "tenantred" {
					t.Errorf("netconf %+v network %+v", c, n)
				}
			}},
		// Departure: the reference parses this as the default network's
		// NetConf (name "default"); udnkit parses user-defined networks
		// only and says which case it is.
		{name: mnt + "valid attachment definition for the default network",
			config:  `{"name": "tenantred", "type": "ovn-k8s-cni-overlay", "netAttachDefName": "ns1/nad1"}`,
			wantErr: "default network", wantIs: ErrDefaultNetworkNAD},
		{name: mnt + "valid attachment definition for a localnet topology with a VLAN using a plugins list",
			config: `{"name": "tenantred", "cniVersion": "1.1.0", "plugins": [{"type": "ovn-k8s-cni-overlay", "topology": "localnet", "vlanID": 10, "netAttachDefName": "ns1/nad1"}]}`,
			check: func(t *testing.T, c *NetConf, n *Network) {
				if c.Name != "tenantred" || c.CNIVersion != "1.1.0" || n.VLANID != 10 || n.Topology != TopologyLocalnet {
					t.Errorf("netconf %+v network %+v", c, n)
				}
			}},
		{name: mnt + "valid attachment definition for a localnet topology with persistent IPs and a subnet",
			config: `{"name": "tenantred", "type": "ovn-k8s-cni-overlay", "topology": "localnet", "subnets": "192.168.200.0/16", "allowPersistentIPs": true, "netAttachDefName": "ns1/nad1"}`,
			check: func(t *testing.T, c *NetConf, n *Network) {
				if !n.PersistentIPs || c.Subnets != "192.168.200.0/16" || n.Subnets[0].CIDR.String() != "192.168.0.0/16" {
					t.Errorf("netconf %+v network %+v", c, n)
				}
			}},
		{name: mnt + "valid attachment definition for a layer2 topology with persistent IPs and a subnet",
			config: `{"name": "tenantred", "type": "ovn-k8s-cni-overlay", "topology": "layer2", "subnets": "192.168.200.0/16", "allowPersistentIPs": true, "netAttachDefName": "ns1/nad1"}`,
			check: func(t *testing.T, c *NetConf, n *Network) {
				if !n.PersistentIPs || n.Role != RoleSecondary || n.JoinSubnets != nil {
					t.Errorf("network %+v", n)
				}
			}},
		{name: mnt + "invalid attachment definition for a layer3 topology with persistent IPs",
			config:  `{"name": "tenantred", "type": "ovn-k8s-cni-overlay", "topology": "layer3", "subnets": "192.168.200.0/16", "allowPersistentIPs": true, "netAttachDefName": "ns1/nad1"}`,
			wantErr: "allowPersistentIPs: Invalid value"},
		{name: mnt + "valid attachment definition for a layer2 topology with role:primary",
			config: `{"name": "tenant-red", "type": "ovn-k8s-cni-overlay", "topology": "layer2", "subnets": "192.168.200.0/16", "role": "primary", "netAttachDefName": "ns1/nad1", "joinSubnet": "100.66.0.0/16,fd99::/64"}`,
			check: func(t *testing.T, c *NetConf, n *Network) {
				// The IPv6 join subnet of this IPv4-only network is accepted
				// (the reference renders both families); the network uses the
				// IPv4 one and the default transit subnet of its family.
				if prefixesString(n.JoinSubnets) != "100.66.0.0/16" || prefixesString(n.TransitSubnets) != "100.88.0.0/16" || c.JoinSubnet != "100.66.0.0/16,fd99::/64" {
					t.Errorf("netconf %+v network %+v", c, n)
				}
			}},
		{name: mnt + "valid attachment definition for a layer3 topology with role:primary",
			config: `{"name": "tenant-red", "type": "ovn-k8s-cni-overlay", "topology": "layer3", "subnets": "192.168.200.0/16", "role": "primary", "netAttachDefName": "ns1/nad1", "joinSubnet": "100.66.0.0/16"}`,
			check: func(t *testing.T, c *NetConf, n *Network) {
				if !n.IsPrimary() || prefixesString(n.JoinSubnets) != "100.66.0.0/16" {
					t.Errorf("network %+v", n)
				}
			}},
		{name: mnt + "valid attachment definition for a layer3 topology with role:secondary",
			config: `{"name": "tenant-red", "type": "ovn-k8s-cni-overlay", "topology": "layer3", "subnets": "192.168.200.0/16", "role": "secondary", "netAttachDefName": "ns1/nad1"}`,
			check: func(t *testing.T, c *NetConf, n *Network) {
				if n.Role != RoleSecondary || n.Topology != TopologyLayer3 {
					t.Errorf("network %+v", n)
				}
			}},
		{name: mnt + "invalid attachment definition for a layer3 topology with role:Primary",
			config:  `{"name": "tenant-red", "type": "ovn-k8s-cni-overlay", "topology": "layer3", "subnets": "192.168.200.0/16", "role": "Primary", "netAttachDefName": "ns1/nad1"}`,
			wantErr: `role: Unsupported value: "Primary"`},
		{name: mnt + "invalid attachment definition for a localnet topology with role:primary",
			config:  `{"name": "tenantred", "type": "ovn-k8s-cni-overlay", "topology": "localnet", "subnets": "192.168.200.0/16", "role": "primary", "netAttachDefName": "ns1/nad1"}`,
			wantErr: "Localnet topology is not supported for primary networks"},
		{name: mnt + "invalid attachment definition for a localnet topology with joinsubnet provided",
			config:  `{"name": "tenantred", "type": "ovn-k8s-cni-overlay", "topology": "localnet", "subnets": "192.168.200.0/16", "joinSubnet": "100.66.0.0/16", "netAttachDefName": "ns1/nad1"}`,
			wantErr: "joinSubnet: Forbidden: localnet topology does not allow specifying join-subnet"},
		{name: mnt + "A layer2 primary UDN requires a subnet",
			config:  `{"name": "tenantred", "type": "ovn-k8s-cni-overlay", "topology": "layer2", "netAttachDefName": "ns1/nad1", "role": "primary"}`,
			wantErr: "subnets: Required value"},
		{name: mnt + "invalid not contained excludes layer 2 topology",
			config:  `{"name": "tenantred", "type": "ovn-k8s-cni-overlay", "topology": "layer2", "subnets": "fda6::/48", "excludeSubnets": "fda7::38/128", "netAttachDefName": "ns1/nad1"}`,
			wantErr: `excludeSubnets[0]: Invalid value: "fda7::38/128": must be inside`},
		{name: mnt + "multiple subnets and excludes localnet topology",
			config: `{"name": "tenantred", "type": "ovn-k8s-cni-overlay", "topology": "localnet", "subnets": "192.168.1.1/26, fda6::/48", "excludeSubnets": "192.168.1.38/32, fda6::38/128", "netAttachDefName": "ns1/nad1"}`,
			check: func(t *testing.T, c *NetConf, n *Network) {
				if c.Subnets != "192.168.1.1/26, fda6::/48" || len(n.Subnets) != 2 || prefixesString(n.ExcludeSubnets) != "192.168.1.38/32 fda6::38/128" {
					t.Errorf("netconf %+v network %+v", c, n)
				}
			}},
		// reservedSubnets is a key udnkit does not model: ignored, as every
		// unknown key.
		{name: mnt + "multiple subnets and reserved subnets layer 2 topology",
			config: `{"name": "tenantred", "type": "ovn-k8s-cni-overlay", "topology": "layer2", "subnets": "192.168.1.0/24, fda6::/64", "reservedSubnets": "192.168.1.0/28, fda6::0/80", "netAttachDefName": "ns1/nad1"}`},
		{name: mnt + "layer 2 with both excludes and reserved subnets",
			config: `{"name": "tenantred", "type": "ovn-k8s-cni-overlay", "topology": "layer2", "subnets": "192.168.1.0/24", "excludeSubnets": "192.168.1.200/29", "reservedSubnets": "192.168.1.0/28", "netAttachDefName": "ns1/nad1"}`,
			check: func(t *testing.T, c *NetConf, n *Network) {
				if prefixesString(n.ExcludeSubnets) != "192.168.1.200/29" {
					t.Errorf("network %+v", n)
				}
			}},
		{name: mnt + "dual-stack reserved subnets layer 2 topology",
			config: `{"name": "tenantred", "type": "ovn-k8s-cni-overlay", "topology": "layer2", "subnets": "192.168.1.0/24, 2001:db8::/64", "reservedSubnets": "192.168.1.0/28, 2001:db8::/80", "netAttachDefName": "ns1/nad1"}`},

		{name: cni + "parses a valid secondary-network config (single)",
			config: `{"name":"mynet","cniVersion":"1.0.0","type":"ovn-k8s-cni-overlay","topology":"layer2","netAttachDefName":"ns1/nad1"}`,
			check: func(t *testing.T, c *NetConf, n *Network) {
				if c.Name != "mynet" || n.Topology != TopologyLayer2 {
					t.Errorf("netconf %+v", c)
				}
			}},
		{name: cni + "parses a valid secondary-network config (conflist)",
			config: `{"name":"mynet","cniVersion":"1.0.0","plugins":[{"name":"","cniVersion":"1.0.0","type":"ovn-k8s-cni-overlay","topology":"layer2","netAttachDefName":"ns1/nad1"}]}`,
			check: func(t *testing.T, c *NetConf, n *Network) {
				if c.Name != "mynet" || c.CNIVersion != "1.0.0" || n.Topology != TopologyLayer2 {
					t.Errorf("netconf %+v", c)
				}
			}},
		{name: cni + "returns ErrorAttachDefNotOvnManaged for a non-OVN config (single)",
			config: `{"name":"bridge-net","cniVersion":"1.0.0","type":"bridge"}`, wantErr: "not managed by OVN", wantIs: ErrNotOVNManaged},
		{name: cni + "returns ErrorAttachDefNotOvnManaged for a non-OVN config (conflist)",
			config: `{"name":"bridge-net","cniVersion":"1.0.0","plugins":[{"name":"","cniVersion":"1.0.0","type":"bridge"}]}`, wantErr: "not managed by OVN", wantIs: ErrNotOVNManaged},
		{name: cni + "parses a valid default-network config (conflist), refused here",
			config: `{"name":"ovn-kubernetes","cniVersion":"1.0.0","plugins":[{"type":"ovn-k8s-cni-overlay"}]}`, wantErr: "default network", wantIs: ErrDefaultNetworkNAD},
		{name: cni + "returns an error for invalid JSON", config: `{invalid`, wantErr: "invalid character"},
		{name: cni + "returns an error for an empty conflist plugins array",
			config: `{"name":"empty","cniVersion":"1.0.0","plugins":[]}`, wantErr: "no plugins found"},
		{name: cgo + "chained plugins (ErrorChainingNotSupported)",
			config:  `{"name":"tenantred","cniVersion":"1.1.0","plugins":[{"type":"ovn-k8s-cni-overlay","topology":"layer2","netAttachDefName":"ns1/nad1"},{"type":"tuning"}]}`,
			wantErr: "has 2 plugins", wantIs: ErrChainingNotSupported},
		{name: cgo + "both a plugin list and a single config",
			config:  `{"name":"tenantred","cniVersion":"1.1.0","type":"ovn-k8s-cni-overlay","topology":"layer2","netAttachDefName":"ns1/nad1","plugins":[{"type":"ovn-k8s-cni-overlay","topology":"layer2","netAttachDefName":"ns1/nad1"}]}`,
			wantErr: "cannot have both a plugin list and a single config"},
		{name: cgo + "ValidateNetConfNameFields: reserved name default",
			config: `{"name":"default","type":"ovn-k8s-cni-overlay","topology":"layer2","netAttachDefName":"ns1/nad1"}`, wantErr: `name: Invalid value: "default": reserved network name`},
		{name: cgo + "parseNetConfList: the list's name and cniVersion replace the plugin's",
			config: `{"name":"tenantred","cniVersion":"1.1.0","plugins":[{"name":"x","cniVersion":"0.4.0","type":"ovn-k8s-cni-overlay","topology":"layer2","netAttachDefName":"ns1/nad1"}]}`,
			check: func(t *testing.T, c *NetConf, n *Network) {
				if c.Name != "tenantred" || c.CNIVersion != "1.1.0" || n.Name != "tenantred" {
					t.Errorf("netconf %+v", c)
				}
			}},
		{name: cgo + "ValidateNetConfNameFields: reserved name ovn-kubernetes (list name wins)",
			config: `{"name":"ovn-kubernetes","plugins":[{"name":"x","type":"ovn-k8s-cni-overlay","topology":"layer2","netAttachDefName":"ns1/nad1"}]}`, wantErr: `name: Invalid value: "ovn-kubernetes": reserved network name`},
		{name: "net-attach-def-template_test.go: primary layer2 IPv4 rendered with both join families",
			config: `{"allowPersistentIPs":true,"cniVersion":"1.1.0","joinSubnet":"100.65.0.0/16,fd99::/64","mtu":1500,"name":"mynamespace_test-net","netAttachDefName":"ns1/nad1","role":"primary","subnets":"192.168.100.0/24","topology":"layer2","transitSubnet":"100.88.0.0/16","type":"ovn-k8s-cni-overlay"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			nad := &nadv1.NetworkAttachmentDefinition{ObjectMeta: metav1.ObjectMeta{Namespace: "ns1", Name: "nad1"},
				Spec: nadv1.NetworkAttachmentDefinitionSpec{Config: tt.config}}
			c, err := ParseNAD(nad)
			if tt.wantErr != "" {
				if err == nil || !errors.Is(err, ErrInvalidNetConf) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want ErrInvalidNetConf containing %q", err, tt.wantErr)
				}
				if tt.wantIs != nil && !errors.Is(err, tt.wantIs) {
					t.Fatalf("err = %v, want it to wrap %v", err, tt.wantIs)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			n, err := c.Network()
			if err != nil {
				t.Fatal(err)
			}
			if tt.check != nil {
				tt.check(t, c, n)
			}
		})
	}
}
