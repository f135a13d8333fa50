package policy

import (
	"cmp"
	"net/netip"
	"slices"
	"strconv"
	"strings"
)

// families are the IP families of a network.
type families struct{ v4, v6 bool }

// allIPs is the L3 match of a rule without peers: "ip4", "ip6" or
// "(ip4 || ip6)".
func (f families) allIPs() string {
	switch {
	case f.v4 && f.v6:
		return "(ip4 || ip6)"
	case f.v6:
		return "ip6"
	}
	return "ip4"
}

// side is "src" for ingress (the peer is the source), "dst" for egress.
func side(dir PolicyType) string {
	if dir == Egress {
		return "dst"
	}
	return "src"
}

// lportMatch is the port-group part of a rule: "outport == @pg" for
// ingress (to-lport), "inport == @pg" for egress (from-lport).
func lportMatch(dir PolicyType, pg string) string {
	if dir == Egress {
		return "inport == @" + pg
	}
	return "outport == @" + pg
}

// addressSetMatch is "ip4.src == {$a1, $a2}", dual-stack
// "(ip4.src == {$a1} || ip6.src == {$a2})", the names sorted.
func addressSetMatch(dir PolicyType, v4, v6 []string) string {
	one := func(fam string, names []string) string {
		names = slices.Clone(names)
		slices.Sort(names)
		for i, n := range names {
			names[i] = "$" + n
		}
		return fam + "." + side(dir) + " == {" + strings.Join(names, ", ") + "}"
	}
	switch {
	case len(v4) > 0 && len(v6) > 0:
		return "(" + one("ip4", v4) + " || " + one("ip6", v6) + ")"
	case len(v6) > 0:
		return one("ip6", v6)
	case len(v4) > 0:
		return one("ip4", v4)
	}
	return ""
}

// ipBlockMatch is the L3 match of a rule's ipBlocks, one for all of them:
// "ip4.src == 10.0.0.0/8" (masked: OVN refuses a value with bits outside
// its mask); with except
// "(ip4.src == 172.16.0.0/12 && ip4.src != {172.16.1.0/24})"; several
// joined "(… || …)".
func ipBlockMatch(dir PolicyType, blocks []*IPBlock) string {
	parts := make([]string, len(blocks))
	for i, b := range blocks {
		fam := "ip4"
		if b.CIDR.Addr().Is6() {
			fam = "ip6"
		}
		m := fam + "." + side(dir) + " == " + b.CIDR.Masked().String()
		if len(b.Except) > 0 {
			ex := make([]string, len(b.Except))
			for j, e := range b.Except {
				ex[j] = e.Masked().String()
			}
			m = "(" + m + " && " + fam + "." + side(dir) + " != {" + strings.Join(ex, ", ") + "})"
		}
		parts[i] = m
	}
	if len(parts) == 1 {
		return parts[0]
	}
	return "(" + strings.Join(parts, " || ") + ")"
}

// l4Entry is one protocol's L4 match of a rule; match is "" for a rule
// without ports.
type l4Entry struct {
	protocol string // "tcp", "udp", "sctp", "tcp-namedPort", ... or "None"
	match    string
}

// unspecifiedProtocol is the protocol key of a rule without ports.
const unspecifiedProtocol = "None"

// numberedL4 returns the L4 matches of a rule's numbered ports, one per
// protocol, sorted by protocol: "tcp" (all ports), "tcp && tcp.dst==80",
// "tcp && tcp.dst=={80,443}", "tcp && 1000<=tcp.dst<=2000",
// "tcp && (tcp.dst=={80,443} || 1000<=tcp.dst<=2000)". A port of every
// number makes its protocol's match the protocol alone.
func numberedL4(ports []Port) []l4Entry {
	type acc struct {
		all    bool
		list   []string
		ranges []string
	}
	var by [3]*acc
	for _, p := range ports {
		if p.Name != "" {
			continue
		}
		a := by[p.Protocol]
		if a == nil {
			a = &acc{}
			by[p.Protocol] = a
		}
		proto := p.Protocol.String()
		switch {
		case p.Number == 0:
			a.all = true
		case p.EndPort != 0 && p.EndPort != p.Number:
			a.ranges = append(a.ranges, strconv.Itoa(int(p.Number))+"<="+proto+".dst<="+strconv.Itoa(int(p.EndPort)))
		default:
			a.list = append(a.list, strconv.Itoa(int(p.Number)))
		}
	}
	var out []l4Entry
	for _, proto := range []Protocol{SCTP, TCP, UDP} { // sorted by name
		a := by[proto]
		if a == nil {
			continue
		}
		name := proto.String()
		var ms []string
		if len(a.list) == 1 {
			ms = append(ms, name+".dst=="+a.list[0])
		} else if len(a.list) > 1 {
			ms = append(ms, name+".dst=={"+strings.Join(a.list, ",")+"}")
		}
		ms = append(ms, a.ranges...)
		m := name
		switch {
		case a.all || len(ms) == 0:
		case len(ms) == 1:
			m = name + " && " + ms[0]
		default:
			m = name + " && (" + strings.Join(ms, " || ") + ")"
		}
		out = append(out, l4Entry{protocol: name, match: m})
	}
	return out
}

// namedTarget is one resolution of a named port: a destination address
// and the number its pod gives the name.
type namedTarget struct {
	name     string // the port's name
	pod      string // "<namespace>/<name>"
	protocol Protocol
	addr     netip.Addr
	number   int32
}

// namedL4 returns the L3+L4 matches of resolved named ports, one per
// protocol ("tcp-namedPort"), as the reference writes them for admin
// network policies: "tcp && ((ip4.dst == 10.128.1.5 && tcp.dst == 8080) || ...)",
// by port name, then pod, then address.
func namedL4(targets []namedTarget) []l4Entry {
	slices.SortStableFunc(targets, func(a, b namedTarget) int {
		return cmp.Or(strings.Compare(a.name, b.name), strings.Compare(a.pod, b.pod))
	})
	var by [3][]string
	seen := map[string]bool{}
	for _, t := range targets {
		fam := "ip4"
		if t.addr.Is6() {
			fam = "ip6"
		}
		proto := t.protocol.String()
		m := "(" + fam + ".dst == " + t.addr.String() + " && " + proto + ".dst == " + strconv.Itoa(int(t.number)) + ")"
		if !seen[m] {
			seen[m] = true
			by[t.protocol] = append(by[t.protocol], m)
		}
	}
	var out []l4Entry
	for _, proto := range []Protocol{SCTP, TCP, UDP} {
		ms := by[proto]
		if len(ms) == 0 {
			continue
		}
		name := proto.String()
		out = append(out, l4Entry{protocol: name + "-namedPort", match: name + " && (" + strings.Join(ms, " || ") + ")"})
	}
	return out
}

// joinMatch joins an L3 match, an optional L4 match and the port-group
// match with " && ".
func joinMatch(l3, l4, lport string) string {
	if l4 == "" {
		return l3 + " && " + lport
	}
	return l3 + " && " + l4 + " && " + lport
}
