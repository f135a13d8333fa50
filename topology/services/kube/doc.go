// Package kube reads Kubernetes Services and EndpointSlices for the
// services planner (ServiceFrom, EndpointSliceFrom) and builds a primary
// user-defined network's EndpointSlices from the default network's ones
// and the pods' k8s.ovn.org/pod-networks annotations (MirrorEndpointSlice),
// labelled as the reference's mirror controller labels them.
//
// It is the only part of the services planning that links the Kubernetes
// API types; package services itself imports none (only udnkit's ipam,
// udn and topology besides the standard library).
package kube
