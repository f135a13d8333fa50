package egressip

import (
	"net/netip"
	"strconv"

	"github.com/udnkit/udnkit/internal/sdkerr"
	"github.com/udnkit/udnkit/topology"
)

// Controller owns every Northbound row this package plans.
const Controller topology.Controller = "udnkit-egressip"

// Annotations and labels, spelled as the reference spells them.
const (
	// LabelEgressAssignable on a node (any value) makes it an egress node.
	LabelEgressAssignable = "k8s.ovn.org/egress-assignable"
	// AnnotationMark on an EgressIP holds its packet mark ("50000").
	AnnotationMark = "k8s.ovn.org/egressip-mark"
	// AnnotationBridgeEgressIPs on a node lists the egress IPs on its
	// gateway bridge (a JSON array of addresses).
	AnnotationBridgeEgressIPs = "k8s.ovn.org/bridge-egress-ips"
)

// Errors callers branch on.
var (
	ErrInvalid     = sdkerr.New(sdkerr.Invalid, "invalid egress IP input")
	ErrExhausted   = sdkerr.New(sdkerr.Exhausted, "egress IP marks exhausted")
	ErrConflict    = sdkerr.New(sdkerr.Conflict, "egress IP conflict")
	ErrUnsupported = sdkerr.New(sdkerr.NotSupported, "not supported")
)

// EgressIP is a k8s.ovn.org/v1 EgressIP as the planners see it.
type EgressIP struct {
	// Name is the EgressIP's name (cluster scoped).
	Name string
	// IPs are spec.egressIPs.
	IPs []netip.Addr
	// NamespaceSelector and PodSelector are spec.namespaceSelector and
	// spec.podSelector (the zero Selector, like an empty
	// metav1.LabelSelector, selects everything).
	NamespaceSelector Selector
	PodSelector       Selector
	// Mark is the EgressIP's packet mark (AnnotationMark), 0 before one is
	// allocated.
	Mark int
	// Status is status.items: where each egress IP is assigned.
	Status []Assignment
}

// Assignment is one status item: an egress IP and the node that holds it.
type Assignment struct {
	Node string
	IP   netip.Addr
}

// String returns "node=ip".
func (a Assignment) String() string { return a.Node + "=" + a.IP.String() }

// Node is a cluster node as the assignment sees it.
type Node struct {
	Name string
	// Assignable is the LabelEgressAssignable label's presence.
	Assignable bool
	// Ready is the node's Ready condition (and, in the reference, its
	// health check).
	Ready bool
	// Subnets are the node's primary interface addresses with their prefix
	// (k8s.ovn.org/node-primary-ifaddr: 172.18.0.3/16): an egress IP is
	// assignable to the node when one of them contains it.
	Subnets []netip.Prefix
	// HostIPs are every address of the node (k8s.ovn.org/host-cidrs): an
	// egress IP equal to one is refused on every node.
	HostIPs []netip.Addr
	// Capacity is the most egress IPs the node takes; 0 is unlimited.
	Capacity int
}

// Reason says why an egress IP has no node.
type Reason uint8

// Reasons an egress IP is left unassigned.
const (
	// ReasonNoEgressNode: no node is assignable and ready.
	ReasonNoEgressNode Reason = iota + 1
	// ReasonNoSubnet: no egress node's primary subnet holds the IP.
	ReasonNoSubnet
	// ReasonNodeIP: the IP is a node's own address.
	ReasonNodeIP
	// ReasonNodesTaken: every egress node that could hold the IP holds
	// another IP of the same EgressIP already.
	ReasonNodesTaken
	// ReasonCapacity: every node that could hold the IP is full.
	ReasonCapacity
	// ReasonConflict: another EgressIP (first by name) has the same IP.
	ReasonConflict
)

// String returns the reason's name.
func (r Reason) String() string {
	switch r {
	case ReasonNoEgressNode:
		return "NoEgressNode"
	case ReasonNoSubnet:
		return "NoMatchingSubnet"
	case ReasonNodeIP:
		return "NodeIP"
	case ReasonNodesTaken:
		return "NodesTaken"
	case ReasonCapacity:
		return "CapacityExhausted"
	case ReasonConflict:
		return "Conflict"
	}
	return "reason(" + strconv.Itoa(int(r)) + ")"
}

// Unassigned is an egress IP that has no node, and why.
type Unassigned struct {
	EgressIP string
	IP       netip.Addr
	Reason   Reason
}

// String returns "<egressip> <ip>: <reason>".
func (u Unassigned) String() string {
	return u.EgressIP + " " + u.IP.String() + ": " + u.Reason.String()
}
