package kernel_test

import (
	"fmt"
	"net/netip"
	"testing"

	"github.com/udnkit/udnkit/netconf/udn"
	"github.com/udnkit/udnkit/vrf"
)

// BenchmarkSyncUnchanged: a Sync that finds the kernel as planned (50
// Layer2 networks, without VRFs: this kernel has none; 200 pod addresses,
// 50 NodePorts): what a periodic resync costs. Needs root.
func BenchmarkSyncUnchanged(b *testing.B) {
	h, ns := freshNetns(b)
	dummy(b, h, "breth0", "172.18.0.3/16", "169.254.0.2/17")
	var nets []vrf.Network
	for i := 1; i <= 50; i++ {
		dummy(b, h, fmt.Sprintf("ovn-k8s-mp%d", i))
		nets = append(nets, vrf.Network{Network: &udn.Network{Name: fmt.Sprintf("ns%d_n", i), ID: i, Topology: udn.TopologyLayer2,
			Role: udn.RolePrimary, Subnets: []udn.Subnet{{CIDR: netip.MustParsePrefix("10.128.0.0/16")}}},
			NodePorts: []vrf.L4Port{{Protocol: vrf.TCP, Port: uint16(30000 + i)}}})
	}
	var pods []netip.Addr
	for i := range 200 {
		pods = append(pods, netip.AddrFrom4([4]byte{10, 244, byte(i / 250), byte(1 + i%250)}))
	}
	s, err := vrf.Plan(vrf.Input{Node: vrf.Node{Name: "n", Bridge: "breth0", Gateways: []netip.Addr{netip.MustParseAddr("172.18.0.1")}},
		Networks: nets, Cluster: vrf.Cluster{ServiceCIDRs: []netip.Prefix{netip.MustParsePrefix("10.96.0.0/16")}},
		Pods: vrf.Pods{DefaultIPs: pods}})
	if err != nil {
		b.Fatal(err)
	}
	s = withoutVRFs(s)
	k := newKernel(b, h, ns, nil)
	if _, _, err := k.Sync(b.Context(), s); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		changes, _, err := k.Sync(b.Context(), s)
		if err != nil || changes.Len() != 0 {
			b.Fatalf("%d changes, %v", changes.Len(), err)
		}
	}
	b.ReportMetric(float64(len(s.Routes)), "routes")
}
