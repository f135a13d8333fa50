// Package topology is the desired-state model of the OVN Northbound objects
// that realise a user-defined network, the planners that compute it, and
// Diff.
//
// # Model
//
// A State is a set of objects — Switch, SwitchPort, Router, RouterPort,
// StaticRoute, Policy, NAT, ACL, AddressSet, LoadBalancer,
// LoadBalancerGroup, PortGroup, Meter, MeterBand — each a plain value with OVN's own column
// spellings, a natural Key unique within its kind, references to other
// objects by name (a port names its switch or router, a route its router),
// and an Owner (controller, network, topology, role, node) that the OVN
// adapter writes as external_ids. States are immutable, comparable (Equal),
// cloneable (Clone) and render to stable text (String) for golden files.
//
// # Ownership per controller
//
// Several controllers write rows into one Northbound database, often into
// each other's parents: a pod's port on a network's switch, a connect
// policy on a network's cluster router. Owner.Controller names the
// controller that owns a row (written as the reference's
// k8s.ovn.org/owner-controller external_id); the empty value is
// ControllerTopology, this package's planners. A State is partitioned by
// (controller, network, node) and speaks for a set of (controller, network)
// pairs (State.SpeaksFor): Diff creates, updates and deletes only the rows
// of those pairs, so a topology Sync never deletes a pods controller's
// port, and a pods Sync never touches a switch. Deleting a parent that
// holds another controller's member is refused by the OVN adapter (OVSDB
// would delete the member with it): that controller removes its rows
// first.
//
// A load balancer is a root row that other rows hold by weak reference: it
// names the groups, switches and routers it is attached to
// (LoadBalancer.Groups, Switches, Routers; the descriptor's Attachments),
// and its owner alone puts it into and takes it out of those rows'
// load_balancer columns, whoever owns them. A services controller attaches
// its load balancers to the network's groups and gateway routers this way;
// the topology never writes those columns, and deleting a holder leaves the
// load balancer (the reference goes away with the holder).
//
// Another planner package writes rows of its own controller like this:
//
//	const Controller topology.Controller = "udnkit-connect"
//	own := topology.Owner{Controller: Controller, Network: net.Name, Topology: net.Topology, Role: net.Role}
//	var b topology.Builder
//	b.OwnFor(Controller, net.Name) // speak for the network even with no rows
//	b.Add(topology.Policy{Owner: own, Router: clusterRouter, Priority: 9001, Match: m, Action: topology.PolicyReroute, Nexthops: hops})
//	desired, err := b.State()
//	// adapter.Sync(ctx, desired) touches only Controller's rows of net.Name;
//	// topology.RemovalFor(Controller, net.Name) removes them all.
//
// Emitter is the toolkit for such a package: the string arena, the slabs
// and the key-with-match construction the network planners use, so that
// it plans over a million rows per second with about one allocation per
// row (BenchmarkEmitter), and a policy's key always agrees with its match.
//
// Rows written without owner-controller (by the SDK before controllers
// existed, or by the reference) belong to the controller that writes such
// rows: a pod port (pod=true beside k8s.ovn.org/nad) to the pods
// controller, a Service load balancer (k8s.ovn.org/kind=Service) to the
// services controller, any other to ControllerTopology. A topology Sync
// therefore never deletes the reference's pod ports or load balancers; each
// is adopted as it is and gains the key when its external_ids are next
// written.
//
// # Kinds
//
// A kind is its Go type: a directive in the type's doc comment names its
// table, its Kind value and its creation rank, and an `nb` tag on each
// field names its column and what the column is (part of the key,
// required, a reference, the parent whose column holds the object, the
// rows it is attached to):
//
//	// QoS is a QoS rule, member of Switch (qos.go, abridged).
//	//
//	//udnkit:kind table=QoS id=13 order=130 name=qos
//	type QoS struct {
//		Owner     Owner
//		Switch    string       `nb:",parent=Switch.qos_rules"`
//		Direction ACLDirection `nb:"direction,key,required"`
//		Priority  int          `nb:"priority,key"`
//		Match     string       `nb:"match,key,required,q"`
//	}
//
// To add a kind: write such a file, pick an id no kind has had (the Kind
// constant's value: stable, so inserting a kind renumbers none, and
// kindgen refuses a duplicate) and an order after its parent's and the
// kinds it references (Diff creates in that order, whatever the ids), and
// run go generate ./topology (internal/kindgen, which documents the tags).
// It writes everything else from the types and the Northbound schema: the
// Kind constants, Kinds and Kind.Order (creation order), the Descriptors
// (name, table, keyed by name or by key columns, whether the table indexes
// the name, parents with the schema's minimum number of members,
// references, attachments, updatable columns), each type's Kind, OwnedBy,
// Key, clone, normalize, columns and render methods, Parent, References,
// Attached, and the OVN row mapping both adapters share (internal/nbrow:
// object to row and back, required and enum checks, key conditions, the
// reference columns, the tables and columns read). The adapters' planning,
// ownership, scoped reads, observing and the ovn-nbctl renderer need no
// change: a parent whose member column has a schema minimum (a Meter's
// bands) is created with its members in one transaction (one ovn-nbctl
// invocation), and a change set leaving it short is refused. Field types
// mapped: string kinds, int, bool, netip.Addr and netip.Prefix, slices of
// strings, addresses and prefixes, Options (a map of strings), IntOptions
// (a map of integers: a QoS row's action and bandwidth, keys and value
// ranges checked against the schema), and the load balancer's and gateway
// chassis' own types.
//
// Tests of kindgen do this: one adds a Mirror kind (a root kind) and runs
// the row mapping's tests on the result; one adds a Forwarding_Group (a
// plain boolean) beside Meter and Meter_Band (kind_meter.go: Meter ordered
// before every other kind, an optional boolean, bands of minimum 1),
// checks that no Kind changes value, and syncs, observes, syncs again with no change and
// removes a row of every kind on a real NB through ovnnb, the ovn-nbctl
// script and ovnnb with its monitor (backend/nbctl's TestRealEveryKind,
// which fails for a kind it has no object of); another fails when a
// generated file is stale. Only an unnamed kind with several parents (ACL)
// writes its appendKey by hand, a field of a new Go type needs its mapping
// in kindgen, a member's table must not be a root table, and a table
// without external_ids cannot be a kind, but for
// Load_Balancer_Group, which the adapter owns by the rows referencing it.
//
// # Planners
//
// PlanLayer3, PlanLayer2 (a primary network on a transit router, seed
// OKEP-5094), PlanLegacyLayer2 (gateway routers on the switch),
// PlanLayer2Upgrade (the rolling upgrade between the two) and PlanLocalnet
// take an Input: the normalised udn.Network with its ID, the nodes
// (name, ID, zone, chassis, external addresses and next hops), the zone being
// programmed, Layer3 host subnets or Layer2 tunnel keys, and cluster
// settings. Names, addresses, tunnel keys and marks follow the project's
// DESIGN facts through package ipam. PlanNodes plans only what one node
// adds, for incremental reconciliation.
//
// # Profiles
//
// Input.Profile picks the seeds' design (ProfileSeeds, the default) or the
// reference implementation's wire format (ProfileReference) where the two
// part ways. So far:
//
//	                                   seeds (default)                 reference
//	trtos- options                     none                            gateway_mtu
//	Layer2 transit-router peers        /30 block nodeID−1 (IPv4),      /31 (/127) at 2·nodeID,
//	                                   /127 at 2·nodeID (IPv6)         transit router on the first address
//	trtor- requested-tnl-key           node ID                         10 + node ID
//
// Seed 004 argues for the /30 and shows node-ID keys; the reference moved
// to /31 pairs and keeps keys 1 to 9 for the router's local ports.
//
// Both profiles plan the reference's gateway rows where the seeds are
// silent, as its version REFERENCE.md names (8871cd9) writes them for a
// user-defined network: gateway routers age MAC bindings (300 s), send no
// GARP or RARP (disable_garp_rarp=true, which OVN 25.03 reads on switch
// ports only: the reference sets it for the OVN that reads it on routers)
// and learn no neighbour router dynamically (dynamic_neigh_routers=false);
// the pod network and the join
// addresses are SNATed to the network's masquerade IP; the external switch
// port answers for the node MAC and announces no NAT address (no
// nat-addresses: the masquerade IPs are the same on every node, and the
// reference dropped them after they flooded the physical network;
// TestRealGatewayOptions reads the SB: the node's address alone); a Layer3
// primary's rtos-
// and every gateway router's join-side port carry gateway_mtu; the
// management-port SNAT of the node subnet and the reroute of the masquerade
// IP to the management port; always_learn_from_arp_request=false on the
// cluster router; subnet/exclude_ips/ipv6_prefix on node switches; the
// transit switches' multicast settings and mcast_flood on rtots-. Where
// udnkit departs: gateway_mtu is the network's MTU when it has one, the
// cluster's otherwise (the reference writes its cluster MTU whatever the
// network's: a packet from outside larger than the pods' MTU should get
// "fragmentation needed" at the gateway, not be dropped at the pod), and
// always (the reference drops it on a node annotated
// k8s.ovn.org/gateway-mtu-support=false, which Node does not model); a
// zone of several nodes keeps dynamic_neigh_routers=false too (the
// reference's central mode, removed in its fba86e071, had true: OVN then
// installs the join switch's neighbours statically, which is correct, only
// larger); a secondary Layer3 network's rtos- stays a plain distributed
// port without gateway chassis or gateway_mtu (the reference pins it to
// the node and sets both; gateway_mtu acts on a gateway port only, and a
// secondary network has no gateway); the reference's Static_MAC_Binding
// rows on rtoe- (the dummy next hop and the host's masquerade IP at their
// IP-derived MACs, override_dynamic_mac=true: expectedStaticMACBindings)
// are not planned, as the model has no Static_MAC_Binding kind yet, so the
// gateway router resolves those next hops by ARP; and the management-port
// SNAT names its router port as gateway_port (the reference uses
// logical_port under interconnect, which northd cannot place once a zone
// has several nodes), and a Layer2 switch carries subnet and ipv6_prefix
// for both families (the reference keeps the last family's only).
//
// Two of the reference's rows draw a northd warning. The reference
// requests key 1 on the Layer2 transit router's switch port,
// a gateway port, and ovn-northd 25.03 hands the same request to the
// port's chassis-redirect twin and refuses it ("requests same tunnel key 1
// as another LSP or LRP"); udnkit requests no key there in either profile.
// And with lb_force_snat_ip=router_ip, the masquerade IP beside the node
// IP on rtoe- makes northd SNAT load-balanced traffic to whichever of the
// two sorts first in the database (the masquerade IP, as a real NB shows),
// and say so; udnkit leaves the masquerade IP off the port in both
// profiles (the NAT rows alone make the router answer for it). The
// real-OVN tests fail on any northd warning or error about a plan, and
// apply each profile's plan.
//
// # Several subnets of a family
//
// A Layer3 network may have several subnets of one family (the reference's
// NetInfo takes a list): a node's host subnet comes from any of them, and
// every subnet is routed to the gateway router, SNATed there and allowed
// between each pair on the cluster router. They share one host prefix
// length per family, as the reference requires (its CRD and its parser;
// netconf checks it, and the planners refuse a Network without it with
// ErrInvalid): OVN ranks a longer source route above a shorter destination
// route, so a node with /25 host subnets would send traffic for a /24 node
// through its gateway router.
//
// # Zones
//
// A plan programs one zone's Northbound database: the nodes of Input.Zone
// are local, the others remote. Interconnect gives every node its own
// zone. Layer3 networks also plan zones of several nodes (a single-zone
// cluster). A primary Layer2 network supports one node per zone
// (interconnect, seed OKEP-5094 "Non-Goals"): its management port, .1
// gateway and pod-subnet egress route exist once per zone, so
// PlanLayer2, PlanLegacyLayer2, PlanLayer2Upgrade and PlanNodes refuse a
// zone with more than one local node with ErrUnsupported naming the
// network, the zone and its nodes. A zone with no local node (one that only
// sees remote peers) is valid, and a secondary Layer2 network (no
// management port, no gateway router) takes any number of local nodes.
//
// # Diff
//
// Diff(observed, desired) returns the ordered Changes that turn observed
// into desired: creates in creation order (Kinds: a row before the rows
// that reference it), then updates listing only the changed columns, then
// deletes in reverse creation order. It touches only the (controller, network) pairs
// desired speaks for (State.SpeaksFor) and, for an incremental plan from
// PlanNodes, only the nodes it speaks for (State.Nodes); DiffScope takes an
// explicit Scope (one controller, networks, nodes); ObjectChanges is the
// Diff of one thing's rows alone (a pod's ports, a Service's load
// balancers), applied directly.
// States derived from one another share unchanged partitions, which Diff
// skips, so its cost follows the size of the change. Apply is the in-memory
// equivalent of an adapter applying Changes, so that Apply(a, Diff(a, b))
// equals b.
//
// # Contract
//
// Every function is pure: no I/O, no clock, no global state; the same input
// gives the same output, byte for byte. Errors wrap ErrInvalid, ErrConflict,
// ErrNotFound, ErrUnsupported or an ipam sentinel and name the network,
// node and field at fault. Every Plan* entry point refuses a control
// character, DEL or invalid UTF-8 in any name of its input (CheckNames,
// which connect, pods and services call too), before OVSDB or a script sees
// it. States are safe for concurrent use; a Builder is not.
//
// Deviations from the seeds, where DESIGN rules: the transit router's switch
// port is trtos-<switch> (the seed's listings say rtos-<switch>), and the
// per-node transit peer subnets follow DESIGN's node-ID formulas rather than
// the seed's illustrative per-node table.
package topology
