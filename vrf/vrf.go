package vrf

import (
	"cmp"
	"fmt"
	"net"
	"net/netip"
	"slices"
	"strconv"
	"strings"

	"github.com/udnkit/udnkit/internal/netdev"
	"github.com/udnkit/udnkit/internal/sdkerr"
	"github.com/udnkit/udnkit/internal/shell"
	"github.com/udnkit/udnkit/ipam"
	"github.com/udnkit/udnkit/netconf/udn"
)

// Fixed numbers of the node side (the reference's, DESIGN's facts).
const (
	// RouteProtocol marks the routes the SDK owns (OVN-Kubernetes' 85).
	RouteProtocol = 85
	// AddressProtocol marks the addresses the SDK owns (IFA_PROTO; the
	// reference marks its egress IPs on the bridge with its 85 too).
	AddressProtocol = 85
	// RulePriority is the priority of the SDK's ip rules.
	RulePriority = 2000
	// TableBase + network ID is a network's default routing table.
	TableBase = 1000
	// UnreachableMetric is the metric of the VRF's catch-all unreachable
	// default route.
	UnreachableMetric = 4278198272
	// PktMarkBase + network ID marks a network's NodePort and external-IP
	// traffic (nftables) for its ip rule and br-ex's dispatch.
	PktMarkBase = 0x1000
	// MaxLinkName is the longest Linux interface name.
	MaxLinkName = 15
	// NFTTable is the nftables table (family inet) the SDK writes.
	NFTTable = "ovn-kubernetes"
)

// Errors of Plan.
var (
	ErrInvalid = sdkerr.New(sdkerr.Invalid, "invalid node plan input")
)

// Node is the node planned.
type Node struct {
	Name string
	// Bridge is the gateway bridge ("breth0") the service and default
	// routes leave by.
	Bridge string
	// Gateways are the node's default gateways, at most one per family.
	Gateways []netip.Addr
	// KubeletCgroup is the kubelet's cgroup v2 path
	// ("kubelet.slice/kubelet.service"); empty when none was found, which
	// leaves kubelet probes of UDN pods blocked (Plan warns).
	KubeletCgroup string
	// EgressIPs are the egress IPs assigned to the node: each goes on
	// Bridge, where the bridge's flows SNAT the marked traffic of the pods
	// it serves to it (the reference lists them in the node's
	// k8s.ovn.org/bridge-egress-ips annotation).
	EgressIPs []netip.Addr
}

// Network is a primary user-defined network on the node.
type Network struct {
	// Network is the normalised network, ID set.
	Network *udn.Network
	// CUDN is the ClusterUserDefinedNetwork's name ("" for a UDN): the VRF
	// takes it when no vrf is set and it fits.
	CUDN string
	// HostSubnets are a Layer3 network's subnets of this node (ignored for
	// Layer2, whose node subnet is the network's).
	HostSubnets []netip.Prefix
	// Table is the VRF's routing table; 0 is TableBase + ID (the reference
	// derives it from the management port's ifindex, unknown at plan time).
	Table int
	// Advertised is set when the network's subnets are advertised (BGP) to
	// the default VRF: traffic to them then takes the network's table too.
	Advertised bool
	// NodePorts and ExternalIPs are the network's services reached through
	// the node, marked for it by nftables.
	NodePorts   []L4Port
	ExternalIPs []Endpoint
}

// Protocol is a transport protocol of nftables matches.
type Protocol string

// Protocols.
const (
	TCP  Protocol = "tcp"
	UDP  Protocol = "udp"
	SCTP Protocol = "sctp"
)

// L4Port is a protocol and port.
type L4Port struct {
	Protocol Protocol
	Port     uint16
}

// Endpoint is an address, protocol and port.
type Endpoint struct {
	Addr netip.Addr
	L4Port
}

// Cluster holds the cluster-wide settings.
type Cluster struct {
	ServiceCIDRs []netip.Prefix
	// MasqueradeSubnets default to ipam.DefaultMasqueradeSubnets.
	MasqueradeSubnets []netip.Prefix
	// MTU is used when a network has none; default 1400.
	MTU int
}

// Pods are what host isolation needs of the node's pods.
type Pods struct {
	// DefaultIPs are the default-network addresses of the node's pods
	// whose primary network is user-defined: the host may not reach them,
	// but for kubelet probes and open ports.
	DefaultIPs []netip.Addr
	// OpenPorts are the ports such pods open to the host
	// (k8s.ovn.org/open-default-ports); OpenICMP the pods that accept ICMP.
	OpenPorts []Endpoint
	OpenICMP  []netip.Addr
	// HostNetworked are the node's host-networked pods of namespaces whose
	// primary network is user-defined: the seed restricts their service
	// access to the cluster IPs listed (their network's and the default
	// network's) and drops the rest of the service CIDRs.
	HostNetworked []HostNetworkedPod
}

// HostNetworkedPod is a host-networked pod of a UDN namespace.
type HostNetworkedPod struct {
	Namespace, Name string
	// Cgroup is the pod's cgroup v2 path below the cgroup2 root
	// ("kubelet.slice/kubelet-kubepods.slice/...-pod<uid>.slice").
	Cgroup string
	// AllowedIPs are the cluster IPs the pod may reach.
	AllowedIPs []netip.Addr
}

// Input is what Plan needs.
type Input struct {
	Node     Node
	Networks []Network
	Cluster  Cluster
	Pods     Pods
}

// LinkKind is the kind of a link.
type LinkKind string

// Link kinds.
const (
	LinkVRF            LinkKind = "vrf"
	LinkManagementPort LinkKind = "management-port"
)

// Link is a network device the plan needs.
type Link struct {
	Kind LinkKind
	Name string
	// Table is a VRF's routing table.
	Table int
	// MAC, Addresses, MTU and Master (the VRF) are a management port's.
	MAC       net.HardwareAddr
	Addresses []netip.Prefix
	MTU       int
	Master    string
}

// Address is an address the SDK puts on a device it does not plan as a
// link (an egress IP on the gateway bridge): full length, scope global,
// protocol AddressProtocol (by which the SDK knows its own), without
// duplicate address detection for IPv6.
type Address struct {
	Dev  string
	Addr netip.Addr
}

// String renders the address as `ip addr add` takes its arguments.
func (a Address) String() string {
	return host(a.Addr).String() + " dev " + a.Dev
}

// RouteType is a route's type.
type RouteType string

// Route types.
const (
	RouteUnicast     RouteType = "unicast"
	RouteUnreachable RouteType = "unreachable"
)

// Route is a route in a VRF's table, protocol RouteProtocol.
type Route struct {
	Table   int
	Type    RouteType
	Dst     netip.Prefix
	Gateway netip.Addr
	Dev     string
	Src     netip.Addr
	MTU     int
	Metric  int
}

// Rule is an ip rule at RulePriority.
type Rule struct {
	Table int
	// Mark is a fwmark to match (0: none); To a destination (zero: none).
	Mark uint32
	To   netip.Prefix
	// IPv6 is the rule's family.
	IPv6 bool
}

// Warning is something the plan cannot do on this node, for the caller to
// report (the reference's UDNKubeletProbesNotSupported event).
type Warning struct {
	Reason, Message string
}

// State is a node's desired kernel state for its primary networks.
type State struct {
	Links  []Link
	Routes []Route
	Rules  []Rule
	// Bridge is the gateway bridge the egress IPs (Addresses) go on: the
	// SDK's addresses are read there, so one that left the plan is
	// deleted, and nowhere else. Empty: no address is read or written.
	Bridge    string
	Addresses []Address
	// NFT is the nftables plan of table inet NFTTable.
	NFT NFT
	// Warnings say what the node lacks.
	Warnings []Warning
}

// Plan plans the node's kernel state: per primary network its VRF,
// management port, routes and ip rules, and the nftables host isolation
// and service marking. It is pure and deterministic.
func Plan(in Input) (State, error) {
	if err := validateInput(in); err != nil {
		return State{}, err
	}
	nd := in.Node
	masqs := in.Cluster.MasqueradeSubnets
	if len(masqs) == 0 {
		masqs = ipam.DefaultMasqueradeSubnets()
	}
	mtu := in.Cluster.MTU
	if mtu == 0 {
		mtu = 1400
	}
	var s State
	nets := slices.Clone(in.Networks)
	slices.SortFunc(nets, func(a, b Network) int { return cmp.Compare(netID(a), netID(b)) })
	seen := map[string]string{}
	for _, n := range nets {
		if err := planNetwork(&s, nd, n, in.Cluster.ServiceCIDRs, masqs, mtu, seen); err != nil {
			return State{}, err
		}
	}
	s.NFT = planNFT(in, nets)
	s.Bridge = nd.Bridge
	for _, ip := range nd.EgressIPs {
		s.Addresses = append(s.Addresses, Address{Dev: nd.Bridge, Addr: ip})
	}
	if nd.KubeletCgroup == "" && len(in.Pods.DefaultIPs) > 0 {
		s.Warnings = append(s.Warnings, Warning{Reason: "UDNKubeletProbesNotSupported",
			Message: fmt.Sprintf("node %s: no kubelet cgroup v2 path: kubelet probes of pods of user-defined networks are blocked", nd.Name)})
	}
	s.sort()
	if err := s.Validate(); err != nil { // what the checks above missed
		return State{}, fmt.Errorf("node %s: %w", netdev.Bounded(nd.Name), err)
	}
	return s, nil
}

func netID(n Network) int {
	if n.Network == nil {
		return 0
	}
	return n.Network.ID
}

// VRFName returns the VRF device of a network (the seed's rule): the
// CUDN's vrf field (udn.Network.VRF), else the CUDN's name when it fits,
// else "udn-<id>-vrf". The reference names it "mp<id>-udn-vrf" when the
// CUDN name does not fit and for every namespaced UDN.
func VRFName(n Network) string {
	switch {
	case n.Network.VRF != "":
		return n.Network.VRF
	case n.CUDN != "" && len(n.CUDN) <= MaxLinkName:
		return n.CUDN
	}
	return "udn-" + strconv.Itoa(n.Network.ID) + "-vrf"
}

// ManagementPortName returns a network's management port device.
func ManagementPortName(id int) string { return "ovn-k8s-mp" + strconv.Itoa(id) }

func planNetwork(s *State, nd Node, n Network, services, masqs []netip.Prefix, clusterMTU int, seen map[string]string) error {
	nw := n.Network
	vrfName, mp := VRFName(n), ManagementPortName(nw.ID)
	for _, name := range []string{vrfName, mp} {
		if err := netdev.Check(name); err != nil {
			return fmt.Errorf("network %s: vrf: %w: %v", netdev.Bounded(nw.Name), ErrInvalid, err)
		}
		if name == nd.Bridge {
			return fmt.Errorf("network %s: vrf: %w: %q is the node's bridge", netdev.Bounded(nw.Name), ErrInvalid, name)
		}
		if other, ok := seen[name]; ok {
			return fmt.Errorf("network %s: vrf: %w: link %q is network %s's too", netdev.Bounded(nw.Name), ErrInvalid, name, netdev.Bounded(other))
		}
		seen[name] = nw.Name
	}
	table := n.Table
	if table == 0 {
		table = TableBase + nw.ID
	}
	mtu := nw.MTU
	if mtu == 0 {
		mtu = clusterMTU
	}
	nodeSubnets := n.HostSubnets
	if nw.Topology != udn.TopologyLayer3 {
		nodeSubnets = nw.SubnetPrefixes()
	}
	if len(nodeSubnets) == 0 {
		return fmt.Errorf("network %q: node %q: hostSubnets: %w: none", nw.Name, nd.Name, ErrInvalid)
	}
	var mpAddrs []netip.Prefix
	for _, sub := range nodeSubnets {
		a, err := ipam.ManagementIP(sub)
		if err != nil {
			return fmt.Errorf("network %q: subnet %s: %w", nw.Name, sub, err)
		}
		mpAddrs = append(mpAddrs, a)
	}
	s.Links = append(s.Links,
		Link{Kind: LinkVRF, Name: vrfName, Table: table},
		Link{Kind: LinkManagementPort, Name: mp, MAC: ipam.MACFromIP(mpAddrs[0].Addr()), Addresses: mpAddrs, MTU: mtu, Master: vrfName})
	for _, sub := range nodeSubnets {
		v4 := sub.Addr().Is4()
		i := slices.IndexFunc(masqs, func(p netip.Prefix) bool { return p.Addr().Is4() == v4 })
		if i < 0 {
			return fmt.Errorf("network %q: %w: no masquerade subnet of %s's family", nw.Name, ErrInvalid, sub)
		}
		m, err := ipam.MasqueradeIPs(masqs[i])
		if err != nil {
			return err
		}
		_, mpMasq, err := ipam.NetworkMasqueradeIPs(masqs[i], nw.ID)
		if err != nil {
			return fmt.Errorf("network %q: %w", nw.Name, err)
		}
		gw, err := ipam.GatewayIP(sub)
		if err != nil {
			return err
		}
		for _, svc := range services {
			if svc.Addr().Is4() == v4 {
				s.Routes = append(s.Routes, Route{Table: table, Type: RouteUnicast, Dst: svc, Gateway: m.DummyNextHop, Dev: nd.Bridge, Src: m.Host, MTU: mtu})
			}
		}
		for _, g := range nd.Gateways {
			if g.Is4() == v4 {
				s.Routes = append(s.Routes, Route{Table: table, Type: RouteUnicast, Dst: netip.PrefixFrom(zero(v4), 0), Gateway: g, Dev: nd.Bridge, MTU: mtu})
			}
		}
		s.Routes = append(s.Routes,
			Route{Table: table, Type: RouteUnicast, Dst: host(mpMasq), Dev: mp, MTU: mtu},
			Route{Table: table, Type: RouteUnicast, Dst: host(m.ETPLocal), Gateway: gw.Addr(), Dev: mp},
			Route{Table: table, Type: RouteUnreachable, Dst: netip.PrefixFrom(zero(v4), 0), Metric: UnreachableMetric})
		if nw.Topology == udn.TopologyLayer3 {
			for _, c := range nw.SubnetPrefixes() {
				if c.Addr().Is4() == v4 {
					s.Routes = append(s.Routes, Route{Table: table, Type: RouteUnicast, Dst: c, Gateway: gw.Addr(), Dev: mp})
				}
			}
		}
		s.Rules = append(s.Rules,
			Rule{Table: table, Mark: uint32(PktMarkBase + nw.ID), IPv6: !v4},
			Rule{Table: table, To: host(mpMasq), IPv6: !v4})
		if n.Advertised {
			for _, c := range nw.SubnetPrefixes() {
				if c.Addr().Is4() == v4 {
					s.Rules = append(s.Rules, Rule{Table: table, To: c, IPv6: !v4})
				}
			}
		}
	}
	return nil
}

func zero(v4 bool) netip.Addr {
	if v4 {
		return netip.IPv4Unspecified()
	}
	return netip.IPv6Unspecified()
}

func host(a netip.Addr) netip.Prefix { return netip.PrefixFrom(a, a.BitLen()) }

// SortState sorts s's links, routes and rules as Plan does (an observed
// state compares with a planned one).
func SortState(s *State) { s.sort() }

func (s *State) sort() {
	slices.SortFunc(s.Links, func(a, b Link) int { return cmp.Compare(a.Name, b.Name) })
	slices.SortFunc(s.Routes, compareRoutes)
	slices.SortFunc(s.Rules, compareRules)
	slices.SortFunc(s.Addresses, compareAddresses)
}

func compareAddresses(a, b Address) int {
	return cmp.Or(cmp.Compare(a.Dev, b.Dev), a.Addr.Compare(b.Addr))
}

func compareRoutes(a, b Route) int {
	return cmp.Or(cmp.Compare(a.Table, b.Table), a.Dst.Addr().Compare(b.Dst.Addr()), cmp.Compare(a.Dst.Bits(), b.Dst.Bits()),
		cmp.Compare(a.Type, b.Type), cmp.Compare(a.Metric, b.Metric))
}

func compareRules(a, b Rule) int {
	return cmp.Or(cmp.Compare(a.Table, b.Table), cmp.Compare(a.Mark, b.Mark), a.To.Addr().Compare(b.To.Addr()), cmpBool(a.IPv6, b.IPv6))
}

func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case !a:
		return -1
	}
	return 1
}

// String renders a route as `ip route` prints its arguments.
func (r Route) String() string {
	var b strings.Builder
	for i, w := range r.words() {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(w)
	}
	return b.String()
}

func (r Route) words() []string {
	w := make([]string, 0, 16)
	if r.Type == RouteUnreachable {
		w = append(w, "unreachable")
	}
	if r.Dst.Bits() == 0 {
		w = append(w, "default")
	} else {
		w = append(w, r.Dst.String())
	}
	if r.Gateway.IsValid() {
		w = append(w, "via", r.Gateway.String())
	}
	if r.Dev != "" {
		w = append(w, "dev", r.Dev)
	}
	if r.Src.IsValid() {
		w = append(w, "src", r.Src.String())
	}
	if r.MTU != 0 {
		w = append(w, "mtu", strconv.Itoa(r.MTU))
	}
	if r.Metric != 0 {
		w = append(w, "metric", strconv.Itoa(r.Metric))
	}
	return append(w, "proto", strconv.Itoa(RouteProtocol), "table", strconv.Itoa(r.Table))
}

// String renders a rule as `ip rule` takes it.
func (r Rule) String() string {
	s := "priority " + strconv.Itoa(RulePriority)
	if r.Mark != 0 {
		s += " fwmark 0x" + strconv.FormatUint(uint64(r.Mark), 16)
	}
	if r.To.IsValid() {
		s += " to " + r.To.String()
	}
	return s + " lookup " + strconv.Itoa(r.Table)
}

// Script returns the state as the ip and nft commands that would create it
// on an empty node: a dry run a person can read, and safe to run: every
// word is shell-quoted (a device may be called "a;>x"), and the nft text
// holds only names nft syntax cannot be broken out of (Validate).
func (s State) Script() string { return s.script(true) }

// IPScript is Script without its nft part: the ip commands and the
// warnings.
func (s State) IPScript() string { return s.script(false) }

func (s State) script(withNFT bool) string {
	var b strings.Builder
	line := func(words ...string) { b.WriteString(shell.Join(words...) + "\n") }
	for _, l := range s.Links {
		if l.Kind == LinkVRF {
			line("ip", "link", "add", "name", l.Name, "type", "vrf", "table", strconv.Itoa(l.Table))
			line("ip", "link", "set", "dev", l.Name, "up")
		}
	}
	// The management ports exist (Open vSwitch internal ports): they join
	// their VRF.
	for _, l := range s.Links {
		if l.Kind == LinkManagementPort {
			line("ip", "link", "set", "dev", l.Name, "address", l.MAC.String(), "mtu", strconv.Itoa(l.MTU), "master", l.Master, "up")
			for _, a := range l.Addresses {
				line("ip", "addr", "add", a.String(), "dev", l.Name)
			}
		}
	}
	for _, r := range s.Routes {
		cmd := []string{"ip"}
		if r.Dst.Addr().Is6() {
			cmd = append(cmd, "-6")
		}
		line(append(append(cmd, "route", "add"), r.words()...)...)
	}
	for _, r := range s.Rules {
		cmd := []string{"ip"}
		if r.IPv6 {
			cmd = append(cmd, "-6")
		}
		line(append(append(cmd, "rule", "add"), strings.Fields(r.String())...)...)
	}
	for _, a := range s.Addresses {
		cmd := []string{"ip"}
		if a.Addr.Is6() {
			cmd = append(cmd, "-6")
		}
		cmd = append(cmd, "addr", "add", host(a.Addr).String(), "dev", a.Dev, "proto", strconv.Itoa(AddressProtocol))
		if a.Addr.Is6() {
			cmd = append(cmd, "nodad")
		}
		line(cmd...)
	}
	if withNFT {
		b.WriteString("nft -f - <<'EOF'\n" + s.NFT.String() + "EOF\n")
	}
	for _, w := range s.Warnings {
		fmt.Fprintf(&b, "# warning %s: %s\n", commentSafe(w.Reason), commentSafe(w.Message))
	}
	return b.String()
}
