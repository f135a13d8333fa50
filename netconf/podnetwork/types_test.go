package podnetwork

import (
	"errors"
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestDecodeDispatchAndErrors(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want any
	}{
		{"kind: PodNetwork\nmetadata: {name: a}\n", &PodNetwork{}},
		{"kind: PodNetworkAttachment\nmetadata: {name: a, namespace: b}\nspec: {podNetworkName: c}\n", &PodNetworkAttachment{}},
		{"kind: Pod\nmetadata: {name: a}\n", &PodNetworks{}},
	} {
		v, err := Decode([]byte(tc.in))
		if err != nil || reflect.TypeOf(v) != reflect.TypeOf(tc.want) {
			t.Errorf("Decode(%q) = %T, %v", tc.in, v, err)
		}
	}
	for _, in := range []string{
		"kind: Service\n", "{}", "[1]",
		"kind: PodNetwork\nspec: {enabeld: false}\n",
		"kind: PodNetworkAttachment\nspec: {podNetwork: x}\n",
		"kind: Pod\nspec: {networks: [{podNetworkName: a, primary: true}]}\n",
		"kind: Pod\nstatus: {podIPs: [{ip: 1.2.3.4, network: a}]}\n",
		"kind: Pod\nspec: {networks: {podNetworkName: a}}\n",
	} {
		if _, err := Decode([]byte(in)); !errors.Is(err, ErrDecode) {
			t.Errorf("Decode(%q): %v does not wrap ErrDecode", in, err)
		}
	}
	if _, err := DecodePodNetwork([]byte("kind: PodNetworkAttachment\n")); !errors.Is(err, ErrDecode) {
		t.Errorf("wrong kind: %v", err)
	}
	if _, err := DecodePod([]byte("kind: PodNetwork\n")); !errors.Is(err, ErrDecode) {
		t.Errorf("wrong kind: %v", err)
	}
	pn, _ := DecodePodNetwork([]byte("metadata: {name: a}\n"))
	if pn.Kind != KindPodNetwork || pn.APIVersion != APIVersion {
		t.Errorf("TypeMeta %+v", pn.TypeMeta)
	}
}

func TestDeepCopyIsDeep(t *testing.T) {
	pn := &PodNetwork{ObjectMeta: metav1.ObjectMeta{Name: "a", Labels: map[string]string{"k": "v"}},
		Spec:   PodNetworkSpec{Enabled: boolPtr(true), ParametersRefs: []ParametersRef{nadRef("n", "")}},
		Status: PodNetworkStatus{Conditions: readyConditions()}}
	c := pn.DeepCopy()
	*c.Spec.Enabled, c.Spec.ParametersRefs[0].Name, c.Status.Conditions[0].Reason, c.Labels["k"] = false, "m", "X", "w"
	if !*pn.Spec.Enabled || pn.Spec.ParametersRefs[0].Name != "n" || pn.Status.Conditions[0].Reason != ReasonReady || pn.Labels["k"] != "v" {
		t.Errorf("DeepCopy shares memory: %+v", pn)
	}
	pna := &PodNetworkAttachment{Spec: PodNetworkAttachmentSpec{ParametersRefs: []ParametersRef{nadRef("n", "")}}, Status: PodNetworkAttachmentStatus{Conditions: readyConditions()}}
	ca := pna.DeepCopyObject().(*PodNetworkAttachment)
	ca.Spec.ParametersRefs[0].Name, ca.Status.Conditions[0].Reason = "m", "X"
	if pna.Spec.ParametersRefs[0].Name != "n" || pna.Status.Conditions[0].Reason != ReasonReady {
		t.Error("DeepCopyObject shares memory")
	}
	p := &PodNetworks{Networks: []Network{{PodNetworkName: "a"}}, PodIPs: []PodIP{{IP: "1.2.3.4"}}}
	cp := p.Clone()
	cp.Networks[0].PodNetworkName, cp.PodIPs[0].IP = "b", "5.6.7.8"
	if p.Networks[0].PodNetworkName != "a" || p.PodIPs[0].IP != "1.2.3.4" {
		t.Error("Clone shares memory")
	}
	var nilPN *PodNetwork
	if nilPN.DeepCopy() != nil || nilPN.DeepCopyObject() != nil {
		t.Error("nil DeepCopy")
	}
}

func TestPodNetworksOf(t *testing.T) {
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns"},
		Spec:   corev1.PodSpec{HostNetwork: true},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, PodIPs: []corev1.PodIP{{IP: "10.0.0.1"}, {IP: "fd00::1"}}}}
	got := PodNetworksOf(pod)
	want := PodNetworks{Namespace: "ns", Name: "p", HostNetwork: true, Phase: corev1.PodRunning,
		PodIPs: []PodIP{{IP: "10.0.0.1"}, {IP: "fd00::1"}}}
	if !reflect.DeepEqual(got, want) || got.Key() != "ns/p" {
		t.Errorf("got %+v", got)
	}
}
