package vrf

import (
	"errors"
	"fmt"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/udnkit/udnkit/ipam"
	"github.com/udnkit/udnkit/netconf/udn"
)

// clonedSeed is seedNode with its networks cloned, for a case to change.
func clonedSeed() Input {
	in := seedNode()
	for i := range in.Networks {
		in.Networks[i].Network = in.Networks[i].Network.Clone()
	}
	return in
}

// TestPlanRefusesInconsistentInput: each input the kernel could not hold
// consistently is an ErrInvalid naming the field.
func TestPlanRefusesInconsistentInput(t *testing.T) {
	for _, tc := range []struct {
		name, field string
		mod         func(*Input)
	}{
		{"no node name", "node.name", func(in *Input) { in.Node.Name = "" }},
		{"NUL in the node name", "node.name", func(in *Input) { in.Node.Name = "a\x00b" }},
		{"newline in the node name", "node.name", func(in *Input) { in.Node.Name = "a\nEOF\nrm -rf x" }},
		{"no bridge", "bridge", func(in *Input) { in.Node.Bridge = "" }},
		{"bridge with a blank", "bridge", func(in *Input) { in.Node.Bridge = "br 0" }},
		{"bridge too long", "bridge", func(in *Input) { in.Node.Bridge = "a-bridge-too-long" }},
		{"two IPv4 gateways", "gateways[2]", func(in *Input) { in.Node.Gateways = append(in.Node.Gateways, addr("172.18.0.254")) }},
		{"two IPv6 gateways", "gateways[2]", func(in *Input) { in.Node.Gateways = append(in.Node.Gateways, addr("fc00::2")) }},
		{"unspecified gateway", "gateways[0]", func(in *Input) { in.Node.Gateways[0] = addr("0.0.0.0") }},
		{"invalid gateway", "gateways[0]", func(in *Input) { in.Node.Gateways[0] = netip.Addr{} }},
		{"invalid egress IP", "egressIPs[0]", func(in *Input) { in.Node.EgressIPs = []netip.Addr{{}} }},
		{"loopback egress IP", "egressIPs[0]", func(in *Input) { in.Node.EgressIPs = []netip.Addr{addr("127.0.0.1")} }},
		{"link-local egress IP", "egressIPs[1]", func(in *Input) { in.Node.EgressIPs = []netip.Addr{addr("172.18.0.100"), addr("fe80::1")} }},
		{"egress IP twice", "egressIPs[1]", func(in *Input) { in.Node.EgressIPs = []netip.Addr{addr("172.18.0.100"), addr("172.18.0.100")} }},
		{"egress IP with a zone", "egressIPs[0]", func(in *Input) { in.Node.EgressIPs = []netip.Addr{addr("fc00::5%eth0")} }},
		{"kubelet cgroup with a quote", "kubeletCgroup", func(in *Input) {
			in.Node.KubeletCgroup = `k" ; } ; chain udn-isolation { ip daddr 6.6.6.6 accept ; } ; chain zzx { #`
		}},
		{"kubelet cgroup with ..", "kubeletCgroup", func(in *Input) { in.Node.KubeletCgroup = "../../etc" }},
		{"kubelet cgroup the root", "kubeletCgroup", func(in *Input) { in.Node.KubeletCgroup = "/" }},
		{"negative cluster MTU", "cluster.mtu", func(in *Input) { in.Cluster.MTU = -1 }},
		{"cluster MTU too large", "cluster.mtu", func(in *Input) { in.Cluster.MTU = udn.MaxMTU + 1 }},
		{"unmasked service CIDR", "cluster.serviceCIDRs[0]", func(in *Input) { in.Cluster.ServiceCIDRs[0] = pfx("10.96.0.1/16") }},
		{"nil network", "networks[0].network", func(in *Input) { in.Networks[0].Network = nil }},
		{"secondary", "role", func(in *Input) { in.Networks[0].Network.Role = udn.RoleSecondary }},
		{"Localnet primary", "topology", func(in *Input) { in.Networks[0].Network.Topology = udn.TopologyLocalnet }},
		{"no id", ".id", func(in *Input) { in.Networks[0].Network.ID = 0 }},
		{"id over the max", ".id", func(in *Input) { in.Networks[0].Network.ID = ipam.MaxNetworkID + 1 }},
		{"duplicate id", ".id", func(in *Input) { in.Networks[1].Network.ID = 1 }},
		{"duplicate name", ".name", func(in *Input) { in.Networks[1].Network.Name = "ns1_blue" }},
		{"NUL in a network name", "networks[1].network.name", func(in *Input) { in.Networks[1].Network.Name = "a\x00" }},
		{"NUL in a CUDN name", ".cudn", func(in *Input) { in.Networks[1].CUDN = "g\x00" }},
		{"negative network MTU", ".mtu", func(in *Input) { in.Networks[1].Network.MTU = -1400 }},
		{"table main", ".table", func(in *Input) { in.Networks[0].Table = 254 }},
		{"table local", ".table", func(in *Input) { in.Networks[0].Table = 255 }},
		{"table default", ".table", func(in *Input) { in.Networks[0].Table = 253 }},
		{"negative table", ".table", func(in *Input) { in.Networks[0].Table = -5 }},
		{"table too large", ".table", func(in *Input) { in.Networks[0].Table = 1 << 32 }},
		{"duplicate table", ".table", func(in *Input) { in.Networks[1].Table = 1001 }},
		{"no host subnet", ".hostSubnets", func(in *Input) { in.Networks[0].HostSubnets = nil }},
		{"host subnet outside the network", ".hostSubnets[0]", func(in *Input) { in.Networks[0].HostSubnets = []netip.Prefix{pfx("10.200.1.0/24")} }},
		{"host subnet larger than the network", ".hostSubnets[0]", func(in *Input) { in.Networks[0].HostSubnets = []netip.Prefix{pfx("10.0.0.0/8")} }},
		{"two host subnets of a family", ".hostSubnets[1]", func(in *Input) {
			in.Networks[0].HostSubnets = []netip.Prefix{pfx("10.128.1.0/24"), pfx("10.128.2.0/24")}
		}},
		{"unmasked host subnet", ".hostSubnets[0]", func(in *Input) { in.Networks[0].HostSubnets = []netip.Prefix{pfx("10.128.1.5/24")} }},
		{"one NodePort on two networks", ".nodePorts[0]", func(in *Input) { in.Networks[1].NodePorts = []L4Port{{TCP, 30724}} }},
		{"NodePort 0", ".nodePorts[0]", func(in *Input) { in.Networks[0].NodePorts[0].Port = 0 }},
		{"NodePort of protocol icmp", ".nodePorts[0]", func(in *Input) { in.Networks[0].NodePorts[0].Protocol = "icmp" }},
		{"one external IP on two networks", ".externalIPs[0]", func(in *Input) { in.Networks[0].ExternalIPs = in.Networks[1].ExternalIPs }},
		{"multicast external IP", ".externalIPs[0]", func(in *Input) { in.Networks[1].ExternalIPs[0].Addr = addr("224.0.0.1") }},
		{"VRF name with a slash", "vrf", func(in *Input) { in.Networks[1].Network.VRF = "a/b" }},
		{"VRF name the bridge", "vrf", func(in *Input) { in.Networks[1].Network.VRF = "breth0" }},
		{"VRF name a management port", "vrf", func(in *Input) { in.Networks[1].Network.VRF = "ovn-k8s-mp1" }},
		{"invalid pod IP", "pods.defaultIPs[0]", func(in *Input) { in.Pods.DefaultIPs[0] = netip.Addr{} }},
		{"open port 0", "pods.openPorts[0]", func(in *Input) { in.Pods.OpenPorts[0].Port = 0 }},
		{"host-networked pod with a quote in its cgroup", "pods.hostNetworked[0].cgroup", func(in *Input) {
			in.Pods.HostNetworked = []HostNetworkedPod{{Namespace: "ns", Name: "p", Cgroup: `a"b`}}
		}},
		{"host-networked pod without a name", "pods.hostNetworked[0].name", func(in *Input) {
			in.Pods.HostNetworked = []HostNetworkedPod{{Namespace: "ns", Cgroup: "a"}}
		}},
		{"host-networked pod twice", "pods.hostNetworked[1]", func(in *Input) {
			in.Pods.HostNetworked = []HostNetworkedPod{{Namespace: "ns", Name: "p", Cgroup: "a"}, {Namespace: "ns", Name: "p", Cgroup: "b"}}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := clonedSeed()
			tc.mod(&in)
			_, err := Plan(in)
			if err == nil {
				t.Fatal("planned")
			}
			if !errors.Is(err, ErrInvalid) {
				t.Errorf("%v does not wrap ErrInvalid", err)
			}
			if !strings.Contains(err.Error(), tc.field) {
				t.Errorf("%v does not name %s", err, tc.field)
			}
			if len(err.Error()) > 512 {
				t.Errorf("a %d-byte message", len(err.Error()))
			}
		})
	}
}

// TestStateValidateRefusesHandBuiltStates: what the kernel backend checks
// again before it writes.
func TestStateValidateRefusesHandBuiltStates(t *testing.T) {
	for name, mod := range map[string]func(*State){
		"VRF in table main":       func(s *State) { s.Links[0].Table = 254 },
		"two VRFs, one table":     func(s *State) { s.Links[3].Table = s.Links[0].Table },
		"route in table main":     func(s *State) { s.Routes[0].Table = 254 },
		"rule to table local":     func(s *State) { s.Rules[0].Table = 255 },
		"two default routes":      func(s *State) { s.Routes = append(s.Routes, s.Routes[0]) },
		"negative MTU":            func(s *State) { s.Links[2].MTU = -1 },
		"link name with a slash":  func(s *State) { s.Links[0].Name = "a/b" },
		"chain name with a space": func(s *State) { s.NFT.Chains[0].Name = "a b" },
		"set name with a quote":   func(s *State) { s.NFT.Sets[0].Name = `a"` },
		"long chain comment":      func(s *State) { s.NFT.Chains[0].Comment = strings.Repeat("x", MaxComment+1) },
		"quote in a comment":      func(s *State) { s.NFT.Chains[0].Comment = `a" ; flush ruleset ; "` },
		"rule cgroup with quote":  func(s *State) { s.NFT.Chains[0].Rules[0].Cgroup = `x" accept ; #` },
		"lookup of a missing set": func(s *State) { s.NFT.Chains[0].Rules[0].Lookup.Set = "nope" },
		"iifname with a quote":    func(s *State) { s.NFT.Chains[0].Rules[0].NotIIFName = `a"b` },
		"jump to a missing chain": func(s *State) {
			s.NFT.Sets[0].Elements = append(s.NFT.Sets[0].Elements, Element{Addr: addr("1.2.3.4"), Protocol: TCP, Port: 1, Jump: "nope"})
		},
		"element of another family": func(s *State) { s.NFT.Sets[len(s.NFT.Sets)-1].Elements = []Element{{Addr: addr("1.2.3.4")}} },
		"address twice": func(s *State) {
			s.Addresses = []Address{{Dev: "breth0", Addr: addr("172.18.0.100")}, {Dev: "breth0", Addr: addr("172.18.0.100")}}
		},
		"address on a bad device": func(s *State) { s.Addresses = []Address{{Dev: "a/b", Addr: addr("172.18.0.100")}} },
		"multicast address":       func(s *State) { s.Addresses = []Address{{Dev: "breth0", Addr: addr("224.0.0.5")}} },
		"address off the bridge":  func(s *State) { s.Addresses = []Address{{Dev: "eth1", Addr: addr("172.18.0.100")}} },
	} {
		s := mustPlan(t, seedNode())
		if err := s.Validate(); err != nil {
			t.Fatalf("the seed's plan: %v", err)
		}
		mod(&s)
		if err := s.Validate(); !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestLongNamesGiveUsableComments: a valid 124-character network name
// still gives a marking chain comment nft takes (at most 128 bytes, what
// the chain is kept), and a hostile one cannot close the string.
func TestLongNamesGiveUsableComments(t *testing.T) {
	in := clonedSeed()
	in.Networks[0].Network.Name = strings.Repeat("n", 60) + "_" + strings.Repeat("b", 63)
	in.Networks[1].Network.Name = `k" ; } ; chain udn-isolation { ip daddr 6.6.6.6 accept ; } ; chain zzx { #`
	s := mustPlan(t, in)
	for _, c := range s.NFT.Chains {
		if !strings.HasPrefix(c.Name, "udn-mark-0x") {
			continue
		}
		if len(c.Comment) > MaxComment || !strings.HasSuffix(c.Comment, ": UDN packet marking") || strings.Contains(c.Comment, `"`) {
			t.Errorf("chain %s: comment %q (%d bytes)", c.Name, c.Comment, len(c.Comment))
		}
	}
	if got := BoundComment(strings.Repeat("é", 100), ": x"); len(got) > MaxComment || !strings.HasSuffix(got, "...: x") || !strings.HasPrefix(got, "éé") {
		t.Errorf("BoundComment cut %q", got)
	}
	checkNFT(t, s.NFT)
}

// checkNFT has the kernel's nft check the rendered table (a fresh network
// namespace, nothing applied).
func checkNFT(t *testing.T, n NFT) {
	t.Helper()
	nft, err := exec.LookPath("nft")
	if err != nil {
		skip(t, "nft is not installed (apt-get install nftables)")
	}
	if os.Geteuid() != 0 {
		skip(t, "loading nftables needs root")
	}
	file := filepath.Join(t.TempDir(), "udn.nft")
	for i := range n.Chains { // cgroup paths must exist to load
		var rules []NFTRule
		for _, r := range n.Chains[i].Rules {
			if r.Cgroup == "" {
				rules = append(rules, r)
			}
		}
		n.Chains[i].Rules = rules
	}
	if err := os.WriteFile(file, []byte(n.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("unshare", "-n", nft, "-c", "-f", file).CombinedOutput(); err != nil {
		t.Fatalf("nft refuses the plan: %v\n%s", err, out)
	}
}

// TestScriptWithHostileNames: a plan whose VRF, CUDN, bridge, node and
// network names are shell and nft syntax prints a script that, run by a
// real sh in a fresh network namespace, runs none of it (no file appears)
// and adds no rule to udn-isolation (the nft part loads, with the planned
// rules only).
func TestScriptWithHostileNames(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		skip(t, "no sh")
	}
	if _, err := exec.LookPath("nft"); err != nil {
		skip(t, "nft is not installed (apt-get install nftables)")
	}
	if os.Geteuid() != 0 {
		skip(t, "network namespaces need root")
	}
	in := clonedSeed()
	in.Node.Name = "n;>s"
	in.Node.Bridge = "b$(>t)"
	in.Node.KubeletCgroup = "" // must exist to load
	in.Networks[0].Network.VRF = "a;>x"
	in.Networks[1].Network.VRF = ""
	in.Networks[1].CUDN = "$(>y)`>z`"
	in.Networks[1].Network.Name = `k" ; } ; chain udn-isolation { ip daddr 6.6.6.6 accept ; } ; chain zzx { #`
	third := Network{Network: &udn.Network{Name: "ns3_q'\"&|", ID: 3, Topology: udn.TopologyLayer2, Role: udn.RolePrimary,
		VRF: `q'"&>w|>v`, Subnets: []udn.Subnet{{CIDR: pfx("10.3.0.0/16")}}}}
	in.Networks = append(in.Networks, third)
	s := mustPlan(t, in)
	dir := t.TempDir()
	script := filepath.Join(dir, "node.sh")
	if err := os.WriteFile(script, []byte(s.Script()), 0o644); err != nil {
		t.Fatal(err)
	}
	work := filepath.Join(dir, "work")
	if err := os.Mkdir(work, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("unshare", "-n", sh, "-c", sh+" "+script+" >/dev/null 2>&1; echo ===; nft list table inet ovn-kubernetes")
	cmd.Dir = work
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if files, _ := os.ReadDir(work); len(files) != 0 {
		var names []string
		for _, f := range files {
			names = append(names, f.Name())
		}
		t.Errorf("the script ran a payload: it created %v", names)
	}
	_, listed, _ := strings.Cut(string(out), "===\n")
	var syntax []string // the listing without its comments
	for _, l := range strings.Split(listed, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(l), "comment ") {
			syntax = append(syntax, l)
		}
	}
	if s := strings.Join(syntax, "\n"); strings.Contains(s, "6.6.6.6") || strings.Contains(s, "zzx") {
		t.Errorf("a network name injected nft syntax:\n%s", listed)
	}
	_, iso, _ := strings.Cut(listed, "chain udn-isolation {")
	iso, _, _ = strings.Cut(iso, "}")
	var rules int
	for _, l := range strings.Split(iso, "\n") {
		if l = strings.TrimSpace(l); strings.HasSuffix(l, "accept") || strings.HasSuffix(l, "drop") {
			rules++
		}
	}
	var planned int
	for _, c := range s.NFT.Chains {
		if c.Name == "udn-isolation" {
			planned = len(c.Rules)
		}
	}
	if planned == 0 || rules != planned {
		t.Errorf("udn-isolation holds %d rules, the plan %d:\n%s", rules, planned, listed)
	}
}

// TestErrorsAreBounded: a 1 MiB value in any checked field gives an error
// of a few hundred bytes, not the value.
func TestErrorsAreBounded(t *testing.T) {
	huge := strings.Repeat("x", 1<<20)
	for name, mod := range map[string]func(*Input){
		"node name":     func(in *Input) { in.Node.Name = huge + "\x00" },
		"bridge":        func(in *Input) { in.Node.Bridge = huge },
		"kubelet":       func(in *Input) { in.Node.KubeletCgroup = huge },
		"network name":  func(in *Input) { in.Networks[0].Network.Name = huge + "\n" },
		"role":          func(in *Input) { in.Networks[0].Network.Role = udn.Role(huge) },
		"topology":      func(in *Input) { in.Networks[0].Network.Topology = udn.Topology(huge) },
		"vrf":           func(in *Input) { in.Networks[1].Network.VRF = huge },
		"cudn":          func(in *Input) { in.Networks[1].CUDN = huge + "\x00" },
		"protocol":      func(in *Input) { in.Networks[0].NodePorts[0].Protocol = Protocol(huge) },
		"pod namespace": func(in *Input) { in.Pods.HostNetworked = []HostNetworkedPod{{Namespace: huge + "\x00", Name: "p"}} },
	} {
		in := clonedSeed()
		in.Networks[0].NodePorts = append([]L4Port(nil), in.Networks[0].NodePorts...)
		mod(&in)
		if _, err := Plan(in); err == nil || len(err.Error()) > 512 {
			t.Errorf("%s: an error of %d bytes", name, len(fmt.Sprint(err)))
		}
	}
}
