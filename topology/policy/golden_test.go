package policy_test

import (
	"net/netip"
	"testing"

	"github.com/udnkit/udnkit/internal/golden"
	"github.com/udnkit/udnkit/topology/policy"
)

// goldenInput is the fixture with a policy of each kind of peer and port.
func goldenInput() policy.Input {
	in := fixture()
	in.Pods[1].Ports = []policy.ContainerPort{{Name: "postgres", Number: 5432}}
	in.Policies = []policy.Policy{
		{Namespace: "ns1", Name: "deny-all", PolicyTypes: []policy.PolicyType{policy.Ingress, policy.Egress}},
		{Namespace: "ns1", Name: "db", PodSelector: *sel("app", "db"), Ingress: []policy.Rule{
			{Peers: []policy.Peer{{PodSelector: sel("app", "web")}}, Ports: []policy.Port{{Name: "postgres"}}},
			{Peers: []policy.Peer{{NamespaceSelector: sel("team", "b"), PodSelector: sel("app", "client")}}, Ports: []policy.Port{{Number: 5432}, {Protocol: policy.UDP, Number: 9000, EndPort: 9100}}},
		}},
		{Namespace: "ns1", Name: "web", PodSelector: *sel("app", "web"),
			Ingress: []policy.Rule{{Peers: []policy.Peer{{NamespaceSelector: sel("team", "b")}}}},
			Egress: []policy.Rule{{Peers: []policy.Peer{{IPBlock: &policy.IPBlock{CIDR: netip.MustParsePrefix("172.16.0.0/12"),
				Except: []netip.Prefix{netip.MustParsePrefix("172.16.5.0/24")}}}}}}},
		{Namespace: "ns2", Name: "allow-same-ns", Ingress: []policy.Rule{{Peers: []policy.Peer{{PodSelector: &policy.Selector{}}}}}},
	}
	return in
}

// TestGoldenPlan: the rows of goldenInput, rendered (go test -update
// rewrites testdata/plan.golden).
func TestGoldenPlan(t *testing.T) {
	s := plan(t, goldenInput())
	golden.Check(t, "plan.golden", s.String())
	// Deterministic: a second plan renders the same.
	if again := plan(t, goldenInput()); again.String() != s.String() {
		t.Error("two plans of one input render differently")
	}
}
