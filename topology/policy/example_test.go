package policy_test

import (
	"fmt"
	"net/netip"

	"github.com/udnkit/udnkit/internal/ovntest"
	"github.com/udnkit/udnkit/topology"
	"github.com/udnkit/udnkit/topology/policy"
)

// A namespace's pods take ingress only from pods labelled app=web (the
// egress deny group exists, empty: no policy of the namespace applies to
// egress); a relabel of the web pod then changes one address set and
// nothing else.
func Example() {
	network := ovntest.Layer2Network() // ns2_red, primary of ns2
	in := policy.Input{
		Networks: []policy.Network{{Network: network, Namespaces: []string{"ns2"}}},
		Nodes:    ovntest.Nodes(1, ""), Zone: "node1",
		Pods: []policy.Pod{
			{Namespace: "ns2", Name: "web", Node: "node1", Labels: policy.Labels{"app": "web"},
				Networks: []policy.Attachment{{Network: "ns2_red", Port: "ns2.red_ns2_web", IPs: []netip.Addr{netip.MustParseAddr("10.128.0.3")}}}},
			{Namespace: "ns2", Name: "db", Node: "node1", Labels: policy.Labels{"app": "db"},
				Networks: []policy.Attachment{{Network: "ns2_red", Port: "ns2.red_ns2_db", IPs: []netip.Addr{netip.MustParseAddr("10.128.0.4")}}}},
		},
		Policies: []policy.Policy{{Namespace: "ns2", Name: "from-web",
			Ingress: []policy.Rule{{Peers: []policy.Peer{{PodSelector: &policy.Selector{MatchLabels: policy.Labels{"app": "web"}}}}}}}},
	}
	p, err := policy.New(in)
	if err != nil {
		panic(err)
	}
	s, _ := p.State()
	for _, o := range s.ObjectsOf(topology.KindACL) {
		if a := o.(topology.ACL); a.Name != "" {
			fmt.Println(a.Name, a.Direction, a.Priority, a.Action)
		}
	}
	web := in.Pods[0]
	web.Labels = policy.Labels{"app": "other"}
	ch, _ := p.SetPod(web)
	for _, c := range ch {
		fmt.Println(c.Op, c.Kind, c.Columns)
	}
	// Output:
	// NP:ns2:from-web:Ingress:0 to-lport 1001 allow-related
	// NP:ns2:Ingress to-lport 1000 drop
	// NP:ns2:Ingress to-lport 1001 allow
	// NP:ns2:Egress from-lport 1000 drop
	// NP:ns2:Egress from-lport 1001 allow
	// update address_set [addresses]
}
