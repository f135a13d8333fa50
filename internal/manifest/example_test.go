package manifest_test

import (
	"fmt"
	"strings"

	"github.com/udnkit/udnkit"
	"github.com/udnkit/udnkit/internal/manifest"
)

// Read a kubectl List, validate it, and build the Cluster: the node's ID is
// restored from its annotation, the network's allocated and reported.
func ExampleLoad() {
	objs, err := manifest.Read(strings.NewReader(`
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata:
    name: node-a
    annotations:
      k8s.ovn.org/node-id: "7"
      k8s.ovn.org/node-chassis-id: chassis-a
      k8s.ovn.org/l3-gateway-config: '{"default":{"mode":"shared","ip-addresses":["172.18.0.2/16"],"next-hops":["172.18.0.1"]}}'
- apiVersion: k8s.ovn.org/v1
  kind: UserDefinedNetwork
  metadata: {name: blue, namespace: tenant-a}
  spec: {topology: Layer3, role: Primary, subnets: ["10.128.0.0/16/24"]}
`), "cluster.yaml")
	if err != nil {
		fmt.Println(err)
		return
	}
	set, errs := manifest.Decode(objs)
	if len(errs) > 0 || len(set.Validate()) > 0 {
		fmt.Println(errs, set.Validate())
		return
	}
	l, err := manifest.Load(set, udnkit.Config{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, a := range l.Allocated {
		fmt.Println("allocated:", a)
	}
	st, _ := l.Cluster.Plan("node-a")
	fmt.Println(st.Len(), "rows for zone node-a")
	// Output:
	// allocated: Node node-a: k8s.ovn.org/node-subnets={"tenant-a_blue":["10.128.0.0/24"]}
	// allocated: NetworkAttachmentDefinition tenant-a/blue: k8s.ovn.org/network-id=1
	// allocated: NetworkAttachmentDefinition tenant-a/blue: k8s.ovn.org/network-name=tenant-a_blue
	// 38 rows for zone node-a
}
