package controller

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/udnkit/udnkit/internal/manifest"
	"github.com/udnkit/udnkit/topology"
)

// The node annotations the controller reads a node's chassis, external
// addresses and next hops from, in the reference implementation's names
// and formats (its node controller writes them).
const (
	// AnnotationChassisID is the node's OVN chassis (system-id).
	AnnotationChassisID = manifest.AnnotationChassisID
	// AnnotationPrimaryIfAddr is the external interface's addresses:
	// {"ipv4":"172.18.0.2/16","ipv6":"fc00::2/64"}.
	AnnotationPrimaryIfAddr = manifest.AnnotationPrimaryIfAddr
	// AnnotationGatewayConfig is the gateway configuration, of which the
	// controller reads the default network's addresses, next hops and MAC:
	// {"default":{"mac-address":"0a:58:...","next-hops":["172.18.0.1"]}}.
	AnnotationGatewayConfig = manifest.AnnotationL3Gateway
)

// NodeFromObject reads a Kubernetes Node into the planners' node, as the
// udnkit command reads one (manifest.NodeOf: the gateway config's
// addresses before the primary interface's, one address and one next hop
// per family, a disabled gateway mode read as no gateway), so that the
// controller and the command plan a node alike. A node without the
// annotations is returned without chassis, addresses or next hops: the
// Cluster holds it but plans it nowhere until they are set. A malformed
// annotation is an error naming the node and the annotation.
func NodeFromObject(n *corev1.Node) (topology.Node, error) {
	return manifest.NodeOf(n)
}
