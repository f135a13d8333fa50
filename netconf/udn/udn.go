package udn

import (
	"github.com/udnkit/udnkit/internal/names"

	"fmt"
	"net/netip"
	"slices"
	"strconv"
	"strings"
)

// MaxMTU is the largest network MTU (the CRDs' bound).
const MaxMTU = 65536

// Topology is the OVN topology of a network, as spelled in the UDN/CUDN API.
type Topology string

// Topologies a user-defined network can have.
const (
	TopologyLayer2   Topology = "Layer2"
	TopologyLayer3   Topology = "Layer3"
	TopologyLocalnet Topology = "Localnet"
)

// String returns the API spelling ("Layer3").
func (t Topology) String() string { return string(t) }

// NetConfValue returns the lowercase spelling NetConf JSON uses ("layer3").
func (t Topology) NetConfValue() string { return strings.ToLower(string(t)) }

// Valid reports whether t is one of the defined topologies.
func (t Topology) Valid() bool {
	return t == TopologyLayer2 || t == TopologyLayer3 || t == TopologyLocalnet
}

// Role is the role a network plays in a pod.
type Role string

// Roles a user-defined network can have.
const (
	RolePrimary   Role = "Primary"
	RoleSecondary Role = "Secondary"
)

// String returns the API spelling ("Primary").
func (r Role) String() string { return string(r) }

// NetConfValue returns the lowercase spelling NetConf JSON uses ("primary").
func (r Role) NetConfValue() string { return strings.ToLower(string(r)) }

// Valid reports whether r is one of the defined roles.
func (r Role) Valid() bool { return r == RolePrimary || r == RoleSecondary }

// Subnet is a pod subnet of a network. For Layer3 networks HostPrefix is the
// prefix length of the per-node subnet carved out of CIDR; for Layer2 and
// Localnet it is zero.
type Subnet struct {
	CIDR       netip.Prefix
	HostPrefix int
}

// String returns the NetConf spelling: "10.128.0.0/16/24" for a Layer3
// subnet with a host prefix, plain CIDR notation otherwise.
func (s Subnet) String() string {
	if s.HostPrefix == 0 {
		return s.CIDR.String()
	}
	return s.CIDR.String() + "/" + strconv.Itoa(s.HostPrefix)
}

// Network is the normalised form of one user-defined network: validated,
// defaults applied, addresses parsed. It is what every planner consumes.
//
// The zero value is not a usable network; obtain one from a UDN or CUDN
// (netconf.NetworkFromUDN, netconf.NetworkFromCUDN) or from NetConf JSON
// (netconf.NetConf.Network).
type Network struct {
	// Name is the generated OVN network name: "<namespace>_<name>" for a
	// UDN, "cluster_udn_<name>" for a CUDN. It is the NetConf "name".
	Name string
	// ID is the network ID allocated by ipam (1..4095); 0 means not yet
	// allocated. The default network has ID 0 and is never a Network here.
	ID       int
	Topology Topology
	Role     Role
	// MTU is the network MTU; 0 means the cluster default, at most MaxMTU.
	MTU            int
	Subnets        []Subnet
	ExcludeSubnets []netip.Prefix
	// JoinSubnets are set for primary networks only (defaults applied).
	JoinSubnets []netip.Prefix
	// TransitSubnets are set for primary networks only (defaults applied,
	// moved off the default when they overlap Subnets).
	TransitSubnets []netip.Prefix
	// VRF is the host VRF device name (CUDN primary networks; empty otherwise).
	VRF           string
	PersistentIPs bool
	// IPAMDisabled is true when ipam.mode is Disabled (no subnets).
	IPAMDisabled bool
	// PhysicalNetworkName and VLANID describe a Localnet network's underlay.
	PhysicalNetworkName string
	VLANID              int
	// NADs are the "<namespace>/<name>" keys of the NADs that carry this
	// network, sorted.
	NADs []string
}

// Prefix returns the prefix that starts every OVN object name of the
// network: the network name with '-' and '/' replaced by '.', then '_'.
func (n *Network) Prefix() string { return NetworkPrefix(n.Name) }

// NetworkPrefix returns the OVN object-name prefix of the network called name.
func NetworkPrefix(name string) string {
	b := make([]byte, len(name)+1)
	for i := range len(name) {
		c := name[i]
		if c == '-' || c == '/' {
			c = '.'
		}
		b[i] = c
	}
	b[len(name)] = '_'
	return string(b)
}

// IsPrimary reports whether the network is a pod's primary network.
func (n *Network) IsPrimary() bool { return n.Role == RolePrimary }

// Clone returns a deep copy of n.
func (n *Network) Clone() *Network {
	if n == nil {
		return nil
	}
	c := *n
	c.Subnets = slices.Clone(n.Subnets)
	c.ExcludeSubnets = slices.Clone(n.ExcludeSubnets)
	c.JoinSubnets = slices.Clone(n.JoinSubnets)
	c.TransitSubnets = slices.Clone(n.TransitSubnets)
	c.NADs = slices.Clone(n.NADs)
	return &c
}

// Equal reports whether n and o describe the same network.
func (n *Network) Equal(o *Network) bool {
	if n == nil || o == nil {
		return n == o
	}
	return n.Name == o.Name && n.ID == o.ID && n.Topology == o.Topology && n.Role == o.Role &&
		n.MTU == o.MTU && slices.Equal(n.Subnets, o.Subnets) &&
		slices.Equal(n.ExcludeSubnets, o.ExcludeSubnets) && slices.Equal(n.JoinSubnets, o.JoinSubnets) &&
		slices.Equal(n.TransitSubnets, o.TransitSubnets) && n.VRF == o.VRF &&
		n.PersistentIPs == o.PersistentIPs && n.IPAMDisabled == o.IPAMDisabled &&
		n.PhysicalNetworkName == o.PhysicalNetworkName && n.VLANID == o.VLANID && slices.Equal(n.NADs, o.NADs)
}

// SubnetPrefixes returns the CIDRs of n.Subnets, in order.
func (n *Network) SubnetPrefixes() []netip.Prefix {
	out := make([]netip.Prefix, len(n.Subnets))
	for i, s := range n.Subnets {
		out[i] = s.CIDR
	}
	return out
}

// Families returns the address families of n's subnets, IPv4 (true)
// first: [true], [false], [true false] or none.
func (n *Network) Families() []bool {
	var v4, v6 bool
	for _, s := range n.Subnets {
		if s.CIDR.Addr().Is4() {
			v4 = true
		} else {
			v6 = true
		}
	}
	var out []bool
	if v4 {
		out = append(out, true)
	}
	if v6 {
		out = append(out, false)
	}
	return out
}

// String returns a short description for logs and errors.
func (n *Network) String() string {
	role, topo := string(n.Role), string(n.Topology)
	if !n.Role.Valid() {
		role = names.Quote(role)
	}
	if !n.Topology.Valid() {
		topo = names.Quote(topo)
	}
	return fmt.Sprintf("network %s (%s %s, id %d)", names.Quote(n.Name), role, topo, n.ID)
}

// Profile selects whose wire format a planner or renderer writes where the seeds and the
// reference implementation (OVN-Kubernetes) part ways.
type Profile uint8

// Profiles.
const (
	// ProfileSeeds plans the seeds' design, with DESIGN's decisions where the
	// seeds are silent (the default).
	ProfileSeeds Profile = iota
	// ProfileReference plans exactly what the reference implementation writes,
	// for a controller running beside or after it.
	ProfileReference
)

// String returns "seeds" or "reference".
func (p Profile) String() string {
	switch p {
	case ProfileSeeds:
		return "seeds"
	case ProfileReference:
		return "reference"
	}
	return "profile(" + strconv.Itoa(int(p)) + ")"
}
