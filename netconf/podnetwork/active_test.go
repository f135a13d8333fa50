package podnetwork

import (
	"reflect"
	"strings"
	"testing"
)

func TestValidatePodActive(t *testing.T) {
	objs := seedObjects()
	objs.PodNetworks = append(objs.PodNetworks,
		&PodNetwork{ObjectMeta: objMeta("off", ""), Spec: PodNetworkSpec{Enabled: boolPtr(false)}, Status: PodNetworkStatus{Conditions: notReadyConditions(ReasonAdministrativelyDisabled)}},
		&PodNetwork{ObjectMeta: objMeta("fresh", "")})
	objs.PodNetworkAttachments = append(objs.PodNetworkAttachments,
		&PodNetworkAttachment{ObjectMeta: objMeta("waiting", "default"), Spec: PodNetworkAttachmentSpec{PodNetworkName: "off"},
			Status: PodNetworkAttachmentStatus{Conditions: notReadyConditions(ReasonPodNetworkNotReady)}},
		&PodNetworkAttachment{ObjectMeta: objMeta("d1", "default"), Spec: PodNetworkAttachmentSpec{PodNetworkName: "dataplane1"},
			Status: PodNetworkAttachmentStatus{Conditions: readyConditions()}},
		&PodNetworkAttachment{ObjectMeta: objMeta("d1-again", "default"), Spec: PodNetworkAttachmentSpec{PodNetworkName: "dataplane1"},
			Status: PodNetworkAttachmentStatus{Conditions: readyConditions()}},
		&PodNetworkAttachment{ObjectMeta: objMeta("elsewhere", "other"), Spec: PodNetworkAttachmentSpec{PodNetworkName: "dataplane2"},
			Status: PodNetworkAttachmentStatus{Conditions: readyConditions()}})
	pna := func(name string) Network { return Network{PodNetworkAttachmentName: name} }
	pn := func(name string) Network { return Network{PodNetworkName: name} }
	for _, tc := range []struct {
		name     string
		networks []Network
		want     []string
		detail   string
	}{
		{"ready objects", []Network{pn("default"), pn("dataplane1"), pna("my-interface-fast")}, nil, ""},
		{"PodNetwork missing", []Network{pn("default"), pn("nope")}, []string{"spec.networks[1].podNetworkName: FieldValueNotFound"}, ""},
		{"PodNetwork disabled", []Network{pn("off")}, []string{"spec.networks[0].podNetworkName: FieldValueInvalid"}, "AdministrativelyDisabled"},
		{"PodNetwork without conditions", []Network{pn("fresh")}, []string{"spec.networks[0].podNetworkName: FieldValueInvalid"}, "no Ready condition"},
		{"attachment missing", []Network{pna("nope")}, []string{"spec.networks[0].podNetworkAttachmentName: FieldValueNotFound"}, "default/nope"},
		{"attachment of another namespace", []Network{pna("elsewhere")}, []string{"spec.networks[0].podNetworkAttachmentName: FieldValueNotFound"}, ""},
		{"attachment not ready", []Network{pna("waiting")}, []string{"spec.networks[0].podNetworkAttachmentName: FieldValueInvalid"}, "PodNetworkNotReady"},
		{"attachment's PodNetwork named directly after", []Network{pna("d1"), pn("dataplane1")},
			[]string{"spec.networks[0].podNetworkAttachmentName: FieldValueInvalid"}, "already attached by spec.networks[1]"},
		{"attachment's PodNetwork named directly before", []Network{pn("dataplane1"), pna("d1")},
			[]string{"spec.networks[1].podNetworkAttachmentName: FieldValueInvalid"}, "already attached by spec.networks[0]"},
		{"two attachments of one PodNetwork", []Network{pna("d1"), pna("d1-again")},
			[]string{"spec.networks[1].podNetworkAttachmentName: FieldValueInvalid"}, "already attached by spec.networks[0]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			errs := ValidatePodActive(&PodNetworks{Namespace: "default", Name: "p", Networks: tc.networks}, objs)
			if got := errorStrings(errs); !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
			if tc.detail != "" && !strings.Contains(errs.ToAggregate().Error(), tc.detail) {
				t.Errorf("%v does not say %q", errs, tc.detail)
			}
		})
	}
}

func TestResolve(t *testing.T) {
	objs := seedObjects()
	objs.PodNetworks = append(objs.PodNetworks,
		&PodNetwork{ObjectMeta: objMeta("bare", "")},
		&PodNetwork{ObjectMeta: objMeta("multi", ""), Spec: PodNetworkSpec{ParametersRefs: []ParametersRef{
			nadRef("b", "x"), {Group: "example.com", Kind: "Params", Name: "p"}, nadRef("a", ""),
			{Group: NADGroup, Kind: NADKind, Name: "a", Namespace: "x"}, nadRef("b", "x")}}},
		&PodNetwork{ObjectMeta: objMeta("badnad", ""), Spec: PodNetworkSpec{ParametersRefs: []ParametersRef{nadRef("Bad_Name", "")}}})
	objs.PodNetworkAttachments = append(objs.PodNetworkAttachments,
		&PodNetworkAttachment{ObjectMeta: objMeta("plain", "default"), Spec: PodNetworkAttachmentSpec{PodNetworkName: "multi",
			ParametersRefs: []ParametersRef{{Group: "example.com", Kind: "podParams", Name: "q"}}}},
		&PodNetworkAttachment{ObjectMeta: objMeta("orphan", "default"), Spec: PodNetworkAttachmentSpec{PodNetworkName: "gone"}},
		&PodNetworkAttachment{ObjectMeta: objMeta("orphan-nad", "default"), Spec: PodNetworkAttachmentSpec{PodNetworkName: "gone",
			ParametersRefs: []ParametersRef{nadRef("x", "")}}})
	for _, tc := range []struct {
		name     string
		networks []Network
		nads     [][]string
		errs     []string
	}{
		{"default network", []Network{{PodNetworkName: "default"}}, [][]string{{"default"}}, nil},
		{"NAD in the reference's namespace", []Network{{PodNetworkName: "dataplane1"}}, [][]string{{"tenant/dataplane1"}}, nil},
		{"several refs, sorted, without repeats, in the pod's namespace when unset", []Network{{PodNetworkName: "multi"}},
			[][]string{{"default/a", "x/a", "x/b"}}, nil},
		{"attachment's own NAD", []Network{{PodNetworkAttachmentName: "my-interface-fast"}}, [][]string{{"default/fast-nad"}}, nil},
		{"attachment without NAD refs uses its PodNetwork's", []Network{{PodNetworkAttachmentName: "plain"}},
			[][]string{{"default/a", "x/a", "x/b"}}, nil},
		{"PodNetwork without NAD", []Network{{PodNetworkName: "bare"}}, nil, []string{"spec.networks[0].podNetworkName: FieldValueInvalid"}},
		{"PodNetwork missing", []Network{{PodNetworkName: "default"}, {PodNetworkName: "nope"}}, [][]string{{"default"}},
			[]string{"spec.networks[1].podNetworkName: FieldValueNotFound"}},
		{"attachment missing", []Network{{PodNetworkAttachmentName: "nope"}}, nil, []string{"spec.networks[0].podNetworkAttachmentName: FieldValueNotFound"}},
		{"attachment's PodNetwork missing", []Network{{PodNetworkAttachmentName: "orphan"}}, nil, []string{"spec.networks[0].podNetworkAttachmentName: FieldValueNotFound"}},
		{"attachment with its own NAD, PodNetwork missing", []Network{{PodNetworkAttachmentName: "orphan-nad"}}, nil, []string{"spec.networks[0].podNetworkAttachmentName: FieldValueNotFound"}},
		{"NAD name invalid", []Network{{PodNetworkName: "badnad"}}, nil, []string{"spec.networks[0].podNetworkName: FieldValueInvalid"}},
		{"no name", []Network{{}}, nil, []string{"spec.networks[0].podNetworkName: FieldValueRequired"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			atts, errs := Resolve(&PodNetworks{Namespace: "default", Name: "p", Networks: tc.networks}, objs)
			if got := errorStrings(errs); !reflect.DeepEqual(got, tc.errs) {
				t.Fatalf("errors %v, want %v", got, tc.errs)
			}
			var nads [][]string
			for _, a := range atts {
				nads = append(nads, a.NADs)
			}
			if !reflect.DeepEqual(nads, tc.nads) {
				t.Errorf("NADs %v, want %v", nads, tc.nads)
			}
		})
	}
}
