package connect

import (
	"bytes"
	"encoding/json"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	ucnames "github.com/udnkit/udnkit/internal/names"
	"github.com/udnkit/udnkit/internal/sdkerr"
)

// API group, version and kind of a ClusterNetworkConnect.
const (
	Group      = "k8s.ovn.org"
	Version    = "v1"
	APIVersion = Group + "/" + Version
	Kind       = "ClusterNetworkConnect"
	ListKind   = "ClusterNetworkConnectList"
)

// ClusterNetworkConnect connects the topologies of the user-defined networks
// it selects (seed OKEP-5224). It is cluster-scoped.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:path=clusternetworkconnects,scope=Cluster,shortName=cnc
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:printcolumn:name="Status",type=string,JSONPath=`.status.status`
type ClusterNetworkConnect struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +required
	Spec ClusterNetworkConnectSpec `json:"spec"`
	// +optional
	Status ClusterNetworkConnectStatus `json:"status,omitempty"`
}

// ClusterNetworkConnectSpec is the desired state of a ClusterNetworkConnect.
//
// +kubebuilder:validation:XValidation:rule="!self.networkSelectors.exists(i, i.networkSelectionType != 'ClusterUserDefinedNetworks' && i.networkSelectionType != 'PrimaryUserDefinedNetworks')",message="Only ClusterUserDefinedNetworks or PrimaryUserDefinedNetworks can be selected"
type ClusterNetworkConnectSpec struct {
	// NetworkSelectors selects the networks to connect: at most one entry
	// per selection type, ClusterUserDefinedNetworks or
	// PrimaryUserDefinedNetworks.
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=5
	// +listType=map
	// +listMapKey=networkSelectionType
	// +required
	NetworkSelectors []NetworkSelector `json:"networkSelectors"`
	// ConnectSubnets are the subnets the connections take their addresses
	// from, at most one per IP family. Immutable.
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=2
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="connectSubnets is immutable"
	// +kubebuilder:validation:XValidation:rule="size(self) != 2 || !isCIDR(self[0].cidr) || !isCIDR(self[1].cidr) || cidr(self[0].cidr).ip().family() != cidr(self[1].cidr).ip().family()",message="When 2 CIDRs are set, they must be from different IP families"
	// +listType=atomic
	// +required
	ConnectSubnets []ConnectSubnet `json:"connectSubnets"`
	// ConnectivityEnabled lists the connectivity types enabled between the
	// networks. Decoding also accepts the reference CRD's "connectivity".
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=2
	// +kubebuilder:validation:XValidation:rule="self.all(x, self.exists_one(y, x == y))",message="connectivityEnabled cannot contain duplicate values"
	// +listType=atomic
	// +required
	ConnectivityEnabled []ConnectivityType `json:"connectivityEnabled"`
}

// UnmarshalJSON decodes the seed's spec and accepts the reference CRD's
// spelling "connectivity" for connectivityEnabled (not both).
func (s *ClusterNetworkConnectSpec) UnmarshalJSON(data []byte) error {
	type plain ClusterNetworkConnectSpec
	var aux struct {
		plain
		Connectivity []ConnectivityType `json:"connectivity"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&aux); err != nil {
		return sdkerr.With(sdkerr.Invalid, ucnames.Errorf("spec: %w", err))
	}
	if aux.Connectivity != nil {
		if aux.ConnectivityEnabled != nil {
			return sdkerr.With(sdkerr.Invalid, ucnames.Errorf("spec: set connectivityEnabled or its reference spelling connectivity, not both"))
		}
		aux.ConnectivityEnabled = aux.Connectivity
	}
	*s = ClusterNetworkConnectSpec(aux.plain)
	return nil
}

// NetworkSelector selects a set of networks; exactly the selector its
// NetworkSelectionType names is set.
type NetworkSelector struct {
	// +kubebuilder:validation:Enum=DefaultNetwork;ClusterUserDefinedNetworks;PrimaryUserDefinedNetworks;SecondaryUserDefinedNetworks;NetworkAttachmentDefinitions
	// +required
	NetworkSelectionType NetworkSelectionType `json:"networkSelectionType"`
	// +optional
	ClusterUserDefinedNetworkSelector *ClusterUserDefinedNetworkSelector `json:"clusterUserDefinedNetworkSelector,omitempty"`
	// +optional
	PrimaryUserDefinedNetworkSelector *PrimaryUserDefinedNetworkSelector `json:"primaryUserDefinedNetworkSelector,omitempty"`
	// +optional
	SecondaryUserDefinedNetworkSelector *SecondaryUserDefinedNetworkSelector `json:"secondaryUserDefinedNetworkSelector,omitempty"`
	// +optional
	NetworkAttachmentDefinitionSelector *NetworkAttachmentDefinitionSelector `json:"networkAttachmentDefinitionSelector,omitempty"`
}

// NetworkSelectionType is the kind of networks a NetworkSelector selects.
type NetworkSelectionType string

// Selection types of the shared network-selector API. A
// ClusterNetworkConnect accepts only ClusterUserDefinedNetworks and
// PrimaryUserDefinedNetworks.
const (
	DefaultNetwork               NetworkSelectionType = "DefaultNetwork"
	ClusterUserDefinedNetworks   NetworkSelectionType = "ClusterUserDefinedNetworks"
	PrimaryUserDefinedNetworks   NetworkSelectionType = "PrimaryUserDefinedNetworks"
	SecondaryUserDefinedNetworks NetworkSelectionType = "SecondaryUserDefinedNetworks"
	NetworkAttachmentDefinitions NetworkSelectionType = "NetworkAttachmentDefinitions"
)

// String returns the API spelling.
func (t NetworkSelectionType) String() string { return string(t) }

// ClusterUserDefinedNetworkSelector selects CUDNs by their labels.
type ClusterUserDefinedNetworkSelector struct {
	NetworkSelector metav1.LabelSelector `json:"networkSelector"`
}

// PrimaryUserDefinedNetworkSelector selects the primary network of each
// namespace its selector matches.
type PrimaryUserDefinedNetworkSelector struct {
	NamespaceSelector metav1.LabelSelector `json:"namespaceSelector"`
}

// SecondaryUserDefinedNetworkSelector is part of the shared selector API;
// a ClusterNetworkConnect refuses it.
type SecondaryUserDefinedNetworkSelector struct {
	NamespaceSelector metav1.LabelSelector `json:"namespaceSelector"`
	NetworkSelector   metav1.LabelSelector `json:"networkSelector"`
}

// NetworkAttachmentDefinitionSelector is part of the shared selector API;
// a ClusterNetworkConnect refuses it.
type NetworkAttachmentDefinitionSelector struct {
	NamespaceSelector metav1.LabelSelector `json:"namespaceSelector"`
	NetworkSelector   metav1.LabelSelector `json:"networkSelector"`
}

// CIDR is a connect subnet in CIDR notation; it must be a network address.
//
// +kubebuilder:validation:MaxLength=43
// +kubebuilder:validation:XValidation:rule="isCIDR(self) && cidr(self) == cidr(self).masked()",message="CIDR must be a valid network address"
type CIDR string

// ConnectSubnet is a subnet the connections draw from: a /NetworkPrefix
// block per Layer3 network, /31 (/127) pairs for Layer2 networks.
//
// +kubebuilder:validation:XValidation:rule="!isCIDR(self.cidr) || self.networkPrefix > cidr(self.cidr).prefixLength()",message="networkPrefix must be smaller than CIDR subnet"
// +kubebuilder:validation:XValidation:rule="!isCIDR(self.cidr) || cidr(self.cidr).ip().family() != 4 || self.networkPrefix < 32",message="networkPrefix must < 32 for ipv4 CIDR"
type ConnectSubnet struct {
	// +required
	CIDR CIDR `json:"cidr"`
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=127
	// +required
	NetworkPrefix int32 `json:"networkPrefix"`
}

// ConnectivityType is a kind of connectivity between connected networks.
//
// +kubebuilder:validation:Enum=PodNetwork;ClusterIPServiceNetwork
type ConnectivityType string

// Connectivity types.
const (
	// PodNetwork connects pods of the networks directly.
	PodNetwork ConnectivityType = "PodNetwork"
	// ClusterIPServiceNetwork makes the ClusterIP services of each network
	// reachable from the others. The reference CRD spells it
	// "ServiceNetwork"; decoding accepts both.
	ClusterIPServiceNetwork ConnectivityType = "ClusterIPServiceNetwork"
)

// referenceServiceNetwork is the reference CRD's spelling of
// ClusterIPServiceNetwork.
const referenceServiceNetwork = "ServiceNetwork"

// UnmarshalJSON decodes a connectivity type, reading the reference's
// "ServiceNetwork" as ClusterIPServiceNetwork.
func (c *ConnectivityType) UnmarshalJSON(data []byte) error {
	var s string
	if err := json.Unmarshal(data, &s); err != nil {
		return sdkerr.Errorf(sdkerr.Invalid, "%w", err)
	}
	if s == referenceServiceNetwork {
		s = string(ClusterIPServiceNetwork)
	}
	*c = ConnectivityType(s)
	return nil
}

// String returns the API spelling.
func (c ConnectivityType) String() string { return string(c) }

// StatusType is the summary status of a ClusterNetworkConnect.
type StatusType string

// Summary statuses.
const (
	Success StatusType = "Success"
	Failure StatusType = "Failure"
)

// String returns the API spelling.
func (s StatusType) String() string { return string(s) }

// ClusterNetworkConnectStatus is the observed state of a
// ClusterNetworkConnect.
type ClusterNetworkConnectStatus struct {
	// +kubebuilder:validation:Enum=Success;Failure
	// +optional
	Status StatusType `json:"status,omitempty"`
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// ClusterNetworkConnectList is a list of ClusterNetworkConnects.
//
// +kubebuilder:object:root=true
type ClusterNetworkConnectList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []ClusterNetworkConnect `json:"items"`
}

// Decode decodes a ClusterNetworkConnect from YAML or JSON. Unknown fields
// are errors; a missing kind or apiVersion is filled in, another one is an
// error. Decoding checks the shape only: call Validate.
func Decode(data []byte) (*ClusterNetworkConnect, error) {
	var c ClusterNetworkConnect
	if err := yaml.UnmarshalStrict(data, &c); err != nil {
		return nil, sdkerr.With(sdkerr.Invalid, ucnames.Errorf("%s: %w", Kind, err))
	}
	switch {
	case c.Kind == "":
		c.Kind = Kind
	case c.Kind != Kind:
		return nil, sdkerr.With(sdkerr.Invalid, ucnames.Errorf("%s: kind %q: want %s", Kind, c.Kind, Kind))
	}
	switch {
	case c.APIVersion == "":
		c.APIVersion = APIVersion
	case c.APIVersion != APIVersion:
		return nil, sdkerr.With(sdkerr.Invalid, ucnames.Errorf("%s %q: apiVersion %q: want %s", Kind, c.Name, c.APIVersion, APIVersion))
	}
	return &c, nil
}
