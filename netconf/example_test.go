package netconf_test

import (
	"fmt"
	"time"

	nadv1 "github.com/k8snetworkplumbingwg/network-attachment-definition-client/pkg/apis/k8s.cni.cncf.io/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/udnkit/udnkit/netconf"
	"github.com/udnkit/udnkit/netconf/udn"
)

// Render the NAD of the design document's namespace-scoped example.
func ExampleRenderUDN() {
	u, err := netconf.DecodeUDN([]byte(`
kind: UserDefinedNetwork
metadata:
  name: db-network
  namespace: demo
  uid: f45efb13-9511-48c1-95d7-44ee17c949f4
spec:
  topology: Layer2
  role: Primary
  mtu: 9000
  subnets: ["10.0.0.0/24"]
  excludeSubnets: ["10.0.0.0/26"]
  ipam:
    lifecycle: Persistent
`))
	if err != nil {
		panic(err)
	}
	r, err := netconf.RenderUDN(u)
	if err != nil {
		panic(err)
	}
	nad := r.NADs[0]
	fmt.Println(nad.Namespace + "/" + nad.Name)
	fmt.Println(nad.Spec.Config)
	fmt.Println(r.Network)
	// Output:
	// demo/db-network
	// {"cniVersion":"1.1.0","name":"demo_db-network","type":"ovn-k8s-cni-overlay","topology":"layer2","role":"primary","netAttachDefName":"demo/db-network","subnets":"10.0.0.0/24","excludeSubnets":"10.0.0.0/26","joinSubnet":"100.65.0.0/16","transitSubnet":"100.88.0.0/16","mtu":9000,"allowPersistentIPs":true}
	// network "demo_db-network" (Primary Layer2, id 0)
}

// Validation names the field to fix and says how.
func ExampleValidateUDN() {
	u := &netconf.UserDefinedNetwork{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "shop"},
		Spec: netconf.UserDefinedNetworkSpec{
			Topology:    netconf.TopologyLayer3,
			Role:        netconf.RolePrimary,
			Subnets:     []string{"10.20.0.0/24"},
			JoinSubnets: []string{"100.64.0.0/16"},
		},
	}
	for _, e := range netconf.ValidateUDN(u) {
		fmt.Println(e)
	}
	// Output:
	// spec.subnets[0]: Invalid value: "10.20.0.0/24": default host prefix /24 must be longer than the subnet's /24; write 10.20.0.0/24/<hostPrefix>
	// spec.joinSubnets[0]: Invalid value: "100.64.0.0/16": overlaps the default network's join subnet 100.64.0.0/16
}

// NetConf JSON parses to the normalised network, defaults applied.
func ExampleParseNetConf() {
	c, err := netconf.ParseNetConf([]byte(`{"cniVersion":"0.3.1","name":"l3-network","type":"ovn-k8s-cni-overlay",
		"topology":"layer3","subnets":"10.128.0.0/16/24,2600:db8::/29","mtu":1400,
		"netAttachDefName":"default/l3-network","role":"primary"}`))
	if err != nil {
		panic(err)
	}
	n, err := c.Network()
	if err != nil {
		panic(err)
	}
	fmt.Println(n.Subnets, n.JoinSubnets, n.TransitSubnets)
	// Output:
	// [10.128.0.0/16/24 2600:db8::/29/64] [100.65.0.0/16 fd99::/64] [100.88.0.0/16 fd97::/64]
}

// Two primary CUDNs want namespace c: the older one keeps it.
func ExampleReconcileCUDN() {
	cudn := func(name string, created time.Time, nss ...string) *netconf.ClusterUserDefinedNetwork {
		return &netconf.ClusterUserDefinedNetwork{
			ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID("uid-" + name), CreationTimestamp: metav1.NewTime(created),
				Finalizers: []string{netconf.FinalizerProtection}},
			Spec: netconf.ClusterUserDefinedNetworkSpec{
				NamespaceSelector: metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
					{Key: "kubernetes.io/metadata.name", Operator: metav1.LabelSelectorOpIn, Values: nss}}},
				Template: &netconf.UserDefinedNetworkTemplateSpec{Spec: netconf.UserDefinedNetworkSpec{
					Topology: netconf.TopologyLayer2, Role: netconf.RolePrimary, Subnets: []string{"10.0.0.0/24"}}},
			},
		}
	}
	day := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	net1 := cudn("net1", day, "a", "b", "c")
	net2 := cudn("net2", day.Add(time.Hour), "c", "d", "e")
	var namespaces []netconf.Namespace
	for _, n := range []string{"a", "b", "c", "d", "e"} {
		namespaces = append(namespaces, netconf.Namespace{Name: n})
	}
	d, err := netconf.ReconcileCUDN(netconf.CUDNInput{
		CUDN: net2, NetworkID: 2, Namespaces: namespaces,
		NADs:   []*nadv1.NetworkAttachmentDefinition{},
		Others: []netconf.PeerCUDN{{CUDN: net1, NetworkID: 1}},
		Now:    metav1.NewTime(day.Add(2 * time.Hour)),
	})
	if err != nil {
		panic(err)
	}
	for _, a := range d.Actions {
		fmt.Println(a.Op, a.Namespace+"/"+a.Name)
	}
	fmt.Println("active:", d.Status.ActiveNamespaces)
	for _, c := range d.Status.Conditions {
		fmt.Printf("%s=%s %s: %s\n", c.Type, c.Status, c.Reason, c.Message)
	}
	// Output:
	// Skip c/net2
	// Create d/net2
	// Create e/net2
	// active: [d e]
	// NetworkReady=False NetworkAttachmentDefinitionNotExist: Not all desired namespaces provisioned with NetworkAttachmentDefinition: [c: primary network already exist: ClusterUserDefinedNetwork 'net1' selects the namespace]
}

// Render the NAD OVN-Kubernetes itself would write for a UDN, so that a
// controller running beside it renders byte-identical NADs.
func ExampleRenderOptions_RenderUDN() {
	u, err := netconf.DecodeUDN([]byte(`
kind: UserDefinedNetwork
metadata:
  name: web
  namespace: shop
  labels: {team: blue}
spec:
  topology: Layer3
  role: Primary
  subnets: ["10.20.0.0/16"]
`))
	if err != nil {
		panic(err)
	}
	r, err := netconf.RenderOptions{Profile: udn.ProfileReference}.RenderUDN(u)
	if err != nil {
		panic(err)
	}
	fmt.Println(r.NADs[0].Labels)
	fmt.Println(r.NADs[0].Spec.Config)
	// Output:
	// map[k8s.ovn.org/user-defined-network: team:blue]
	// {"cniVersion":"1.1.0","joinSubnet":"100.65.0.0/16,fd99::/64","name":"shop_web","netAttachDefName":"shop/web","role":"primary","subnets":"10.20.0.0/16","topology":"layer3","type":"ovn-k8s-cni-overlay"}
}
