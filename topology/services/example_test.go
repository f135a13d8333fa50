package services_test

import (
	"fmt"
	"net/netip"

	"github.com/udnkit/udnkit/netconf/udn"
	"github.com/udnkit/udnkit/topology"
	"github.com/udnkit/udnkit/topology/services"
)

// A ClusterIP Service of a tenant's primary network with two endpoints.
func Example() {
	blue := &udn.Network{Name: "tenant-a_blue", ID: 1, Topology: udn.TopologyLayer3, Role: udn.RolePrimary,
		Subnets: []udn.Subnet{{CIDR: netip.MustParsePrefix("10.128.0.0/16"), HostPrefix: 24}}}
	in := &services.Input{Network: blue, Zone: "node-a",
		Nodes: []topology.Node{{Name: "node-a", Addresses: []netip.Prefix{netip.MustParsePrefix("172.18.0.2/16")}}}}
	web := services.Service{Namespace: "tenant-a", Name: "web",
		ClusterIPs: []netip.Addr{netip.MustParseAddr("10.96.0.50")},
		Ports:      []services.Port{{Name: "http", Protocol: services.ProtocolTCP, Port: 80}},
		Slices: []services.EndpointSlice{{
			Ports: []services.EndpointPort{{Name: "http", Protocol: services.ProtocolTCP, Port: 8080}},
			Endpoints: []services.Endpoint{
				{Addresses: []netip.Addr{netip.MustParseAddr("10.128.0.5")}, Node: "node-a"},
				{Addresses: []netip.Addr{netip.MustParseAddr("10.128.1.7")}, Node: "node-b"},
			}}}}
	lbs, err := services.PlanService(in, &web)
	if err != nil {
		panic(err)
	}
	for _, lb := range lbs {
		fmt.Println(topology.Render(lb))
	}
	// Output:
	// load_balancer tenant.a_blue_Service_tenant-a/web_TCP_cluster protocol=tcp vips=[10.96.0.50:80=10.128.0.5:8080,10.128.1.7:8080] options={event=false, hairpin_snat_ip=169.254.0.5 fd69::5, neighbor_responder=none, reject=true, skip_snat=false} groups=["tenant.a_blue_clusterLBGroup"] external_ids={k8s.ovn.org/kind=Service, k8s.ovn.org/owner=tenant-a/web} owner=udnkit-services:tenant-a_blue/Layer3/Primary/
}
