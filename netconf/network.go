package netconf

import "github.com/udnkit/udnkit/netconf/udn"

// The normalised network types live in package udn, which depends on the
// standard library only; these aliases keep netconf's names for callers that
// already import it.
type (
	// Topology is udn.Topology.
	Topology = udn.Topology
	// Role is udn.Role.
	Role = udn.Role
	// Subnet is udn.Subnet.
	Subnet = udn.Subnet
	// Network is udn.Network.
	Network = udn.Network
)

// Topologies and roles, as in package udn.
const (
	TopologyLayer2   = udn.TopologyLayer2
	TopologyLayer3   = udn.TopologyLayer3
	TopologyLocalnet = udn.TopologyLocalnet
	RolePrimary      = udn.RolePrimary
	RoleSecondary    = udn.RoleSecondary
)

// NetworkPrefix returns the OVN object-name prefix of the network called
// name (udn.NetworkPrefix).
func NetworkPrefix(name string) string { return udn.NetworkPrefix(name) }
