package pods

import (
	"errors"
	"strings"
	"testing"
)

// TestPlanPodRefusesControlCharacters: a control character in a name that
// reaches a port row or the annotation is refused, naming the field.
func TestPlanPodRefusesControlCharacters(t *testing.T) {
	for _, tc := range []struct {
		field string
		edit  func(in *Input)
	}{
		{"namespace", func(in *Input) { in.Pod.Namespace = "ns\x00" }},
		{"name", func(in *Input) { in.Pod.Name = "pod\n" }},
		{"uid", func(in *Input) { in.Pod.UID = "u\x7f" }},
		{"attachments[2]: nad", func(in *Input) { in.Attachments[2].NAD = "ns1/r\x00ed" }},
		{"attachments[1]: network: name", func(in *Input) {
			n := blue.Clone()
			n.Name = "ns1\x00blue"
			in.Attachments[1].Network = n
		}},
		{"nodes[0]: chassis", func(in *Input) { in.Nodes[0].Chassis = "c\x1b" }},
		{"zone", func(in *Input) { in.Zone = "node1\xff" }},
	} {
		t.Run(tc.field, func(t *testing.T) {
			in := podInput("node1")
			in.Attachments = append([]Attachment(nil), in.Attachments...)
			tc.edit(&in)
			_, err := PlanPod(in)
			if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tc.field) {
				t.Fatalf("PlanPod = %v, want ErrInvalid naming %s", err, tc.field)
			}
		})
	}
}
