package policy

import (
	"strconv"

	"github.com/udnkit/udnkit/topology"
)

// The reference's owner types, the second field of a row's k8s.ovn.org/id,
// from which the port-group and address-set names are hashed.
const (
	ownerNetworkPolicy   = "NetworkPolicy"
	ownerNetpolNamespace = "NetpolNamespace"
	ownerCluster         = "Cluster"
	ownerPodSelector     = "PodSelector"
	clusterPortGroupBase = "clusterPortGroup"
	clusterRtrGroupBase  = "clusterRtrPortGroup"
	ownerNamespace       = "Namespace"
)

// ClusterRouterPortGroupName returns the name of the network's port group
// of the switches' router ports (multicast between nodes).
func ClusterRouterPortGroupName(network string) string {
	return hashName(ReferenceController(network) + ":" + ownerCluster + ":" + clusterRtrGroupBase)
}

// NamespacePortGroupName returns the name of a namespace's port group on
// network (every local pod of the namespace; multicast).
func NamespacePortGroupName(network, namespace string) string {
	return hashName(ReferenceController(network) + ":" + ownerNamespace + ":" + namespace)
}

// multicastKey is the key of a namespace's multicast address set (its
// pods, no host-network ones).
func multicastKey(namespace string) string { return namespace + "_LS{}_LNM" }

// ReferenceController returns the reference's controller of a user-defined
// network, "<network>-network-controller", the first field of the ids the
// names hash.
func ReferenceController(network string) string { return network + "-network-controller" }

// hashName is the reference's HashForOVN: "a" and the decimal FNV-1a 64-bit
// hash of id.
func hashName(id string) string { return topology.HashName(id) }

// PortGroupName returns the name of the port group of the pods a policy
// selects on network.
func PortGroupName(network, namespace, name string) string {
	return hashName(ReferenceController(network) + ":" + ownerNetworkPolicy + ":" + namespace + ":" + name)
}

// DenyPortGroupName returns the name of a namespace's default-deny port
// group of one direction on network.
func DenyPortGroupName(network, namespace string, dir PolicyType) string {
	return hashName(ReferenceController(network) + ":" + ownerNetpolNamespace + ":" + namespace + ":" + dir.String())
}

// ClusterPortGroupName returns the name of the network's cluster port group
// (every local pod and management port).
func ClusterPortGroupName(network string) string {
	return hashName(ReferenceController(network) + ":" + ownerCluster + ":" + clusterPortGroupBase)
}

// AddressSetName returns the name of a peer selector's address set of one
// family (ipv6 false: IPv4) on network; key is the selector's key (peerKey).
func AddressSetName(network, key string, ipv6 bool) string {
	fam := "v4"
	if ipv6 {
		fam = "v6"
	}
	return hashName(ReferenceController(network) + ":" + ownerPodSelector + ":" + key + ":" + fam)
}

// maxACLName is the length at which the reference cuts ACL names.
const maxACLName = 63

func cut(s string) string {
	if len(s) > maxACLName {
		return s[:maxACLName]
	}
	return s
}

// ruleACLName is "NP:<ns>:<name>:<dir>:<rule index>", cut at 63 bytes.
func ruleACLName(namespace, name string, dir PolicyType, idx int) string {
	return cut("NP:" + namespace + ":" + name + ":" + dir.String() + ":" + strconv.Itoa(idx))
}

// denyACLName is "NP:<ns>:<dir>", cut at 63 bytes.
func denyACLName(namespace string, dir PolicyType) string {
	return cut("NP:" + namespace + ":" + dir.String())
}
