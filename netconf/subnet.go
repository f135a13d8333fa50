package netconf

import (
	"fmt"
	"net/netip"
	"strconv"
	"strings"

	"github.com/udnkit/udnkit/internal/names"
	"github.com/udnkit/udnkit/ipam"
)

// Default host prefixes of a Layer3 subnet written without one.
const (
	DefaultHostPrefixV4 = 24
	DefaultHostPrefixV6 = 64
)

// maxHostPrefixV4 leaves a Layer3 node subnet room for its gateway (.1) and
// management port (.2).
const maxHostPrefixV4 = 30

// MaxNetworkID is the largest network ID (ipam.MaxNetworkID); 0 is the
// default network.
const MaxNetworkID = ipam.MaxNetworkID

// The reserved and default subnets are ipam's (DESIGN.md); these pick the
// one of a family.
func defaultNetworkJoin(v6 bool) netip.Prefix {
	return ofFamily(ipam.DefaultNetworkJoinSubnets(), v6)
}

// masqueradeSubnet is the default masquerade subnet of a cluster with
// user-defined networks, of the family.
func masqueradeSubnet(v6 bool) netip.Prefix { return ofFamily(ipam.DefaultMasqueradeSubnets(), v6) }

func defaultJoin(v6 bool) netip.Prefix { return ofFamily(ipam.DefaultJoinSubnets(), v6) }

func ofFamily(ps []netip.Prefix, v6 bool) netip.Prefix {
	for _, p := range ps {
		if p.Addr().Is6() == v6 {
			return p
		}
	}
	return netip.Prefix{}
}

// pickTransit returns the default transit subnet of the family, moved off
// avoid (ipam.TransitSubnetAvoiding); ok is false when every candidate
// overlaps.
func pickTransit(v6 bool, avoid []netip.Prefix) (p netip.Prefix, ok bool) {
	p, err := ipam.TransitSubnetAvoiding(!v6, avoid)
	return p, err == nil
}

func overlapsAny(p netip.Prefix, list []netip.Prefix) bool {
	for _, q := range list {
		if p.Overlaps(q) {
			return true
		}
	}
	return false
}

// ParseCIDR parses a CIDR ("10.0.0.0/24", "fd00::/64"). Host bits are
// cleared ("10.0.0.100/26" is 10.0.0.64/26), as Kubernetes networking has
// always read CIDRs. IPv4-mapped IPv6 prefixes are refused.
func ParseCIDR(s string) (netip.Prefix, error) {
	p, detail := parseCIDR(s)
	if detail != "" {
		return netip.Prefix{}, names.Errorf("%w: %q: %s", ErrInvalidSubnet, s, detail)
	}
	return p, nil
}

// ParseSubnet parses one pod subnet of a network with topology t. Layer3
// accepts "cidr/hostPrefix" ("10.128.0.0/16/24"); a bare CIDR gets the
// default host prefix (/24 IPv4, /64 IPv6). The host prefix must be longer
// than the CIDR's, at most /30 for IPv4 and exactly /64 for IPv6. Layer2 and
// Localnet accept only a bare CIDR and return HostPrefix 0.
func ParseSubnet(s string, t Topology) (Subnet, error) {
	sn, detail := parseSubnet(s, t)
	if detail != "" {
		return Subnet{}, names.Errorf("%w: %q: %s", ErrInvalidSubnet, s, detail)
	}
	return sn, nil
}

// parseCIDR is ParseCIDR returning a bare detail message ("" when valid).
func parseCIDR(s string) (netip.Prefix, string) {
	p, err := netip.ParsePrefix(s)
	if err != nil {
		return netip.Prefix{}, "not a CIDR (want e.g. 10.0.0.0/24 or fd00::/64)"
	}
	if p.Addr().Is4In6() {
		return netip.Prefix{}, "IPv4-mapped IPv6 prefixes are not accepted; write the IPv4 form"
	}
	return p.Masked(), ""
}

func parseSubnet(s string, t Topology) (Subnet, string) {
	cidr, host, hasHost := s, "", false
	if strings.Count(s, "/") == 2 {
		i := strings.LastIndexByte(s, '/')
		cidr, host, hasHost = s[:i], s[i+1:], true
	}
	if hasHost && t != TopologyLayer3 {
		return Subnet{}, "the cidr/hostPrefix form is only valid for Layer3 networks"
	}
	p, detail := parseCIDR(cidr)
	if detail != "" {
		return Subnet{}, detail
	}
	if t != TopologyLayer3 {
		return Subnet{CIDR: p}, ""
	}
	v6 := p.Addr().Is6()
	hp := DefaultHostPrefixV4
	if v6 {
		hp = DefaultHostPrefixV6
	}
	if hasHost {
		if host == "" || len(host) > 3 || strings.TrimLeft(host, "0123456789") != "" {
			return Subnet{}, fmt.Sprintf("host prefix %q is not a number", host)
		}
		hp, _ = strconv.Atoi(host) // at most 3 digits: cannot fail
	}
	how := "host prefix"
	if !hasHost {
		how = "default host prefix"
	}
	switch {
	case v6 && hp != DefaultHostPrefixV6:
		return Subnet{}, fmt.Sprintf("IPv6 %s must be /64, got /%d", how, hp)
	case !v6 && hp > maxHostPrefixV4:
		return Subnet{}, fmt.Sprintf("IPv4 %s /%d leaves no room for pods; use /%d or shorter", how, hp, maxHostPrefixV4)
	case hp <= p.Bits():
		return Subnet{}, fmt.Sprintf("%s /%d must be longer than the subnet's /%d; write %s/<hostPrefix>", how, hp, p.Bits(), p)
	}
	return Subnet{CIDR: p, HostPrefix: hp}, ""
}

// ParseSubnets parses the NetConf "subnets" string: comma-separated
// subnets as ParseSubnet reads them, blanks around commas ignored. The empty
// string is no subnets.
func ParseSubnets(s string, t Topology) ([]Subnet, error) {
	items := splitList(s)
	out := make([]Subnet, 0, len(items))
	for _, it := range items {
		sn, err := ParseSubnet(it, t)
		if err != nil {
			return nil, err
		}
		out = append(out, sn)
	}
	if len(out) == 0 {
		return nil, nil
	}
	return out, nil
}

// splitList splits a comma-separated NetConf list, trimming blanks.
func splitList(s string) []string {
	if strings.TrimSpace(s) == "" {
		return nil
	}
	parts := strings.Split(s, ",")
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
	}
	return parts
}

func joinSubnets(ss []Subnet) string {
	parts := make([]string, len(ss))
	for i, s := range ss {
		parts[i] = s.String()
	}
	return strings.Join(parts, ",")
}

func joinPrefixes(ps []netip.Prefix) string {
	parts := make([]string, len(ps))
	for i, p := range ps {
		parts[i] = p.String()
	}
	return strings.Join(parts, ",")
}

func prefixStrings(ps []netip.Prefix) []string {
	if len(ps) == 0 {
		return nil
	}
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.String()
	}
	return out
}

func family(v6 bool) string {
	if v6 {
		return "IPv6"
	}
	return "IPv4"
}
