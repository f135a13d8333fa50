package egressip

import (
	"encoding/json"
	"fmt"
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

// BridgeInput is what BridgeFlows needs: the node, its bridge's uplink,
// the primary networks on it and the EgressIPs (with Mark and Status).
type BridgeInput struct {
	Node      string
	Physical  flows.Port
	Networks  []BridgeNetwork
	EgressIPs []EgressIP
}

// BridgeFlows returns the gateway-bridge flows that SNAT a user-defined
// network's egress-IP traffic on its egress node, as the reference's
// bridge does for UDNs (no NAT in OVN): for each egress IP assigned to the
// node and each network, a table-0 flow at PriorityBridgeSNAT matching the
// network's patch port and the EgressIP's packet mark that commits to
// flows.ZoneMain with nat(src=<egress IP>) and the network's conntrack
// mark, and leaves by the uplink. Sorted (flows.Sort); pure.
func BridgeFlows(in BridgeInput) ([]flows.Flow, error) {
	var out []flows.Flow
	phys := strconv.Itoa(in.Physical.OFPort)
	for _, e := range in.EgressIPs {
		for _, a := range e.Status {
			if a.Node != in.Node {
				continue
			}
			if e.Mark < MarkFirst || e.Mark > MarkLast {
				return nil, fmt.Errorf("egressip %q: annotation %s: %w: mark %d not allocated", e.Name, AnnotationMark, ErrInvalid, e.Mark)
			}
			ip := "ip"
			if a.IP.Is6() {
				ip = "ipv6"
			}
			for _, n := range in.Networks {
				if n.ID <= 0 || n.Patch.OFPort <= 0 {
					return nil, fmt.Errorf("egressip: network %d: %w: needs an ID and a patch port number", n.ID, ErrInvalid)
				}
				out = append(out, flows.Flow{Table: 0, Priority: PriorityBridgeSNAT,
					Match: ip + ",in_port=" + strconv.Itoa(n.Patch.OFPort) + ",pkt_mark=" + strconv.Itoa(e.Mark),
					Actions: "ct(commit,zone=" + strconv.Itoa(flows.ZoneMain) + ",nat(src=" + a.IP.String() +
						"),exec(set_field:0x" + strconv.FormatInt(int64(flows.CtMarkNetworkBase+n.ID), 16) + "->ct_mark)),output:" + phys})
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
