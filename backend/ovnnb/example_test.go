package ovnnb_test

import (
	"context"
	"fmt"

	"github.com/udnkit/udnkit/backend/ovnnb"
	"github.com/udnkit/udnkit/netconf"
	"github.com/udnkit/udnkit/topology"
)

// Apply a small state to the embedded Northbound database, then apply it
// again: the second time nothing is written.
func Example() {
	e, err := ovnnb.StartEmbedded()
	if err != nil {
		panic(err)
	}
	defer e.Close()
	ctx := context.Background()
	c, err := ovnnb.Dial(ctx, e.Config())
	if err != nil {
		panic(err)
	}
	defer c.Close()

	own := topology.Owner{Network: "demo_net", Topology: netconf.TopologyLayer2, Role: netconf.RoleSecondary}
	var b topology.Builder
	b.Add(
		topology.Switch{Owner: own, Name: "demo_net_ovn_layer2_switch"},
		topology.SwitchPort{Owner: own, Name: "pod-1", Switch: "demo_net_ovn_layer2_switch",
			Addresses: []string{"0a:58:0a:00:00:05 10.0.0.5"}},
	)
	desired, err := b.State()
	if err != nil {
		panic(err)
	}
	changes, res, err := c.Sync(ctx, desired)
	if err != nil {
		panic(err)
	}
	fmt.Print(changes)
	fmt.Printf("%d operations in %d transaction\n", res.Operations, res.Transactions)
	changes, res, _ = c.Sync(ctx, desired)
	fmt.Printf("again: %d changes, %d operations\n", len(changes), res.Operations)
	// Output:
	// create switch demo_net_ovn_layer2_switch
	//     switch demo_net_ovn_layer2_switch owner=demo_net/Layer2/Secondary/
	// create switch_port pod-1
	//     switch_port pod-1 switch=demo_net_ovn_layer2_switch addresses=["0a:58:0a:00:00:05 10.0.0.5"] owner=demo_net/Layer2/Secondary/
	// 3 operations in 1 transaction
	// again: 0 changes, 0 operations
}
