package topology

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"net"
	"net/netip"
	"slices"
	"strconv"

	"github.com/udnkit/udnkit/internal/names"
	"github.com/udnkit/udnkit/internal/netdev"
	"github.com/udnkit/udnkit/ipam"
	"github.com/udnkit/udnkit/netconf/udn"
)

// Node is a cluster node as the planners see it.
type Node struct {
	// Name is the Kubernetes node name (a DNS subdomain; "join" is refused
	// because "<prefix>join" is the join switch).
	Name string
	// ID is the node ID allocated by ipam (ipam.MinNodeID..ipam.MaxNodeID).
	ID int
	// Zone is the node's interconnect zone; "" means a zone of its own named
	// after the node.
	Zone string
	// Chassis is the node's OVN chassis name (system-id). Required for local
	// nodes of primary networks (gateway router) and for remote nodes
	// (requested-chassis of their remote ports).
	Chassis string
	// Addresses are the node's addresses on its external interface as
	// interface addresses (172.18.0.3/16), at most one per family. Local
	// nodes of primary networks need one per family of the network.
	Addresses []netip.Prefix
	// NextHops are the default gateways of the external network, at most one
	// per family. Local nodes of primary networks need one per family.
	NextHops []netip.Addr
	// MAC is the MAC of the external interface, used by the gateway router's
	// external port; nil derives one from the first address (ipam.MACFromIP).
	MAC net.HardwareAddr
}

// InZone returns the node's interconnect zone: Zone, or its name when Zone
// is empty (a zone of its own).
func (n *Node) InZone() string {
	if n.Zone == "" {
		return n.Name
	}
	return n.Zone
}

// Cluster holds the cluster-wide settings the planners need. Zero fields
// take the documented defaults.
type Cluster struct {
	// MasqueradeSubnets default to ipam.DefaultMasqueradeSubnets.
	MasqueradeSubnets []netip.Prefix
	// DefaultNetworkJoinSubnets are the default network's join subnets,
	// allowed as destinations by the priority-102 policies (seed 004);
	// default ipam.DefaultNetworkJoinSubnets.
	DefaultNetworkJoinSubnets []netip.Prefix
	// ServiceIPs are the cluster IPs of default-network services that pods of
	// primary networks reach through the management port (Kubernetes API and
	// DNS; seed 004 shows 10.96.0.1 and 10.96.0.10).
	ServiceIPs []netip.Addr
	// PhysicalNetworkName is the bridge mapping name of the external
	// network used by the gateway routers' localnet ports; default "physnet".
	PhysicalNetworkName string
	// ExternalBridge names the external bridge; the localnet port of
	// ext_<prefix><node> is "<bridge>_<prefix><node>". Default "breth0".
	ExternalBridge string
	// MTU is the cluster MTU used as gateway_mtu when the network has none;
	// default 1400.
	MTU int
}

// Input is what a planner needs to plan one network for one zone.
type Input struct {
	// Network is the normalised network, with its ID allocated.
	Network *udn.Network
	// Nodes are all the cluster's nodes (local and remote), in any order.
	Nodes []Node
	// Zone is the zone being programmed: nodes of this zone are local (get
	// their switches, gateway routers and ports), the others are remote
	// (get remote ports and routes). Interconnect gives every node its own
	// zone; giving all nodes the same zone plans a single-zone cluster
	// (Layer3 and secondary networks only: a primary Layer2 zone holds at
	// most one node).
	Zone string
	// HostSubnets are a Layer3 network's per-node subnets: node name to one
	// subnet per family of the network, each carved from a network subnet
	// with its HostPrefix.
	HostSubnets map[string][]netip.Prefix
	// TunnelKeys are a Layer2 network's dynamic tunnel keys, as an
	// ipam.TunnelKeyAllocator hands them out (in
	// ipam.DynamicTunnelKeyFirst..Last, above every network ID's preserved
	// key): the switch's, then (primary only) the transit router's.
	TunnelKeys []int
	// Cluster holds the cluster-wide settings.
	Cluster Cluster
	// Profile selects the seeds' design (the zero value) or the reference
	// implementation's wire format where the two differ.
	Profile Profile
	// Layer2 is the topology a primary Layer2 network is on: the transit
	// router (the zero value), the legacy one, or the rolling upgrade from
	// one to the other. Every planner entry point, PlanNodes included,
	// honours it; other networks ignore it.
	Layer2 Layer2Mode
	// LegacyNodes are, during Layer2Upgrade, the remote nodes that still run
	// the legacy topology.
	LegacyNodes []string
}

// Layer2Mode is the topology of a primary Layer2 network (seed 004).
type Layer2Mode uint8

// Layer2 modes.
const (
	// Layer2TransitRouter attaches the network to a transit router (seed
	// 004's topology, the default).
	Layer2TransitRouter Layer2Mode = iota
	// Layer2Legacy attaches each node's gateway router to the switch.
	Layer2Legacy
	// Layer2Upgrade is a zone that has moved to the transit router while
	// Input.LegacyNodes still run the legacy topology.
	Layer2Upgrade
)

// String returns "transit-router", "legacy" or "upgrade".
func (m Layer2Mode) String() string {
	switch m {
	case Layer2TransitRouter:
		return "transit-router"
	case Layer2Legacy:
		return "legacy"
	case Layer2Upgrade:
		return "upgrade"
	}
	return "layer2-mode(" + strconv.Itoa(int(m)) + ")"
}

// Validate checks the settings every network's plan takes as they are,
// before any network is planned: the names are free of control characters
// and the external bridge is a name the node plans (vrf, flows) can take.
func (c Cluster) Validate() error {
	for _, f := range []struct{ field, s string }{{"physicalNetworkName", c.PhysicalNetworkName}, {"externalBridge", c.ExternalBridge}} {
		if msg := names.ControlError(f.s); msg != "" {
			return fmt.Errorf("cluster: %s %s: %w: %s", f.field, names.Quote(f.s), ErrInvalid, msg)
		}
	}
	return c.checkBridge()
}

// checkBridge refuses an external bridge the node plans would refuse: they
// take it as a device name and an ovs-ofctl argument.
func (c Cluster) checkBridge() error {
	b := c.ExternalBridge
	if b == "" {
		return nil
	}
	if err := netdev.Check(b); err != nil {
		return fmt.Errorf("cluster: externalBridge: %w: %v", ErrInvalid, err)
	}
	if b[0] == '-' {
		return fmt.Errorf("cluster: externalBridge %s: %w: a leading '-' reads as an option to ovs-ofctl", names.Quote(b), ErrInvalid)
	}
	return nil
}

func (c Cluster) withDefaults() Cluster {
	if len(c.MasqueradeSubnets) == 0 {
		c.MasqueradeSubnets = ipam.DefaultMasqueradeSubnets()
	}
	if len(c.DefaultNetworkJoinSubnets) == 0 {
		c.DefaultNetworkJoinSubnets = ipam.DefaultNetworkJoinSubnets()
	}
	if c.PhysicalNetworkName == "" {
		c.PhysicalNetworkName = "physnet"
	}
	if c.ExternalBridge == "" {
		c.ExternalBridge = "breth0"
	}
	if c.MTU == 0 {
		c.MTU = 1400
	}
	return c
}

func errf(format string, args ...any) error { return fmt.Errorf(format, args...) }

// validName reports whether s is a DNS-1123 subdomain (what Kubernetes
// allows as a node name).
func validName(s string) bool {
	if s == "" || len(s) > 253 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		alnum := c >= 'a' && c <= 'z' || c >= '0' && c <= '9'
		if !alnum && c != '-' && c != '.' {
			return false
		}
		if (i == 0 || i == len(s)-1) && !alnum {
			return false
		}
	}
	return true
}

func familyName(is4 bool) string {
	if is4 {
		return "IPv4"
	}
	return "IPv6"
}

// pickPrefix returns the first prefix of ps of the family.
func pickPrefix(ps []netip.Prefix, is4 bool) (netip.Prefix, bool) {
	for _, p := range ps {
		if p.Addr().Is4() == is4 {
			return p, true
		}
	}
	return netip.Prefix{}, false
}

func pickAddr(as []netip.Addr, is4 bool) (netip.Addr, bool) {
	for _, a := range as {
		if a.Is4() == is4 {
			return a, true
		}
	}
	return netip.Addr{}, false
}

// validateNetwork checks the network fields every planner needs.
func validateNetwork(n *udn.Network) error {
	if n == nil {
		return errf("network: %w: nil", ErrInvalid)
	}
	if n.Name == "" {
		return errf("network: name: %w: empty", ErrInvalid)
	}
	if err := CheckNames(n, nil, ""); err != nil {
		return err
	}
	if n.ID < 1 || n.ID > ipam.MaxNetworkID {
		return errf("%s: id: %w: %d not in 1..%d", n, ErrInvalid, n.ID, ipam.MaxNetworkID)
	}
	if !n.Topology.Valid() {
		return errf("%s: topology: %w: %q", n, ErrInvalid, n.Topology)
	}
	if !n.Role.Valid() {
		return errf("%s: role: %w: %q", n, ErrInvalid, n.Role)
	}
	fam := map[bool]int{}
	for i, s := range n.Subnets {
		if !s.CIDR.IsValid() || s.CIDR.Masked() != s.CIDR {
			return errf("%s: subnets[%d]: %w: %v is not a masked prefix", n, i, ErrInvalid, s.CIDR)
		}
		fam[s.CIDR.Addr().Is4()]++
	}
	if (fam[true] > 1 || fam[false] > 1) && n.Topology != udn.TopologyLayer3 {
		return errf("%s: subnets: %w: more than one subnet of a family (Layer3 only)", n, ErrUnsupported)
	}
	for i := range n.Subnets {
		for j := range i {
			if n.Subnets[i].CIDR.Overlaps(n.Subnets[j].CIDR) {
				return errf("%s: subnets[%d]: %w: %v overlaps %v", n, i, ErrInvalid, n.Subnets[i].CIDR, n.Subnets[j].CIDR)
			}
		}
	}
	if n.Topology == udn.TopologyLayer3 {
		// One host-subnet length per family (the reference's rule, which
		// netconf applies): OVN ranks a longer source route above a
		// shorter destination route, so a node with longer host subnets
		// would send traffic for another node's pods through its gateway
		// router.
		var first [2]int // index+1 of the family's first subnet
		for i, s := range n.Subnets {
			f := &first[b2i(s.CIDR.Addr().Is6())]
			switch {
			case *f == 0:
				*f = i + 1
			case s.HostPrefix != n.Subnets[*f-1].HostPrefix:
				return errf("%s: subnets[%d]: %w: host prefix /%d, subnets[%d]'s is /%d: the subnets of a family share one host-subnet length",
					n, i, ErrInvalid, s.HostPrefix, *f-1, n.Subnets[*f-1].HostPrefix)
			}
		}
	}
	if len(n.Subnets) == 0 && (n.IsPrimary() || n.Topology == udn.TopologyLayer3) {
		return errf("%s: subnets: %w: a %s %s network needs subnets", n, ErrInvalid, n.Role, n.Topology)
	}
	if n.MTU < 0 || n.MTU > udn.MaxMTU {
		return errf("%s: mtu: %w: %d", n, ErrInvalid, n.MTU)
	}
	return nil
}

// CheckNames refuses control characters, DEL and invalid UTF-8 (what
// OVSDB cannot hold and a printed script cannot carry) in every name of a
// planner's input that reaches a row: the network's name, VRF, physical
// network and NADs, each node's name, zone and chassis, and the zone. The
// error wraps ErrInvalid and names the field. Every Plan* entry point calls
// it; so do connect, pods and services for the network and nodes they take.
func CheckNames(n *udn.Network, nodes []Node, zone string) error {
	bad := func(field, s string) error {
		if msg := names.ControlError(s); msg != "" {
			return fmt.Errorf("%s %s: %w: %s", field, names.Quote(s), ErrInvalid, msg)
		}
		return nil
	}
	if n != nil {
		fields := [][2]string{{"network: name", n.Name}, {"network: vrf", n.VRF}, {"network: physicalNetworkName", n.PhysicalNetworkName}}
		for _, f := range fields {
			if err := bad(f[0], f[1]); err != nil {
				return err
			}
		}
		for i, nad := range n.NADs {
			if err := bad("network: nads["+strconv.Itoa(i)+"]", nad); err != nil {
				return err
			}
		}
	}
	for i := range nodes {
		nd := &nodes[i]
		p := "nodes[" + strconv.Itoa(i) + "]: "
		for _, f := range [][2]string{{p + "name", nd.Name}, {p + "zone", nd.Zone}, {p + "chassis", nd.Chassis}} {
			if err := bad(f[0], f[1]); err != nil {
				return err
			}
		}
	}
	return bad("zone", zone)
}

// validateNodes checks names, IDs and uniqueness of all nodes.
func validateNodes(n *udn.Network, nodes []Node) error {
	names := make(map[string]bool, len(nodes))
	var ids [ipam.MaxNodeID + 1]int32 // index+1 into nodes of the node with that ID
	for i := range nodes {
		nd := &nodes[i]
		if err := checkNode(n, i, nd); err != nil {
			return err
		}
		if names[nd.Name] {
			return errf("%s: node %q: name: %w: listed twice", n, nd.Name, ErrConflict)
		}
		names[nd.Name] = true
		if o := ids[nd.ID]; o != 0 {
			return errf("%s: node %q: id: %w: %d is also node %q's", n, nd.Name, ErrConflict, nd.ID, nodes[o-1].Name)
		}
		ids[nd.ID] = int32(i + 1)
	}
	return nil
}

// validateSomeNodes checks the named nodes and that they collide with no
// other node (PlanNodes: the others were checked by an earlier full plan).
func validateSomeNodes(n *udn.Network, in Input, only map[string]bool) error {
	found := 0
	for i := range in.Nodes {
		nd := &in.Nodes[i]
		if !only[nd.Name] {
			continue
		}
		found++
		if err := checkNode(n, i, nd); err != nil {
			return err
		}
		hs := in.HostSubnets[nd.Name]
		for j := range in.Nodes {
			o := &in.Nodes[j]
			if j == i {
				continue
			}
			if o.Name == nd.Name {
				return errf("%s: node %q: name: %w: listed twice", n, nd.Name, ErrConflict)
			}
			if o.ID == nd.ID {
				return errf("%s: node %q: id: %w: %d is also node %q's", n, nd.Name, ErrConflict, nd.ID, o.Name)
			}
			if n.Topology == udn.TopologyLayer3 {
				for _, h := range in.HostSubnets[o.Name] {
					if slices.Contains(hs, h) {
						return errf("%s: node %q: hostSubnets: %w: %v is also node %q's", n, nd.Name, ErrConflict, h, o.Name)
					}
				}
			}
		}
	}
	if found < len(only) {
		for name := range only {
			if !slices.ContainsFunc(in.Nodes, func(nd Node) bool { return nd.Name == name }) {
				return errf("%s: node %q: %w: not among the input's nodes", n, name, ErrInvalid)
			}
		}
	}
	return nil
}

// checkNode checks one node's own fields.
func checkNode(n *udn.Network, i int, nd *Node) error {
	if !validName(nd.Name) || nd.Name == "join" {
		return errf("%s: nodes[%d]: name: %w: %q is not a usable node name", n, i, ErrInvalid, nd.Name)
	}
	if nd.ID < ipam.MinNodeID || nd.ID > ipam.MaxNodeID {
		return errf("%s: node %q: id: %w: %d not in %d..%d", n, nd.Name, ErrInvalid, nd.ID, ipam.MinNodeID, ipam.MaxNodeID)
	}
	for j, a := range nd.Addresses {
		if !a.IsValid() || a.Addr().Is4In6() {
			return errf("%s: node %q: addresses[%d]: %w: %v", n, nd.Name, j, ErrInvalid, a)
		}
	}
	for j, a := range nd.NextHops {
		if !a.IsValid() || a.Is4In6() {
			return errf("%s: node %q: nextHops[%d]: %w: %v", n, nd.Name, j, ErrInvalid, a)
		}
	}
	if nd.MAC != nil && len(nd.MAC) != 6 {
		return errf("%s: node %q: mac: %w: %v is not a 6-byte MAC", n, nd.Name, ErrInvalid, nd.MAC)
	}
	return nil
}

// checkOverlap refuses internal subnets (join, transit) that overlap the
// network's subnets.
func checkOverlap(n *udn.Network, field string, ps []netip.Prefix) error {
	for _, p := range ps {
		for _, s := range n.Subnets {
			if p.Overlaps(s.CIDR) {
				return errf("%s: %s: %w: %v overlaps the network subnet %v", n, field, ErrConflict, p, s.CIDR)
			}
		}
	}
	return nil
}

// checkGatewayNode checks what a local node of a primary network needs.
func checkGatewayNode(n *udn.Network, nd *Node, families []bool) error {
	if nd.Chassis == "" {
		return errf("%s: node %q: chassis: %w: empty", n, nd.Name, ErrInvalid)
	}
	for _, is4 := range families {
		if _, ok := pickPrefix(nd.Addresses, is4); !ok {
			return errf("%s: node %q: addresses: %w: no %s address", n, nd.Name, ErrInvalid, familyName(is4))
		}
		if _, ok := pickAddr(nd.NextHops, is4); !ok {
			return errf("%s: node %q: nextHops: %w: no %s next hop", n, nd.Name, ErrInvalid, familyName(is4))
		}
	}
	return nil
}

func checkRemoteNode(n *udn.Network, nd *Node) error {
	if nd.Chassis == "" {
		return errf("%s: node %q: chassis: %w: empty (needed for remote ports)", n, nd.Name, ErrInvalid)
	}
	return nil
}

// withDefaultPrefixes returns ps, or def() when ps is empty.
func withDefaultPrefixes(ps []netip.Prefix, def func() []netip.Prefix) []netip.Prefix {
	if len(ps) == 0 {
		return def()
	}
	return ps
}

func checkFamilies(n *udn.Network, field string, ps []netip.Prefix, fams []bool) error {
	for _, is4 := range fams {
		if _, ok := pickPrefix(ps, is4); !ok {
			return errf("%s: %s: %w: no %s subnet", n, field, ErrInvalid, familyName(is4))
		}
	}
	for i, p := range ps {
		if !p.IsValid() {
			return errf("%s: %s[%d]: %w: invalid prefix", n, field, i, ErrInvalid)
		}
	}
	return nil
}

// checkHostSubnets refuses two nodes with the same host subnet. It reports
// the first repeated subnet in input order, naming the node it repeats.
// (It sorts pointer-free records rather than filling a map of every host
// subnet, which costs several times more for each plan.)
func checkHostSubnets(n *udn.Network, in Input) error {
	type ref struct {
		hi, lo    uint64 // the address; with fam and bits, equal iff the prefixes are
		fam, bits int16  // Addr.BitLen, Prefix.Bits
		pos       int32  // in input order
		node, j   int32  // in.HostSubnets[in.Nodes[node].Name][j]
	}
	// IPv4 first: host subnets are usually listed in address order per
	// family, so the sort finds the records (almost) sorted.
	refs := make([]ref, 0, 2*len(in.Nodes))
	for _, v4 := range []bool{true, false} {
		pos := int32(0)
		for i := range in.Nodes {
			for j, h := range in.HostSubnets[in.Nodes[i].Name] {
				if a := h.Addr(); a.Is4() == v4 {
					b := a.As16()
					refs = append(refs, ref{hi: binary.BigEndian.Uint64(b[:8]), lo: binary.BigEndian.Uint64(b[8:]),
						fam: int16(a.BitLen()), bits: int16(h.Bits()), pos: pos, node: int32(i), j: int32(j)})
				}
				pos++
			}
		}
	}
	same := func(a, b *ref) bool { return a.hi == b.hi && a.lo == b.lo && a.fam == b.fam && a.bits == b.bits }
	slices.SortFunc(refs, func(a, b ref) int {
		switch {
		case a.fam != b.fam:
			return cmp.Compare(a.fam, b.fam)
		case a.hi != b.hi:
			return cmp.Compare(a.hi, b.hi)
		case a.lo != b.lo:
			return cmp.Compare(a.lo, b.lo)
		case a.bits != b.bits:
			return cmp.Compare(a.bits, b.bits)
		}
		return cmp.Compare(a.pos, b.pos)
	})
	var dup, first *ref // the earliest repetition, and the subnet's first use
	for i := 1; i < len(refs); i++ {
		if !same(&refs[i], &refs[i-1]) || i >= 2 && same(&refs[i], &refs[i-2]) {
			continue // not the second use of a subnet
		}
		if dup == nil || refs[i].pos < dup.pos {
			dup, first = &refs[i], &refs[i-1]
		}
	}
	if dup != nil {
		name := in.Nodes[dup.node].Name
		h := in.HostSubnets[name][dup.j]
		return errf("%s: node %q: hostSubnets: %w: %v is also node %q's", n, name, ErrConflict, h, in.Nodes[first.node].Name)
	}
	return nil
}

// defaultTransit is the transit subnets of a network that names none (a
// secondary Layer3 network): the defaults, moved off the network's subnets
// as netconf moves a primary network's (ipam.TransitSubnetAvoiding). A
// default it cannot move stays, and the overlap check refuses it.
func defaultTransit(n *udn.Network) []netip.Prefix {
	out := ipam.DefaultTransitSubnets()
	subnets := n.SubnetPrefixes()
	for i, t := range out {
		if p, err := ipam.TransitSubnetAvoiding(t.Addr().Is4(), subnets); err == nil {
			out[i] = p
		}
	}
	return out
}

// NodeFits reports whether network n's join and transit subnets hold the
// addresses the planners derive for node nd under profile p (the gateway
// router's join address of a primary network, the transit switch address
// of a Layer3 network, the transit-router peers of a primary Layer2 one).
// Its error wraps ipam.ErrExhausted; a network that fits every node plans.
func NodeFits(n *udn.Network, nd Node, p Profile) error {
	if n.IsPrimary() {
		for _, j := range n.JoinSubnets {
			if _, err := ipam.JoinGatewayRouterIP(j, nd.ID); err != nil {
				return fmt.Errorf("%s: node %q (id %d): joinSubnets %s: %w: no gateway router address for the node (%v)",
					n, nd.Name, nd.ID, j, ipam.ErrExhausted, err)
			}
		}
	}
	for _, t := range n.TransitSubnets {
		var err error
		switch {
		case n.Topology == udn.TopologyLayer3:
			_, err = ipam.TransitSwitchIP(t, nd.ID)
		case n.Topology == udn.TopologyLayer2 && n.IsPrimary():
			_, _, err = transitRouterPeers(p)(t, nd.ID)
		}
		if err != nil {
			return fmt.Errorf("%s: node %q (id %d): transitSubnets %s: %w: no transit address for the node (%v)",
				n, nd.Name, nd.ID, t, ipam.ErrExhausted, err)
		}
	}
	return nil
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
