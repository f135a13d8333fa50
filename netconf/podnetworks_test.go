package netconf

import (
	"errors"
	"net"
	"net/netip"
	"reflect"
	"strings"
	"testing"

	"github.com/udnkit/udnkit/ipam"
	"github.com/udnkit/udnkit/netconf/udn"
)

// referenceExample is a pod-networks annotation the reference wrote for a
// pod whose primary network is a Layer3 UDN (REFERENCE c2, OVN-Kubernetes
// issue 5155): byte for byte what PodNetworks.Marshal must produce from the
// routes PodRoutes computes.
const referenceExample = `{"default":{"ip_addresses":["10.43.2.13/24"],"mac_address":"0a:58:0a:2b:02:0d","routes":[{"dest":"10.43.0.0/16","nextHop":"10.43.2.1"},{"dest":"100.64.0.0/16","nextHop":"10.43.2.1"}],"ip_address":"10.43.2.13/24","role":"infrastructure-locked"},"udn-test/l3-primary":{"ip_addresses":["10.20.1.5/24"],"mac_address":"0a:58:0a:14:01:05","gateway_ips":["10.20.1.1"],"routes":[{"dest":"10.20.0.0/16","nextHop":"10.20.1.1"},{"dest":"10.96.0.0/16","nextHop":"10.20.1.1"},{"dest":"100.65.0.0/16","nextHop":"10.20.1.1"}],"ip_address":"10.20.1.5/24","gateway_ip":"10.20.1.1","role":"primary"}}`

func TestPodNetworksReferenceExample(t *testing.T) {
	svc := []netip.Prefix{netip.MustParsePrefix("10.96.0.0/16")}
	defGW, defRoutes, err := PodRoutes(PodRoutesInput{Role: PodRoleInfrastructureLocked,
		ClusterSubnets: []netip.Prefix{netip.MustParsePrefix("10.43.0.0/16")}, HostSubnets: []netip.Prefix{netip.MustParsePrefix("10.43.2.0/24")},
		ServiceCIDRs: svc})
	if err != nil {
		t.Fatal(err)
	}
	l3 := &udn.Network{Name: "udn-test_l3-primary", ID: 1, Topology: udn.TopologyLayer3, Role: udn.RolePrimary,
		Subnets:     []udn.Subnet{{CIDR: netip.MustParsePrefix("10.20.0.0/16"), HostPrefix: 24}},
		JoinSubnets: ipam.DefaultJoinSubnets()[:1]}
	udnGW, udnRoutes, err := PodRoutes(PodRoutesInput{Network: l3, Role: PodRolePrimary,
		HostSubnets: []netip.Prefix{netip.MustParsePrefix("10.20.1.0/24")}, ServiceCIDRs: svc})
	if err != nil {
		t.Fatal(err)
	}
	pn := PodNetworks{
		DefaultNetworkKey: {IPs: []netip.Prefix{netip.MustParsePrefix("10.43.2.13/24")},
			MAC: ipam.MACFromIP(netip.MustParseAddr("10.43.2.13")), Gateways: defGW, Routes: defRoutes, Role: PodRoleInfrastructureLocked},
		"udn-test/l3-primary": {IPs: []netip.Prefix{netip.MustParsePrefix("10.20.1.5/24")},
			MAC: ipam.MACFromIP(netip.MustParseAddr("10.20.1.5")), Gateways: udnGW, Routes: udnRoutes, Role: PodRolePrimary},
	}
	got, err := pn.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if got != referenceExample {
		t.Errorf("annotation\n%s\nwant\n%s", got, referenceExample)
	}
	back, err := ParsePodNetworks(referenceExample)
	if err != nil || !reflect.DeepEqual(back, pn) {
		t.Errorf("parse: %v\n%+v", err, back)
	}
}

// TestPodRoutesSeedTable checks seed 000's three-network routing: the
// primary UDN holds the gateway, the service CIDR, its subnet and join
// subnet; the default network keeps its cluster subnet and join subnet; a
// secondary network gets no routes.
func TestPodRoutesSeedTable(t *testing.T) {
	svc := []netip.Prefix{netip.MustParsePrefix("10.96.0.0/16")}
	l2 := &udn.Network{Name: "ns_blue", Topology: udn.TopologyLayer2, Role: udn.RolePrimary,
		Subnets: []udn.Subnet{{CIDR: netip.MustParsePrefix("10.0.0.0/24")}}, JoinSubnets: ipam.DefaultJoinSubnets()[:1]}
	gw, routes, err := PodRoutes(PodRoutesInput{Network: l2, Role: PodRolePrimary, ServiceCIDRs: svc})
	if err != nil || len(gw) != 1 || gw[0] != netip.MustParseAddr("10.0.0.1") ||
		len(routes) != 2 || routes[0].Dest != svc[0] || routes[1].Dest != netip.MustParsePrefix("100.65.0.0/16") {
		t.Errorf("Layer2 primary: %v %v %v", gw, routes, err)
	}
	gw, routes, _ = PodRoutes(PodRoutesInput{Role: PodRolePrimary, ClusterSubnets: []netip.Prefix{netip.MustParsePrefix("10.244.0.0/16")},
		HostSubnets: []netip.Prefix{netip.MustParsePrefix("10.244.1.0/24")}, ServiceCIDRs: svc})
	var dests []string
	for _, r := range routes {
		dests = append(dests, r.Dest.String())
	}
	if len(gw) != 1 || strings.Join(dests, " ") != "10.244.0.0/16 10.96.0.0/16 169.254.0.5/32 100.64.0.0/16" {
		t.Errorf("default network as primary: %v %v", gw, dests)
	}
	sec := &udn.Network{Name: "ns_green", Topology: udn.TopologyLayer2, Role: udn.RoleSecondary,
		Subnets: []udn.Subnet{{CIDR: netip.MustParsePrefix("10.1.0.0/24")}}}
	if gw, routes, _ := PodRoutes(PodRoutesInput{Network: sec, Role: PodRoleSecondary}); gw != nil || routes != nil {
		t.Errorf("secondary: %v %v", gw, routes)
	}
}

func TestParsePodNetworksRefuses(t *testing.T) {
	for name, s := range map[string]string{
		"not json":             `{`,
		"bad MAC":              `{"default":{"ip_addresses":["10.0.0.5/24"],"mac_address":"zz"}}`,
		"bad IP":               `{"default":{"ip_addresses":["10.0.0.500/24"],"mac_address":"0a:58:0a:00:00:05"}}`,
		"ip_address conflicts": `{"default":{"ip_addresses":["10.0.0.5/24"],"ip_address":"10.0.0.6/24","mac_address":"0a:58:0a:00:00:05"}}`,
		"gateway conflicts":    `{"default":{"ip_addresses":["10.0.0.5/24"],"gateway_ips":["10.0.0.1"],"gateway_ip":"10.0.0.2","mac_address":"0a:58:0a:00:00:05"}}`,
		"default route":        `{"default":{"ip_addresses":["10.0.0.5/24"],"mac_address":"0a:58:0a:00:00:05","routes":[{"dest":"0.0.0.0/0","nextHop":"10.0.0.1"}]}}`,
		"mixed families":       `{"default":{"ip_addresses":["10.0.0.5/24"],"mac_address":"0a:58:0a:00:00:05","routes":[{"dest":"10.1.0.0/16","nextHop":"fd00::1"}]}}`,
		"LLA not link-local":   `{"default":{"ip_addresses":["fd00::5/64"],"mac_address":"0a:58:0a:00:00:05","ipv6_lla_gateway_ip":"fd00::1"}}`,
		"unknown role":         `{"default":{"ip_addresses":["10.0.0.5/24"],"mac_address":"0a:58:0a:00:00:05","role":"boss"}}`,
	} {
		if _, err := ParsePodNetworks(s); !errors.Is(err, ErrPodNetworks) {
			t.Errorf("%s: %v", name, err)
		}
	}
	// The deprecated single fields alone are read.
	pn, err := ParsePodNetworks(`{"default":{"ip_address":"10.0.0.5/24","gateway_ip":"10.0.0.1","mac_address":"0a:58:0a:00:00:05"}}`)
	if err != nil || len(pn["default"].IPs) != 1 || len(pn["default"].Gateways) != 1 {
		t.Errorf("deprecated fields: %+v %v", pn, err)
	}
	mac, _ := net.ParseMAC("0a:58:0a:00:00:05")
	if _, err := (PodNetworks{"x": {IPs: []netip.Prefix{netip.MustParsePrefix("10.0.0.5/24")}, MAC: mac,
		Routes: []PodRoute{{Dest: netip.MustParsePrefix("0.0.0.0/0")}}}}).Marshal(); !errors.Is(err, ErrPodNetworks) {
		t.Errorf("marshal of a default route: %v", err)
	}
}

func FuzzParsePodNetworks(f *testing.F) {
	f.Add(referenceExample)
	f.Add(`{"default":{"ip_address":"10.0.0.5/24","mac_address":"0a:58:0a:00:00:05"}}`)
	f.Fuzz(func(t *testing.T, s string) {
		pn, err := ParsePodNetworks(s)
		if err != nil {
			return
		}
		// What parses marshals, and parses back to the same.
		m, err := pn.Marshal()
		if err != nil {
			return // e.g. two gateways on one address: refused on the way out
		}
		back, err := ParsePodNetworks(m)
		if err != nil || !reflect.DeepEqual(back, pn) {
			t.Fatalf("round trip of %q: %v", s, err)
		}
	})
}
