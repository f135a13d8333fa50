// Package connect implements ClusterNetworkConnect (seed OKEP-5224): the
// API, its validation and status, and the pure planner of the OVN rows that
// connect the user-defined networks it selects.
//
// The path of a connect, each step a pure function:
//
//	c, _ := connect.Decode(yaml)                 // the seed's API; the reference CRD's spellings decode too
//	errs := connect.Validate(c)                  // the seed's kubebuilder markers and CEL rules, field.ErrorList
//	acc := connect.Accept(c, cluster)            // selection and every Accepted reason, a metav1.Condition
//	al, _ := allocator.Allocate(networks)        // tunnel key and connect subnets; Annotations persist them
//	desired, _ := connect.Plan(connect.Input{…}) // a topology.State of the connect's rows in one zone
//
// Plan's State is in the same model as package topology's, so a backend's
// Sync applies it like a network's. Its rows belong to ControllerConnect
// with the connect's name as owner network: a connect's Diff and Sync touch
// its own rows only, even on the networks' routers, and a topology Sync
// never touches them. topology.RemovalFor(ControllerConnect, name) is the
// state of a deleted connect.
//
// # What is planned
//
// A router "connect-router-<cnc>" with the connect's tunnel key. Per
// connected Layer3 network and node, a point-to-point pair at offset
// 2*nodeID of the network's /networkPrefix block: the network side, port
// "<network>-<node>-to-<cnc>" on the network's cluster router (local nodes
// only), and the connect side, port "<cnc>-to-<network>-<node>" on the
// connect router, peered for a local node, bound to the node's chassis
// (requested-chassis) for a remote one. A Layer2 network has one pair from
// a shared block, ports "<network>-to-<cnc>" on its transit router and
// "<cnc>-to-<network>". Each port's MAC is derived from its own first
// address. On every network router, for each local node, a priority-9001
// reroute policy per subnet of every other connected network
// (inport == "rtos-<p><node>" or "trtos-<p>ovn_layer2_switch") to the
// connect side; on the connect router, a route per node host subnet
// (Layer3) or per network subnet (Layer2) to the network side. Both
// families.
//
// # Where the seed and the reference part ways
//
// The seed's listings rule names and sides (DESIGN's round 2 decisions);
// udn.ProfileReference writes the reference's instead:
//
//	                        seeds (default)                 reference
//	router                  connect-router-<cnc>            connect_router_<cnc>
//	connect-router port     <cnc>-to-<net>[-<node>]         crtor-<cnc>_<net>[_<node>]
//	network-router port     <net>[-<node>]-to-<cnc>         rtocr-<net>[_<node>]_<cnc>
//	even / odd address      network side / connect side     connect side / network side
//	subnets annotation      k8s.ovn.org/network-subnets     k8s.ovn.org/network-connect-subnet
//	Accepted reasons        the seed's eight                ResourceAllocationSucceeded/Failed
//	API spellings           connectivityEnabled,            connectivity, ServiceNetwork
//	                        ClusterIPServiceNetwork         (both decode; the seed's are kept)
//
// Other departures, each deliberate:
//   - The seed's listings give nodes illustrative offsets (ovn-control-plane
//     at 0, the same node at different offsets in different networks) and a
//     few MACs that do not match their addresses (0a:58:c0:80:… for
//     192.168.…); the seed's own rule (pair at 2*nodeID, MAC from the
//     address) is applied.
//   - Connect-router port tunnel keys follow the reference
//     (block index * min(2^(bits-networkPrefix), 5000) + nodeID + 1, Layer2:
//   - pair index + 1), and a key over OVN's port limit of 32767 is refused
//     with ErrTunnelKeyLimit by Plan and as ConnectSubnetExhausted by Accept
//     (the reference checks neither).
//   - The reference's dual-stack rule that both connect subnets leave the
//     same host bits is not in the seed, whose own sample breaks it; it is
//     not enforced.
//   - The reference skips Secondary and Localnet networks silently and never
//     reports InsufficientNetworks; the seed's reasons are reported.
//   - ClusterUserDefinedNetworks selectors match a CUDN's labels as if it
//     carried kubernetes.io/metadata.name=<its name>, so that the seed's
//     sample, which selects CUDNs that way, selects them.
//
// # Services
//
// With ClusterIPServiceNetwork, each connected network's pods reach the
// other networks' ClusterIP load balancers: ServiceGroups lists, per
// network, the switch load-balancer groups of the other connected networks,
// which its ClusterIP load balancers join (services.Input.PeerGroups), so
// that the other networks' pod switches hold them. The seed adds each load
// balancer to the switches and the reference uses a group per connect; a
// Load_Balancer_Group has no external_ids, so a group the connect created
// but only the networks' switches referenced could not be told apart from a
// foreign one, and the networks' own switch groups are used instead.
// Without PodNetwork, the connect also plans, on every local pod switch,
// tier-0 from-lport ACLs with apply-after-lb=false (the load balancer's
// DNAT happens after them): pass to the service CIDRs at 5000, pass to the
// network's own subnets at 4975, and drop new connections between the
// connected subnets ("ip4.src == $set && ip4.dst == $set && ct.new") at
// 4950, with the address set "connected_udn_subnets_<cnc>_v4" (and _v6).
// The seed's listing shows the drop at 4950 in one place and 4999 in
// another; 4950 is taken, leaving room between the ACLs. The same-network
// pass is DESIGN's addition (the reference has it at 475): without it the
// drop also hits traffic inside one network, whose subnet is in the set;
// ovn-trace proves it both ways. The reference profile writes the
// reference's 500/475/450, its destination-only drop and its hashed
// address-set names.
//
// # Concurrency and errors
//
// Everything here is pure and safe for concurrent use except Allocator,
// which, like the ipam allocators it wraps, holds state: use one per
// connect from one goroutine. Plan's errors wrap ErrInvalid,
// ErrTunnelKeyLimit or an ipam sentinel and name the connect, network and
// node; ParseAnnotations' wrap ErrAnnotation.
package connect
