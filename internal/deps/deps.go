package deps

import (
	_ "github.com/digitalocean/go-openvswitch/ovs"
	_ "github.com/google/nftables"
	_ "github.com/k8snetworkplumbingwg/ipamclaims/pkg/crd/ipamclaims/v1alpha1"
	_ "github.com/k8snetworkplumbingwg/network-attachment-definition-client/pkg/apis/k8s.cni.cncf.io/v1"
	_ "github.com/ovn-kubernetes/libovsdb/client"
	_ "github.com/ovn-kubernetes/libovsdb/database/inmemory"
	_ "github.com/ovn-kubernetes/libovsdb/server"
	_ "github.com/stretchr/testify/require"
	_ "github.com/vishvananda/netlink"
	_ "go4.org/netipx"
	_ "k8s.io/apimachinery/pkg/apis/meta/v1"
	_ "k8s.io/apimachinery/pkg/util/validation/field"
	_ "sigs.k8s.io/yaml"
)
