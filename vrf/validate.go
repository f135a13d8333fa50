package vrf

import (
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"strings"

	"github.com/udnkit/udnkit/internal/netdev"
	"github.com/udnkit/udnkit/ipam"
	"github.com/udnkit/udnkit/netconf/udn"
)

// Reserved routing tables: unspec (0), default (253), main (254) and local
// (255). A network's table is its own: the SDK deletes the routes of
// protocol RouteProtocol it finds there.
func reservedTable(t int) bool { return t == 0 || t >= 253 && t <= 255 }

// MaxTable is the largest routing table number.
const MaxTable = 1<<32 - 1

func invalid(field, format string, args ...any) error {
	return fmt.Errorf("%s: %w: %s", field, ErrInvalid, fmt.Sprintf(format, args...))
}

// validateInput refuses what cannot make a consistent node plan; every
// error names the field.
func validateInput(in Input) error {
	nd := in.Node
	if nd.Name == "" {
		return invalid("node.name", "required")
	}
	if err := netdev.CheckText(nd.Name); err != nil {
		return invalid("node.name", "%v", err)
	}
	node := fmt.Sprintf("node %s: ", netdev.Bounded(nd.Name))
	if nd.Bridge == "" {
		return invalid(node+"bridge", "required")
	}
	if err := netdev.Check(nd.Bridge); err != nil {
		return invalid(node+"bridge", "%v", err)
	}
	var gw4, gw6 int
	for i, g := range nd.Gateways {
		f := fmt.Sprintf("%sgateways[%d]", node, i)
		if !g.IsValid() || g.IsUnspecified() || g.IsMulticast() || g.Is4In6() || g.Zone() != "" {
			return invalid(f, "%s is not a unicast gateway address", g)
		}
		if g.Is4() {
			gw4++
		} else {
			gw6++
		}
		if gw4 > 1 || gw6 > 1 {
			return invalid(f, "%s: a second gateway of its family (one default route per family)", g)
		}
	}
	seenEIP := map[netip.Addr]int{}
	for i, ip := range nd.EgressIPs {
		f := fmt.Sprintf("%segressIPs[%d]", node, i)
		if msg := addressError(ip); msg != "" {
			return invalid(f, "%s", msg)
		}
		if j, dup := seenEIP[ip]; dup {
			return invalid(f, "%s is egressIPs[%d] too", ip, j)
		}
		seenEIP[ip] = i
	}
	if err := checkCgroup(nd.KubeletCgroup); err != nil {
		return invalid(node+"kubeletCgroup", "%v", err)
	}
	if in.Cluster.MTU < 0 || in.Cluster.MTU > udn.MaxMTU {
		return invalid("cluster.mtu", "%d is not in 0..%d", in.Cluster.MTU, udn.MaxMTU)
	}
	for i, p := range in.Cluster.ServiceCIDRs {
		if !p.IsValid() || p.Addr().Is4In6() || p != p.Masked() {
			return invalid(fmt.Sprintf("cluster.serviceCIDRs[%d]", i), "%s is not a masked prefix", p)
		}
	}
	for i, p := range in.Cluster.MasqueradeSubnets {
		if !p.IsValid() || p.Addr().Is4In6() || p != p.Masked() {
			return invalid(fmt.Sprintf("cluster.masqueradeSubnets[%d]", i), "%s is not a masked prefix", p)
		}
	}
	ids, names, tables := map[int]int{}, map[string]int{}, map[int]int{}
	nodePorts := map[L4Port]int{}
	external := map[Endpoint]int{}
	for i, n := range in.Networks {
		nw := n.Network
		if nw == nil {
			return invalid(fmt.Sprintf("networks[%d].network", i), "required")
		}
		if err := netdev.CheckText(nw.Name); err != nil || nw.Name == "" {
			if err == nil {
				err = errors.New("required")
			}
			return invalid(fmt.Sprintf("networks[%d].network.name", i), "%v", err)
		}
		// Field paths are formatted only for an error: Plan runs this for
		// every network.
		f := func() string { return fmt.Sprintf("network %s (networks[%d])", netdev.Bounded(nw.Name), i) }
		switch {
		case !nw.IsPrimary():
			return invalid(f()+".role", "%s: only primary networks have a VRF", netdev.Bounded(string(nw.Role)))
		case nw.Topology != udn.TopologyLayer3 && nw.Topology != udn.TopologyLayer2:
			return invalid(f()+".topology", "%s: a primary network is Layer3 or Layer2", netdev.Bounded(string(nw.Topology)))
		case nw.ID < 1 || nw.ID > ipam.MaxNetworkID:
			return invalid(f()+".id", "%d is not in 1..%d", nw.ID, ipam.MaxNetworkID)
		case nw.MTU < 0 || nw.MTU > udn.MaxMTU:
			return invalid(f()+".mtu", "%d is not in 0..%d", nw.MTU, udn.MaxMTU)
		case n.Table < 0 || n.Table > MaxTable || n.Table != 0 && reservedTable(n.Table):
			return invalid(f()+".table", "%d is reserved or out of range (0 means %d+id; 253-255 are the kernel's)", n.Table, TableBase)
		}
		if j, ok := ids[nw.ID]; ok {
			return invalid(f()+".id", "%d is networks[%d]'s too", nw.ID, j)
		}
		ids[nw.ID] = i
		if j, ok := names[nw.Name]; ok {
			return invalid(f()+".name", "networks[%d] has the same name", j)
		}
		names[nw.Name] = i
		table := n.Table
		if table == 0 {
			table = TableBase + nw.ID
		}
		if j, ok := tables[table]; ok {
			return invalid(f()+".table", "%d is networks[%d]'s table too", table, j)
		}
		tables[table] = i
		if err := netdev.CheckText(n.CUDN); err != nil {
			return invalid(f()+".cudn", "%v", err)
		}
		subnets := nw.SubnetPrefixes()
		if len(subnets) == 0 {
			return invalid(f()+".subnets", "none")
		}
		if nw.Topology == udn.TopologyLayer3 {
			if len(n.HostSubnets) == 0 {
				return invalid(f()+".hostSubnets", "none (a Layer3 network needs this node's subnet)")
			}
			fams := map[bool]bool{}
			for j, h := range n.HostSubnets {
				hf := func() string { return fmt.Sprintf("%s.hostSubnets[%d]", f(), j) }
				if !h.IsValid() || h != h.Masked() {
					return invalid(hf(), "%s is not a masked prefix", h)
				}
				if !slices.ContainsFunc(subnets, func(s netip.Prefix) bool { return s.Bits() <= h.Bits() && s.Contains(h.Addr()) }) {
					return invalid(hf(), "%s is outside the network's subnets %v", h, subnets)
				}
				if fams[h.Addr().Is4()] {
					return invalid(hf(), "%s: a second host subnet of its family", h)
				}
				fams[h.Addr().Is4()] = true
			}
		}
		for j, p := range n.NodePorts {
			pf := func() string { return fmt.Sprintf("%s.nodePorts[%d]", f(), j) }
			if err := checkL4(p); err != nil {
				return invalid(pf(), "%v", err)
			}
			if k, ok := nodePorts[p]; ok && k != i {
				return invalid(pf(), "%s/%d is networks[%d]'s NodePort too", p.Protocol, p.Port, k)
			}
			nodePorts[p] = i
		}
		for j, e := range n.ExternalIPs {
			ef := func() string { return fmt.Sprintf("%s.externalIPs[%d]", f(), j) }
			if err := checkEndpoint(e); err != nil {
				return invalid(ef(), "%v", err)
			}
			if k, ok := external[e]; ok && k != i {
				return invalid(ef(), "%s %s/%d is networks[%d]'s external IP too", e.Addr, e.Protocol, e.Port, k)
			}
			external[e] = i
		}
	}
	for i, a := range in.Pods.DefaultIPs {
		if !unicast(a) {
			return invalid(fmt.Sprintf("pods.defaultIPs[%d]", i), "%s is not a unicast address", a)
		}
	}
	for i, a := range in.Pods.OpenICMP {
		if !unicast(a) {
			return invalid(fmt.Sprintf("pods.openICMP[%d]", i), "%s is not a unicast address", a)
		}
	}
	for i, e := range in.Pods.OpenPorts {
		if err := checkEndpoint(e); err != nil {
			return invalid(fmt.Sprintf("pods.openPorts[%d]", i), "%v", err)
		}
	}
	seen := map[[2]string]int{}
	for i, p := range in.Pods.HostNetworked {
		f := fmt.Sprintf("pods.hostNetworked[%d]", i)
		for what, s := range map[string]string{"namespace": p.Namespace, "name": p.Name} {
			if err := netdev.CheckText(s); err != nil || s == "" {
				if err == nil {
					err = errors.New("required")
				}
				return invalid(f+"."+what, "%v", err)
			}
		}
		if j, ok := seen[[2]string{p.Namespace, p.Name}]; ok {
			return invalid(f, "pod %s/%s is pods.hostNetworked[%d] too", p.Namespace, p.Name, j)
		}
		seen[[2]string{p.Namespace, p.Name}] = i
		if err := checkCgroup(p.Cgroup); err != nil {
			return invalid(f+".cgroup", "%v", err)
		}
		for j, a := range p.AllowedIPs {
			if !unicast(a) {
				return invalid(fmt.Sprintf("%s.allowedIPs[%d]", f, j), "%s is not a unicast address", a)
			}
		}
	}
	return nil
}

func unicast(a netip.Addr) bool {
	return a.IsValid() && !a.IsUnspecified() && !a.IsMulticast() && !a.Is4In6() && a.Zone() == ""
}

func checkL4(p L4Port) error {
	switch p.Protocol {
	case TCP, UDP, SCTP:
	default:
		return fmt.Errorf("protocol %s is not tcp, udp or sctp", netdev.Bounded(string(p.Protocol)))
	}
	if p.Port == 0 {
		return errors.New("port 0")
	}
	return nil
}

func checkEndpoint(e Endpoint) error {
	if !unicast(e.Addr) {
		return fmt.Errorf("%s is not a unicast address", e.Addr)
	}
	return checkL4(e.L4Port)
}

// MaxCgroupPath bounds a cgroup v2 path (the kernel's PATH_MAX).
const MaxCgroupPath = 4096

// checkCgroup accepts "" and a relative cgroup v2 path nft can quote: no
// '"', no control character, no "." or ".." component.
func checkCgroup(p string) error {
	if p == "" {
		return nil
	}
	if len(p) > MaxCgroupPath {
		return fmt.Errorf("%s is longer than %d bytes", netdev.Bounded(p), MaxCgroupPath)
	}
	if err := netdev.CheckText(p); err != nil {
		return err
	}
	if strings.Contains(p, `"`) {
		return fmt.Errorf("%s holds '\"', which nft strings cannot", netdev.Bounded(p))
	}
	t := strings.Trim(p, "/")
	if t == "" {
		return fmt.Errorf("%s names the cgroup root", netdev.Bounded(p))
	}
	for _, c := range strings.Split(t, "/") {
		if c == "" || c == "." || c == ".." {
			return fmt.Errorf("%s has an empty, \".\" or \"..\" component", netdev.Bounded(p))
		}
	}
	return nil
}

// Validate reports whether s is a state the kernel backend may apply: link
// names Linux takes, no reserved or shared routing table, at most one
// default route per table and family, no negative MTU, and an nftables
// plan whose names, strings and references nft syntax can hold. Plan's
// states are valid; backend/kernel checks again before it writes.
func (s State) Validate() error {
	if err := s.validateKernel(); err != nil {
		return err
	}
	if s.Bridge != "" {
		if err := netdev.Check(s.Bridge); err != nil {
			return invalid("bridge", "%v", err)
		}
	}
	for i, a := range s.Addresses {
		if a.Dev != s.Bridge {
			return invalid(fmt.Sprintf("addresses[%d].dev", i), "%s is not the bridge %q (the only device the SDK's addresses go on)",
				netdev.Bounded(a.Dev), netdev.Bounded(s.Bridge))
		}
	}
	return s.NFT.Validate()
}

// Validate checks changes as State.Validate checks a state, as far as
// changes alone tell: what they add (links, routes, rules, sets, elements,
// chains and their rules; the sets and chains a rule or element names may
// exist already), and that nothing is deleted from a reserved table.
// backend/kernel calls it before it writes.
func (c Changes) Validate() error {
	if err := (State{Links: c.AddLinks, Routes: c.AddRoutes, Rules: c.AddRules, Addresses: c.AddAddresses}).validateKernel(); err != nil {
		return err
	}
	for i, a := range c.DeleteAddresses {
		if err := netdev.Check(a.Dev); err != nil {
			return invalid(fmt.Sprintf("deleteAddresses[%d].dev", i), "%v", err)
		}
	}
	for i, l := range c.DeleteLinks {
		if err := netdev.Check(l.Name); err != nil {
			return invalid(fmt.Sprintf("deleteLinks[%d].name", i), "%v", err)
		}
	}
	for i, r := range c.DeleteRoutes {
		if reservedTable(r.Table) || r.Table < 0 || r.Table > MaxTable {
			return invalid(fmt.Sprintf("deleteRoutes[%d].table", i), "%d is reserved or out of range", r.Table)
		}
	}
	for i, r := range c.DeleteRules {
		if reservedTable(r.Table) || r.Table < 0 || r.Table > MaxTable {
			return invalid(fmt.Sprintf("deleteRules[%d].table", i), "%d is reserved or out of range", r.Table)
		}
	}
	sets := map[string]Set{}
	for i, s := range c.AddSets {
		if err := checkSet(fmt.Sprintf("nft.sets[%d]", i), s); err != nil {
			return err
		}
		sets[s.Name] = s
	}
	for i, s := range c.DeleteSets { // as read back: the name matters
		if !nftName(s.Name) {
			return invalid(fmt.Sprintf("deleteSets[%d].name", i), "%s is not an nft name", netdev.Bounded(s.Name))
		}
	}
	for i, ch := range c.DeleteChains {
		if !nftName(ch.Name) {
			return invalid(fmt.Sprintf("deleteChains[%d].name", i), "%s is not an nft name", netdev.Bounded(ch.Name))
		}
	}
	for _, m := range []map[string][]Element{c.AddElements, c.DeleteElements} {
		for name, els := range m {
			if !nftName(name) {
				return invalid("nft.elements", "set %s is not an nft name", netdev.Bounded(name))
			}
			for j, e := range els {
				if s, ok := sets[name]; ok {
					if err := checkElement(e, s); err != nil {
						return invalid(fmt.Sprintf("nft.elements[%s][%d]", name, j), "%v", err)
					}
				} else if e.Jump != "" && !nftName(e.Jump) || e.Addr.IsValid() && e.Addr.Zone() != "" {
					return invalid(fmt.Sprintf("nft.elements[%s][%d]", name, j), "%s", boundedElement(e))
				}
			}
		}
	}
	for i, ch := range c.AddChains {
		if err := checkChain(fmt.Sprintf("nft.chains[%d]", i), ch, nil, nil); err != nil {
			return err
		}
	}
	return nil
}

// addressError says why ip cannot be an address the SDK puts on a device,
// or "".
func addressError(ip netip.Addr) string {
	switch {
	case !ip.IsValid():
		return "no address"
	case ip.Zone() != "" || ip.Is4In6():
		return ip.String() + " is not a plain address (a zone, or IPv4 in IPv6)"
	case ip.IsUnspecified() || ip.IsLoopback() || ip.IsMulticast() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast():
		return ip.String() + " is not a global unicast address"
	}
	return ""
}

func (s State) validateKernel() error {
	addrs := map[Address]bool{}
	for i, a := range s.Addresses {
		f := fmt.Sprintf("addresses[%d]", i)
		if err := netdev.Check(a.Dev); err != nil {
			return invalid(f+".dev", "%v", err)
		}
		if msg := addressError(a.Addr); msg != "" {
			return invalid(f+".addr", "%s", msg)
		}
		if addrs[a] {
			return invalid(f, "%s twice", a)
		}
		addrs[a] = true
	}
	vrfTables := map[int]string{}
	names := map[string]bool{}
	for i, l := range s.Links {
		f := func() string { return fmt.Sprintf("links[%d]", i) }
		if err := netdev.Check(l.Name); err != nil {
			return invalid(f()+".name", "%v", err)
		}
		if names[l.Name] {
			return invalid(f()+".name", "%q twice", l.Name)
		}
		names[l.Name] = true
		switch l.Kind {
		case LinkVRF:
			if reservedTable(l.Table) || l.Table < 0 || l.Table > MaxTable {
				return invalid(f()+".table", "VRF %s: table %d is reserved or out of range", l.Name, l.Table)
			}
			if other, ok := vrfTables[l.Table]; ok {
				return invalid(f()+".table", "VRF %s: table %d is VRF %s's too", l.Name, l.Table, other)
			}
			vrfTables[l.Table] = l.Name
		case LinkManagementPort:
			if l.MTU < 0 || l.MTU > udn.MaxMTU {
				return invalid(f()+".mtu", "%s: %d is not in 0..%d", l.Name, l.MTU, udn.MaxMTU)
			}
			if l.Master != "" {
				if err := netdev.Check(l.Master); err != nil {
					return invalid(f()+".master", "%v", err)
				}
			}
		default:
			return invalid(f()+".kind", "%s", netdev.Bounded(string(l.Kind)))
		}
	}
	defaults := map[[2]int]bool{}
	for i, r := range s.Routes {
		if err := checkRoute(r); err != nil {
			return invalid(fmt.Sprintf("routes[%d]", i), "%s: %v", r, err)
		}
		if r.Type == RouteUnicast && r.Dst.Bits() == 0 {
			k := [2]int{r.Table, r.Dst.Addr().BitLen()}
			if defaults[k] {
				return invalid(fmt.Sprintf("routes[%d]", i), "%s: a second default route in table %d (one gateway per family)", r, r.Table)
			}
			defaults[k] = true
		}
	}
	for i, r := range s.Rules {
		if reservedTable(r.Table) || r.Table < 0 || r.Table > MaxTable {
			return invalid(fmt.Sprintf("rules[%d].table", i), "%d is reserved or out of range", r.Table)
		}
		if r.To.IsValid() && r.To.Addr().Is6() != r.IPv6 {
			return invalid(fmt.Sprintf("rules[%d].to", i), "%s is not of the rule's family", r.To)
		}
	}
	return nil
}

func checkRoute(r Route) error {
	switch {
	case reservedTable(r.Table) || r.Table < 0 || r.Table > MaxTable:
		return fmt.Errorf("table %d is reserved or out of range", r.Table)
	case !r.Dst.IsValid() || r.Dst != r.Dst.Masked():
		return fmt.Errorf("dst %s is not a masked prefix", r.Dst)
	case r.Gateway.IsValid() && r.Gateway.Is4() != r.Dst.Addr().Is4(),
		r.Src.IsValid() && r.Src.Is4() != r.Dst.Addr().Is4():
		return errors.New("gateway or src of another family")
	case r.MTU < 0 || r.MTU > udn.MaxMTU:
		return fmt.Errorf("mtu %d is not in 0..%d", r.MTU, udn.MaxMTU)
	case r.Metric < 0 || r.Metric > MaxTable:
		return fmt.Errorf("metric %d is out of range", r.Metric)
	case r.Type != RouteUnicast && r.Type != RouteUnreachable:
		return fmt.Errorf("type %s", netdev.Bounded(string(r.Type)))
	}
	if r.Dev != "" {
		if err := netdev.Check(r.Dev); err != nil {
			return fmt.Errorf("dev: %v", err)
		}
	}
	return nil
}

// nftName reports whether s is an nft identifier: a letter, then
// letters, digits, '-', '_' and '.'; at most 255 bytes.
func nftName(s string) bool {
	if s == "" || len(s) > 255 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		letter := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
		if !letter && (i == 0 || !('0' <= c && c <= '9' || c == '-' || c == '_' || c == '.')) {
			return false
		}
	}
	return true
}

// Validate reports whether t can be rendered and applied as is: names are
// nft identifiers, comments are at most MaxComment bytes nft can quote,
// elements fit their set's key, and every rule is one of the planned
// shapes whose sets and chains exist.
func (t NFT) Validate() error {
	sets := map[string]Set{}
	for i, s := range t.Sets {
		f := fmt.Sprintf("nft.sets[%d]", i)
		if err := checkSet(f, s); err != nil {
			return err
		}
		if _, ok := sets[s.Name]; ok {
			return invalid(f+".name", "%q twice", s.Name)
		}
		sets[s.Name] = s
	}
	chains := map[string]bool{}
	for _, c := range t.Chains {
		chains[c.Name] = true
	}
	if len(chains) != len(t.Chains) {
		return invalid("nft.chains", "a chain name twice")
	}
	for i, s := range t.Sets {
		for j, e := range s.Elements {
			if s.Map && !chains[e.Jump] {
				return invalid(fmt.Sprintf("nft.sets[%d].elements[%d].jump", i, j), "map %s jumps to %q, which is not planned", s.Name, e.Jump)
			}
		}
	}
	for i, c := range t.Chains {
		if err := checkChain(fmt.Sprintf("nft.chains[%d]", i), c, sets, chains); err != nil {
			return err
		}
	}
	return nil
}

func checkSet(f string, s Set) error {
	if !nftName(s.Name) {
		return invalid(f+".name", "%s is not an nft name", netdev.Bounded(s.Name))
	}
	if err := checkComment(s.Comment); err != nil {
		return invalid(f+".comment", "%v", err)
	}
	if len(s.Key) == 0 || len(s.Key) > 3 {
		return invalid(f+".key", "%d parts", len(s.Key))
	}
	for j, e := range s.Elements {
		if err := checkElement(e, s); err != nil {
			return invalid(fmt.Sprintf("%s.elements[%d]", f, j), "set %s: %v", s.Name, err)
		}
	}
	return nil
}

// checkChain checks a chain and its rules; with nil sets and chains, the
// rules' references are not checked.
func checkChain(f string, c Chain, sets map[string]Set, chains map[string]bool) error {
	if !nftName(c.Name) {
		return invalid(f+".name", "%s is not an nft name", netdev.Bounded(c.Name))
	}
	if err := checkComment(c.Comment); err != nil {
		return invalid(f+".comment", "%v", err)
	}
	switch {
	case c.Hook == "" && c.Priority == "":
	case (c.Hook == HookOutput || c.Hook == HookPrerouting) && (c.Priority == PriorityFilter || c.Priority == PriorityMangle):
	default:
		return invalid(f+".hook", "chain %s: hook %s priority %s", c.Name, netdev.Bounded(string(c.Hook)), netdev.Bounded(string(c.Priority)))
	}
	for j, r := range c.Rules {
		if err := checkRule(r, sets, chains); err != nil {
			return invalid(fmt.Sprintf("%s.rules[%d]", f, j), "chain %s: %v", c.Name, err)
		}
	}
	return nil
}

func checkComment(c string) error {
	if len(c) > MaxComment {
		return fmt.Errorf("%d bytes, more than %d", len(c), MaxComment)
	}
	if commentSafe(c) != c {
		return fmt.Errorf("%s holds a character nft strings cannot", netdev.Bounded(c))
	}
	return nil
}

func checkElement(e Element, s Set) error {
	var addr, proto, port bool
	for _, k := range s.Key {
		switch k {
		case TypeIPv4Addr, TypeIPv6Addr:
			if !e.Addr.IsValid() || e.Addr.Is4() != (k == TypeIPv4Addr) || e.Addr.Zone() != "" {
				return fmt.Errorf("address %s is not an %s", e.Addr, k)
			}
			addr = true
		case TypeInetProto:
			if err := checkL4(L4Port{e.Protocol, 1}); err != nil {
				return err
			}
			proto = true
		case TypeInetService:
			port = true
		default:
			return fmt.Errorf("key type %s", k)
		}
	}
	switch {
	case !addr && e.Addr.IsValid(), !proto && e.Protocol != "", !port && e.Port != 0:
		return fmt.Errorf("%s has parts its key lacks", boundedElement(e))
	case s.Map != (e.Jump != ""):
		return fmt.Errorf("%s: a map's elements (only) jump", boundedElement(e))
	case e.Jump != "" && !nftName(e.Jump):
		return fmt.Errorf("jump to %s", netdev.Bounded(e.Jump))
	}
	return nil
}

func checkRule(r NFTRule, sets map[string]Set, chains map[string]bool) error {
	if err := checkCgroup(r.Cgroup); err != nil {
		return fmt.Errorf("cgroup: %v", err)
	}
	if r.NotIIFName != "" {
		if err := netdev.Check(r.NotIIFName); err != nil {
			return fmt.Errorf("iifname: %v", err)
		}
		if strings.Contains(r.NotIIFName, `"`) {
			// A valid device name, but nftQuote would print another one.
			return fmt.Errorf("iifname: %s holds '\"', which nft strings cannot", netdev.Bounded(r.NotIIFName))
		}
	}
	if r.Comment != "" {
		return errors.New("a planned rule has no comment")
	}
	if r.DAddr.IsValid() && (r.DAddr.Addr().Is6() != r.IPv6 || r.DAddr != r.DAddr.Masked()) {
		return fmt.Errorf("daddr %s: not a masked prefix of the rule's family", r.DAddr)
	}
	if r.Lookup != (Lookup{}) {
		if r.DAddr.IsValid() {
			return errors.New("both a daddr and a lookup")
		}
		if !nftName(r.Lookup.Set) {
			return fmt.Errorf("set %s is not an nft name", netdev.Bounded(r.Lookup.Set))
		}
		s, ok := sets[r.Lookup.Set]
		if sets == nil { // references not checked: the key's shape only
			s, ok = Set{Name: r.Lookup.Set, Map: r.Lookup.VMap, Key: lookupKey(r)}, true
		}
		if !ok {
			return fmt.Errorf("set %s is not planned", netdev.Bounded(r.Lookup.Set))
		}
		if s.Map != r.Lookup.VMap {
			return fmt.Errorf("set %s: a vmap lookup needs a map, a map a vmap lookup", s.Name)
		}
		if want := lookupKey(r); want == nil || !slices.Equal(want, s.Key) {
			return fmt.Errorf("lookup key %d does not fit set %s's key %v", r.Lookup.Key, s.Name, s.Key)
		}
	}
	verdicts := 0
	if r.Lookup.VMap {
		verdicts++
	}
	switch r.Verdict.Kind {
	case VerdictNone:
	case VerdictAccept, VerdictDrop:
		verdicts++
		if r.Verdict.Chain != "" {
			return errors.New("accept or drop names a chain")
		}
	case VerdictJump:
		verdicts++
		if !nftName(r.Verdict.Chain) || chains != nil && !chains[r.Verdict.Chain] {
			return fmt.Errorf("jump to %s, which is not planned", netdev.Bounded(r.Verdict.Chain))
		}
	default:
		return fmt.Errorf("verdict %d", r.Verdict.Kind)
	}
	if verdicts > 1 {
		return errors.New("two verdicts")
	}
	if verdicts == 0 && r.SetMark == 0 {
		return errors.New("no statement")
	}
	return nil
}

// lookupKey is the key type of the set r looks up; nil for an unknown
// lookup key.
func lookupKey(r NFTRule) []DataType {
	addr := TypeIPv4Addr
	if r.IPv6 {
		addr = TypeIPv6Addr
	}
	switch r.Lookup.Key {
	case LookupDAddr:
		return []DataType{addr}
	case LookupDAddrProtoPort:
		return []DataType{addr, TypeInetProto, TypeInetService}
	case LookupProtoPort:
		return []DataType{TypeInetProto, TypeInetService}
	}
	return nil
}

// boundedElement formats e for an error message, its strings bounded.
func boundedElement(e Element) string {
	return fmt.Sprintf("{addr %s protocol %s port %d jump %s}", e.Addr, netdev.Bounded(string(e.Protocol)), e.Port, netdev.Bounded(e.Jump))
}
