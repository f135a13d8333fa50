package podnetwork

import (
	"bytes"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// FuzzDecode: Decode never panics; what it accepts validates the same way
// twice, does not change when validated, and marshals to JSON that decodes
// to a value marshalling to the same bytes (metav1.Time keeps whole
// seconds, so bytes, not values, are compared after the first decode).
func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		withoutProbeTime(seedPodNetwork), withoutProbeTime(seedPodNetworkParams), withoutProbeTime(seedPNA),
		seedPodNetwork, asStructTags(seedPod), strings.ReplaceAll(seedPod, "[...]\n", ""),
		`{"kind":"PodNetwork","metadata":{"name":"a"},"spec":{"enabled":false}}`,
		`{"kind":"Pod","spec":{"hostNetwork":true,"networks":[{"podNetworkName":"x"}]}}`,
		`{"kind":"PodNetworkAttachment","metadata":{"name":"a","namespace":"b"},"spec":{"podNetworkName":"c"}}`,
		`kind: Pod`, `{}`, `null`, `[]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := Decode(data)
		if err != nil {
			return
		}
		var errs1, errs2 field.ErrorList
		before, _ := json.Marshal(v)
		switch o := v.(type) {
		case *PodNetwork:
			errs1, errs2 = ValidatePodNetwork(o), ValidatePodNetwork(o)
			if c := o.DeepCopy(); !equality.Semantic.DeepEqual(c, o) {
				t.Fatal("DeepCopy differs")
			}
		case *PodNetworkAttachment:
			errs1, errs2 = ValidatePodNetworkAttachment(o), ValidatePodNetworkAttachment(o)
		case *PodNetworks:
			errs1, errs2 = ValidatePod(o), ValidatePod(o)
		default:
			t.Fatalf("Decode returned %T", v)
		}
		if !reflect.DeepEqual(errs1, errs2) {
			t.Fatalf("validation not deterministic:\n%v\n%v", errs1, errs2)
		}
		if after, _ := json.Marshal(v); !bytes.Equal(before, after) {
			t.Fatalf("validation changed the object:\n%s\n%s", before, after)
		}
		again, err := Decode(before)
		if err != nil {
			t.Fatalf("marshalled form does not decode: %v\n%s", err, before)
		}
		b2, _ := json.Marshal(again)
		again2, err := Decode(b2)
		if err != nil {
			t.Fatal(err)
		}
		if b3, _ := json.Marshal(again2); !bytes.Equal(b2, b3) {
			t.Fatalf("marshal not stable:\n%s\n%s", b2, b3)
		}
		if p, ok := v.(*PodNetworks); ok && !equality.Semantic.DeepEqual(p, again) {
			t.Fatalf("pod round trip: %+v -> %s -> %+v", p, before, again)
		}
	})
}

// FuzzValidatePod: ValidatePod, ValidatePodActive and Resolve never panic
// and are deterministic; a pod ValidatePod accepts satisfies the KEP's
// rules, checked here by a plain re-implementation; Resolve's attachments
// follow the networks it does not refuse.
func FuzzValidatePod(f *testing.F) {
	f.Add("default,,eth0,3;dataplane1,,net1,0;,my-interface-fast,net2,0", false, "10.0.0.1@default@eth0")
	f.Add("a,,,1;a,,,1", false, "")
	f.Add(",,,0", true, "fd00::1@x@")
	f.Add("a,b,net1,2;,b,net1,2", false, "1.2.3.4@a@net1;1.2.3.5@a@net1")
	f.Add("", false, "")
	f.Fuzz(func(t *testing.T, spec string, host bool, ips string) {
		p := &PodNetworks{Namespace: "default", Name: "p", HostNetwork: host}
		if spec != "" {
			for _, e := range strings.Split(spec, ";") {
				parts := append(strings.SplitN(e, ",", 4), "", "", "", "")
				n := Network{PodNetworkName: parts[0], PodNetworkAttachmentName: parts[1], InterfaceName: parts[2]}
				if len(parts[3]) > 0 {
					n.IsDefaultGW4, n.IsDefaultGW6 = parts[3][0]&1 != 0, parts[3][0]&2 != 0
				}
				p.Networks = append(p.Networks, n)
			}
		}
		if ips != "" {
			for _, e := range strings.Split(ips, ";") {
				parts := append(strings.SplitN(e, "@", 3), "", "")
				p.PodIPs = append(p.PodIPs, PodIP{IP: parts[0], PodNetworkName: parts[1], InterfaceName: parts[2]})
			}
		}
		orig := p.Clone()
		errs := ValidatePod(p)
		if !reflect.DeepEqual(errs, ValidatePod(p)) {
			t.Fatal("ValidatePod not deterministic")
		}
		objs := seedObjects()
		active := ValidatePodActive(p, objs)
		if !reflect.DeepEqual(active, ValidatePodActive(p, objs)) {
			t.Fatal("ValidatePodActive not deterministic")
		}
		atts, rerrs := Resolve(p, objs)
		if a2, r2 := Resolve(p, objs); !reflect.DeepEqual(atts, a2) || !reflect.DeepEqual(rerrs, r2) {
			t.Fatal("Resolve not deterministic")
		}
		if !reflect.DeepEqual(p, orig) {
			t.Fatal("a check changed the pod")
		}
		for _, a := range atts {
			if len(a.NADs) == 0 || a.Index < 0 || a.Index >= len(p.Networks) {
				t.Fatalf("attachment %+v", a)
			}
		}
		if len(errs) > 0 {
			return
		}
		if host != (len(p.Networks) == 0) {
			t.Fatalf("accepted hostNetwork=%v with %d networks", host, len(p.Networks))
		}
		names, ifaces := map[string]bool{}, map[string]bool{}
		gw4, gw6 := 0, 0
		for _, n := range p.Networks {
			if (n.PodNetworkName == "") == (n.PodNetworkAttachmentName == "") {
				t.Fatalf("accepted %+v", n)
			}
			key := "pn/" + n.PodNetworkName
			if n.PodNetworkName == "" {
				key = "pna/" + n.PodNetworkAttachmentName
			}
			if names[key] || n.InterfaceName != "" && ifaces[n.InterfaceName] {
				t.Fatalf("accepted a repeat in %+v", p.Networks)
			}
			names[key], ifaces[n.InterfaceName] = true, n.InterfaceName != ""
			if len(n.InterfaceName) > 15 || strings.ContainsAny(n.InterfaceName, "/: \t\n") || n.InterfaceName == "." || n.InterfaceName == ".." {
				t.Fatalf("accepted interface name %q", n.InterfaceName)
			}
			if n.IsDefaultGW4 {
				gw4++
			}
			if n.IsDefaultGW6 {
				gw6++
			}
		}
		if gw4 > 1 || gw6 > 1 {
			t.Fatalf("accepted %d IPv4 and %d IPv6 default gateways", gw4, gw6)
		}
		// A statically valid pod resolves wholly or reports why.
		if len(atts)+len(rerrs) < len(p.Networks) {
			t.Fatalf("%d networks gave %d attachments and %d errors", len(p.Networks), len(atts), len(rerrs))
		}
	})
}

// FuzzConditions: the conditions are deterministic, at most MaxConditions,
// sorted by type, and Ready agrees with a plain statement of
// the KEP's rule.
func FuzzConditions(f *testing.F) {
	f.Add(uint8(0), uint8(0), "", "")
	f.Add(uint8(1), uint8(2), "NADMissing", "A,B,C,D,E,F")
	f.Add(uint8(2), uint8(1), "", "Ready,ParamsReady")
	f.Add(uint8(3), uint8(3), "X", "ParamsReady")
	f.Fuzz(func(t *testing.T, flags, verdict uint8, reason, existing string) {
		pn := &PodNetwork{ObjectMeta: objMeta("pn", "")}
		if flags&1 != 0 {
			pn.Spec.ParametersRefs = []ParametersRef{nadRef("n", "")}
		}
		if flags&2 != 0 {
			pn.Spec.Enabled = boolPtr(false)
		}
		existingParams := false
		if existing != "" {
			for i, ty := range strings.Split(existing, ",") {
				st := metav1.ConditionFalse
				if i%2 == 0 {
					st = metav1.ConditionTrue
				}
				pn.Status.Conditions = append(pn.Status.Conditions, metav1.Condition{Type: ty, Status: st, Reason: "R"})
			}
			// The first ParamsReady is the one read (a list with repeats
			// is invalid; ValidatePodNetwork refuses it).
			if c := meta.FindStatusCondition(pn.Status.Conditions, ConditionParamsReady); c != nil {
				existingParams = c.Status == metav1.ConditionTrue
			}
		}
		in := ConditionsInput{Now: t1}
		paramsReady := existingParams
		if verdict&1 != 0 {
			in.Params = &ParamsVerdict{Ready: verdict&2 != 0, Reason: reason}
			paramsReady = verdict&2 != 0
		}
		got := PodNetworkConditions(pn, in)
		if !reflect.DeepEqual(got, PodNetworkConditions(pn, in)) {
			t.Fatal("not deterministic")
		}
		if len(got) > MaxConditions || !slices.IsSortedFunc(got, func(a, b metav1.Condition) int { return strings.Compare(a.Type, b.Type) }) {
			t.Fatalf("conditions %v", condSummary(got))
		}
		wantReady := pn.Spec.IsEnabled() && (len(pn.Spec.ParametersRefs) == 0 || paramsReady)
		if IsReady(got) != wantReady {
			t.Fatalf("Ready=%v, want %v: %v", IsReady(got), wantReady, condSummary(got))
		}
		pna := &PodNetworkAttachment{ObjectMeta: objMeta("a", "ns"), Spec: PodNetworkAttachmentSpec{PodNetworkName: "pn", ParametersRefs: pn.Spec.ParametersRefs},
			Status: PodNetworkAttachmentStatus{Conditions: pn.Status.Conditions}}
		pn.Status.Conditions = got
		gotA := PodNetworkAttachmentConditions(pna, pn, in)
		if want := wantReady && (len(pna.Spec.ParametersRefs) == 0 || paramsReady); IsReady(gotA) != want {
			t.Fatalf("attachment Ready=%v, want %v: %v", IsReady(gotA), want, condSummary(gotA))
		}
	})
}
