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
	Mode IPAMMode `json:"mode,omitempty"`
	// Lifecycle may be Persistent (Layer2 and Localnet with mode Enabled).
	Lifecycle IPAMLifecycle `json:"lifecycle,omitempty"`
}

// LocalnetSpec describes the underlay of a Localnet network.
type LocalnetSpec struct {
	// PhysicalNetworkName is the name of the OVS bridge mapping that wires
	// the network to the underlay. Required for Localnet.
	PhysicalNetworkName string `json:"physicalNetworkName"`
	// VLANID tags the network's traffic on the underlay (1..4094); 0 means
	// untagged.
	VLANID int `json:"vlanID,omitempty"`
}

// UserDefinedNetworkSpec is the desired state of a user-defined network.
// It is also the template of a ClusterUserDefinedNetwork.
type UserDefinedNetworkSpec struct {
	Topology Topology `json:"topology"`
	Role     Role     `json:"role"`
	// MTU of the network; 0 means the cluster default.
	MTU int32 `json:"mtu,omitempty"`
	// Subnets: at most one per IP family. Layer3 accepts
	// "10.128.0.0/16/24" (a /24 per node; /24 and /64 when omitted).
	Subnets        []string `json:"subnets,omitempty"`
	ExcludeSubnets []string `json:"excludeSubnets,omitempty"`
	// JoinSubnets is used by primary networks only (1 or 2, one per family).
	JoinSubnets []string  `json:"joinSubnets,omitempty"`
	IPAM        *IPAMSpec `json:"ipam,omitempty"`
	// IPAMLifecycle is the early spelling of IPAM.Lifecycle, accepted so
	// that documents written against it still decode. Prefer IPAM.Lifecycle.
	IPAMLifecycle IPAMLifecycle `json:"ipamLifecycle,omitempty"`
	// Localnet is required for, and only valid with, the Localnet topology.
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
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// UserDefinedNetwork asks for an OVN network in its own namespace.
type UserDefinedNetwork struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              UserDefinedNetworkSpec   `json:"spec"`
	Status            UserDefinedNetworkStatus `json:"status,omitempty"`
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
	VRF               string                          `json:"vrf,omitempty"`
	NamespaceSelector metav1.LabelSelector            `json:"namespaceSelector"`
	Template          *UserDefinedNetworkTemplateSpec `json:"template"`
}

// ClusterUserDefinedNetworkStatus is the observed state of a
// ClusterUserDefinedNetwork.
type ClusterUserDefinedNetworkStatus struct {
	// ActiveNamespaces lists, sorted, the namespaces the network is available in.
	ActiveNamespaces []string           `json:"activeNamespaces,omitempty"`
	Conditions       []metav1.Condition `json:"conditions,omitempty"`
}

// ClusterUserDefinedNetwork asks for one OVN network shared by several namespaces.
type ClusterUserDefinedNetwork struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              ClusterUserDefinedNetworkSpec   `json:"spec"`
	Status            ClusterUserDefinedNetworkStatus `json:"status,omitempty"`
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
