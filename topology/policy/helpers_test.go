package policy_test

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"testing"

	"github.com/udnkit/udnkit/internal/ovntest"
	"github.com/udnkit/udnkit/netconf/udn"
	"github.com/udnkit/udnkit/topology"
	"github.com/udnkit/udnkit/topology/pods"
	"github.com/udnkit/udnkit/topology/policy"
)

// fixture: network ns1_blue (Layer3, 10.128.0.0/16, primary of ns1 and
// ns3), ns2_red (Layer2, overlapping 10.128.0.0/16, primary of ns2), three
// nodes each in its own zone, node1 planned.
func fixture() policy.Input {
	blue, red := ovntest.Layer3Network(), ovntest.Layer2Network()
	nodes := ovntest.Nodes(3, "")
	return policy.Input{
		Networks: []policy.Network{
			{Network: blue, Namespaces: []string{"ns1", "ns3"}, HostSubnets: ovntest.PlanInput(blue, nodes, "node1").HostSubnets},
			{Network: red, Namespaces: []string{"ns2"}},
		},
		Nodes: nodes, Zone: "node1",
		Namespaces: []policy.Namespace{
			{Name: "ns1", Labels: policy.Labels{"kubernetes.io/metadata.name": "ns1", "team": "a"}},
			{Name: "ns2", Labels: policy.Labels{"kubernetes.io/metadata.name": "ns2", "team": "a"}},
			{Name: "ns3", Labels: policy.Labels{"kubernetes.io/metadata.name": "ns3", "team": "b"}},
		},
		Pods: []policy.Pod{
			pod("ns1", "web", "node1", blue, "10.128.1.3", "app", "web"),
			pod("ns1", "db", "node1", blue, "10.128.1.4", "app", "db"),
			pod("ns1", "far", "node2", blue, "10.128.2.3", "app", "web"),
			pod("ns3", "client", "node1", blue, "10.128.1.5", "app", "client"),
			pod("ns2", "web", "node1", red, "10.128.0.3", "app", "web"),
		},
	}
}

func pod(ns, name, node string, n *udn.Network, ip string, labels ...string) policy.Pod {
	l := policy.Labels{}
	for i := 0; i < len(labels); i += 2 {
		l[labels[i]] = labels[i+1]
	}
	nad := strings.Replace(n.Name, "_", "/", 1)
	return policy.Pod{Namespace: ns, Name: name, Node: node, Labels: l,
		Networks: []policy.Attachment{{Network: n.Name, Port: pods.PortName(ns, name, nad), IPs: []netip.Addr{netip.MustParseAddr(ip)}}}}
}

func sel(kv ...string) *policy.Selector {
	s := &policy.Selector{MatchLabels: policy.Labels{}}
	for i := 0; i < len(kv); i += 2 {
		s.MatchLabels[kv[i]] = kv[i+1]
	}
	return s
}

// rows returns the rendered objects of a kind, sorted.
func rows(s topology.State, k topology.Kind) []string {
	var out []string
	for _, o := range s.ObjectsOf(k) {
		out = append(out, fmt.Sprint(o))
	}
	slices.Sort(out)
	return out
}

func acls(t *testing.T, s topology.State) []topology.ACL {
	t.Helper()
	var out []topology.ACL
	for _, o := range s.ObjectsOf(topology.KindACL) {
		out = append(out, o.(topology.ACL))
	}
	return out
}

func portGroup(t *testing.T, s topology.State, name string) topology.PortGroup {
	t.Helper()
	o, ok := s.Get(topology.KindPortGroup, name)
	if !ok {
		t.Fatalf("no port group %s", name)
	}
	return o.(topology.PortGroup)
}

func addressSet(t *testing.T, s topology.State, name string) []string {
	t.Helper()
	o, ok := s.Get(topology.KindAddressSet, name)
	if !ok {
		t.Fatalf("no address set %s", name)
	}
	var out []string
	for _, p := range o.(topology.AddressSet).Addresses {
		out = append(out, p.Addr().String())
	}
	return out
}

func plan(t *testing.T, in policy.Input) topology.State {
	t.Helper()
	s, err := policy.Plan(in)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
