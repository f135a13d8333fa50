package controller

import (
	"encoding/json"
	"fmt"
	"net"
	"net/netip"

	corev1 "k8s.io/api/core/v1"

	"github.com/udnkit/udnkit/topology"
)

// The node annotations the controller reads a node's chassis, external
// addresses and next hops from, in the reference implementation's names
// and formats (its node controller writes them).
const (
	// AnnotationChassisID is the node's OVN chassis (system-id).
	AnnotationChassisID = "k8s.ovn.org/node-chassis-id"
	// AnnotationPrimaryIfAddr is the external interface's addresses:
	// {"ipv4":"172.18.0.2/16","ipv6":"fc00::2/64"}.
	AnnotationPrimaryIfAddr = "k8s.ovn.org/node-primary-ifaddr"
	// AnnotationGatewayConfig is the gateway configuration, of which the
	// controller reads the default network's next hops and MAC:
	// {"default":{"mac-address":"0a:58:...","next-hops":["172.18.0.1"]}}.
	AnnotationGatewayConfig = "k8s.ovn.org/l3-gateway-config"
)

// NodeFromObject reads a Kubernetes Node into the planners' node. A node
// without the annotations is returned without chassis, addresses or next
// hops: the Cluster holds it but plans it nowhere until they are set. A
// malformed annotation is an error naming the node and the annotation.
func NodeFromObject(n *corev1.Node) (topology.Node, error) {
	nd := topology.Node{Name: n.Name, Chassis: n.Annotations[AnnotationChassisID]}
	if v, ok := n.Annotations[AnnotationPrimaryIfAddr]; ok {
		var ifa struct {
			IPv4 string `json:"ipv4"`
			IPv6 string `json:"ipv6"`
		}
		if err := json.Unmarshal([]byte(v), &ifa); err != nil {
			return nd, fmt.Errorf("Node %s: annotation %s: %v", n.Name, AnnotationPrimaryIfAddr, err)
		}
		for _, s := range []string{ifa.IPv4, ifa.IPv6} {
			if s == "" {
				continue
			}
			p, err := netip.ParsePrefix(s)
			if err != nil {
				return nd, fmt.Errorf("Node %s: annotation %s: %q is not an interface address", n.Name, AnnotationPrimaryIfAddr, s)
			}
			nd.Addresses = append(nd.Addresses, p)
		}
	}
	if v, ok := n.Annotations[AnnotationGatewayConfig]; ok {
		var gw map[string]struct {
			MAC      string   `json:"mac-address"`
			NextHops []string `json:"next-hops"`
		}
		if err := json.Unmarshal([]byte(v), &gw); err != nil {
			return nd, fmt.Errorf("Node %s: annotation %s: %v", n.Name, AnnotationGatewayConfig, err)
		}
		def := gw["default"]
		for _, s := range def.NextHops {
			a, err := netip.ParseAddr(s)
			if err != nil {
				return nd, fmt.Errorf("Node %s: annotation %s: next hop %q is not an address", n.Name, AnnotationGatewayConfig, s)
			}
			nd.NextHops = append(nd.NextHops, a)
		}
		if def.MAC != "" {
			mac, err := net.ParseMAC(def.MAC)
			if err != nil {
				return nd, fmt.Errorf("Node %s: annotation %s: mac-address %q: %v", n.Name, AnnotationGatewayConfig, def.MAC, err)
			}
			nd.MAC = mac
		}
	}
	return nd, nil
}
