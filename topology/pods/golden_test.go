package pods

import (
	"net/netip"
	"strings"
	"testing"

	"github.com/udnkit/udnkit/internal/golden"
	"github.com/udnkit/udnkit/ipam"
	"github.com/udnkit/udnkit/netconf"
	"github.com/udnkit/udnkit/netconf/udn"
	"github.com/udnkit/udnkit/topology"
)

func pfxs(ss ...string) []netip.Prefix {
	out := make([]netip.Prefix, len(ss))
	for i, s := range ss {
		out[i] = netip.MustParsePrefix(s)
	}
	return out
}

// TestGoldenPods writes, byte for byte, the ports and the pod-networks
// annotation of four pods: on a dual-stack Layer3 primary network, a
// dual-stack Layer2 primary network (transit-router topology), and with a
// secondary Layer2 and a Localnet attachment beside the default network.
func TestGoldenPods(t *testing.T) {
	l3 := &udn.Network{Name: "ns1_blue", ID: 1, Topology: udn.TopologyLayer3, Role: udn.RolePrimary,
		Subnets:     []udn.Subnet{{CIDR: netip.MustParsePrefix("10.128.0.0/16"), HostPrefix: 24}, {CIDR: netip.MustParsePrefix("fd00:10:128::/48"), HostPrefix: 64}},
		JoinSubnets: ipam.DefaultJoinSubnets()}
	l2 := &udn.Network{Name: "ns2_green", ID: 2, Topology: udn.TopologyLayer2, Role: udn.RolePrimary,
		Subnets:     []udn.Subnet{{CIDR: netip.MustParsePrefix("10.129.0.0/16")}, {CIDR: netip.MustParsePrefix("fd00:10:129::/64")}},
		JoinSubnets: ipam.DefaultJoinSubnets()}
	sec := &udn.Network{Name: "ns3_red", ID: 3, Topology: udn.TopologyLayer2, Role: udn.RoleSecondary,
		Subnets: []udn.Subnet{{CIDR: netip.MustParsePrefix("192.168.10.0/24")}}}
	lnet := &udn.Network{Name: "cluster_udn_physnet", ID: 4, Topology: udn.TopologyLocalnet, Role: udn.RoleSecondary,
		Subnets: []udn.Subnet{{CIDR: netip.MustParsePrefix("192.168.200.0/24")}}, PhysicalNetworkName: "physnet1", VLANID: 100}
	def := Attachment{Role: netconf.PodRoleInfrastructureLocked, IPs: pfxs("10.244.1.5/24", "fd00:10:244:1::5/64"),
		HostSubnets: pfxs("10.244.1.0/24", "fd00:10:244:1::/64")}
	base := Input{Nodes: nodes(), Zone: "node1",
		ServiceCIDRs: pfxs("10.96.0.0/16", "fd00:10:96::/112"), ClusterSubnets: pfxs("10.244.0.0/16", "fd00:10:244::/48")}
	cases := []struct {
		name string
		pod  string
		att  []Attachment
	}{
		{"layer3 primary, dual stack", "ns1/l3-pod", []Attachment{def,
			{Network: l3, NAD: "ns1/blue", Role: netconf.PodRolePrimary, IPs: pfxs("10.128.1.5/24", "fd00:10:128:1::5/64"),
				HostSubnets: pfxs("10.128.1.0/24", "fd00:10:128:1::/64")}}},
		{"layer2 primary, dual stack", "ns2/l2-pod", []Attachment{def,
			{Network: l2, NAD: "ns2/green", Role: netconf.PodRolePrimary, IPs: pfxs("10.129.0.5/16", "fd00:10:129::5/64"), TunnelID: 16715783}}},
		{"layer2 secondary", "ns3/sec-pod", []Attachment{
			{Role: netconf.PodRolePrimary, IPs: pfxs("10.244.1.6/24"), HostSubnets: pfxs("10.244.1.0/24")},
			{Network: sec, NAD: "ns3/red", Role: netconf.PodRoleSecondary, IPs: pfxs("192.168.10.5/24"), TunnelID: 7}}},
		{"localnet", "ns4/lnet-pod", []Attachment{
			{Role: netconf.PodRolePrimary, IPs: pfxs("10.244.1.7/24"), HostSubnets: pfxs("10.244.1.0/24")},
			{Network: lnet, NAD: "ns4/physnet", Role: netconf.PodRoleSecondary, IPs: pfxs("192.168.200.5/24")}}},
	}
	var out strings.Builder
	for _, c := range cases {
		in := base
		ns, name, _ := strings.Cut(c.pod, "/")
		in.Pod = Pod{Namespace: ns, Name: name, UID: "uid-" + name, Node: "node1"}
		in.Attachments = c.att
		p, err := PlanPod(in)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		out.WriteString("# " + c.name + "\n")
		for _, port := range p.Ports {
			out.WriteString(topology.Render(port) + "\n")
		}
		ann, err := p.Annotation.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		// The annotation reads back to the same value.
		back, err := netconf.ParsePodNetworks(ann)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if again, _ := back.Marshal(); again != ann {
			t.Errorf("%s: the annotation does not read back:\n%s\n%s", c.name, ann, again)
		}
		out.WriteString(netconf.AnnotationPodNetworks + ": " + ann + "\n\n")
	}
	golden.Check(t, "pods.txt", out.String())
}
