// Package kube adapts the k8s.ovn.org/v1 EgressQoS custom resource to
// package egressqos: Decode, EgressQoSFrom (only the object named
// "default", as the reference; errors name the field) and the zone's
// status condition Ready-In-Zone-<zone> (Condition). Selectors go through
// package egressip's adapter. The types carry the kubebuilder markers of
// their CRD (package crds) and DeepCopy methods, so that a
// controller-runtime client reads and writes them. The functions are pure and safe for
// concurrent use.
package kube
