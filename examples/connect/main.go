// Command connect connects two of three primary user-defined networks with a
// ClusterNetworkConnect, applies the networks and the connect to an OVN
// Northbound database, and prints the connect router and the reachability
// it creates.
//
//	go run ./examples/connect                        # embedded in-memory NB
//	go run ./examples/connect -nb tcp:127.0.0.1:6641 # a real NB
//
// The three networks share one zone (node-a's view of a single-zone
// cluster); red is not selected and its pod subnet overlaps blue's.
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
	"github.com/udnkit/udnkit/connect"
	"github.com/udnkit/udnkit/ipam"
	"github.com/udnkit/udnkit/netconf"
	"github.com/udnkit/udnkit/netconf/udn"
	"github.com/udnkit/udnkit/topology"
)

const udns = `
kind: UserDefinedNetwork
metadata: {name: blue, namespace: blue}
spec: {topology: Layer3, role: Primary, subnets: ["10.128.0.0/16/24"]}
---
kind: UserDefinedNetwork
metadata: {name: green, namespace: green}
spec: {topology: Layer3, role: Primary, subnets: ["10.129.0.0/16/24"]}
---
kind: UserDefinedNetwork
metadata: {name: red, namespace: red}
spec: {topology: Layer3, role: Primary, subnets: ["10.128.0.0/16/24"]}
`

const cnc = `
kind: ClusterNetworkConnect
metadata: {name: blue-green}
spec:
  networkSelectors:
  - networkSelectionType: PrimaryUserDefinedNetworks
    primaryUserDefinedNetworkSelector:
      namespaceSelector: {matchExpressions: [{key: kubernetes.io/metadata.name, operator: In, values: [blue, green]}]}
  connectSubnets: [{cidr: 192.168.0.0/16, networkPrefix: 24}]
  connectivityEnabled: [PodNetwork]
`

func main() {
	nb := flag.String("nb", "", "Northbound endpoints, comma separated; empty starts an embedded in-memory NB")
	flag.Parse()
	if err := run(context.Background(), os.Stdout, *nb); err != nil {
		fmt.Fprintln(os.Stderr, "connect:", err)
		os.Exit(1)
	}
}

const zone = "zone-a"

func nodes() []topology.Node {
	var out []topology.Node
	for i, name := range []string{"node-a", "node-b"} {
		id := ipam.MinNodeID + i
		out = append(out, topology.Node{Name: name, ID: id, Zone: zone, Chassis: "chassis-" + name,
			Addresses: []netip.Prefix{netip.PrefixFrom(netip.AddrFrom4([4]byte{172, 18, 0, byte(id)}), 16)},
			NextHops:  []netip.Addr{netip.MustParseAddr("172.18.0.1")}})
	}
	return out
}

// plan returns the zone's state: the networks and the connect, from one
// udnkit.Cluster (4 calls: New, AddUDN per network, SetConnect, Plan).
func plan(w io.Writer) (topology.State, error) {
	cluster, err := udnkit.New(udnkit.Config{Nodes: nodes()})
	if err != nil {
		return topology.State{}, err
	}
	for _, doc := range strings.Split(udns, "---") {
		u, err := netconf.DecodeUDN([]byte(doc))
		if err != nil {
			return topology.State{}, err
		}
		if _, err := cluster.AddUDN(u); err != nil {
			return topology.State{}, err
		}
	}
	c, err := connect.Decode([]byte(cnc))
	if err != nil {
		return topology.State{}, err
	}
	acc, _, err := cluster.SetConnect(c)
	if err != nil {
		return topology.State{}, err
	}
	fmt.Fprintf(w, "%s %s: %s=%s (%s)\n", connect.Kind, c.Name, acc.Condition.Type, acc.Condition.Status, acc.Condition.Reason)
	if !acc.Accepted() {
		return topology.State{}, fmt.Errorf("%s", acc.Condition.Message)
	}
	for _, o := range cluster.Annotations().Connects {
		for _, k := range slices.Sorted(maps.Keys(o.Annotations)) {
			fmt.Fprintf(w, "  annotation %s: %s\n", k, o.Annotations[k])
		}
	}
	return cluster.Plan(zone)
}

func run(ctx context.Context, w io.Writer, endpoints string) error {
	var head strings.Builder
	desired, err := plan(&head)
	if err != nil {
		return err
	}
	c, closeNB, err := ovnnb.Open(ctx, endpoints)
	if err != nil {
		return err
	}
	defer closeNB()
	_, _ = io.WriteString(w, head.String())
	changes, _, err := c.Sync(ctx, desired)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "applied %d rows of %v\n", len(changes), desired.Controllers())
	observed, err := c.Observe(ctx)
	if err != nil {
		return err
	}
	report(w, observed)
	changes, _, err = c.Sync(ctx, desired)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "\napplying the plan again: %d changes\n", len(changes))
	return nil
}

// report prints the connect router's ports and routes, and, per network
// router, where its reroute policies send traffic.
func report(w io.Writer, s topology.State) {
	router := connect.RouterName("blue-green", udn.ProfileSeeds)
	fmt.Fprintf(w, "\nrouter %s\n", router)
	for o := range s.Objects() {
		switch x := o.(type) {
		case topology.RouterPort:
			if x.Router == router {
				fmt.Fprintf(w, "  port %s %s %v peer=%s\n", x.Name, x.MAC, x.Networks, x.Peer)
			}
		case topology.StaticRoute:
			if x.Router == router {
				fmt.Fprintf(w, "  route %s via %s\n", x.Prefix, x.Nexthop)
			}
		}
	}
	fmt.Fprintln(w, "\nreachability (priority-9001 reroutes to the connect router)")
	for o := range s.Objects() {
		if p, ok := o.(topology.Policy); ok && p.Priority == connect.PolicyPriority {
			fmt.Fprintf(w, "  %s: %s -> %v\n", p.Router, p.Match, p.Nexthops)
		}
	}
	fmt.Fprintln(w, "  red_red: no route to blue or green (not selected)")
}
