package policy_test

import (
	"errors"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/udnkit/udnkit/internal/ovntest"
	"github.com/udnkit/udnkit/topology"
	"github.com/udnkit/udnkit/topology/policy"
)

const blue = "ns1_blue"

// aclLines renders the ACLs of one port group as
// "<direction> <priority> <action> <name> | <match> [after-lb]", sorted.
func aclLines(t *testing.T, s topology.State, pg string) []string {
	t.Helper()
	var out []string
	for _, a := range acls(t, s) {
		if a.PortGroup != pg {
			continue
		}
		if a.Tier != policy.Tier {
			t.Errorf("ACL %s: tier %d", a.Match, a.Tier)
		}
		l := string(a.Direction) + " " + strconv.Itoa(a.Priority) + " " + string(a.Action) + " " + a.Name + " | " + a.Match
		if v, ok := a.Options.Get("apply-after-lb"); ok {
			l += " [after-lb=" + v + "]"
		}
		out = append(out, l)
	}
	slices.Sort(out)
	return out
}

func TestPlanFeatures(t *testing.T) {
	pg := policy.PortGroupName(blue, "ns1", "p")
	as := func(key string) string { return "$" + policy.AddressSetName(blue, key, false) }
	in := "outport == @" + pg
	out := "inport == @" + pg
	ipb := func(cidr string, except ...string) *policy.IPBlock {
		b := &policy.IPBlock{CIDR: netip.MustParsePrefix(cidr)}
		for _, e := range except {
			b.Except = append(b.Except, netip.MustParsePrefix(e))
		}
		return b
	}
	for _, tc := range []struct {
		name string
		pol  policy.Policy
		want []string
	}{
		{"default deny: no rules, no ACLs of its own", policy.Policy{}, nil},
		{"empty ingress rule allows everything", policy.Policy{Ingress: []policy.Rule{{}}},
			[]string{"to-lport 1001 allow-related NP:ns1:p:Ingress:0 | ip4 && " + in}},
		{"pod selector", policy.Policy{Ingress: []policy.Rule{{Peers: []policy.Peer{{PodSelector: sel("app", "web")}}}}},
			[]string{"to-lport 1001 allow-related NP:ns1:p:Ingress:0 | ip4.src == {" + as("ns1_LS{ML:{app: web,},}") + "} && " + in}},
		{"namespace selector", policy.Policy{Ingress: []policy.Rule{{Peers: []policy.Peer{{NamespaceSelector: sel("team", "a")}}}}},
			[]string{"to-lport 1001 allow-related NP:ns1:p:Ingress:0 | ip4.src == {" + as("LS{ML:{team: a,},}_LS{}_LNM") + "} && " + in}},
		{"namespace and pod selector", policy.Policy{Ingress: []policy.Rule{{Peers: []policy.Peer{{NamespaceSelector: sel("team", "b"), PodSelector: sel("app", "client")}}}}},
			[]string{"to-lport 1001 allow-related NP:ns1:p:Ingress:0 | ip4.src == {" + as("LS{ML:{team: b,},}_LS{ML:{app: client,},}") + "} && " + in}},
		{"two selector peers share one ACL", policy.Policy{Ingress: []policy.Rule{{Peers: []policy.Peer{{PodSelector: sel("app", "web")}, {NamespaceSelector: sel("team", "a")}}}}},
			[]string{"to-lport 1001 allow-related NP:ns1:p:Ingress:0 | ip4.src == {" + strings.Join(sorted(as("ns1_LS{ML:{app: web,},}"), as("LS{ML:{team: a,},}_LS{}_LNM")), ", ") + "} && " + in}},
		{"ipBlock with except", policy.Policy{Ingress: []policy.Rule{{Peers: []policy.Peer{{IPBlock: ipb("172.16.0.0/12", "172.16.1.0/24")}}}}},
			[]string{"to-lport 1001 allow-related NP:ns1:p:Ingress:0 | (ip4.src == 172.16.0.0/12 && ip4.src != {172.16.1.0/24}) && " + in}},
		{"ipBlock of the other family is left out", policy.Policy{Ingress: []policy.Rule{{Peers: []policy.Peer{{IPBlock: ipb("10.0.0.0/8")}, {IPBlock: ipb("fd00::/64")}}}}},
			[]string{"to-lport 1001 allow-related NP:ns1:p:Ingress:0 | ip4.src == 10.0.0.0/8 && " + in}},
		{"selector and ipBlock: one ACL each", policy.Policy{Ingress: []policy.Rule{{Peers: []policy.Peer{{PodSelector: sel("app", "web")}, {IPBlock: ipb("10.0.0.0/8")}}}}},
			[]string{
				"to-lport 1001 allow-related NP:ns1:p:Ingress:0 | ip4.src == 10.0.0.0/8 && " + in,
				"to-lport 1001 allow-related NP:ns1:p:Ingress:0 | ip4.src == {" + as("ns1_LS{ML:{app: web,},}") + "} && " + in}},
		{"ports: one ACL per protocol", policy.Policy{Ingress: []policy.Rule{{Ports: []policy.Port{{Number: 80}, {Protocol: policy.UDP, Number: 1000, EndPort: 2000}, {Protocol: policy.SCTP}}}}},
			[]string{
				"to-lport 1001 allow-related NP:ns1:p:Ingress:0 | ip4 && sctp && " + in,
				"to-lport 1001 allow-related NP:ns1:p:Ingress:0 | ip4 && tcp && tcp.dst==80 && " + in,
				"to-lport 1001 allow-related NP:ns1:p:Ingress:0 | ip4 && udp && 1000<=udp.dst<=2000 && " + in}},
		{"named port resolved on the selected pods", policy.Policy{PodSelector: *sel("app", "db"), Ingress: []policy.Rule{{Ports: []policy.Port{{Name: "postgres"}}}}},
			[]string{"to-lport 1001 allow-related NP:ns1:p:Ingress:0 | ip4 && tcp && ((ip4.dst == 10.128.1.4 && tcp.dst == 5432)) && " + in}},
		{"named port nobody has: nothing allowed", policy.Policy{Ingress: []policy.Rule{{Ports: []policy.Port{{Name: "nope"}}}}}, nil},
		{"rules OR-ed: one name each", policy.Policy{Ingress: []policy.Rule{{Ports: []policy.Port{{Number: 80}}}, {Peers: []policy.Peer{{PodSelector: sel("app", "web")}}}}},
			[]string{
				"to-lport 1001 allow-related NP:ns1:p:Ingress:0 | ip4 && tcp && tcp.dst==80 && " + in,
				"to-lport 1001 allow-related NP:ns1:p:Ingress:1 | ip4.src == {" + as("ns1_LS{ML:{app: web,},}") + "} && " + in}},
		{"egress rule: from-lport after load balancing, dst", policy.Policy{Egress: []policy.Rule{{Peers: []policy.Peer{{PodSelector: sel("app", "db")}}, Ports: []policy.Port{{Number: 5432}}}}},
			[]string{"from-lport 1001 allow-related NP:ns1:p:Egress:0 | ip4.dst == {" + as("ns1_LS{ML:{app: db,},}") + "} && tcp && tcp.dst==5432 && " + out + " [after-lb=true]"}},
		{"egress named port resolved on the peers", policy.Policy{Egress: []policy.Rule{{Peers: []policy.Peer{{PodSelector: sel("app", "db")}}, Ports: []policy.Port{{Name: "postgres"}}}}},
			[]string{"from-lport 1001 allow-related NP:ns1:p:Egress:0 | ip4.dst == {" + as("ns1_LS{ML:{app: db,},}") + "} && tcp && ((ip4.dst == 10.128.1.4 && tcp.dst == 5432)) && " + out + " [after-lb=true]"}},
		{"stateless", policy.Policy{Stateless: true, Ingress: []policy.Rule{{Ports: []policy.Port{{Number: 80}}}}},
			[]string{"to-lport 1001 allow-stateless NP:ns1:p:Ingress:0 | ip4 && tcp && tcp.dst==80 && " + in}},
		{"policyTypes Egress only: ingress rules ignored", policy.Policy{PolicyTypes: []policy.PolicyType{policy.Egress}, Ingress: []policy.Rule{{}}}, nil},
		{"policyTypes Ingress only: egress rules ignored", policy.Policy{PolicyTypes: []policy.PolicyType{policy.Ingress}, Egress: []policy.Rule{{}}}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			input := fixture()
			input.Pods[1].Ports = []policy.ContainerPort{{Name: "postgres", Number: 5432}}
			tc.pol.Namespace, tc.pol.Name = "ns1", "p"
			input.Policies = []policy.Policy{tc.pol}
			s := plan(t, input)
			if got := aclLines(t, s, pg); !slices.Equal(got, tc.want) {
				t.Errorf("ACLs:\n got %q\nwant %q", got, tc.want)
			}
		})
	}
}

func sorted(v ...string) []string { slices.Sort(v); return v }

// TestPlanPortGroupsAndDeny: the policy's port group holds the local pods
// it selects; the namespace's default-deny port groups exist per direction
// the policies apply to, with the drop and ARP/ND ACLs.
func TestPlanPortGroupsAndDeny(t *testing.T) {
	in := fixture()
	in.Policies = []policy.Policy{
		{Namespace: "ns1", Name: "web-only", PodSelector: *sel("app", "web")},
		{Namespace: "ns1", Name: "db-egress", PodSelector: *sel("app", "db"), PolicyTypes: []policy.PolicyType{policy.Egress}},
	}
	s := plan(t, in)
	// far (node2) is not local: not in any port group.
	if got := portGroup(t, s, policy.PortGroupName(blue, "ns1", "web-only")).Ports; !slices.Equal(got, []string{"ns1.blue_ns1_web"}) {
		t.Errorf("web-only ports %v", got)
	}
	dIn, dEg := policy.DenyPortGroupName(blue, "ns1", policy.Ingress), policy.DenyPortGroupName(blue, "ns1", policy.Egress)
	if got := portGroup(t, s, dIn).Ports; !slices.Equal(got, []string{"ns1.blue_ns1_web"}) {
		t.Errorf("ingress deny ports %v", got)
	}
	if got := portGroup(t, s, dEg).Ports; !slices.Equal(got, []string{"ns1.blue_ns1_db"}) {
		t.Errorf("egress deny ports %v", got)
	}
	want := []string{
		"to-lport 1000 drop NP:ns1:Ingress | outport == @" + dIn,
		"to-lport 1001 allow NP:ns1:Ingress | outport == @" + dIn + " && (arp || nd)",
	}
	if got := aclLines(t, s, dIn); !slices.Equal(got, want) {
		t.Errorf("ingress deny ACLs\n got %q\nwant %q", got, want)
	}
	want = []string{
		"from-lport 1000 drop NP:ns1:Egress | inport == @" + dEg + " [after-lb=true]",
		"from-lport 1001 allow NP:ns1:Egress | inport == @" + dEg + " && (arp || nd) [after-lb=true]",
	}
	if got := aclLines(t, s, dEg); !slices.Equal(got, want) {
		t.Errorf("egress deny ACLs\n got %q\nwant %q", got, want)
	}
	// AllowICMP adds the ICMP allow to each deny group.
	in.AllowICMP = true
	if got := aclLines(t, plan(t, in), dEg); len(got) != 3 || got[2] != "from-lport 1001 allow NP:ns1:Egress | inport == @"+dEg+" && (icmp || icmp6) [after-lb=true]" {
		t.Errorf("egress deny ACLs with AllowICMP: %q", got)
	}
	// ns3 (also on blue) and ns2 (red) have no policies: no deny groups.
	for _, pg := range []string{policy.DenyPortGroupName(blue, "ns3", policy.Ingress), policy.DenyPortGroupName("ns2_red", "ns2", policy.Ingress)} {
		if _, ok := s.Get(topology.KindPortGroup, pg); ok {
			t.Errorf("deny port group %s planned without a policy", pg)
		}
	}
	// Every row is the policy controller's.
	for o := range s.Objects() {
		if o.OwnedBy().Controller != policy.Controller {
			t.Errorf("%v owned by %q", o, o.OwnedBy().Controller)
		}
	}
}

// TestPlanClusterRows: the cluster port group (local pods and management
// ports), the hairpin ACLs and the management-port ACL, as the reference
// writes them (REFERENCE (e): BNP:241-281, BNP:333-359).
func TestPlanClusterRows(t *testing.T) {
	s := plan(t, fixture())
	cpg := policy.ClusterPortGroupName(blue)
	if got, want := portGroup(t, s, cpg).Ports, []string{"k8s-ns1_blue_node1", "ns1.blue_ns1_db", "ns1.blue_ns1_web", "ns1.blue_ns3_client"}; !slices.Equal(got, want) {
		t.Errorf("cluster port group %v, want %v", got, want)
	}
	want := []string{
		"from-lport 1001 allow-related  | ip4.src == 169.254.0.5 [after-lb=true]",
		"to-lport 1001 allow-related  | ip4.src == 169.254.0.5",
	}
	if got := aclLines(t, s, cpg); !slices.Equal(got, want) {
		t.Errorf("hairpin ACLs\n got %q\nwant %q", got, want)
	}
	var sw []string
	for _, a := range acls(t, s) {
		if a.Switch != "" {
			sw = append(sw, a.Switch+" "+string(a.Direction)+" "+string(a.Action)+" "+a.Match)
		}
	}
	slices.Sort(sw)
	want = []string{
		"ns1_blue_node1 to-lport allow-related ip4.src==10.128.1.2",
		"ns2_red_ovn_layer2_switch to-lport allow-related ip4.src==10.128.0.2",
	}
	if !slices.Equal(sw, want) {
		t.Errorf("management-port ACLs\n got %q\nwant %q", sw, want)
	}
}

// TestPlanPeersAcrossNetworks: seed 001 (a ClusterNetworkConnect with
// PodNetwork) and seed 002 (a namespace's primaries) widen the address
// sets; without them another network's pods are no peers, even with the
// same addresses.
func TestPlanPeersAcrossNetworks(t *testing.T) {
	key := "LS{ML:{team: a,},}_LS{}_LNM"
	pol := policy.Policy{Namespace: "ns1", Name: "p", Ingress: []policy.Rule{{Peers: []policy.Peer{{NamespaceSelector: sel("team", "a")}}}}}
	in := fixture()
	in.Policies = []policy.Policy{pol}
	if got := addressSet(t, plan(t, in), policy.AddressSetName(blue, key, false)); !slices.Equal(got, []string{"10.128.1.3", "10.128.1.4", "10.128.2.3"}) {
		t.Errorf("isolated: %v", got)
	}
	in.Connected = [][]string{{blue, "ns2_red"}}
	if got := addressSet(t, plan(t, in), policy.AddressSetName(blue, key, false)); !slices.Equal(got, []string{"10.128.0.3", "10.128.1.3", "10.128.1.4", "10.128.2.3"}) {
		t.Errorf("connected: %v", got)
	}
	// Seed 002: ns1 has both networks as primaries: the policy's ACLs on
	// both, peers in both.
	in = fixture()
	in.Networks[1].Namespaces = []string{"ns1", "ns2"}
	in.Policies = []policy.Policy{pol}
	s := plan(t, in)
	for _, n := range []string{blue, "ns2_red"} {
		if len(aclLines(t, s, policy.PortGroupName(n, "ns1", "p"))) != 1 {
			t.Errorf("%s: no rule ACL", n)
		}
		if got := addressSet(t, s, policy.AddressSetName(n, key, false)); !slices.Equal(got, []string{"10.128.0.3", "10.128.1.3", "10.128.1.4", "10.128.2.3"}) {
			t.Errorf("%s: peers %v", n, got)
		}
	}
}

// TestPlanDualStack: address sets per family, the reference's dual-stack
// matches.
func TestPlanDualStack(t *testing.T) {
	in := fixture()
	n := in.Networks[0].Network
	n.Subnets = append(n.Subnets, n.Subnets[0])
	n.Subnets[1].CIDR = netip.MustParsePrefix("fd00:10:128::/48")
	n.Subnets[1].HostPrefix = 64
	in.Networks[0].HostSubnets["node1"] = append(in.Networks[0].HostSubnets["node1"], netip.MustParsePrefix("fd00:10:128:1::/64"))
	in.Pods[0].Networks[0].IPs = append(in.Pods[0].Networks[0].IPs, netip.MustParseAddr("fd00:10:128:1::3"))
	in.Policies = []policy.Policy{{Namespace: "ns1", Name: "p", Ingress: []policy.Rule{{Peers: []policy.Peer{{PodSelector: sel("app", "web")}}}, {}}}}
	s := plan(t, in)
	key := "ns1_LS{ML:{app: web,},}"
	v4, v6 := policy.AddressSetName(blue, key, false), policy.AddressSetName(blue, key, true)
	if got := addressSet(t, s, v6); !slices.Equal(got, []string{"fd00:10:128:1::3"}) {
		t.Errorf("v6 set %v", got)
	}
	pg := policy.PortGroupName(blue, "ns1", "p")
	want := []string{
		"to-lport 1001 allow-related NP:ns1:p:Ingress:0 | (ip4.src == {$" + v4 + "} || ip6.src == {$" + v6 + "}) && outport == @" + pg,
		"to-lport 1001 allow-related NP:ns1:p:Ingress:1 | (ip4 || ip6) && outport == @" + pg,
	}
	if got := aclLines(t, s, pg); !slices.Equal(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
	cpg := policy.ClusterPortGroupName(blue)
	if got := aclLines(t, s, cpg); len(got) != 2 || !strings.Contains(got[0], "(ip4.src == 169.254.0.5 || ip6.src == fd69::5)") {
		t.Errorf("dual-stack hairpin %q", got)
	}
}

// TestPlanRefuses: errors wrap ErrInvalid and name the object and field.
func TestPlanRefuses(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(*policy.Input)
		want   string
	}{
		{"bad operator", func(in *policy.Input) {
			in.Policies = []policy.Policy{{Namespace: "ns1", Name: "p", PodSelector: policy.Selector{MatchExpressions: []policy.Requirement{{Key: "a", Operator: "Near"}}}}}
		}, "networkpolicy ns1/p: invalid network policy input: spec.podSelector.matchExpressions[0].operator"},
		{"endPort without port", func(in *policy.Input) {
			in.Policies = []policy.Policy{{Namespace: "ns1", Name: "p", Ingress: []policy.Rule{{Ports: []policy.Port{{EndPort: 90}}}}}}
		}, "spec.ingress[0].ports[0].port: Required value"},
		{"except outside the CIDR", func(in *policy.Input) {
			in.Policies = []policy.Policy{{Namespace: "ns1", Name: "p", Egress: []policy.Rule{{Peers: []policy.Peer{{IPBlock: &policy.IPBlock{
				CIDR: netip.MustParsePrefix("10.0.0.0/8"), Except: []netip.Prefix{netip.MustParsePrefix("11.0.0.0/16")}}}}}}}}
		}, "spec.egress[0].to[0].ipBlock.except[0]"},
		{"ipBlock with a selector", func(in *policy.Input) {
			in.Policies = []policy.Policy{{Namespace: "ns1", Name: "p", Ingress: []policy.Rule{{Peers: []policy.Peer{{PodSelector: sel(), IPBlock: &policy.IPBlock{
				CIDR: netip.MustParsePrefix("10.0.0.0/8")}}}}}}}
		}, "spec.ingress[0].from[0]: Forbidden"},
		{"empty peer", func(in *policy.Input) {
			in.Policies = []policy.Policy{{Namespace: "ns1", Name: "p", Ingress: []policy.Rule{{Peers: []policy.Peer{{}}}}}}
		}, "spec.ingress[0].from[0]: Required value"},
		{"bad port name", func(in *policy.Input) {
			in.Policies = []policy.Policy{{Namespace: "ns1", Name: "p", Ingress: []policy.Rule{{Ports: []policy.Port{{Name: "Web_1"}}}}}}
		}, "spec.ingress[0].ports[0].port"},
		{"pod without port name", func(in *policy.Input) { in.Pods[0].Networks[0].Port = "" }, "pod ns1/web: networks[0]"},
		{"duplicate policy", func(in *policy.Input) {
			in.Policies = []policy.Policy{{Namespace: "ns1", Name: "p"}, {Namespace: "ns1", Name: "p"}}
		}, "networkpolicy ns1/p: invalid network policy input: listed twice"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := fixture()
			tc.change(&in)
			_, err := policy.Plan(in)
			if !errors.Is(err, policy.ErrInvalid) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want ErrInvalid with %q", err, tc.want)
			}
		})
	}
}

// TestPlanMulticast: the reference's multicast rows (ovn/
// base_network_controller_multicast.go): dropped to and from every pod at
// 1011, allowed through the switches' router ports and within a multicast
// namespace at 1012.
func TestPlanMulticast(t *testing.T) {
	in := fixture()
	in.Multicast = true
	in.Namespaces[0].Multicast = true
	s := plan(t, in)
	mc := "(ip4.mcast || mldv1 || mldv2 || (ip6.dst[120..127] == 0xff && ip6.dst[116] == 1))"
	cpg, rtr := policy.ClusterPortGroupName(blue), policy.ClusterRouterPortGroupName(blue)
	if got := aclLines(t, s, cpg); !slices.Contains(got, "from-lport 1011 drop  | "+mc+" [after-lb=true]") || !slices.Contains(got, "to-lport 1011 drop  | "+mc) {
		t.Errorf("cluster multicast deny: %q", got)
	}
	want := []string{"from-lport 1012 allow  | inport == @" + rtr + " && " + mc + " [after-lb=true]", "to-lport 1012 allow  | outport == @" + rtr + " && " + mc}
	if got := aclLines(t, s, rtr); !slices.Equal(got, want) {
		t.Errorf("router-port multicast allow\n got %q\nwant %q", got, want)
	}
	if got := portGroup(t, s, rtr).Ports; !slices.Equal(got, []string{"stor-ns1_blue_node1"}) {
		t.Errorf("router ports %v", got)
	}
	if got := portGroup(t, s, policy.ClusterRouterPortGroupName("ns2_red")).Ports; !slices.Equal(got, []string{"stotr-ns2_red_ovn_layer2_switch"}) {
		t.Errorf("Layer2 router ports %v", got)
	}
	nsPG := policy.NamespacePortGroupName(blue, "ns1")
	as := policy.AddressSetName(blue, "ns1_LS{}_LNM", false)
	want = []string{"from-lport 1012 allow  | inport == @" + nsPG + " && ip4.mcast [after-lb=true]",
		"to-lport 1012 allow  | outport == @" + nsPG + " && (igmp || (ip4.src == $" + as + " && ip4.mcast))"}
	if got := aclLines(t, s, nsPG); !slices.Equal(got, want) {
		t.Errorf("namespace multicast\n got %q\nwant %q", got, want)
	}
	if got := addressSet(t, s, as); !slices.Equal(got, []string{"10.128.1.3", "10.128.1.4", "10.128.2.3"}) {
		t.Errorf("namespace multicast peers %v", got)
	}
	// ns3 did not enable it: no port group.
	if _, ok := s.Get(topology.KindPortGroup, policy.NamespacePortGroupName(blue, "ns3")); ok {
		t.Error("ns3 has a multicast port group")
	}
}

// TestPlanSharedPeerAddressSets ports ovn/policy_test.go "correctly uses
// shared peer selector address sets": two policies with one peer selector
// share its address set, which lives while either uses it.
func TestPlanSharedPeerAddressSets(t *testing.T) {
	in := fixture()
	peer := []policy.Rule{{Peers: []policy.Peer{{PodSelector: sel("app", "web")}}}}
	in.Policies = []policy.Policy{{Namespace: "ns1", Name: "a", Ingress: peer}, {Namespace: "ns1", Name: "b", PodSelector: *sel("app", "db"), Ingress: peer}}
	p, err := policy.New(in)
	if err != nil {
		t.Fatal(err)
	}
	s, err := p.State()
	if err != nil {
		t.Fatal(err)
	}
	name := policy.AddressSetName(blue, "ns1_LS{ML:{app: web,},}", false)
	if got := len(s.ObjectsOf(topology.KindAddressSet)); got != 1 {
		t.Errorf("%d address sets, want the one shared", got)
	}
	for _, pol := range []string{"a", "b"} {
		if got := aclLines(t, s, policy.PortGroupName(blue, "ns1", pol)); len(got) != 1 || !strings.Contains(got[0], "ip4.src == {$"+name+"}") {
			t.Errorf("policy %s: %q", pol, got)
		}
	}
	ch, err := p.DeletePolicy("ns1", "a")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range ch {
		if c.Kind == topology.KindAddressSet {
			t.Errorf("deleting one user changed the shared set: %v", c)
		}
	}
	ch, err = p.DeletePolicy("ns1", "b")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(ch, func(c topology.Change) bool {
		return c.Op == topology.OpDelete && c.Kind == topology.KindAddressSet && c.Key == name
	}) {
		t.Errorf("deleting the last user kept the set: %v", ch)
	}
}

func TestNetworkFor(t *testing.T) {
	n := ovntest.Layer3Network()
	n.NADs = []string{"tenant-b/shared", "tenant-a/shared", "tenant-a/other"}
	in := ovntest.PlanInput(n, ovntest.Nodes(2, ""), "node1")
	got := policy.NetworkFor(in)
	if !slices.Equal(got.Namespaces, []string{"tenant-a", "tenant-b"}) || got.Network != n || len(got.HostSubnets) != 2 {
		t.Errorf("%+v", got)
	}
}
