package manifest

import (
	"encoding/json"
	"fmt"
	"net"
	"net/netip"
	"slices"

	corev1 "k8s.io/api/core/v1"

	"github.com/udnkit/udnkit/internal/sdkerr"
	"github.com/udnkit/udnkit/topology"
)

// The node annotations of the reference implementation (OVN-Kubernetes)
// that NodeOf reads; the node ID and host subnets are the Cluster's
// (udnkit.AnnotationNodeID, udnkit.AnnotationNodeSubnets, read by Restore).
const (
	// AnnotationChassisID is the node's OVN chassis (its system-id).
	AnnotationChassisID = "k8s.ovn.org/node-chassis-id"
	// AnnotationL3Gateway is the node's gateway configuration, per network
	// ("default"): {"default":{"mode":"shared","mac-address":"0a:58:ac:12:00:03",
	// "ip-addresses":["172.18.0.3/16"],"next-hops":["172.18.0.1"],...}}. Older
	// nodes write "ip-address" and "next-hop" (one each).
	AnnotationL3Gateway = "k8s.ovn.org/l3-gateway-config"
	// AnnotationPrimaryIfAddr is the node's primary interface addresses:
	// {"ipv4":"172.18.0.3/16","ipv6":"fc00::3/64"}; read when the gateway
	// configuration has none.
	AnnotationPrimaryIfAddr = "k8s.ovn.org/node-primary-ifaddr"
)

// AnnotationError is a node annotation NodeOf cannot read.
type AnnotationError struct {
	Node, Annotation, Value string
	Err                     error
}

func (e *AnnotationError) Error() string {
	return fmt.Sprintf("Node %s: annotation %s: %v", e.Node, e.Annotation, e.Err)
}

func (e *AnnotationError) Unwrap() error { return e.Err }

// ErrAnnotation is wrapped by every AnnotationError.
var ErrAnnotation = sdkerr.New(sdkerr.Invalid, "malformed annotation")

// l3Gateway is one network's entry of AnnotationL3Gateway.
type l3Gateway struct {
	Mode        string   `json:"mode"`
	MAC         string   `json:"mac-address"`
	IPAddresses []string `json:"ip-addresses"`
	IPAddress   string   `json:"ip-address"`
	NextHops    []string `json:"next-hops"`
	NextHop     string   `json:"next-hop"`
}

// NodeOf returns a Node as the planners see it, from the reference's
// annotations: its chassis (AnnotationChassisID), its external addresses,
// next hops and MAC (AnnotationL3Gateway's "default" entry, the addresses
// from AnnotationPrimaryIfAddr when it has none). The ID is left 0: the
// Cluster restores it from udnkit.AnnotationNodeID or allocates it. What is
// missing is left empty (the Cluster holds such a node as not ready); what
// is malformed is an *AnnotationError.
func NodeOf(n *corev1.Node) (topology.Node, error) {
	nd := topology.Node{Name: n.Name, Chassis: n.Annotations[AnnotationChassisID]}
	bad := func(key string, err error) (topology.Node, error) {
		return topology.Node{}, &AnnotationError{Node: n.Name, Annotation: key, Value: n.Annotations[key],
			Err: fmt.Errorf("%w: %v", ErrAnnotation, err)}
	}
	if v, ok := n.Annotations[AnnotationL3Gateway]; ok {
		var m map[string]l3Gateway
		if err := json.Unmarshal([]byte(v), &m); err != nil {
			return bad(AnnotationL3Gateway, err)
		}
		if gw, ok := m["default"]; ok && gw.Mode != "disabled" {
			addrs := gw.IPAddresses
			if len(addrs) == 0 && gw.IPAddress != "" {
				addrs = []string{gw.IPAddress}
			}
			for _, a := range addrs {
				p, err := netip.ParsePrefix(a)
				if err != nil {
					return bad(AnnotationL3Gateway, fmt.Errorf("default: ip-addresses: %q is not an interface address", a))
				}
				nd.Addresses = appendFamily(nd.Addresses, p)
			}
			hops := gw.NextHops
			if len(hops) == 0 && gw.NextHop != "" {
				hops = []string{gw.NextHop}
			}
			for _, h := range hops {
				a, err := netip.ParseAddr(h)
				if err != nil {
					return bad(AnnotationL3Gateway, fmt.Errorf("default: next-hops: %q is not an address", h))
				}
				if !slices.ContainsFunc(nd.NextHops, func(x netip.Addr) bool { return x.Is4() == a.Is4() }) {
					nd.NextHops = append(nd.NextHops, a)
				}
			}
			if gw.MAC != "" {
				mac, err := net.ParseMAC(gw.MAC)
				if err != nil || len(mac) != 6 {
					return bad(AnnotationL3Gateway, fmt.Errorf("default: mac-address: %q is not a MAC", gw.MAC))
				}
				nd.MAC = mac
			}
		}
	}
	if v, ok := n.Annotations[AnnotationPrimaryIfAddr]; ok && len(nd.Addresses) == 0 {
		var m struct{ IPv4, IPv6 string }
		if err := json.Unmarshal([]byte(v), &m); err != nil {
			return bad(AnnotationPrimaryIfAddr, err)
		}
		for _, a := range []string{m.IPv4, m.IPv6} {
			if a == "" {
				continue
			}
			p, err := netip.ParsePrefix(a)
			if err != nil {
				return bad(AnnotationPrimaryIfAddr, fmt.Errorf("%q is not an interface address", a))
			}
			nd.Addresses = appendFamily(nd.Addresses, p)
		}
	}
	return nd, nil
}

// appendFamily appends p unless ps has an address of its family already
// (a node has at most one per family).
func appendFamily(ps []netip.Prefix, p netip.Prefix) []netip.Prefix {
	if slices.ContainsFunc(ps, func(x netip.Prefix) bool { return x.Addr().Is4() == p.Addr().Is4() }) {
		return ps
	}
	return append(ps, p)
}
