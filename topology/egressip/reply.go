package egressip

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/udnkit/udnkit/netconf/udn"
	"github.com/udnkit/udnkit/topology"
)

// The reference's EgressIP-Mark-Reply-Traffic QoS row.
const (
	PriorityReplyQoS = 103
	// ReplyMark is the mark it sets, which the topology's priority-102
	// policy (pkt.mark == 42) lets through without a reroute.
	ReplyMark = topology.NoRerouteMark
)

// ReplyQoS is a QoS row that marks served pods' reply traffic so that it
// leaves by the pod's own node (a connection that came in through it),
// not the egress node. The model has no QoS kind yet (see the package
// doc): ReplyQoSRows returns the rows as values for the caller to apply.
type ReplyQoS struct {
	Owner     topology.Owner
	Switch    string
	Direction topology.ACLDirection
	Priority  int
	Match     string
	Mark      int
}

// String renders the row ("qos switch=... action={mark=42}").
func (q ReplyQoS) String() string {
	return "qos switch=" + q.Switch + " direction=" + string(q.Direction) + " priority=" + strconv.Itoa(q.Priority) +
		" match=" + strconv.Quote(q.Match) + " action={mark=" + strconv.Itoa(q.Mark) + "} owner=" + q.Owner.String()
}

// ReplyQoSRows returns the reply-marking rows of in.Network for in.Zone, as
// the reference writes them: per family of the network and per switch of
// the zone (a Layer3 network's local node switches, a Layer2 network's
// switch), from-lport at PriorityReplyQoS, match
// "ip4.src == $<egressip-served-pods> && ct.trk && ct.rpl", action
// mark=ReplyMark. Sorted by switch and match; pure.
func ReplyQoSRows(in Input) ([]ReplyQoS, error) {
	n := in.Network
	if n == nil || !n.IsPrimary() {
		return nil, fmt.Errorf("egressip: network: %w: need a primary network", ErrInvalid)
	}
	var switches []string
	switch n.Topology {
	case udn.TopologyLayer3:
		for i := range in.Nodes {
			if in.Nodes[i].InZone() == in.Zone {
				switches = append(switches, topology.PodSwitchName(n, in.Nodes[i].Name))
			}
		}
	case udn.TopologyLayer2:
		switches = append(switches, topology.PodSwitchName(n, ""))
	default:
		return nil, fmt.Errorf("egressip: network %q: %w: %s", n.Name, ErrUnsupported, n.Topology)
	}
	slices.Sort(switches)
	own := topology.Owner{Controller: Controller, Network: n.Name, Topology: n.Topology, Role: n.Role}
	var out []ReplyQoS
	for _, sw := range switches {
		o := own
		if n.Topology == udn.TopologyLayer3 {
			o.Node = sw[len(n.Prefix()):]
		}
		for _, is4 := range families(n) {
			ipv := "ip6"
			if is4 {
				ipv = "ip4"
			}
			out = append(out, ReplyQoS{Owner: o, Switch: sw, Direction: topology.ACLFromLport, Priority: PriorityReplyQoS,
				Match: ipv + ".src == $" + AddressSetName(SetServedPods, n.Name, is4) + " && ct.trk && ct.rpl", Mark: ReplyMark})
		}
	}
	return out, nil
}
