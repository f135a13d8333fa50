package podnetwork

import (
	"bytes"
	"encoding/json"

	"github.com/udnkit/udnkit/internal/sdkerr"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/udnkit/udnkit/internal/names"
)

// APIVersion and kinds of the KEP's objects. The KEP makes them core
// objects, and its examples write apiVersion v1.
const (
	APIVersion               = "v1"
	KindPodNetwork           = "PodNetwork"
	KindPodNetworkAttachment = "PodNetworkAttachment"
	KindPod                  = "Pod"
)

// DefaultPodNetworkName is the cluster default PodNetwork: the one a pod
// without networks is attached to.
const DefaultPodNetworkName = "default"

// ErrDecode is wrapped by every Decode error.
var ErrDecode = sdkerr.New(sdkerr.Invalid, "podnetwork: decode")

// ParametersRef points to an object holding implementation-specific
// parameters (for OVN-Kubernetes, a NetworkAttachmentDefinition).
type ParametersRef struct {
	// Group is the API group, e.g. k8s.cni.cncf.io.
	//
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:XValidation:rule="self != ''",message="parametersRefs need group, kind and name"
	// +kubebuilder:validation:XValidation:rule="!self.matches('[[:cntrl:] ]')",message="must not contain blanks or control characters (a URL-like name such as foo.io/bar)"
	Group string `json:"group"`
	// Kind is the resource, e.g. network-attachment-definitions.
	//
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:XValidation:rule="self != ''",message="parametersRefs need group, kind and name"
	// +kubebuilder:validation:XValidation:rule="!self.matches('[[:cntrl:] ]')",message="must not contain blanks or control characters (a URL-like name such as foo.io/bar)"
	Kind string `json:"kind"`
	// Name is the object's name.
	//
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:XValidation:rule="self != ''",message="parametersRefs need group, kind and name"
	// +kubebuilder:validation:XValidation:rule="!self.matches('[[:cntrl:] ]')",message="must not contain blanks or control characters (a URL-like name such as foo.io/bar)"
	Name string `json:"name"`
	// Namespace of the object; empty means the pod's namespace.
	//
	// +optional
	// +kubebuilder:default=""
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:XValidation:rule="self == '' || self.matches('^[a-z0-9]([-a-z0-9]*[a-z0-9])?$')",message="a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character"
	Namespace string `json:"namespace,omitempty"`
}

// PodNetworkSpec is the desired state of a PodNetwork. Only Enabled may
// change after creation.
//
// +kubebuilder:validation:XValidation:rule="has(self.provider) == has(oldSelf.provider) && (!has(self.provider) || self.provider == oldSelf.provider)",message="immutable: only spec.enabled of a PodNetwork may change",fieldPath=".provider"
// +kubebuilder:validation:XValidation:rule="has(self.parametersRefs) == has(oldSelf.parametersRefs) && (!has(self.parametersRefs) || self.parametersRefs == oldSelf.parametersRefs)",message="immutable: only spec.enabled of a PodNetwork may change",fieldPath=".parametersRefs"
type PodNetworkSpec struct {
	// Enabled administratively enables the network; nil means true (see
	// Default). The KEP declares a bool with omitempty, which cannot say
	// false once marshalled; a pointer can.
	//
	// +optional
	// +kubebuilder:default=true
	Enabled *bool `json:"enabled,omitempty"`
	// ParametersRefs point to implementation-specific parameters, each
	// once.
	//
	// +optional
	// +listType=map
	// +listMapKey=group
	// +listMapKey=kind
	// +listMapKey=name
	// +listMapKey=namespace
	// +kubebuilder:validation:MaxItems=16
	ParametersRefs []ParametersRef `json:"parametersRefs,omitempty"`
	// Provider names the implementation handling the network (1..253
	// characters, URL-like, e.g. "k8s.cni.cncf.io/multus"); not interpreted.
	//
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:XValidation:rule="!self.matches('[[:cntrl:] ]')",message="must not contain blanks or control characters (a URL-like name such as foo.io/bar)"
	Provider string `json:"provider,omitempty"`
}

// IsEnabled reports Enabled with its default applied.
func (s *PodNetworkSpec) IsEnabled() bool { return s.Enabled == nil || *s.Enabled }

// PodNetworkStatus is the observed state of a PodNetwork.
type PodNetworkStatus struct {
	// Conditions: Ready and ParamsReady, at most MaxConditions, one per
	// type.
	//
	// +optional
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=5
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// PodNetwork is a cluster-scoped logical network pods attach to.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:path=podnetworks,scope=Cluster
// +kubebuilder:subresource:status
type PodNetwork struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	// +required
	Spec PodNetworkSpec `json:"spec"`
	// +optional
	Status PodNetworkStatus `json:"status,omitempty"`
}

// PodNetworkAttachmentSpec is the (immutable) desired state of a
// PodNetworkAttachment.
type PodNetworkAttachmentSpec struct {
	// PodNetworkName is the PodNetwork this attachment connects to (required).
	//
	// +required
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:XValidation:rule="self != ''",message="the PodNetwork to attach to is required"
	// +kubebuilder:validation:XValidation:rule="self == '' || self.matches('^[a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*$')",message="a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character"
	PodNetworkName string `json:"podNetworkName"`
	// ParametersRefs point to implementation-specific parameters, each
	// once; a NAD reference here replaces the PodNetwork's.
	//
	// +optional
	// +listType=map
	// +listMapKey=group
	// +listMapKey=kind
	// +listMapKey=name
	// +listMapKey=namespace
	// +kubebuilder:validation:MaxItems=16
	ParametersRefs []ParametersRef `json:"parametersRefs,omitempty"`
}

// PodNetworkAttachmentStatus is the observed state of a PodNetworkAttachment.
type PodNetworkAttachmentStatus struct {
	// Conditions: Ready and ParamsReady, at most MaxConditions, one per
	// type.
	//
	// +optional
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=5
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// PodNetworkAttachment is a namespaced, per-pod parameterisation of a
// PodNetwork.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:path=podnetworkattachments,scope=Namespaced
// +kubebuilder:subresource:status
type PodNetworkAttachment struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="a PodNetworkAttachment is immutable; delete and recreate it"
	// +optional
	Spec PodNetworkAttachmentSpec `json:"spec,omitempty"`
	// +optional
	Status PodNetworkAttachmentStatus `json:"status,omitempty"`
}

// Network is one element of the KEP's pod spec.networks: exactly one of
// PodNetworkName and PodNetworkAttachmentName is set.
type Network struct {
	PodNetworkName           string `json:"podNetworkName,omitempty"`
	PodNetworkAttachmentName string `json:"podNetworkAttachmentName,omitempty"`
	// InterfaceName is the interface inside the pod, e.g. net1; optional.
	InterfaceName string `json:"interfaceName,omitempty"`
	// IsDefaultGW4 and IsDefaultGW6: this network holds the pod's IPv4
	// (IPv6) default gateway; one network at most for each.
	IsDefaultGW4 bool `json:"isDefaultGW4,omitempty"`
	IsDefaultGW6 bool `json:"isDefaultGW6,omitempty"`
}

// PodIP is the KEP's extended pod status.podIPs element.
type PodIP struct {
	IP string `json:"ip,omitempty"`
	// PodNetworkName is the PodNetwork the address belongs to.
	PodNetworkName string `json:"podNetwork"`
	InterfaceName  string `json:"interfaceName,omitempty"`
}

// PodNetworks is the KEP's view of a pod: what corev1.Pod cannot carry
// (spec.networks, the extended status.podIPs) plus the pod fields the rules
// read. The caller extracts it (PodNetworksOf, DecodePod).
//
// It marshals in the shape of a pod: metadata.{namespace,name},
// spec.{hostNetwork,networks}, status.{phase,podIPs}.
type PodNetworks struct {
	Namespace   string
	Name        string
	HostNetwork bool
	// Phase decides whether the pod counts as a user (Succeeded and Failed
	// pods do not).
	Phase    corev1.PodPhase
	Networks []Network
	PodIPs   []PodIP
}

// PodNetworksOf takes the pod's namespace, name, hostNetwork and phase, and
// its status.podIPs addresses (without network names); the caller adds
// Networks.
func PodNetworksOf(pod *corev1.Pod) PodNetworks {
	p := PodNetworks{
		Namespace: pod.Namespace, Name: pod.Name,
		HostNetwork: pod.Spec.HostNetwork, Phase: pod.Status.Phase,
	}
	for _, ip := range pod.Status.PodIPs {
		p.PodIPs = append(p.PodIPs, PodIP{IP: ip.IP})
	}
	return p
}

// Key returns "<namespace>/<name>".
func (p *PodNetworks) Key() string { return p.Namespace + "/" + p.Name }

// podShape is PodNetworks on the wire.
type podShape struct {
	Kind       string          `json:"kind,omitempty"`
	APIVersion string          `json:"apiVersion,omitempty"`
	Metadata   podMeta         `json:"metadata"`
	Spec       podSpecShape    `json:"spec"`
	Status     *podStatusShape `json:"status,omitempty"`
}

type podMeta struct {
	Name      string `json:"name,omitempty"`
	Namespace string `json:"namespace,omitempty"`
}

type podSpecShape struct {
	HostNetwork bool      `json:"hostNetwork,omitempty"`
	Networks    []Network `json:"networks,omitempty"`
}

type podStatusShape struct {
	Phase  corev1.PodPhase `json:"phase,omitempty"`
	PodIPs []PodIP         `json:"podIPs,omitempty"`
}

// MarshalJSON writes the pod shape.
func (p PodNetworks) MarshalJSON() ([]byte, error) {
	s := podShape{
		Kind: KindPod, APIVersion: APIVersion,
		Metadata: podMeta{Name: p.Name, Namespace: p.Namespace},
		Spec:     podSpecShape{HostNetwork: p.HostNetwork, Networks: p.Networks},
	}
	if p.Phase != "" || len(p.PodIPs) > 0 {
		s.Status = &podStatusShape{Phase: p.Phase, PodIPs: p.PodIPs}
	}
	return json.Marshal(s)
}

// UnmarshalJSON reads a pod: every pod field but the ones above is
// ignored, but an unknown field inside a spec.networks or status.podIPs
// element is an error (a misspelt network field would otherwise attach the
// pod to the wrong network).
func (p *PodNetworks) UnmarshalJSON(data []byte) error {
	var loose struct {
		Kind     string  `json:"kind"`
		Metadata podMeta `json:"metadata"`
		Spec     struct {
			HostNetwork bool            `json:"hostNetwork"`
			Networks    json.RawMessage `json:"networks"`
		} `json:"spec"`
		Status struct {
			Phase  corev1.PodPhase `json:"phase"`
			PodIPs json.RawMessage `json:"podIPs"`
		} `json:"status"`
	}
	if err := json.Unmarshal(data, &loose); err != nil {
		return sdkerr.Errorf(sdkerr.Invalid, "%w", err)
	}
	if loose.Kind != "" && loose.Kind != KindPod {
		return sdkerr.With(sdkerr.Invalid, names.Errorf("kind %q, want %s", loose.Kind, KindPod))
	}
	out := PodNetworks{
		Namespace: loose.Metadata.Namespace, Name: loose.Metadata.Name,
		HostNetwork: loose.Spec.HostNetwork, Phase: loose.Status.Phase,
	}
	if err := strictJSON(loose.Spec.Networks, &out.Networks); err != nil {
		return sdkerr.With(sdkerr.Invalid, names.Errorf("spec.networks: %w", err))
	}
	if err := strictJSON(loose.Status.PodIPs, &out.PodIPs); err != nil {
		return sdkerr.With(sdkerr.Invalid, names.Errorf("status.podIPs: %w", err))
	}
	*p = out
	return nil
}

func strictJSON(raw json.RawMessage, v any) error {
	if len(raw) == 0 || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

// DecodePodNetwork decodes a PodNetwork from YAML or JSON. Unknown fields
// are an error; a missing kind and apiVersion are filled in, another kind
// is an error.
func DecodePodNetwork(data []byte) (*PodNetwork, error) {
	var pn PodNetwork
	if err := yaml.UnmarshalStrict(data, &pn); err != nil {
		return nil, names.Errorf("%w %s: %w", ErrDecode, KindPodNetwork, err)
	}
	if err := fillTypeMeta(&pn.TypeMeta, KindPodNetwork); err != nil {
		return nil, err
	}
	return &pn, nil
}

// DecodePodNetworkAttachment decodes a PodNetworkAttachment like
// DecodePodNetwork.
func DecodePodNetworkAttachment(data []byte) (*PodNetworkAttachment, error) {
	var pna PodNetworkAttachment
	if err := yaml.UnmarshalStrict(data, &pna); err != nil {
		return nil, names.Errorf("%w %s: %w", ErrDecode, KindPodNetworkAttachment, err)
	}
	if err := fillTypeMeta(&pna.TypeMeta, KindPodNetworkAttachment); err != nil {
		return nil, err
	}
	return &pna, nil
}

// DecodePod decodes the KEP's view of a pod (see PodNetworks.UnmarshalJSON)
// from YAML or JSON.
func DecodePod(data []byte) (*PodNetworks, error) {
	var p PodNetworks
	if err := yaml.Unmarshal(data, &p); err != nil {
		return nil, names.Errorf("%w %s: %w", ErrDecode, KindPod, err)
	}
	return &p, nil
}

// Decode decodes a PodNetwork, PodNetworkAttachment or Pod, by its kind,
// and returns a *PodNetwork, *PodNetworkAttachment or *PodNetworks.
func Decode(data []byte) (any, error) {
	var tm metav1.TypeMeta
	if err := yaml.Unmarshal(data, &tm); err != nil {
		return nil, names.Errorf("%w: %w", ErrDecode, err)
	}
	switch tm.Kind {
	case KindPodNetwork:
		return DecodePodNetwork(data)
	case KindPodNetworkAttachment:
		return DecodePodNetworkAttachment(data)
	case KindPod:
		return DecodePod(data)
	}
	return nil, names.Errorf("%w: kind %q: want %s, %s or %s", ErrDecode, tm.Kind, KindPodNetwork, KindPodNetworkAttachment, KindPod)
}

func fillTypeMeta(tm *metav1.TypeMeta, kind string) error {
	if tm.Kind == "" {
		tm.Kind = kind
	}
	if tm.Kind != kind {
		return names.Errorf("%w: kind %q, want %s", ErrDecode, tm.Kind, kind)
	}
	if tm.APIVersion == "" {
		tm.APIVersion = APIVersion
	}
	return nil
}
