package netconf

import "github.com/udnkit/udnkit/internal/sdkerr"

// Sentinel errors. Returned errors wrap them with %w and name the object
// and field at fault; branch with errors.Is.
var (
	// ErrInvalidSpec: a UserDefinedNetwork or ClusterUserDefinedNetwork
	// failed validation (or did not decode).
	ErrInvalidSpec = sdkerr.New(sdkerr.Invalid, "netconf: invalid network spec")
	// ErrInvalidSubnet: a subnet or CIDR string did not parse or breaks a
	// subnet rule.
	ErrInvalidSubnet = sdkerr.New(sdkerr.Invalid, "netconf: invalid subnet")
	// ErrInvalidNetConf: NetConf JSON is malformed or describes an invalid network.
	ErrInvalidNetConf = sdkerr.New(sdkerr.Invalid, "netconf: invalid NetConf")
	// ErrNetworkIDRequired: rendering needs the network ID (a primary
	// CUDN whose VRF name is generated from it) and none was given.
	ErrNetworkIDRequired = sdkerr.New(sdkerr.Invalid, "netconf: network ID required")
	// ErrNADBinding: a NAD speaks for a network it may not (another
	// namespace's UDN, a CUDN that does not own it).
	ErrNADBinding = sdkerr.New(sdkerr.Invalid, "netconf: NAD not allowed to carry this network")
	// ErrNotOVNManaged: the NetConf is another CNI plugin's (its type is
	// not ovn-k8s-cni-overlay). It also wraps ErrInvalidNetConf.
	ErrNotOVNManaged = sdkerr.New(sdkerr.Invalid, "netconf: net-attach-def not managed by OVN")
	// ErrDefaultNetworkNAD: the NetConf has no topology, so it is the
	// cluster default network's, not a user-defined network's. It also
	// wraps ErrInvalidNetConf.
	ErrDefaultNetworkNAD = sdkerr.New(sdkerr.Invalid, "netconf: NetConf of the default network")
	// ErrChainingNotSupported: a configuration list chains more than one
	// plugin. It also wraps ErrInvalidNetConf.
	ErrChainingNotSupported = sdkerr.New(sdkerr.NotSupported, "netconf: CNI plugin chaining is not supported")
)
