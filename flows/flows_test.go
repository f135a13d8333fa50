package flows

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/udnkit/udnkit/internal/golden"
)

func mac(s string) net.HardwareAddr {
	m, err := net.ParseMAC(s)
	if err != nil {
		panic(err)
	}
	return m
}

// seedInput is the seed's two-network example node: ovn-worker at
// 172.18.0.3 (and fc00::3), networks 1 and 2 with overlapping pod subnets,
// each with one cluster IP (10.96.0.5, 10.96.0.6).
func seedInput() Input {
	return Input{
		Node: Node{Bridge: "breth0", Physical: Port{"eth0", 1}, MAC: mac("02:42:ac:12:00:03"),
			IPs:          []netip.Addr{netip.MustParseAddr("172.18.0.3"), netip.MustParseAddr("fc00::3")},
			DefaultPatch: Port{"patch-breth0_ovn-worker-to-br-int", 2}},
		Networks: []Network{
			{ID: 1, Name: "ns1_net1", Patch: Port{"patch-breth0_ns1_net1_ovn-worker-to-br-int", 3}, GatewayMAC: mac("02:42:ac:12:00:05"),
				IPv4: true, IPv6: true, ClusterIPs: []netip.Addr{netip.MustParseAddr("10.96.0.5")}},
			{ID: 2, Name: "ns2_net2", Patch: Port{"patch-breth0_ns2_net2_ovn-worker-to-br-int", 4}, GatewayMAC: mac("02:42:ac:12:00:06"),
				IPv4: true, ClusterIPs: []netip.Addr{netip.MustParseAddr("10.96.0.6")}},
		},
		Cluster: Cluster{ServiceCIDRs: []netip.Prefix{netip.MustParsePrefix("10.96.0.0/16"), netip.MustParsePrefix("fd00:10:96::/112")}},
	}
}

func mustPlan(t testing.TB, in Input) []Flow {
	t.Helper()
	fs, err := Plan(in)
	if err != nil {
		t.Fatal(err)
	}
	return fs
}

func TestPlanGolden(t *testing.T) {
	fs := mustPlan(t, seedInput())
	golden.Check(t, "seed_two_networks.flows", Text(fs))
	again := mustPlan(t, seedInput())
	if !slices.Equal(fs, again) {
		t.Error("planning twice differs")
	}
	if d := Diff(fs, again); d.Len() != 0 {
		t.Errorf("Diff(fs, fs) = %+v", d)
	}
}

var portRE = regexp.MustCompile(`(?:in_port=|output:)(\d+|LOCAL)`)

// TestNothingCrossesNetworks: a flow that takes traffic of one network (its
// patch port, its GR masquerade source, its ct_mark, its pkt_mark, its
// reg1) outputs only to that network's patch port, the uplink or the host.
func TestNothingCrossesNetworks(t *testing.T) {
	in := seedInput()
	for i := 3; i < 40; i++ {
		in.Networks = append(in.Networks, Network{ID: i, Name: fmt.Sprintf("n%d", i), Patch: Port{fmt.Sprintf("p%d", i), 10 + i},
			GatewayMAC: mac("02:00:00:00:00:01"), IPv4: true, IPv6: i%2 == 0,
			ClusterIPs: []netip.Addr{netip.AddrFrom4([4]byte{10, 96, 1, byte(i)})}})
	}
	fs := mustPlan(t, in)
	owner := map[string]int{"2": 0} // ofport -> network ID (0: default)
	for _, n := range in.Networks {
		owner[fmt.Sprint(n.Patch.OFPort)] = n.ID
	}
	for _, f := range fs {
		var from []int
		if m := regexp.MustCompile(`in_port=(\d+)`).FindStringSubmatch(f.Match); m != nil {
			if id, ok := owner[m[1]]; ok {
				from = append(from, id)
			}
		}
		for _, key := range []string{"ct_mark=0x", "pkt_mark=0x", "reg1=0x"} {
			if i := strings.Index(f.Match, key); i >= 0 {
				var v int
				fmt.Sscanf(f.Match[i+len(key):], "%x", &v)
				switch key {
				case "ct_mark=0x":
					if v >= CtMarkNetworkBase {
						from = append(from, v-CtMarkNetworkBase)
					} else if v == CtMarkOVN {
						from = append(from, 0)
					}
				case "pkt_mark=0x":
					from = append(from, v-PktMarkNetworkBase)
				case "reg1=0x":
					from = append(from, v-CtMarkNetworkBase)
				}
			}
		}
		if len(from) == 0 || strings.Contains(f.Match, "dl_dst=") && !strings.Contains(f.Match, "in_port") {
			continue // shared flows: the fan-out of the bridge MAC, the host's
		}
		for _, m := range portRE.FindAllStringSubmatch(f.Actions, -1) {
			id, isPatch := owner[m[1]]
			if isPatch && !slices.Contains(from, id) {
				t.Errorf("flow of network %v outputs to network %d's patch port: %s", from, id, f)
			}
		}
	}
}

// TestClusterIPChange: adding a cluster IP to a network is one flow (two
// for its network's first one, with the table-2 dispatch).
func TestClusterIPChange(t *testing.T) {
	in := seedInput()
	before := mustPlan(t, in)
	in.Networks[0].ClusterIPs = append(in.Networks[0].ClusterIPs, netip.MustParseAddr("10.96.7.7"))
	if d := Diff(before, mustPlan(t, in)); len(d.Add) != 1 || len(d.Delete) != 0 ||
		!strings.Contains(d.Add[0].Match, "nw_dst=10.96.7.7") {
		t.Errorf("one more cluster IP: %+v", d)
	}
	in = seedInput()
	in.Networks[1].ClusterIPs = nil
	before = mustPlan(t, in)
	in.Networks[1].ClusterIPs = []netip.Addr{netip.MustParseAddr("10.96.0.6")}
	if d := Diff(before, mustPlan(t, in)); len(d.Add) != 2 || len(d.Delete) != 0 {
		t.Errorf("a network's first cluster IP: %+v", d)
	}
}

func TestDiffReplacesChangedActions(t *testing.T) {
	a := []Flow{{Table: 0, Priority: 10, Match: "ip", Actions: "drop"}, {Table: 1, Priority: 5, Match: "ip", Actions: "NORMAL"}}
	b := []Flow{{Table: 0, Priority: 10, Match: "ip", Actions: "output:3"}}
	d := Diff(a, b)
	if len(d.Add) != 1 || d.Add[0].Actions != "output:3" || len(d.Delete) != 1 || d.Delete[0].Table != 1 {
		t.Errorf("Diff = %+v", d)
	}
}

func TestPlanErrors(t *testing.T) {
	for name, mod := range map[string]func(*Input){
		"no bridge":      func(in *Input) { in.Node.Bridge = "" },
		"no uplink port": func(in *Input) { in.Node.Physical.OFPort = 0 },
		"short MAC":      func(in *Input) { in.Node.MAC = in.Node.MAC[:4] },
		"no node IP":     func(in *Input) { in.Node.IPs = nil },
		"network ID 0":   func(in *Input) { in.Networks[0].ID = 0 },
		"same ID twice":  func(in *Input) { in.Networks[1].ID = 1 },
		"no gateway MAC": func(in *Input) { in.Networks[0].GatewayMAC = nil },
		"no masq of a fam": func(in *Input) {
			in.Cluster.MasqueradeSubnets = []netip.Prefix{netip.MustParsePrefix("169.254.0.0/17")}
		},
	} {
		in := seedInput()
		mod(&in)
		if _, err := Plan(in); !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: %v, want ErrInvalid", name, err)
		}
	}
}

// FuzzPlan: what Plan accepts is sorted, converges (Diff(plan, plan) is
// empty), never sends one network's traffic to another's patch port (the
// ports are distinct), and renders a script with one command per flow;
// what it refuses wraps ErrInvalid with a bounded message.
func FuzzPlan(f *testing.F) {
	f.Add(uint16(1), uint16(2), []byte{10, 96, 0, 5}, true, false, 3, 4, "breth0", "ns2_net2", uint8(2))
	f.Add(uint16(1), uint16(1), []byte{10, 200, 0, 5}, false, true, 1, 1, "a;>x", "k\x00", uint8(0))
	f.Fuzz(func(t *testing.T, id1, id2 uint16, cip []byte, v6, sameMAC bool, port1, port2 int, bridge, name string, nodeIPs uint8) {
		in := seedInput()
		in.Networks[0].ID, in.Networks[1].ID = int(id1), int(id2)
		in.Networks[1].IPv6 = v6
		in.Networks[0].Patch.OFPort, in.Networks[1].Patch.OFPort = port1, port2
		in.Node.Bridge, in.Networks[1].Name = bridge, name
		in.Node.IPs = in.Node.IPs[:min(int(nodeIPs%3), 2)]
		if sameMAC {
			in.Networks[1].GatewayMAC = in.Node.MAC
		}
		if len(cip) >= 4 {
			in.Networks[1].ClusterIPs = []netip.Addr{netip.AddrFrom4([4]byte(cip[:4]))}
		}
		fs, err := Plan(in)
		if err != nil {
			if !errors.Is(err, ErrInvalid) && !strings.Contains(err.Error(), "masquerade") {
				t.Fatalf("error without ErrInvalid: %v", err)
			}
			if len(err.Error()) > 1024 {
				t.Fatalf("a %d-byte message", len(err.Error()))
			}
			return
		}
		if !slices.IsSortedFunc(fs, compareFlows) {
			t.Fatal("flows not sorted")
		}
		if d := Diff(fs, fs); d.Len() != 0 {
			t.Fatal("Diff(fs, fs) not empty")
		}
		if in.Networks[0].Patch.OFPort == in.Networks[1].Patch.OFPort {
			t.Fatal("two networks share a patch port")
		}
		if n := strings.Count(Script(in.Node.Bridge, fs), "\n"); n != len(fs) {
			t.Fatalf("%d script lines for %d flows", n, len(fs))
		}
	})
}
