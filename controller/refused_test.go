package controller

import (
	"context"
	"fmt"
	"strings"
	"testing"

	nadv1 "github.com/k8snetworkplumbingwg/network-attachment-definition-client/pkg/apis/k8s.cni.cncf.io/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/udnkit/udnkit/backend/ovnnb"
	"github.com/udnkit/udnkit/netconf"
)

// checkRefused runs on scenario's converged cluster: objects the CRDs
// admit but the SDK refuses each get a status condition naming the field
// (reason InvalidSpec), and nothing else changes: no NAD, no allocation
// (the Cluster does not hold the network, no annotation of a Node or NAD
// moves), no NB row.
func checkRefused(t *testing.T, e *env, ctl *running, nb *ovnnb.Client) {
	t.Helper()
	ctx := context.Background()
	create(t, e, namespace("pink", map[string]string{netconf.LabelPrimaryUDN: ""}))
	nads, nodes := nadAnnotations(t, e), nodeAnnotations(t, e)
	rows, err := nb.Observe(ctx)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		obj     client.Object
		network string
		field   string
	}{
		{udn("blue", "bad", netconf.UserDefinedNetworkSpec{Topology: netconf.TopologyLayer2, Role: netconf.RoleSecondary, Subnets: []string{"10.40.0.0/33"}}),
			netconf.UDNNetworkName("blue", "bad"), "spec.subnets[0]"},
		{udn("pink", "net", netconf.UserDefinedNetworkSpec{Topology: netconf.TopologyLayer3, Role: netconf.RolePrimary,
			Subnets: []string{"10.90.0.0/16/24"}, JoinSubnets: []string{"100.64.0.0/16"}}),
			netconf.UDNNetworkName("pink", "net"), "spec.joinSubnets"},
		{&netconf.ClusterUserDefinedNetwork{ObjectMeta: metav1.ObjectMeta{Name: "bad"}, Spec: netconf.ClusterUserDefinedNetworkSpec{
			NamespaceSelector: metav1.LabelSelector{MatchLabels: map[string]string{"shared": "yes"}},
			Template: &netconf.UserDefinedNetworkTemplateSpec{Spec: netconf.UserDefinedNetworkSpec{
				Topology: netconf.TopologyLayer3, Role: netconf.RoleSecondary, Subnets: []string{"10.80.0.0/16/8"}}}}},
			netconf.CUDNNetworkName("bad"), "spec.template.spec.subnets[0]"},
	}
	for _, c := range cases {
		create(t, e, c.obj)
	}
	for _, c := range cases {
		key := client.ObjectKeyFromObject(c.obj)
		eventually(t, fmt.Sprintf("%T %s: InvalidSpec naming %s", c.obj, key, c.field), func() error {
			var conds []metav1.Condition
			switch o := c.obj.(type) {
			case *netconf.UserDefinedNetwork:
				var u netconf.UserDefinedNetwork
				if err := e.c.Get(ctx, key, &u); err != nil {
					return err
				}
				conds = u.Status.Conditions
			case *netconf.ClusterUserDefinedNetwork:
				var u netconf.ClusterUserDefinedNetwork
				if err := e.c.Get(ctx, key, &u); err != nil {
					return err
				}
				conds = u.Status.Conditions
			default:
				return fmt.Errorf("%T", o)
			}
			for _, cd := range conds {
				if cd.Status == metav1.ConditionFalse && cd.Reason == netconf.ReasonInvalidSpec && strings.Contains(cd.Message, c.field) {
					return nil
				}
			}
			return fmt.Errorf("no False InvalidSpec condition naming %s: %v", c.field, conds)
		})
		if _, held := ctl.c.Cluster().Network(c.network); held {
			t.Errorf("%s: the Cluster holds the refused network", c.network)
		}
	}
	var l nadv1.NetworkAttachmentDefinitionList
	if err := e.c.List(ctx, &l); err != nil {
		t.Fatal(err)
	}
	if len(l.Items) != len(nads) {
		t.Errorf("%d NADs, were %d: a refused object got one", len(l.Items), len(nads))
	}
	if got := nadAnnotations(t, e); fmt.Sprint(got) != fmt.Sprint(nads) {
		t.Errorf("NAD annotations changed:\n%v\nwere\n%v", got, nads)
	}
	if got := nodeAnnotations(t, e); fmt.Sprint(got) != fmt.Sprint(nodes) {
		t.Errorf("Node annotations changed:\n%v\nwere\n%v", got, nodes)
	}
	after, err := nb.Observe(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !after.Equal(rows) {
		t.Errorf("the NB changed:\n%s", lineDiff(rows.String(), after.String()))
	}
}
