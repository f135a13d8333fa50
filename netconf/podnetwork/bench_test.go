package podnetwork

import (
	"fmt"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// BenchmarkAdmitPod: one pod of 8 networks checked statically and against
// 1,000 ready PodNetworks held in Objects (a linear Lookup), then resolved
// to its NAD keys: the work per pod of an admission or CNI path.
func BenchmarkAdmitPod(b *testing.B) {
	now := metav1.NewTime(time.Unix(0, 0))
	var objs Objects
	pod := &PodNetworks{Namespace: "tenant", Name: "web"}
	for i := range 1000 {
		pn := &PodNetwork{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("net%d", i)},
			Spec: PodNetworkSpec{Provider: "k8s.ovn.org/ovn-kubernetes", ParametersRefs: []ParametersRef{
				{Group: "k8s.cni.cncf.io", Kind: "network-attachment-definitions", Name: fmt.Sprintf("net%d", i), Namespace: "tenant"}}}}
		SetPodNetworkDefaults(pn)
		pn.Status.Conditions = PodNetworkConditions(pn, ConditionsInput{Now: now, Params: &ParamsVerdict{Ready: true, Reason: "NADReady"}})
		objs.PodNetworks = append(objs.PodNetworks, pn)
		if i%125 == 0 {
			pod.Networks = append(pod.Networks, Network{PodNetworkName: pn.Name, InterfaceName: fmt.Sprintf("net%d", len(pod.Networks)+1)})
		}
	}
	pod.Networks[0].IsDefaultGW4 = true
	b.ReportAllocs()
	for b.Loop() {
		if errs := append(ValidatePod(pod), ValidatePodActive(pod, objs)...); len(errs) > 0 {
			b.Fatal(errs)
		}
		if _, errs := Resolve(pod, objs); len(errs) > 0 {
			b.Fatal(errs)
		}
	}
}
