// Package services plans the OVN load balancers of the Services of a
// primary user-defined network, as the reference's services controller
// builds them: pure data in (Services with the network's EndpointSlices,
// nodes, the zone), load balancers out, owned by ControllerServices.
//
// Per Service and protocol, a cluster-wide load balancer
// ("<prefix>Service_<ns>/<name>_<PROTO>_cluster") holds the cluster IPs
// (and external and load-balancer IPs) with the eligible endpoints. It
// joins the network's cluster load-balancer group, which every node switch
// and gateway router of the network holds, and the groups of connected
// networks (Input.PeerGroups, from connect.ServiceGroups). NodePorts,
// externalTrafficPolicy Local, internalTrafficPolicy Local and endpoints
// outside the network's subnets (host-networked pods) need load balancers
// per node of the zone, attached to the node's pod switch and gateway
// router: one for both when their rules agree ("node_router+switch_<node>"),
// else "node_router_", "node_local_router_" (Local traffic, skip_snat) and
// "node_switch_"; load balancers with the same rules are merged
// ("..._merged"). Endpoints: the ready ones, else the serving and
// terminating ones (KEP-1669), all with publishNotReadyAddresses; backends
// are sorted as strings, as the reference sorts them. Options: reject,
// event=false, skip_snat, neighbor_responder=none, hairpin_snat_ip (the
// masquerade subnets' service hairpin addresses), affinity_timeout or, at
// the longest affinity, selection_fields ip_src/ip_dst. External ids:
// k8s.ovn.org/kind=Service and k8s.ovn.org/owner=<ns>/<name>, beside the
// owner's network and role.
//
// Which Services a network gets is the caller's choice, by the seeds'
// rules: a namespace's Services on its primary network (on each, with
// several primaries, seed 002), none of another namespace's; the
// Kubernetes API and DNS services of the default network are reached from
// every primary network through the management port, which the topology
// plans (topology.Cluster.ServiceIPs), not here. Package kube reads the
// Kubernetes objects (ServiceFrom, EndpointSliceFrom) and builds a primary
// network's EndpointSlices from the default network's ones and the pods'
// annotations (MirrorEndpointSlice).
//
// Plan returns every Service's load balancers as one State, for Sync;
// PlanService returns one Service's, and Changes the changes between two
// of its plans (an endpoint added or gone), for Apply, at a cost
// independent of the number of Services. A State of one Service is never
// synced: it speaks for the network's load balancers, and Sync would
// delete every other Service's.
//
// # Where udnkit departs from the reference
//
//   - No load-balancer templates: NodePort Services get per-node load
//     balancers (the reference's behaviour with templates off), since the
//     model has no Chassis_Template_Var rows.
//   - A host endpoint is one outside the network's subnets; the reference
//     tests the default network's cluster subnets, which would make every
//     endpoint of a user-defined network a host one.
//   - A Service port without a name matches a slice port of any name of
//     its protocol; the reference records such endpoints under the slice
//     port's name, where no Service port finds them.
//
// The package is pure and safe for concurrent use.
package services
