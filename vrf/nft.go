package vrf

import (
	"cmp"
	"fmt"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// NFT is the plan of the SDK's nftables objects in table inet NFTTable:
// named sets and verdict maps with their elements, and chains with their
// rules, all typed values. String renders them as nft syntax; the kernel
// backend turns them into netlink expressions directly.
type NFT struct {
	Sets   []Set
	Chains []Chain
}

// DataType is the type of one part of a set's key.
type DataType uint8

// Key types.
const (
	TypeIPv4Addr DataType = iota + 1
	TypeIPv6Addr
	TypeInetProto
	TypeInetService
)

func (t DataType) String() string {
	switch t {
	case TypeIPv4Addr:
		return "ipv4_addr"
	case TypeIPv6Addr:
		return "ipv6_addr"
	case TypeInetProto:
		return "inet_proto"
	case TypeInetService:
		return "inet_service"
	}
	return "DataType(" + strconv.Itoa(int(t)) + ")"
}

// Set is a named set, or a verdict map (Map) whose elements jump to a
// chain.
type Set struct {
	Name string
	// Key is the key's type: one part, or a concatenation.
	Key []DataType
	Map bool
	// Comment describes the set (the reference's).
	Comment  string
	Elements []Element
}

// Element is a set element: the parts its set's Key names (an address, a
// protocol, a port), and for a map the chain it jumps to.
type Element struct {
	Addr     netip.Addr
	Protocol Protocol
	Port     uint16
	Jump     string
}

// Hook is a base chain's netfilter hook.
type Hook string

// Hooks.
const (
	HookOutput     Hook = "output"
	HookPrerouting Hook = "prerouting"
)

// ChainPriority is a base chain's priority, by nft's name.
type ChainPriority string

// Priorities.
const (
	PriorityFilter ChainPriority = "filter"
	PriorityMangle ChainPriority = "mangle"
)

// Chain is a chain; a base chain (type filter, policy accept) has a Hook.
type Chain struct {
	Name     string
	Hook     Hook
	Priority ChainPriority
	// Comment describes the chain, at most MaxComment bytes.
	Comment string
	Rules   []NFTRule
}

// MaxComment is the longest nftables comment nft accepts (bytes).
const MaxComment = 128

// LookupKey is what a rule looks up in a set.
type LookupKey uint8

// Lookup keys.
const (
	// LookupDAddr: the destination address.
	LookupDAddr LookupKey = iota + 1
	// LookupDAddrProtoPort: destination address . l4 protocol . port.
	LookupDAddrProtoPort
	// LookupProtoPort: l4 protocol . destination port.
	LookupProtoPort
)

// Lookup is a set match: Key in Set; with VMap, a verdict-map lookup
// whose element decides the verdict.
type Lookup struct {
	Key  LookupKey
	Set  string
	VMap bool
}

// VerdictKind is how a rule ends.
type VerdictKind uint8

// Verdicts.
const (
	VerdictNone VerdictKind = iota
	VerdictAccept
	VerdictDrop
	VerdictJump
)

// Verdict ends a rule; a jump names its chain.
type Verdict struct {
	Kind  VerdictKind
	Chain string
}

// NFTRule is one nftables rule of a chain: its matches, in the order nft
// prints them, then its statement. The shapes are the ones the SDK plans;
// NFT.Validate says which combinations are valid.
type NFTRule struct {
	// Cgroup matches sockets of the cgroup v2 path (below the cgroup2
	// root, without leading or trailing '/'), at the level of its depth.
	Cgroup string
	// NotIIFName matches packets that did not enter by this device.
	NotIIFName string
	// LocalDst matches destinations local to the node (fib daddr type
	// local).
	LocalDst bool
	// IPv6 is the family of the destination match and of ICMP (ip6,
	// icmpv6); false is IPv4 (ip, icmp).
	IPv6 bool
	// DAddr matches the destination address (a prefix of full length) or
	// prefix.
	DAddr netip.Prefix
	// Lookup matches a set or takes a verdict map's verdict.
	Lookup Lookup
	// ICMP matches the family's ICMP.
	ICMP bool
	// SetMark sets the packet mark when not 0.
	SetMark uint32
	// Verdict ends the rule.
	Verdict Verdict
	// Comment is empty in a plan. An observer (backend/kernel) sets it on
	// a rule it read back but could not match to a planned one: the rule
	// then differs from every planned rule.
	Comment string
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
		v6     bool
		suffix string
		addr   DataType
		name   string
	}{{false, "v4", TypeIPv4Addr, "IPv4"}, {true, "v6", TypeIPv6Addr, "IPv6"}} {
		ports := Set{Name: "udn-open-ports-" + fam.suffix, Key: []DataType{fam.addr, TypeInetProto, TypeInetService},
			Comment: "default network open ports of pods in user defined networks (" + fam.name + ")"}
		for _, p := range in.Pods.OpenPorts {
			if p.Addr.Is6() == fam.v6 {
				ports.Elements = append(ports.Elements, Element{Addr: p.Addr, Protocol: p.Protocol, Port: p.Port})
			}
		}
		t.Sets = append(t.Sets, ports,
			Set{Name: "udn-open-ports-icmp-" + fam.suffix, Key: []DataType{fam.addr}, Elements: addrElements(in.Pods.OpenICMP, fam.v6),
				Comment: "default network IPs of pods in user defined networks that allow ICMP (" + fam.name + ")"},
			Set{Name: "udn-pod-default-ips-" + fam.suffix, Key: []DataType{fam.addr}, Elements: addrElements(in.Pods.DefaultIPs, fam.v6),
				Comment: "default network IPs of pods in user defined networks (" + fam.name + ")"})
	}
	iso := Chain{Name: chainIsolation, Hook: HookOutput, Priority: PriorityFilter, Comment: "Host isolation for user defined networks"}
	// The seed's service access of host-networked pods in UDN namespaces:
	// their cluster IPs accepted, the rest of the service CIDRs dropped.
	hostPods := slices.Clone(in.Pods.HostNetworked)
	slices.SortFunc(hostPods, func(a, b HostNetworkedPod) int {
		return cmp.Or(cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name))
	})
	accept, drop := Verdict{Kind: VerdictAccept}, Verdict{Kind: VerdictDrop}
	for _, p := range hostPods {
		cg := strings.Trim(p.Cgroup, "/")
		if cg == "" {
			continue
		}
		allowed := slices.Clone(p.AllowedIPs)
		slices.SortFunc(allowed, netip.Addr.Compare)
		for _, a := range slices.Compact(allowed) {
			iso.Rules = append(iso.Rules, NFTRule{Cgroup: cg, IPv6: a.Is6(), DAddr: netip.PrefixFrom(a, a.BitLen()), Verdict: accept})
		}
		for _, svc := range in.Cluster.ServiceCIDRs {
			iso.Rules = append(iso.Rules, NFTRule{Cgroup: cg, IPv6: svc.Addr().Is6(), DAddr: svc.Masked(), Verdict: drop})
		}
	}
	for _, f := range []struct {
		v6     bool
		suffix string
	}{{false, "v4"}, {true, "v6"}} {
		iso.Rules = append(iso.Rules,
			NFTRule{IPv6: f.v6, Lookup: Lookup{Key: LookupDAddrProtoPort, Set: "udn-open-ports-" + f.suffix}, Verdict: accept},
			NFTRule{IPv6: f.v6, Lookup: Lookup{Key: LookupDAddr, Set: "udn-open-ports-icmp-" + f.suffix}, ICMP: true, Verdict: accept})
		if cg := strings.Trim(in.Node.KubeletCgroup, "/"); cg != "" {
			iso.Rules = append(iso.Rules, NFTRule{Cgroup: cg, IPv6: f.v6, Lookup: Lookup{Key: LookupDAddr, Set: "udn-pod-default-ips-" + f.suffix}, Verdict: accept})
		}
		iso.Rules = append(iso.Rules, NFTRule{IPv6: f.v6, Lookup: Lookup{Key: LookupDAddr, Set: "udn-pod-default-ips-" + f.suffix}, Verdict: drop})
	}
	t.Chains = append(t.Chains, iso)

	nodePorts := Set{Name: "udn-mark-nodeports", Key: []DataType{TypeInetProto, TypeInetService}, Map: true, Comment: "UDN services NodePorts mark"}
	ext := [2]Set{
		{Name: "udn-mark-external-ips-v4", Key: []DataType{TypeIPv4Addr, TypeInetProto, TypeInetService}, Map: true,
			Comment: "UDN services External IPs mark (IPv4)"},
		{Name: "udn-mark-external-ips-v6", Key: []DataType{TypeIPv6Addr, TypeInetProto, TypeInetService}, Map: true,
			Comment: "UDN services External IPs mark (IPv6)"}}
	for _, n := range nets {
		chain := MarkChainName(n.Network.ID)
		t.Chains = append(t.Chains, Chain{Name: chain, Comment: BoundComment(n.Network.Name, ": UDN packet marking"),
			Rules: []NFTRule{{SetMark: uint32(PktMarkBase + n.Network.ID)}}})
		for _, p := range n.NodePorts {
			nodePorts.Elements = append(nodePorts.Elements, Element{Protocol: p.Protocol, Port: p.Port, Jump: chain})
		}
		for _, e := range n.ExternalIPs {
			i := 0
			if e.Addr.Is6() {
				i = 1
			}
			ext[i].Elements = append(ext[i].Elements, Element{Addr: e.Addr, Protocol: e.Protocol, Port: e.Port, Jump: chain})
		}
	}
	t.Sets = append(t.Sets, nodePorts, ext[0], ext[1])
	jump := Verdict{Kind: VerdictJump, Chain: chainMark}
	t.Chains = append(t.Chains,
		Chain{Name: chainMark, Comment: "UDN services packet mark", Rules: []NFTRule{
			{LocalDst: true, Lookup: Lookup{Key: LookupProtoPort, Set: "udn-mark-nodeports", VMap: true}},
			{Lookup: Lookup{Key: LookupDAddrProtoPort, Set: "udn-mark-external-ips-v4", VMap: true}},
			{IPv6: true, Lookup: Lookup{Key: LookupDAddrProtoPort, Set: "udn-mark-external-ips-v6", VMap: true}}}},
		Chain{Name: "udn-service-prerouting", Hook: HookPrerouting, Priority: PriorityMangle, Comment: "UDN services packet mark - Prerouting",
			Rules: []NFTRule{{NotIIFName: "ovn-k8s-mp0", Verdict: jump}}},
		Chain{Name: "udn-service-output", Hook: HookOutput, Priority: PriorityMangle, Comment: "UDN services packet mark - Output",
			Rules: []NFTRule{{Verdict: jump}}})
	for i := range t.Sets {
		slices.SortFunc(t.Sets[i].Elements, compareElements)
		t.Sets[i].Elements = slices.Compact(t.Sets[i].Elements)
	}
	slices.SortFunc(t.Sets, func(a, b Set) int { return cmp.Compare(a.Name, b.Name) })
	slices.SortFunc(t.Chains, func(a, b Chain) int { return cmp.Compare(a.Name, b.Name) })
	return t
}

func compareElements(a, b Element) int {
	return cmp.Or(a.Addr.Compare(b.Addr), cmp.Compare(a.Protocol, b.Protocol), cmp.Compare(a.Port, b.Port), cmp.Compare(a.Jump, b.Jump))
}

func addrElements(as []netip.Addr, v6 bool) []Element {
	var out []Element
	for _, a := range as {
		if a.Is6() == v6 {
			out = append(out, Element{Addr: a})
		}
	}
	return out
}

// BoundComment returns name+suffix as an nftables comment: characters nft
// strings cannot hold ('"', control characters, invalid UTF-8) become
// '_', and a name too long for MaxComment bytes is cut (at a character
// boundary) and marked "...", so that the suffix, which says what the
// object is, always survives.
func BoundComment(name, suffix string) string {
	name, suffix = commentSafe(name), commentSafe(suffix)
	if len(name)+len(suffix) <= MaxComment {
		return name + suffix
	}
	keep := MaxComment - len(suffix) - len("...")
	if keep < 0 {
		return truncUTF8(suffix, MaxComment)
	}
	return truncUTF8(name, keep) + "..." + suffix
}

// commentSafe replaces what an nft string cannot hold with '_'.
func commentSafe(s string) string {
	var b strings.Builder
	for _, r := range strings.ToValidUTF8(s, "_") {
		if r == '"' || r < 0x20 || r == 0x7f || 0x80 <= r && r < 0xa0 {
			r = '_'
		}
		b.WriteRune(r)
	}
	return b.String()
}

func truncUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// MarkChainName returns the chain that marks network id's traffic,
// "udn-mark-0x<pkt mark>".
func MarkChainName(id int) string {
	return "udn-mark-0x" + strconv.FormatInt(int64(PktMarkBase+id), 16)
}

// String renders the element as nft prints it in a set of key types key.
func (e Element) String(key []DataType) string {
	parts := make([]string, 0, len(key))
	for _, t := range key {
		switch t {
		case TypeIPv4Addr, TypeIPv6Addr:
			parts = append(parts, e.Addr.String())
		case TypeInetProto:
			parts = append(parts, string(e.Protocol))
		case TypeInetService:
			parts = append(parts, strconv.Itoa(int(e.Port)))
		}
	}
	s := strings.Join(parts, " . ")
	if e.Jump != "" {
		s += " : jump " + e.Jump
	}
	return s
}

// CgroupLevel is the level a cgroup path is matched at: its depth.
func CgroupLevel(path string) int { return strings.Count(path, "/") + 1 }

func (r NFTRule) family() string {
	if r.IPv6 {
		return "ip6"
	}
	return "ip"
}

// String renders the rule in nft syntax. Names and paths are quoted as
// nft strings, which a validated rule's cannot break out of.
func (r NFTRule) String() string {
	var w []string
	if r.Cgroup != "" {
		w = append(w, "socket cgroupv2 level "+strconv.Itoa(CgroupLevel(r.Cgroup))+" "+nftQuote(r.Cgroup))
	}
	if r.NotIIFName != "" {
		w = append(w, "iifname != "+nftQuote(r.NotIIFName))
	}
	if r.LocalDst {
		w = append(w, "fib daddr type local")
	}
	if r.DAddr.IsValid() {
		d := r.DAddr.String()
		if r.DAddr.IsSingleIP() {
			d = r.DAddr.Addr().String()
		}
		w = append(w, r.family()+" daddr "+d)
	}
	if r.Lookup.Set != "" {
		var key string
		switch r.Lookup.Key {
		case LookupDAddr:
			key = r.family() + " daddr"
		case LookupDAddrProtoPort:
			key = r.family() + " daddr . meta l4proto . th dport"
		case LookupProtoPort:
			key = "meta l4proto . th dport"
		}
		if r.Lookup.VMap {
			key += " vmap"
		}
		w = append(w, key+" @"+r.Lookup.Set)
	}
	if r.ICMP {
		if r.IPv6 {
			w = append(w, "meta l4proto icmpv6")
		} else {
			w = append(w, "meta l4proto icmp")
		}
	}
	if r.SetMark != 0 {
		w = append(w, fmt.Sprintf("meta mark set 0x%08x", r.SetMark))
	}
	switch r.Verdict.Kind {
	case VerdictAccept:
		w = append(w, "accept")
	case VerdictDrop:
		w = append(w, "drop")
	case VerdictJump:
		w = append(w, "jump "+r.Verdict.Chain)
	}
	if r.Comment != "" {
		w = append(w, "comment "+nftQuote(r.Comment))
	}
	return strings.Join(w, " ")
}

// nftQuote quotes s as an nft string. nft strings have no escapes: a
// validated plan holds no '"' or control character in what it quotes;
// any that reach here anyway become '_' rather than end the string.
func nftQuote(s string) string { return `"` + commentSafe(s) + `"` }

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
		types := make([]string, len(s.Key))
		for i, k := range s.Key {
			types[i] = k.String()
		}
		typ := strings.Join(types, " . ")
		if s.Map {
			typ += " : verdict"
		}
		fmt.Fprintf(&b, "\t%s %s {\n\t\ttype %s\n", kind, s.Name, typ)
		if s.Comment != "" {
			fmt.Fprintf(&b, "\t\tcomment %s\n", nftQuote(s.Comment))
		}
		if len(s.Elements) > 0 {
			els := make([]string, len(s.Elements))
			for i, e := range s.Elements {
				els[i] = e.String(s.Key)
			}
			fmt.Fprintf(&b, "\t\telements = { %s }\n", strings.Join(els, ", "))
		}
		b.WriteString("\t}\n")
	}
	for _, c := range t.Chains {
		fmt.Fprintf(&b, "\tchain %s {\n", c.Name)
		if c.Hook != "" {
			fmt.Fprintf(&b, "\t\ttype filter hook %s priority %s; policy accept;\n", c.Hook, c.Priority)
		}
		if c.Comment != "" {
			fmt.Fprintf(&b, "\t\tcomment %s\n", nftQuote(c.Comment))
		}
		for _, r := range c.Rules {
			fmt.Fprintf(&b, "\t\t%s\n", r)
		}
		b.WriteString("\t}\n")
	}
	b.WriteString("}\n")
	return b.String()
}
