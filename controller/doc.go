// Package controller is udnkit's reference controller: it drives a
// udnkit.Cluster from a Kubernetes API server through
// sigs.k8s.io/controller-runtime and writes back what a cluster stores.
//
// It watches Nodes, Namespaces, UserDefinedNetworks,
// ClusterUserDefinedNetworks, NetworkAttachmentDefinitions,
// ClusterNetworkConnects, Pods, Services, EndpointSlices,
// NetworkPolicies, EgressIPs and EgressQoSes. Every event maps to one request, and a pass is
// level-triggered: it reads everything from the informer cache, hands the
// Cluster what changed since the last pass (Set*/Remove*, in the order
// nodes, namespaces, networks, connects, pods, Services, policies, egress;
// removals last), plans each event's changes right after the call that returned it
// (Cluster.PlanEvent), and writes only what differs:
//
//   - NADs and the protection finalizers, as netconf.ReconcileUDN and
//     ReconcileCUDN decide (owner references, labels, finalizers); a NAD is
//     created with its allocation annotations;
//   - every allocation annotation Cluster.Annotations returns (node ID and
//     host subnets on Nodes, network ID, name and tunnel keys on NADs,
//     tunnel key and subnets on ClusterNetworkConnects, the
//     k8s.ovn.org/egressip-mark on EgressIPs), with JSON merge patches of
//     the annotations that differ, before the NB (no NB row carries a mark
//     no annotation records);
//   - the zone's Northbound database: Plan and ovnnb Sync on the first pass
//     (and after any failed plan or write, or a pass of more than 32
//     events, where one Sync costs less than their plans and Applies),
//     then only the events' changes, in order; a pass that finds nothing
//     changed sends the NB nothing. A whole-zone Sync also removes the
//     scopes of the Cluster's controllers it no longer plans (networks,
//     connects, links deleted while no controller ran), the topology's
//     last;
//   - each pod's k8s.ovn.org/pod-networks annotation
//     (Cluster.PodAnnotation, a JSON merge patch), written before the NB
//     (a pass whose annotations fail writes no NB row, and the next plans
//     the zone): no port in the NB holds an address or tunnel key that no
//     annotation records, which a restarted controller could give another
//     pod. Pods that carry one are
//     set before new ones, so a restarted controller gives no new pod an
//     address a recorded pod holds; a pod of a namespace that asks for a
//     primary UDN waits until the Cluster holds one. Host-networked,
//     unscheduled and finished pods get nothing;
//   - Services with their EndpointSlices: the default network's slices of
//     a Service are mirrored onto each primary network of its namespace
//     (services/kube.MirrorEndpointSlice, the pods' addresses on that
//     network) for the load balancers; the mirrors are not written to the
//     API server;
//   - NetworkPolicies (policy/kube.PolicyFrom), refused ones logged;
//   - egress: a node's k8s.ovn.org/egress-assignable label
//     (SetEgressAssignable), EgressIPs (egressip/kube.EgressIPFrom,
//     SetEgressIP; fed again when their spec changes; refused ones
//     logged) and each namespace's EgressQoS named "default"
//     (egressqos/kube.EgressQoSFrom, SetEgressQoS; others are ignored,
//     as the reference does);
//   - statuses through the status subresource, read again and retried on
//     conflicts: the UDN/CUDN conditions netconf decides (NetworkCreated
//     once the NB holds the network), with the Cluster's own refusal (an
//     overlap with the default network, say) as an InvalidSpec condition;
//     a ClusterNetworkConnect's Accepted and Ready-In-Zone-<zone>
//     conditions and its summary; an EgressIP's status.items
//     (Cluster.EgressIPStatus); an EgressQoS's Ready-In-Zone-<zone>
//     condition (False with the refusal naming the field, True once the
//     zone's NB holds its rows; egressqos/kube.Condition) and summary.
//
// On its first pass it restores the Cluster from the stored annotations
// (Cluster.Restore, the EgressIPs' marks included, then EndRestore once
// every existing object was added), so a restarted controller renumbers
// nothing (an EgressIP created while none ran takes no mark another holds)
// and its first Sync finds the NB as the previous one left it. The egress
// controllers' rows are the Cluster's too: a whole-zone Sync removes those
// of networks it no longer plans egress rows for.
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
// A rest.Config without QPS gets no client-side rate limit (client-go's
// default of 5 requests a second), as controller-runtime's loader does.
//
// Not yet: PodNetwork and PodNetworkAttachment objects (their CRDs are in
// package crds), writing the mirrored EndpointSlices, a status for a
// refused EgressIP (the reference's CRD has no condition: it is logged).
package controller
