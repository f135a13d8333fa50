package names

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestValidateMeta(t *testing.T) {
	for _, tc := range []struct {
		m          metav1.ObjectMeta
		namespaced bool
		want       int
	}{
		{metav1.ObjectMeta{Name: "a", Namespace: "ns"}, true, 0},
		{metav1.ObjectMeta{Name: "a"}, false, 0},
		{metav1.ObjectMeta{Name: "a"}, true, 1},
		{metav1.ObjectMeta{Name: "a", Namespace: "ns"}, false, 1},
		{metav1.ObjectMeta{Name: "A_", Namespace: "N.s"}, true, 2},
		{metav1.ObjectMeta{}, false, 1},
	} {
		if got := ValidateMeta(&tc.m, "Thing", tc.namespaced, "why"); len(got) != tc.want {
			t.Errorf("ValidateMeta(%+v, namespaced %v) = %v, want %d errors", tc.m, tc.namespaced, got, tc.want)
		}
	}
}

func TestNetdevError(t *testing.T) {
	for name, ok := range map[string]bool{"eth0": true, "net-1.2": true, "": false, ".": false, "..": false,
		"a/b": false, "a:b": false, "a b": false, "a\x7f": false, "é": false} {
		if got := NetdevError(name, "x"); (got == "") != ok {
			t.Errorf("NetdevError(%q) = %q, want valid %v", name, got, ok)
		}
	}
}

func TestUnsafeByte(t *testing.T) {
	for s, want := range map[string]int{"abc": -1, "é/x": -1, "a b": 1, "\n": 0, "ab\x7f": 2} {
		if got := UnsafeByte(s); got != want {
			t.Errorf("UnsafeByte(%q) = %d, want %d", s, got, want)
		}
	}
}

func TestNamespacedNameErrors(t *testing.T) {
	if msgs := NamespacedNameErrors("ns", "a.b"); msgs != nil {
		t.Errorf("valid key: %v", msgs)
	}
	msgs := NamespacedNameErrors("N.s", "B_")
	if len(msgs) != 2 || msgs[0][:11] != "namespace: " || msgs[1][:6] != "name: " {
		t.Errorf("NamespacedNameErrors = %q", msgs)
	}
}
