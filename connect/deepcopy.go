package connect

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// DeepCopyInto copies c into out, sharing nothing.
func (c *ClusterNetworkConnect) DeepCopyInto(out *ClusterNetworkConnect) {
	*out = *c
	out.TypeMeta = c.TypeMeta
	c.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	c.Spec.DeepCopyInto(&out.Spec)
	c.Status.DeepCopyInto(&out.Status)
}

// DeepCopy returns a copy of c sharing nothing with it.
func (c *ClusterNetworkConnect) DeepCopy() *ClusterNetworkConnect {
	if c == nil {
		return nil
	}
	out := new(ClusterNetworkConnect)
	c.DeepCopyInto(out)
	return out
}

// DeepCopyObject implements runtime.Object.
func (c *ClusterNetworkConnect) DeepCopyObject() runtime.Object {
	if c := c.DeepCopy(); c != nil {
		return c
	}
	return nil
}

// DeepCopyInto copies s into out, sharing nothing.
func (s *ClusterNetworkConnectSpec) DeepCopyInto(out *ClusterNetworkConnectSpec) {
	*out = *s
	if s.NetworkSelectors != nil {
		out.NetworkSelectors = make([]NetworkSelector, len(s.NetworkSelectors))
		for i := range s.NetworkSelectors {
			s.NetworkSelectors[i].DeepCopyInto(&out.NetworkSelectors[i])
		}
	}
	out.ConnectSubnets = append([]ConnectSubnet(nil), s.ConnectSubnets...)
	out.ConnectivityEnabled = append([]ConnectivityType(nil), s.ConnectivityEnabled...)
}

// DeepCopyInto copies n into out, sharing nothing.
func (n *NetworkSelector) DeepCopyInto(out *NetworkSelector) {
	*out = *n
	if n.ClusterUserDefinedNetworkSelector != nil {
		out.ClusterUserDefinedNetworkSelector = &ClusterUserDefinedNetworkSelector{}
		n.ClusterUserDefinedNetworkSelector.NetworkSelector.DeepCopyInto(&out.ClusterUserDefinedNetworkSelector.NetworkSelector)
	}
	if n.PrimaryUserDefinedNetworkSelector != nil {
		out.PrimaryUserDefinedNetworkSelector = &PrimaryUserDefinedNetworkSelector{}
		n.PrimaryUserDefinedNetworkSelector.NamespaceSelector.DeepCopyInto(&out.PrimaryUserDefinedNetworkSelector.NamespaceSelector)
	}
	if x := n.SecondaryUserDefinedNetworkSelector; x != nil {
		out.SecondaryUserDefinedNetworkSelector = &SecondaryUserDefinedNetworkSelector{}
		x.NamespaceSelector.DeepCopyInto(&out.SecondaryUserDefinedNetworkSelector.NamespaceSelector)
		x.NetworkSelector.DeepCopyInto(&out.SecondaryUserDefinedNetworkSelector.NetworkSelector)
	}
	if x := n.NetworkAttachmentDefinitionSelector; x != nil {
		out.NetworkAttachmentDefinitionSelector = &NetworkAttachmentDefinitionSelector{}
		x.NamespaceSelector.DeepCopyInto(&out.NetworkAttachmentDefinitionSelector.NamespaceSelector)
		x.NetworkSelector.DeepCopyInto(&out.NetworkAttachmentDefinitionSelector.NetworkSelector)
	}
}

// DeepCopyInto copies s into out, sharing nothing.
func (s *ClusterNetworkConnectStatus) DeepCopyInto(out *ClusterNetworkConnectStatus) {
	*out = *s
	if s.Conditions != nil {
		out.Conditions = make([]metav1.Condition, len(s.Conditions))
		for i := range s.Conditions {
			s.Conditions[i].DeepCopyInto(&out.Conditions[i])
		}
	}
}

// DeepCopyInto copies l into out, sharing nothing.
func (l *ClusterNetworkConnectList) DeepCopyInto(out *ClusterNetworkConnectList) {
	*out = *l
	l.ListMeta.DeepCopyInto(&out.ListMeta)
	if l.Items != nil {
		out.Items = make([]ClusterNetworkConnect, len(l.Items))
		for i := range l.Items {
			l.Items[i].DeepCopyInto(&out.Items[i])
		}
	}
}

// DeepCopy returns a copy of l sharing nothing with it.
func (l *ClusterNetworkConnectList) DeepCopy() *ClusterNetworkConnectList {
	if l == nil {
		return nil
	}
	out := new(ClusterNetworkConnectList)
	l.DeepCopyInto(out)
	return out
}

// DeepCopyObject implements runtime.Object.
func (l *ClusterNetworkConnectList) DeepCopyObject() runtime.Object {
	if l := l.DeepCopy(); l != nil {
		return l
	}
	return nil
}

var (
	_ runtime.Object = (*ClusterNetworkConnect)(nil)
	_ runtime.Object = (*ClusterNetworkConnectList)(nil)
)
