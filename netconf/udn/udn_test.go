package udn

import (
	"net/netip"
	"slices"
	"testing"
)

func TestNetworkPrefix(t *testing.T) {
	for _, tc := range []struct{ name, want string }{
		{"ns1_blue", "ns1_blue_"},
		{"test12_namespace-scoped", "test12_namespace.scoped_"},
		{"cluster_udn_db-network", "cluster_udn_db.network_"},
		{"a/b-c", "a.b.c_"},
		{"", "_"},
	} {
		if got := NetworkPrefix(tc.name); got != tc.want {
			t.Errorf("NetworkPrefix(%q) = %q, want %q", tc.name, got, tc.want)
		}
		n := &Network{Name: tc.name}
		if got := n.Prefix(); got != tc.want {
			t.Errorf("(%q).Prefix() = %q, want %q", tc.name, got, tc.want)
		}
	}
}

func BenchmarkNetworkPrefix(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		_ = NetworkPrefix("cluster_udn_db-network")
	}
}

func TestFamilies(t *testing.T) {
	sub := func(s string) Subnet { return Subnet{CIDR: netip.MustParsePrefix(s)} }
	for _, tc := range []struct {
		name    string
		subnets []Subnet
		want    []bool
	}{
		{"none", nil, nil},
		{"v4", []Subnet{sub("10.0.0.0/16"), sub("10.1.0.0/16")}, []bool{true}},
		{"v6", []Subnet{sub("fd00::/64")}, []bool{false}},
		{"v6 listed first", []Subnet{sub("fd00::/64"), sub("10.0.0.0/16")}, []bool{true, false}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := &Network{Subnets: tc.subnets}
			if got := n.Families(); !slices.Equal(got, tc.want) {
				t.Errorf("Families() = %v, want %v", got, tc.want)
			}
		})
	}
}
