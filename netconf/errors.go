package netconf

import "errors"

// Sentinel errors. Returned errors wrap them with %w and name the object
// and field at fault; branch with errors.Is.
var (
	// ErrInvalidSpec: a UserDefinedNetwork or ClusterUserDefinedNetwork
	// failed validation (or did not decode).
	ErrInvalidSpec = errors.New("netconf: invalid network spec")
	// ErrInvalidSubnet: a subnet or CIDR string did not parse or breaks a
	// subnet rule.
	ErrInvalidSubnet = errors.New("netconf: invalid subnet")
	// ErrInvalidNetConf: NetConf JSON is malformed or describes an invalid network.
	ErrInvalidNetConf = errors.New("netconf: invalid NetConf")
	// ErrNetworkIDRequired: rendering needs the network ID (a primary
	// CUDN whose VRF name is generated from it) and none was given.
	ErrNetworkIDRequired = errors.New("netconf: network ID required")
	// ErrNADBinding: a NAD speaks for a network it may not (another
	// namespace's UDN, a CUDN that does not own it).
	ErrNADBinding = errors.New("netconf: NAD not allowed to carry this network")
)
