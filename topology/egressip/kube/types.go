package kube

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Group, version and kind of the EgressIP custom resource.
const (
	Group   = "k8s.ovn.org"
	Version = "v1"
	Kind    = "EgressIP"
)

// EgressIP is the k8s.ovn.org/v1 EgressIP custom resource (cluster
// scoped), with the reference CRD's fields.
type EgressIP struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              EgressIPSpec   `json:"spec"`
	Status            EgressIPStatus `json:"status,omitempty"`
}

// EgressIPSpec is an EgressIP's spec.
type EgressIPSpec struct {
	// EgressIPs are the addresses the selected pods' traffic leaves with.
	EgressIPs []string `json:"egressIPs"`
	// NamespaceSelector selects the namespaces of the pods (required).
	NamespaceSelector metav1.LabelSelector `json:"namespaceSelector"`
	// PodSelector selects pods in those namespaces; empty selects all.
	PodSelector metav1.LabelSelector `json:"podSelector,omitempty"`
}

// EgressIPStatus is an EgressIP's status.
type EgressIPStatus struct {
	Items []EgressIPStatusItem `json:"items"`
}

// EgressIPStatusItem is one assigned egress IP.
type EgressIPStatusItem struct {
	Node     string `json:"node"`
	EgressIP string `json:"egressIP"`
}
