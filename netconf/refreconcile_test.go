package netconf

import (
	"maps"
	"testing"

	nadv1 "github.com/k8snetworkplumbingwg/network-attachment-definition-client/pkg/apis/k8s.cni.cncf.io/v1"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestReconcileReferenceProfile: with Render.Profile = reference, the
// desired NADs are the reference's and the status is its single
// NetworkCreated condition, as go-controller/pkg/clustermanager/
// userdefinednetwork/controller_test.go expects it (case names below).
func TestReconcileReferenceProfile(t *testing.T) {
	t.Run("controller_test.go: should create NAD successfully", func(t *testing.T) {
		u := protectedUDN()
		d, err := ReconcileUDN(UDNInput{UDN: u, Now: t0, Render: refOpts, OVNNetwork: OVNNetworkCreated})
		if err != nil {
			t.Fatal(err)
		}
		want, _ := refOpts.RenderUDN(u)
		if ops(d.Actions) != "Create demo/db-network" || d.Actions[0].NAD.Spec.Config != want.NADs[0].Spec.Config {
			t.Fatalf("actions %s %+v", ops(d.Actions), d.Actions)
		}
		if got := d.Status.Conditions; len(got) != 1 || got[0] != (metav1.Condition{Type: "NetworkCreated", Status: "True",
			Reason: "NetworkAttachmentDefinitionCreated", Message: "NetworkAttachmentDefinition has been created", LastTransitionTime: t0}) {
			t.Fatalf("conditions %+v", got)
		}
		// Next round: the NAD exists as the reference wrote it: nothing to
		// do, and the condition keeps its transition time.
		u.Status.Conditions = d.Status.Conditions
		d2, err := ReconcileUDN(UDNInput{UDN: u, NADs: want.NADs, Now: t1, Render: refOpts})
		if err != nil {
			t.Fatal(err)
		}
		if ops(d2.Actions) != "Keep demo/db-network" || len(d2.Status.Conditions) != 1 || d2.Status.Conditions[0].LastTransitionTime != t0 {
			t.Fatalf("second round: %s %+v", ops(d2.Actions), d2.Status.Conditions)
		}
		// The seeds profile would rewrite the reference's NAD: that is
		// the fight the profile avoids.
		d3, _ := ReconcileUDN(UDNInput{UDN: u, NADs: want.NADs, Now: t1})
		if ops(d3.Actions) != "Update demo/db-network" {
			t.Errorf("seeds profile on a reference NAD: %s", ops(d3.Actions))
		}
	})
	t.Run("controller_test.go: should reconcile mutated NAD", func(t *testing.T) {
		u := protectedUDN()
		want, _ := refOpts.RenderUDN(u)
		mutated := want.NADs[0].DeepCopy()
		mutated.Spec.Config = `{"cniVersion":"1.1.0","name":"demo_db-network","type":"ovn-k8s-cni-overlay","topology":"layer2","netAttachDefName":"demo/db-network","subnets":"10.9.0.0/24"}`
		d, err := ReconcileUDN(UDNInput{UDN: u, NADs: []*nadv1.NetworkAttachmentDefinition{mutated}, Now: t0, Render: refOpts})
		if err != nil {
			t.Fatal(err)
		}
		if ops(d.Actions) != "Update demo/db-network" || d.Actions[0].NAD.Spec.Config != want.NADs[0].Spec.Config {
			t.Fatalf("actions %s", ops(d.Actions))
		}
		wantCond(t, d.Status.Conditions, "NetworkCreated", "True", "NetworkAttachmentDefinitionCreated", "NetworkAttachmentDefinition has been created")
	})
	t.Run("controller_test.go: should fail when foreign NAD exist", func(t *testing.T) {
		u := protectedUDN()
		d, err := ReconcileUDN(UDNInput{UDN: u, NADs: []*nadv1.NetworkAttachmentDefinition{foreignNAD("demo", "db-network", false)}, Now: t0, Render: refOpts})
		if err != nil {
			t.Fatal(err)
		}
		// Reason as the reference's; the message is udnkit's.
		wantCond(t, d.Status.Conditions, "NetworkCreated", "False", "SyncError", "")
		if len(d.Status.Conditions) != 1 {
			t.Errorf("conditions %+v", d.Status.Conditions)
		}
	})
	t.Run("controller.go newNetworkCreatedCondition: UDN being deleted", func(t *testing.T) {
		u := protectedUDN()
		u.DeletionTimestamp = &t0
		want, _ := refOpts.RenderUDN(u)
		d, err := ReconcileUDN(UDNInput{UDN: u, NADs: want.NADs, Now: t0, Render: refOpts})
		if err != nil {
			t.Fatal(err)
		}
		wantCond(t, d.Status.Conditions, "NetworkCreated", "False", "NetworkAttachmentDefinitionDeleted", "NetworkAttachmentDefinition is being deleted")
	})
	t.Run("controller_test.go: should create NAD according to spec in each namespace that applies to namespace selector", func(t *testing.T) {
		c := cudnFor("test-net", "uid-1", t0, "red", "blue")
		d, err := ReconcileCUDN(CUDNInput{CUDN: c, NetworkID: 3, Namespaces: namespaces("red", "blue", "green"), Now: t0, Render: refOpts})
		if err != nil {
			t.Fatal(err)
		}
		if ops(d.Actions) != "Create blue/test-net, Create red/test-net" {
			t.Fatalf("actions %s", ops(d.Actions))
		}
		want, _ := refOpts.RenderCUDN(c, 3, []string{"blue", "red"})
		for i, a := range d.Actions {
			if a.NAD.Spec.Config != want.NADs[i].Spec.Config {
				t.Errorf("%s: %s", a.Namespace, a.NAD.Spec.Config)
			}
		}
		if got := d.Status.Conditions; len(got) != 1 {
			t.Fatalf("conditions %+v", got)
		}
		wantCond(t, d.Status.Conditions, "NetworkCreated", "True", "NetworkAttachmentDefinitionCreated",
			"NetworkAttachmentDefinition has been created in following namespaces: [blue, red]")
	})
	t.Run("controller.go newClusterNetworkCreatedCondition: CUDN being deleted", func(t *testing.T) {
		c := cudnFor("test-net", "uid-1", t0, "red", "blue")
		nads, _ := refOpts.RenderCUDN(c, 3, []string{"blue", "red"})
		c.DeletionTimestamp = &t1
		d, err := ReconcileCUDN(CUDNInput{CUDN: c, NetworkID: 3, Namespaces: namespaces("red", "blue"), NADs: nads.NADs, Now: t1, Render: refOpts})
		if err != nil {
			t.Fatal(err)
		}
		wantCond(t, d.Status.Conditions, "NetworkCreated", "False", "NetworkAttachmentDefinitionDeleted",
			"NetworkAttachmentDefinition are being deleted: [blue/test-net red/test-net]")
	})
	t.Run("CUDN invalid spec: NetworkAttachmentDefinitionSyncError", func(t *testing.T) {
		c := cudnFor("test-net", "uid-1", t0, "red")
		c.Spec.Template.Spec.Subnets = []string{"bad"}
		d, err := ReconcileCUDN(CUDNInput{CUDN: c, Namespaces: namespaces("red"), Now: t0, Render: refOpts})
		if err != nil {
			t.Fatal(err)
		}
		wantCond(t, d.Status.Conditions, "NetworkCreated", "False", "NetworkAttachmentDefinitionSyncError", "spec.template.spec.subnets[0]")
	})
	t.Run("controller_test.go: should update NAD annotations and preserve internal OVNK annotations on UDN update", func(t *testing.T) {
		c := cudnFor("test", "uid-1", t0, "red", "blue")
		c.Spec.Template.Spec = UserDefinedNetworkSpec{Topology: TopologyLayer2, Role: RoleSecondary, Subnets: []string{"10.10.10.0/24"}}
		c.Annotations = map[string]string{"foo": "bar"}
		r, err := refOpts.RenderCUDN(c, 6, []string{"blue", "red"})
		if err != nil {
			t.Fatal(err)
		}
		internal := map[string]string{"k8s.ovn.org/network-name": "cluster_udn_test", "k8s.ovn.org/network-id": "6"}
		for _, nad := range r.NADs {
			maps.Copy(nad.Annotations, internal)
		}
		in := CUDNInput{CUDN: c, NetworkID: 6, Namespaces: namespaces("red", "blue"), NADs: r.NADs, Now: t0, Render: refOpts}
		if d, _ := ReconcileCUDN(in); ops(d.Actions) != "Keep blue/test, Keep red/test" {
			t.Fatalf("before the update: %s", ops(d.Actions))
		}
		c.Annotations = map[string]string{"foo2": "bar2"}
		d, err := ReconcileCUDN(in)
		if err != nil {
			t.Fatal(err)
		}
		if ops(d.Actions) != "Update blue/test, Update red/test" {
			t.Fatalf("actions %s", ops(d.Actions))
		}
		want := map[string]string{"foo2": "bar2", "k8s.ovn.org/network-name": "cluster_udn_test", "k8s.ovn.org/network-id": "6"}
		for _, a := range d.Actions {
			if !maps.Equal(a.NAD.Annotations, want) || a.NAD.Spec.Config != r.NADs[0].Spec.Config && a.Namespace == "blue" {
				t.Errorf("%s: annotations %v config %s", a.Namespace, a.NAD.Annotations, a.NAD.Spec.Config)
			}
		}
	})
}
