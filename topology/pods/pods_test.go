package pods

import (
	"errors"
	"net/netip"
	"strings"
	"testing"

	"github.com/udnkit/udnkit/ipam"
	"github.com/udnkit/udnkit/netconf"
	"github.com/udnkit/udnkit/netconf/udn"
	"github.com/udnkit/udnkit/topology"
)

func nodes() []topology.Node {
	return []topology.Node{{Name: "node1", ID: 2, Chassis: "chassis-1"}, {Name: "node2", ID: 3, Chassis: "chassis-2"}}
}

var (
	blue = &udn.Network{Name: "ns1_blue", ID: 1, Topology: udn.TopologyLayer3, Role: udn.RolePrimary,
		Subnets: []udn.Subnet{{CIDR: netip.MustParsePrefix("10.128.0.0/16"), HostPrefix: 24}}, JoinSubnets: ipam.DefaultJoinSubnets()[:1]}
	red = &udn.Network{Name: "ns1_red", ID: 2, Topology: udn.TopologyLayer2, Role: udn.RoleSecondary,
		Subnets: []udn.Subnet{{CIDR: netip.MustParsePrefix("192.168.10.0/24")}}}
)

func podInput(node string) Input {
	return Input{
		Pod: Pod{Namespace: "ns1", Name: "pod-a", UID: "uid-a", Node: node},
		Attachments: []Attachment{
			{Role: netconf.PodRoleInfrastructureLocked, IPs: []netip.Prefix{netip.MustParsePrefix("10.244.1.5/24")},
				HostSubnets: []netip.Prefix{netip.MustParsePrefix("10.244.1.0/24")}},
			{Network: blue, NAD: "ns1/blue", Role: netconf.PodRolePrimary, IPs: []netip.Prefix{netip.MustParsePrefix("10.128.1.5/24")},
				HostSubnets: []netip.Prefix{netip.MustParsePrefix("10.128.1.0/24")}},
			{Network: red, NAD: "ns1/red", Role: netconf.PodRoleSecondary, IPs: []netip.Prefix{netip.MustParsePrefix("192.168.10.5/24")}, TunnelID: 7},
		},
		Nodes: nodes(), Zone: "node1",
		ServiceCIDRs:   []netip.Prefix{netip.MustParsePrefix("10.96.0.0/16")},
		ClusterSubnets: []netip.Prefix{netip.MustParsePrefix("10.244.0.0/16")},
	}
}

func TestPlanPodLocal(t *testing.T) {
	got, err := PlanPod(podInput("node1"))
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	for _, p := range got.Ports {
		text.WriteString(topology.Render(p) + "\n")
	}
	want := `switch_port ns1.blue_ns1_pod-a switch=ns1_blue_node1 addresses=["0a:58:0a:80:01:05 10.128.1.5"] port_security=["0a:58:0a:80:01:05 10.128.1.5"] options={iface-id-ver=uid-a, requested-chassis=chassis-1} external_ids={k8s.ovn.org/nad=ns1/blue, namespace=ns1, pod=true} owner=udnkit-pods:ns1_blue/Layer3/Primary/node1
switch_port ns1.red_ns1_pod-a switch=ns1_red_ovn_layer2_switch addresses=["0a:58:c0:a8:0a:05 192.168.10.5"] port_security=["0a:58:c0:a8:0a:05 192.168.10.5"] options={iface-id-ver=uid-a, requested-chassis=chassis-1, requested-tnl-key=7} external_ids={k8s.ovn.org/nad=ns1/red, namespace=ns1, pod=true} owner=udnkit-pods:ns1_red/Layer2/Secondary/node1
`
	if text.String() != want {
		t.Errorf("ports\n%s\nwant\n%s", text.String(), want)
	}
	ann, err := got.Annotation.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	wantAnn := `{"default":{"ip_addresses":["10.244.1.5/24"],"mac_address":"0a:58:0a:f4:01:05","routes":[{"dest":"10.244.0.0/16","nextHop":"10.244.1.1"},{"dest":"100.64.0.0/16","nextHop":"10.244.1.1"}],"ip_address":"10.244.1.5/24","role":"infrastructure-locked"},` +
		`"ns1/blue":{"ip_addresses":["10.128.1.5/24"],"mac_address":"0a:58:0a:80:01:05","gateway_ips":["10.128.1.1"],"routes":[{"dest":"10.128.0.0/16","nextHop":"10.128.1.1"},{"dest":"10.96.0.0/16","nextHop":"10.128.1.1"},{"dest":"100.65.0.0/16","nextHop":"10.128.1.1"}],"ip_address":"10.128.1.5/24","gateway_ip":"10.128.1.1","role":"primary"},` +
		`"ns1/red":{"ip_addresses":["192.168.10.5/24"],"mac_address":"0a:58:c0:a8:0a:05","ip_address":"192.168.10.5/24","tunnel_id":7,"role":"secondary"}}`
	if ann != wantAnn {
		t.Errorf("annotation\n%s\nwant\n%s", ann, wantAnn)
	}
}

// A pod of another zone: no port on the Layer3 network (its node's switch
// is not in this zone), a remote port on the Layer2 one.
func TestPlanPodRemote(t *testing.T) {
	got, err := PlanPod(podInput("node2"))
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Ports) != 1 || got.Ports[0].Type != topology.PortRemote || got.Ports[0].Switch != "ns1_red_ovn_layer2_switch" {
		t.Fatalf("remote pod's ports: %+v", got.Ports)
	}
	if v, _ := got.Ports[0].Options.Get(topology.OptRequestedChassis); v != "chassis-2" {
		t.Errorf("requested-chassis %q", v)
	}
	if _, ok := got.Ports[0].Options.Get(OptIfaceID); ok {
		t.Error("a remote port carries iface-id-ver")
	}
}

func TestPlanPodRefusesOverlaps(t *testing.T) {
	in := podInput("node1")
	clash := *red
	clash.Name, clash.Subnets = "ns1_clash", []udn.Subnet{{CIDR: netip.MustParsePrefix("10.128.5.0/24")}}
	in.Attachments[2].Network = &clash
	_, err := PlanPod(in)
	if !errors.Is(err, ErrOverlap) || !strings.Contains(err.Error(), `"ns1_blue"`) || !strings.Contains(err.Error(), `"ns1_clash"`) {
		t.Errorf("overlapping networks: %v", err)
	}
	in = podInput("node9")
	if _, err := PlanPod(in); !errors.Is(err, ErrInvalid) {
		t.Errorf("unknown node: %v", err)
	}
}

// TestPlanNodeIsIncremental: the node's state changes by exactly one
// pod's ports when a pod comes.
func TestPlanNodeIsIncremental(t *testing.T) {
	a, _ := PlanPod(podInput("node1"))
	inB := podInput("node1")
	inB.Pod.Name, inB.Pod.UID = "pod-b", "uid-b"
	for i := range inB.Attachments {
		ip := inB.Attachments[i].IPs[0]
		inB.Attachments[i].IPs = []netip.Prefix{netip.PrefixFrom(ip.Addr().Next(), ip.Bits())}
	}
	b, err := PlanPod(inB)
	if err != nil {
		t.Fatal(err)
	}
	nets := []string{"ns1_blue", "ns1_red"}
	one, err := PlanNode("node1", nets, []Planned{a})
	if err != nil {
		t.Fatal(err)
	}
	two, err := PlanNode("node1", nets, []Planned{a, b})
	if err != nil {
		t.Fatal(err)
	}
	d := topology.Diff(one, two)
	if c, u, del := d.Count(); c != 2 || u+del != 0 {
		t.Errorf("a second pod: %s", d)
	}
	// Another node's pods are out of the node's scope.
	other, _ := PlanNode("node2", nets, nil)
	if d := topology.Diff(two, other); len(d) != 0 {
		t.Errorf("node2's empty plan touches node1's pods: %s", d)
	}
}

// TestChanges: a pod's own changes, whatever else exists: it comes (its
// ports created), changes (one port updated), goes (its ports deleted).
func TestChanges(t *testing.T) {
	a, err := PlanPod(podInput("node1"))
	if err != nil {
		t.Fatal(err)
	}
	ch, err := Changes(Planned{}, a)
	if c, u, d := ch.Count(); err != nil || c != 2 || u+d != 0 {
		t.Errorf("a pod comes: %v\n%s", err, ch)
	}
	in := podInput("node1")
	in.Pod.UID = "uid-a2" // recreated: iface-id-ver changes
	a2, _ := PlanPod(in)
	ch, err = Changes(a, a2)
	if c, u, d := ch.Count(); err != nil || u != 2 || c+d != 0 {
		t.Errorf("a pod recreated: %v\n%s", err, ch)
	}
	ch, err = Changes(a2, Planned{})
	if c, u, d := ch.Count(); err != nil || d != 2 || c+u != 0 {
		t.Errorf("a pod goes: %v\n%s", err, ch)
	}
}
