// Package udn holds the normalised form of a user-defined network: its
// topology, role, subnets and the addressing defaults already applied, as
// every planner consumes it.
//
// It depends on the standard library only, so a planner (topology, connect,
// vrf, flows) can take a Network without linking the Kubernetes API
// machinery that package netconf needs to decode UDNs, CUDNs and NADs.
// netconf builds Networks (netconf.NetworkFromUDN, NetConf.Network) and
// re-exports these types under the same names.
//
// Values are plain data: a Network is safe to share for reading; Clone
// before changing one that others hold.
package udn
