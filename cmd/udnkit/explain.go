package main

import (
	"fmt"
	"io"
	"maps"
	"net/netip"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"

	"github.com/udnkit/udnkit"
	"github.com/udnkit/udnkit/flows"
	"github.com/udnkit/udnkit/internal/manifest"
	"github.com/udnkit/udnkit/ipam"
	"github.com/udnkit/udnkit/netconf"
	"github.com/udnkit/udnkit/netconf/udn"
	"github.com/udnkit/udnkit/topology"
	"github.com/udnkit/udnkit/topology/pods"
	"github.com/udnkit/udnkit/vrf"
)

func newExplain(s streams) *cobra.Command {
	var in inputs
	c := &cobra.Command{
		Use:   "explain network|node|pod NAME -f FILE|DIR|-",
		Short: "Everything about one network, node or pod: IDs, keys, subnets, VRF, masquerade IPs, marks, addresses, NB object names",
		Long: `explain prints the table a person otherwise assembles from five places.

For a network (its OVN network name, "<namespace>/<name>" of a UserDefinedNetwork, or a
ClusterUserDefinedNetwork's name): where it comes from and its NADs, topology and role, network
ID, subnets, join and transit subnets, tunnel keys, VRF and routing table, management port,
masquerade IPs, conntrack and packet marks, and per node its host subnets, addresses and the
names of its Northbound objects.

For a node: its ID, zone, chassis, external addresses, next hops and MAC, and per network the
node's host subnets, join, transit and management addresses and Northbound objects.

Per node, a primary network also shows what the node's own plan holds (as plan -o ip|nft|ofctl
prints it, with plan's default OpenFlow ports): its VRF and routing table, the management port's
name, addresses, MAC and MTU, the packet mark its ip rules send to the table and its conntrack
mark, and the gateway bridge's patch port with the number of flows that use it.

For a pod ("<namespace>/<name>"): its node and zone, and per network its NAD, role, switch port,
addresses, MAC, gateways, routes and (Layer2) port tunnel key, as its k8s.ovn.org/pod-networks
annotation records them; then the EgressIP that serves it on its primary network (the first by
name of those selecting it), its mark and where its IPs are, and the rules of its namespace's
EgressQoS that select it.`,
		Example: `  udnkit explain network tenant-a/blue -f examples/manifests/quickstart.yaml
  udnkit explain network cluster_udn_db-network -f examples/manifests/seed-000.yaml
  udnkit explain node ovn-control-plane -f examples/manifests/seed-004.yaml
  udnkit explain pod tenant-a/web-1 -f examples/manifests/quickstart.yaml
  udnkit explain pod tenant/web-1 -f examples/manifests/egress.yaml`,
		Args:      cobra.ExactArgs(2),
		ValidArgs: []string{"network", "node", "pod"},
		RunE: func(cmd *cobra.Command, args []string) error {
			set, l, err := in.load(s)
			if err != nil {
				return err
			}
			ex := explainer{set: set, c: l.Cluster, cfg: l.Cluster.Settings(), w: s.out}
			switch args[0] {
			case "network":
				return ex.network(args[1])
			case "node":
				return ex.node(args[1])
			case "pod":
				return ex.pod(args[1])
			}
			return fmt.Errorf("explain %s: not one of network, node, pod", args[0])
		},
	}
	in.register(c)
	return c
}

type explainer struct {
	set *manifest.Set
	c   *udnkit.Cluster
	cfg udnkit.Config
	w   io.Writer
}

func (e explainer) line(indent int, key string, values ...any) {
	var vs []string
	for _, v := range values {
		vs = append(vs, fmt.Sprint(v))
	}
	fmt.Fprintf(e.w, "%s%-*s %s\n", strings.Repeat("  ", indent), 22-2*indent, key+":", strings.Join(vs, " "))
}

// find returns the network NAME names: a network name, a UDN's
// "<namespace>/<name>" or a CUDN's name.
func (e explainer) find(name string) (*udn.Network, string, error) {
	candidates := []string{name}
	if ns, n, ok := strings.Cut(name, "/"); ok {
		candidates = append(candidates, netconf.UDNNetworkName(ns, n))
	} else {
		candidates = append(candidates, netconf.CUDNNetworkName(name))
	}
	for _, cand := range candidates {
		if n, ok := e.c.Network(cand); ok {
			return n, e.source(n.Name), nil
		}
	}
	return nil, "", fmt.Errorf("network %q: %w: the manifests define %s", name, udnkit.ErrUnknownNetwork, strings.Join(e.c.Names(), ", "))
}

// source names the object a network comes from.
func (e explainer) source(network string) string {
	for _, u := range e.set.UDNs {
		if netconf.UDNNetworkName(u.Namespace, u.Name) == network {
			return netconf.KindUDN + " " + u.Namespace + "/" + u.Name
		}
	}
	for _, c := range e.set.CUDNs {
		if netconf.CUDNNetworkName(c.Name) == network {
			return netconf.KindCUDN + " " + c.Name
		}
	}
	return manifest.KindNAD
}

func (e explainer) masquerade() []netip.Prefix {
	if len(e.cfg.Cluster.MasqueradeSubnets) > 0 {
		return e.cfg.Cluster.MasqueradeSubnets
	}
	return ipam.DefaultMasqueradeSubnets()
}

func (e explainer) network(name string) error {
	n, source, err := e.find(name)
	if err != nil {
		return err
	}
	e.line(0, "network", n.Name)
	e.line(0, "source", source)
	var nads []string
	for _, o := range e.c.Annotations().NADs {
		if o.Annotations[udnkit.AnnotationNetworkName] == n.Name {
			nads = append(nads, o.Key())
		}
	}
	nads = append(nads, n.NADs...)
	slices.Sort(nads)
	e.line(0, "NADs", strings.Join(slices.Compact(nads), ", "))
	e.line(0, "topology", n.Topology)
	e.line(0, "role", n.Role)
	e.line(0, "network ID", n.ID)
	e.line(0, "prefix", netconf.NetworkPrefix(n.Name))
	if n.MTU != 0 {
		e.line(0, "MTU", n.MTU)
	}
	var subs []string
	for _, sub := range n.Subnets {
		s := sub.CIDR.String()
		if n.Topology == udn.TopologyLayer3 {
			s += " (host /" + strconv.Itoa(sub.HostPrefix) + ")"
		}
		subs = append(subs, s)
	}
	e.line(0, "subnets", strings.Join(subs, ", "))
	if len(n.ExcludeSubnets) > 0 {
		e.line(0, "excluded subnets", prefixList(n.ExcludeSubnets))
	}
	if n.IsPrimary() {
		e.line(0, "join subnets", prefixList(n.JoinSubnets))
		e.line(0, "transit subnets", prefixList(n.TransitSubnets))
	}
	switch {
	case n.Topology == udn.TopologyLayer3:
		e.line(0, "tunnel keys", fmt.Sprintf("%d (transit switch)", ipam.Layer3TransitSwitchTunnelKey(n.ID)))
	case n.Topology == udn.TopologyLayer2:
		if zs, err := manifest.Zones(e.c); err == nil {
			if in, err := e.c.Input(n.Name, zs[0]); err == nil {
				var keys []string
				for i, k := range in.TunnelKeys {
					what := "switch"
					if i == 1 {
						what = "transit router"
					}
					keys = append(keys, fmt.Sprintf("%d (%s)", k, what))
				}
				e.line(0, "tunnel keys", strings.Join(keys, ", "))
			}
		}
	}
	if n.IsPrimary() {
		cudn := ""
		if c, ok := strings.CutPrefix(source, netconf.KindCUDN+" "); ok {
			cudn = c
		}
		e.line(0, "VRF", vrf.VRFName(vrf.Network{Network: n, CUDN: cudn}), "table", ipam.VRFTable(n.ID))
		e.line(0, "management port", vrf.ManagementPortName(n.ID))
		for _, m := range e.masquerade() {
			if !slices.ContainsFunc(n.Subnets, func(s udn.Subnet) bool { return s.CIDR.Addr().Is4() == m.Addr().Is4() }) {
				continue
			}
			gr, mp, err := ipam.NetworkMasqueradeIPs(m, n.ID)
			if err != nil {
				return fmt.Errorf("network %s: masquerade subnet %s: %w", n.Name, m, err)
			}
			e.line(0, "masquerade IPs", "gateway router", gr, "management port", mp)
		}
		e.line(0, "ct_mark", ipam.NetworkCTMark(n.ID))
		e.line(0, "pkt_mark", fmt.Sprintf("%d (0x%x)", ipam.NetworkPktMark(n.ID), ipam.NetworkPktMark(n.ID)))
	}
	objs, err := e.objects()
	if err != nil {
		return err
	}
	for _, nd := range e.c.Nodes() {
		fmt.Fprintf(e.w, "node %s (ID %d, zone %s)\n", nd.Name, nd.ID, nd.InZone())
		e.nodeOfNetwork(n, nd, objs)
	}
	if wide := objs[ownerKey{n.Name, ""}]; len(wide) > 0 {
		fmt.Fprintln(e.w, "network-wide objects")
		for _, o := range wide {
			fmt.Fprintf(e.w, "  %s\n", o)
		}
	}
	return nil
}

// nodeOfNetwork prints a network's addresses and objects on a node.
func (e explainer) nodeOfNetwork(n *udn.Network, nd topology.Node, objs map[ownerKey][]string) {
	if subs, ok := e.c.HostSubnets(n.Name, nd.Name); ok {
		e.line(1, "host subnets", prefixList(subs))
		var mgmt []netip.Prefix
		for _, sub := range subs {
			if m, err := ipam.ManagementIP(sub); err == nil {
				mgmt = append(mgmt, m)
			}
		}
		e.line(1, "management IP", prefixList(mgmt))
	} else if n.Topology != udn.TopologyLayer3 && n.IsPrimary() {
		var mgmt []netip.Prefix
		for _, sub := range n.Subnets {
			if m, err := ipam.ManagementIP(sub.CIDR); err == nil {
				mgmt = append(mgmt, m)
			}
		}
		e.line(1, "management IP", prefixList(mgmt))
	}
	if n.IsPrimary() {
		var join, transit []netip.Prefix
		for _, j := range n.JoinSubnets {
			if ip, err := ipam.JoinGatewayRouterIP(j, nd.ID); err == nil {
				join = append(join, ip)
			}
		}
		for _, t := range n.TransitSubnets {
			var ip netip.Prefix
			var err error
			if n.Topology == udn.TopologyLayer3 {
				ip, err = ipam.TransitSwitchIP(t, nd.ID)
			} else {
				_, ip, err = ipam.TransitRouterPeerIPs(t, nd.ID)
			}
			if err == nil {
				transit = append(transit, ip)
			}
		}
		e.line(1, "gateway router join", prefixList(join))
		e.line(1, "transit (node side)", prefixList(transit))
	}
	if n.IsPrimary() && n.Topology != udn.TopologyLocalnet {
		e.nodeKernel(n, nd.Name)
	}
	for _, o := range objs[ownerKey{n.Name, nd.Name}] {
		fmt.Fprintf(e.w, "    %s\n", o)
	}
}

// nodeKernel prints what the node's plan (udnkit.Cluster.PlanNode, with
// plan's default OpenFlow ports) holds for a primary network: its VRF and
// table, management port, the marks of its ip rules and conntrack, and its
// gateway-bridge patch port.
func (e explainer) nodeKernel(n *udn.Network, node string) {
	local, err := (&nodeFlags{uplink: defaultUplink, defaultPatch: defaultPatchOFPort}).local(e.c)
	var p udnkit.NodePlan
	if err == nil {
		p, err = e.c.PlanNode(node, local)
	}
	if err != nil {
		e.line(1, "node plan", "none:", err)
		return
	}
	mp := vrf.ManagementPortName(n.ID)
	i := slices.IndexFunc(p.Kernel.Links, func(l vrf.Link) bool { return l.Kind == vrf.LinkManagementPort && l.Name == mp })
	if i < 0 {
		e.line(1, "node plan", "no management port", mp)
		return
	}
	port := p.Kernel.Links[i]
	table := 0
	if j := slices.IndexFunc(p.Kernel.Links, func(l vrf.Link) bool { return l.Kind == vrf.LinkVRF && l.Name == port.Master }); j >= 0 {
		table = p.Kernel.Links[j].Table
	}
	e.line(1, "VRF", port.Master, "table", table)
	e.line(1, "management port", port.Name, prefixList(port.Addresses), "MAC", port.MAC, "MTU", port.MTU)
	var marks []string
	for _, r := range p.Kernel.Rules {
		if r.Table == table && r.Mark != 0 && !slices.Contains(marks, fmt.Sprintf("0x%x", r.Mark)) {
			marks = append(marks, fmt.Sprintf("0x%x", r.Mark))
		}
	}
	e.line(1, "marks", fmt.Sprintf("pkt_mark %s (ip rule to table %d), ct_mark 0x%x", orNone(strings.Join(marks, ", ")), table, flows.CtMarkNetworkBase+n.ID))
	patch := local.PatchOFPorts[n.Name]
	in, out := "in_port="+strconv.Itoa(patch), "output:"+strconv.Itoa(patch)
	count := 0
	for _, f := range p.Flows {
		if hasField(f.Match, in) || hasField(f.Actions, out) {
			count++
		}
	}
	e.line(1, "gateway bridge", fmt.Sprintf("patch port OpenFlow %d (plan's default), %d flow(s)", patch, count))
}

// hasField says whether the comma-separated list s holds f.
func hasField(s, f string) bool {
	for x := range strings.SplitSeq(s, ",") {
		if x == f {
			return true
		}
	}
	return false
}

type ownerKey struct{ network, node string }

// objects returns the names of the named objects of every zone's plan, by
// network and node, sorted: "router GR_...", "switch_port k8s-...".
// Unnamed rows (routes, policies, NATs) are counted per kind, those of a
// node in its own zone's plan only (a remote node's routes in another
// zone are that zone's).
func (e explainer) objects() (map[ownerKey][]string, error) {
	zs, err := manifest.Zones(e.c)
	if err != nil {
		return nil, nil
	}
	zoneOf := map[string]string{}
	for _, nd := range e.c.Nodes() {
		zoneOf[nd.Name] = nd.InZone()
	}
	named := map[ownerKey]map[string]bool{}
	counts := map[ownerKey]map[topology.Kind]int{}
	for _, z := range zs {
		st, err := e.c.Plan(z)
		if err != nil {
			return nil, err
		}
		for o := range st.Objects() {
			ow := o.OwnedBy()
			k := ownerKey{ow.Network, ow.Node}
			if named[k] == nil {
				named[k] = map[string]bool{}
				counts[k] = map[topology.Kind]int{}
			}
			switch o.Kind() {
			case topology.KindSwitch, topology.KindRouter, topology.KindSwitchPort, topology.KindRouterPort, topology.KindLoadBalancerGroup, topology.KindPortGroup, topology.KindAddressSet:
				named[k][o.Kind().String()+" "+o.Key()] = true
			default: // counted where they are planned for their own node's zone
				if ow.Node == "" && z == zs[0] || ow.Node != "" && zoneOf[ow.Node] == z {
					counts[k][o.Kind()]++
				}
			}
		}
	}
	out := map[ownerKey][]string{}
	for k, names := range named {
		list := make([]string, 0, len(names))
		for n := range names {
			list = append(list, n)
		}
		slices.Sort(list)
		var other []string
		for _, kind := range topology.Kinds() {
			if c := counts[k][kind]; c > 0 {
				other = append(other, fmt.Sprintf("%d %s", c, kind))
			}
		}
		if len(other) > 0 {
			list = append(list, "and "+strings.Join(other, ", "))
		}
		out[k] = list
	}
	return out, nil
}

func (e explainer) node(name string) error {
	var nd topology.Node
	found := false
	for _, x := range e.c.Nodes() {
		if x.Name == name {
			nd, found = x, true
		}
	}
	if !found {
		var names []string
		for _, x := range e.c.Nodes() {
			names = append(names, x.Name)
		}
		return fmt.Errorf("node %q: not in the manifests (nodes: %s)", name, strings.Join(names, ", "))
	}
	e.line(0, "node", nd.Name)
	e.line(0, "node ID", nd.ID)
	e.line(0, "zone", nd.InZone())
	e.line(0, "chassis", orNone(nd.Chassis))
	e.line(0, "addresses", prefixList(nd.Addresses))
	var hops []string
	for _, h := range nd.NextHops {
		hops = append(hops, h.String())
	}
	e.line(0, "next hops", orNone(strings.Join(hops, ", ")))
	mac := nd.MAC
	if mac == nil && len(nd.Addresses) > 0 {
		mac = ipam.MACFromIP(nd.Addresses[0].Addr())
	}
	if mac != nil {
		e.line(0, "MAC", mac)
	}
	for _, nr := range e.c.NotReady() {
		if nr.Node == name {
			e.line(0, "not ready", nr.Reason)
		}
	}
	objs, err := e.objects()
	if err != nil {
		return err
	}
	for _, net := range e.c.Names() {
		n, _ := e.c.Network(net)
		fmt.Fprintf(e.w, "network %s (%s %s, ID %d)\n", n.Name, n.Topology, n.Role, n.ID)
		e.nodeOfNetwork(n, nd, objs)
	}
	return nil
}

func prefixList(ps []netip.Prefix) string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.String()
	}
	return orNone(strings.Join(out, ", "))
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

func (e explainer) pod(key string) error {
	ns, name, ok := strings.Cut(key, "/")
	if !ok {
		return fmt.Errorf("pod %q: want <namespace>/<name>", key)
	}
	var node string
	var pod *corev1.Pod
	for _, p := range e.set.Pods {
		if p.Namespace == ns && p.Name == name {
			node, pod = p.Spec.NodeName, p
		}
	}
	value, err := e.c.PodAnnotation(ns, name)
	if err != nil || value == "" {
		return fmt.Errorf("pod %s: not attached to any network (not in the manifests, host-networked or not scheduled)", key)
	}
	nets, err := netconf.ParsePodNetworks(value)
	if err != nil {
		return fmt.Errorf("pod %s: %s: %w", key, netconf.AnnotationPodNetworks, err)
	}
	e.line(0, "pod", key)
	e.line(0, "node", node)
	zone := node
	for _, nd := range e.c.Nodes() {
		if nd.Name == node {
			zone = nd.InZone()
		}
	}
	e.line(0, "zone", zone)
	for _, nad := range slices.Sorted(maps.Keys(nets)) {
		pn := nets[nad]
		fmt.Fprintf(e.w, "network %s\n", nad)
		e.line(1, "role", pn.Role)
		e.line(1, "switch port", pods.PortName(ns, name, nad))
		e.line(1, "addresses", prefixList(pn.IPs))
		e.line(1, "MAC", pn.MAC)
		var gws, routes []string
		for _, g := range pn.Gateways {
			gws = append(gws, g.String())
		}
		for _, r := range pn.Routes {
			routes = append(routes, r.Dest.String()+" via "+r.NextHop.String())
		}
		e.line(1, "gateways", orNone(strings.Join(gws, ", ")))
		e.line(1, "routes", orNone(strings.Join(routes, ", ")))
		if pn.TunnelID != 0 {
			e.line(1, "port tunnel key", pn.TunnelID)
		}
	}
	if pod != nil {
		e.podEgress(pod, nets)
	}
	return nil
}
