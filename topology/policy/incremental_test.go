package policy_test

import (
	"fmt"
	"math/rand/v2"
	"net/netip"
	"slices"
	"testing"

	"github.com/udnkit/udnkit/topology"
	"github.com/udnkit/udnkit/topology/policy"
)

// randomWorld generates pods, namespaces and policies from a few labels,
// so that selectors often overlap.
type randomWorld struct {
	r  *rand.Rand
	in policy.Input
}

var (
	rNamespaces = []string{"ns1", "ns2", "ns3"}
	rApps       = []string{"web", "db", "cache"}
	rTeams      = []string{"a", "b"}
)

func (w *randomWorld) labels(key string, vals []string) policy.Labels {
	if w.r.IntN(4) == 0 {
		return policy.Labels{}
	}
	return policy.Labels{key: vals[w.r.IntN(len(vals))]}
}

func (w *randomWorld) pod(ns, name string) policy.Pod {
	nets := map[string]string{"ns1": blue, "ns2": "ns2_red", "ns3": blue}
	network := nets[ns]
	nodes := []string{"node1", "node2"}
	ip := netip.AddrFrom4([4]byte{10, 128, byte(1 + w.r.IntN(2)), byte(3 + w.r.IntN(200))})
	p := pod(ns, name, nodes[w.r.IntN(2)], w.in.Networks[slices.IndexFunc(w.in.Networks, func(n policy.Network) bool { return n.Network.Name == network })].Network,
		ip.String())
	p.Labels = w.labels("app", rApps)
	if w.r.IntN(2) == 0 {
		p.Ports = []policy.ContainerPort{{Name: "http", Number: int32(8000 + w.r.IntN(3))}}
	}
	if w.r.IntN(3) > 0 {
		p.DefaultPort = ns + "_" + name
		switch w.r.IntN(3) {
		case 0:
			p.OpenPorts = []policy.OpenPort{{Protocol: "tcp", Port: int32(80 + w.r.IntN(2))}, {Protocol: "icmp"}}
		case 1:
			p.OpenPorts = []policy.OpenPort{{Protocol: "udp", Port: 53}}
		}
	}
	return p
}

// logging returns a random namespace logging.
func (w *randomWorld) logging() policy.ACLLogging {
	sev := []topology.ACLSeverity{"", "", topology.SeverityAlert, topology.SeverityNotice, topology.SeverityDebug}
	return policy.ACLLogging{Deny: sev[w.r.IntN(len(sev))], Allow: sev[w.r.IntN(len(sev))]}
}

func (w *randomWorld) selector(key string, vals []string) *policy.Selector {
	switch w.r.IntN(4) {
	case 0:
		return &policy.Selector{}
	case 1:
		return &policy.Selector{MatchExpressions: []policy.Requirement{{Key: key, Operator: policy.OpIn, Values: []string{vals[w.r.IntN(len(vals))], vals[w.r.IntN(len(vals))]}}}}
	}
	return &policy.Selector{MatchLabels: w.labels(key, vals)}
}

func (w *randomWorld) rules() []policy.Rule {
	var rules []policy.Rule
	for range w.r.IntN(3) {
		var r policy.Rule
		for range w.r.IntN(3) {
			switch w.r.IntN(4) {
			case 0:
				r.Peers = append(r.Peers, policy.Peer{PodSelector: w.selector("app", rApps)})
			case 1:
				r.Peers = append(r.Peers, policy.Peer{NamespaceSelector: w.selector("team", rTeams)})
			case 2:
				r.Peers = append(r.Peers, policy.Peer{NamespaceSelector: w.selector("team", rTeams), PodSelector: w.selector("app", rApps)})
			default:
				r.Peers = append(r.Peers, policy.Peer{IPBlock: &policy.IPBlock{CIDR: netip.MustParsePrefix("10.0.0.0/8"),
					Except: []netip.Prefix{netip.MustParsePrefix("10.128.1.0/24")}}})
			}
		}
		switch w.r.IntN(3) {
		case 0:
			r.Ports = []policy.Port{{Name: "http"}}
		case 1:
			r.Ports = []policy.Port{{Number: 80}, {Protocol: policy.UDP, Number: 53, EndPort: 60}}
		}
		rules = append(rules, r)
	}
	return rules
}

func (w *randomWorld) policy(ns, name string) policy.Policy {
	p := policy.Policy{Namespace: ns, Name: name, PodSelector: *w.selector("app", rApps), Ingress: w.rules(), Egress: w.rules(),
		Stateless: w.r.IntN(5) == 0}
	switch w.r.IntN(3) {
	case 0:
		p.PolicyTypes = []policy.PolicyType{policy.Egress}
	case 1:
		p.PolicyTypes = []policy.PolicyType{policy.Ingress, policy.Egress}
	}
	return p
}

// TestIncrementalMatchesFullPlan applies random pod, namespace and policy
// changes one at a time: the changes each returns, applied to the state
// before it, give exactly the full plan of the new input, and touch
// nothing when nothing changed.
func TestIncrementalMatchesFullPlan(t *testing.T) {
	for seed := range uint64(10) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			w := &randomWorld{r: rand.New(rand.NewPCG(seed, 7)), in: fixture()}
			w.in.Pods = nil
			if seed%2 == 0 {
				w.in.Connected = [][]string{{blue, "ns2_red"}}
			}
			w.in.AllowICMP = seed%3 == 0
			w.in.Multicast = seed%4 != 3
			if seed%3 != 1 {
				w.in.DefaultNetwork = &policy.DefaultNetwork{ManagementIPs: []netip.Addr{netip.MustParseAddr("10.244.0.2")}}
			}
			p, err := policy.New(w.in)
			if err != nil {
				t.Fatal(err)
			}
			state, err := p.State()
			if err != nil {
				t.Fatal(err)
			}
			for step := range 120 {
				var ch topology.Changes
				var what string
				ns := rNamespaces[w.r.IntN(len(rNamespaces))]
				switch op := w.r.IntN(10); {
				case op < 4:
					pd := w.pod(ns, fmt.Sprintf("pod%d", w.r.IntN(6)))
					what = fmt.Sprintf("set pod %s/%s %v", pd.Namespace, pd.Name, pd.Labels)
					w.in.Pods = slices.DeleteFunc(w.in.Pods, func(q policy.Pod) bool { return q.Namespace == pd.Namespace && q.Name == pd.Name })
					w.in.Pods = append(w.in.Pods, pd)
					ch, err = p.SetPod(pd)
				case op < 5:
					name := fmt.Sprintf("pod%d", w.r.IntN(6))
					what = "delete pod " + ns + "/" + name
					w.in.Pods = slices.DeleteFunc(w.in.Pods, func(q policy.Pod) bool { return q.Namespace == ns && q.Name == name })
					ch, err = p.DeletePod(ns, name)
				case op < 6:
					l := w.labels("team", rTeams)
					what = fmt.Sprintf("namespace %s %v", ns, l)
					i := slices.IndexFunc(w.in.Namespaces, func(n policy.Namespace) bool { return n.Name == ns })
					w.in.Namespaces[i].Labels = l
					w.in.Namespaces[i].Multicast = w.r.IntN(2) == 0
					if w.r.IntN(2) == 0 {
						w.in.Namespaces[i].Logging = w.logging()
						what += fmt.Sprintf(" logging %+v", w.in.Namespaces[i].Logging)
					}
					ch, err = p.SetNamespace(w.in.Namespaces[i])
				case op < 9:
					pol := w.policy(ns, fmt.Sprintf("np%d", w.r.IntN(4)))
					what = "set policy " + ns + "/" + pol.Name
					w.in.Policies = slices.DeleteFunc(w.in.Policies, func(q policy.Policy) bool { return q.Namespace == ns && q.Name == pol.Name })
					w.in.Policies = append(w.in.Policies, pol)
					ch, err = p.SetPolicy(pol)
				default:
					name := fmt.Sprintf("np%d", w.r.IntN(4))
					what = "delete policy " + ns + "/" + name
					w.in.Policies = slices.DeleteFunc(w.in.Policies, func(q policy.Policy) bool { return q.Namespace == ns && q.Name == name })
					ch, err = p.DeletePolicy(ns, name)
				}
				if err != nil {
					t.Fatalf("step %d %s: %v", step, what, err)
				}
				next, err := topology.Apply(state, ch)
				if err != nil {
					t.Fatalf("step %d %s: apply: %v", step, what, err)
				}
				full := plan(t, w.in)
				if !next.Equal(full) {
					t.Fatalf("step %d %s: incremental differs from the full plan:\n%s", step, what, topology.Diff(next, full))
				}
				if own, err := p.State(); err != nil || !own.Equal(full) {
					t.Fatalf("step %d %s: the planner's State differs from the full plan (%v)", step, what, err)
				}
				state = next
			}
		})
	}
}

// TestIncrementalPodRelabel: a relabel touches only the address sets and
// port groups that select the pod, before or after.
func TestIncrementalPodRelabel(t *testing.T) {
	in := fixture()
	in.Policies = []policy.Policy{
		{Namespace: "ns1", Name: "to-web", PodSelector: *sel("app", "web"), Ingress: []policy.Rule{{Peers: []policy.Peer{{PodSelector: sel("app", "client")}}}}},
		{Namespace: "ns1", Name: "to-db", PodSelector: *sel("app", "db"), Ingress: []policy.Rule{{Peers: []policy.Peer{{PodSelector: sel("app", "web")}}}}},
		{Namespace: "ns3", Name: "other", Ingress: []policy.Rule{{Peers: []policy.Peer{{PodSelector: sel("app", "web")}}}}},
	}
	p, err := policy.New(in)
	if err != nil {
		t.Fatal(err)
	}
	web := in.Pods[0]
	web.Labels = policy.Labels{"app": "client"}
	ch, err := p.SetPod(web)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range ch {
		got = append(got, c.String())
	}
	want := []string{
		"update address_set " + policy.AddressSetName(blue, "ns1_LS{ML:{app: client,},}", false) + " [addresses]",
		"update address_set " + policy.AddressSetName(blue, "ns1_LS{ML:{app: web,},}", false) + " [addresses]",
		"update port_group " + policy.PortGroupName(blue, "ns1", "to-web") + " [ports]",
		"update port_group " + policy.DenyPortGroupName(blue, "ns1", policy.Ingress) + " [ports]",
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("changes\n got %q\nwant %q", got, want)
	}
	// The same pod again: nothing.
	if ch, err := p.SetPod(web); err != nil || len(ch) != 0 {
		t.Errorf("no-op relabel: %v (%v)", ch, err)
	}
	// A label no selector reads: nothing.
	web.Labels = policy.Labels{"app": "client", "tier": "frontend"}
	if ch, err := p.SetPod(web); err != nil || len(ch) != 0 {
		t.Errorf("relabel no selector reads: %v (%v)", ch, err)
	}
}
