// Command pods-services gives two tenants a primary network each with the
// same subnet, attaches a pod to each and plans a ClusterIP Service in
// front of it, all through one udnkit.Cluster, applies the zone's plan to
// an OVN Northbound database (rows of three controllers: topology, pods,
// services), and prints the pods' ports and pod-networks annotations and
// the Services' load balancers.
//
//	go run ./examples/pods-services                        # embedded in-memory NB
//	go run ./examples/pods-services -nb tcp:127.0.0.1:6641 # a real NB
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"maps"
	"net/netip"
	"os"
	"slices"
	"strings"

	"github.com/udnkit/udnkit"
	"github.com/udnkit/udnkit/backend/ovnnb"
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
	return []topology.Node{{Name: "node-a", Chassis: "chassis-a",
		Addresses: []netip.Prefix{netip.MustParsePrefix("172.18.0.2/16")}, NextHops: []netip.Addr{netip.MustParseAddr("172.18.0.1")}}}
}

// plan returns the zone's State (the networks, the pods' ports and the
// Services' load balancers, all from one udnkit.Cluster) and each
// tenant's pod-networks annotation. Calls: New, then per tenant AddUDN,
// SetPod and SetService, then Plan.
func plan() (topology.State, map[string]string, error) {
	cluster, err := udnkit.New(udnkit.Config{Nodes: nodes(),
		DefaultNetwork: netconf.Cluster{ServiceCIDRs: []netip.Prefix{serviceCIDR}}})
	if err != nil {
		return topology.State{}, nil, err
	}
	annotations := map[string]string{}
	for i, doc := range strings.Split(udns, "---") {
		u, err := netconf.DecodeUDN([]byte(doc))
		if err != nil {
			return topology.State{}, nil, err
		}
		if _, err := cluster.AddUDN(u); err != nil {
			return topology.State{}, nil, err
		}
		pod := pods.Pod{Namespace: u.Namespace, Name: "web-0", UID: fmt.Sprintf("uid-%d", i), Node: "node-a"}
		if _, err := cluster.SetPod(pod, nil); err != nil {
			return topology.State{}, nil, err
		}
		ann, err := cluster.PodAnnotation(pod.Namespace, pod.Name)
		if err != nil {
			return topology.State{}, nil, err
		}
		annotations[u.Namespace] = ann
		// The Service's endpoint is the pod's address on its network (what
		// the mirrored EndpointSlice carries, see services/kube).
		recorded, err := netconf.ParsePodNetworks(ann)
		if err != nil {
			return topology.State{}, nil, err
		}
		ip := recorded[u.Namespace+"/"+u.Name].IPs[0].Addr()
		if _, err := cluster.SetService(services.Service{Namespace: u.Namespace, Name: "web",
			ClusterIPs: []netip.Addr{netip.AddrFrom4([4]byte{10, 96, 0, byte(50 + 10*i)})},
			Ports:      []services.Port{{Name: "http", Protocol: services.ProtocolTCP, Port: 80}},
			Slices: []services.EndpointSlice{{Ports: []services.EndpointPort{{Name: "http", Protocol: services.ProtocolTCP, Port: 8080}},
				Endpoints: []services.Endpoint{{Addresses: []netip.Addr{ip}, Node: "node-a"}}}}}); err != nil {
			return topology.State{}, nil, err
		}
	}
	desired, err := cluster.Plan(zone)
	return desired, annotations, err
}

func run(ctx context.Context, w io.Writer, endpoints string) error {
	desired, annotations, err := plan()
	if err != nil {
		return err
	}
	c, closeNB, err := ovnnb.Open(ctx, endpoints)
	if err != nil {
		return err
	}
	defer closeNB()
	changes, _, err := c.Sync(ctx, desired)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "applied %d rows of %v in %v\n", len(changes), desired.Controllers(), desired.Networks())
	observed, err := c.Observe(ctx)
	if err != nil {
		return err
	}
	for _, tenant := range slices.Sorted(maps.Keys(annotations)) {
		fmt.Fprintf(w, "\n%s\n", tenant)
		for o := range observed.Objects() {
			if p, ok := o.(topology.SwitchPort); ok && p.Owner.Controller == pods.ControllerPods && strings.HasPrefix(p.Owner.Network, tenant+"_") {
				fmt.Fprintf(w, "  port %s on %s: %v\n", p.Name, p.Switch, p.Addresses)
			}
		}
		fmt.Fprintf(w, "  %s: %s\n", netconf.AnnotationPodNetworks, annotations[tenant])
		for o := range observed.Objects() {
			if lb, ok := o.(topology.LoadBalancer); ok && strings.HasPrefix(lb.Owner.Network, tenant+"_") {
				fmt.Fprintf(w, "  %s\n", topology.Render(lb))
			}
		}
	}
	// A second Sync changes nothing.
	changes, _, err = c.Sync(ctx, desired)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "\napplying everything again: %d changes\n", len(changes))
	return nil
}
