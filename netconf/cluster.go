package netconf

import (
	"net/netip"
	"slices"

	"github.com/udnkit/udnkit/internal/names"
	"github.com/udnkit/udnkit/ipam"
)

// Cluster holds the cluster-wide settings a network is checked against
// once the spec itself is valid: what the default network already uses.
// Zero fields take the defaults named on each.
type Cluster struct {
	// PodSubnets are the default network's cluster subnets (no default:
	// none checked).
	PodSubnets []netip.Prefix
	// ServiceCIDRs are the cluster's service CIDRs (none checked when
	// empty).
	ServiceCIDRs []netip.Prefix
	// JoinSubnets are the default network's join subnets (default
	// ipam.DefaultNetworkJoinSubnets: 100.64.0.0/16, fd98::/64).
	JoinSubnets []netip.Prefix
	// MasqueradeSubnets default to ipam.DefaultMasqueradeSubnets.
	MasqueradeSubnets []netip.Prefix
	// IPv4 and IPv6 are the families the cluster runs; both false: not
	// checked.
	IPv4, IPv6 bool
}

// CheckCluster refuses a network that the cluster cannot carry, as the
// reference's NetInfo checks do (go-controller/pkg/util/multi_network.go
// subnetOverlapCheck and NewNetInfo): a subnet of a family the cluster does
// not run, and a pod or join subnet of a Layer2 or Layer3 network that
// overlaps the default network's cluster subnets, the service CIDRs, the
// default join subnets or the masquerade subnets (a cluster subnet inside
// one of the network's excluded subnets does not count). The error wraps
// ErrInvalidSpec and names both subnets.
func CheckCluster(n *Network, c Cluster) error {
	if n == nil {
		return names.Errorf("%w: no network", ErrInvalidSpec)
	}
	if c.IPv4 || c.IPv6 {
		for _, s := range n.Subnets {
			if v6 := s.CIDR.Addr().Is6(); v6 && !c.IPv6 || !v6 && !c.IPv4 {
				fam := "ipv4"
				if v6 {
					fam = "ipv6"
				}
				return names.Errorf("%w: network %s is attempting to use %s subnets but the cluster does not support %s", ErrInvalidSpec, n.Name, fam, fam)
			}
		}
	}
	if n.Topology != TopologyLayer2 && n.Topology != TopologyLayer3 {
		return nil
	}
	join := c.JoinSubnets
	if len(join) == 0 {
		join = ipam.DefaultNetworkJoinSubnets()
	}
	masq := c.MasqueradeSubnets
	if len(masq) == 0 {
		masq = ipam.DefaultMasqueradeSubnets()
	}
	type builtIn struct {
		kind   string
		subnet netip.Prefix
	}
	var built []builtIn
	add := func(kind string, ps []netip.Prefix) {
		for _, p := range ps {
			if slices.ContainsFunc(n.ExcludeSubnets, func(x netip.Prefix) bool { return x.Bits() <= p.Bits() && x.Contains(p.Addr()) }) {
				continue // excluded from the network: no conflict
			}
			built = append(built, builtIn{kind, p})
		}
	}
	add("cluster subnet", c.PodSubnets)
	add("service subnet", c.ServiceCIDRs)
	add("built-in join subnet", join)
	add("masquerade subnet", masq)
	check := func(kind string, p netip.Prefix) error {
		for _, b := range built {
			if p.Overlaps(b.subnet) {
				return names.Errorf("%w: network %s: pod or join subnet overlaps with already configured internal subnets: %s %q overlaps %s %q",
					ErrInvalidSpec, n.Name, kind, p, b.kind, b.subnet)
			}
		}
		return nil
	}
	for _, s := range n.Subnets {
		if err := check("user defined subnet", s.CIDR); err != nil {
			return err
		}
	}
	for _, j := range n.JoinSubnets {
		if err := check("user defined join subnet", j); err != nil {
			return err
		}
	}
	return nil
}
