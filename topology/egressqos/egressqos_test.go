package egressqos_test

import (
	"cmp"
	"errors"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/udnkit/udnkit/internal/golden"
	"github.com/udnkit/udnkit/netconf/udn"
	"github.com/udnkit/udnkit/topology"
	"github.com/udnkit/udnkit/topology/egressip"
	"github.com/udnkit/udnkit/topology/egressqos"
)

func addrs(s ...string) []netip.Addr {
	out := make([]netip.Addr, len(s))
	for i, v := range s {
		out[i] = netip.MustParseAddr(v)
	}
	return out
}

func l3(name string, id int, subnets ...string) *udn.Network {
	n := &udn.Network{Name: name, ID: id, Topology: udn.TopologyLayer3, Role: udn.RolePrimary}
	for _, s := range subnets {
		n.Subnets = append(n.Subnets, udn.Subnet{CIDR: netip.MustParsePrefix(s), HostPrefix: 24})
	}
	return n
}

// input is the scene of the reference's egressqos_test.go tables: the
// EgressQoS of namespace1 with {dscp 50, dstCIDR 1.2.3.4/32} and
// {dscp 60} (with podSelector app=foo on the second when selectors is
// set), pods on node1 (the zone) and node2, on network n.
func input(n *udn.Network, selectors bool) egressqos.Input {
	q := egressqos.EgressQoS{Namespace: "namespace1", Rules: []egressqos.Rule{
		{DSCP: 50, DstCIDR: netip.MustParsePrefix("1.2.3.4/32")}, {DSCP: 60}}}
	if selectors {
		q.Rules[1].PodSelector = &egressip.Selector{Requirements: []egressip.Requirement{{Key: "app", Op: egressip.OpIn, Values: []string{"foo"}}}}
	}
	on := func(ips ...string) []egressqos.NetworkIPs {
		return []egressqos.NetworkIPs{{Network: n.Name, IPs: addrs(ips...)}}
	}
	return egressqos.Input{
		Networks:  []egressqos.Network{{Network: n, Namespaces: []string{"namespace1"}}},
		Nodes:     []topology.Node{{Name: "node1", ID: 2}, {Name: "node2", ID: 3}},
		Zone:      "node1",
		EgressQoS: []egressqos.EgressQoS{q},
		Pods: []egressqos.Pod{
			{Namespace: "namespace1", Name: "foo", Node: "node1", Labels: egressip.NewLabels("app", "foo"), IPs: on("10.128.1.3")},
			{Namespace: "namespace1", Name: "bar", Node: "node1", Labels: egressip.NewLabels("app", "bar"), IPs: on("10.128.1.4")},
			{Namespace: "namespace1", Name: "remote", Node: "node2", Labels: egressip.NewLabels("app", "foo"), IPs: on("10.128.2.3")},
			{Namespace: "namespace2", Name: "other", Node: "node1", Labels: egressip.NewLabels("app", "foo"), IPs: on("10.128.1.5")},
		},
	}
}

func render(p topology.State) string { return p.String() }

// rows returns the QoS rows of p, sorted by switch, priority (highest
// first) and match.
func rows(p topology.State) []topology.QoS {
	var out []topology.QoS
	for _, o := range p.ObjectsOf(topology.KindQoS) {
		out = append(out, o.(topology.QoS))
	}
	slices.SortFunc(out, func(a, b topology.QoS) int {
		return cmp.Or(cmp.Compare(a.Switch, b.Switch), cmp.Compare(b.Priority, a.Priority), cmp.Compare(a.Match, b.Match))
	})
	return out
}

// dscp returns a row's action dscp value, -1 for none.
func dscp(q topology.QoS) int {
	if v, ok := q.Action.Get(topology.QoSDSCP); ok {
		return v
	}
	return -1
}

// TestPlanReference ports ovn/egressqos_test.go's two tables,
// "reconciles existing and non-existing egressqoses without PodSelectors"
// and "... with PodSelectors", entries ipv4, ipv6 and dual: rules
// {dscp 50 to dst1 (with podSelector app=nice in the second table)} and
// {dscp 60 to dst2} give to-lport rows at 1000 and 999 with the
// reference's matches on every local node switch, and the update to one
// rule {dscp 40 to dst1} leaves one row at 1000. udnkit spells IPv6 CIDRs
// canonically (2001:db8:85a3::8a2e:370:7334/128), the reference as given.
func TestPlanReference(t *testing.T) {
	v4, v6 := "10.128.0.0/16", "fd00:10:244::/48"
	for _, table := range []string{"without PodSelectors", "with PodSelectors"} {
		for _, e := range []struct {
			name       string
			subnets    []string
			podIP      string
			dst1, dst2 string
		}{
			{"ipv4", []string{v4}, "10.128.1.3", "1.2.3.4/32", "5.6.7.8/32"},
			{"ipv6", []string{v6}, "fd00:10:244:2::3", "2001:0db8:85a3:0000:0000:8a2e:0370:7334/128", "2001:0db8:85a3:0000:0000:8a2e:0370:7335/128"},
			{"dual", []string{v4, v6}, "10.128.1.3", "1.2.3.4/32", "2001:0db8:85a3:0000:0000:8a2e:0370:7335/128"},
		} {
			t.Run(table+"/"+e.name, func(t *testing.T) {
				n := l3("default_blue", 1, e.subnets...)
				for i := range n.Subnets {
					if n.Subnets[i].CIDR.Addr().Is6() {
						n.Subnets[i].HostPrefix = 64
					}
				}
				nice := egressip.Selector{Requirements: []egressip.Requirement{{Key: "app", Op: egressip.OpIn, Values: []string{"nice"}}}}
				rule1 := egressqos.Rule{DSCP: 50, DstCIDR: netip.MustParsePrefix(e.dst1)}
				if table == "with PodSelectors" {
					rule1.PodSelector = &nice
				}
				in := egressqos.Input{
					Networks:  []egressqos.Network{{Network: n, Namespaces: []string{"namespace1"}}},
					Nodes:     []topology.Node{{Name: "node1", ID: 2}, {Name: "node2", ID: 3}},
					Zone:      "global", // the reference test's nodes share one zone
					EgressQoS: []egressqos.EgressQoS{{Namespace: "namespace1", Rules: []egressqos.Rule{rule1, {DSCP: 60, DstCIDR: netip.MustParsePrefix(e.dst2)}}}},
					Pods: []egressqos.Pod{{Namespace: "namespace1", Name: "myPod", Node: "node1", Labels: egressip.NewLabels("app", "nice"),
						IPs: []egressqos.NetworkIPs{{Network: n.Name, IPs: addrs(e.podIP)}}}},
				}
				for i := range in.Nodes {
					in.Nodes[i].Zone = "global"
				}
				p, err := egressqos.PlanZone(in)
				if err != nil {
					t.Fatal(err)
				}
				v4on, v6on := len(e.subnets) == 2 || e.name == "ipv4", len(e.subnets) == 2 || e.name == "ipv6"
				src := func(prio int) string {
					a4, a6 := egressqos.AddressSetName(n.Name, "namespace1", prio, true), egressqos.AddressSetName(n.Name, "namespace1", prio, false)
					switch {
					case v4on && v6on:
						return "(ip4.src == $" + a4 + " || ip6.src == $" + a6 + ")"
					case v4on:
						return "ip4.src == $" + a4
					}
					return "ip6.src == $" + a6
				}
				dst := func(c string) string {
					pfx := netip.MustParsePrefix(c)
					if pfx.Addr().Is4() {
						return "(ip4.dst == " + pfx.String() + ")"
					}
					return "(ip6.dst == " + pfx.String() + ")"
				}
				want := []string{}
				for _, sw := range []string{"default_blue_node1", "default_blue_node2"} {
					want = append(want,
						sw+" 1000 to-lport dscp=50 "+dst(e.dst1)+" && "+src(1000),
						sw+" 999 to-lport dscp=60 "+dst(e.dst2)+" && "+src(999))
				}
				var got []string
				for _, q := range rows(p) {
					got = append(got, q.Switch+" "+strconv.Itoa(q.Priority)+" "+string(q.Direction)+" dscp="+strconv.Itoa(dscp(q))+" "+q.Match)
				}
				if strings.Join(got, "\n") != strings.Join(want, "\n") {
					t.Errorf("rows\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
				}
				// The pod is in both rules' sets of its family.
				as, _ := p.Get(topology.KindAddressSet, egressqos.AddressSetName(n.Name, "namespace1", 1000, netip.MustParseAddr(e.podIP).Is4()))
				if got := as.(topology.AddressSet).Addresses; len(got) != 1 || got[0].Addr() != netip.MustParseAddr(e.podIP) {
					t.Errorf("rule 0's set %v", got)
				}
				// Update: one rule {dscp 40 to dst1}.
				in.EgressQoS[0].Rules = []egressqos.Rule{{DSCP: 40, DstCIDR: netip.MustParsePrefix(e.dst1)}}
				if p, err = egressqos.PlanZone(in); err != nil {
					t.Fatal(err)
				}
				if len(rows(p)) != 2 || dscp(rows(p)[0]) != 40 || rows(p)[0].Priority != 1000 || rows(p)[0].Match != dst(e.dst1)+" && "+src(1000) {
					t.Errorf("after the update: %v", rows(p))
				}
			})
		}
	}
}

// TestPlan: on a user-defined network in zone node1, a rule without a
// selector takes all the namespace's local pods, one with a selector the
// matching ones; remote pods and other namespaces' pods stay out.
func TestPlan(t *testing.T) {
	for _, tc := range []struct {
		name      string
		selectors bool
		sets      [2]string // the rules' IPv4 sets
	}{
		{"without PodSelectors", false, [2]string{"10.128.1.3/32 10.128.1.4/32", "10.128.1.3/32 10.128.1.4/32"}},
		{"with PodSelectors", true, [2]string{"10.128.1.3/32 10.128.1.4/32", "10.128.1.3/32"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := l3("namespace1_blue", 1, "10.128.0.0/16")
			p, err := egressqos.PlanZone(input(n, tc.selectors))
			if err != nil {
				t.Fatal(err)
			}
			if len(rows(p)) != 2 {
				t.Fatalf("rows:\n%s", render(p))
			}
			for i, prio := range []int{1000, 999} {
				set := egressqos.AddressSetName(n.Name, "namespace1", prio, true)
				if q := rows(p)[i]; q.Owner.Controller != egressqos.Controller || q.Owner.Node != "node1" || !strings.HasSuffix(q.Match, "ip4.src == $"+set) {
					t.Errorf("row %d: %v", i, q)
				}
				as, ok := p.Get(topology.KindAddressSet, set)
				var got []string
				if ok {
					for _, a := range as.(topology.AddressSet).Addresses {
						got = append(got, a.String())
					}
				}
				if strings.Join(got, " ") != tc.sets[i] {
					t.Errorf("set of rule %d: %v, want %s", i, got, tc.sets[i])
				}
			}
			golden.Check(t, "layer3_"+strings.ReplaceAll(tc.name, " ", "_")+".txt", render(p))
		})
	}
}

// TestPlanSeveralPrimaries (seed 002): a namespace with two primary
// networks, a Layer3 and a Layer2 one, gets the rows on both, each set
// holding the pods' addresses on its network.
func TestPlanSeveralPrimaries(t *testing.T) {
	blue := l3("namespace1_blue", 1, "10.128.0.0/16")
	red := &udn.Network{Name: "namespace1_red", ID: 2, Topology: udn.TopologyLayer2, Role: udn.RolePrimary,
		Subnets: []udn.Subnet{{CIDR: netip.MustParsePrefix("10.200.0.0/16")}}}
	in := input(blue, false)
	in.Networks = append(in.Networks, egressqos.Network{Network: red, Namespaces: []string{"namespace1"}})
	in.Pods[0].IPs = append(in.Pods[0].IPs, egressqos.NetworkIPs{Network: red.Name, IPs: addrs("10.200.0.9")})
	p, err := egressqos.PlanZone(in)
	if err != nil {
		t.Fatal(err)
	}
	switches := map[string]int{}
	for _, q := range rows(p) {
		switches[q.Switch]++
	}
	if switches["namespace1_blue_node1"] != 2 || switches["namespace1_red_ovn_layer2_switch"] != 2 || len(switches) != 2 {
		t.Errorf("rows per switch %v", switches)
	}
	as, _ := p.Get(topology.KindAddressSet, egressqos.AddressSetName(red.Name, "namespace1", 1000, true))
	if got := as.(topology.AddressSet).Addresses; len(got) != 1 || got[0] != netip.MustParsePrefix("10.200.0.9/32") {
		t.Errorf("red's set %v", got)
	}
	if !p.SpeaksFor(egressqos.Controller, red.Name) || !p.SpeaksFor(egressqos.Controller, blue.Name) {
		t.Error("the sets do not speak for both networks")
	}
	golden.Check(t, "two_primaries.txt", render(p))
}

func TestPlanErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		mod  func(*egressqos.Input)
		want string
	}{
		{"dscp", func(in *egressqos.Input) { in.EgressQoS[0].Rules[1].DSCP = 64 }, "egressqos namespace1/default: spec.egress[1].dscp"},
		{"host bits", func(in *egressqos.Input) { in.EgressQoS[0].Rules[0].DstCIDR = netip.MustParsePrefix("1.2.3.4/24") }, "spec.egress[0].dstCIDR"},
		{"twice", func(in *egressqos.Input) { in.EgressQoS = append(in.EgressQoS, in.EgressQoS[0]) }, "given twice"},
		{"too many", func(in *egressqos.Input) { in.EgressQoS[0].Rules = make([]egressqos.Rule, 1001) }, "at most 1000"},
		{"zone", func(in *egressqos.Input) { in.Zone = "" }, "zone"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := input(l3("namespace1_blue", 1, "10.128.0.0/16"), false)
			tc.mod(&in)
			_, err := egressqos.PlanZone(in)
			if !errors.Is(err, egressqos.ErrInvalid) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want ErrInvalid naming %q", err, tc.want)
			}
		})
	}
}
