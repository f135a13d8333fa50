package udn

import "testing"

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
