package kube

import (
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// DeepCopyInto copies q into out, sharing nothing.
func (q *EgressQoS) DeepCopyInto(out *EgressQoS) {
	*out = *q
	q.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	if q.Spec.Egress != nil {
		out.Spec.Egress = make([]EgressQoSRule, len(q.Spec.Egress))
		for i, r := range q.Spec.Egress {
			out.Spec.Egress[i] = EgressQoSRule{DSCP: r.DSCP}
			if r.DstCIDR != nil {
				c := *r.DstCIDR
				out.Spec.Egress[i].DstCIDR = &c
			}
			out.Spec.Egress[i].PodSelector = r.PodSelector.DeepCopy()
		}
	}
	if q.Status.Conditions != nil {
		out.Status.Conditions = make([]metav1.Condition, len(q.Status.Conditions))
		for i := range q.Status.Conditions {
			q.Status.Conditions[i].DeepCopyInto(&out.Status.Conditions[i])
		}
	}
}

// DeepCopy returns a copy of q sharing nothing with it.
func (q *EgressQoS) DeepCopy() *EgressQoS {
	if q == nil {
		return nil
	}
	out := new(EgressQoS)
	q.DeepCopyInto(out)
	return out
}

// DeepCopyObject implements runtime.Object.
func (q *EgressQoS) DeepCopyObject() runtime.Object {
	if c := q.DeepCopy(); c != nil {
		return c
	}
	return nil
}

// DeepCopyInto copies l into out, sharing nothing.
func (l *EgressQoSList) DeepCopyInto(out *EgressQoSList) {
	*out = *l
	l.ListMeta.DeepCopyInto(&out.ListMeta)
	out.Items = slices.Clone(l.Items)
	for i := range l.Items {
		l.Items[i].DeepCopyInto(&out.Items[i])
	}
}

// DeepCopy returns a copy of l sharing nothing with it.
func (l *EgressQoSList) DeepCopy() *EgressQoSList {
	if l == nil {
		return nil
	}
	out := new(EgressQoSList)
	l.DeepCopyInto(out)
	return out
}

// DeepCopyObject implements runtime.Object.
func (l *EgressQoSList) DeepCopyObject() runtime.Object {
	if c := l.DeepCopy(); c != nil {
		return c
	}
	return nil
}
