package kube_test

import (
	"testing"

	"github.com/udnkit/udnkit/topology/egressqos/kube"
)

// FuzzEgressQoSFrom: any bytes decode or fail without a panic; what
// converts validates and plans.
func FuzzEgressQoSFrom(f *testing.F) {
	f.Add([]byte(sample))
	f.Add([]byte(`{"metadata":{"name":"default","namespace":"n"},"spec":{"egress":[{"dscp":63,"dstCIDR":"::/0"}]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		obj, err := kube.Decode(data)
		if err != nil {
			return
		}
		q, ok, err := kube.EgressQoSFrom(obj)
		if err != nil || !ok {
			return
		}
		if err := q.Validate(); err != nil {
			t.Errorf("converted but invalid: %v", err)
		}
	})
}
