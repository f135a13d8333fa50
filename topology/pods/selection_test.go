package pods_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/udnkit/udnkit/topology/pods"
)

func TestSecondaries(t *testing.T) {
	pod := pods.Pod{Namespace: "ns1", Name: "web"}
	ann := func(s string) map[string]string { return map[string]string{pods.AnnotationNetworks: s} }
	got, err := pods.Secondaries(pod, ann(" red , ns2/green@net2"))
	if err != nil {
		t.Fatal(err)
	}
	want := []pods.Selection{{NAD: "ns1/red"}, {NAD: "ns2/green", Interface: "net2"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("comma form: %+v", got)
	}
	got, err = pods.Secondaries(pod, ann(`[{"name":"red","ips":["192.168.10.5/24","fd00::5"],"mac":"02:00:00:00:00:05","interface":"eth1"},{"name":"vm","namespace":"ns3","ipam-claim-reference":"vm-a.red"}]`))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].NAD != "ns1/red" || got[0].IPs[1].String() != "fd00::5/128" || got[0].MAC.String() != "02:00:00:00:00:05" ||
		got[0].Interface != "eth1" || got[1].NAD != "ns3/vm" || got[1].IPAMClaim != "vm-a.red" {
		t.Errorf("JSON form: %+v", got)
	}
	if got, err := pods.Secondaries(pod, nil); got != nil || err != nil {
		t.Errorf("no annotation: %v %v", got, err)
	}
	for _, bad := range []string{"a/b/c", "red,red", "ns1/red,red", `[{"name":""}]`, `[null]`, `[{"name":"x","ips":["10.0.0.300"]}]`,
		`[{"name":"x","mac":"zz"}]`, "a@b@c", `{"name":"x"}`,
		// Names Kubernetes and the kernel refuse, and a 10 MB value.
		"red@a/b", "red@abcdefghijklmnop", "A;B/red", "A_B", "$(x)", `[{"name":"red","interface":"a\u0000b"}]`,
		`[{"name":"red","ipam-claim-reference":"Bad_Claim"}]`, strings.Repeat("r", 10<<20)} {
		if _, err := pods.Secondaries(pod, ann(bad)); !errors.Is(err, pods.ErrInvalid) || !strings.Contains(err.Error(), "pod ns1/web") ||
			len(err.Error()) > 2048 {
			t.Errorf("%.100q: %.300v", bad, err)
		}
	}
}

func FuzzSecondaries(f *testing.F) {
	for _, s := range []string{"red", "ns2/green@net2, blue", `[{"name":"red","ips":["10.0.0.5/24"],"mac":"02:00:00:00:00:05"}]`, `[null]`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := pods.Secondaries(pods.Pod{Namespace: "ns1", Name: "p"}, map[string]string{pods.AnnotationNetworks: s})
		if err != nil {
			if !errors.Is(err, pods.ErrInvalid) {
				t.Fatalf("%q: error without ErrInvalid: %v", s, err)
			}
			return
		}
		seen := map[string]bool{}
		for _, sel := range got {
			ns, name, ok := strings.Cut(sel.NAD, "/")
			if !ok || ns == "" || name == "" || strings.Contains(name, "/") || seen[sel.NAD] {
				t.Fatalf("%q: selection %+v", s, sel)
			}
			seen[sel.NAD] = true
			if len(sel.Interface) > pods.MaxInterfaceName || strings.ContainsAny(sel.Interface, "/: \x00") || strings.ContainsAny(name, "_$;") {
				t.Fatalf("%q: selection %+v holds a name Kubernetes or the kernel refuses", s, sel)
			}
		}
	})
}
