package kube_test

import (
	"fmt"

	"github.com/udnkit/udnkit/topology/egressip"
	"github.com/udnkit/udnkit/topology/egressip/kube"
)

// An EgressIP read from YAML; its status written back as a merge patch.
func ExampleEgressIPFrom() {
	obj, err := kube.Decode([]byte(sample))
	if err != nil {
		panic(err)
	}
	e, err := kube.EgressIPFrom(obj)
	if err != nil {
		panic(err)
	}
	fmt.Println(e.Name, e.IPs, e.Mark)
	fmt.Printf("%s\n", kube.StatusPatch(egressip.Status{EgressIP: e.Name, Items: e.Status}))
	// Output:
	// egressip-prod [172.18.0.33 fc00:f853:ccd:e793::33] 50001
	// {"status":{"items":[{"node":"ovn-worker","egressIP":"172.18.0.33"}]}}
}
