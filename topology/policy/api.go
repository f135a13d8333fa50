package policy

import (
	"net/netip"
	"slices"
	"strconv"
	"strings"

	"github.com/udnkit/udnkit/netconf/udn"
	"github.com/udnkit/udnkit/topology"
)

// Controller owns every row this package plans: a policy Sync never
// touches the topology's, the pods', the services' or the connect's rows,
// and theirs never touch these.
const Controller topology.Controller = "udnkit-policy"

// Labels are an object's labels.
type Labels map[string]string

// Operator is a label selector requirement's operator.
type Operator string

// Label selector operators, as Kubernetes spells them.
const (
	OpIn           Operator = "In"
	OpNotIn        Operator = "NotIn"
	OpExists       Operator = "Exists"
	OpDoesNotExist Operator = "DoesNotExist"
)

// String returns the Kubernetes spelling.
func (o Operator) String() string { return string(o) }

// Requirement is one match expression of a Selector.
type Requirement struct {
	Key      string
	Operator Operator
	Values   []string
}

// Selector is a label selector. The zero value selects everything; a nil
// *Selector in a Peer means the field is absent.
type Selector struct {
	MatchLabels      Labels
	MatchExpressions []Requirement
}

// PolicyType is a direction a policy applies to.
type PolicyType uint8

// Policy types.
const (
	Ingress PolicyType = iota + 1
	Egress
)

// String returns "Ingress" or "Egress", as Kubernetes (and the reference's
// ACL names and port-group ids) spell them.
func (t PolicyType) String() string {
	switch t {
	case Ingress:
		return "Ingress"
	case Egress:
		return "Egress"
	}
	return "PolicyType(" + strconv.Itoa(int(t)) + ")"
}

// Protocol is a rule port's protocol.
type Protocol uint8

// Protocols; the zero value is TCP, Kubernetes' default.
const (
	TCP Protocol = iota
	UDP
	SCTP
)

// String returns the OVN spelling ("tcp").
func (p Protocol) String() string {
	switch p {
	case TCP:
		return "tcp"
	case UDP:
		return "udp"
	case SCTP:
		return "sctp"
	}
	return "protocol(" + strconv.Itoa(int(p)) + ")"
}

// Port is one port of a rule: all ports of Protocol (Number 0, Name
// empty), one numbered port, a range Number..EndPort, or a named port,
// which each destination pod resolves from its containers' ports.
type Port struct {
	Protocol Protocol
	Number   int32
	EndPort  int32
	Name     string
}

// IPBlock is an ipBlock peer: CIDR but the Except prefixes. Matches spell
// them masked (10.1.2.3/8 is 10.0.0.0/8).
type IPBlock struct {
	CIDR   netip.Prefix
	Except []netip.Prefix
}

// Peer is one from/to entry. PodSelector alone selects pods of the
// policy's namespace; NamespaceSelector (with or without PodSelector)
// pods of the selected namespaces; IPBlock stands alone.
type Peer struct {
	PodSelector       *Selector
	NamespaceSelector *Selector
	IPBlock           *IPBlock
}

// Rule is one ingress or egress rule. No peers: every source (ingress) or
// destination (egress); no ports: every port.
type Rule struct {
	Peers []Peer
	Ports []Port
}

// Policy is a networking.k8s.io/v1 NetworkPolicy.
type Policy struct {
	Namespace, Name string
	// PodSelector selects the policy's pods in Namespace (empty: all).
	PodSelector Selector
	Ingress     []Rule
	Egress      []Rule
	// PolicyTypes as written; empty implies Ingress, and Egress when
	// Egress has rules (Types).
	PolicyTypes []PolicyType
	// Stateless makes the rule ACLs allow-stateless instead of
	// allow-related: the reference's k8s.ovn.org/acl-stateless: "true"
	// annotation, honoured when the cluster enables stateless policies.
	Stateless bool
}

// Types returns the directions the policy applies to: PolicyTypes, or as
// Kubernetes implies them.
func (p *Policy) Types() (ingress, egress bool) {
	if len(p.PolicyTypes) == 0 {
		return true, len(p.Egress) > 0
	}
	for _, t := range p.PolicyTypes {
		switch t {
		case Ingress:
			ingress = true
		case Egress:
			egress = true
		}
	}
	return ingress, egress
}

// ContainerPort is a named port of one of a pod's containers.
type ContainerPort struct {
	Name     string
	Protocol Protocol
	Number   int32
}

// Attachment is a pod's interface on one network.
type Attachment struct {
	// Network is the network's name (udn.Network.Name).
	Network string
	// Port is the pod's logical switch port (pods.PortName).
	Port string
	// IPs are the pod's addresses on the network.
	IPs []netip.Addr
}

// Pod is a pod as policies see it.
type Pod struct {
	Namespace, Name string
	// Node is the node it runs on; its port joins port groups only when
	// the node is in the zone planned.
	Node   string
	Labels Labels
	// Ports are its containers' named ports.
	Ports []ContainerPort
	// Networks are its attachments to user-defined networks; a pod on the
	// default network or the host network has none, and is no peer here.
	Networks []Attachment
	// DefaultPort is its port on the default network when its primary
	// network is a user-defined one (the default network controller's
	// "<namespace>_<name>"); with Input.DefaultNetwork it joins the
	// isolation port group. OpenPorts are its
	// k8s.ovn.org/open-default-ports (ParseOpenPorts).
	DefaultPort string
	OpenPorts   []OpenPort
}

// Namespace is a namespace as policies see it.
type Namespace struct {
	Name   string
	Labels Labels
	// Multicast lets its pods send and take multicast among themselves
	// (the k8s.ovn.org/multicast-enabled annotation), with
	// Input.Multicast.
	Multicast bool
	// Logging is its k8s.ovn.org/acl-logging (ParseACLLogging): the
	// severity of its default-deny drops and of its policies' allows.
	Logging ACLLogging
}

// Network is a primary user-defined network the policies are planned on.
type Network struct {
	Network *udn.Network
	// Namespaces are the namespaces it is a primary network of; their
	// policies get ACLs on it (on each of a namespace's primaries, seed
	// 002).
	Namespaces []string
	// HostSubnets are a Layer3 network's per-node subnets (the local nodes'
	// at least): the management port's address comes from them.
	HostSubnets map[string][]netip.Prefix
}

// Input is everything a plan depends on.
type Input struct {
	Networks []Network
	// Connected are groups of networks whose pods reach each other: the
	// networks of a ClusterNetworkConnect with PodNetwork connectivity (seed
	// 001). A network's policies take peers from its own pods and those of
	// every network it shares a group with. A namespace's primaries (seed
	// 002) are connected without being listed. Service-only connects are not
	// listed: their networks keep their peers apart.
	Connected [][]string
	// Nodes and Zone: pods of nodes in Zone are local (their ports join
	// port groups); every pod is a peer.
	Nodes []topology.Node
	Zone  string
	// MasqueradeSubnets give the service hairpin source the hairpin ACLs
	// allow (default ipam.DefaultMasqueradeSubnets).
	MasqueradeSubnets []netip.Prefix
	// AllowICMP lets ICMP through the default deny, as the reference's
	// allow-icmp-network-policy setting does.
	AllowICMP bool
	// Multicast plans the reference's multicast ACLs (its enable-multicast
	// setting): multicast dropped to and from every pod, allowed through
	// the switches' router ports, and within each Namespace.Multicast
	// namespace.
	Multicast bool
	// ACLLoggingRate is the acl-logging Meter's rate in packets per
	// second (0: DefaultACLLoggingRate).
	ACLLoggingRate int
	// ExternalMeter: the acl-logging Meter is another controller's (the
	// reference's default network controller creates it at start-up, with
	// no external_ids): the ACLs name it, the planner does not plan it.
	ExternalMeter bool
	// DefaultNetwork, when set, plans the default network's isolation of
	// the zone's primary-UDN pods (DefaultNetwork).
	DefaultNetwork *DefaultNetwork
	Namespaces     []Namespace
	Pods           []Pod
	Policies       []Policy
}

// NetworkFor returns a planned network as the policy planner sees it: the
// namespaces of its NADs (udn.Network.NADs, "<namespace>/<name>") are the
// namespaces it is a primary of, and its host subnets are in's. A caller
// that knows a CUDN's namespaces otherwise sets Namespaces itself.
func NetworkFor(in topology.Input) Network {
	out := Network{Network: in.Network, HostSubnets: in.HostSubnets}
	for _, nad := range in.Network.NADs {
		if ns, _, ok := strings.Cut(nad, "/"); ok && !slices.Contains(out.Namespaces, ns) {
			out.Namespaces = append(out.Namespaces, ns)
		}
	}
	slices.Sort(out.Namespaces)
	return out
}
