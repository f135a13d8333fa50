package topology

import "github.com/udnkit/udnkit/netconf/udn"

// Names of a network's rows that other planners attach to, as Plan writes
// them. network is the network's name (udn.Network.Name).

// LoadBalancerGroupNames returns the names of the network's three
// load-balancer groups: cluster (every node switch and gateway router
// holds it), switch (node switches) and router (gateway routers).
func LoadBalancerGroupNames(network string) (cluster, sw, router string) {
	p := udn.NetworkPrefix(network)
	return p + "clusterLBGroup", p + "clusterSwitchLBGroup", p + "clusterRouterLBGroup"
}

// GatewayRouterName returns the name of the network's gateway router on
// node.
func GatewayRouterName(network, node string) string { return "GR_" + udn.NetworkPrefix(network) + node }

// PodSwitchName returns the name of the switch the network's pods on node
// attach to: the node's switch for Layer3, the network's one switch for
// Layer2 and Localnet.
func PodSwitchName(n *udn.Network, node string) string {
	switch n.Topology {
	case udn.TopologyLayer2:
		return n.Prefix() + "ovn_layer2_switch"
	case udn.TopologyLocalnet:
		return n.Prefix() + "ovn_localnet_switch"
	}
	return n.Prefix() + node
}
