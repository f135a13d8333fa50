package pods_test

import (
	"fmt"
	"net/netip"

	"github.com/udnkit/udnkit/netconf"
	"github.com/udnkit/udnkit/netconf/udn"
	"github.com/udnkit/udnkit/topology"
	"github.com/udnkit/udnkit/topology/pods"
)

// Attach a pod to its primary Layer2 network.
func Example() {
	red := &udn.Network{Name: "tenant-b_red", ID: 2, Topology: udn.TopologyLayer2, Role: udn.RolePrimary,
		Subnets: []udn.Subnet{{CIDR: netip.MustParsePrefix("10.128.0.0/16")}}, JoinSubnets: []netip.Prefix{netip.MustParsePrefix("100.65.0.0/16")}}
	p, err := pods.PlanPod(pods.Input{
		Pod: pods.Pod{Namespace: "tenant-b", Name: "web-0", UID: "4f1c", Node: "node-a"},
		Attachments: []pods.Attachment{{Network: red, NAD: "tenant-b/red", Role: netconf.PodRolePrimary,
			IPs: []netip.Prefix{netip.MustParsePrefix("10.128.0.5/16")}, TunnelID: 16715800}},
		Nodes: []topology.Node{{Name: "node-a", ID: 2, Chassis: "chassis-a"}}, Zone: "node-a",
		ServiceCIDRs: []netip.Prefix{netip.MustParsePrefix("10.96.0.0/16")},
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(topology.Render(p.Ports[0]))
	ann, _ := p.Annotation.Marshal()
	fmt.Println(ann)
	// Output:
	// switch_port tenant.b.red_tenant-b_web-0 switch=tenant.b_red_ovn_layer2_switch addresses=["0a:58:0a:80:00:05 10.128.0.5"] port_security=["0a:58:0a:80:00:05 10.128.0.5"] options={iface-id-ver=4f1c, requested-chassis=chassis-a, requested-tnl-key=16715800} external_ids={k8s.ovn.org/nad=tenant-b/red, namespace=tenant-b, pod=true} owner=udnkit-pods:tenant-b_red/Layer2/Primary/node-a
	// {"tenant-b/red":{"ip_addresses":["10.128.0.5/16"],"mac_address":"0a:58:0a:80:00:05","gateway_ips":["10.128.0.1"],"routes":[{"dest":"10.96.0.0/16","nextHop":"10.128.0.1"},{"dest":"100.65.0.0/16","nextHop":"10.128.0.1"}],"ip_address":"10.128.0.5/16","gateway_ip":"10.128.0.1","tunnel_id":16715800,"role":"primary"}}
}
