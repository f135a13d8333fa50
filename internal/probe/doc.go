// Package probe is `udnkit verify`'s engine: it plans probes between the
// endpoints of a zone, traces each with ovn-trace against the zone's
// Southbound database, judges the trace against what the manifests mean,
// and names the Northbound rows that may explain a surprise.
//
//	Cluster + Plan(zone) ──Probes──► *Plan{Probes, Remote} ──Run(Tracer)──► []Result ──NewReport──► matrix (text, JSON)
//	                                          each: Flow → ovn-trace → ParseTrace → Judge → Blame(Diff(NB, plan))
//
// # Endpoints
//
// A probe starts at a logical switch port the zone's NB holds, because
// ovn-trace takes an inport it knows; nothing is written to the NB. An
// endpoint is a pod of the manifests (its primary network's port, its
// address and MAC from k8s.ovn.org/pod-networks), or, on a node where a
// network has no pod, the network's management port k8s-<prefix><node>
// (address and MAC from the plan; on another node of a Layer3 network, the
// second address of the node's host subnet, as ipam.ManagementIP derives
// it). Sources are the endpoints of the zone's nodes; destinations are all
// endpoints of every node. A Layer2 network's management ports share one
// address, so without pods it is probed on the zone's nodes only. Primary
// Layer3 and Layer2 networks are probed; the others are listed as skipped.
// A probe is one new connection (every ct_next sees ct.new): IPv4 when
// both ends have it, else IPv6; to the destination's MAC on the same
// switch, to the gateway's (the rtos- or trtos- router port) otherwise.
//
// # Intent
//
// udnkit.Cluster.Reach between the two networks (same network, a PodNetwork
// connect, one namespace's primaries: delivered; else not), then, when a
// pod is either end, the network policies: Cluster.Allows when the
// destination is in the zone, Cluster.AllowsEgress when it is not (its own
// zone enforces its ingress policies on its switch). A management port
// sending to a pod of its own switch is admitted whatever the policies
// (the reference's management port ACL).
//
// # Outcome
//
// ParseTrace reads ovn-trace's detailed output: the hops (datapath,
// pipeline, table, stage, match, priority, logical flow UUID) and outputs
// of the probe's own packet; sections of packets OVN makes on the way (an
// ARP or ND request, an ICMP error, a reset) are skipped, so an ARP flood
// that reaches a port is not taken for a delivery. A probe is delivered
// when it is output to the destination's port, or, for a destination on
// another node, into a port that leaves the zone toward that node (a
// remote switch port or a router port with a requested chassis and no
// peer) owned by the destination's network or by the connect joining them
// (a port through which the connect router routes the destination's
// host subnet, RemotePort.Dests). Otherwise it is elsewhere (output
// to another port: an overlapping address of another network), left (out
// through a localnet port: the gateway router's SNAT toward the underlay,
// which is how OVN parts unconnected primary networks; the host and the
// underlay do the rest), dropped (the hop of a drop, or the last hop: an
// ACL's evaluation rather than the action stage after it, since ovn-trace
// prints no drop for an ACL), or failed (ovn-trace refused the probe, e.g.
// its port is missing). A surprise is a failed probe or a delivery the
// intent does not expect, and the other way round.
//
// # Blame
//
// For a surprise, Blame names, first, the ACL that dropped the probe
// (udnkit's ACL whose priority is the flow's minus northd's 1000 and whose
// match ends the flow's; else the flow's match, "an ACL udnkit does not
// own"), then the rows where the NB differs from the plan
// (topology.Diff(observed, desired)) owned by either network or by what
// joins them: "missing", "extra", "differs in". At most six are named.
//
// Departures: the matrix has delivered and dropped; verify tells
// left and elsewhere from dropped because they mean different things to a
// person (OVN did not drop the packet; it sent it out of the cluster or to
// another network's port); all three are "not delivered" to the intent.
//
// Probes, ParseTrace, Judge, Blame and the Report are pure; Run and Exec
// run ovn-trace, one probe at a time. Nothing here is safe for concurrent
// mutation.
package probe
