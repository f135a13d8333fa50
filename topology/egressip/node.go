package egressip

import (
	"encoding/json"
	"fmt"
	"net"
	"net/netip"
	"slices"
	"strconv"

	"github.com/udnkit/udnkit/flows"
)

// PriorityBridgeSNAT is the priority of the gateway bridge's egress-IP
// SNAT flows (table 0).
const PriorityBridgeSNAT = 105

// BridgeNetwork is a primary network on the node, as its gateway bridge's
// egress-IP flows need it.
type BridgeNetwork struct {
	// ID is the network ID; its conntrack mark is flows.CtMarkNetworkBase+ID,
	// which the bridge's reply flows (flows.Plan) send back to Patch.
	ID int
	// Patch is the network's patch port on the bridge.
	Patch flows.Port
}

// BridgeInput is what BridgeFlows needs: the node, its bridge's uplink
// and MAC (the gateway routers' source MAC in shared gateway mode), the
// node's IPs, the primary networks on it and the EgressIPs (with Mark and
// Status).
type BridgeInput struct {
	Node     string
	Physical flows.Port
	MAC      net.HardwareAddr
	// NodeIPs are the node's addresses, at most one per family: the served
	// pods' traffic to node IPs (marked NodeIPMark by the priority-102
	// policy) is SNATed to them.
	NodeIPs   []netip.Addr
	Networks  []BridgeNetwork
	EgressIPs []EgressIP
}

// BridgeFlows returns the gateway-bridge flows of egress IPs on
// user-defined networks, as the reference's bridge has them (no NAT in
// OVN), all in table 0 at PriorityBridgeSNAT, matching a network's patch
// port, the bridge MAC as source and a packet mark, committing to
// flows.ZoneMain with the network's conntrack mark and leaving by the
// uplink:
//
//   - per network and node IP, pkt_mark=NodeIPMark (0x3f0): SNAT to the
//     node IP (served pods' traffic to node addresses);
//   - per network and egress IP assigned to the node, pkt_mark=<the
//     EgressIP's mark>: SNAT to the egress IP. Every network gets them,
//     whether or not the EgressIP serves pods on it, as the reference.
//
// Sorted (flows.Sort); pure.
func BridgeFlows(in BridgeInput) ([]flows.Flow, error) {
	if len(in.MAC) != 6 {
		return nil, fmt.Errorf("egressip: node %q: bridge MAC: %w: %q", in.Node, ErrInvalid, in.MAC.String())
	}
	var out []flows.Flow
	phys, mac := strconv.Itoa(in.Physical.OFPort), in.MAC.String()
	add := func(n BridgeNetwork, ip netip.Addr, mark string) {
		fam := "ip"
		if ip.Is6() {
			fam = "ipv6"
		}
		out = append(out, flows.Flow{Table: 0, Priority: PriorityBridgeSNAT,
			Match: "in_port=" + strconv.Itoa(n.Patch.OFPort) + ",dl_src=" + mac + "," + fam + ",pkt_mark=" + mark,
			Actions: "ct(commit,zone=" + strconv.Itoa(flows.ZoneMain) + ",nat(src=" + ip.String() +
				"),exec(set_field:0x" + strconv.FormatInt(int64(flows.CtMarkNetworkBase+n.ID), 16) + "->ct_mark)),output:" + phys})
	}
	for _, n := range in.Networks {
		if n.ID <= 0 || n.Patch.OFPort <= 0 {
			return nil, fmt.Errorf("egressip: node %q: network %d: %w: needs an ID and a patch port number", in.Node, n.ID, ErrInvalid)
		}
		for _, ip := range in.NodeIPs {
			add(n, ip, "0x"+strconv.FormatInt(NodeIPMark, 16))
		}
		for _, e := range in.EgressIPs {
			for _, a := range e.Status {
				if a.Node != in.Node {
					continue
				}
				if e.Mark < MarkFirst || e.Mark > MarkLast {
					return nil, fmt.Errorf("egressip %q: annotation %s: %w: mark %d not allocated", e.Name, AnnotationMark, ErrInvalid, e.Mark)
				}
				add(n, a.IP, strconv.Itoa(e.Mark))
			}
		}
	}
	flows.Sort(out)
	return slices.CompactFunc(out, func(a, b flows.Flow) bool { return a.Key() == b.Key() }), nil
}

// BridgeIPs returns the egress IPs assigned to node, which go on its
// gateway bridge, sorted.
func BridgeIPs(node string, eips []EgressIP) []netip.Addr {
	var out []netip.Addr
	for _, e := range eips {
		for _, a := range e.Status {
			if a.Node == node {
				out = append(out, a.IP)
			}
		}
	}
	slices.SortFunc(out, netip.Addr.Compare)
	return slices.Compact(out)
}

// FormatBridgeIPs returns the AnnotationBridgeEgressIPs value of ips: a
// JSON array of addresses.
func FormatBridgeIPs(ips []netip.Addr) string {
	s := make([]string, len(ips))
	for i, a := range ips {
		s[i] = a.String()
	}
	b, _ := json.Marshal(s)
	return string(b)
}

// ParseBridgeIPs parses an AnnotationBridgeEgressIPs value, sorted.
func ParseBridgeIPs(v string) ([]netip.Addr, error) {
	var s []string
	if err := json.Unmarshal([]byte(v), &s); err != nil {
		return nil, fmt.Errorf("annotation %s: %w: %v", AnnotationBridgeEgressIPs, ErrInvalid, err)
	}
	out := make([]netip.Addr, 0, len(s))
	for i, e := range s {
		a, err := netip.ParseAddr(e)
		if err != nil || a.Zone() != "" {
			return nil, fmt.Errorf("annotation %s: [%d]: %w: %.64q is not an address", AnnotationBridgeEgressIPs, i, ErrInvalid, e)
		}
		out = append(out, a)
	}
	slices.SortFunc(out, netip.Addr.Compare)
	return slices.Compact(out), nil
}
