package policy_test

import (
	"fmt"
	"net/netip"
	"testing"

	"github.com/udnkit/udnkit/internal/ovntest"
	"github.com/udnkit/udnkit/ipam"
	"github.com/udnkit/udnkit/netconf/udn"
	"github.com/udnkit/udnkit/topology"
	"github.com/udnkit/udnkit/topology/policy"
)

// benchInput is 100 namespaces of 100 pods on one primary Layer3 CUDN
// over 10 nodes of one zone (every port local), 10 policies per
// namespace: pod selectors by app, a namespace selector by team every
// third policy, an ipBlock with except every fifth, numbered ports.
func benchInput() policy.Input {
	network := &udn.Network{Name: "cluster_udn_tenants", ID: 1, Topology: udn.TopologyLayer3, Role: udn.RolePrimary,
		Subnets:     []udn.Subnet{{CIDR: netip.MustParsePrefix("10.128.0.0/14"), HostPrefix: 20}},
		JoinSubnets: ipam.DefaultJoinSubnets()[:1], TransitSubnets: ipam.DefaultTransitSubnets()[:1]}
	nodes := ovntest.Nodes(10, "zone1")
	in := policy.Input{Nodes: nodes, Zone: "zone1"}
	hs := map[string][]netip.Prefix{}
	for i, n := range nodes {
		hs[n.Name] = []netip.Prefix{netip.PrefixFrom(netip.AddrFrom4([4]byte{10, 128, byte(16 * i), 0}), 20)}
	}
	var namespaces []string
	for ns := range 100 {
		name := fmt.Sprintf("tenant%d", ns)
		namespaces = append(namespaces, name)
		in.Namespaces = append(in.Namespaces, policy.Namespace{Name: name, Labels: policy.Labels{"team": fmt.Sprintf("t%d", ns%10)}})
		for i := range 100 {
			node := (ns*100 + i) % 10
			ip := netip.AddrFrom4([4]byte{10, 128, byte(16*node + ns/16), byte(16*(ns%16) + i/10 + 2)})
			in.Pods = append(in.Pods, policy.Pod{Namespace: name, Name: fmt.Sprintf("pod%d", i), Node: nodes[node].Name,
				Labels:   policy.Labels{"app": fmt.Sprintf("app%d", i%10)},
				Networks: []policy.Attachment{{Network: network.Name, Port: fmt.Sprintf("cluster.udn.tenants_%s_pod%d", name, i), IPs: []netip.Addr{ip}}}})
		}
		for k := range 10 {
			p := policy.Policy{Namespace: name, Name: fmt.Sprintf("np%d", k), PodSelector: *sel("app", fmt.Sprintf("app%d", k)),
				Ingress: []policy.Rule{{Peers: []policy.Peer{{PodSelector: sel("app", fmt.Sprintf("app%d", (k+1)%10))}}, Ports: []policy.Port{{Number: 80}, {Number: 443}}}}}
			if k%3 == 0 {
				p.Ingress = append(p.Ingress, policy.Rule{Peers: []policy.Peer{{NamespaceSelector: sel("team", fmt.Sprintf("t%d", k)), PodSelector: sel("app", "app0")}}})
			}
			if k%5 == 0 {
				p.Egress = []policy.Rule{{Peers: []policy.Peer{{IPBlock: &policy.IPBlock{CIDR: netip.MustParsePrefix("172.16.0.0/12"),
					Except: []netip.Prefix{netip.MustParsePrefix("172.16.5.0/24")}}}}}}
			}
			in.Policies = append(in.Policies, p)
		}
	}
	in.Networks = []policy.Network{{Network: network, Namespaces: namespaces, HostSubnets: hs}}
	return in
}

// BenchmarkPlan plans 1,000 policies over 10,000 pods in 100 namespaces.
func BenchmarkPlan(b *testing.B) {
	in := benchInput()
	b.ReportAllocs()
	var rows int
	for b.Loop() {
		s, err := policy.Plan(in)
		if err != nil {
			b.Fatal(err)
		}
		rows = s.Len()
	}
	b.ReportMetric(float64(rows), "rows")
}

// BenchmarkPodRelabel relabels one pod of that world back and forth: the
// changes touch only the address sets and port groups that select it.
func BenchmarkPodRelabel(b *testing.B) {
	in := benchInput()
	p, err := policy.New(in)
	if err != nil {
		b.Fatal(err)
	}
	pods := [2]policy.Pod{in.Pods[1], in.Pods[1]}
	pods[1].Labels = policy.Labels{"app": "app5"}
	b.ReportAllocs()
	var changes, i int
	for b.Loop() {
		ch, err := p.SetPod(pods[(i+1)%2])
		if err != nil {
			b.Fatal(err)
		}
		changes = len(ch)
		i++
	}
	b.ReportMetric(float64(changes), "changes")
}

// BenchmarkPodRelabelPolicies relabels the same pod (of tenant0) with
// 1,000 and 4,960 policies in the cluster: the 3,960 added (40 in each
// other namespace), selecting nothing of tenant0, leave the time alone.
func BenchmarkPodRelabelPolicies(b *testing.B) {
	for _, extra := range []int{0, 40} {
		in := benchInput()
		for ns := 1; ns < 100; ns++ {
			for k := range extra {
				in.Policies = append(in.Policies, policy.Policy{Namespace: fmt.Sprintf("tenant%d", ns), Name: fmt.Sprintf("extra%d", k),
					PodSelector: *sel("app", fmt.Sprintf("other%d", k)), Ingress: []policy.Rule{{Peers: []policy.Peer{{PodSelector: sel("app", "none")}}}}})
			}
		}
		b.Run(fmt.Sprintf("policies=%d", len(in.Policies)), func(b *testing.B) {
			p, err := policy.New(in)
			if err != nil {
				b.Fatal(err)
			}
			pods := [2]policy.Pod{in.Pods[1], in.Pods[1]}
			pods[1].Labels = policy.Labels{"app": "app5"}
			b.ReportAllocs()
			var changes, i int
			for b.Loop() {
				ch, err := p.SetPod(pods[(i+1)%2])
				if err != nil {
					b.Fatal(err)
				}
				changes = len(ch)
				i++
			}
			b.ReportMetric(float64(changes), "changes")
		})
	}
}

// BenchmarkNamespaceLogging turns one namespace's acl-logging on and off
// among 100 namespaces: its 10 policies' rule ACLs and its default-deny
// drops change, nothing else.
func BenchmarkNamespaceLogging(b *testing.B) {
	in := benchInput()
	in.Namespaces[1].Logging = policy.ACLLogging{Deny: topology.SeverityInfo} // the meter stays
	p, err := policy.New(in)
	if err != nil {
		b.Fatal(err)
	}
	ns := [2]policy.Namespace{in.Namespaces[0], in.Namespaces[0]}
	ns[1].Logging = policy.ACLLogging{Deny: topology.SeverityAlert, Allow: topology.SeverityNotice}
	b.ReportAllocs()
	var changes, i int
	for b.Loop() {
		ch, err := p.SetNamespace(ns[(i+1)%2])
		if err != nil {
			b.Fatal(err)
		}
		changes = len(ch)
		i++
	}
	b.ReportMetric(float64(changes), "changes")
}
