package connect

import (
	"net/netip"
	"slices"
	"strings"

	"github.com/udnkit/udnkit/netconf/udn"
	"github.com/udnkit/udnkit/topology"
)

// ServiceGroups returns, per connected network name, the load-balancer
// groups that network's ClusterIP load balancers join besides its own when
// c enables ClusterIPServiceNetwork (nil otherwise): the switch groups of
// the other connected networks, which their pod switches hold, so that
// their pods reach its services. Pass each list to the network's services
// planner (services.Input.PeerGroups). The seed adds each load balancer to
// the other networks' switches and the reference puts them in a group per
// connect, which no owned row would tell apart from a foreign one (a
// Load_Balancer_Group has no external_ids); the networks' own switch groups
// hold the same load balancers for the same switches.
func ServiceGroups(c *ClusterNetworkConnect, networks []*udn.Network) map[string][]string {
	if !c.Spec.Has(ClusterIPServiceNetwork) {
		return nil
	}
	return peerGroups(networks)
}

// peerGroups returns, per network, the sorted switch load-balancer groups
// of the other networks.
func peerGroups(networks []*udn.Network) map[string][]string {
	out := make(map[string][]string, len(networks))
	for _, n := range networks {
		var peers []string
		for _, o := range networks {
			if o.Name != n.Name {
				_, sw, _ := topology.LoadBalancerGroupNames(o.Name)
				peers = append(peers, sw)
			}
		}
		slices.Sort(peers)
		out[n.Name] = slices.Compact(peers)
	}
	return out
}

// Priorities of the service-only ACLs (tier 0, from-lport): the seed's
// pass and drop, and between them the pass for traffic inside one network
// that DESIGN adds (without it the drop, whose address set holds every
// connected network's subnets, would also drop that traffic).
const (
	ACLPriorityPassService     = 5000
	ACLPriorityPassSameNetwork = 4975
	ACLPriorityDropConnected   = 4950
)

// The reference's priorities for the same ACLs (udn.ProfileReference).
const (
	refACLPriorityPassService     = 500
	refACLPriorityPassSameNetwork = 475
	refACLPriorityDropConnected   = 450
)

// AddressSetName returns the name of the address set holding every
// connected network's subnets of one family: under the seeds' profile
// "connected_udn_subnets_<cnc>_v4" (the seed's name, made unique per connect,
// '-' spelled '_' as OVN matches need), under the reference's the hashed
// name it gives its address sets.
func AddressSetName(cnc string, v4 bool, p udn.Profile) string {
	fam := "v6"
	if v4 {
		fam = "v4"
	}
	if p == udn.ProfileReference {
		return topology.HashName("ovnkube-network-connect-controller:ClusterNetworkConnect:" + cnc + ":" + fam)
	}
	return "connected_udn_subnets_" + strings.ReplaceAll(cnc, "-", "_") + "_" + fam
}

// emitServices adds what ClusterIPServiceNetwork without PodNetwork needs
// (the load balancers themselves join the groups ServiceGroups names): the
// address sets of the connected subnets and on every local pod switch the
// tier-0 ACLs that let pods reach the service CIDR and their own network
// but drop new connections to the other connected networks.
func emitServices(e *topology.Emitter, nm names, own topology.Owner, nets []*udn.Network, nodes []topology.Node, in Input, only map[string]bool) {
	spec := &in.Connect.Spec
	if !spec.Has(ClusterIPServiceNetwork) || spec.Has(PodNetwork) {
		return
	}
	var as [2]string // v4, v6
	for fam, v4 := range []bool{true, false} {
		var addrs []netip.Prefix
		for _, n := range nets {
			for _, s := range n.Subnets {
				if s.CIDR.Addr().Is4() == v4 {
					addrs = append(addrs, s.CIDR)
				}
			}
		}
		if len(addrs) == 0 {
			continue
		}
		as[fam] = AddressSetName(nm.cnc, v4, nm.profile)
		if only == nil {
			e.Emit(topology.AddressSet{Owner: own, Name: as[fam], Addresses: e.Prefixes(addrs...)})
		}
	}
	pass, same, drop := ACLPriorityPassService, ACLPriorityPassSameNetwork, ACLPriorityDropConnected
	var opts topology.Options
	if nm.profile == udn.ProfileReference {
		pass, same, drop = refACLPriorityPassService, refACLPriorityPassSameNetwork, refACLPriorityDropConnected
	} else {
		opts = e.Options("apply-after-lb", "false")
	}
	svc := orMatch(func(p netip.Prefix) string { return ipv(p) + ".dst == " + p.String() }, in.ServiceCIDRs)
	drops := dropMatch(as, nm.profile)
	for _, n := range nets {
		sameMatch := orMatch(func(p netip.Prefix) string { return ipv(p) + ".dst == " + p.String() }, n.SubnetPrefixes())
		for _, sw := range podSwitches(n, nodes, in.Zone, only) {
			o := own
			o.Node = sw.node
			acl := func(prio int, match string, action topology.ACLAction) topology.ACL {
				return topology.ACL{Owner: o, Switch: sw.name, Tier: 0, Direction: topology.ACLFromLport,
					Priority: prio, Match: match, Action: action, Options: opts}
			}
			if svc != "" {
				e.Emit(acl(pass, svc, topology.ACLPass))
			}
			e.Emit(acl(same, sameMatch, topology.ACLPass), acl(drop, drops, topology.ACLDrop))
		}
	}
}

type podSwitch struct{ name, node string }

// podSwitches returns the switches of n's pods in zone: each local node's
// switch for Layer3, the network's switch for Layer2.
func podSwitches(n *udn.Network, nodes []topology.Node, zone string, only map[string]bool) []podSwitch {
	if n.Topology != udn.TopologyLayer3 {
		if only != nil {
			return nil
		}
		return []podSwitch{{name: topology.PodSwitchName(n, "")}}
	}
	var out []podSwitch
	for i := range nodes {
		if nodes[i].InZone() == zone {
			out = append(out, podSwitch{name: topology.PodSwitchName(n, nodes[i].Name), node: nodes[i].Name})
		}
	}
	return out
}

func ipv(p netip.Prefix) string {
	if p.Addr().Is4() {
		return "ip4"
	}
	return "ip6"
}

// orMatch returns the terms of ps joined by ||, in parentheses when more
// than one.
func orMatch(term func(netip.Prefix) string, ps []netip.Prefix) string {
	var parts []string
	for _, p := range ps {
		parts = append(parts, term(p))
	}
	if len(parts) > 1 {
		return "(" + strings.Join(parts, " || ") + ")"
	}
	return strings.Join(parts, "")
}

// dropMatch matches new connections between connected networks: the seed
// matches source and destination in the set, the reference the
// destination only.
func dropMatch(as [2]string, p udn.Profile) string {
	var parts []string
	for i, name := range as {
		if name == "" {
			continue
		}
		f := "ip4"
		if i == 1 {
			f = "ip6"
		}
		if p == udn.ProfileReference {
			parts = append(parts, f+".dst == $"+name)
		} else {
			parts = append(parts, f+".src == $"+name+" && "+f+".dst == $"+name)
		}
	}
	m := strings.Join(parts, " || ")
	if len(parts) > 1 {
		m = "(" + m + ")"
	}
	return m + " && ct.new"
}
