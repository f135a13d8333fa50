package policy_test

import (
	"errors"
	"net/netip"
	"testing"

	"github.com/udnkit/udnkit/topology"
	"github.com/udnkit/udnkit/topology/policy"
)

// fuzzReader hands out values from the fuzzer's bytes (zeros when they
// run out).
type fuzzReader struct{ b []byte }

func (r *fuzzReader) byte() byte {
	if len(r.b) == 0 {
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

func (r *fuzzReader) pick(v ...string) string { return v[int(r.byte())%len(v)] }

func (r *fuzzReader) selector() *policy.Selector {
	s := &policy.Selector{}
	for range r.byte() % 3 {
		if s.MatchLabels == nil {
			s.MatchLabels = policy.Labels{}
		}
		s.MatchLabels[r.pick("app", "team", "x/y", "", "-bad")] = r.pick("web", "db", "", "a", "bad value")
	}
	for range r.byte() % 2 {
		req := policy.Requirement{Key: r.pick("app", "team", ""), Operator: policy.Operator(r.pick("In", "NotIn", "Exists", "DoesNotExist", "Near"))}
		for range r.byte() % 3 {
			req.Values = append(req.Values, r.pick("web", "db", "a", "b"))
		}
		s.MatchExpressions = append(s.MatchExpressions, req)
	}
	return s
}

func (r *fuzzReader) prefix() netip.Prefix {
	if r.byte()%2 == 0 {
		return netip.PrefixFrom(netip.AddrFrom4([4]byte{r.byte(), r.byte(), r.byte(), r.byte()}), int(r.byte()%33))
	}
	var a [16]byte
	a[0], a[1], a[15] = 0xfd, r.byte(), r.byte()
	return netip.PrefixFrom(netip.AddrFrom16(a), int(r.byte()%129))
}

func (r *fuzzReader) rules() []policy.Rule {
	var out []policy.Rule
	for range r.byte() % 3 {
		var rule policy.Rule
		for range r.byte() % 3 {
			var p policy.Peer
			k := r.byte()
			if k&1 != 0 {
				p.PodSelector = r.selector()
			}
			if k&2 != 0 {
				p.NamespaceSelector = r.selector()
			}
			if k&4 != 0 || k&3 == 0 {
				b := &policy.IPBlock{CIDR: r.prefix()}
				for range r.byte() % 3 {
					b.Except = append(b.Except, r.prefix())
				}
				p.IPBlock = b
			}
			rule.Peers = append(rule.Peers, p)
		}
		for range r.byte() % 3 {
			pt := policy.Port{Protocol: policy.Protocol(r.byte() % 4)}
			switch r.byte() % 4 {
			case 0:
				pt.Number = int32(r.byte()) * int32(r.byte()+1)
			case 1:
				pt.Number = int32(r.byte()) + 1
				pt.EndPort = pt.Number + int32(r.byte()) - 10
			case 2:
				pt.Name = r.pick("http", "postgres", "Bad_Name", "")
			}
			rule.Ports = append(rule.Ports, pt)
		}
		out = append(out, rule)
	}
	return out
}

func (r *fuzzReader) policy(name string) policy.Policy {
	p := policy.Policy{Namespace: r.pick("ns1", "ns2", "ns3"), Name: name, PodSelector: *r.selector(), Ingress: r.rules(), Egress: r.rules()}
	for range r.byte() % 3 {
		p.PolicyTypes = append(p.PolicyTypes, policy.PolicyType(r.byte()%3))
	}
	return p
}

// FuzzPlan: a policy that validates always plans (New and SetPolicy
// succeed, the plan is a valid State), and one that does not is refused
// with ErrInvalid by both.
func FuzzPlan(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16})
	f.Add([]byte("network policies on user-defined networks"))
	f.Add([]byte{2, 1, 1, 1, 0, 0, 1, 2, 2, 1, 0, 3, 1, 1, 80, 0, 2, 1, 2, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		r := &fuzzReader{b: data}
		pols := []policy.Policy{r.policy("a"), r.policy("b")}
		in := fixture()
		in.Pods[0].Ports = []policy.ContainerPort{{Name: "http", Number: 8080}}
		in.Multicast, in.AllowICMP = r.byte()%2 == 0, r.byte()%2 == 0
		in.Namespaces[0].Multicast = true
		sev := []topology.ACLSeverity{"", topology.SeverityAlert, topology.SeverityNotice}
		in.Namespaces[0].Logging = policy.ACLLogging{Deny: sev[r.byte()%3], Allow: sev[r.byte()%3]}
		if r.byte()%2 == 0 {
			in.DefaultNetwork = &policy.DefaultNetwork{ManagementIPs: []netip.Addr{netip.MustParseAddr("10.244.1.2")}}
			in.Pods[0].DefaultPort, in.Pods[0].OpenPorts = "ns1_web", []policy.OpenPort{{Protocol: "tcp", Port: int32(r.byte())}}
		}
		valid := true
		for i := range pols {
			if len(policy.Validate(&pols[i])) > 0 {
				valid = false
			}
		}
		in.Policies = pols
		p, err := policy.New(in)
		if !valid {
			if !errors.Is(err, policy.ErrInvalid) {
				t.Fatalf("an invalid policy planned (%v): %+v", err, pols)
			}
			return
		}
		if err != nil {
			t.Fatalf("a valid policy did not plan: %v\n%+v", err, pols)
		}
		s, err := p.State()
		if err != nil {
			t.Fatal(err)
		}
		// Incrementally: removing and re-adding the policies ends where the
		// full plan is.
		cur := s
		for _, pol := range pols {
			ch, err := p.DeletePolicy(pol.Namespace, pol.Name)
			if err != nil {
				t.Fatal(err)
			}
			if cur, err = topology.Apply(cur, ch); err != nil {
				t.Fatal(err)
			}
		}
		for _, pol := range pols {
			ch, err := p.SetPolicy(pol)
			if err != nil {
				t.Fatal(err)
			}
			if cur, err = topology.Apply(cur, ch); err != nil {
				t.Fatal(err)
			}
		}
		if !cur.Equal(s) {
			t.Fatalf("delete and re-add differs from the plan:\n%s", topology.Diff(cur, s))
		}
	})
}

// FuzzParseACLLogging: the acl-logging annotation never panics; what it
// returns is always valid (a bad key is off), a namespace with it plans,
// and an error wraps ErrInvalid and is bounded.
func FuzzParseACLLogging(f *testing.F) {
	for _, s := range []string{"", "{}", `{"deny":"alert","allow":"notice"}`, `{"deny":"loud"}`, `{"deny":`, `[]`, `{"allow":7}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		l, err := policy.ParseACLLogging(raw)
		if !l.Deny.Valid() || !l.Allow.Valid() {
			t.Fatalf("%q: invalid severities %+v", raw, l)
		}
		if err != nil && (!errors.Is(err, policy.ErrInvalid) || len(err.Error()) > 2000) {
			t.Fatalf("%q: error %v", raw, err)
		}
		in := fixture()
		in.Namespaces[0].Logging = l
		if _, err := policy.Plan(in); err != nil {
			t.Fatalf("%q: %+v does not plan: %v", raw, l, err)
		}
	})
}

// FuzzParseOpenPorts: the open-default-ports annotation never panics; what
// parses plans on a pod's default port; an error wraps ErrInvalid.
func FuzzParseOpenPorts(f *testing.F) {
	for _, s := range []string{`[{"protocol":"tcp","port":80},{"protocol":"icmp"}]`, `[{"protocol":"sctp","port":65535}]`, `[]`, `{}`,
		`[{"protocol":"icmp","port":0}]`, `[{"protocol":"udp","port":1e3}]`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		ports, err := policy.ParseOpenPorts(raw)
		if err != nil {
			if !errors.Is(err, policy.ErrInvalid) || len(err.Error()) > 2000 {
				t.Fatalf("%q: error %v", raw, err)
			}
			return
		}
		in := fixture()
		in.DefaultNetwork = &policy.DefaultNetwork{}
		in.Pods[0].DefaultPort, in.Pods[0].OpenPorts = "ns1_web", ports
		if _, err := policy.Plan(in); err != nil {
			t.Fatalf("%q: %v does not plan: %v", raw, ports, err)
		}
	})
}
