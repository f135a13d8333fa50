package netconf

import (
	"reflect"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func fullUDN() *UserDefinedNetwork {
	u := validUDN()
	u.Labels = map[string]string{"a": "b"}
	u.Finalizers = []string{FinalizerProtection}
	u.DeletionTimestamp = &t0
	u.Spec = UserDefinedNetworkSpec{
		Topology: TopologyLocalnet, Role: RoleSecondary, MTU: 1500,
		Subnets: []string{"10.0.0.0/24"}, ExcludeSubnets: []string{"10.0.0.0/29"}, JoinSubnets: []string{"100.70.0.0/16"},
		IPAM: &IPAMSpec{Mode: IPAMEnabled, Lifecycle: IPAMPersistent}, IPAMLifecycle: IPAMPersistent,
		Localnet: &LocalnetSpec{PhysicalNetworkName: "p", VLANID: 3},
	}
	u.Status.Conditions = []metav1.Condition{{Type: ConditionNetworkReady, LastTransitionTime: t0}}
	return u
}

func TestDeepCopyUDN(t *testing.T) {
	u := fullUDN()
	c := u.DeepCopyObject().(*UserDefinedNetwork)
	if !reflect.DeepEqual(u, c) {
		t.Fatalf("copy differs:\n%+v\n%+v", u, c)
	}
	c.Labels["a"] = "x"
	c.Finalizers[0] = "x"
	c.Spec.Subnets[0], c.Spec.ExcludeSubnets[0], c.Spec.JoinSubnets[0] = "x", "x", "x"
	c.Spec.IPAM.Mode, c.Spec.Localnet.VLANID = "x", 9
	c.Status.Conditions[0].Type = "x"
	if !reflect.DeepEqual(u, fullUDN()) {
		t.Errorf("changing the copy changed the original: %+v", u)
	}
	if (*UserDefinedNetwork)(nil).DeepCopy() != nil || (*UserDefinedNetworkSpec)(nil).DeepCopy() != nil {
		t.Error("nil copies are not nil")
	}
}

func fullCUDN() *ClusterUserDefinedNetwork {
	c := validCUDN()
	c.Spec.VRF = "v"
	c.Spec.NamespaceSelector.MatchExpressions = []metav1.LabelSelectorRequirement{{Key: "k", Operator: "In", Values: []string{"a"}}}
	c.Spec.Template.Spec.IPAM = &IPAMSpec{Lifecycle: IPAMPersistent}
	c.Status.ActiveNamespaces = []string{"a"}
	c.Status.Conditions = []metav1.Condition{{Type: ConditionNetworkReady}}
	return c
}

func TestDeepCopyCUDN(t *testing.T) {
	c := fullCUDN()
	d := c.DeepCopyObject().(*ClusterUserDefinedNetwork)
	if !reflect.DeepEqual(c, d) {
		t.Fatalf("copy differs:\n%+v\n%+v", c, d)
	}
	d.Spec.NamespaceSelector.MatchLabels["tier"] = "x"
	d.Spec.NamespaceSelector.MatchExpressions[0].Values[0] = "x"
	d.Spec.Template.Spec.Subnets[0] = "x"
	d.Spec.Template.Spec.IPAM.Lifecycle = "x"
	d.Status.ActiveNamespaces[0] = "x"
	d.Status.Conditions[0].Type = "x"
	if !reflect.DeepEqual(c, fullCUDN()) {
		t.Errorf("changing the copy changed the original: %+v", c)
	}
	if (*ClusterUserDefinedNetwork)(nil).DeepCopy() != nil || (*UserDefinedNetworkTemplateSpec)(nil).DeepCopy() != nil {
		t.Error("nil copies are not nil")
	}
}
