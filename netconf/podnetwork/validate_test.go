package podnetwork

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestValidatePod(t *testing.T) {
	dp := func(name string) Network { return Network{PodNetworkName: name} }
	for _, tc := range []struct {
		name string
		pod  PodNetworks
		want []string
	}{
		{"defaulted", PodNetworks{Networks: []Network{dp("default")}}, nil},
		{"host network, no networks", PodNetworks{HostNetwork: true}, nil},
		{"no networks", PodNetworks{}, []string{"spec.networks: FieldValueRequired"}},
		{"networks with hostNetwork", PodNetworks{HostNetwork: true, Networks: []Network{dp("default")}},
			[]string{"spec.networks: FieldValueForbidden"}},
		{"neither name", PodNetworks{Networks: []Network{dp("a"), {InterfaceName: "net1"}}},
			[]string{"spec.networks[1].podNetworkName: FieldValueRequired"}},
		{"both names", PodNetworks{Networks: []Network{{PodNetworkName: "a", PodNetworkAttachmentName: "b"}}},
			[]string{"spec.networks[0].podNetworkAttachmentName: FieldValueForbidden"}},
		{"PodNetwork twice", PodNetworks{Networks: []Network{dp("a"), dp("b"), dp("a")}},
			[]string{"spec.networks[2].podNetworkName: FieldValueDuplicate"}},
		{"attachment twice", PodNetworks{Networks: []Network{{PodNetworkAttachmentName: "x"}, {PodNetworkAttachmentName: "x"}}},
			[]string{"spec.networks[1].podNetworkAttachmentName: FieldValueDuplicate"}},
		{"invalid PodNetwork name", PodNetworks{Networks: []Network{dp("Data_Plane")}},
			[]string{"spec.networks[0].podNetworkName: FieldValueInvalid"}},
		{"invalid attachment name", PodNetworks{Networks: []Network{{PodNetworkAttachmentName: "a/b"}}},
			[]string{"spec.networks[0].podNetworkAttachmentName: FieldValueInvalid"}},
		{"two IPv4 default gateways", PodNetworks{Networks: []Network{{PodNetworkName: "a", IsDefaultGW4: true}, {PodNetworkName: "b", IsDefaultGW4: true}}},
			[]string{"spec.networks[1].isDefaultGW4: FieldValueInvalid"}},
		{"two IPv6 default gateways", PodNetworks{Networks: []Network{{PodNetworkName: "a", IsDefaultGW6: true}, {PodNetworkName: "b", IsDefaultGW6: true}, {PodNetworkName: "c", IsDefaultGW6: true}}},
			[]string{"spec.networks[1].isDefaultGW6: FieldValueInvalid", "spec.networks[2].isDefaultGW6: FieldValueInvalid"}},
		{"one gateway of each family on different networks", PodNetworks{Networks: []Network{{PodNetworkName: "a", IsDefaultGW4: true}, {PodNetworkName: "b", IsDefaultGW6: true}}}, nil},
		{"interface name twice", PodNetworks{Networks: []Network{{PodNetworkName: "a", InterfaceName: "net1"}, {PodNetworkName: "b", InterfaceName: "net1"}}},
			[]string{"spec.networks[1].interfaceName: FieldValueDuplicate"}},
		{"interface name 16 bytes", PodNetworks{Networks: []Network{{PodNetworkName: "a", InterfaceName: "abcdefghijklmnop"}}},
			[]string{"spec.networks[0].interfaceName: FieldValueInvalid"}},
		{"interface name 15 bytes", PodNetworks{Networks: []Network{{PodNetworkName: "a", InterfaceName: "abcdefghijklmno"}}}, nil},
		{"interface name with slash", PodNetworks{Networks: []Network{{PodNetworkName: "a", InterfaceName: "net/1"}}},
			[]string{"spec.networks[0].interfaceName: FieldValueInvalid"}},
		{"interface name with colon", PodNetworks{Networks: []Network{{PodNetworkName: "a", InterfaceName: "eth0:1"}}},
			[]string{"spec.networks[0].interfaceName: FieldValueInvalid"}},
		{"interface name with blank", PodNetworks{Networks: []Network{{PodNetworkName: "a", InterfaceName: "net 1"}}},
			[]string{"spec.networks[0].interfaceName: FieldValueInvalid"}},
		{"interface name dot", PodNetworks{Networks: []Network{{PodNetworkName: "a", InterfaceName: "."}}},
			[]string{"spec.networks[0].interfaceName: FieldValueInvalid"}},
		{"interface name dotdot", PodNetworks{Networks: []Network{{PodNetworkName: "a", InterfaceName: ".."}}},
			[]string{"spec.networks[0].interfaceName: FieldValueInvalid"}},
		{"interface name non-ASCII", PodNetworks{Networks: []Network{{PodNetworkName: "a", InterfaceName: "nét1"}}},
			[]string{"spec.networks[0].interfaceName: FieldValueInvalid"}},
		{"pod IP invalid", PodNetworks{Networks: []Network{dp("a")}, PodIPs: []PodIP{{IP: "10.0.0.300", PodNetworkName: "a"}}},
			[]string{"status.podIPs[0].ip: FieldValueInvalid"}},
		{"two IPv4 on one PodNetwork", PodNetworks{Networks: []Network{dp("a")}, PodIPs: []PodIP{{IP: "10.0.0.1", PodNetworkName: "a"}, {IP: "fd00::1", PodNetworkName: "a"}, {IP: "10.0.0.2", PodNetworkName: "a"}}},
			[]string{"status.podIPs[2].ip: FieldValueDuplicate"}},
		{"pod IP interface invalid", PodNetworks{Networks: []Network{dp("a")}, PodIPs: []PodIP{{IP: "10.0.0.1", PodNetworkName: "a", InterfaceName: "a/b"}}},
			[]string{"status.podIPs[0].interfaceName: FieldValueInvalid"}},
		{"plain pod IPs", PodNetworks{Networks: []Network{dp("a")}, PodIPs: []PodIP{{IP: "10.0.0.1"}, {IP: "10.0.0.2"}}}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := errorStrings(ValidatePod(&tc.pod))
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func TestValidatePodMessagesNameTheOtherNetwork(t *testing.T) {
	errs := ValidatePod(&PodNetworks{Networks: []Network{{PodNetworkName: "a", InterfaceName: "net1"}, {PodNetworkName: "a", InterfaceName: "net1"}}})
	if len(errs) != 2 {
		t.Fatal(errs)
	}
	for _, e := range errs {
		if !strings.Contains(e.Error(), "spec.networks[0]") {
			t.Errorf("%v does not name spec.networks[0]", e)
		}
	}
}

func TestSetPodDefaults(t *testing.T) {
	p := PodNetworks{}
	SetPodDefaults(&p)
	if !reflect.DeepEqual(p.Networks, []Network{{PodNetworkName: DefaultPodNetworkName}}) {
		t.Errorf("defaulted to %+v", p.Networks)
	}
	h := PodNetworks{HostNetwork: true}
	SetPodDefaults(&h)
	if h.Networks != nil {
		t.Errorf("host-network pod got %+v", h.Networks)
	}
	set := PodNetworks{Networks: []Network{{PodNetworkName: "x"}}}
	SetPodDefaults(&set)
	if len(set.Networks) != 1 || set.Networks[0].PodNetworkName != "x" {
		t.Errorf("listed networks changed: %+v", set.Networks)
	}
}

func TestSetPodNetworkDefaults(t *testing.T) {
	pn := &PodNetwork{}
	if !pn.Spec.IsEnabled() {
		t.Error("unset enabled is not true")
	}
	SetPodNetworkDefaults(pn)
	if pn.Spec.Enabled == nil || !*pn.Spec.Enabled {
		t.Errorf("enabled = %v", pn.Spec.Enabled)
	}
	off := &PodNetwork{Spec: PodNetworkSpec{Enabled: boolPtr(false)}}
	SetPodNetworkDefaults(off)
	if off.Spec.IsEnabled() {
		t.Error("defaulting turned enabled: false on")
	}
	// false survives a round trip (the KEP's omitempty bool would not).
	b, _ := yamlOf(off)
	again, err := DecodePodNetwork(b)
	if err != nil || again.Spec.IsEnabled() {
		t.Errorf("enabled false lost: %s, %v", b, err)
	}
	if d := DefaultPodNetwork(); d.Name != "default" || !d.Spec.IsEnabled() || len(ValidatePodNetwork(d)) != 0 {
		t.Errorf("DefaultPodNetwork = %+v", d)
	}
}

func TestValidatePodNetwork(t *testing.T) {
	long := strings.Repeat("a", 254)
	refs := func(n int) []ParametersRef {
		var out []ParametersRef
		for i := range n {
			out = append(out, nadRef(fmt.Sprintf("p%d", i), ""))
		}
		return out
	}
	cond := func(types ...string) []metav1.Condition {
		var out []metav1.Condition
		for _, ty := range types {
			out = append(out, metav1.Condition{Type: ty, Status: metav1.ConditionTrue, Reason: "R"})
		}
		return out
	}
	for _, tc := range []struct {
		name string
		pn   PodNetwork
		want []string
	}{
		{"minimal", PodNetwork{ObjectMeta: objMeta("a", "")}, nil},
		{"no name", PodNetwork{}, []string{"metadata.name: FieldValueRequired"}},
		{"bad name", PodNetwork{ObjectMeta: objMeta("A_b", "")}, []string{"metadata.name: FieldValueInvalid"}},
		{"namespaced", PodNetwork{ObjectMeta: objMeta("a", "ns")}, []string{"metadata.namespace: FieldValueForbidden"}},
		{"provider 253", PodNetwork{ObjectMeta: objMeta("a", ""), Spec: PodNetworkSpec{Provider: long[:253]}}, nil},
		{"provider 254", PodNetwork{ObjectMeta: objMeta("a", ""), Spec: PodNetworkSpec{Provider: long}}, []string{"spec.provider: FieldValueTooLong"}},
		{"provider with blank", PodNetwork{ObjectMeta: objMeta("a", ""), Spec: PodNetworkSpec{Provider: "foo bar"}}, []string{"spec.provider: FieldValueInvalid"}},
		{"ref without group, kind, name", PodNetwork{ObjectMeta: objMeta("a", ""), Spec: PodNetworkSpec{ParametersRefs: []ParametersRef{nadRef("x", ""), {}}}},
			[]string{"spec.parametersRefs[1].group: FieldValueRequired", "spec.parametersRefs[1].kind: FieldValueRequired", "spec.parametersRefs[1].name: FieldValueRequired"}},
		{"ref bad namespace", PodNetwork{ObjectMeta: objMeta("a", ""), Spec: PodNetworkSpec{ParametersRefs: []ParametersRef{nadRef("x", "Bad.NS")}}},
			[]string{"spec.parametersRefs[0].namespace: FieldValueInvalid"}},
		{"ref twice", PodNetwork{ObjectMeta: objMeta("a", ""), Spec: PodNetworkSpec{ParametersRefs: []ParametersRef{nadRef("x", "n"), nadRef("x", "n")}}},
			[]string{"spec.parametersRefs[1]: FieldValueDuplicate"}},
		{"ref name with blank", PodNetwork{ObjectMeta: objMeta("a", ""), Spec: PodNetworkSpec{ParametersRefs: []ParametersRef{nadRef("x y", "")}}},
			[]string{"spec.parametersRefs[0].name: FieldValueInvalid"}},
		{"16 refs", PodNetwork{ObjectMeta: objMeta("a", ""), Spec: PodNetworkSpec{ParametersRefs: refs(16)}}, nil},
		{"17 refs", PodNetwork{ObjectMeta: objMeta("a", ""), Spec: PodNetworkSpec{ParametersRefs: refs(17)}},
			[]string{"spec.parametersRefs: FieldValueTooMany"}},
		{"ref kind 254", PodNetwork{ObjectMeta: objMeta("a", ""), Spec: PodNetworkSpec{ParametersRefs: []ParametersRef{{Group: "g", Kind: long, Name: "n"}}}},
			[]string{"spec.parametersRefs[0].kind: FieldValueTooLong"}},
		{"5 conditions", PodNetwork{ObjectMeta: objMeta("a", ""), Status: PodNetworkStatus{Conditions: cond("A", "B", "C", "D", "E")}}, nil},
		{"6 conditions", PodNetwork{ObjectMeta: objMeta("a", ""), Status: PodNetworkStatus{Conditions: cond("A", "B", "C", "D", "E", "F")}},
			[]string{"status.conditions: FieldValueTooMany"}},
		{"condition type twice", PodNetwork{ObjectMeta: objMeta("a", ""), Status: PodNetworkStatus{Conditions: cond("Ready", "Ready")}},
			[]string{"status.conditions[1].type: FieldValueDuplicate"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := errorStrings(ValidatePodNetwork(&tc.pn))
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func TestValidatePodNetworkAttachment(t *testing.T) {
	for _, tc := range []struct {
		name string
		pna  PodNetworkAttachment
		want []string
	}{
		{"minimal", PodNetworkAttachment{ObjectMeta: objMeta("a", "ns"), Spec: PodNetworkAttachmentSpec{PodNetworkName: "pn"}}, nil},
		{"no namespace", PodNetworkAttachment{ObjectMeta: objMeta("a", ""), Spec: PodNetworkAttachmentSpec{PodNetworkName: "pn"}},
			[]string{"metadata.namespace: FieldValueRequired"}},
		{"bad namespace", PodNetworkAttachment{ObjectMeta: objMeta("a", "a.b"), Spec: PodNetworkAttachmentSpec{PodNetworkName: "pn"}},
			[]string{"metadata.namespace: FieldValueInvalid"}},
		{"no podNetworkName", PodNetworkAttachment{ObjectMeta: objMeta("a", "ns")},
			[]string{"spec.podNetworkName: FieldValueRequired"}},
		{"bad podNetworkName", PodNetworkAttachment{ObjectMeta: objMeta("a", "ns"), Spec: PodNetworkAttachmentSpec{PodNetworkName: "PN"}},
			[]string{"spec.podNetworkName: FieldValueInvalid"}},
		{"ref without kind", PodNetworkAttachment{ObjectMeta: objMeta("a", "ns"), Spec: PodNetworkAttachmentSpec{PodNetworkName: "pn",
			ParametersRefs: []ParametersRef{{Group: "g", Name: "n"}}}},
			[]string{"spec.parametersRefs[0].kind: FieldValueRequired"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := errorStrings(ValidatePodNetworkAttachment(&tc.pna))
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func TestValidateUpdates(t *testing.T) {
	old := &PodNetwork{ObjectMeta: objMeta("a", ""), Spec: PodNetworkSpec{Enabled: boolPtr(true), Provider: "p.io/x", ParametersRefs: []ParametersRef{nadRef("n", "ns")}}}
	for _, tc := range []struct {
		name   string
		change func(*PodNetwork)
		want   []string
	}{
		{"disable", func(pn *PodNetwork) { pn.Spec.Enabled = boolPtr(false) }, nil},
		{"unset enabled", func(pn *PodNetwork) { pn.Spec.Enabled = nil }, nil},
		{"conditions", func(pn *PodNetwork) { pn.Status.Conditions = readyConditions() }, nil},
		{"provider", func(pn *PodNetwork) { pn.Spec.Provider = "q.io/y" }, []string{"spec.provider: FieldValueForbidden"}},
		{"refs", func(pn *PodNetwork) { pn.Spec.ParametersRefs[0].Name = "m" }, []string{"spec.parametersRefs: FieldValueForbidden"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pn := old.DeepCopy()
			tc.change(pn)
			if got := errorStrings(ValidatePodNetworkUpdate(old, pn)); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
	if old.Spec.ParametersRefs[0].Name != "n" {
		t.Fatal("DeepCopy shares parametersRefs")
	}
	oldA := &PodNetworkAttachment{ObjectMeta: objMeta("a", "ns"), Spec: PodNetworkAttachmentSpec{PodNetworkName: "pn"}}
	same := oldA.DeepCopy()
	same.Status.Conditions = readyConditions()
	if errs := ValidatePodNetworkAttachmentUpdate(oldA, same); len(errs) != 0 {
		t.Errorf("status change refused: %v", errs)
	}
	changed := oldA.DeepCopy()
	changed.Spec.PodNetworkName = "other"
	if got := errorStrings(ValidatePodNetworkAttachmentUpdate(oldA, changed)); !reflect.DeepEqual(got, []string{"spec: FieldValueForbidden"}) {
		t.Errorf("got %v", got)
	}
}
