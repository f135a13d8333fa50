package controller

import (
	"context"
	"fmt"
	"maps"
	"strings"
	"testing"

	nadv1 "github.com/k8snetworkplumbingwg/network-attachment-definition-client/pkg/apis/k8s.cni.cncf.io/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/udnkit/udnkit/connect"
	"github.com/udnkit/udnkit/netconf"
)

var primaryLabel = map[string]string{netconf.LabelPrimaryUDN: "", "connect": "yes"}

// scenario creates two nodes, three namespaces, a Layer3 and a Layer2
// primary UDN, a secondary Layer2 CUDN and a CNC between the primaries.
func scenario(t *testing.T, e *env) {
	t.Helper()
	create(t, e, node("node1", 1), node("node2", 2),
		namespace("blue", primaryLabel), namespace("green", primaryLabel), namespace("red", map[string]string{"shared": "yes"}))
	create(t, e,
		udn("blue", "net", netconf.UserDefinedNetworkSpec{Topology: netconf.TopologyLayer3, Role: netconf.RolePrimary, Subnets: []string{"10.10.0.0/16/24"}}),
		udn("green", "net", netconf.UserDefinedNetworkSpec{Topology: netconf.TopologyLayer2, Role: netconf.RolePrimary, Subnets: []string{"10.20.0.0/16"}}),
		&netconf.ClusterUserDefinedNetwork{ObjectMeta: metav1.ObjectMeta{Name: "shared"}, Spec: netconf.ClusterUserDefinedNetworkSpec{
			NamespaceSelector: metav1.LabelSelector{MatchLabels: map[string]string{"shared": "yes"}},
			Template: &netconf.UserDefinedNetworkTemplateSpec{Spec: netconf.UserDefinedNetworkSpec{
				Topology: netconf.TopologyLayer2, Role: netconf.RoleSecondary, Subnets: []string{"10.30.0.0/16"}}},
		}},
		&connect.ClusterNetworkConnect{ObjectMeta: metav1.ObjectMeta{Name: "link"}, Spec: connect.ClusterNetworkConnectSpec{
			NetworkSelectors: []connect.NetworkSelector{{NetworkSelectionType: connect.PrimaryUserDefinedNetworks,
				PrimaryUserDefinedNetworkSelector: &connect.PrimaryUserDefinedNetworkSelector{
					NamespaceSelector: metav1.LabelSelector{MatchLabels: map[string]string{"connect": "yes"}}}}},
			ConnectSubnets:      []connect.ConnectSubnet{{CIDR: "192.168.0.0/16", NetworkPrefix: 24}},
			ConnectivityEnabled: []connect.ConnectivityType{connect.PodNetwork},
		}})
}

// converged waits until every NAD, annotation and status of scenario is
// written.
func converged(t *testing.T, e *env) {
	t.Helper()
	eventually(t, "UDN statuses", func() error {
		for _, ns := range []string{"blue", "green"} {
			if err := udnReady(e, ns, "net"); err != nil {
				return fmt.Errorf("UserDefinedNetwork %s/net: %w", ns, err)
			}
		}
		return nil
	})
	eventually(t, "CUDN status", func() error {
		var c netconf.ClusterUserDefinedNetwork
		if err := e.c.Get(context.Background(), client.ObjectKey{Name: "shared"}, &c); err != nil {
			return err
		}
		if fmt.Sprint(c.Status.ActiveNamespaces) != "[red]" {
			return fmt.Errorf("active namespaces %v, want [red]", c.Status.ActiveNamespaces)
		}
		return condition(c.Status.Conditions, netconf.ConditionNetworkReady, metav1.ConditionTrue)
	})
	eventually(t, "CNC accepted", func() error { return cncAccepted(e, "link") })
	eventually(t, "allocation annotations", func() error {
		nads := nadAnnotations(t, e)
		for _, k := range []string{"blue/net", "green/net", "red/shared"} {
			if !strings.Contains(nads[k], "k8s.ovn.org/network-id=") || strings.Contains(nads[k], "network-id= ") {
				return fmt.Errorf("NAD %s: %q", k, nads[k])
			}
		}
		if !strings.Contains(nads["green/net"], "tunnel-keys=[") {
			return fmt.Errorf("NAD green/net has no tunnel keys: %q", nads["green/net"])
		}
		for n, v := range nodeAnnotations(t, e) {
			if !strings.Contains(v, "blue_net") {
				return fmt.Errorf("Node %s: %q has no host subnet of blue_net", n, v)
			}
		}
		var c connect.ClusterNetworkConnect
		if err := e.c.Get(context.Background(), client.ObjectKey{Name: "link"}, &c); err != nil {
			return err
		}
		if _, err := connect.ParseAnnotations(c.Annotations); err != nil || len(c.Annotations) == 0 {
			return fmt.Errorf("CNC link annotations %v: %v", c.Annotations, err)
		}
		return nil
	})
}

// TestEndToEnd: UDNs, a CUDN and a CNC created through the API server get
// their NADs (owner reference, finalizer, allocation annotations),
// statuses and NB rows; the NB holds exactly the Cluster's plan. Then
// workloads, a steady state, refusals, a deletion and egress (an EgressIP,
// an EgressQoS and a restart) on the same API server.
func TestEndToEnd(t *testing.T) {
	e := startEnv(t)
	nb, count := countedNB(t, false)
	scenario(t, e)
	g := &gate{}
	counted, writes := countWrites(e)
	ctl := run(t, counted, Config{Zone: "node1", NB: nb, hook: g.hook})
	converged(t, e)

	var nad nadv1.NetworkAttachmentDefinition
	if err := e.c.Get(context.Background(), client.ObjectKey{Namespace: "blue", Name: "net"}, &nad); err != nil {
		t.Fatal(err)
	}
	if len(nad.OwnerReferences) != 1 || nad.OwnerReferences[0].Kind != netconf.KindUDN || nad.OwnerReferences[0].Controller == nil {
		t.Errorf("NAD blue/net owner references %+v, want the UDN as controller", nad.OwnerReferences)
	}
	if len(nad.Finalizers) != 1 || nad.Finalizers[0] != netconf.FinalizerProtection {
		t.Errorf("NAD blue/net finalizers %v", nad.Finalizers)
	}
	if !strings.Contains(nad.Spec.Config, `"netAttachDefName":"blue/net"`) {
		t.Errorf("NAD blue/net config %s", nad.Spec.Config)
	}
	var u netconf.UserDefinedNetwork
	if err := e.c.Get(context.Background(), client.ObjectKey{Namespace: "blue", Name: "net"}, &u); err != nil {
		t.Fatal(err)
	}
	if len(u.Finalizers) != 1 || u.Finalizers[0] != netconf.FinalizerProtection {
		t.Errorf("UDN blue/net finalizers %v", u.Finalizers)
	}

	eventually(t, "NB holds the plan", func() error {
		plan, err := ctl.c.Cluster().Plan("node1")
		if err != nil {
			return err
		}
		got, err := nb.Observe(context.Background(), plan.Networks()...)
		if err != nil {
			return err
		}
		if !got.Equal(plan) {
			return fmt.Errorf("NB:\n%s\nplan:\n%s", got, plan)
		}
		return nil
	})

	t.Run("workloads", func(t *testing.T) { checkWorkloads(t, e, ctl, nb) })
	t.Run("steady", func(t *testing.T) { checkSteady(t, e, ctl, nb, count, writes) })
	t.Run("one-pass", func(t *testing.T) { checkOnePass(t, e, ctl, g) })

	t.Run("refused", func(t *testing.T) { checkRefused(t, e, ctl, nb) })

	// Deleting a UDN deletes its NAD and its NB rows.
	before := maps.Clone(nadAnnotations(t, e))
	if err := e.c.Delete(context.Background(), &netconf.UserDefinedNetwork{ObjectMeta: metav1.ObjectMeta{Namespace: "green", Name: "net"}}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "UDN green/net and its NAD gone", func() error {
		if err := e.c.Get(context.Background(), client.ObjectKey{Namespace: "green", Name: "net"}, &netconf.UserDefinedNetwork{}); err == nil {
			return fmt.Errorf("UDN green/net still exists")
		}
		if err := e.c.Get(context.Background(), client.ObjectKey{Namespace: "green", Name: "net"}, &nadv1.NetworkAttachmentDefinition{}); err == nil {
			return fmt.Errorf("NAD green/net still exists")
		}
		st, err := nb.Observe(context.Background(), "green_net")
		if err != nil {
			return err
		}
		if st.Len() != 0 {
			return fmt.Errorf("NB still holds %d rows of green_net (controllers %v):\n%s", st.Len(), st.Controllers(), st)
		}
		return nil
	})
	after := nadAnnotations(t, e)
	if after["blue/net"] != before["blue/net"] || after["red/shared"] != before["red/shared"] {
		t.Errorf("deleting green/net renumbered the others: before %v, after %v", before, after)
	}

	t.Run("egress", func(t *testing.T) { checkEgress(t, e, ctl, nb) })
}
