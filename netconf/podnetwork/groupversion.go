// The package markers below make controller-gen (go generate ./crds) read
// the CRD types of this package as k8s.ovn.org/v1: the KEP makes
// PodNetwork and PodNetworkAttachment core objects (apiVersion v1), which a
// CustomResourceDefinition cannot be, so as CRDs they take udnkit's group.

// +groupName=k8s.ovn.org
// +versionName=v1

package podnetwork
