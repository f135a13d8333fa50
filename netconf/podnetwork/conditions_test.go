package podnetwork

import (
	"net/netip"
	"reflect"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/udnkit/udnkit/netconf"
)

// condSummary renders conditions as "Type=Status/Reason".
func condSummary(conds []metav1.Condition) []string {
	var out []string
	for _, c := range conds {
		out = append(out, c.Type+"="+string(c.Status)+"/"+c.Reason)
	}
	return out
}

func TestPodNetworkConditions(t *testing.T) {
	refs := []ParametersRef{nadRef("n", "ns")}
	paramsTrue := []metav1.Condition{{Type: ConditionParamsReady, Status: metav1.ConditionTrue, Reason: "NADsValid"}}
	paramsFalse := []metav1.Condition{{Type: ConditionParamsReady, Status: metav1.ConditionFalse, Reason: "NADMissing", Message: "NAD ns/n not found"}}
	for _, tc := range []struct {
		name   string
		spec   PodNetworkSpec
		conds  []metav1.Condition
		params *ParamsVerdict
		want   []string
	}{
		{"no refs", PodNetworkSpec{}, nil, nil, []string{"Ready=True/Ready"}},
		{"no refs, verdict ignored", PodNetworkSpec{}, nil, &ParamsVerdict{}, []string{"Ready=True/Ready"}},
		{"disabled", PodNetworkSpec{Enabled: boolPtr(false)}, nil, nil, []string{"Ready=False/AdministrativelyDisabled"}},
		{"disabled wins over params", PodNetworkSpec{Enabled: boolPtr(false), ParametersRefs: refs}, nil, nil,
			[]string{"Ready=False/AdministrativelyDisabled"}},
		{"refs, ParamsReady missing", PodNetworkSpec{ParametersRefs: refs}, nil, nil, []string{"Ready=False/ParamsNotReady"}},
		{"refs, ParamsReady False", PodNetworkSpec{ParametersRefs: refs}, paramsFalse, nil,
			[]string{"ParamsReady=False/NADMissing", "Ready=False/ParamsNotReady"}},
		{"refs, ParamsReady True", PodNetworkSpec{ParametersRefs: refs}, paramsTrue, nil,
			[]string{"ParamsReady=True/NADsValid", "Ready=True/Ready"}},
		{"refs, verdict ready", PodNetworkSpec{ParametersRefs: refs}, paramsFalse, &ParamsVerdict{Ready: true},
			[]string{"ParamsReady=True/ParamsReady", "Ready=True/Ready"}},
		{"refs, verdict not ready with reason", PodNetworkSpec{ParametersRefs: refs}, paramsTrue, &ParamsVerdict{Reason: "NADMissing"},
			[]string{"ParamsReady=False/NADMissing", "Ready=False/ParamsNotReady"}},
		{"refs, verdict not ready", PodNetworkSpec{ParametersRefs: refs}, nil, &ParamsVerdict{},
			[]string{"ParamsReady=False/ParamsNotReady", "Ready=False/ParamsNotReady"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pn := &PodNetwork{ObjectMeta: objMeta("pn", ""), Spec: tc.spec, Status: PodNetworkStatus{Conditions: tc.conds}}
			pn.Generation = 7
			got := PodNetworkConditions(pn, ConditionsInput{Now: t1, Params: tc.params})
			if s := condSummary(got); !reflect.DeepEqual(s, tc.want) {
				t.Fatalf("got %v, want %v", s, tc.want)
			}
			for _, c := range got {
				if c.Type == ConditionReady && (c.ObservedGeneration != 7 || c.LastTransitionTime != t1) {
					t.Errorf("Ready stamped %+v", c)
				}
			}
			if !reflect.DeepEqual(pn.Status.Conditions, tc.conds) {
				t.Error("input conditions changed")
			}
		})
	}
}

func TestPodNetworkConditionsMessages(t *testing.T) {
	pn := &PodNetwork{ObjectMeta: objMeta("pn", ""), Spec: PodNetworkSpec{ParametersRefs: []ParametersRef{nadRef("n", "")}},
		Status: PodNetworkStatus{Conditions: []metav1.Condition{{Type: ConditionParamsReady, Status: metav1.ConditionFalse, Reason: "NADMissing", Message: "NAD ns/n not found"}}}}
	c := PodNetworkConditions(pn, ConditionsInput{Now: t1})[1]
	if !strings.Contains(c.Message, "NADMissing: NAD ns/n not found") {
		t.Errorf("message %q", c.Message)
	}
	long := &ParamsVerdict{Message: strings.Repeat("é", netconf.MaxMessageLength)}
	for _, c := range PodNetworkConditions(pn, ConditionsInput{Now: t1, Params: long}) {
		if len(c.Message) > netconf.MaxMessageLength {
			t.Errorf("%s message is %d bytes", c.Type, len(c.Message))
		}
	}
}

func TestConditionsKeepTransitionTime(t *testing.T) {
	pn := &PodNetwork{ObjectMeta: objMeta("pn", ""), Status: PodNetworkStatus{Conditions: readyConditions()}}
	got := PodNetworkConditions(pn, ConditionsInput{Now: t1})
	if got[0].LastTransitionTime != t0 {
		t.Errorf("unchanged status moved its transition time to %v", got[0].LastTransitionTime)
	}
	pn.Spec.Enabled = boolPtr(false)
	got = PodNetworkConditions(pn, ConditionsInput{Now: t1})
	if got[0].LastTransitionTime != t1 {
		t.Errorf("changed status kept transition time %v", got[0].LastTransitionTime)
	}
}

func TestConditionsCappedAtMax(t *testing.T) {
	var conds []metav1.Condition
	for _, ty := range []string{"A", "B", "C", "D", "E", "F"} {
		conds = append(conds, metav1.Condition{Type: ty, Status: metav1.ConditionTrue, Reason: "R"})
	}
	pn := &PodNetwork{ObjectMeta: objMeta("pn", ""), Status: PodNetworkStatus{Conditions: conds}}
	got := condSummary(PodNetworkConditions(pn, ConditionsInput{Now: t1}))
	want := []string{"A=True/R", "B=True/R", "C=True/R", "D=True/R", "Ready=True/Ready"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestPodNetworkAttachmentConditions(t *testing.T) {
	refs := []ParametersRef{{Group: "example.com", Kind: "podParams", Name: "p"}}
	readyPN := &PodNetwork{ObjectMeta: objMeta("pn", ""), Status: PodNetworkStatus{Conditions: readyConditions()}}
	offPN := &PodNetwork{ObjectMeta: objMeta("pn", ""), Status: PodNetworkStatus{Conditions: notReadyConditions(ReasonAdministrativelyDisabled)}}
	for _, tc := range []struct {
		name   string
		refs   []ParametersRef
		pn     *PodNetwork
		params *ParamsVerdict
		want   []string
		msg    string
	}{
		{"ready", nil, readyPN, nil, []string{"Ready=True/Ready"}, ""},
		{"PodNetwork missing", nil, nil, nil, []string{"Ready=False/PodNetworkNotReady"}, "not found"},
		{"PodNetwork not ready", nil, offPN, nil, []string{"Ready=False/PodNetworkNotReady"}, "AdministrativelyDisabled"},
		{"params not reported", refs, readyPN, nil, []string{"Ready=False/ParamsNotReady"}, ""},
		{"params not ready wins", refs, offPN, &ParamsVerdict{}, []string{"ParamsReady=False/ParamsNotReady", "Ready=False/ParamsNotReady"}, ""},
		{"params ready", refs, readyPN, &ParamsVerdict{Ready: true}, []string{"ParamsReady=True/ParamsReady", "Ready=True/Ready"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pna := &PodNetworkAttachment{ObjectMeta: objMeta("a", "ns"), Spec: PodNetworkAttachmentSpec{PodNetworkName: "pn", ParametersRefs: tc.refs}}
			got := PodNetworkAttachmentConditions(pna, tc.pn, ConditionsInput{Now: t1, Params: tc.params})
			if s := condSummary(got); !reflect.DeepEqual(s, tc.want) {
				t.Fatalf("got %v, want %v", s, tc.want)
			}
			if tc.msg != "" && !strings.Contains(got[len(got)-1].Message, tc.msg) {
				t.Errorf("message %q lacks %q", got[len(got)-1].Message, tc.msg)
			}
		})
	}
}

func TestPhases(t *testing.T) {
	for _, tc := range []struct {
		name  string
		pn    PodNetwork
		inUse bool
		want  Phase
	}{
		{"created", PodNetwork{}, false, PhaseCreated},
		{"created in use", PodNetwork{}, true, PhaseCreated},
		{"not ready", PodNetwork{Status: PodNetworkStatus{Conditions: notReadyConditions(ReasonParamsNotReady)}}, true, PhaseNotReady},
		{"ready", PodNetwork{Status: PodNetworkStatus{Conditions: readyConditions()}}, false, PhaseReady},
		{"in use", PodNetwork{Status: PodNetworkStatus{Conditions: readyConditions()}}, true, PhaseInUse},
		{"disabled", PodNetwork{Spec: PodNetworkSpec{Enabled: boolPtr(false)}, Status: PodNetworkStatus{Conditions: readyConditions()}}, true, PhaseDisabled},
	} {
		if got := PodNetworkPhase(&tc.pn, tc.inUse); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
	pna := &PodNetworkAttachment{Status: PodNetworkAttachmentStatus{Conditions: readyConditions()}}
	if got := PodNetworkAttachmentPhase(pna, true); got != PhaseInUse {
		t.Errorf("attachment: %v", got)
	}
	if got := PodNetworkAttachmentPhase(&PodNetworkAttachment{}, false); got != PhaseCreated {
		t.Errorf("attachment: %v", got)
	}
	names := []string{}
	for p := PhaseCreated; p <= PhaseDisabled+1; p++ {
		names = append(names, p.String())
	}
	if want := []string{"Created", "NotReady", "Ready", "InUse", "Disabled", "Phase(5)"}; !reflect.DeepEqual(names, want) {
		t.Errorf("names %v", names)
	}
}

func TestUsersAndFinalizer(t *testing.T) {
	pods := []PodNetworks{
		{Namespace: "b", Name: "p2", Phase: "Running", Networks: []Network{{PodNetworkName: "pn"}}},
		{Namespace: "a", Name: "p1", Phase: "Pending", Networks: []Network{{PodNetworkName: "pn"}, {PodNetworkAttachmentName: "att"}}},
		{Namespace: "a", Name: "done", Phase: "Succeeded", Networks: []Network{{PodNetworkName: "pn"}}},
		{Namespace: "a", Name: "failed", Phase: "Failed", Networks: []Network{{PodNetworkAttachmentName: "att"}}},
		{Namespace: "b", Name: "p3", Networks: []Network{{PodNetworkAttachmentName: "att"}}},
	}
	pnas := []*PodNetworkAttachment{
		{ObjectMeta: objMeta("att", "a"), Spec: PodNetworkAttachmentSpec{PodNetworkName: "pn"}},
		{ObjectMeta: objMeta("other", "a"), Spec: PodNetworkAttachmentSpec{PodNetworkName: "x"}},
	}
	u := PodNetworkUsers("pn", pods, pnas)
	if want := (Users{Pods: []string{"a/p1", "b/p2"}, PodNetworkAttachments: []string{"a/att"}}); !reflect.DeepEqual(u, want) {
		t.Errorf("PodNetworkUsers = %+v", u)
	}
	ua := PodNetworkAttachmentUsers("a", "att", pods)
	if want := (Users{Pods: []string{"a/p1"}}); !reflect.DeepEqual(ua, want) {
		t.Errorf("PodNetworkAttachmentUsers = %+v", ua)
	}
	unused := PodNetworkUsers("nobody", pods, pnas)
	if unused.InUse() || !u.InUse() || DeletionBlocked(unused) || !DeletionBlocked(u) {
		t.Error("InUse/DeletionBlocked wrong")
	}
	for _, tc := range []struct {
		deleting, has bool
		users         Users
		want          netconf.FinalizerOp
	}{
		{false, false, unused, netconf.FinalizerAdd},
		{false, true, u, netconf.FinalizerKeep},
		{false, true, unused, netconf.FinalizerKeep},
		{true, true, u, netconf.FinalizerKeep},
		{true, true, unused, netconf.FinalizerRemove},
		{true, false, unused, netconf.FinalizerKeep},
	} {
		if got := Finalize(tc.deleting, tc.has, tc.users); got != tc.want {
			t.Errorf("Finalize(%v, %v, %+v) = %v, want %v", tc.deleting, tc.has, tc.users, got, tc.want)
		}
	}
}

func TestPodIPs(t *testing.T) {
	atts := []Attachment{
		{Index: 0, PodNetwork: "default", InterfaceName: "eth0", NADs: []string{"default"}},
		{Index: 1, PodNetwork: "dp", InterfaceName: "net1", NADs: []string{"ns/a", "ns/b"}},
		{Index: 2, PodNetwork: "absent", NADs: []string{"ns/none"}},
	}
	ann := netconf.PodNetworks{
		"default": {IPs: []netip.Prefix{netip.MustParsePrefix("10.128.0.5/24"), netip.MustParsePrefix("fd00::5/64")}},
		"ns/a":    {IPs: []netip.Prefix{netip.MustParsePrefix("192.168.1.4/24")}},
		"ns/b":    {IPs: []netip.Prefix{netip.MustParsePrefix("192.168.2.4/24"), netip.MustParsePrefix("fd01::4/64")}},
	}
	got := PodIPs(atts, ann)
	want := []PodIP{
		{IP: "10.128.0.5", PodNetworkName: "default", InterfaceName: "eth0"},
		{IP: "fd00::5", PodNetworkName: "default", InterfaceName: "eth0"},
		{IP: "192.168.1.4", PodNetworkName: "dp", InterfaceName: "net1"},
		{IP: "fd01::4", PodNetworkName: "dp", InterfaceName: "net1"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v", got)
	}
	if errs := validatePodIPs(got, nil); len(errs) != 0 {
		t.Errorf("PodIPs writes what ValidatePod refuses: %v", errs)
	}
}
