package nbctl_test

import (
	"fmt"

	"github.com/udnkit/udnkit/backend/nbctl"
	"github.com/udnkit/udnkit/netconf"
	"github.com/udnkit/udnkit/topology"
)

// Render the creation of a switch with one port as an ovn-nbctl script.
func ExampleScript() {
	own := topology.Owner{Network: "demo_net", Topology: netconf.TopologyLayer2, Role: netconf.RoleSecondary}
	var b topology.Builder
	b.Add(
		topology.Switch{Owner: own, Name: "demo_net_ovn_layer2_switch"},
		topology.SwitchPort{Owner: own, Name: "pod-1", Switch: "demo_net_ovn_layer2_switch",
			Addresses: []string{"0a:58:0a:00:00:05 10.0.0.5"}},
	)
	desired, _ := b.State()
	script, err := nbctl.Script(topology.Diff(topology.State{}, desired), nbctl.Config{})
	if err != nil {
		panic(err)
	}
	fmt.Print(script)
	// Output:
	// #!/bin/sh
	// # udnkit: 2 changes (2 create, 0 update, 0 delete)
	// set -e
	//
	// # create switch demo_net_ovn_layer2_switch
	// ovn-nbctl -- --id=@r1 create Logical_Switch 'external_ids={"k8s.ovn.org/network"="demo_net","k8s.ovn.org/owner-controller"="udnkit-topology","k8s.ovn.org/role"="secondary","k8s.ovn.org/topology"="layer2"}' 'name="demo_net_ovn_layer2_switch"' >/dev/null
	//
	// # create switch_port pod-1
	// ovn-nbctl -- --id=@r1 create Logical_Switch_Port 'addresses=["0a:58:0a:00:00:05 10.0.0.5"]' 'external_ids={"k8s.ovn.org/network"="demo_net","k8s.ovn.org/owner-controller"="udnkit-topology","k8s.ovn.org/role"="secondary","k8s.ovn.org/topology"="layer2"}' 'name="pod-1"' -- add Logical_Switch demo_net_ovn_layer2_switch ports @r1 >/dev/null
}
