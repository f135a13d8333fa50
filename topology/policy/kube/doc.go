// Package kube reads Kubernetes objects for the network policy planner:
// a networking.k8s.io/v1 NetworkPolicy (PolicyFrom), a Namespace's labels,
// multicast switch and k8s.ovn.org/acl-logging (NamespaceFrom) and a Pod's
// labels, named container ports and, from its k8s.ovn.org/pod-networks
// annotation, its addresses and logical ports on the user-defined networks
// and, when its default network is infrastructure-locked, its
// default-network port and k8s.ovn.org/open-default-ports (PodFrom).
//
// It is the only part of the policy planning that links the Kubernetes API
// types; package policy takes plain values. Errors wrap ErrPolicy and name
// the object and field. The package is pure and safe for concurrent use.
package kube
