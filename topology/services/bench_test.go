package services_test

import (
	"fmt"
	"net/netip"
	"testing"

	"github.com/udnkit/udnkit/topology"
	"github.com/udnkit/udnkit/topology/services"
)

// benchService is ClusterIP Service i with endpoints endpoints on node-a
// and node-b, the first of them moved by shift.
func benchService(i, endpoints, shift int) services.Service {
	eps := make([]services.Endpoint, endpoints)
	for j := range eps {
		k := i*endpoints + j + shift
		node := "node-a"
		if j%2 == 1 {
			node = "node-b"
		}
		eps[j] = services.Endpoint{Addresses: []netip.Addr{netip.AddrFrom4([4]byte{10, 128 + byte(k>>16), byte(k >> 8), byte(k)})}, Node: node}
	}
	return services.Service{Namespace: "ns", Name: fmt.Sprintf("svc-%d", i),
		ClusterIPs: []netip.Addr{netip.AddrFrom4([4]byte{10, 96, byte(i >> 8), byte(i)})},
		Ports:      []services.Port{{Name: "http", Protocol: services.ProtocolTCP, Port: 80}},
		Slices: []services.EndpointSlice{{Ports: []services.EndpointPort{{Name: "http", Protocol: services.ProtocolTCP, Port: 8080}},
			Endpoints: eps}}}
}

func benchInput(n, endpoints int) services.Input {
	in := *input(l3())
	in.Network.Subnets[0].CIDR = netip.MustParsePrefix("10.128.0.0/9")
	for i := range n {
		in.Services = append(in.Services, benchService(i, endpoints, 0))
	}
	return in
}

// BenchmarkPlan10kServices plans 10,000 ClusterIP Services of 10 endpoints
// each and diffs the plan against the previous one (the resync of a
// services controller): goal < 1 s.
func BenchmarkPlan10kServices(b *testing.B) {
	in := benchInput(10000, 10)
	prev, err := services.Plan(in)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		s, err := services.Plan(in)
		if err != nil {
			b.Fatal(err)
		}
		if d := topology.Diff(prev, s); len(d) != 0 {
			b.Fatalf("%d changes", len(d))
		}
	}
}

// BenchmarkServiceWith5kEndpoints plans one Service of 5,000 endpoints.
func BenchmarkServiceWith5kEndpoints(b *testing.B) {
	in := benchInput(0, 0)
	svc := benchService(0, 5000, 0)
	b.ReportAllocs()
	for b.Loop() {
		lbs, err := services.PlanService(&in, &svc)
		if err != nil {
			b.Fatal(err)
		}
		if len(lbs[0].VIPs[0].Backends) != 5000 {
			b.Fatal(len(lbs[0].VIPs[0].Backends))
		}
	}
}

// BenchmarkEndpointChange replans one Service whose endpoint moved and
// takes the changes from that Service's previous plan, among 100 and
// 10,000 Services: the time does not depend on their number.
func BenchmarkEndpointChange(b *testing.B) {
	for _, n := range []int{100, 10000} {
		b.Run(fmt.Sprintf("services=%d", n), func(b *testing.B) {
			in := benchInput(n, 10)
			k := n / 2
			prev, err := services.PlanService(&in, &in.Services[k])
			if err != nil {
				b.Fatal(err)
			}
			moved := benchService(k, 10, 1)
			b.ReportAllocs()
			for b.Loop() {
				now, err := services.PlanService(&in, &moved)
				if err != nil {
					b.Fatal(err)
				}
				if d, err := services.Changes(prev, now); err != nil || len(d) != 1 {
					b.Fatalf("%d changes, %v", len(d), err)
				}
			}
		})
	}
}

// BenchmarkNodePortServices plans 1,000 NodePort Services of 10 endpoints
// in a zone of 100 nodes: per-node load balancers for every node.
func BenchmarkNodePortServices(b *testing.B) {
	in := benchInput(1000, 10)
	in.Nodes = nil
	for i := range 100 {
		in.Nodes = append(in.Nodes, topology.Node{Name: fmt.Sprintf("node-%d", i), Zone: "z",
			Addresses: []netip.Prefix{netip.PrefixFrom(netip.AddrFrom4([4]byte{10, 0, byte(i >> 8), byte(i)}), 16)}})
	}
	for i := range in.Services {
		in.Services[i].Ports[0].NodePort = uint16(30000 + i)
	}
	b.ReportAllocs()
	for b.Loop() {
		s, err := services.Plan(in)
		if err != nil {
			b.Fatal(err)
		}
		if s.Len() != 1000*(1+100) { // the cluster one, one per node
			b.Fatal(s.Len())
		}
	}
}
