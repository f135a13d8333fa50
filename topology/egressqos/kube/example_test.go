package kube_test

import (
	"fmt"

	"github.com/udnkit/udnkit/topology/egressqos/kube"
)

// An EgressQoS read from YAML, and the condition its zone reports.
func ExampleEgressQoSFrom() {
	obj, err := kube.Decode([]byte(sample))
	if err != nil {
		panic(err)
	}
	q, ok, err := kube.EgressQoSFrom(obj)
	if err != nil || !ok {
		panic(err)
	}
	fmt.Println(q.Namespace, len(q.Rules), q.Rules[0].DSCP, q.Rules[0].DstCIDR)
	c := kube.Condition("node1", obj.Generation, nil)
	fmt.Println(c.Type, c.Status, c.Reason)
	// Output:
	// default 3 30 1.2.3.0/24
	// Ready-In-Zone-node1 True SetupSucceeded
}
