package connect

import (
	"fmt"
	"net/netip"
	"slices"
	"strconv"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/udnkit/udnkit/ipam"
	"github.com/udnkit/udnkit/netconf"
	"github.com/udnkit/udnkit/netconf/udn"
)

// Condition types.
const (
	// ConditionAccepted is the cluster-wide validation result.
	ConditionAccepted = "Accepted"
	// ConditionReadyInZonePrefix starts the per-zone condition type,
	// "Ready-In-Zone-<node>".
	ConditionReadyInZonePrefix = "Ready-In-Zone-"
)

// Reasons of the Accepted condition (seed OKEP-5224).
const (
	ReasonValidationSucceeded       = "ValidationSucceeded"
	ReasonConnectSubnetExhausted    = "ConnectSubnetExhausted"
	ReasonOverlappingNetworkSubnets = "OverlappingNetworkSubnets"
	ReasonConnectSubnetConflict     = "ConnectSubnetConflict"
	ReasonConnectSubnetOverlap      = "ConnectSubnetOverlap"
	ReasonIPFamilyMismatch          = "IPFamilyMismatch"
	ReasonInsufficientNetworks      = "InsufficientNetworks"
	ReasonUnsupportedNetworkType    = "UnsupportedNetworkType"
)

// Reasons of the Ready-In-Zone-<node> conditions.
const (
	ReasonOVNSetupSucceeded = "OVNSetupSucceeded"
	ReasonOVNSetupFailed    = "OVNSetupFailed"
)

// The reference implementation's only Accepted reasons, written under
// udn.ProfileReference.
const (
	ReasonResourceAllocationSucceeded = "ResourceAllocationSucceeded"
	ReasonResourceAllocationFailed    = "ResourceAllocationFailed"
)

// MaxMessageLength is the longest condition message written: the API's
// limit for metav1.Condition.Message.
const MaxMessageLength = 32768

// MaxPortTunnelKey is the largest tunnel key OVN gives a logical port.
const MaxPortTunnelKey = 32767

// Cluster is what Accept checks a ClusterNetworkConnect against.
type Cluster struct {
	// Networks are the cluster's user-defined networks, IDs allocated.
	Networks []Network
	// Namespaces are the cluster's namespaces and their labels.
	Namespaces []netconf.Namespace
	// ServiceCIDRs are the cluster's service CIDRs.
	ServiceCIDRs []netip.Prefix
	// MasqueradeSubnets default to ipam.DefaultMasqueradeSubnets.
	MasqueradeSubnets []netip.Prefix
	// MaxNodeID is the largest node ID in the cluster: every Layer3
	// network's block must hold a pair for it (0 checks the blocks only).
	MaxNodeID int
	// OverlayDisabled is set when the cluster runs without overlay
	// tunnels (no-overlay transport), which connect does not support.
	OverlayDisabled bool
	// Connects are the other ClusterNetworkConnects, whose connect subnets
	// must not overlap this one's where they select a common network.
	Connects []*ClusterNetworkConnect
	// Profile writes the reference's reasons (ResourceAllocation*) instead
	// of the seed's.
	Profile udn.Profile
}

// Acceptance is the result of Accept.
type Acceptance struct {
	// Condition is the Accepted condition (LastTransitionTime unset: the
	// caller's meta.SetStatusCondition sets it when the status flips).
	Condition metav1.Condition
	// Networks are the networks c selects, sorted by network name.
	Networks []Network
}

// Accepted reports whether the condition is True.
func (a *Acceptance) Accepted() bool { return a.Condition.Status == metav1.ConditionTrue }

// Accept checks c against the cluster, as the cluster manager does before
// allocating anything: the networks it selects must be primary, Layer3 or
// Layer2, at least two, of one IP family with a connect subnet for it, free
// of overlaps with each other; its connect subnets must not overlap their
// pod, transit and join subnets, the service CIDRs or the masquerade
// subnets, nor an older connect selecting one of the same networks (of two
// overlapping connects only the later is refused); and they
// must hold a block per network, a pair per node and tunnel keys within
// OVN's port limit. The first failing check, in that order, gives the
// reason; its message names the networks and subnets. c must have passed
// Validate.
func Accept(c *ClusterNetworkConnect, cl Cluster) Acceptance {
	a := Acceptance{Condition: metav1.Condition{Type: ConditionAccepted, ObservedGeneration: c.Generation}}
	nets, err := Select(c, cl.Networks, cl.Namespaces)
	if err != nil {
		return a.fail(cl, ReasonUnsupportedNetworkType, err.Error())
	}
	a.Networks = nets
	subnets := connectSubnets(c)
	hidden := 0
	for _, check := range []func() (string, []string){
		func() (string, []string) { return ReasonUnsupportedNetworkType, unsupported(nets, cl) },
		func() (string, []string) { return ReasonInsufficientNetworks, insufficient(nets) },
		func() (string, []string) { return ReasonIPFamilyMismatch, familyMismatch(nets, subnets) },
		func() (string, []string) {
			var found []string
			found, hidden = overlappingNetworks(nets)
			return ReasonOverlappingNetworkSubnets, found
		},
		func() (string, []string) { return ReasonConnectSubnetConflict, conflicts(subnets, nets, cl) },
		func() (string, []string) {
			return ReasonConnectSubnetOverlap, overlapsOtherConnects(c, subnets, nets, cl)
		},
		func() (string, []string) { return ReasonConnectSubnetExhausted, exhausted(subnets, nets, cl) },
	} {
		if reason, problems := check(); len(problems) > 0 {
			return a.fail(cl, reason, joinCapped(problems, hidden))
		}
	}
	a.Condition.Status = metav1.ConditionTrue
	a.Condition.Reason = ReasonValidationSucceeded
	if cl.Profile == udn.ProfileReference {
		a.Condition.Reason = ReasonResourceAllocationSucceeded
	}
	a.Condition.Message = "All validation checks passed successfully"
	return a
}

func (a Acceptance) fail(cl Cluster, reason, msg string) Acceptance {
	a.Condition.Status = metav1.ConditionFalse
	a.Condition.Reason = reason
	if cl.Profile == udn.ProfileReference {
		a.Condition.Reason = ReasonResourceAllocationFailed
	}
	a.Condition.Message = capMessage(msg)
	return a
}

// connectSubnets returns c's connect subnets that parse (Validate has
// refused the others).
func connectSubnets(c *ClusterNetworkConnect) []ipam.ConnectSubnet {
	var out []ipam.ConnectSubnet
	for _, s := range c.Spec.ConnectSubnets {
		if p, ok := ParseCIDR(s.CIDR); ok {
			out = append(out, ipam.ConnectSubnet{CIDR: p, NetworkPrefix: int(s.NetworkPrefix)})
		}
	}
	return out
}

func unsupported(nets []Network, cl Cluster) []string {
	if cl.OverlayDisabled {
		return []string{"Network connect feature is not supported when overlay tunneling is disabled"}
	}
	var out []string
	for _, n := range nets {
		switch {
		case n.Network.Topology == udn.TopologyLocalnet:
			out = append(out, fmt.Sprintf("Network '%s' has type 'localnet'. Localnet networks are not supported", n.DisplayName()))
		case !n.Network.IsPrimary():
			out = append(out, fmt.Sprintf("Network '%s' has role '%s'. Only 'Primary' role networks are supported", n.DisplayName(), n.Network.Role))
		}
	}
	return out
}

func insufficient(nets []Network) []string {
	if len(nets) >= 2 {
		return nil
	}
	return []string{fmt.Sprintf("Only %d network selected, minimum 2 networks required for connection", len(nets))}
}

// families returns whether n has IPv4 and IPv6 subnets.
func families(n *udn.Network) (v4, v6 bool) {
	for _, s := range n.Subnets {
		v4 = v4 || s.CIDR.Addr().Is4()
		v6 = v6 || s.CIDR.Addr().Is6()
	}
	return v4, v6
}

func familyMismatch(nets []Network, subnets []ipam.ConnectSubnet) []string {
	var v4only, v6only []string
	var out []string
	for _, n := range nets {
		v4, v6 := families(n.Network)
		switch {
		case v4 && !v6:
			v4only = append(v4only, n.DisplayName())
		case v6 && !v4:
			v6only = append(v6only, n.DisplayName())
		}
	}
	if len(v4only) > 0 && len(v6only) > 0 {
		out = append(out, fmt.Sprintf("Cannot connect single-stack IPv4 network '%s' with single-stack IPv6 network '%s'. Networks must use the same IP family",
			v4only[0], v6only[0]))
	}
	hasV4 := slices.ContainsFunc(subnets, func(s ipam.ConnectSubnet) bool { return s.CIDR.Addr().Is4() })
	hasV6 := slices.ContainsFunc(subnets, func(s ipam.ConnectSubnet) bool { return s.CIDR.Addr().Is6() })
	for _, n := range nets {
		v4, v6 := families(n.Network)
		if v4 && !hasV4 {
			out = append(out, fmt.Sprintf("Network '%s' uses IPv4 but no IPv4 connect subnet is set", n.DisplayName()))
		}
		if v6 && !hasV6 {
			out = append(out, fmt.Sprintf("Network '%s' uses IPv6 but no IPv6 connect subnet is set", n.DisplayName()))
		}
	}
	return out
}

// overlappingNetworks returns the messages of overlapping pairs up to the
// message limit, and how many more pairs overlap.
func overlappingNetworks(nets []Network) ([]string, int) {
	var out []string
	size, more := 0, 0
	for i := range nets {
		for j := i + 1; j < len(nets); j++ {
			for _, a := range nets[i].Network.Subnets {
				for _, b := range nets[j].Network.Subnets {
					if !a.CIDR.Overlaps(b.CIDR) {
						continue
					}
					if size > MaxMessageLength {
						more++ // the message is full: count the rest only
						continue
					}
					m := fmt.Sprintf("Cannot connect networks '%s' and '%s': overlapping pod subnets %s detected.",
						nets[i].DisplayName(), nets[j].DisplayName(), smaller(a.CIDR, b.CIDR))
					out = append(out, m)
					size += len(m) + 1
				}
			}
		}
	}
	return out, more
}

func smaller(a, b netip.Prefix) netip.Prefix {
	if a.Bits() >= b.Bits() {
		return a
	}
	return b
}

func conflicts(subnets []ipam.ConnectSubnet, nets []Network, cl Cluster) []string {
	masq := cl.MasqueradeSubnets
	if len(masq) == 0 {
		masq = ipam.DefaultMasqueradeSubnets()
	}
	var out []string
	for _, s := range subnets {
		for _, n := range nets {
			for _, kind := range []struct {
				what string
				list []netip.Prefix
			}{
				{"pod subnet", n.Network.SubnetPrefixes()},
				{"transit subnet", n.Network.TransitSubnets},
				{"join subnet", n.Network.JoinSubnets},
			} {
				for _, p := range kind.list {
					if s.CIDR.Overlaps(p) {
						out = append(out, fmt.Sprintf("Connect subnet %s conflicts with %s %s of network '%s'", s.CIDR, kind.what, p, n.DisplayName()))
					}
				}
			}
		}
		for _, p := range cl.ServiceCIDRs {
			if s.CIDR.Overlaps(p) {
				out = append(out, fmt.Sprintf("Connect subnet %s conflicts with service CIDR %s", s.CIDR, p))
			}
		}
		for _, p := range masq {
			if s.CIDR.Overlaps(p) {
				out = append(out, fmt.Sprintf("Connect subnet %s conflicts with masquerade subnet %s", s.CIDR, p))
			}
		}
	}
	return out
}

func overlapsOtherConnects(c *ClusterNetworkConnect, subnets []ipam.ConnectSubnet, nets []Network, cl Cluster) []string {
	var out []string
	for _, o := range cl.Connects {
		// Only an older connect refuses c (seed 001: the subsequent one
		// fails); the older keeps its plumbing.
		if o == nil || o.Name == c.Name || !olderConnect(o, c) {
			continue
		}
		theirs, err := Select(o, cl.Networks, cl.Namespaces)
		if err != nil {
			continue
		}
		var common []string
		for _, n := range nets {
			if slices.ContainsFunc(theirs, func(t Network) bool { return t.Network.Name == n.Network.Name }) {
				common = append(common, n.DisplayName())
			}
		}
		if len(common) == 0 {
			continue
		}
		for _, s := range subnets {
			for _, t := range connectSubnets(o) {
				if s.CIDR.Overlaps(t.CIDR) {
					out = append(out, fmt.Sprintf("Connect subnet %s overlaps with ClusterNetworkConnect '%s' which also selects network '%s'. "+
						"Each ClusterNetworkConnect selecting the same network must use non-overlapping connect subnets", s.CIDR, o.Name, strings.Join(common, "', '")))
				}
			}
		}
	}
	return out
}

// olderConnect reports whether a was created before b, the name breaking
// a tie.
func olderConnect(a, b *ClusterNetworkConnect) bool {
	if !a.CreationTimestamp.Equal(&b.CreationTimestamp) {
		return a.CreationTimestamp.Before(&b.CreationTimestamp)
	}
	return a.Name < b.Name
}

func exhausted(subnets []ipam.ConnectSubnet, nets []Network, cl Cluster) []string {
	maxNode := cl.MaxNodeID
	var l3, l2 int
	for _, n := range nets {
		if n.Network.Topology == udn.TopologyLayer3 {
			l3++
		} else {
			l2++
		}
	}
	var out []string
	for _, s := range subnets {
		if err := ipam.CheckConnectCapacity(s, l3, l2, maxNode); err != nil {
			out = append(out, fmt.Sprintf("Insufficient IP addresses in connect subnet %s: %v", s.CIDR, err))
			continue
		}
		if key := maxPortKey(s, l3, l2, maxNode); key > MaxPortTunnelKey {
			out = append(out, fmt.Sprintf("Connect subnet %s with networkPrefix %d needs port tunnel keys up to %d, over OVN's limit of %d: use a smaller CIDR or a longer networkPrefix",
				s.CIDR, s.NetworkPrefix, key, MaxPortTunnelKey))
		}
	}
	return out
}

// joinCapped joins problems with spaces, keeping the message under
// MaxMessageLength and saying how many were left out, hidden more included.
func joinCapped(problems []string, hidden int) string {
	var b strings.Builder
	for i, p := range problems {
		tail := " ... and " + strconv.Itoa(len(problems)-i+hidden) + " more"
		if b.Len()+1+len(p)+len(tail) > MaxMessageLength {
			b.WriteString(tail)
			return b.String()
		}
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(p)
	}
	if hidden > 0 {
		b.WriteString(" ... and " + strconv.Itoa(hidden) + " more")
	}
	return b.String()
}

// capMessage cuts msg to MaxMessageLength bytes.
func capMessage(msg string) string {
	if len(msg) <= MaxMessageLength {
		return msg
	}
	const cut = " ... (truncated)"
	return strings.ToValidUTF8(msg[:MaxMessageLength-len(cut)], "") + cut
}

// ZoneCondition returns the Ready-In-Zone-<node> condition of applying a
// connect's rows in node's zone: OVNSetupSucceeded for a nil error,
// OVNSetupFailed with the error otherwise.
func ZoneCondition(c *ClusterNetworkConnect, node string, applyErr error) metav1.Condition {
	cond := metav1.Condition{Type: ConditionReadyInZonePrefix + node, ObservedGeneration: c.Generation,
		Status: metav1.ConditionTrue, Reason: ReasonOVNSetupSucceeded, Message: "Connect router and all ports created successfully"}
	if applyErr != nil {
		cond.Status, cond.Reason, cond.Message = metav1.ConditionFalse, ReasonOVNSetupFailed, capMessage(applyErr.Error())
	}
	return cond
}

// Summary returns the status the conditions add up to: Success when
// Accepted and every Ready-In-Zone condition are True, Failure when one of
// them is False, "" (unknown) while Accepted is missing or Unknown.
func Summary(conds []metav1.Condition) StatusType {
	accepted := metav1.ConditionUnknown
	failed := false
	for _, c := range conds {
		switch {
		case c.Type == ConditionAccepted:
			accepted = c.Status
		case strings.HasPrefix(c.Type, ConditionReadyInZonePrefix):
			failed = failed || c.Status != metav1.ConditionTrue
		}
	}
	switch {
	case accepted == metav1.ConditionFalse || failed:
		return Failure
	case accepted == metav1.ConditionTrue:
		return Success
	}
	return ""
}
