package netconf

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestParseNetConf(t *testing.T) {
	tests := []struct {
		name string
		json string
		// wantErr is a fragment of the error; "" means valid.
		wantErr string
		check   func(t *testing.T, n *Network)
	}{
		{name: "seed layer3 with early primaryNetwork key", json: `{
			"cniVersion": "0.3.1", "name": "l3-network", "type": "ovn-k8s-cni-overlay", "topology":"layer3",
			"subnets": "10.128.0.0/16/24,2600:db8::/29", "joinSubnet": "100.65.0.0/24,fd99::/64",
			"mtu": 1400, "netAttachDefName": "default/l3-network", "primaryNetwork": true}`,
			check: func(t *testing.T, n *Network) {
				if n.Role != RolePrimary || n.Topology != TopologyLayer3 || n.MTU != 1400 ||
					n.Subnets[1].String() != "2600:db8::/29/64" || prefixesString(n.JoinSubnets) != "100.65.0.0/24 fd99::/64" ||
					prefixesString(n.TransitSubnets) != "100.88.0.0/16 fd97::/64" {
					t.Errorf("network %+v", n)
				}
			}},
		{name: "secondary layer2 without subnets is IPAM disabled", json: `{"cniVersion":"1.1.0","name":"n","type":"ovn-k8s-cni-overlay",
			"topology":"layer2","netAttachDefName":"ns/n"}`,
			check: func(t *testing.T, n *Network) {
				if !n.IPAMDisabled || n.Role != RoleSecondary {
					t.Errorf("network %+v", n)
				}
			}},
		{name: "unknown keys are ignored", json: `{"cniVersion":"1.1.0","name":"n","type":"ovn-k8s-cni-overlay","topology":"layer2",
			"netAttachDefName":"ns/n","subnets":"10.0.0.0/24","ipam":{},"capabilities":{"ips":true}}`},
		{name: "explicit transit kept", json: `{"cniVersion":"1.1.0","name":"n","type":"ovn-k8s-cni-overlay","topology":"layer2",
			"role":"primary","netAttachDefName":"ns/n","subnets":"10.0.0.0/24","transitSubnet":"100.99.0.0/16"}`,
			check: func(t *testing.T, n *Network) {
				if prefixesString(n.TransitSubnets) != "100.99.0.0/16" {
					t.Errorf("transit %v", n.TransitSubnets)
				}
			}},
		{name: "localnet", json: `{"cniVersion":"1.1.0","name":"n","type":"ovn-k8s-cni-overlay","topology":"localnet",
			"netAttachDefName":"ns/n","subnets":"192.168.0.0/24","physicalNetworkName":"tenant","vlanID":7}`,
			check: func(t *testing.T, n *Network) {
				if n.PhysicalNetworkName != "tenant" || n.VLANID != 7 {
					t.Errorf("network %+v", n)
				}
			}},

		{name: "not JSON", json: `{"name":`, wantErr: "unexpected end of JSON input"},
		{name: "wrong value type", json: `{"mtu":"1400"}`, wantErr: "cannot unmarshal string"},
		{name: "wrong plugin type", json: `{"cniVersion":"1.1.0","name":"n","type":"bridge","topology":"layer2","netAttachDefName":"ns/n"}`,
			wantErr: `type: Invalid value: "bridge": must be ovn-k8s-cni-overlay`},
		// A missing cniVersion is no longer an error (the reference accepts it,
		// multi_network_test.go TestParseNetconf); the missing type is.
		{name: "missing everything", json: `{}`, wantErr: `type: Invalid value: ""`},
		{name: "bad netAttachDefName", json: `{"cniVersion":"1.1.0","name":"n","type":"ovn-k8s-cni-overlay","topology":"layer2","netAttachDefName":"n"}`,
			wantErr: "netAttachDefName: Invalid value: \"n\": must be <namespace>/<name>"},
		{name: "API spelling of topology", json: `{"cniVersion":"1.1.0","name":"n","type":"ovn-k8s-cni-overlay","topology":"Layer2","netAttachDefName":"ns/n"}`,
			wantErr: `topology: Unsupported value: "Layer2": supported values: "layer2", "layer3", "localnet"`},
		{name: "unknown role", json: `{"cniVersion":"1.1.0","name":"n","type":"ovn-k8s-cni-overlay","topology":"layer2","role":"Primary","netAttachDefName":"ns/n"}`,
			wantErr: `role: Unsupported value: "Primary"`},
		{name: "role contradicts primaryNetwork", json: `{"cniVersion":"1.1.0","name":"n","type":"ovn-k8s-cni-overlay","topology":"layer2",
			"role":"secondary","primaryNetwork":true,"netAttachDefName":"ns/n"}`, wantErr: "primaryNetwork: Invalid value: true"},
		{name: "bad subnet", json: `{"cniVersion":"1.1.0","name":"n","type":"ovn-k8s-cni-overlay","topology":"layer3","netAttachDefName":"ns/n","subnets":"10.0.0.0/16/64"}`,
			wantErr: `subnets[0]: Invalid value: "10.0.0.0/16/64"`},
		{name: "primary without subnets", json: `{"cniVersion":"1.1.0","name":"n","type":"ovn-k8s-cni-overlay","topology":"layer2","role":"primary","netAttachDefName":"ns/n"}`,
			wantErr: "subnets: Required value: primary networks require subnets"},
		{name: "transit on layer3", json: `{"cniVersion":"1.1.0","name":"n","type":"ovn-k8s-cni-overlay","topology":"layer3","role":"primary",
			"netAttachDefName":"ns/n","subnets":"10.0.0.0/16","transitSubnet":"100.88.0.0/16"}`,
			wantErr: "transitSubnet: Forbidden: only valid for primary Layer2 networks"},
		{name: "transit overlaps subnets", json: `{"cniVersion":"1.1.0","name":"n","type":"ovn-k8s-cni-overlay","topology":"layer2","role":"primary",
			"netAttachDefName":"ns/n","subnets":"100.88.0.0/24","transitSubnet":"100.88.0.0/16"}`,
			wantErr: "transitSubnet[0]: Invalid value: \"100.88.0.0/16\": overlaps the network's pod subnet 100.88.0.0/24"},
		{name: "transit overlaps join", json: `{"cniVersion":"1.1.0","name":"n","type":"ovn-k8s-cni-overlay","topology":"layer2","role":"primary",
			"netAttachDefName":"ns/n","subnets":"10.0.0.0/24","joinSubnet":"100.88.0.0/16","transitSubnet":"100.88.0.0/16"}`,
			wantErr: "overlaps the network's join subnet 100.88.0.0/16"},
		{name: "vrf on secondary", json: `{"cniVersion":"1.1.0","name":"n","type":"ovn-k8s-cni-overlay","topology":"layer2",
			"netAttachDefName":"ns/n","subnets":"10.0.0.0/24","vrf":"blue"}`, wantErr: "vrf: Invalid value: \"blue\": a VRF is only used by primary networks"},
		{name: "persistent IPs on layer3", json: `{"cniVersion":"1.1.0","name":"n","type":"ovn-k8s-cni-overlay","topology":"layer3",
			"netAttachDefName":"ns/n","subnets":"10.0.0.0/16","allowPersistentIPs":true}`, wantErr: "allowPersistentIPs: Invalid value"},
		{name: "persistent IPs without subnets", json: `{"cniVersion":"1.1.0","name":"n","type":"ovn-k8s-cni-overlay","topology":"layer2",
			"netAttachDefName":"ns/n","allowPersistentIPs":true}`, wantErr: "Persistent requires IPAM"},
		{name: "vlan on layer2", json: `{"cniVersion":"1.1.0","name":"n","type":"ovn-k8s-cni-overlay","topology":"layer2",
			"netAttachDefName":"ns/n","subnets":"10.0.0.0/24","vlanID":3}`, wantErr: "vlanID: Forbidden: only valid for the Localnet topology"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := ParseNetConf([]byte(tt.json))
			if tt.wantErr != "" {
				if err == nil || !errors.Is(err, ErrInvalidNetConf) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want ErrInvalidNetConf containing %q", err, tt.wantErr)
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
				tt.check(t, n)
			}
			assertRoundTrip(t, n)
		})
	}
}

// assertRoundTrip checks Network -> NetConf JSON -> Network is the identity
// for a network with ID 0 and one NAD.
func assertRoundTrip(t *testing.T, n *Network) {
	t.Helper()
	if n.ID != 0 || len(n.NADs) != 1 {
		t.Fatalf("round trip needs ID 0 and one NAD: %+v", n)
	}
	b, err := json.Marshal(NetConfOf(n, n.NADs[0]))
	if err != nil {
		t.Fatal(err)
	}
	c, err := ParseNetConf(b)
	if err != nil {
		t.Fatalf("rendered NetConf %s does not parse: %v", b, err)
	}
	back, err := c.Network()
	if err != nil {
		t.Fatal(err)
	}
	if !back.Equal(n) {
		t.Errorf("round trip changed the network:\n from %+v\n   to %+v\n json %s", n, back, b)
	}
}

func TestRoundTripFromSpecs(t *testing.T) {
	for _, file := range []string{"udn-db-network.yaml", "udn-l3-network.yaml"} {
		t.Run(file, func(t *testing.T) {
			n, err := NetworkFromUDN(readUDN(t, file))
			if err != nil {
				t.Fatal(err)
			}
			assertRoundTrip(t, n)
		})
	}
	for _, file := range []string{"cudn-db-network.yaml", "cudn-localnet.yaml"} {
		t.Run(file, func(t *testing.T) {
			n, err := NetworkFromCUDN(readCUDN(t, file), 0)
			if err != nil {
				t.Fatal(err)
			}
			n.NADs = []string{"ns/" + readCUDN(t, file).Name}
			assertRoundTrip(t, n)
		})
	}
}

func TestNetConfKeyOrder(t *testing.T) {
	n := &Network{
		Name: "cluster_udn_x", Topology: TopologyLayer2, Role: RolePrimary, MTU: 1400,
		Subnets: []Subnet{{CIDR: mustPrefix("10.0.0.0/24")}}, ExcludeSubnets: []netipPrefix{mustPrefix("10.0.0.0/28")},
		JoinSubnets: []netipPrefix{mustPrefix("100.65.0.0/16")}, TransitSubnets: []netipPrefix{mustPrefix("100.88.0.0/16")},
		VRF: "x", PersistentIPs: true,
	}
	b, err := json.Marshal(NetConfOf(n, "ns/x"))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"cniVersion":"1.1.0","name":"cluster_udn_x","type":"ovn-k8s-cni-overlay","topology":"layer2","role":"primary",` +
		`"netAttachDefName":"ns/x","subnets":"10.0.0.0/24","excludeSubnets":"10.0.0.0/28","joinSubnet":"100.65.0.0/16",` +
		`"transitSubnet":"100.88.0.0/16","mtu":1400,"vrf":"x","allowPersistentIPs":true}`
	if string(b) != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}
}

func TestParseSubnet(t *testing.T) {
	tests := []struct {
		in       string
		topology Topology
		want     string
		wantErr  string
	}{
		{in: "10.128.0.0/16/24", topology: TopologyLayer3, want: "10.128.0.0/16/24"},
		{in: "10.128.0.0/16", topology: TopologyLayer3, want: "10.128.0.0/16/24"},
		{in: "10.128.0.0/16/024", topology: TopologyLayer3, want: "10.128.0.0/16/24"},
		{in: "fd00:10:244::/48", topology: TopologyLayer3, want: "fd00:10:244::/48/64"},
		{in: "10.0.0.0/24", topology: TopologyLayer2, want: "10.0.0.0/24"},
		{in: "10.0.0.100/26", topology: TopologyLocalnet, want: "10.0.0.64/26"},
		{in: "2001:DBB::/64", topology: TopologyLayer2, want: "2001:dbb::/64"},
		{in: "10.0.0.0/24/26", topology: TopologyLayer2, wantErr: "only valid for Layer3"},
		{in: "10.0.0.0/16/", topology: TopologyLayer3, wantErr: "not a number"},
		{in: "10.0.0.0/16/1000", topology: TopologyLayer3, wantErr: "not a number"},
		{in: "10.0.0.0/16/30", topology: TopologyLayer3, want: "10.0.0.0/16/30"},
		{in: "10.0.0.0/16/31", topology: TopologyLayer3, wantErr: "leaves no room"},
		{in: "fd00::/48/65", topology: TopologyLayer3, wantErr: "must be /64"},
		{in: "10.0.0.0/24/24", topology: TopologyLayer3, wantErr: "must be longer"},
		{in: "", topology: TopologyLayer2, wantErr: "not a CIDR"},
		{in: " 10.0.0.0/24", topology: TopologyLayer2, wantErr: "not a CIDR"},
		{in: "fe80::1%eth0/64", topology: TopologyLayer2, wantErr: "not a CIDR"},
	}
	for _, tt := range tests {
		t.Run(string(tt.topology)+" "+tt.in, func(t *testing.T) {
			got, err := ParseSubnet(tt.in, tt.topology)
			if tt.wantErr != "" {
				if !errors.Is(err, ErrInvalidSubnet) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want ErrInvalidSubnet with %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || got.String() != tt.want {
				t.Fatalf("got %v, %v; want %s", got, err, tt.want)
			}
		})
	}
}

func TestParseSubnets(t *testing.T) {
	got, err := ParseSubnets(" 10.128.0.0/16/24 , fd00::/48", TopologyLayer3)
	if err != nil || joinSubnets(got) != "10.128.0.0/16/24,fd00::/48/64" {
		t.Errorf("got %v, %v", got, err)
	}
	if got, err := ParseSubnets("", TopologyLayer2); got != nil || err != nil {
		t.Errorf("empty: %v, %v", got, err)
	}
	if _, err := ParseSubnets("10.0.0.0/24,,", TopologyLayer2); !errors.Is(err, ErrInvalidSubnet) {
		t.Errorf("empty item: %v", err)
	}
	if _, err := ParseCIDR("1.2.3.4"); !errors.Is(err, ErrInvalidSubnet) {
		t.Errorf("ParseCIDR without bits: %v", err)
	}
}
