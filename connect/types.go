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
type ClusterNetworkConnect struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   ClusterNetworkConnectSpec   `json:"spec"`
	Status ClusterNetworkConnectStatus `json:"status,omitempty"`
}

// ClusterNetworkConnectSpec is the desired state of a ClusterNetworkConnect.
type ClusterNetworkConnectSpec struct {
	// NetworkSelectors selects the networks to connect: at most one entry
	// per selection type, ClusterUserDefinedNetworks or
	// PrimaryUserDefinedNetworks.
	NetworkSelectors []NetworkSelector `json:"networkSelectors"`
	// ConnectSubnets are the subnets the connections take their addresses
	// from, at most one per IP family. Immutable.
	ConnectSubnets []ConnectSubnet `json:"connectSubnets"`
	// ConnectivityEnabled lists the connectivity types enabled between the
	// networks. Decoding also accepts the reference CRD's "connectivity".
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
	NetworkSelectionType                NetworkSelectionType                 `json:"networkSelectionType"`
	ClusterUserDefinedNetworkSelector   *ClusterUserDefinedNetworkSelector   `json:"clusterUserDefinedNetworkSelector,omitempty"`
	PrimaryUserDefinedNetworkSelector   *PrimaryUserDefinedNetworkSelector   `json:"primaryUserDefinedNetworkSelector,omitempty"`
	SecondaryUserDefinedNetworkSelector *SecondaryUserDefinedNetworkSelector `json:"secondaryUserDefinedNetworkSelector,omitempty"`
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
type CIDR string

// ConnectSubnet is a subnet the connections draw from: a /NetworkPrefix
// block per Layer3 network, /31 (/127) pairs for Layer2 networks.
type ConnectSubnet struct {
	CIDR          CIDR  `json:"cidr"`
	NetworkPrefix int32 `json:"networkPrefix"`
}

// ConnectivityType is a kind of connectivity between connected networks.
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
	Status     StatusType         `json:"status,omitempty"`
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// ClusterNetworkConnectList is a list of ClusterNetworkConnects.
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
