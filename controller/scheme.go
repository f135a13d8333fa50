package controller

import (
	nadv1 "github.com/k8snetworkplumbingwg/network-attachment-definition-client/pkg/apis/k8s.cni.cncf.io/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"

	"github.com/udnkit/udnkit/connect"
	"github.com/udnkit/udnkit/netconf"
	egressipkube "github.com/udnkit/udnkit/topology/egressip/kube"
	egressqoskube "github.com/udnkit/udnkit/topology/egressqos/kube"
)

// GroupVersion is the API group and version of udnkit's own kinds.
var GroupVersion = schema.GroupVersion{Group: connect.Group, Version: connect.Version}

// AddToScheme registers the kinds the controller reads and writes: the
// built-in ones, NetworkAttachmentDefinitions, and UserDefinedNetworks,
// ClusterUserDefinedNetworks, ClusterNetworkConnects, EgressIPs and
// EgressQoSes (with their lists).
func AddToScheme(s *runtime.Scheme) error {
	if err := clientgoscheme.AddToScheme(s); err != nil {
		return err
	}
	if err := nadv1.AddToScheme(s); err != nil {
		return err
	}
	s.AddKnownTypes(GroupVersion,
		&netconf.UserDefinedNetwork{}, &netconf.UserDefinedNetworkList{},
		&netconf.ClusterUserDefinedNetwork{}, &netconf.ClusterUserDefinedNetworkList{},
		&connect.ClusterNetworkConnect{}, &connect.ClusterNetworkConnectList{},
		&egressipkube.EgressIP{}, &egressipkube.EgressIPList{},
		&egressqoskube.EgressQoS{}, &egressqoskube.EgressQoSList{})
	metav1.AddToGroupVersion(s, GroupVersion)
	return nil
}

// NewScheme returns a scheme with AddToScheme's kinds.
func NewScheme() (*runtime.Scheme, error) {
	s := runtime.NewScheme()
	return s, AddToScheme(s)
}
