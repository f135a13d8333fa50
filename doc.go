// Package udnkit is an SDK for Kubernetes user-defined network segmentation on OVN.
//
// It turns network intent — UserDefinedNetwork, ClusterUserDefinedNetwork,
// ClusterNetworkConnect and PodNetwork objects — into the exact OVN Northbound rows,
// OVS flows and kernel state that realise it. The work is split in two halves:
//
//   - Pure planners compute desired state and the ordered changes between what exists
//     and what should: [github.com/udnkit/udnkit/netconf] validates networks, renders
//     NetworkAttachmentDefinitions and the pod-networks annotation,
//     [github.com/udnkit/udnkit/ipam] allocates and derives every address, ID and tunnel
//     key, [github.com/udnkit/udnkit/topology] plans the OVN logical topology of Layer3,
//     Layer2 and Localnet networks and diffs it, topology/pods attaches pods,
//     topology/services plans the Services' load balancers,
//     [github.com/udnkit/udnkit/connect] plans ClusterNetworkConnects, and on the node
//     [github.com/udnkit/udnkit/vrf] plans VRFs, routes, rules and nftables while
//     [github.com/udnkit/udnkit/flows] plans the gateway bridge's OpenFlow. Planners do no
//     I/O, read no clock and keep no global state: the same input gives the same output,
//     byte for byte.
//   - Backend adapters under backend/ apply those changes: backend/ovnnb writes the OVN
//     Northbound database through libovsdb (an embedded in-memory server by default, or a
//     real ovsdb-server), backend/nbctl renders the same changes as an ovn-nbctl script
//     for a dry run, backend/ovs applies flows with ovs-ofctl and backend/kernel routes
//     and rules through netlink. Each planner's rows belong to its controller: one
//     controller's sync never touches another's.
//
// The import graph is a DAG: ipam and netconf at the bottom, the planners above them,
// backends above the planners, examples and commands on top.
//
// This package holds the system: a [Cluster] owns what every planner of a cluster
// shares — the settings and profile given once, the nodes, and one set of
// allocators (network and node IDs, host subnets, the tunnel keys of Layer2
// networks and connect routers, connect subnets, pod addresses and port keys) — and
// plans networks, ClusterNetworkConnects, the links between a namespace's primary
// networks, pods and Services into a zone's rows ([Cluster.Plan]), a node's kernel and
// bridge state ([Cluster.PlanNode]), and, for each change a controller sees, just the
// rows it alters ([Cluster.PlanEvent]). It starts from what the cluster stores
// ([Cluster.Restore] reads the annotations [Cluster.Annotations] wrote, in the
// reference implementation's formats), so a restart renumbers nothing, and it keeps
// bootstrapping nodes out of every plan ([Cluster.NotReady]). It also says what it
// means between networks and pods, for a referee such as `udnkit verify`: [Cluster.Reach]
// (the same network, a PodNetwork connect, a namespace's primaries) and the network
// policies' verdicts ([Cluster.Allows], [Cluster.AllowsEgress]). A UDN reaches rows in
// four calls (New, AddUDN, Plan, Sync); a ClusterNetworkConnect in two more (SetConnect,
// Plan); a pod in two (SetPod, then PlanEvent's changes applied).
//
// Egress: [Cluster.SetEgressIP] takes an EgressIP (topology/egressip), allocates its
// mark (k8s.ovn.org/egressip-mark, kept by Annotations and Restore) and assigns its IPs
// to the nodes [Cluster.SetEgressAssignable] labels (in the subnet of the node's
// Addresses, never a node's own address); [Cluster.EgressIPStatus] is what a
// controller writes back. [Cluster.SetEgressQoS] takes a namespace's EgressQoS
// (topology/egressqos). Both are planned on every primary network of their namespaces
// (seed 002). A pod's PlanEvent patches only that pod's egress rows (its policies and
// its addresses in the sets); a node's or an EgressIP's plans the egress rows again,
// so removing the egress node moves its IPs and changes only the rows that follow them.
// The egress node's [Cluster.PlanNode] holds the gateway bridge's SNAT flows of the
// EgressIPs' marks and the egress IPs that go on the bridge (NodePlan.BridgeEgressIPs, and
// in its kernel plan's Addresses).
//
// Errors: every error a package returns belongs to one of eight classes, so errors.Is
// against this package's [ErrInvalid], [ErrConflict], [ErrExhausted], [ErrNotFound],
// [ErrNotSupported], [ErrUnavailable], [ErrRefused] and [ErrOutcomeUnknown] classifies
// it whichever package returned it ([ErrorClass] names the class). Each package's own
// sentinels (ipam.ErrExhausted, ovnnb.ErrOutcomeUnknown, …) keep their names and
// messages and belong to exactly one class; a few errors belong to two (a row that
// already exists is ovnnb's invalid change and a conflict). Context errors and the
// errors of what the caller passes in (an io.Writer, a lookup function) come back
// as they are. Messages name the object and field at fault.
package udnkit
