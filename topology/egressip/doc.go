// Package egressip plans EgressIPs (k8s.ovn.org/v1) on primary Layer3 and
// Layer2 user-defined networks as the reference implementation does for
// them: the cluster manager's assignment and marks, the zone's Northbound
// rows, and the egress node's gateway-bridge flows.
//
// # Assignment and marks
//
// Assign places each egress IP on a node labelled
// k8s.ovn.org/egress-assignable and ready, whose primary interface subnet
// (k8s.ovn.org/node-primary-ifaddr) holds it; an IP equal to a node's own
// address is refused; an EgressIP has at most one IP per node; the node with
// the fewest assignments takes the next IP; valid status items are kept, so
// that replanning moves nothing and removing a node moves only its IPs. An
// IP without a node comes back with its Reason. MarkAllocator hands each
// EgressIP its packet mark (k8s.ovn.org/egressip-mark, 50000..54999, round
// robin) and is rebuilt after a restart from the annotations with Restore,
// or Sync, which also hands out the marks missing or lost to a conflict and
// says which annotations to write.
//
// # Northbound rows
//
// Plan writes, for one network and zone, rows owned by Controller
// ("udnkit-egressip"), which Diff and Sync keep apart from the topology's:
//
//	prio  router                      match                                          action
//	102   cluster or transit router   ip4.src == $<served> && ip4.dst == $<node-ips>  allow, pkt_mark=1008
//	102   cluster or transit router   ip4.src == $<served> && ip4.dst == $<svc-ips>   allow
//	100   cluster or transit router   ip4.src == <local served pod>                  reroute <hops>, pkt_mark=<mark>
//	95    GR_<p><local egress node>   ip4.src == <served pod> && pkt.mark == 0       allow, pkt_mark=<mark>
//
// The cluster router is Layer3's <p>ovn_cluster_router, the transit router
// Layer2's <p>transit_router. A namespace with several primary networks
// (seed 002) gets these rows on each: Plan is called per network, with the
// pods' addresses on it. The zone's switches of the network get the
// reference's reply-marking QoS rows (EgressIP-Mark-Reply-Traffic:
// from-lport, priority 103, "ip4.src == $<served> && ct.trk && ct.rpl",
// mark=42), so that a served pod's reply to a connection that came in
// through its own node leaves by it. The row matches tracked replies
// only: a switch must run conntrack (the network policies' allow-related
// ACLs do).
//
// PodPolicies gives one pod's policies without the other pods, for a
// controller that diffs a pod's change rather than planning the network
// again (udnkit.Cluster does).
//
// On a Layer2 transit router a zone also reroutes the served pods of
// other zones, to its own egress nodes only, as the reference does
// (egressip_udn_l2_test.go "Pod update": podName4 on node2 rerouted to
// node1 in node1's zone; its addPodEgressIPAssignment).
//
// Under interconnect, a Layer3 zone whose one node is an egress node
// (Input.EgressNodes) also gets the reference's src-ip route of the
// network's subnets to its gateway router's join address, which carries the
// traffic other zones reroute to it.
//
// The next hop of an egress node is, on Layer3, its gateway router's join
// address when the node is in the zone and its transit-switch address when
// it is not; on a Layer2 transit router, its gateway router's side of its
// peer pair under the Input's profile. The address sets (served pods of
// the zone, node IPs, the default network's service IPs) are named as the
// reference names address sets, "a" and the decimal FNV-1a-64 of an id.
// A pod served by several EgressIPs is served by the first by name.
//
// # Node side
//
// For a user-defined network the reference does not SNAT in OVN: the egress
// node's gateway bridge does, on the mark. BridgeFlows returns those flows
// (table 0, priority 105, from a network's patch port and the bridge MAC:
// pkt_mark=<mark> to ct(commit,zone=64000,nat(src=<egress IP>)), and the
// reference's pkt_mark=0x3f0 (1008) to the node IP) to add to package
// flows' plan; BridgeIPs lists the addresses to put on the
// bridge (vrf.Node.EgressIPs: the kernel plan's Addresses, which
// backend/kernel writes with protocol 85), and FormatBridgeIPs/ParseBridgeIPs
// its node annotation k8s.ovn.org/bridge-egress-ips.
//
// # Where udnkit departs from the reference
//
//   - Owner: the reference writes these rows as default-network-controller
//     with a k8s.ovn.org/name external_id per policy; udnkit owns them by
//     its own controller (the model writes only the owner's external_ids),
//     so that a Sync of EgressIPs never touches the topology's rows.
//   - The 102 pod-to-pod, pod-to-join and reply-traffic policies are the
//     topology's (topology.Plan writes them for every primary network, with
//     the network's join subnet as well); planning them here too would give
//     two controllers one row. The egress-service set the reference ORs into
//     the node-IP policy is left out: udnkit has no EgressService.
//   - The node-IP and service-IP sets are per network (the reference shares
//     one node-IP set and takes the service one from another controller), so
//     that each network's rows come and go with it.
//   - udnkit.Cluster plans a network's EgressIP rows while it holds an
//     EgressIP: when the last goes, the sets and priority-102 policies go
//     too (the reference keeps them, the served set empty).
//   - Legacy Layer2 (gateway routers on the switch) and secondary host
//     interfaces are refused with ErrUnsupported; the reference supports
//     the first and not the second.
//   - Selectors are Selector values, not apimachinery's, so that the
//     planner links no Kubernetes machinery; package kube converts them.
//
// Everything here is pure and deterministic and safe for concurrent use but
// MarkAllocator, which is not safe for concurrent use. Package kube reads
// EgressIPs and nodes and writes status and mark patches.
package egressip
