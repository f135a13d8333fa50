package udnkit_test

import (
	"context"
	"fmt"
	"net/netip"

	"github.com/udnkit/udnkit"
	"github.com/udnkit/udnkit/backend/ovnnb"
	"github.com/udnkit/udnkit/netconf"
	"github.com/udnkit/udnkit/topology"
)

// From a UserDefinedNetwork to rows in an OVN Northbound database: add it to
// the cluster's networks (validated, normalised, ID and tunnel keys
// allocated), plan one node's zone, and sync.
func Example() {
	u, err := netconf.DecodeUDN([]byte(`
kind: UserDefinedNetwork
metadata: {name: red, namespace: tenant-b, uid: 6c1f0a52-3f4e-4d59-9a41-0f3b7c2e8d10}
spec: {topology: Layer2, role: Primary, subnets: ["10.128.0.0/16"]}
`))
	if err != nil {
		panic(err)
	}
	node := func(name string, id int) topology.Node {
		return topology.Node{Name: name, ID: id, Chassis: "chassis-" + name,
			Addresses: []netip.Prefix{netip.PrefixFrom(netip.AddrFrom4([4]byte{172, 18, 0, byte(id)}), 16)},
			NextHops:  []netip.Addr{netip.MustParseAddr("172.18.0.1")}}
	}
	networks, err := udnkit.New(udnkit.Config{Nodes: []topology.Node{node("node-a", 2), node("node-b", 3)}})
	if err != nil {
		panic(err)
	}
	network, err := networks.AddUDN(u)
	if err != nil {
		panic(err)
	}
	desired, err := networks.Plan("node-a")
	if err != nil {
		panic(err)
	}

	nb, err := ovnnb.StartEmbedded()
	if err != nil {
		panic(err)
	}
	defer nb.Close()
	ctx := context.Background()
	client, err := ovnnb.Dial(ctx, nb.Config())
	if err != nil {
		panic(err)
	}
	defer client.Close()
	for range 2 {
		changes, result, err := client.Sync(ctx, desired)
		if err != nil {
			panic(err)
		}
		fmt.Printf("%s: %d changes, %d rows written\n", network.Name, len(changes), result.Rows)
	}
	// Output:
	// tenant-b_red: 33 changes, 34 rows written
	// tenant-b_red: 0 changes, 0 rows written
}
