// The package markers below make controller-gen (go generate ./crds) read
// the CRD types of this package as k8s.ovn.org/v1.

// +groupName=k8s.ovn.org
// +versionName=v1

package kube
