package podnetwork

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// TestBoundedMessages: a PodNetwork's refs, a PodNetworkAttachment and a
// pod's networks with 10 MB fields give errors of a few KiB that name the
// field (issue 22).
func TestBoundedMessages(t *testing.T) {
	big := strings.Repeat("a", 10<<20)
	check := func(name, field string, errs field.ErrorList) {
		t.Helper()
		m := errs.ToAggregate()
		if m == nil || len(m.Error()) > 8<<10 || !strings.Contains(m.Error(), field) {
			t.Errorf("%s: %d errors, %.300v", name, len(errs), m)
		}
	}
	pn := &PodNetwork{ObjectMeta: metav1.ObjectMeta{Name: "net"}, Spec: PodNetworkSpec{
		ParametersRefs: []ParametersRef{{Group: big, Kind: big, Name: big, Namespace: big}}, Provider: big}}
	check("PodNetwork refs", "spec.parametersRefs[0]", ValidatePodNetwork(pn))
	pn = &PodNetwork{ObjectMeta: metav1.ObjectMeta{Name: big}}
	check("PodNetwork name", "metadata.name", ValidatePodNetwork(pn))
	pna := &PodNetworkAttachment{ObjectMeta: metav1.ObjectMeta{Name: big, Namespace: big}, Spec: PodNetworkAttachmentSpec{PodNetworkName: big,
		ParametersRefs: []ParametersRef{{Name: big}}}}
	check("PodNetworkAttachment", "spec.podNetworkName", ValidatePodNetworkAttachment(pna))
	pod := &PodNetworks{Namespace: "ns", Name: "p", Networks: []Network{{PodNetworkName: big, InterfaceName: big}, {PodNetworkAttachmentName: big}}}
	check("pod networks", "spec.networks[0]", ValidatePod(pod))
}
