package connect

import (
	"cmp"
	"fmt"
	"net/netip"
	"slices"

	ucnames "github.com/udnkit/udnkit/internal/names"
	"github.com/udnkit/udnkit/ipam"
	"github.com/udnkit/udnkit/netconf/udn"
	"github.com/udnkit/udnkit/topology"
)

// ControllerPrimaryLinks owns the rows that link the primary networks of a
// namespace (seed OKEP-5252): Owner{Controller: ControllerPrimaryLinks,
// Network: <link name>}. A link's Diff and Sync speak for its own rows
// only; topology.RemovalFor(ControllerPrimaryLinks, name) is the state of
// a link that is gone.
const ControllerPrimaryLinks topology.Controller = "udnkit-primary-links"

// PrimaryLinkPolicyPriority is the priority of the reroute policies
// towards a link router: above PolicyPriority, so that when a
// ClusterNetworkConnect also connects two primary networks of one
// namespace (its identical match at 9001 is then shadowed) the namespace's
// own link carries their traffic.
const PrimaryLinkPolicyPriority = PolicyPriority + 1

// DefaultPrimaryLinkSubnets returns the blocks the link pairs are drawn
// from: 169.254.128.0/19 and fd96::/112. The network with ID n takes the
// pair at offset 2n (ipam.ConnectNodeSubnet with the network ID for the
// node ID): 169.254.128.2/31 for network 1, .4/31 for network 2 and so on,
// up to network 4095 at 169.254.159.254/31. The IPv4 block is in the half
// of 169.254.0.0/16 the masquerade subnet (169.254.0.0/17) leaves free and
// away from 169.254.169.254; both blocks are outside the join, transit and
// transit-move ranges (100.64.0.0/10, fd97::/56, fd98::/64, fd99::/64).
func DefaultPrimaryLinkSubnets() []netip.Prefix {
	return []netip.Prefix{netip.MustParsePrefix("169.254.128.0/19"), netip.MustParsePrefix("fd96::/112")}
}

// PrimaryLinksInput is what PlanPrimaryLinks needs to link the primary
// networks of one namespace in one zone.
type PrimaryLinksInput struct {
	// Name names the link: the namespace for primary UDNs. Primary CUDNs
	// select the same namespaces (seed 002), so they take one link per set
	// (one per namespace would put a network in several links), named
	// after the network name ("cluster_udn_<cudn>") of the set's CUDN with
	// the lowest network ID, whose underscore no namespace name has. When
	// that CUDN goes, the link is renamed: remove the old one
	// (topology.RemovalFor) before applying the new name's plan, whose
	// pairs, addresses and reroutes are the old link's (they follow the
	// network IDs) and would otherwise sit twice on the network routers.
	Name string
	// Networks are the namespace's primary networks, IDs set. Fewer than
	// two plan no rows (the state still speaks for the link's rows, so
	// that Diff removes a link that is no longer needed).
	Networks []*udn.Network
	// Nodes are the cluster's nodes; only those of Zone matter.
	Nodes []topology.Node
	// Zone is the zone programmed.
	Zone string
	// Subnets are the pair blocks, at most one per family;
	// DefaultPrimaryLinkSubnets when empty.
	Subnets []netip.Prefix
	// MasqueradeSubnets are the cluster's masquerade subnets, which the
	// blocks may not overlap; ipam.DefaultMasqueradeSubnets when empty. A
	// cluster whose masquerade subnet overlaps the default blocks passes
	// other Subnets.
	MasqueradeSubnets []netip.Prefix
}

// PrimaryLinkRouterName returns the name of the link router of the link
// called name: "primary_links_<name>". The underscore keeps it and its
// ports apart from a ClusterNetworkConnect's, whose names cannot hold one.
func PrimaryLinkRouterName(name string) string { return "primary_links_" + name }

// PrimaryLinkPair returns the network-router and link-router addresses of
// the network with networkID in block: the /31 (/127) at offset 2*networkID,
// network side the first address: a connect block's pair
// (ipam.ConnectNodeIPs) with the network ID for the node ID.
func PrimaryLinkPair(block netip.Prefix, networkID int) (networkSide, linkSide netip.Prefix, err error) {
	return ipam.ConnectNodeIPs(block, networkID)
}

// PlanPrimaryLinks plans, in in.Zone, the rows that link the primary
// networks of one namespace so that each pod reaches every other (seed
// OKEP-5252): a link router "primary_links_<name>" local to the zone, one
// point-to-point pair per network between it and the network's router
// (the Layer3 cluster router, the Layer2 transit router), routes on the
// link router to each network's subnets through its pair, and on each
// network router, for the traffic of its local pods, a reroute of every
// other linked network's subnets to the link router
// (PrimaryLinkPolicyPriority). The link router has no port bound to
// another chassis, so cross-network traffic changes networks on the node
// it comes from and rides the destination network's own overlay (its
// transit switch, its Layer2 switch) to the destination node. The result
// speaks for the link's rows only (ControllerPrimaryLinks, in.Name).
func PlanPrimaryLinks(in PrimaryLinksInput) (topology.State, error) {
	if in.Name == "" {
		return topology.State{}, ucnames.Errorf("primary links: %w: no name", ErrInvalid)
	}
	what := fmt.Sprintf("primary links %q", in.Name)
	blocks := in.Subnets
	if len(blocks) == 0 {
		blocks = DefaultPrimaryLinkSubnets()
	}
	var byFamily [2]netip.Prefix // v4, v6
	for _, b := range blocks {
		f := family(b.Addr())
		if !b.IsValid() || b.Masked() != b || byFamily[f].IsValid() {
			return topology.State{}, ucnames.Errorf("%s: subnets: %w: %v is not a network address or its family has two blocks", what, ErrInvalid, b)
		}
		byFamily[f] = b
	}
	masq := in.MasqueradeSubnets
	if len(masq) == 0 {
		masq = ipam.DefaultMasqueradeSubnets()
	}
	for _, b := range byFamily {
		for _, m := range masq {
			if b.IsValid() && b.Overlaps(m) {
				return topology.State{}, ucnames.Errorf("%s: subnets: %w: %s overlaps the masquerade subnet %s", what, ErrInvalid, b, m)
			}
		}
	}
	if slices.Contains(in.Networks, nil) {
		return topology.State{}, ucnames.Errorf("%s: %w: a nil network", what, ErrInvalid)
	}
	nets := slices.Clone(in.Networks)
	slices.SortFunc(nets, func(a, b *udn.Network) int { return cmp.Compare(a.Name, b.Name) })
	for i, n := range nets {
		switch {
		case n.ID == 0:
			return topology.State{}, ucnames.Errorf("%s: %w: a network without an ID", what, ErrInvalid)
		case n.Role != udn.RolePrimary:
			return topology.State{}, ucnames.Errorf("%s: network %q: %w: role %s, want primary", what, n.Name, ErrInvalid, n.Role)
		case n.Topology != udn.TopologyLayer3 && n.Topology != udn.TopologyLayer2:
			return topology.State{}, ucnames.Errorf("%s: network %q: %w: topology %s, want Layer3 or Layer2", what, n.Name, ErrInvalid, n.Topology)
		case len(n.Subnets) == 0:
			return topology.State{}, ucnames.Errorf("%s: network %q: %w: no subnets", what, n.Name, ErrInvalid)
		case i > 0 && nets[i-1].Name == n.Name:
			return topology.State{}, ucnames.Errorf("%s: network %q: %w: listed twice", what, n.Name, ErrInvalid)
		}
		for _, o := range nets[:i] {
			if o.ID == n.ID {
				return topology.State{}, ucnames.Errorf("%s: network %q: %w: network ID %d is network %q's too (the pairs are the IDs')", what, n.Name, ErrInvalid, n.ID, o.Name)
			}
			for _, p := range n.Subnets {
				for _, q := range o.Subnets {
					if p.CIDR.Overlaps(q.CIDR) {
						return topology.State{}, ucnames.Errorf("%s: network %q: %w: subnet %s overlaps %s of network %q (seed 002: a namespace's primary networks may not overlap)",
							what, n.Name, ErrInvalid, p.CIDR, q.CIDR, o.Name)
					}
				}
			}
		}
		for _, b := range byFamily {
			for _, p := range slices.Concat(n.SubnetPrefixes(), n.JoinSubnets, n.TransitSubnets) {
				if b.IsValid() && b.Overlaps(p) {
					return topology.State{}, ucnames.Errorf("%s: subnets: %w: %s overlaps %s of network %q", what, ErrInvalid, b, p, n.Name)
				}
			}
		}
	}
	var local []*topology.Node
	for i := range in.Nodes {
		if in.Nodes[i].InZone() == in.Zone {
			local = append(local, &in.Nodes[i])
		}
	}
	slices.SortFunc(local, func(a, b *topology.Node) int { return cmp.Compare(a.Name, b.Name) })

	var e topology.Emitter
	e.Own(ControllerPrimaryLinks, in.Name)
	if len(nets) < 2 || len(local) == 0 {
		return e.State()
	}
	own := topology.Owner{Controller: ControllerPrimaryLinks, Network: in.Name}
	router := PrimaryLinkRouterName(in.Name)
	// A connect's port names under the seeds' profile, the link router's
	// name for the connect's: "<router>-to-<network>", "<network>-to-<router>".
	nm := names{cnc: router}
	e.Emit(topology.Router{Owner: own, Name: router})
	// The links the policies start from: per local node for Layer3, one
	// for Layer2, each a network's one pair.
	links := make([]link, 0, len(nets)*len(local))
	for _, n := range nets {
		l := link{net: n, local: true}
		for _, f := range familiesOf(n) {
			if !byFamily[f].IsValid() {
				return topology.State{}, ucnames.Errorf("%s: subnets: %w: network %q has %s subnets and there is no block of that family",
					what, ErrInvalid, n.Name, [2]string{"IPv4", "IPv6"}[f])
			}
			ns, ls, err := PrimaryLinkPair(byFamily[f], n.ID)
			if err != nil {
				return topology.State{}, ucnames.Errorf("%s: network %q: %w", what, n.Name, err)
			}
			l.netSide, l.connSide = append(l.netSide, ns), append(l.connSide, ls)
		}
		if n.Topology == udn.TopologyLayer3 {
			for _, nd := range local {
				l.node = nd
				links = append(links, l)
			}
		} else {
			links = append(links, l)
		}
		lport, nport := nm.connectPort(n.Name, ""), nm.networkPort(n.Name, "")
		netRouter, _ := networkRouter(n, "")
		var opts topology.Options
		if n.Topology == udn.TopologyLayer2 {
			// The transit router spans the zones and its trtor- ports
			// request node IDs as keys: take one no node ID reaches, so
			// that a node joining later never requests the key northd
			// would otherwise have given this port.
			opts = e.Options("requested-tnl-key", e.Itoa(MaxPortTunnelKey))
		}
		e.Emit(
			topology.RouterPort{Owner: own, Name: lport, Router: router, MAC: e.MAC(l.connSide[0].Addr()),
				Networks: e.Prefixes(l.connSide...), Peer: nport},
			topology.RouterPort{Owner: own, Name: nport, Router: netRouter, MAC: e.MAC(l.netSide[0].Addr()),
				Networks: e.Prefixes(l.netSide...), Peer: lport, Options: opts})
		emitSubnetRoutes(&e, own, router, l)
	}
	emitPolicies(&e, own, PrimaryLinkPolicyPriority, nets, links)
	return e.State()
}

func family(a netip.Addr) int {
	if a.Is4() {
		return 0
	}
	return 1
}

// familiesOf returns the families of n's subnets, IPv4 (0) first.
func familiesOf(n *udn.Network) []int {
	var has [2]bool
	for _, s := range n.Subnets {
		has[family(s.CIDR.Addr())] = true
	}
	var out []int
	for f, ok := range has {
		if ok {
			out = append(out, f)
		}
	}
	return out
}

// PrimaryServiceGroups returns, per primary network of a namespace, the
// load-balancer groups its ClusterIP load balancers join besides its own:
// the switch groups of the namespace's other primary networks, so that
// (seed 002) a Service's load balancers sit on the switches of all the
// namespace's primary networks. Pass each list to the network's services
// planner (services.Input.PeerGroups).
func PrimaryServiceGroups(networks []*udn.Network) map[string][]string {
	return peerGroups(networks)
}
