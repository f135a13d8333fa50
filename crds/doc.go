// Package crds holds the CustomResourceDefinitions of udnkit's own types,
// generated from the Go types by controller-gen (sigs.k8s.io/controller-tools,
// pinned below) from the kubebuilder markers in packages netconf
// (UserDefinedNetwork, ClusterUserDefinedNetwork), connect
// (ClusterNetworkConnect), topology/egressip/kube (EgressIP),
// topology/egressqos/kube (EgressQoS) and netconf/podnetwork (PodNetwork,
// PodNetworkAttachment, seed 003; in two runs, since package netconf has a
// PodNetwork type of its own that controller-gen would merge):
//
//	go generate ./crds
//
// TestCRDsCurrent fails when the YAML here is not what the types generate.
// All returns the CRDs decoded; Install creates them on an API server (with
// NAD, a NetworkAttachmentDefinition CRD for clusters without Multus).
//
// The CEL rules repeat the checks of netconf.ValidateUDN, ValidateCUDN,
// connect.Validate and podnetwork's Validate* (updates included) that need
// no parsing of addresses, with the same
// messages, so that the API server refuses what the SDK refuses (the seeds'
// rules, the reference's where the seeds are silent). Two rules read the
// subnets' strings: at most one subnet per IP family (a ':' tells the
// family), and a Layer3 network's subnets of one family share their
// hostSubnet (the third '/' part, written in both or in neither: the
// reference CRD's rule and message). The SDK checks more (subnet syntax
// and overlaps, the other per-family rules): an object the CRD admits
// but the SDK refuses gets a status condition naming the field. Departures:
// the ClusterNetworkConnect CRD has the seed's spellings only
// (connectivityEnabled, ClusterIPServiceNetwork) while connect.Decode also
// reads the reference's (connectivity, ServiceNetwork); a CUDN template in
// the inline form that netconf decodes is pruned by the API server: write
// template.spec. PodNetwork and PodNetworkAttachment, core objects in the
// KEP, are served as k8s.ovn.org/v1. The EgressIP CRD has a status
// subresource (the reference's has none and writes status.items with the
// object) so that the controller's status writes cannot change a spec; its
// CEL rules repeat egressip/kube.EgressIPFrom's per-address checks (an IP
// address, unicast, no duplicate string), and the EgressQoS CRD's those of
// egressqos/kube.EgressQoSFrom (dscp in 0..63, a dstCIDR without host
// bits; the reference has a minimum, maximum and format "cidr" instead).
// An EgressQoS not named "default" is admitted: the SDK ignores it, as the
// reference does.
package crds

//go:generate go run sigs.k8s.io/controller-tools/cmd/controller-gen@v0.23.0 crd:crdVersions=v1 paths=github.com/udnkit/udnkit/netconf paths=github.com/udnkit/udnkit/connect paths=github.com/udnkit/udnkit/topology/egressip/kube paths=github.com/udnkit/udnkit/topology/egressqos/kube output:crd:dir=.
//go:generate go run sigs.k8s.io/controller-tools/cmd/controller-gen@v0.23.0 crd:crdVersions=v1 paths=github.com/udnkit/udnkit/netconf/podnetwork output:crd:dir=.
