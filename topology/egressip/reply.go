package egressip

import (
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

// replyQoS emits the reply-marking rows of the zone's switches of network
// n, as the reference writes them: per family and per switch (a Layer3
// network's local node switches, owned with their node; a Layer2
// network's switch, network-wide), from-lport at PriorityReplyQoS, match
// "ip4.src == $<egressip-served-pods> && ct.trk && ct.rpl", action
// mark=ReplyMark. They mark served pods' replies to connections that came
// in through the pod's own node, so that those leave by it.
func replyQoS(e *topology.Emitter, n *udn.Network, own topology.Owner, local []*topology.Node, want func(string) bool) {
	type sw struct{ name, node string }
	var switches []sw
	if n.Topology == udn.TopologyLayer2 {
		switches = append(switches, sw{topology.PodSwitchName(n, ""), ""})
	} else {
		for _, nd := range local {
			switches = append(switches, sw{topology.PodSwitchName(n, nd.Name), nd.Name})
		}
	}
	mark := topology.NewIntOptions(topology.QoSMark, ReplyMark)
	for _, s := range switches {
		if !want(s.node) {
			continue
		}
		o := own
		o.Node = s.node
		for _, is4 := range n.Families() {
			ipv := "ip6"
			if is4 {
				ipv = "ip4"
			}
			e.Emit(topology.QoS{Owner: o, Switch: s.name, Direction: topology.ACLFromLport, Priority: PriorityReplyQoS,
				Match: e.Cat(ipv, ".src == $", AddressSetName(SetServedPods, n.Name, is4), " && ct.trk && ct.rpl"), Action: mark})
		}
	}
}
