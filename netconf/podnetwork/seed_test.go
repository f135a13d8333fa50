package podnetwork

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// The KEP's examples, verbatim.
const (
	seedPodNetwork = `apiVersion: v1
kind: PodNetwork
metadata:
  name: dataplane
spec:
  enabled: true
  provider: "foo.io/bar"
status:
  conditions:
  - lastProbeTime: null
    lastTransitionTime: "2022-11-17T18:38:01Z"
    status: "True"
    type: Ready
`
	seedPodNetworkParams = `apiVersion: v1
kind: PodNetwork
metadata:
  name: dataplane
spec:
  enabled: true
  provider: "k8s.cni.cncf.io/multus"
  parametersRefs:
  - group: k8s.cni.cncf.io
    kind: network-attachment-definitions
    name: parametersA
    namespace: default
  - group: k8s.cni.cncf.io
    kind: network-attachment-definitions
    name: complementaryParametersB
    namespace: default
status:
  conditions:
  - lastProbeTime: null
    lastTransitionTime: "2022-11-17T18:38:01Z"
    status: "True"
    type: Ready
  - lastProbeTime: null
    lastTransitionTime: "2022-11-17T18:38:01Z"
    status: "True"
    type: ParamsReady
`
	seedPNA = `apiVersion: v1
kind: PodNetworkAttachment
metadata:
  name: pod1
  namespace: default
spec:
  podNetworkName: "dataplane"
  parametersRefs:
  - group: k8s.cni.cncf.io
    kind: podParams
    name: parametersA
    namespace: default
status:
  conditions:
  - lastProbeTime: null
    lastTransitionTime: "2022-11-17T18:38:01Z"
    status: "True"
    type: Ready
  - lastProbeTime: null
    lastTransitionTime: "2022-11-17T18:38:01Z"
    status: "True"
    type: ParamsReady
`
	seedPod = `kind: Pod
metadata:
  name: pod1
  namespace: default
spec:
[...]
  networks:
  - podNetwork: default
    interfaceName: eth0
    primary: true
  - podNetwork: dataplane1
    interfaceName: net1
  - podNetworkAttachmentName: my-interface-fast
    interfaceName: net2
status:
[...]
  podIP: 192.168.5.54
  podIPs:
  - ip: 192.168.5.54
    podNetwork: default
    interfaceName: eth0
  - ip: 10.0.0.20
    podNetwork: dataplane1
    interfaceName: net1
  - ip: 2011::233
    podNetwork: my-interface-fast
    interfaceName: net2
`
)

// withoutProbeTime drops the PodCondition field the KEP's YAML carries.
func withoutProbeTime(s string) string {
	return strings.ReplaceAll(s, "- lastProbeTime: null\n    lastTransitionTime", "- lastTransitionTime")
}

// asStructTags rewrites the pod example to the KEP's struct tags and
// removes its elisions.
func asStructTags(s string) string {
	s = strings.ReplaceAll(s, "[...]\n", "")
	s = strings.ReplaceAll(s, "  - podNetwork: ", "  - podNetworkName: ")
	return strings.ReplaceAll(s, "    primary: true\n", "    isDefaultGW4: true\n    isDefaultGW6: true\n")
}

func TestSeedObjectsVerbatimRefuseLastProbeTime(t *testing.T) {
	for _, s := range []string{seedPodNetwork, seedPodNetworkParams, seedPNA} {
		_, err := Decode([]byte(s))
		if err == nil || !strings.Contains(err.Error(), "lastProbeTime") {
			t.Errorf("want an error naming lastProbeTime, got %v", err)
		}
	}
}

func TestSeedObjectsDecodeAndValidate(t *testing.T) {
	pn, err := DecodePodNetwork([]byte(withoutProbeTime(seedPodNetwork)))
	if err != nil {
		t.Fatal(err)
	}
	if pn.Name != "dataplane" || !pn.Spec.IsEnabled() || pn.Spec.Provider != "foo.io/bar" || !IsReady(pn.Status.Conditions) {
		t.Errorf("decoded %+v", pn)
	}
	if errs := ValidatePodNetwork(pn); len(errs) != 0 {
		t.Errorf("ValidatePodNetwork: %v", errs)
	}
	pnp, err := DecodePodNetwork([]byte(withoutProbeTime(seedPodNetworkParams)))
	if err != nil {
		t.Fatal(err)
	}
	if len(pnp.Spec.ParametersRefs) != 2 || !IsNADRef(pnp.Spec.ParametersRefs[1]) {
		t.Errorf("refs %+v", pnp.Spec.ParametersRefs)
	}
	if errs := ValidatePodNetwork(pnp); len(errs) != 0 {
		t.Errorf("ValidatePodNetwork: %v", errs)
	}
	pna, err := DecodePodNetworkAttachment([]byte(withoutProbeTime(seedPNA)))
	if err != nil {
		t.Fatal(err)
	}
	if pna.Spec.PodNetworkName != "dataplane" || IsNADRef(pna.Spec.ParametersRefs[0]) {
		t.Errorf("decoded %+v", pna)
	}
	if errs := ValidatePodNetworkAttachment(pna); len(errs) != 0 {
		t.Errorf("ValidatePodNetworkAttachment: %v", errs)
	}
	// The seed's NAD names are not object names: Resolve refuses them.
	pod := &PodNetworks{Namespace: "default", Name: "p", Networks: []Network{{PodNetworkName: "dataplane"}}}
	_, errs := Resolve(pod, Objects{PodNetworks: []*PodNetwork{pnp}})
	if len(errs) != 2 || errs[0].Field != "spec.networks[0].podNetworkName" || !strings.Contains(errs[0].Detail, "NAD that cannot exist") {
		t.Errorf("Resolve: %v", errs)
	}
}

func TestSeedPodVerbatimRefused(t *testing.T) {
	// As written it is not even YAML ("[...]").
	if _, err := DecodePod([]byte(seedPod)); err == nil {
		t.Error("the verbatim pod decoded")
	}
	// Without the elisions, podNetwork/primary are unknown fields.
	_, err := DecodePod([]byte(strings.ReplaceAll(seedPod, "[...]\n", "")))
	if err == nil || !strings.Contains(err.Error(), "spec.networks") || !strings.Contains(err.Error(), "podNetwork") {
		t.Errorf("want an unknown-field error in spec.networks, got %v", err)
	}
}

func TestSeedPodAsStructTags(t *testing.T) {
	p, err := DecodePod([]byte(asStructTags(seedPod)))
	if err != nil {
		t.Fatal(err)
	}
	want := []Network{
		{PodNetworkName: "default", InterfaceName: "eth0", IsDefaultGW4: true, IsDefaultGW6: true},
		{PodNetworkName: "dataplane1", InterfaceName: "net1"},
		{PodNetworkAttachmentName: "my-interface-fast", InterfaceName: "net2"},
	}
	if !reflect.DeepEqual(p.Networks, want) || p.Namespace != "default" || p.Name != "pod1" || len(p.PodIPs) != 3 {
		t.Fatalf("decoded %+v", p)
	}
	if errs := ValidatePod(p); len(errs) != 0 {
		t.Errorf("ValidatePod: %v", errs)
	}
	// Round trip through the pod shape.
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	again, err := DecodePod(b)
	if err != nil || !reflect.DeepEqual(again, p) {
		t.Errorf("round trip: %s -> %+v, %v", b, again, err)
	}

	// With the objects it names, it passes the active checks and resolves.
	objs := seedObjects()
	if errs := ValidatePodActive(p, objs); len(errs) != 0 {
		t.Errorf("ValidatePodActive: %v", errs)
	}
	atts, errs := Resolve(p, objs)
	if len(errs) != 0 {
		t.Fatal(errs)
	}
	if got := NADKeys(atts); !reflect.DeepEqual(got, []string{"default", "default/fast-nad", "tenant/dataplane1"}) {
		t.Errorf("NADKeys = %v", got)
	}
	if atts[2].PodNetwork != "dataplane2" || atts[2].PodNetworkAttachment != "my-interface-fast" {
		t.Errorf("attachment %+v", atts[2])
	}
}

// seedObjects are the objects the seed's pod names, Ready: dataplane1 with
// a NAD in namespace tenant, the attachment my-interface-fast (of
// dataplane2) with its own NAD in the pod's namespace.
func seedObjects() Objects {
	ready := readyConditions()
	return Objects{
		PodNetworks: []*PodNetwork{
			{ObjectMeta: objMeta("default", ""), Status: PodNetworkStatus{Conditions: ready}},
			{ObjectMeta: objMeta("dataplane1", ""), Spec: PodNetworkSpec{ParametersRefs: []ParametersRef{nadRef("dataplane1", "tenant")}},
				Status: PodNetworkStatus{Conditions: ready}},
			{ObjectMeta: objMeta("dataplane2", ""), Spec: PodNetworkSpec{ParametersRefs: []ParametersRef{nadRef("dataplane2", "tenant")}},
				Status: PodNetworkStatus{Conditions: ready}},
		},
		PodNetworkAttachments: []*PodNetworkAttachment{
			{ObjectMeta: objMeta("my-interface-fast", "default"),
				Spec:   PodNetworkAttachmentSpec{PodNetworkName: "dataplane2", ParametersRefs: []ParametersRef{nadRef("fast-nad", "")}},
				Status: PodNetworkAttachmentStatus{Conditions: ready}},
		},
	}
}
