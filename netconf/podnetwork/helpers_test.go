package podnetwork

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"
)

var (
	t0 = metav1.NewTime(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	t1 = metav1.NewTime(t0.Add(time.Minute))
)

func objMeta(name, namespace string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: name, Namespace: namespace}
}

func nadRef(name, namespace string) ParametersRef {
	return ParametersRef{Group: NADGroup, Kind: NADResource, Name: name, Namespace: namespace}
}

func readyConditions() []metav1.Condition {
	return []metav1.Condition{{Type: ConditionReady, Status: metav1.ConditionTrue, Reason: ReasonReady, LastTransitionTime: t0}}
}

func notReadyConditions(reason string) []metav1.Condition {
	return []metav1.Condition{{Type: ConditionReady, Status: metav1.ConditionFalse, Reason: reason, LastTransitionTime: t0}}
}

func boolPtr(b bool) *bool { return &b }

// errorStrings renders errs as "<field>: <type>" for comparison.
func errorStrings(errs field.ErrorList) []string {
	var out []string
	for _, e := range errs {
		out = append(out, e.Field+": "+string(e.Type))
	}
	return out
}

func yamlOf(v any) ([]byte, error) { return yaml.Marshal(v) }
