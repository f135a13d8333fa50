package podnetwork_test

import (
	"fmt"
	"net/netip"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/udnkit/udnkit/netconf"
	"github.com/udnkit/udnkit/netconf/podnetwork"
)

// A PodNetwork backed by a NAD: its status, then a pod attached to it and
// to the default network, checked and resolved to the keys of the
// pod-networks annotation.
func Example() {
	dataplane, err := podnetwork.DecodePodNetwork([]byte(`
kind: PodNetwork
metadata:
  name: dataplane
spec:
  provider: k8s.ovn.org/ovn-kubernetes
  parametersRefs:
  - group: k8s.cni.cncf.io
    kind: network-attachment-definitions
    name: dataplane
    namespace: tenant
`))
	if err != nil {
		panic(err)
	}
	podnetwork.SetPodNetworkDefaults(dataplane)
	now := metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	in := podnetwork.ConditionsInput{Now: now, Params: &podnetwork.ParamsVerdict{Ready: true, Reason: "NADReady"}}
	dataplane.Status.Conditions = podnetwork.PodNetworkConditions(dataplane, in)
	for _, c := range dataplane.Status.Conditions {
		fmt.Printf("%s=%s %s\n", c.Type, c.Status, c.Reason)
	}
	def := podnetwork.DefaultPodNetwork()
	def.Status.Conditions = podnetwork.PodNetworkConditions(def, podnetwork.ConditionsInput{Now: now})

	pod, err := podnetwork.DecodePod([]byte(`
kind: Pod
metadata: {name: web, namespace: tenant}
spec:
  containers: [{name: web, image: nginx}]
  networks:
  - podNetworkName: default
    interfaceName: eth0
    isDefaultGW4: true
  - podNetworkName: dataplane
    interfaceName: net1
`))
	if err != nil {
		panic(err)
	}
	objects := podnetwork.Objects{PodNetworks: []*podnetwork.PodNetwork{def, dataplane}}
	errs := append(podnetwork.ValidatePod(pod), podnetwork.ValidatePodActive(pod, objects)...)
	fmt.Println("errors:", len(errs))
	attachments, _ := podnetwork.Resolve(pod, objects)
	fmt.Println(podnetwork.NADKeys(attachments))

	annotation := netconf.PodNetworks{
		"default":          {IPs: []netip.Prefix{netip.MustParsePrefix("10.128.0.5/24")}},
		"tenant/dataplane": {IPs: []netip.Prefix{netip.MustParsePrefix("192.168.7.4/24")}},
	}
	for _, ip := range podnetwork.PodIPs(attachments, annotation) {
		fmt.Printf("%s on %s %s\n", ip.IP, ip.PodNetworkName, ip.InterfaceName)
	}
	users := podnetwork.PodNetworkUsers("dataplane", []podnetwork.PodNetworks{*pod}, nil)
	fmt.Println(podnetwork.PodNetworkPhase(dataplane, users.InUse()), podnetwork.DeletionBlocked(users))
	// Output:
	// ParamsReady=True NADReady
	// Ready=True Ready
	// errors: 0
	// [default tenant/dataplane]
	// 10.128.0.5 on default eth0
	// 192.168.7.4 on dataplane net1
	// InUse true
}

// Static validation names the field to fix.
func ExampleValidatePod() {
	pod := &podnetwork.PodNetworks{Namespace: "ns", Name: "p", Networks: []podnetwork.Network{
		{PodNetworkName: "a", InterfaceName: "net1", IsDefaultGW4: true},
		{PodNetworkName: "a", InterfaceName: "net1"},
		{PodNetworkAttachmentName: "b", InterfaceName: "a-very-long-name0", IsDefaultGW4: true},
	}}
	for _, e := range podnetwork.ValidatePod(pod) {
		fmt.Println(e)
	}
	// Output:
	// spec.networks[1].podNetworkName: Duplicate value: "a": PodNetwork already attached by spec.networks[0]: a pod references a PodNetwork once
	// spec.networks[1].interfaceName: Duplicate value: "net1": interface name already used by spec.networks[0]
	// spec.networks[2].interfaceName: Invalid value: "a-very-long-name0": must be at most 15 bytes (a Linux interface name)
	// spec.networks[2].isDefaultGW4: Invalid value: true: only one network may hold the IPv4 default gateway; spec.networks[0] does
}
