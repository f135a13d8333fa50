package netconf

import (
	"errors"
	"net/netip"
	"slices"
	"strings"
	"testing"
)

// TestParsePodNetworksRefusesHostile: annotations no controller writes are
// refused, naming the network and the field.
func TestParsePodNetworksRefusesHostile(t *testing.T) {
	const mac = `"mac_address":"0a:58:0a:80:01:05"`
	for _, tc := range []struct{ name, s, field string }{
		{"empty key", `{"":{"ip_addresses":["10.0.0.5/24"],` + mac + `}}`, "key"},
		{"v6 gateway for a v4 address", `{"ns/a":{"ip_addresses":["10.0.0.5/24"],` + mac + `,"gateway_ips":["fd00::1"]}}`, "gateway_ips"},
		{"v4 gateway for a v6 address", `{"ns/a":{"ip_addresses":["fd00::5/64"],` + mac + `,"gateway_ips":["10.0.0.1"]}}`, "gateway_ips"},
		{"two gateways of a family", `{"ns/a":{"ip_addresses":["10.0.0.5/24","fd00::5/64"],` + mac + `,"gateway_ips":["10.0.0.1","10.0.0.2"]}}`, "gateway_ips"},
		{"negative tunnel_id", `{"ns/a":{"ip_addresses":["10.0.0.5/24"],` + mac + `,"tunnel_id":-1}}`, "tunnel_id"},
		{"huge tunnel_id", `{"ns/a":{"ip_addresses":["10.0.0.5/24"],` + mac + `,"tunnel_id":99999999999}}`, "tunnel_id"},
		{"global ipv6_lla_gateway_ip", `{"ns/a":{"ip_addresses":["fd00::5/64"],` + mac + `,"ipv6_lla_gateway_ip":"fd00::1"}}`, "ipv6_lla_gateway_ip"},
		{"two primary roles", `{"ns/a":{"ip_addresses":["10.0.0.5/24"],` + mac + `,"role":"primary"},"ns/b":{"ip_addresses":["10.1.0.5/24"],` + mac + `,"role":"primary"}}`, "role"},
		{"10 MB key", `{"` + strings.Repeat("k", 10<<20) + `":{"ip_addresses":["x"],` + mac + `}}`, "ip_addresses"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParsePodNetworks(tc.s)
			if !errors.Is(err, ErrPodNetworks) || !strings.Contains(err.Error(), tc.field) || len(err.Error()) > 4096 {
				t.Errorf("ParsePodNetworks = %.300v, want ErrPodNetworks naming %s", err, tc.field)
			}
		})
	}
	// The reference's own forms still parse: one primary, a Layer2 LLA.
	ok := `{"default":{"ip_addresses":["10.244.1.5/24"],` + mac + `,"role":"infrastructure-locked"},` +
		`"ns/a":{"ip_addresses":["10.0.0.5/24","fd00::5/64"],` + mac + `,"gateway_ips":["10.0.0.1","fd00::1"],"ipv6_lla_gateway_ip":"fe80::858:aff:fe00:1","tunnel_id":7,"role":"primary"}}`
	if _, err := ParsePodNetworks(ok); err != nil {
		t.Errorf("valid annotation: %v", err)
	}
}

// TestNetConfUnsupportedTopology: a NetConf whose topology is none of
// layer2, layer3 and localnet (in the NetConf's lowercase spelling) is an
// error naming the field, never a Layer2 network.
func TestNetConfUnsupportedTopology(t *testing.T) {
	for _, topo := range []string{"layer4", "Layer2", "LAYER3", " layer2", "layer2\u0000"} {
		conf := `{"cniVersion":"1.1.0","name":"ns1_blue","type":"ovn-k8s-cni-overlay","topology":"` + strings.ReplaceAll(topo, "\u0000", `\u0000`) +
			`","netAttachDefName":"ns1/blue","subnets":"10.0.0.0/24"}`
		c, err := ParseNetConf([]byte(conf))
		if !errors.Is(err, ErrInvalidNetConf) || !strings.Contains(err.Error(), "topology") {
			t.Errorf("topology %q: %v, %+v", topo, err, c)
		}
	}
}

// TestPodRoutesLayer3Secondary: a Layer3 secondary pod routes the
// network's subnets via its node subnet's gateway, without a gateway; a
// Layer2 secondary gets neither.
func TestPodRoutesLayer3Secondary(t *testing.T) {
	n := &Network{Name: "ns1_red", Topology: TopologyLayer3, Role: RoleSecondary,
		Subnets: []Subnet{{CIDR: mustPrefix("10.200.0.0/16"), HostPrefix: 24}, {CIDR: mustPrefix("fd10::/48"), HostPrefix: 64}}}
	gws, routes, err := PodRoutes(PodRoutesInput{Network: n, Role: PodRoleSecondary,
		HostSubnets: []netipPrefix{mustPrefix("10.200.3.0/24"), mustPrefix("fd10:0:0:3::/64")}})
	want := []PodRoute{{Dest: mustPrefix("10.200.0.0/16"), NextHop: mustPrefix("10.200.3.1/32").Addr()},
		{Dest: mustPrefix("fd10::/48"), NextHop: mustPrefix("fd10:0:0:3::1/128").Addr()}}
	if err != nil || len(gws) != 0 || !slices.Equal(routes, want) {
		t.Errorf("Layer3 secondary: gateways %v, routes %v, %v; want routes %v", gws, routes, err, want)
	}
	n.Topology, n.Subnets = TopologyLayer2, n.Subnets[:1]
	if gws, routes, err := PodRoutes(PodRoutesInput{Network: n, Role: PodRoleSecondary}); err != nil || gws != nil || routes != nil {
		t.Errorf("Layer2 secondary: %v %v %v", gws, routes, err)
	}
}

// TestMarshalPodNetworksCheckOrder: Marshal makes the reference's checks
// (a single-stack network's one gateway, no default route) before its own
// MAC check, and across networks in key order: the same input always gives
// the same error.
func TestMarshalPodNetworksCheckOrder(t *testing.T) {
	ip := mustPrefix("10.0.0.5/24")
	gw1, gw2 := mustPrefix("10.0.0.1/32").Addr(), mustPrefix("10.0.0.2/32").Addr()
	for want, p := range map[string]PodNetworks{
		"gateway_ips":         {"ns/a": {IPs: []netipPrefix{ip}, Gateways: []netip.Addr{gw1, gw2}}},
		"routes":              {"ns/a": {IPs: []netipPrefix{ip}, Routes: []PodRoute{{Dest: mustPrefix("0.0.0.0/0"), NextHop: gw1}}}},
		`"ns/a": mac_address`: {"ns/b": {IPs: []netipPrefix{ip}}, "ns/a": {IPs: []netipPrefix{ip}}},
	} {
		for range 20 {
			if _, err := p.Marshal(); !errors.Is(err, ErrPodNetworks) || !strings.Contains(err.Error(), want) {
				t.Fatalf("Marshal: %v, want an error naming %s", err, want)
			}
		}
	}
}
