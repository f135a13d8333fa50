package vrf

import (
	"cmp"
	"fmt"
	"net/netip"
	"slices"
	"strconv"
	"strings"
)

// NFT is the plan of the SDK's nftables table (inet NFTTable): named sets
// and maps with their elements, and chains with their rules in nft syntax.
type NFT struct {
	Sets   []Set
	Chains []Chain
}

// Set is a named set, or a map when it has verdict elements (Map true).
type Set struct {
	Name string
	// Type is its nft type ("ipv4_addr . inet_proto . inet_service"), with
	// " : verdict" for a map.
	Type     string
	Map      bool
	Elements []string
}

// Chain is a chain; a base chain has a Hook.
type Chain struct {
	Name     string
	Hook     string // "output", "prerouting" or "" for a regular chain
	Priority string // "filter", "mangle"
	Comment  string
	Rules    []string
}

const (
	chainIsolation = "udn-isolation"
	chainMark      = "udn-service-mark"
)

// planNFT plans the host isolation of pods of user-defined networks and
// the marking of the networks' NodePort and external-IP traffic.
func planNFT(in Input, nets []Network) NFT {
	var t NFT
	for _, fam := range []struct {
		v4               bool
		suffix, ip, icmp string
		addr             string
	}{{true, "v4", "ip", "icmp", "ipv4_addr"}, {false, "v6", "ip6", "icmpv6", "ipv6_addr"}} {
		var ports, icmp, pods []string
		for _, p := range in.Pods.OpenPorts {
			if p.Addr.Is4() == fam.v4 {
				ports = append(ports, p.Addr.String()+" . "+string(p.Protocol)+" . "+strconv.Itoa(int(p.Port)))
			}
		}
		icmp = addrs(in.Pods.OpenICMP, fam.v4)
		pods = addrs(in.Pods.DefaultIPs, fam.v4)
		t.Sets = append(t.Sets,
			Set{Name: "udn-open-ports-" + fam.suffix, Type: fam.addr + " . inet_proto . inet_service", Elements: ports},
			Set{Name: "udn-open-ports-icmp-" + fam.suffix, Type: fam.addr, Elements: icmp},
			Set{Name: "udn-pod-default-ips-" + fam.suffix, Type: fam.addr, Elements: pods})
	}
	iso := Chain{Name: chainIsolation, Hook: "output", Priority: "filter", Comment: "Host isolation for user defined networks"}
	// The seed's service access of host-networked pods in UDN namespaces:
	// their cluster IPs accepted, the rest of the service CIDRs dropped.
	hostPods := slices.Clone(in.Pods.HostNetworked)
	slices.SortFunc(hostPods, func(a, b HostNetworkedPod) int {
		return cmp.Or(cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name))
	})
	for _, p := range hostPods {
		if p.Cgroup == "" {
			continue
		}
		match := "socket cgroupv2 level " + strconv.Itoa(strings.Count(strings.Trim(p.Cgroup, "/"), "/")+1) + " " + strconv.Quote(strings.Trim(p.Cgroup, "/")) + " "
		allowed := slices.Clone(p.AllowedIPs)
		slices.SortFunc(allowed, netip.Addr.Compare)
		for _, a := range slices.Compact(allowed) {
			iso.Rules = append(iso.Rules, match+ipWord(a.Is4())+" daddr "+a.String()+" accept")
		}
		for _, svc := range in.Cluster.ServiceCIDRs {
			iso.Rules = append(iso.Rules, match+ipWord(svc.Addr().Is4())+" daddr "+svc.String()+" drop")
		}
	}
	for _, f := range []struct{ suffix, ip, icmp string }{{"v4", "ip", "icmp"}, {"v6", "ip6", "icmpv6"}} {
		iso.Rules = append(iso.Rules,
			f.ip+" daddr . meta l4proto . th dport @udn-open-ports-"+f.suffix+" accept",
			f.ip+" daddr @udn-open-ports-icmp-"+f.suffix+" meta l4proto "+f.icmp+" accept")
		if in.Node.KubeletCgroup != "" {
			iso.Rules = append(iso.Rules, "socket cgroupv2 level 2 "+strconv.Quote(in.Node.KubeletCgroup)+" "+f.ip+" daddr @udn-pod-default-ips-"+f.suffix+" accept")
		}
		iso.Rules = append(iso.Rules, f.ip+" daddr @udn-pod-default-ips-"+f.suffix+" drop")
	}
	t.Chains = append(t.Chains, iso)

	nodePorts := Set{Name: "udn-mark-nodeports", Type: "inet_proto . inet_service : verdict", Map: true}
	ext := [2]Set{
		{Name: "udn-mark-external-ips-v4", Type: "ipv4_addr . inet_proto . inet_service : verdict", Map: true},
		{Name: "udn-mark-external-ips-v6", Type: "ipv6_addr . inet_proto . inet_service : verdict", Map: true}}
	for _, n := range nets {
		mark := PktMarkBase + n.Network.ID
		chain := MarkChainName(n.Network.ID)
		t.Chains = append(t.Chains, Chain{Name: chain, Comment: n.Network.Name + ": UDN packet marking",
			Rules: []string{"meta mark set 0x" + fmt.Sprintf("%08x", mark)}})
		for _, p := range n.NodePorts {
			nodePorts.Elements = append(nodePorts.Elements, string(p.Protocol)+" . "+strconv.Itoa(int(p.Port))+" : jump "+chain)
		}
		for _, e := range n.ExternalIPs {
			i := 0
			if e.Addr.Is6() {
				i = 1
			}
			ext[i].Elements = append(ext[i].Elements, e.Addr.String()+" . "+string(e.Protocol)+" . "+strconv.Itoa(int(e.Port))+" : jump "+chain)
		}
	}
	t.Sets = append(t.Sets, nodePorts, ext[0], ext[1])
	t.Chains = append(t.Chains,
		Chain{Name: chainMark, Rules: []string{
			"fib daddr type local meta l4proto . th dport vmap @udn-mark-nodeports",
			"ip daddr . meta l4proto . th dport vmap @udn-mark-external-ips-v4",
			"ip6 daddr . meta l4proto . th dport vmap @udn-mark-external-ips-v6"}},
		Chain{Name: "udn-service-prerouting", Hook: "prerouting", Priority: "mangle",
			Rules: []string{`iifname != "ovn-k8s-mp0" jump ` + chainMark}},
		Chain{Name: "udn-service-output", Hook: "output", Priority: "mangle", Rules: []string{"jump " + chainMark}})
	for i := range t.Sets {
		slices.Sort(t.Sets[i].Elements)
		t.Sets[i].Elements = slices.Compact(t.Sets[i].Elements)
	}
	slices.SortFunc(t.Sets, func(a, b Set) int { return cmp.Compare(a.Name, b.Name) })
	slices.SortFunc(t.Chains, func(a, b Chain) int { return cmp.Compare(a.Name, b.Name) })
	return t
}

func ipWord(v4 bool) string {
	if v4 {
		return "ip"
	}
	return "ip6"
}

// MarkChainName returns the chain that marks network id's traffic,
// "udn-mark-0x<pkt mark>".
func MarkChainName(id int) string {
	return "udn-mark-0x" + strconv.FormatInt(int64(PktMarkBase+id), 16)
}

func addrs(as []netip.Addr, v4 bool) []string {
	var out []string
	for _, a := range as {
		if a.Is4() == v4 {
			out = append(out, a.String())
		}
	}
	return out
}

// String renders the plan as an nft -f script that adds the table, its
// sets, maps and chains (what a node needs from scratch; the kernel
// backend changes a node's existing table element by element).
func (t NFT) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "table inet %s {\n", NFTTable)
	for _, s := range t.Sets {
		kind := "set"
		if s.Map {
			kind = "map"
		}
		fmt.Fprintf(&b, "\t%s %s {\n\t\ttype %s\n", kind, s.Name, s.Type)
		if len(s.Elements) > 0 {
			fmt.Fprintf(&b, "\t\telements = { %s }\n", strings.Join(s.Elements, ", "))
		}
		b.WriteString("\t}\n")
	}
	for _, c := range t.Chains {
		fmt.Fprintf(&b, "\tchain %s {\n", c.Name)
		if c.Hook != "" {
			fmt.Fprintf(&b, "\t\ttype filter hook %s priority %s; policy accept;\n", c.Hook, c.Priority)
		}
		if c.Comment != "" {
			fmt.Fprintf(&b, "\t\tcomment %s\n", strconv.Quote(c.Comment))
		}
		for _, r := range c.Rules {
			fmt.Fprintf(&b, "\t\t%s\n", r)
		}
		b.WriteString("\t}\n")
	}
	b.WriteString("}\n")
	return b.String()
}
