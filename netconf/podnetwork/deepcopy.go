package podnetwork

import (
	"slices"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/udnkit/udnkit/internal/condition"
)

// The API objects are runtime.Objects, so they work with Kubernetes
// clients and caches.
var (
	_ runtime.Object = (*PodNetwork)(nil)
	_ runtime.Object = (*PodNetworkAttachment)(nil)
)

// DeepCopyInto copies s into out.
func (s *PodNetworkSpec) DeepCopyInto(out *PodNetworkSpec) {
	*out = *s
	if s.Enabled != nil {
		e := *s.Enabled
		out.Enabled = &e
	}
	out.ParametersRefs = slices.Clone(s.ParametersRefs)
}

// DeepCopyInto copies pn into out.
func (pn *PodNetwork) DeepCopyInto(out *PodNetwork) {
	*out = *pn
	pn.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	pn.Spec.DeepCopyInto(&out.Spec)
	out.Status.Conditions = condition.Copy(pn.Status.Conditions)
}

// DeepCopy returns a deep copy of pn.
func (pn *PodNetwork) DeepCopy() *PodNetwork {
	if pn == nil {
		return nil
	}
	out := new(PodNetwork)
	pn.DeepCopyInto(out)
	return out
}

// DeepCopyObject implements runtime.Object.
func (pn *PodNetwork) DeepCopyObject() runtime.Object {
	if c := pn.DeepCopy(); c != nil {
		return c
	}
	return nil
}

// DeepCopyInto copies pna into out.
func (pna *PodNetworkAttachment) DeepCopyInto(out *PodNetworkAttachment) {
	*out = *pna
	pna.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	out.Spec.ParametersRefs = slices.Clone(pna.Spec.ParametersRefs)
	out.Status.Conditions = condition.Copy(pna.Status.Conditions)
}

// DeepCopy returns a deep copy of pna.
func (pna *PodNetworkAttachment) DeepCopy() *PodNetworkAttachment {
	if pna == nil {
		return nil
	}
	out := new(PodNetworkAttachment)
	pna.DeepCopyInto(out)
	return out
}

// DeepCopyObject implements runtime.Object.
func (pna *PodNetworkAttachment) DeepCopyObject() runtime.Object {
	if c := pna.DeepCopy(); c != nil {
		return c
	}
	return nil
}

// Clone returns a deep copy of p.
func (p *PodNetworks) Clone() *PodNetworks {
	if p == nil {
		return nil
	}
	out := *p
	out.Networks = slices.Clone(p.Networks)
	out.PodIPs = slices.Clone(p.PodIPs)
	return &out
}
