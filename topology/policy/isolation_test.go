package policy_test

import (
	"errors"
	"net/netip"
	"slices"
	"strings"
	"testing"

	"github.com/udnkit/udnkit/topology"
	"github.com/udnkit/udnkit/topology/policy"
)

// isolationFixture: the fixture's pods have default-network ports (web
// with open ports), node1's default management port is 10.244.1.2.
func isolationFixture() policy.Input {
	in := fixture()
	for i := range in.Pods {
		p := &in.Pods[i]
		p.DefaultPort = p.Namespace + "_" + p.Name
	}
	in.Pods[0].OpenPorts = []policy.OpenPort{{Protocol: "tcp", Port: 80}, {Protocol: "icmp"}}
	in.DefaultNetwork = &policy.DefaultNetwork{ManagementIPs: []netip.Addr{netip.MustParseAddr("10.244.1.2")}}
	return in
}

// TestReferenceUDNIsolation ports ovn/udn_isolation.go setupUDNACLs and
// setUDNPodOpenPorts (their matches, priorities, actions and directions)
// and ovn/udn_isolation_test.go ("ACLs should be updated to the Primary
// tier": tier 0; "Should handle syncing legacy DBIDs": the port group's
// and ACLs' ids, the ACLs unnamed).
func TestReferenceUDNIsolation(t *testing.T) {
	s := plan(t, isolationFixture())
	pg := policy.IsolationPortGroupName()
	g := portGroup(t, s, pg)
	if want := []string{"ns1_db", "ns1_web", "ns2_web", "ns3_client"}; !slices.Equal(g.Ports, want) { // ns1/far is on node2
		t.Errorf("ports %q, want %q", g.Ports, want)
	}
	if id, _ := g.ExternalIDs.Get(policy.IDPrimary); id != "default-network-controller:UDNIsolation:SecondaryPods" || topology.HashName(id) != pg {
		t.Errorf("port group id %q (name %s)", id, pg)
	}
	if g.Owner.Network != policy.DefaultNetworkName || g.Owner.Controller != policy.Controller {
		t.Errorf("port group owner %v", g.Owner)
	}
	type row struct {
		id     string
		dir    topology.ACLDirection
		prio   int
		match  string
		action topology.ACLAction
	}
	const ctl = "default-network-controller:UDNIsolation:"
	want := []row{
		{ctl + "DenyPrimaryUDN:Egress", topology.ACLFromLport, 1000, "inport == @" + pg, topology.ACLDrop},
		{ctl + "DenyPrimaryUDN:Ingress", topology.ACLToLport, 1000, "outport == @" + pg, topology.ACLDrop},
		{ctl + "AllowHostARPPrimaryUDN:Egress", topology.ACLFromLport, 1001, "inport == @" + pg + " && (( arp && arp.tpa == 10.244.1.2 ))", topology.ACLAllow},
		{ctl + "AllowHostARPPrimaryUDN:Ingress", topology.ACLToLport, 1001, "outport == @" + pg + " && (( arp && arp.spa == 10.244.1.2 ))", topology.ACLAllow},
		{ctl + "AllowHostPrimaryUDN:Ingress", topology.ACLToLport, 1001, "outport == @" + pg + " && (ip4.src==10.244.1.2)", topology.ACLAllowRelated},
		{ctl + "OpenPort-ns1/web:Ingress", topology.ACLToLport, 1001, `outport == "ns1_web" && (arp || nd || (tcp.dst == 80 || icmp))`, topology.ACLAllowRelated},
		{ctl + "OpenPort-ns1/web:Egress", topology.ACLFromLport, 1001, `inport == "ns1_web" && (arp || nd)`, topology.ACLAllow},
	}
	var got []row
	for _, a := range acls(t, s) {
		if a.PortGroup != pg {
			continue
		}
		id, _ := a.ExternalIDs.Get(policy.IDPrimary)
		got = append(got, row{id, a.Direction, a.Priority, a.Match, a.Action})
		if a.Tier != 0 || a.Name != "" || a.Meter != policy.MeterName || a.Log || len(a.Options) != 0 {
			t.Errorf("%s: tier %d name %q meter %q log %v options %v, want tier 0, unnamed, meter acl-logging, no log, no options",
				id, a.Tier, a.Name, a.Meter, a.Log, a.Options)
		}
		name, _ := a.ExternalIDs.Get(policy.IDName)
		dir, _ := a.ExternalIDs.Get(policy.IDDirection)
		if id != ctl+name+":"+dir {
			t.Errorf("%s: name %q direction %q", id, name, dir)
		}
	}
	cmpRow := func(a, b row) int { return strings.Compare(a.id, b.id) }
	slices.SortFunc(got, cmpRow)
	slices.SortFunc(want, cmpRow)
	if !slices.Equal(got, want) {
		t.Errorf("isolation ACLs\n got %+v\nwant %+v", got, want)
	}
	// Dual stack: one ARP/ND term per address, both families' sources.
	in := isolationFixture()
	in.DefaultNetwork.ManagementIPs = append(in.DefaultNetwork.ManagementIPs, netip.MustParseAddr("fd00:10:244:1::2"))
	s = plan(t, in)
	for _, w := range []string{"inport == @" + pg + " && (( arp && arp.tpa == 10.244.1.2 ) || ( nd && nd.target == fd00:10:244:1::2 ))",
		"outport == @" + pg + " && (ip4.src==10.244.1.2 || ip6.src==fd00:10:244:1::2)"} {
		if !slices.ContainsFunc(acls(t, s), func(a topology.ACL) bool { return a.Match == w }) {
			t.Errorf("dual stack: no ACL %q", w)
		}
	}
	// Without DefaultNetwork, none of it.
	in = isolationFixture()
	in.DefaultNetwork = nil
	if _, ok := plan(t, in).Get(topology.KindPortGroup, pg); ok {
		t.Error("isolation planned without DefaultNetwork")
	}
}

// TestIsolationIncremental: a pod's default port or open ports change only
// the isolation rows; a pod without either changes none of them.
func TestIsolationIncremental(t *testing.T) {
	in := isolationFixture()
	p, err := policy.New(in)
	if err != nil {
		t.Fatal(err)
	}
	web := in.Pods[0]
	web.OpenPorts = []policy.OpenPort{{Protocol: "udp", Port: 53}}
	ch, err := p.SetPod(web)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range ch {
		got = append(got, c.Op.String()+" "+c.Kind.String())
		if a, ok := c.Object.(topology.ACL); !ok || a.PortGroup != policy.IsolationPortGroupName() {
			t.Errorf("change %s is not an isolation ACL", c)
		}
	}
	if len(ch) != 2 {
		t.Errorf("open ports tcp 80 + icmp -> udp 53: %d changes %q, want 2 (the open-port ACLs)", len(ch), got)
	}
	client := in.Pods[3]
	client.DefaultPort = ""
	if ch, err = p.SetPod(client); err != nil || len(ch) != 1 || ch[0].Kind != topology.KindPortGroup {
		t.Errorf("default port gone: %v (%v), want the port group's update", ch, err)
	}
	if ch, err = p.SetPod(client); err != nil || len(ch) != 0 {
		t.Errorf("again: %v (%v)", ch, err)
	}
}

// TestParseOpenPorts: k8s.ovn.org/open-default-ports as the reference's
// util.UnmarshalUDNOpenPortsAnnotation checks it.
func TestParseOpenPorts(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     []policy.OpenPort
		err      string
	}{
		{"tcp and icmp", `[{"protocol":"tcp","port":80},{"protocol":"icmp"}]`, []policy.OpenPort{{"tcp", 80}, {"icmp", 0}}, ""},
		{"udp and sctp", `[{"protocol":"udp","port":53},{"protocol":"sctp","port":9}]`, []policy.OpenPort{{"udp", 53}, {"sctp", 9}}, ""},
		{"none", `[]`, []policy.OpenPort{}, ""},
		{"unknown protocol", `[{"protocol":"http","port":80}]`, nil, "[0].protocol"},
		{"icmp with a port", `[{"protocol":"icmp","port":1}]`, nil, "[0].port: invalid network policy input: icmp takes no port"},
		{"tcp without a port", `[{"protocol":"tcp","port":80},{"protocol":"tcp"}]`, nil, "[1].port"},
		{"port out of range", `[{"protocol":"tcp","port":65536}]`, nil, "65536 is not a port"},
		{"negative port", `[{"protocol":"udp","port":-1}]`, nil, "-1 is not a port"},
		{"not JSON", `- protocol: tcp`, nil, "is not a JSON list"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := policy.ParseOpenPorts(tc.in)
			if tc.err == "" {
				if err != nil || !slices.Equal(got, tc.want) {
					t.Errorf("got %v (%v), want %v", got, err, tc.want)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.err) || !errors.Is(err, policy.ErrInvalid) {
				t.Errorf("error %v, want one holding %q", err, tc.err)
			}
		})
	}
	// What parses plans.
	in := isolationFixture()
	in.Pods[0].OpenPorts = []policy.OpenPort{{Protocol: "icmp", Port: 3}}
	if _, err := policy.Plan(in); err == nil || !strings.Contains(err.Error(), "pod ns1/web: openPorts[0]") {
		t.Errorf("icmp with a port planned: %v", err)
	}
	in.Pods[0].OpenPorts = nil
	in.Pods[0].DefaultPort = `ns1_"web`
	if _, err := policy.Plan(in); err == nil || !strings.Contains(err.Error(), "pod ns1/web: defaultPort") {
		t.Errorf("a quote in the default port planned: %v", err)
	}
}
