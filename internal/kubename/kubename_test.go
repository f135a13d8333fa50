package kubename

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

func TestNamespacedNameErrors(t *testing.T) {
	if msgs := NamespacedNameErrors("ns", "a.b"); msgs != nil {
		t.Errorf("valid key: %v", msgs)
	}
	msgs := NamespacedNameErrors("N.s", "B_")
	if len(msgs) != 2 || msgs[0][:11] != "namespace: " || msgs[1][:6] != "name: " {
		t.Errorf("NamespacedNameErrors = %q", msgs)
	}
}
