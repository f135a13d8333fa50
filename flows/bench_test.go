package flows

import (
	"fmt"
	"net/netip"
	"testing"
)

// scale returns a node with n networks of ips cluster IPs each.
func scale(n, ips int) Input {
	in := seedInput()
	in.Networks = nil
	for i := range n {
		nw := Network{ID: i + 1, Name: fmt.Sprintf("ns%d_net", i), Patch: Port{fmt.Sprintf("p%d", i), 10 + i},
			GatewayMAC: mac("02:42:ac:12:00:05"), IPv4: true, IPv6: true}
		for j := range ips {
			k := i*ips + j + 1 // inside the service CIDR 10.96.0.0/16
			nw.ClusterIPs = append(nw.ClusterIPs, netip.AddrFrom4([4]byte{10, 96, byte(k >> 8), byte(k)}))
		}
		in.Networks = append(in.Networks, nw)
	}
	return in
}

// BenchmarkPlan500x100 plans 500 networks with 100 cluster IPs each on one
// node and diffs the plan against the same plan minus one cluster IP.
func BenchmarkPlan500x100(b *testing.B) {
	in := scale(500, 100)
	fewer := scale(500, 100)
	fewer.Networks[7].ClusterIPs = fewer.Networks[7].ClusterIPs[1:]
	observed, err := Plan(fewer)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	var flows, changes int
	for b.Loop() {
		fs, err := Plan(in)
		if err != nil {
			b.Fatal(err)
		}
		flows, changes = len(fs), Diff(observed, fs).Len()
	}
	b.ReportMetric(float64(flows), "flows/op")
	b.ReportMetric(float64(changes), "changes/op")
}
