// Package podnetwork implements the API of KEP-3698 (Multi-Network):
// PodNetwork, PodNetworkAttachment and the pod's networks, with their
// defaulting, validation, status conditions and lifecycle, and resolves a
// pod's networks to the NetworkAttachmentDefinitions OVN-Kubernetes
// attaches.
//
// # Flow
//
//	YAML/JSON ──Decode*──► PodNetwork, PodNetworkAttachment, PodNetworks (a pod's view)
//	PodNetwork ──SetPodNetworkDefaults──► enabled: true
//	PodNetworks ──SetPodDefaults──► networks: [{podNetworkName: default}]
//	Validate* / Validate*Update (static, API server) ──► field.ErrorList
//	ValidatePodActive(pod, Lookup) (scheduler)      ──► field.ErrorList
//	PodNetworkConditions / PodNetworkAttachmentConditions ──► Ready, ParamsReady
//	PodNetworkUsers / PodNetworkAttachmentUsers ──► Users ──► *Phase, Finalize
//	Resolve(pod, Lookup) ──► []Attachment{..., NADs} ──NADKeys──► keys of netconf.PodNetworks
//	PodIPs(attachments, netconf.PodNetworks) ──► status.podIPs
//
// # Contract
//
// Every function is pure: no I/O, no clock (condition timestamps are the
// caller's), no package state; equal inputs give equal outputs. Inputs are
// not changed (the Set*Defaults functions excepted) and results share no
// memory with them. Users and NAD keys are sorted, attachments in
// spec.networks order; field errors come in a fixed order (by network, then
// by rule). All functions are safe for concurrent use.
//
// corev1.Pod has no networks field, so a pod is a PodNetworks value the
// caller fills (PodNetworksOf copies what corev1.Pod has), or DecodePod
// reads from a pod manifest carrying the KEP's fields. It marshals in the
// shape of a pod. It is not netconf.PodNetworks (the k8s.ovn.org/pod-networks
// annotation), which Resolve's NAD keys index.
//
// # Rules
//
// Static pod checks (ValidatePod): exactly one of podNetworkName and
// podNetworkAttachmentName; a PodNetwork, and a PodNetworkAttachment, at
// most once per pod; at most one isDefaultGW4 and one isDefaultGW6;
// interface names unique and valid Linux names — 1..15 bytes (IFNAMSIZ-1),
// not "." or "..", printable ASCII without '/', ':' or blanks (the
// kernel's dev_valid_name, ASCII only); networks forbidden with
// hostNetwork and required without it (after defaulting); status.podIPs
// valid addresses, one per family per PodNetwork. Objects: names are
// DNS-1123 subdomains; provider is 1..253 bytes without blanks;
// parametersRefs need group, kind and name (at most 253 bytes each), once
// each, at most 16 of them (bounds the KEP does not set: the CRD needs them
// to price its CEL rules); at most 5 conditions, one per type. Updates: only a PodNetwork's spec.enabled may
// change; a PodNetworkAttachment's spec never.
//
// Active checks (ValidatePodActive): the objects named exist (a
// PodNetworkAttachment in the pod's namespace) and are Ready, and a
// PodNetworkAttachment's PodNetwork is not attached by another network of
// the pod.
//
// Conditions: a PodNetwork is Ready=False AdministrativelyDisabled when
// disabled (before anything else), ParamsNotReady when parametersRefs is
// set and ParamsReady is not True; a PodNetworkAttachment ParamsNotReady,
// then PodNetworkNotReady (its PodNetwork missing or not Ready). ParamsReady
// is the implementation's: written from ConditionsInput.Params when given,
// else read. Phases: Disabled, else Created (no Ready), NotReady, Ready,
// InUse (Ready and used). Users exclude Succeeded and Failed pods.
//
// OVN-Kubernetes: a PodNetwork maps onto NADs through parametersRefs of
// group k8s.cni.cncf.io and kind network-attachment-definitions (or
// NetworkAttachmentDefinition); a PodNetworkAttachment's own NAD
// references, when it has some, replace its PodNetwork's. See Resolve.
//
// # Where the seed is inconsistent
//
//   - Its pod example writes podNetwork: and primary: true in
//     spec.networks; its Go struct tags are podNetworkName and
//     isDefaultGW4/isDefaultGW6. udnkit follows the struct tags, and
//     DecodePod refuses the unknown fields. Read as the tags, the example's
//     primary: true is isDefaultGW4 and isDefaultGW6.
//   - PodIP's interfaceName tag is malformed (`json:"interfaceName",omitempty`);
//     udnkit uses `json:"interfaceName,omitempty"`. Its podNetwork tag is
//     kept (the field is PodNetworkName).
//   - Its pod status example names a PodNetworkAttachment
//     (my-interface-fast) in podIPs[].podNetwork, documented as the
//     PodNetwork's name; PodIPs writes the PodNetwork's name.
//   - spec.enabled is `bool` with omitempty and default true: false would
//     be dropped on marshal and defaulted back to true. udnkit uses *bool.
//   - Its YAML conditions carry lastProbeTime (a PodCondition field) and no
//     reason, but the type is metav1.Condition: decoding refuses
//     lastProbeTime. Ready=True has no reason in the KEP; udnkit writes "Ready".
//   - "PodNetwork shall not define implementation-specific parameters",
//     yet it has parametersRefs; udnkit follows the API.
//   - Its NAD references (parametersA, complementaryParametersB) are not
//     valid object names; static validation only requires them, Resolve
//     refuses them as NAD names.
//   - Its examples write apiVersion v1 for objects the KEP calls core;
//     udnkit fills in "v1" and does not check the apiVersion. A
//     CustomResourceDefinition cannot be core: the CRDs generated from the
//     kubebuilder markers here (package crds) serve the kinds as
//     k8s.ovn.org/v1, with the static rules above as schema bounds and CEL
//     (update rules included), and parametersRefs as a list map (keyed by
//     group, kind, name and namespace, which defaults to "").
//
// # Where the seed is silent
//
// The finalizer's name (Finalizer), Ready=True's reason, which Ready reason
// wins when several apply (above), the phase of an object used but not
// Ready (NotReady: the phase tells readiness, Users tell use; deletion is
// blocked whenever in use), a reference's missing namespace (the pod's),
// and how many conditions to keep past 5 (Ready and ParamsReady first, then
// by type).
//
// # Not done
//
// Windows interface-name rules; interpreting provider; the default
// PodNetwork's re-creation and the kubelet's readiness check (API server
// and kubelet work); IPAM; the node's overrideDefaultPodNetwork migration
// (a later phase of the KEP); writing Multus network-selection elements.
package podnetwork
