// Package egressqos plans EgressQoS (k8s.ovn.org/v1: DSCP marking per
// destination CIDR and pod selector) on primary user-defined networks: on
// every primary network of the namespace (seed 002), with the reference's
// row shapes.
//
// PlanZone takes the primary networks with the namespaces each serves, the
// nodes and zone, every namespace's EgressQoS (the object named "default")
// and the pods with their addresses per network. For each rule i of an
// EgressQoS and each primary network of its namespace it writes, owned by
// Controller ("udnkit-egressqos"):
//
//   - an Address_Set per family of the network holding the addresses, on
//     that network, of the zone's pods the rule selects (all the namespace's
//     pods without a selector); named "a" and the FNV-1a-64 of an id with
//     the namespace, priority, family and network;
//   - a QoS row on each of the network's switches in the zone (a Layer3
//     network's local node switches, a Layer2 network's switch): to-lport,
//     priority 1000 − i, action dscp, match
//     "(ip4.dst == <dstCIDR>) && ip4.src == $<set>" (dual stack
//     "(ip4.src == $v4 || ip6.src == $v6)"; no dstCIDR
//     "(ip4.dst == 0.0.0.0/0 || ip6.dst == ::/0)").
//
// Package kube reads the custom resource and writes the zone's condition
// Ready-In-Zone-<zone> (SetupSucceeded or SetupFailed) and the summary
// status, as the reference's zone controllers and cluster manager do.
//
// # Where udnkit departs from the reference
//
//   - The reference plans EgressQoS in its default-network controller only:
//     its rows land on user-defined networks' switches too, but the sets
//     hold default-network addresses, so no UDN pod is ever marked (a
//     reference gap). Seed 002 asks for QoS on every primary network;
//     udnkit plans a set and rows per network with the pods' addresses on
//     it, and owns them by its own controller.
//   - The QoS rows are topology.QoS objects of the State, owned like the
//     sets by Controller and the network (and, on a Layer3 switch, its
//     node); the reference's external_ids EgressQoS=<namespace> and
//     priority are not written: the row's key (switch, direction,
//     priority, match) and its owner identify it.
//   - A dstCIDR is written in its canonical spelling
//     (2001:db8:85a3::8a2e:370:7334/128); the reference copies the spec's
//     text. OVN reads both alike; a row the reference wrote with another
//     spelling is replaced once.
//   - NetworkQoS (k8s.ovn.org/v1alpha1), the reference's UDN-aware
//     successor, is not planned: it selects networks through a NAD selector,
//     matches by ports and protocols and sets bandwidth limits (QoS rows'
//     bandwidth column), none of which these rows have; it needs its own
//     planner on the same kind.
//
// PlanZone is pure, deterministic and safe for concurrent use.
package egressqos
