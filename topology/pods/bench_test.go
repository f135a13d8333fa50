package pods_test

import (
	"fmt"
	"net/netip"
	"testing"

	"github.com/udnkit/udnkit/internal/ovntest"
	"github.com/udnkit/udnkit/ipam"
	"github.com/udnkit/udnkit/netconf"
	"github.com/udnkit/udnkit/topology"
	"github.com/udnkit/udnkit/topology/pods"
)

// BenchmarkAttach100kPods attaches 100,000 pods (200 on each of 500 nodes,
// every node its own zone) to a primary Layer3 network: addresses from the
// node's allocator, the port and annotation planned (PlanPod), and the
// node's ports as one partial State (PlanNode). It reports pods/s; the
// allocations per pod are allocs/op divided by 100,000.
func BenchmarkAttach100kPods(b *testing.B) {
	const nodeCount, perNode = 500, 200
	nodes := make([]topology.Node, nodeCount)
	subnets := map[string][]netip.Prefix{}
	for i := range nodes {
		name := fmt.Sprintf("node%d", i+1)
		nodes[i] = topology.Node{Name: name, ID: ipam.MinNodeID + i, Chassis: "chassis-" + name}
		// 10.128.0.0/16 split into /24s does not hold 500 nodes: /23s of
		// 10.0.0.0/8 do.
		subnets[name] = []netip.Prefix{netip.PrefixFrom(netip.AddrFrom4([4]byte{10, byte(2 + i/128), byte(i % 128 * 2), 0}), 23)}
	}
	network := ovntest.Layer3Network()
	network.Subnets = []netconf.Subnet{{CIDR: netip.MustParsePrefix("10.0.0.0/8"), HostPrefix: 23}}
	svc := []netip.Prefix{netip.MustParsePrefix("10.96.0.0/16")}
	b.ReportAllocs()
	for b.Loop() {
		for i := range nodes {
			nd := &nodes[i]
			alloc, err := ipam.NewPodIPAllocator(subnets[nd.Name], nil)
			if err != nil {
				b.Fatal(err)
			}
			planned := make([]pods.Planned, 0, perNode)
			for j := range perNode {
				ips, err := alloc.Allocate()
				if err != nil {
					b.Fatal(err)
				}
				p, err := pods.PlanPod(pods.Input{Pod: pods.Pod{Namespace: "ns1", Name: fmt.Sprintf("pod-%d-%d", i, j), UID: "uid", Node: nd.Name},
					Attachments: []pods.Attachment{{Network: network, NAD: "ns1/blue", Role: netconf.PodRolePrimary, IPs: ips,
						HostSubnets: subnets[nd.Name]}},
					Nodes: nodes[i : i+1], Zone: nd.Name, ServiceCIDRs: svc})
				if err != nil {
					b.Fatal(err)
				}
				planned = append(planned, p)
			}
			if _, err := pods.PlanNode(nd.Name, []string{network.Name}, planned); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(nodeCount*perNode)*float64(b.N)/b.Elapsed().Seconds(), "pods/s")
}

// BenchmarkPodChanges plans one pod and its change set (pods.Changes):
// what a controller applies when a pod comes, whatever the number of pods
// already there.
func BenchmarkPodChanges(b *testing.B) {
	network := ovntest.Layer3Network()
	nodes := []topology.Node{{Name: "node1", ID: ipam.MinNodeID, Chassis: "chassis-1"}}
	in := pods.Input{Pod: pods.Pod{Namespace: "ns1", Name: "web", UID: "uid", Node: "node1"},
		Attachments: []pods.Attachment{{Network: network, NAD: "ns1/blue", Role: netconf.PodRolePrimary,
			IPs: []netip.Prefix{netip.MustParsePrefix("10.128.1.5/24")}, HostSubnets: []netip.Prefix{netip.MustParsePrefix("10.128.1.0/24")}}},
		Nodes: nodes, Zone: "node1", ServiceCIDRs: []netip.Prefix{netip.MustParsePrefix("10.96.0.0/16")}}
	b.ReportAllocs()
	for b.Loop() {
		p, err := pods.PlanPod(in)
		if err != nil {
			b.Fatal(err)
		}
		ch, err := pods.Changes(pods.Planned{}, p)
		if err != nil || len(ch) != 1 {
			b.Fatal(len(ch), err)
		}
	}
}
