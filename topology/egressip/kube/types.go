package kube

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Group, version and kind of the EgressIP custom resource.
const (
	Group    = "k8s.ovn.org"
	Version  = "v1"
	Kind     = "EgressIP"
	ListKind = "EgressIPList"
)

// EgressIP is the k8s.ovn.org/v1 EgressIP custom resource (cluster
// scoped), with the reference CRD's fields. The kubebuilder markers give
// its CRD (package crds); the CEL rules repeat EgressIPFrom's checks of
// spec.egressIPs with its messages.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:path=egressips,scope=Cluster,shortName=eip
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="EgressIPs",type=string,JSONPath=".spec.egressIPs[*]"
// +kubebuilder:printcolumn:name="Assigned Node",type=string,JSONPath=".status.items[*].node"
// +kubebuilder:printcolumn:name="Assigned EgressIPs",type=string,JSONPath=".status.items[*].egressIP"
type EgressIP struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              EgressIPSpec `json:"spec"`
	// +optional
	Status EgressIPStatus `json:"status,omitempty"`
}

// EgressIPSpec is an EgressIP's spec.
type EgressIPSpec struct {
	// EgressIPs are the addresses the selected pods' traffic leaves with.
	// +kubebuilder:validation:MaxItems=256
	// +kubebuilder:validation:items:MaxLength=45
	// +kubebuilder:validation:items:XValidation:rule="isIP(self)",message="not an IP address"
	// +kubebuilder:validation:items:XValidation:rule="!isIP(self) || ip(self).isGlobalUnicast()",message="not a unicast address"
	// +kubebuilder:validation:XValidation:rule="self.all(x, !isIP(x) || self.exists_one(y, isIP(y) && ip(x) == ip(y)))",message="Duplicate value"
	EgressIPs []string `json:"egressIPs"`
	// NamespaceSelector selects the namespaces of the pods (required).
	NamespaceSelector metav1.LabelSelector `json:"namespaceSelector"`
	// PodSelector selects pods in those namespaces; empty selects all.
	// +optional
	PodSelector metav1.LabelSelector `json:"podSelector,omitempty"`
}

// EgressIPStatus is an EgressIP's status.
type EgressIPStatus struct {
	// Items are the assigned egress IPs, with their nodes.
	Items []EgressIPStatusItem `json:"items"`
}

// EgressIPStatusItem is one assigned egress IP.
type EgressIPStatusItem struct {
	// Node is the node the egress IP is assigned to.
	Node string `json:"node"`
	// EgressIP is the assigned address.
	EgressIP string `json:"egressIP"`
}

// EgressIPList is a list of EgressIPs.
//
// +kubebuilder:object:root=true
type EgressIPList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []EgressIP `json:"items"`
}
