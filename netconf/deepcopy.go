package netconf

import (
	"slices"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/udnkit/udnkit/internal/condition"
)

// The API types are runtime.Objects, so they work with Kubernetes clients
// and caches.
var (
	_ runtime.Object = (*UserDefinedNetwork)(nil)
	_ runtime.Object = (*ClusterUserDefinedNetwork)(nil)
)

// DeepCopyInto copies s into out.
func (s *UserDefinedNetworkSpec) DeepCopyInto(out *UserDefinedNetworkSpec) {
	*out = *s
	out.Subnets = slices.Clone(s.Subnets)
	out.ExcludeSubnets = slices.Clone(s.ExcludeSubnets)
	out.JoinSubnets = slices.Clone(s.JoinSubnets)
	if s.IPAM != nil {
		ipam := *s.IPAM
		out.IPAM = &ipam
	}
	if s.Localnet != nil {
		ln := *s.Localnet
		out.Localnet = &ln
	}
}

// DeepCopy returns a deep copy of s.
func (s *UserDefinedNetworkSpec) DeepCopy() *UserDefinedNetworkSpec {
	if s == nil {
		return nil
	}
	out := new(UserDefinedNetworkSpec)
	s.DeepCopyInto(out)
	return out
}

// DeepCopyInto copies u into out.
func (u *UserDefinedNetwork) DeepCopyInto(out *UserDefinedNetwork) {
	*out = *u
	u.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	u.Spec.DeepCopyInto(&out.Spec)
	out.Status.Conditions = condition.Copy(u.Status.Conditions)
}

// DeepCopy returns a deep copy of u.
func (u *UserDefinedNetwork) DeepCopy() *UserDefinedNetwork {
	if u == nil {
		return nil
	}
	out := new(UserDefinedNetwork)
	u.DeepCopyInto(out)
	return out
}

// DeepCopyObject implements runtime.Object.
func (u *UserDefinedNetwork) DeepCopyObject() runtime.Object {
	if c := u.DeepCopy(); c != nil {
		return c
	}
	return nil
}

// DeepCopy returns a deep copy of t.
func (t *UserDefinedNetworkTemplateSpec) DeepCopy() *UserDefinedNetworkTemplateSpec {
	if t == nil {
		return nil
	}
	out := new(UserDefinedNetworkTemplateSpec)
	t.Spec.DeepCopyInto(&out.Spec)
	return out
}

// DeepCopyInto copies c into out.
func (c *ClusterUserDefinedNetwork) DeepCopyInto(out *ClusterUserDefinedNetwork) {
	*out = *c
	c.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	c.Spec.NamespaceSelector.DeepCopyInto(&out.Spec.NamespaceSelector)
	out.Spec.Template = c.Spec.Template.DeepCopy()
	out.Status.ActiveNamespaces = slices.Clone(c.Status.ActiveNamespaces)
	out.Status.Conditions = condition.Copy(c.Status.Conditions)
}

// DeepCopy returns a deep copy of c.
func (c *ClusterUserDefinedNetwork) DeepCopy() *ClusterUserDefinedNetwork {
	if c == nil {
		return nil
	}
	out := new(ClusterUserDefinedNetwork)
	c.DeepCopyInto(out)
	return out
}

// DeepCopyObject implements runtime.Object.
func (c *ClusterUserDefinedNetwork) DeepCopyObject() runtime.Object {
	if d := c.DeepCopy(); d != nil {
		return d
	}
	return nil
}

// DeepCopyInto copies l into out.
func (l *UserDefinedNetworkList) DeepCopyInto(out *UserDefinedNetworkList) {
	*out = *l
	l.ListMeta.DeepCopyInto(&out.ListMeta)
	if l.Items != nil {
		out.Items = make([]UserDefinedNetwork, len(l.Items))
		for i := range l.Items {
			l.Items[i].DeepCopyInto(&out.Items[i])
		}
	}
}

// DeepCopyObject implements runtime.Object.
func (l *UserDefinedNetworkList) DeepCopyObject() runtime.Object {
	if l == nil {
		return nil
	}
	out := new(UserDefinedNetworkList)
	l.DeepCopyInto(out)
	return out
}

// DeepCopyInto copies l into out.
func (l *ClusterUserDefinedNetworkList) DeepCopyInto(out *ClusterUserDefinedNetworkList) {
	*out = *l
	l.ListMeta.DeepCopyInto(&out.ListMeta)
	if l.Items != nil {
		out.Items = make([]ClusterUserDefinedNetwork, len(l.Items))
		for i := range l.Items {
			l.Items[i].DeepCopyInto(&out.Items[i])
		}
	}
}

// DeepCopyObject implements runtime.Object.
func (l *ClusterUserDefinedNetworkList) DeepCopyObject() runtime.Object {
	if l == nil {
		return nil
	}
	out := new(ClusterUserDefinedNetworkList)
	l.DeepCopyInto(out)
	return out
}
