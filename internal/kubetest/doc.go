// Package kubetest runs a real Kubernetes API server for tests: etcd and
// kube-apiserver, built from their Go modules by scripts/kube-env prepare into
// a cache outside the repository, started per test with a temporary data
// directory, a token file, RBAC, a service-account key pair made in Go and
// a serving-certificate directory. Start waits for /readyz and returns a
// rest.Config of a cluster administrator.
//
// When the binaries are missing, or the test does not run as root (as the
// other real-environment helpers, ovntest and the kernel tests), Start skips
// the test with a message saying what to run, unless the environment
// variable CI is "true": then the test fails, because CI must run every test.
//
// InstallCRDs installs CustomResourceDefinitions and waits until they are
// served; NADCRD is the k8s.cni.cncf.io NetworkAttachmentDefinition CRD for
// API servers without Multus. Every Server is independent.
package kubetest
