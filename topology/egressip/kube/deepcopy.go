package kube

import (
	"slices"

	"k8s.io/apimachinery/pkg/runtime"
)

// DeepCopyInto copies e into out, sharing nothing.
func (e *EgressIP) DeepCopyInto(out *EgressIP) {
	*out = *e
	e.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	out.Spec.EgressIPs = slices.Clone(e.Spec.EgressIPs)
	e.Spec.NamespaceSelector.DeepCopyInto(&out.Spec.NamespaceSelector)
	e.Spec.PodSelector.DeepCopyInto(&out.Spec.PodSelector)
	out.Status.Items = slices.Clone(e.Status.Items)
}

// DeepCopy returns a copy of e sharing nothing with it.
func (e *EgressIP) DeepCopy() *EgressIP {
	if e == nil {
		return nil
	}
	out := new(EgressIP)
	e.DeepCopyInto(out)
	return out
}

// DeepCopyObject implements runtime.Object.
func (e *EgressIP) DeepCopyObject() runtime.Object {
	if c := e.DeepCopy(); c != nil {
		return c
	}
	return nil
}

// DeepCopyInto copies l into out, sharing nothing.
func (l *EgressIPList) DeepCopyInto(out *EgressIPList) {
	*out = *l
	l.ListMeta.DeepCopyInto(&out.ListMeta)
	if l.Items != nil {
		out.Items = make([]EgressIP, len(l.Items))
		for i := range l.Items {
			l.Items[i].DeepCopyInto(&out.Items[i])
		}
	}
}

// DeepCopy returns a copy of l sharing nothing with it.
func (l *EgressIPList) DeepCopy() *EgressIPList {
	if l == nil {
		return nil
	}
	out := new(EgressIPList)
	l.DeepCopyInto(out)
	return out
}

// DeepCopyObject implements runtime.Object.
func (l *EgressIPList) DeepCopyObject() runtime.Object {
	if c := l.DeepCopy(); c != nil {
		return c
	}
	return nil
}
