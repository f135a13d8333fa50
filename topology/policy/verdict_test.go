package policy_test

import (
	"net/netip"
	"testing"

	"github.com/udnkit/udnkit/topology/policy"
)

func TestAllows(t *testing.T) {
	in := goldenInput()
	p, err := policy.New(in)
	if err != nil {
		t.Fatal(err)
	}
	pod := func(ns, name string) policy.Endpoint { return policy.Endpoint{Namespace: ns, Name: name} }
	ip := func(s string) policy.Endpoint { return policy.Endpoint{IP: netip.MustParseAddr(s)} }
	for _, tc := range []struct {
		name     string
		from, to policy.Endpoint
		proto    policy.Protocol
		port     int32
		want     bool
	}{
		{"web to db on its named port", pod("ns1", "web"), pod("ns1", "db"), policy.TCP, 5432, false}, // web's egress: only the ipBlock
		{"client (ns3, team b) to db on 5432", pod("ns3", "client"), pod("ns1", "db"), policy.TCP, 5432, true},
		{"client to db on udp 9050", pod("ns3", "client"), pod("ns1", "db"), policy.UDP, 9050, true},
		{"client to db on udp 9200", pod("ns3", "client"), pod("ns1", "db"), policy.UDP, 9200, false},
		{"client to web (team b)", pod("ns3", "client"), pod("ns1", "web"), policy.TCP, 80, true},
		{"far (ns1, not team b) to web", pod("ns1", "far"), pod("ns1", "web"), policy.TCP, 80, false},
		{"web to the ipBlock", pod("ns1", "web"), ip("172.16.1.1"), policy.TCP, 443, true},
		{"web to the except", pod("ns1", "web"), ip("172.16.5.1"), policy.TCP, 443, false},
		{"db to outside: deny-all egress", pod("ns1", "db"), ip("172.16.1.1"), policy.TCP, 443, false},
		{"ns3 has no policy: client to outside", pod("ns3", "client"), ip("8.8.8.8"), policy.UDP, 53, true},
		{"another network: not connected", pod("ns2", "web"), pod("ns3", "client"), policy.TCP, 80, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := p.Allows(tc.from, tc.to, tc.proto, tc.port); got != tc.want {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

// TestAllowsEgress: the destination's ingress policies do not count (its
// zone enforces them), the source's egress ones and the networks' peers do.
func TestAllowsEgress(t *testing.T) {
	p, err := policy.New(goldenInput())
	if err != nil {
		t.Fatal(err)
	}
	pod := func(ns, name string) policy.Endpoint { return policy.Endpoint{Namespace: ns, Name: name} }
	for _, tc := range []struct {
		name          string
		from, to      policy.Endpoint
		proto         policy.Protocol
		port          int32
		want, ingress bool
	}{
		// db's ingress admits udp 9050 only; ns3 has no policy.
		{"client to db on udp 9200: db's ingress refuses", pod("ns3", "client"), pod("ns1", "db"), policy.UDP, 9200, true, false},
		{"web to db: web's egress refuses", pod("ns1", "web"), pod("ns1", "db"), policy.TCP, 5432, false, false},
		{"far to web: deny-all refuses far's egress", pod("ns1", "far"), pod("ns1", "web"), policy.TCP, 80, false, false},
		{"another network: not connected", pod("ns2", "web"), pod("ns3", "client"), policy.TCP, 80, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := p.AllowsEgress(tc.from, tc.to, tc.proto, tc.port); got != tc.want {
				t.Errorf("AllowsEgress: got %v, want %v", got, tc.want)
			}
			if got := p.Allows(tc.from, tc.to, tc.proto, tc.port); got != tc.ingress {
				t.Errorf("Allows: got %v, want %v", got, tc.ingress)
			}
		})
	}
}
