package labelsel

import "testing"

func TestMeets(t *testing.T) {
	ab := []string{"a", "b"}
	for _, tc := range []struct {
		name   string
		op     string
		values []string
		v      string
		ok     bool
		want   bool
	}{
		{"in, value listed", "In", ab, "a", true, true},
		{"in, value not listed", "In", ab, "c", true, false},
		{"in, label absent", "In", ab, "", false, false},
		{"notin, value listed", "NotIn", ab, "b", true, false},
		{"notin, value not listed", "NotIn", ab, "c", true, true},
		{"notin, label absent", "NotIn", ab, "", false, true},
		{"exists, present", "Exists", nil, "", true, true},
		{"exists, absent", "Exists", nil, "", false, false},
		{"doesnotexist, present", "DoesNotExist", nil, "x", true, false},
		{"doesnotexist, absent", "DoesNotExist", nil, "", false, true},
		{"unknown operator, present", "Near", ab, "a", true, false},
		{"unknown operator, absent", "Near", ab, "", false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Meets(tc.op, tc.values, tc.v, tc.ok); got != tc.want {
				t.Errorf("Meets(%q, %q, %q, %v) = %v, want %v", tc.op, tc.values, tc.v, tc.ok, got, tc.want)
			}
		})
	}
}
