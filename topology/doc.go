// Package topology is the desired-state model of the OVN Northbound objects
// that realise a user-defined network, the planners that compute it, and
// Diff.
//
// # Model
//
// A State is a set of objects — Switch, SwitchPort, Router, RouterPort,
// StaticRoute, Policy, NAT, ACL, AddressSet, LoadBalancer,
// LoadBalancerGroup, PortGroup — each a plain value with OVN's own column
// spellings, a natural Key unique within its kind, references to other
// objects by name (a port names its switch or router, a route its router),
// and an Owner (network, topology, role, node) that the OVN adapter writes
// as external_ids. States are immutable, comparable (Equal), cloneable
// (Clone) and render to stable text (String) for golden files.
//
// # Planners
//
// PlanLayer3, PlanLayer2 (a primary network on a transit router, seed
// OKEP-5094), PlanLegacyLayer2 (gateway routers on the switch),
// PlanLayer2Upgrade (the rolling upgrade between the two) and PlanLocalnet
// take an Input: the normalised netconf.Network with its ID, the nodes
// (name, ID, zone, chassis, external addresses and next hops), the zone being
// programmed, Layer3 host subnets or Layer2 tunnel keys, and cluster
// settings. Names, addresses, tunnel keys and marks follow the project's
// DESIGN facts through package ipam. PlanNodes plans only what one node
// adds, for incremental reconciliation.
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
// into desired: creates in Kind order (a row before the rows that reference
// it), then updates listing only the changed columns, then deletes in
// reverse Kind order. It touches only the networks desired speaks for
// (State.Networks) and, for an incremental plan from PlanNodes, only the
// nodes it speaks for (State.Nodes); DiffScope takes an explicit Scope.
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
// node and field at fault. States are safe for concurrent use; a Builder is
// not.
//
// Deviations from the seeds, where DESIGN rules: the transit router's switch
// port is trtos-<switch> (the seed's listings say rtos-<switch>), and the
// per-node transit peer subnets follow DESIGN's node-ID formulas rather than
// the seed's illustrative per-node table.
package topology
