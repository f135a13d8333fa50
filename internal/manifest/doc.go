// Package manifest reads the objects `kubectl get -o yaml` (or -o json)
// prints and turns them into a udnkit.Cluster, the way a restarting
// controller would: it is what cmd/udnkit reads its input with.
//
//	YAML/JSON stream ──Read/ReadPaths──► []Object ──Decode──► *Set ──Validate──► []Invalid (kubectl's wording)
//	                                                            └──Load──► *Loaded{Cluster, Allocated, Notes}
//
// Read takes a List (any kind ending in "List" with items, nested too) or
// "---" documents, YAML or JSON; every Object remembers where it was read
// ("FILE: document 2, items[5]") and every error says so. Decode uses the
// SDK's own strict decoders for UserDefinedNetwork, ClusterUserDefinedNetwork,
// ClusterNetworkConnect, PodNetwork and PodNetworkAttachment, and reads
// Nodes, Namespaces, NetworkAttachmentDefinitions, Pods, Services,
// EndpointSlices and NetworkPolicies as Kubernetes does, and k8s.ovn.org/v1
// EgressIP and EgressQoS with their adapters' strict decoders
// (topology/egressip/kube, topology/egressqos/kube); other kinds are
// counted and left alone.
//
// Validate reports what the API server and the controllers would refuse,
// as `kubectl apply` prints it: `UserDefinedNetwork.k8s.ovn.org "x" is
// invalid: spec.subnets[0]: Invalid value: ...` (an apierrors.StatusError
// built from the validator's field.ErrorList). A NAD's NetConf and a Node's
// annotations are reported under spec.config and
// metadata.annotations[KEY]; an EgressIP's or EgressQoS's at the fields its
// adapter names, and an EgressIP whose k8s.ovn.org/egressip-mark an
// earlier one (by name) holds at that annotation (Restore would refuse
// it).
//
// Load restores the Cluster from what the objects store, in the reference
// implementation's annotations (udnkit.Cluster.Restore): node IDs and host
// subnets on Nodes, network IDs, names and Layer2 tunnel keys on NADs,
// connect subnets and tunnel keys on ClusterNetworkConnects. A Node's
// chassis, external addresses, next hops and MAC come from
// k8s.ovn.org/node-chassis-id and k8s.ovn.org/l3-gateway-config (its
// "default" entry; k8s.ovn.org/node-primary-ifaddr for the addresses when
// it has none), which ovnkube-node writes; a node lacking them is held but
// planned nowhere (Loaded.Notes says why). Pods are attached
// (udnkit.Cluster.SetPod; a pod's k8s.ovn.org/pod-networks restores its
// addresses), host-networked and unscheduled ones skipped; NetworkPolicies
// are set after them (topology/policy/kube reads them; Validate reports
// what it or policy.Validate refuses under spec); egress nodes are those
// labelled k8s.ovn.org/egress-assignable, EgressIPs are set with the marks
// Restore read from their k8s.ovn.org/egressip-mark (Loaded.Notes lists
// the egress IPs no node takes), each namespace's EgressQoS named
// "default" is set (another name is noted and ignored, as the reference
// does); a Service is
// planned with the EndpointSlices the reference's mirror controller wrote
// onto user-defined networks (the default network's own slices hold other
// addresses), without endpoints when there are none. What nothing stores is allocated
// and listed in Loaded.Allocated as "<Kind> <key>: <annotation>=<value>".
// Annotate writes those allocations back into the stream (rendering the
// NADs of UDNs and CUDNs that it lacks; an EgressIP's status.items become
// the Cluster's assignment): loading its result allocates
// nothing and plans byte for byte the same.
//
// The UDN and CUDN decoders take the seeds' flat spec (spec.topology,
// spec.subnets, ...) and the reference CRD's (spec.layer2, spec.layer3,
// spec.localnet sub-objects; a CUDN's spec.network), normalised alike
// (netconf's "Decoding"): a real OVN-Kubernetes dump loads, and Validate
// names the CRD form's fields for an object written in it.
//
// Departures: document numbers in sources count non-empty documents only.
//
// Everything but ReadPaths (which reads files) is pure; a Set is not safe
// for concurrent mutation.
package manifest
