// Package controller is udnkit's reference controller: it drives a
// udnkit.Cluster from a Kubernetes API server through
// sigs.k8s.io/controller-runtime and writes back what a cluster stores.
//
// It watches Nodes, Namespaces, UserDefinedNetworks,
// ClusterUserDefinedNetworks, NetworkAttachmentDefinitions and
// ClusterNetworkConnects. Every event maps to one request, and a pass is
// level-triggered: it reads everything from the informer cache, hands the
// Cluster what changed since the last pass (Set*/Remove*, in the order
// nodes, namespaces, networks, connects) and writes only what differs:
//
//   - NADs and the protection finalizers, as netconf.ReconcileUDN and
//     ReconcileCUDN decide (owner references, labels, finalizers); a NAD is
//     created with its allocation annotations;
//   - every allocation annotation Cluster.Annotations returns (node ID and
//     host subnets on Nodes, network ID, name and tunnel keys on NADs,
//     tunnel key and subnets on ClusterNetworkConnects), with JSON merge
//     patches of the annotations that differ;
//   - the zone's Northbound database: Plan and ovnnb Sync on the first pass
//     (and after any failed write), then only PlanEvent's changes of each
//     event;
//   - statuses through the status subresource, read again and retried on
//     conflicts: the UDN/CUDN conditions netconf decides (NetworkCreated
//     once the NB holds the network), with the Cluster's own refusal (an
//     overlap with the default network, say) as an InvalidSpec condition;
//     a ClusterNetworkConnect's Accepted and Ready-In-Zone-<zone>
//     conditions and its summary.
//
// On its first pass it restores the Cluster from the stored annotations
// (Cluster.Restore, then EndRestore once every existing object was added),
// so a restarted controller renumbers nothing and its first Sync finds the
// NB as the previous one left it.
//
// With Config.LeaderElection the replicas elect a leader with a Lease;
// only the leader reconciles, so only it writes. The facade is not shared
// between replicas: a new leader restores its own from the annotations.
//
// A node is planned once its annotations give its chassis
// (k8s.ovn.org/node-chassis-id), external address
// (k8s.ovn.org/node-primary-ifaddr) and next hop
// (k8s.ovn.org/l3-gateway-config), the reference implementation's names;
// NodeFromObject reads them.
//
// Not yet: Pods (the pod-networks annotation and ports), Services and
// EndpointSlices, network policies and egress; NB rows of a network deleted
// while no controller ran are not removed (a Sync speaks for the networks
// it plans).
package controller
