package diagram_test

import (
	"fmt"
	"net/netip"

	"github.com/udnkit/udnkit/topology"
	"github.com/udnkit/udnkit/topology/diagram"
)

// A switch and a router joined by a router port, drawn as Mermaid.
func ExampleMermaid() {
	own := topology.Owner{Network: "tenant-a_blue"}
	var b topology.Builder
	b.Add(topology.Switch{Owner: own, Name: "blue_node1", OtherConfig: topology.NewOptions("subnet", "10.128.1.0/24")},
		topology.Router{Owner: own, Name: "blue_ovn_cluster_router"},
		topology.RouterPort{Owner: own, Name: "rtos-blue_node1", Router: "blue_ovn_cluster_router", MAC: "0a:58:0a:80:01:01",
			Networks: []netip.Prefix{netip.MustParsePrefix("10.128.1.1/24")}},
		topology.SwitchPort{Owner: own, Name: "stor-blue_node1", Switch: "blue_node1", Type: topology.PortRouter,
			Addresses: []string{"router"}, Options: topology.NewOptions(topology.OptRouterPort, "rtos-blue_node1")})
	st, err := b.State()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(diagram.Mermaid(st))
	// Output:
	// graph LR
	//   subgraph g0["network tenant-a_blue"]
	//     n0(["router blue_ovn_cluster_router"])
	//     n1["switch blue_node1<br/>10.128.1.0/24"]
	//   end
	//   n1 ---|"stor-blue_node1<br/>rtos-blue_node1 10.128.1.1/24"| n0
}
