package vrf

import (
	"errors"
	"fmt"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/udnkit/udnkit/internal/golden"
	"github.com/udnkit/udnkit/ipam"
	"github.com/udnkit/udnkit/netconf/udn"
)

func pfx(s string) netip.Prefix { return netip.MustParsePrefix(s) }
func addr(s string) netip.Addr  { return netip.MustParseAddr(s) }

// seedNode is the seed's example node ovn-worker with a Layer3 UDN (ID 1,
// 10.128.0.0/16, node subnet 10.128.1.0/24) and a Layer2 CUDN (ID 2,
// dual-stack 203.203.0.0/16 and 2010:100:200::/60, explicit vrf).
func seedNode() Input {
	return Input{
		Node: Node{Name: "ovn-worker", Bridge: "breth0", Gateways: []netip.Addr{addr("172.18.0.1"), addr("fc00::1")},
			KubeletCgroup: "kubelet.slice/kubelet.service"},
		Networks: []Network{
			{Network: &udn.Network{Name: "ns1_blue", ID: 1, Topology: udn.TopologyLayer3, Role: udn.RolePrimary,
				Subnets: []udn.Subnet{{CIDR: pfx("10.128.0.0/16"), HostPrefix: 24}}}, HostSubnets: []netip.Prefix{pfx("10.128.1.0/24")},
				NodePorts: []L4Port{{TCP, 30724}}},
			{Network: &udn.Network{Name: "cluster_udn_green", ID: 2, Topology: udn.TopologyLayer2, Role: udn.RolePrimary, MTU: 1300, VRF: "green-vrf",
				Subnets: []udn.Subnet{{CIDR: pfx("203.203.0.0/16")}, {CIDR: pfx("2010:100:200::/60")}}}, CUDN: "green",
				ExternalIPs: []Endpoint{{addr("172.18.0.200"), L4Port{UDP, 53}}}},
		},
		Cluster: Cluster{ServiceCIDRs: []netip.Prefix{pfx("10.96.0.0/16"), pfx("fd00:10:96::/112")}},
		Pods: Pods{DefaultIPs: []netip.Addr{addr("10.244.1.5"), addr("fd00:10:244:1::5")},
			OpenPorts: []Endpoint{{addr("10.244.1.5"), L4Port{TCP, 8080}}}, OpenICMP: []netip.Addr{addr("10.244.1.5")}},
	}
}

func mustPlan(t testing.TB, in Input) State {
	t.Helper()
	s, err := Plan(in)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestPlanGolden(t *testing.T) {
	s := mustPlan(t, seedNode())
	golden.Check(t, "seed_node.sh", s.Script())
	if again := mustPlan(t, seedNode()); !reflect.DeepEqual(again, s) {
		t.Error("planning twice differs")
	}
}

func TestPlanFacts(t *testing.T) {
	s := mustPlan(t, seedNode())
	script := s.Script()
	for _, want := range []string{
		"ip link add name udn-1-vrf type vrf table 1001",
		"ip link add name green-vrf type vrf table 1002",
		"ip link set dev ovn-k8s-mp1 address 0a:58:0a:80:01:02 mtu 1400 master udn-1-vrf up",
		"ip addr add 10.128.1.2/24 dev ovn-k8s-mp1",
		"ip route add 10.96.0.0/16 via 169.254.0.4 dev breth0 src 169.254.0.2 mtu 1400 proto 85 table 1001",
		"ip route add default via 172.18.0.1 dev breth0 mtu 1400 proto 85 table 1001",
		"ip route add 169.254.0.12/32 dev ovn-k8s-mp1 mtu 1400 proto 85 table 1001",
		"ip route add 169.254.0.3/32 via 10.128.1.1 dev ovn-k8s-mp1 proto 85 table 1001",
		"ip route add 10.128.0.0/16 via 10.128.1.1 dev ovn-k8s-mp1 proto 85 table 1001",
		"ip route add unreachable default metric 4278198272 proto 85 table 1001",
		"ip -6 route add default via fc00::1 dev breth0 mtu 1300 proto 85 table 1002",
		"ip rule add priority 2000 fwmark 0x1001 lookup 1001",
		"ip rule add priority 2000 to 169.254.0.12/32 lookup 1001",
		"ip -6 rule add priority 2000 fwmark 0x1002 lookup 1002",
		`socket cgroupv2 level 2 "kubelet.slice/kubelet.service" ip daddr @udn-pod-default-ips-v4 accept`,
		"tcp . 30724 : jump udn-mark-0x1001",
		"172.18.0.200 . udp . 53 : jump udn-mark-0x1002",
		"meta mark set 0x00001002",
	} {
		if !strings.Contains(script, want) {
			t.Errorf("plan lacks %q", want)
		}
	}
	// Layer2 networks route no cluster subnet through the management port.
	if strings.Contains(script, "203.203.0.0/16 via") {
		t.Error("a Layer2 network routes its subnet through the management port")
	}
	if len(s.Warnings) != 0 {
		t.Errorf("warnings with a kubelet cgroup: %v", s.Warnings)
	}
}

func TestVRFNames(t *testing.T) {
	n := func(id int, cudn, vrf string) Network {
		return Network{Network: &udn.Network{ID: id, VRF: vrf}, CUDN: cudn}
	}
	for _, tc := range []struct {
		n    Network
		want string
	}{
		{n(7, "", ""), "udn-7-vrf"},
		{n(7, "short", ""), "short"},
		{n(7, "exactly-15-char", ""), "exactly-15-char"},
		{n(7, "sixteen-chars-xx", ""), "udn-7-vrf"},
		{n(7, "any", "set-vrf"), "set-vrf"},
	} {
		if got := VRFName(tc.n); got != tc.want {
			t.Errorf("VRFName(%+v) = %q, want %q", tc.n.CUDN, got, tc.want)
		}
	}
}

func TestPlanRefuses(t *testing.T) {
	for name, mod := range map[string]func(*Input){
		"no bridge":        func(in *Input) { in.Node.Bridge = "" },
		"long vrf":         func(in *Input) { in.Networks[1].Network.VRF = "a-vrf-name-too-long" },
		"same vrf twice":   func(in *Input) { in.Networks[1].Network.VRF = "udn-1-vrf" },
		"secondary":        func(in *Input) { in.Networks[0].Network.Role = udn.RoleSecondary },
		"no id":            func(in *Input) { in.Networks[0].Network.ID = 0 },
		"no host subnet":   func(in *Input) { in.Networks[0].HostSubnets = nil },
		"no masq of a fam": func(in *Input) { in.Cluster.MasqueradeSubnets = []netip.Prefix{pfx("169.254.0.0/17")} },
	} {
		in := seedNode()
		in.Networks[0].Network = in.Networks[0].Network.Clone()
		in.Networks[1].Network = in.Networks[1].Network.Clone()
		mod(&in)
		if _, err := Plan(in); err == nil {
			t.Errorf("%s: planned", name)
		} else if !errors.Is(err, ErrInvalid) && !errors.Is(err, ipam.ErrInvalid) {
			t.Errorf("%s: %v, want ErrInvalid", name, err)
		}
	}
}

// TestNoKubeletCgroup: without a kubelet cgroup the plan warns (the
// reference's UDNKubeletProbesNotSupported) and drops pod traffic still.
func TestNoKubeletCgroup(t *testing.T) {
	in := seedNode()
	in.Node.KubeletCgroup = ""
	s := mustPlan(t, in)
	if len(s.Warnings) != 1 || s.Warnings[0].Reason != "UDNKubeletProbesNotSupported" {
		t.Fatalf("warnings %v", s.Warnings)
	}
	if strings.Contains(s.NFT.String(), "cgroupv2") || !strings.Contains(s.NFT.String(), "ip daddr @udn-pod-default-ips-v4 drop") {
		t.Errorf("nftables without a kubelet cgroup:\n%s", s.NFT)
	}
}

// TestAddingANetworkTouchesOnlyItsObjects: the plan of n+1 networks holds
// the plan of n unchanged.
func TestAddingANetworkTouchesOnlyItsObjects(t *testing.T) {
	in := seedNode()
	one := in
	one.Networks = in.Networks[:1]
	a, b := mustPlan(t, one), mustPlan(t, in)
	for _, r := range a.Routes {
		if !contains(b.Routes, r) {
			t.Errorf("route %s changed when a network was added", r)
		}
	}
	for _, r := range b.Routes {
		if !contains(a.Routes, r) && r.Table != 1002 {
			t.Errorf("adding network 2 adds route %s to another table", r)
		}
	}
}

func contains[T comparable](s []T, v T) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// TestNFTAcceptedByTheKernel loads the planned table into nftables in a
// fresh network namespace (nft -c checks it against the kernel without
// applying it).
func TestNFTAcceptedByTheKernel(t *testing.T) {
	nft, err := exec.LookPath("nft")
	if err != nil {
		skip(t, "nft is not installed (apt-get install nftables)")
	}
	if os.Geteuid() != 0 {
		skip(t, "loading nftables needs root")
	}
	in := seedNode()
	in.Node.KubeletCgroup = "" // a cgroup path must exist to load; the rule's syntax is in the golden file
	file := filepath.Join(t.TempDir(), "udn.nft")
	if err := os.WriteFile(file, []byte(mustPlan(t, in).NFT.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("unshare", "-n", nft, "-c", "-f", file).CombinedOutput()
	if err != nil {
		t.Fatalf("nft refuses the plan: %v\n%s", err, out)
	}
}

func skip(t *testing.T, why string) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf("CI=true and %s", why)
	}
	t.Skip(why)
}

// BenchmarkPlan500 plans 500 primary networks on one node and diffs the
// plan against the node's state without the first one.
func BenchmarkPlan500(b *testing.B) {
	in := seedNode()
	in.Networks = nil
	for i := range 500 {
		in.Networks = append(in.Networks, Network{Network: &udn.Network{Name: fmt.Sprintf("ns%d_n", i), ID: i + 1,
			Topology: udn.TopologyLayer3, Role: udn.RolePrimary,
			Subnets: []udn.Subnet{{CIDR: netip.PrefixFrom(netip.AddrFrom4([4]byte{10, byte(i / 256), byte(i % 256), 0}), 24), HostPrefix: 28}}},
			HostSubnets: []netip.Prefix{netip.PrefixFrom(netip.AddrFrom4([4]byte{10, byte(i / 256), byte(i % 256), 16}), 28)},
			NodePorts:   []L4Port{{TCP, uint16(30000 + i)}}})
	}
	fewer := in
	fewer.Networks = in.Networks[1:]
	observed, err := Plan(fewer)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	var changes int
	for b.Loop() {
		s, err := Plan(in)
		if err != nil {
			b.Fatal(err)
		}
		changes = Diff(observed, s).Len()
	}
	b.ReportMetric(float64(changes), "changes/op")
}

// FuzzPlan: what Plan accepts validates (the kernel backend takes it),
// converges (Diff(plan, plan) is empty), renders a script whose nft part
// cannot end early, and plans the same again; what it refuses is an error
// with a sentinel and a bounded message.
func FuzzPlan(f *testing.F) {
	f.Add(uint16(1), uint16(2), "green", "", uint8(24), true, 0, 0, "ns1_blue", "breth0", "kubelet.slice/kubelet.service", uint16(30724), false)
	f.Add(uint16(1), uint16(1), "a;>x", "$(x)", uint8(33), false, 254, -1, "k\" ; }", "b r", "a\"b", uint16(0), true)
	f.Fuzz(func(t *testing.T, id1, id2 uint16, cudn, vrf string, hostPrefix uint8, v6 bool, table, mtu int, name, bridge, cgroup string,
		nodePort uint16, secondGateway bool) {
		in := clonedSeed()
		in.Networks[0].Network.ID, in.Networks[1].Network.ID = int(id1), int(id2)
		in.Networks[1].CUDN, in.Networks[1].Network.VRF = cudn, vrf
		in.Networks[0].HostSubnets = []netip.Prefix{netip.PrefixFrom(addr("10.128.1.0"), int(hostPrefix%33)).Masked()}
		in.Networks[1].Table, in.Networks[1].Network.MTU = table, mtu
		in.Networks[1].Network.Name, in.Node.Bridge, in.Node.KubeletCgroup = name, bridge, cgroup
		in.Networks[1].NodePorts = []L4Port{{TCP, nodePort}}
		if !v6 {
			in.Networks[1].Network.Subnets = in.Networks[1].Network.Subnets[:1]
		}
		if secondGateway {
			in.Node.Gateways = append(in.Node.Gateways, addr("172.18.0.2"))
		}
		// Egress IPs from the port's bytes: global, loopback, unspecified
		// or repeated ones come up.
		eip := netip.AddrFrom4([4]byte{byte(nodePort >> 8), 18, 0, byte(nodePort)})
		in.Node.EgressIPs = []netip.Addr{eip, netip.AddrFrom4([4]byte{127 * byte(id2%2), 0, 0, byte(id1)})}
		s, err := Plan(in)
		if err != nil {
			if !errors.Is(err, ErrInvalid) && !errors.Is(err, ipam.ErrInvalid) && !errors.Is(err, ipam.ErrOutOfRange) {
				t.Fatalf("error without a sentinel: %v", err)
			}
			if len(err.Error()) > 1024 {
				t.Fatalf("a %d-byte message", len(err.Error()))
			}
			return
		}
		if err := s.Validate(); err != nil {
			t.Fatalf("a plan that does not validate: %v", err)
		}
		if d := Diff(s, s); d.Len() != 0 {
			t.Fatalf("Diff(plan, plan) = %+v", d)
		}
		for _, l := range s.Links {
			if len(l.Name) > MaxLinkName || l.Name == "" {
				t.Fatalf("link name %q", l.Name)
			}
		}
		script := s.Script()
		if strings.Count(script, "\nEOF\n") != 1 || strings.Count(script, "nft -f -") != 1 {
			t.Fatalf("the nft part can end early:\n%s", script)
		}
		if again, _ := Plan(in); !reflect.DeepEqual(again, s) {
			t.Fatal("planning twice differs")
		}
	})
}

// TestDiff: a network added is its own links, routes, rules, marking chain
// and map elements; Diff(s, s) is empty.
func TestDiff(t *testing.T) {
	in := seedNode()
	one := in
	one.Networks = in.Networks[:1]
	a, b := mustPlan(t, one), mustPlan(t, in)
	if d := Diff(b, b); d.Len() != 0 {
		t.Errorf("Diff(s, s) = %+v", d)
	}
	d := Diff(a, b)
	if len(d.DeleteLinks)+len(d.DeleteRoutes)+len(d.DeleteRules)+len(d.DeleteChains) != 0 || len(d.DeleteElements) != 0 {
		t.Errorf("adding a network deletes: %+v", d)
	}
	if len(d.AddLinks) != 2 || len(d.AddChains) != 1 || d.AddChains[0].Name != "udn-mark-0x1002" ||
		len(d.AddElements["udn-mark-external-ips-v4"]) != 1 {
		t.Errorf("adding a network: %+v", d)
	}
	for _, r := range d.AddRoutes {
		if r.Table != 1002 {
			t.Errorf("adding network 2 adds route %s", r)
		}
	}
	back := Diff(b, a)
	if len(back.DeleteLinks) != 2 || len(back.AddLinks)+len(back.AddRoutes)+len(back.AddRules) != 0 {
		t.Errorf("removing it: %+v", back)
	}
}

// TestHostNetworkedPodRules: the seed's service access of host-networked
// pods in UDN namespaces comes first in udn-isolation: their cluster IPs
// accepted, the service CIDRs dropped, matched by the pod's cgroup.
func TestHostNetworkedPodRules(t *testing.T) {
	in := seedNode()
	in.Pods.HostNetworked = []HostNetworkedPod{{Namespace: "ns1", Name: "router",
		Cgroup: "/kubelet.slice/kubelet-kubepods.slice/pod42.slice/", AllowedIPs: []netip.Addr{addr("10.96.0.1"), addr("10.96.0.1")}}}
	s := mustPlan(t, in)
	var iso Chain
	for _, c := range s.NFT.Chains {
		if c.Name == "udn-isolation" {
			iso = c
		}
	}
	want := []string{
		`socket cgroupv2 level 3 "kubelet.slice/kubelet-kubepods.slice/pod42.slice" ip daddr 10.96.0.1 accept`,
		`socket cgroupv2 level 3 "kubelet.slice/kubelet-kubepods.slice/pod42.slice" ip daddr 10.96.0.0/16 drop`,
		`socket cgroupv2 level 3 "kubelet.slice/kubelet-kubepods.slice/pod42.slice" ip6 daddr fd00:10:96::/112 drop`,
	}
	var got []string
	for _, r := range iso.Rules {
		got = append(got, r.String())
	}
	if len(got) < 3 || !reflect.DeepEqual(got[:3], want) {
		t.Errorf("udn-isolation starts with\n%s", strings.Join(got, "\n"))
	}
}

// TestAdvertisedRule: only an advertised network's subnets look up its
// table.
func TestAdvertisedRule(t *testing.T) {
	in := seedNode()
	if strings.Contains(mustPlan(t, in).Script(), "to 10.128.0.0/16 lookup") {
		t.Error("a network that is not advertised gets a rule to its subnet")
	}
	in.Networks[0].Advertised = true
	if !strings.Contains(mustPlan(t, in).Script(), "ip rule add priority 2000 to 10.128.0.0/16 lookup 1001\n") {
		t.Error("an advertised network has no rule to its subnet")
	}
}

// TestEgressIPAddresses: the node's egress IPs are planned on its bridge,
// sorted, and the script adds each with the SDK's protocol (IPv6 without
// DAD); a Diff moves exactly the egress IP that changed.
func TestEgressIPAddresses(t *testing.T) {
	in := seedNode()
	in.Node.EgressIPs = []netip.Addr{addr("fc00::64"), addr("172.18.0.100")}
	s := mustPlan(t, in)
	want := []Address{{Dev: in.Node.Bridge, Addr: addr("172.18.0.100")}, {Dev: in.Node.Bridge, Addr: addr("fc00::64")}}
	if !slices.Equal(s.Addresses, want) {
		t.Fatalf("addresses %v, want %v", s.Addresses, want)
	}
	script := s.IPScript()
	for _, line := range []string{
		"ip addr add 172.18.0.100/32 dev " + in.Node.Bridge + " proto 85\n",
		"ip -6 addr add fc00::64/128 dev " + in.Node.Bridge + " proto 85 nodad\n",
	} {
		if !strings.Contains(script, line) {
			t.Errorf("the script lacks %q:\n%s", line, script)
		}
	}
	in.Node.EgressIPs = []netip.Addr{addr("172.18.0.101"), addr("fc00::64")}
	c := Diff(s, mustPlan(t, in))
	if c.Len() != 2 || !slices.Equal(c.AddAddresses, []Address{{Dev: in.Node.Bridge, Addr: addr("172.18.0.101")}}) ||
		!slices.Equal(c.DeleteAddresses, []Address{{Dev: in.Node.Bridge, Addr: addr("172.18.0.100")}}) {
		t.Errorf("an egress IP moved: %+v", c)
	}
}
