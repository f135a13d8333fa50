package netconf

import (
	"bytes"
	"encoding/json"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/udnkit/udnkit/internal/names"
	"github.com/udnkit/udnkit/internal/sdkerr"
)

// API group, version and kinds of the user-defined network objects.
const (
	GroupVersion = "k8s.ovn.org/v1"
	KindUDN      = "UserDefinedNetwork"
	KindCUDN     = "ClusterUserDefinedNetwork"
)

// IPAMMode says how much of a network's IP configuration OVN manages.
type IPAMMode string

// IPAM modes. The empty mode means Enabled.
const (
	IPAMEnabled  IPAMMode = "Enabled"
	IPAMDisabled IPAMMode = "Disabled"
)

// String returns the API spelling.
func (m IPAMMode) String() string { return string(m) }

// IPAMLifecycle controls the lifecycle of the addresses OVN assigns.
type IPAMLifecycle string

// IPAMPersistent keeps a workload's addresses across restarts and
// migrations (persisted in IPAMClaims). The empty lifecycle is the default.
const IPAMPersistent IPAMLifecycle = "Persistent"

// String returns the API spelling.
func (l IPAMLifecycle) String() string { return string(l) }

// IPAMSpec is the IPAM section of a network spec.
type IPAMSpec struct {
	// Mode defaults to Enabled. Disabled is allowed only for secondary
	// Layer2 and Localnet networks without subnets.
	// +kubebuilder:validation:Enum=Enabled;Disabled
	// +optional
	Mode IPAMMode `json:"mode,omitempty"`
	// Lifecycle may be Persistent (Layer2 and Localnet with mode Enabled).
	// +kubebuilder:validation:Enum=Persistent
	// +optional
	Lifecycle IPAMLifecycle `json:"lifecycle,omitempty"`
}

// LocalnetSpec describes the underlay of a Localnet network.
type LocalnetSpec struct {
	// PhysicalNetworkName is the name of the OVS bridge mapping that wires
	// the network to the underlay. Required for Localnet.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:XValidation:rule="!self.contains(',') && !self.contains(':') && !self.contains(' ')",message="must be printable UTF-8, without commas, colons or blanks (it is a bridge-mappings key)"
	PhysicalNetworkName string `json:"physicalNetworkName"`
	// VLANID tags the network's traffic on the underlay (1..4094); 0 means
	// untagged.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=4094
	// +optional
	VLANID int `json:"vlanID,omitempty"`
}

// UserDefinedNetworkSpec is the desired state of a user-defined network.
// It is also the template of a ClusterUserDefinedNetwork.
//
// The CRD's CEL rules repeat the checks of ValidateUDN that need no
// parsing of addresses, with the same messages.
//
// +kubebuilder:validation:XValidation:rule="self.topology != 'Layer3' || (has(self.subnets) && size(self.subnets) > 0)",message="Layer3 topology requires subnets"
// +kubebuilder:validation:XValidation:rule="self.topology != 'Localnet' || self.role == 'Secondary'",message="Localnet topology is not supported for primary networks; use Secondary"
// +kubebuilder:validation:XValidation:rule="self.topology == 'Localnet' || !has(self.localnet)",message="only valid for the Localnet topology"
// +kubebuilder:validation:XValidation:rule="self.topology != 'Localnet' || has(self.localnet)",message="Localnet networks need the name of the bridge mapping that wires them to the underlay"
// +kubebuilder:validation:XValidation:rule="self.role == 'Primary' || !has(self.joinSubnets)",message="JoinSubnets is only supported for Primary network"
// +kubebuilder:validation:XValidation:rule="!has(self.ipamLifecycle) || self.topology == 'Layer2' || self.topology == 'Localnet'",message="Persistent is supported for Layer2 and Localnet topologies only"
// +kubebuilder:validation:XValidation:rule="!has(self.ipam) || !has(self.ipam.lifecycle) || self.topology == 'Layer2' || self.topology == 'Localnet'",message="Persistent is supported for Layer2 and Localnet topologies only"
// +kubebuilder:validation:XValidation:rule="!has(self.ipam) || !has(self.ipam.mode) || self.ipam.mode != 'Disabled' || self.role == 'Secondary'",message="Disabled is supported for Secondary networks only"
// +kubebuilder:validation:XValidation:rule="!has(self.ipam) || !has(self.ipam.mode) || self.ipam.mode != 'Disabled' || !has(self.subnets)",message="must be omitted when ipam.mode is Disabled"
// +kubebuilder:validation:XValidation:rule="!has(self.subnets) || size(self.subnets) != 2 || self.subnets[0].contains(':') != self.subnets[1].contains(':')",message="at most one subnet per IP family"
// +kubebuilder:validation:XValidation:rule="self.topology != 'Layer3' || !has(self.subnets) || self.subnets.all(i, self.subnets.all(j, i.contains(':') != j.contains(':') || (size(i.split('/')) == 3) == (size(j.split('/')) == 3) && (size(i.split('/')) != 3 || i.split('/')[2] == j.split('/')[2])))",message="Subnets from the same IP family must use the same hostSubnet value"
type UserDefinedNetworkSpec struct {
	// +kubebuilder:validation:Enum=Layer2;Layer3;Localnet
	// +required
	Topology Topology `json:"topology"`
	// +kubebuilder:validation:Enum=Primary;Secondary
	// +required
	Role Role `json:"role"`
	// MTU of the network; 0 means the cluster default.
	// +kubebuilder:validation:XValidation:rule="self >= 576 && self <= 65536",message="must be between 576 and 65536"
	// +optional
	MTU int32 `json:"mtu,omitempty"`
	// Subnets: at most one per IP family. Layer3 accepts
	// "10.128.0.0/16/24" (a /24 per node; /24 and /64 when omitted).
	// +kubebuilder:validation:MaxItems=2
	// +kubebuilder:validation:items:MaxLength=48
	// +listType=atomic
	// +optional
	Subnets []string `json:"subnets,omitempty"`
	// +kubebuilder:validation:MaxItems=25
	// +kubebuilder:validation:items:MaxLength=43
	// +listType=atomic
	// +optional
	ExcludeSubnets []string `json:"excludeSubnets,omitempty"`
	// JoinSubnets is used by primary networks only (1 or 2, one per family).
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=2
	// +kubebuilder:validation:items:MaxLength=43
	// +listType=atomic
	// +optional
	JoinSubnets []string `json:"joinSubnets,omitempty"`
	// +optional
	IPAM *IPAMSpec `json:"ipam,omitempty"`
	// IPAMLifecycle is the early spelling of IPAM.Lifecycle, accepted so
	// that documents written against it still decode. Prefer IPAM.Lifecycle.
	// +kubebuilder:validation:Enum=Persistent
	// +optional
	IPAMLifecycle IPAMLifecycle `json:"ipamLifecycle,omitempty"`
	// Localnet is required for, and only valid with, the Localnet topology.
	// +optional
	Localnet *LocalnetSpec `json:"localnet,omitempty"`
}

// ipamMode returns the effective IPAM mode ("" means Enabled).
func (s *UserDefinedNetworkSpec) ipamMode() IPAMMode {
	if s.IPAM == nil || s.IPAM.Mode == "" {
		return IPAMEnabled
	}
	return s.IPAM.Mode
}

// ipamLifecycle returns the effective lifecycle (IPAM.Lifecycle, else the
// legacy top-level field).
func (s *UserDefinedNetworkSpec) ipamLifecycle() IPAMLifecycle {
	if s.IPAM != nil && s.IPAM.Lifecycle != "" {
		return s.IPAM.Lifecycle
	}
	return s.IPAMLifecycle
}

// UserDefinedNetworkStatus is the observed state of a UserDefinedNetwork.
type UserDefinedNetworkStatus struct {
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// UserDefinedNetwork asks for an OVN network in its own namespace.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:path=userdefinednetworks,scope=Namespaced,shortName=udn
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type UserDefinedNetwork struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="Spec is immutable; delete and recreate the UserDefinedNetwork to change it"
	// +required
	Spec UserDefinedNetworkSpec `json:"spec"`
	// +optional
	Status UserDefinedNetworkStatus `json:"status,omitempty"`
}

// UserDefinedNetworkList is a list of UserDefinedNetworks.
//
// +kubebuilder:object:root=true
type UserDefinedNetworkList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []UserDefinedNetwork `json:"items"`
}

// UserDefinedNetworkTemplateSpec is the network template of a
// ClusterUserDefinedNetwork.
//
// It decodes both the documented form ({"spec": {...}}) and the inline form
// the design document's examples use ({"topology": ..., "role": ...}); it
// always encodes the documented form. Decoding is strict: unknown fields are
// an error, because a template typo would otherwise silently change a
// network shared by many namespaces.
type UserDefinedNetworkTemplateSpec struct {
	// +required
	Spec UserDefinedNetworkSpec `json:"spec,omitempty"`
}

// UnmarshalJSON implements json.Unmarshaler.
func (t *UserDefinedNetworkTemplateSpec) UnmarshalJSON(data []byte) error {
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(data, &keys); err != nil {
		return sdkerr.With(sdkerr.Invalid, names.Errorf("template: %w", err))
	}
	body := data
	if raw, ok := keys["spec"]; ok {
		if len(keys) != 1 {
			return sdkerr.With(sdkerr.Invalid, names.Errorf("template: use either template.spec or inline spec fields, not both"))
		}
		body = raw
	}
	var spec UserDefinedNetworkSpec
	if !bytes.Equal(bytes.TrimSpace(body), []byte("null")) {
		dec := json.NewDecoder(bytes.NewReader(body))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&spec); err != nil {
			return sdkerr.With(sdkerr.Invalid, names.Errorf("template: %w", err))
		}
	}
	t.Spec = spec
	return nil
}

// ClusterUserDefinedNetworkSpec is the desired state of a cluster-scoped
// network shared by the namespaces its selector picks.
type ClusterUserDefinedNetworkSpec struct {
	// VRF is the host VRF device name for a primary network (under 16
	// characters, unique). When empty the CUDN name is used if it fits,
	// else "udn-<networkID>-vrf".
	// +kubebuilder:validation:MaxLength=15
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="vrf is immutable"
	// +optional
	VRF string `json:"vrf,omitempty"`
	// +required
	NamespaceSelector metav1.LabelSelector `json:"namespaceSelector"`
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="the network template is immutable; create a new ClusterUserDefinedNetwork instead"
	// +required
	Template *UserDefinedNetworkTemplateSpec `json:"template"`
}

// ClusterUserDefinedNetworkStatus is the observed state of a
// ClusterUserDefinedNetwork.
type ClusterUserDefinedNetworkStatus struct {
	// ActiveNamespaces lists, sorted, the namespaces the network is available in.
	// +listType=atomic
	// +optional
	ActiveNamespaces []string `json:"activeNamespaces,omitempty"`
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// ClusterUserDefinedNetwork asks for one OVN network shared by several namespaces.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:path=clusteruserdefinednetworks,scope=Cluster,shortName=cudn
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type ClusterUserDefinedNetwork struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	// +required
	Spec ClusterUserDefinedNetworkSpec `json:"spec"`
	// +optional
	Status ClusterUserDefinedNetworkStatus `json:"status,omitempty"`
}

// ClusterUserDefinedNetworkList is a list of ClusterUserDefinedNetworks.
//
// +kubebuilder:object:root=true
type ClusterUserDefinedNetworkList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []ClusterUserDefinedNetwork `json:"items"`
}

// DecodeUDN decodes a UserDefinedNetwork from YAML or JSON. Unknown fields
// are an error. A missing apiVersion/kind is filled in; a different kind is
// an error.
func DecodeUDN(data []byte) (*UserDefinedNetwork, error) {
	var u UserDefinedNetwork
	if err := yaml.UnmarshalStrict(data, &u); err != nil {
		return nil, names.Errorf("%w: decode %s: %w", ErrInvalidSpec, KindUDN, err)
	}
	if err := fillTypeMeta(&u.TypeMeta, KindUDN); err != nil {
		return nil, err
	}
	return &u, nil
}

// DecodeCUDN decodes a ClusterUserDefinedNetwork from YAML or JSON, like DecodeUDN.
func DecodeCUDN(data []byte) (*ClusterUserDefinedNetwork, error) {
	var c ClusterUserDefinedNetwork
	if err := yaml.UnmarshalStrict(data, &c); err != nil {
		return nil, names.Errorf("%w: decode %s: %w", ErrInvalidSpec, KindCUDN, err)
	}
	if err := fillTypeMeta(&c.TypeMeta, KindCUDN); err != nil {
		return nil, err
	}
	return &c, nil
}

func fillTypeMeta(tm *metav1.TypeMeta, kind string) error {
	if tm.Kind == "" {
		tm.Kind = kind
	}
	if tm.Kind != kind {
		return names.Errorf("%w: kind %q, want %s", ErrInvalidSpec, tm.Kind, kind)
	}
	if tm.APIVersion == "" {
		tm.APIVersion = GroupVersion
	}
	return nil
}
