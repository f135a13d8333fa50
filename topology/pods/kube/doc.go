// Package kube reads Kubernetes Pods for the pods planner and the
// udnkit.Cluster (PodFrom) and writes back what they decide: the
// k8s.ovn.org/pod-networks annotation as a JSON merge patch
// (AnnotationPatch).
//
// It is the only part of pods planning that links the Kubernetes API
// types; package pods itself imports none. It is pure and safe for
// concurrent use.
package kube
