// Package kube adapts Kubernetes objects to package egressip: the
// k8s.ovn.org/v1 EgressIP custom resource (Decode, EgressIPFrom, with
// errors naming the field), nodes as the assignment sees them (NodeFrom:
// the k8s.ovn.org/egress-assignable label, the Ready condition,
// k8s.ovn.org/node-primary-ifaddr and k8s.ovn.org/host-cidrs), label
// selectors and labels, and the merge patches that record an EgressIP's
// status items and its k8s.ovn.org/egressip-mark annotation. The types
// carry the kubebuilder markers of their CRD (package crds) and DeepCopy
// methods, so that a controller-runtime client reads and writes them.
//
// The functions are pure and safe for concurrent use.
package kube
