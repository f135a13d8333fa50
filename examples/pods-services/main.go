// Command pods-services gives two tenants a primary network each with the
// same subnet, attaches a pod to each and plans a ClusterIP Service in
// front of it, applies everything to an OVN Northbound database as three
// controllers (topology, pods, services), and prints the pods' ports and
// pod-networks annotations and the Services' load balancers.
//
//	go run ./examples/pods-services                        # embedded in-memory NB
//	go run ./examples/pods-services -nb tcp:127.0.0.1:6641 # a real NB
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net/netip"
	"os"
	"strings"

	"github.com/udnkit/udnkit"
	"github.com/udnkit/udnkit/backend/ovnnb"
	"github.com/udnkit/udnkit/ipam"
	"github.com/udnkit/udnkit/netconf"
	"github.com/udnkit/udnkit/topology"
	"github.com/udnkit/udnkit/topology/pods"
	"github.com/udnkit/udnkit/topology/services"
)

const udns = `
kind: UserDefinedNetwork
metadata: {name: blue, namespace: tenant-a}
spec: {topology: Layer3, role: Primary, subnets: ["10.128.0.0/16/24"]}
---
kind: UserDefinedNetwork
metadata: {name: red, namespace: tenant-b}
spec: {topology: Layer3, role: Primary, subnets: ["10.128.0.0/16/24"]}
`

const zone = "node-a"

var serviceCIDR = netip.MustParsePrefix("10.96.0.0/16")

func main() {
	nb := flag.String("nb", "", "Northbound endpoints, comma separated; empty starts an embedded in-memory NB")
	flag.Parse()
	if err := run(context.Background(), os.Stdout, *nb); err != nil {
		fmt.Fprintln(os.Stderr, "pods-services:", err)
		os.Exit(1)
	}
}

func nodes() []topology.Node {
	return []topology.Node{{Name: "node-a", ID: ipam.MinNodeID, Chassis: "chassis-a",
		Addresses: []netip.Prefix{netip.MustParsePrefix("172.18.0.2/16")}, NextHops: []netip.Addr{netip.MustParseAddr("172.18.0.1")}}}
}

// tenant is what the example plans for one namespace.
type tenant struct {
	pod  pods.Planned
	lbs  topology.State
	name string
}

// plan returns the networks' State and, per tenant, its pod and Service.
func plan() (topology.State, []tenant, error) {
	nets, err := udnkit.New(udnkit.Config{Nodes: nodes()})
	if err != nil {
		return topology.State{}, nil, err
	}
	var tenants []tenant
	for i, doc := range strings.Split(udns, "---") {
		u, err := netconf.DecodeUDN([]byte(doc))
		if err != nil {
			return topology.State{}, nil, err
		}
		n, err := nets.AddUDN(u)
		if err != nil {
			return topology.State{}, nil, err
		}
		in, err := nets.Input(n.Name, zone)
		if err != nil {
			return topology.State{}, nil, err
		}
		alloc, err := ipam.NewPodIPAllocator(in.HostSubnets["node-a"], nil)
		if err != nil {
			return topology.State{}, nil, err
		}
		ips, err := alloc.Allocate()
		if err != nil {
			return topology.State{}, nil, err
		}
		p, err := pods.PlanPod(pods.Input{
			Pod: pods.Pod{Namespace: u.Namespace, Name: "web-0", UID: fmt.Sprintf("uid-%d", i), Node: "node-a"},
			Attachments: []pods.Attachment{{Network: n, NAD: u.Namespace + "/" + u.Name, Role: netconf.PodRolePrimary,
				IPs: ips, HostSubnets: in.HostSubnets["node-a"]}},
			Nodes: nodes(), Zone: zone, ServiceCIDRs: []netip.Prefix{serviceCIDR}})
		if err != nil {
			return topology.State{}, nil, err
		}
		// The Service's endpoint is the pod's address on its network (what
		// the mirrored EndpointSlice carries, see package kube).
		lbs, err := services.Plan(services.Input{Network: n, Nodes: nodes(), Zone: zone, Services: []services.Service{{
			Namespace: u.Namespace, Name: "web", ClusterIPs: []netip.Addr{netip.AddrFrom4([4]byte{10, 96, 0, byte(50 + 10*i)})},
			Ports: []services.Port{{Name: "http", Protocol: services.ProtocolTCP, Port: 80}},
			Slices: []services.EndpointSlice{{Ports: []services.EndpointPort{{Name: "http", Protocol: services.ProtocolTCP, Port: 8080}},
				Endpoints: []services.Endpoint{{Addresses: []netip.Addr{ips[0].Addr()}, Node: "node-a"}}}}}}})
		if err != nil {
			return topology.State{}, nil, err
		}
		tenants = append(tenants, tenant{pod: p, lbs: lbs, name: u.Namespace})
	}
	networks, err := nets.Plan(zone)
	return networks, tenants, err
}

func run(ctx context.Context, w io.Writer, endpoints string) error {
	networks, tenants, err := plan()
	if err != nil {
		return err
	}
	c, closeNB, err := ovnnb.Open(ctx, endpoints)
	if err != nil {
		return err
	}
	defer closeNB()
	states := []topology.State{networks}
	for _, tn := range tenants {
		nodePods, err := pods.PlanNode("node-a", []string{tn.pod.Ports[0].Owner.Network}, []pods.Planned{tn.pod})
		if err != nil {
			return err
		}
		states = append(states, nodePods, tn.lbs)
	}
	for _, s := range states {
		changes, _, err := c.Sync(ctx, s)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "applied %d rows of %v in %v\n", len(changes), s.Controllers(), s.Networks())
	}
	observed, err := c.Observe(ctx)
	if err != nil {
		return err
	}
	for _, tn := range tenants {
		fmt.Fprintf(w, "\n%s\n", tn.name)
		for _, p := range tn.pod.Ports {
			fmt.Fprintf(w, "  port %s on %s: %v\n", p.Name, p.Switch, p.Addresses)
		}
		ann, err := tn.pod.Annotation.Marshal()
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "  %s: %s\n", netconf.AnnotationPodNetworks, ann)
		for o := range tn.lbs.Objects() {
			lb := o.(topology.LoadBalancer)
			got, ok := observed.Get(topology.KindLoadBalancer, lb.Name)
			if !ok {
				return fmt.Errorf("load balancer %s not in the database", lb.Name)
			}
			fmt.Fprintf(w, "  %s\n", topology.Render(got))
		}
	}
	// A second pass of every controller changes nothing.
	n := 0
	for _, s := range states {
		changes, _, err := c.Sync(ctx, s)
		if err != nil {
			return err
		}
		n += len(changes)
	}
	fmt.Fprintf(w, "\napplying everything again: %d changes\n", n)
	return nil
}
