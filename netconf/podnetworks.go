package netconf

import (
	"encoding/json"
	"fmt"
	"maps"
	"net"
	"net/netip"
	"slices"

	"github.com/udnkit/udnkit/internal/names"
	"github.com/udnkit/udnkit/internal/sdkerr"
	"github.com/udnkit/udnkit/ipam"
	"github.com/udnkit/udnkit/netconf/udn"
)

// AnnotationPodNetworks is the pod annotation that records, per network a
// pod is attached to, its addresses, MAC, gateways and routes (the
// reference's format, which CNI and every controller read).
const AnnotationPodNetworks = "k8s.ovn.org/pod-networks"

// DefaultNetworkKey is the key of the cluster default network in
// PodNetworks; a user-defined network's key is its NAD's
// "<namespace>/<name>".
const DefaultNetworkKey = "default"

// PodRole is the role a network plays in a pod.
type PodRole string

// Pod roles.
const (
	PodRolePrimary   PodRole = "primary"
	PodRoleSecondary PodRole = "secondary"
	// PodRoleInfrastructureLocked is the default network's role when a
	// user-defined network is the pod's primary: kept for probes only.
	PodRoleInfrastructureLocked PodRole = "infrastructure-locked"
)

// String returns the annotation spelling.
func (r PodRole) String() string { return string(r) }

// PodRoute is a route of the pod's network namespace.
type PodRoute struct {
	Dest    netip.Prefix
	NextHop netip.Addr
}

// PodNetwork is what a pod has on one network.
type PodNetwork struct {
	// IPs are interface addresses ("10.128.1.5/24").
	IPs      []netip.Prefix
	MAC      net.HardwareAddr
	Gateways []netip.Addr
	Routes   []PodRoute
	// GatewayIPv6LLA is the IPv6 link-local gateway of a Layer2 primary
	// network; it must be in fe80::/10.
	GatewayIPv6LLA netip.Addr
	// TunnelID is a Layer2 pod port's tunnel key.
	TunnelID int
	Role     PodRole
}

// PodNetworks is the pod-networks annotation: network key (DefaultNetworkKey
// or a NAD's "<namespace>/<name>") to what the pod has on it.
type PodNetworks map[string]PodNetwork

// ErrPodNetworks is wrapped by the errors of parsing or building the
// annotation.
var ErrPodNetworks = sdkerr.New(sdkerr.Invalid, "invalid pod-networks annotation")

// The annotation's wire form, field for field as the reference marshals it
// (single-family fields deprecated but still written).
type podNetworkJSON struct {
	IPs            []string       `json:"ip_addresses"`
	MAC            string         `json:"mac_address"`
	Gateways       []string       `json:"gateway_ips,omitempty"`
	Routes         []podRouteJSON `json:"routes,omitempty"`
	IP             string         `json:"ip_address,omitempty"`
	Gateway        string         `json:"gateway_ip,omitempty"`
	GatewayIPv6LLA string         `json:"ipv6_lla_gateway_ip,omitempty"`
	TunnelID       int            `json:"tunnel_id,omitempty"`
	Role           string         `json:"role,omitempty"`
}

type podRouteJSON struct {
	Dest    string `json:"dest"`
	NextHop string `json:"nextHop"`
}

// Marshal returns the annotation's value: a JSON object with the network
// keys sorted, each network's fields in the reference's order; the
// deprecated ip_address and gateway_ip are written for single-address
// networks. A default route must be a gateway, not a route.
func (p PodNetworks) Marshal() (string, error) {
	out := make(map[string]podNetworkJSON, len(p))
	// Networks in key order, and within one the reference's checks
	// (MarshalPodAnnotation: gateways, then routes) before the MAC, which
	// the reference does not check: the same input gives the same error.
	for _, key := range slices.Sorted(maps.Keys(p)) {
		n := p[key]
		j := podNetworkJSON{MAC: n.MAC.String(), TunnelID: n.TunnelID, Role: string(n.Role)}
		for _, ip := range n.IPs {
			j.IPs = append(j.IPs, ip.String())
		}
		if len(n.IPs) == 1 {
			j.IP = j.IPs[0]
			switch len(n.Gateways) {
			case 0:
			case 1:
				j.Gateway = n.Gateways[0].String()
			default:
				return "", names.Errorf("%w: network %q: gateway_ips: a single-stack network has one gateway", ErrPodNetworks, key)
			}
		}
		for _, g := range n.Gateways {
			j.Gateways = append(j.Gateways, g.String())
		}
		for _, r := range n.Routes {
			if r.Dest.Bits() == 0 {
				return "", names.Errorf("%w: network %q: routes: default route %s must be a gateway", ErrPodNetworks, key, r.Dest)
			}
			pr := podRouteJSON{Dest: r.Dest.String()}
			if r.NextHop.IsValid() {
				pr.NextHop = r.NextHop.String()
			}
			j.Routes = append(j.Routes, pr)
		}
		if n.GatewayIPv6LLA.IsValid() {
			j.GatewayIPv6LLA = n.GatewayIPv6LLA.String()
		}
		if len(n.MAC) != 6 {
			return "", names.Errorf("%w: network %q: mac_address: %v is not a 6-byte MAC", ErrPodNetworks, key, n.MAC)
		}
		out[key] = j
	}
	b, err := json.Marshal(out)
	if err != nil {
		return "", names.Errorf("%w: %w", ErrPodNetworks, err)
	}
	return string(b), nil
}

// ParsePodNetworks reads the annotation back (a controller restarts from
// it). It accepts the deprecated single-family fields alone and refuses
// them when they contradict the lists, as the reference does.
func ParsePodNetworks(s string) (PodNetworks, error) {
	var in map[string]podNetworkJSON
	if err := json.Unmarshal([]byte(s), &in); err != nil {
		return nil, names.Errorf("%w: %w", ErrPodNetworks, err)
	}
	out := make(PodNetworks, len(in))
	primary := ""
	for _, key := range slices.Sorted(maps.Keys(in)) {
		j := in[key]
		bad := func(field, format string, args ...any) error {
			return names.Errorf("%w: network %q: %s: %s", ErrPodNetworks, key, field, fmt.Sprintf(format, args...))
		}
		if key == "" {
			return nil, bad("key", "empty: a network is \"default\" or a NAD's <namespace>/<name>")
		}
		if msg := names.ControlError(key); msg != "" {
			return nil, bad("key", "%s", msg)
		}
		var n PodNetwork
		mac, err := net.ParseMAC(j.MAC)
		if err != nil || len(mac) != 6 {
			return nil, bad("mac_address", "%q is not a 6-byte MAC", j.MAC)
		}
		n.MAC, n.TunnelID, n.Role = mac, j.TunnelID, PodRole(j.Role)
		switch n.Role {
		case "", PodRolePrimary, PodRoleSecondary, PodRoleInfrastructureLocked:
		default:
			return nil, bad("role", "%q is not primary, secondary or infrastructure-locked", j.Role)
		}
		if n.Role == PodRolePrimary {
			if primary != "" {
				return nil, bad("role", "primary, and so is network %q: a pod has one primary network", primary)
			}
			primary = key
		}
		if j.TunnelID < 0 || j.TunnelID > ipam.DynamicTunnelKeyLast {
			return nil, bad("tunnel_id", "%d not in 0..%d (24 bits)", j.TunnelID, ipam.DynamicTunnelKeyLast)
		}
		ips := j.IPs
		if len(ips) == 0 && j.IP != "" {
			ips = []string{j.IP}
		} else if j.IP != "" && j.IP != ips[0] {
			return nil, bad("ip_address", "%q contradicts ip_addresses %v", j.IP, j.IPs)
		}
		for _, s := range ips {
			p, err := netip.ParsePrefix(s)
			if err != nil {
				return nil, bad("ip_addresses", "%q: %v", s, err)
			}
			n.IPs = append(n.IPs, p)
		}
		gws := j.Gateways
		if len(gws) == 0 && j.Gateway != "" {
			gws = []string{j.Gateway}
		} else if j.Gateway != "" && j.Gateway != gws[0] {
			return nil, bad("gateway_ip", "%q contradicts gateway_ips %v", j.Gateway, j.Gateways)
		}
		for _, s := range gws {
			a, err := netip.ParseAddr(s)
			if err != nil {
				return nil, bad("gateway_ips", "%q: %v", s, err)
			}
			if !slices.ContainsFunc(n.IPs, func(p netip.Prefix) bool { return p.Addr().Is4() == a.Is4() }) {
				return nil, bad("gateway_ips", "%s has no address of its family", a)
			}
			if slices.ContainsFunc(n.Gateways, func(g netip.Addr) bool { return g.Is4() == a.Is4() }) {
				return nil, bad("gateway_ips", "two gateways of a family")
			}
			n.Gateways = append(n.Gateways, a)
		}
		for _, r := range j.Routes {
			d, err := netip.ParsePrefix(r.Dest)
			if err != nil {
				return nil, bad("routes", "dest %q: %v", r.Dest, err)
			}
			d = d.Masked()
			if d.Bits() == 0 {
				return nil, bad("routes", "default route %s must be a gateway", d)
			}
			pr := PodRoute{Dest: d}
			if r.NextHop != "" {
				if pr.NextHop, err = netip.ParseAddr(r.NextHop); err != nil {
					return nil, bad("routes", "nextHop %q: %v", r.NextHop, err)
				}
				if pr.NextHop.Is4() != d.Addr().Is4() {
					return nil, bad("routes", "%s has next hop %s of another family", d, pr.NextHop)
				}
			}
			n.Routes = append(n.Routes, pr)
		}
		if j.GatewayIPv6LLA != "" {
			a, err := netip.ParseAddr(j.GatewayIPv6LLA)
			if err != nil || !a.Is6() || !a.IsLinkLocalUnicast() {
				return nil, bad("ipv6_lla_gateway_ip", "%q is not an IPv6 link-local address", j.GatewayIPv6LLA)
			}
			n.GatewayIPv6LLA = a
		}
		out[key] = n
	}
	return out, nil
}

// PodRoutesInput is what the routes of a pod's network depend on.
type PodRoutesInput struct {
	// Network is the user-defined network; nil for the default network.
	Network *udn.Network
	// Role is the network's role in the pod.
	Role PodRole
	// ClusterSubnets are the default network's cluster subnets (used when
	// Network is nil).
	ClusterSubnets []netip.Prefix
	// HostSubnets are the node's subnets of a Layer3 network (or of the
	// default network); a Layer2 network's gateway is its subnet's first
	// address.
	HostSubnets []netip.Prefix
	// ServiceCIDRs are the cluster's service CIDRs.
	ServiceCIDRs []netip.Prefix
	// DefaultJoinSubnets default to ipam.DefaultNetworkJoinSubnets; the
	// masquerade subnets (the hairpin address of the default network) to
	// ipam.DefaultMasqueradeSubnets.
	DefaultJoinSubnets, MasqueradeSubnets []netip.Prefix
}

// PodRoutes returns a pod's gateways and routes on one network, as the
// reference writes them in the annotation: a Layer3 network routes every
// cluster subnet of a family via the node subnet's gateway, and, when
// primary, the service CIDRs and its join subnet too, with the gateway as
// default route; a Layer2 primary network routes the service CIDRs and its
// join subnet via its gateway; the default network, when primary, routes
// its cluster subnets, the service CIDRs, the hairpin masquerade address
// and its join subnet, and when infrastructure-locked only its cluster
// subnets and join subnet, with no gateway. A secondary Layer3 network
// routes its cluster subnets via the node subnet's gateway, with no
// gateway (the reference's addRoutesGatewayIP); other secondary networks
// get no routes.
func PodRoutes(in PodRoutesInput) (gateways []netip.Addr, routes []PodRoute, err error) {
	joins, masqs := in.DefaultJoinSubnets, in.MasqueradeSubnets
	if len(joins) == 0 {
		joins = ipam.DefaultNetworkJoinSubnets()
	}
	if len(masqs) == 0 {
		masqs = ipam.DefaultMasqueradeSubnets()
	}
	n := in.Network
	gwSubnets := in.HostSubnets
	if n != nil && n.Topology == udn.TopologyLayer2 {
		gwSubnets = n.SubnetPrefixes()
	}
	// A secondary network gets no gateway; a Layer3 one still routes its
	// cluster subnets via its node subnet's gateway, as the reference does.
	if in.Role == PodRoleSecondary && (n == nil || n.Topology != udn.TopologyLayer3) || n != nil && n.Topology == udn.TopologyLocalnet {
		return nil, nil, nil
	}
	for _, hs := range gwSubnets {
		gw, err := ipam.GatewayIP(hs)
		if err != nil {
			return nil, nil, names.Errorf("%w: subnet %s: %w", ErrPodNetworks, hs, err)
		}
		via := func(ps ...netip.Prefix) {
			for _, p := range ps {
				if p.Addr().Is4() == gw.Addr().Is4() {
					routes = append(routes, PodRoute{Dest: p, NextHop: gw.Addr()})
				}
			}
		}
		switch {
		case n == nil: // the default network
			via(in.ClusterSubnets...)
			if in.Role == PodRolePrimary {
				via(in.ServiceCIDRs...)
				for _, m := range masqs {
					if mq, err := ipam.MasqueradeIPs(m); err == nil {
						via(netip.PrefixFrom(mq.ServiceHairpin, mq.ServiceHairpin.BitLen()))
					}
				}
				gateways = append(gateways, gw.Addr())
			}
			via(joins...)
		case n.Topology == udn.TopologyLayer3:
			via(n.SubnetPrefixes()...)
			if in.Role == PodRolePrimary {
				via(in.ServiceCIDRs...)
				via(n.JoinSubnets...)
				gateways = append(gateways, gw.Addr())
			}
		case n.Topology == udn.TopologyLayer2 && in.Role == PodRolePrimary:
			via(in.ServiceCIDRs...)
			via(n.JoinSubnets...)
			gateways = append(gateways, gw.Addr())
		}
	}
	return slices.Clip(gateways), routes, nil
}
