package netconf

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	nadv1 "github.com/k8snetworkplumbingwg/network-attachment-definition-client/pkg/apis/k8s.cni.cncf.io/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

var (
	t0 = metav1.NewTime(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	t1 = metav1.NewTime(t0.Add(time.Hour))
)

// foreignNAD returns a NAD not owned by any UDN/CUDN.
func foreignNAD(ns, name string, primary bool) *nadv1.NetworkAttachmentDefinition {
	role := "secondary"
	if primary {
		role = "primary"
	}
	return &nadv1.NetworkAttachmentDefinition{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: nadv1.NetworkAttachmentDefinitionSpec{Config: `{"cniVersion":"1.1.0","name":"` + ns + `_` + name +
			`","type":"ovn-k8s-cni-overlay","topology":"layer2","role":"` + role + `","netAttachDefName":"` + ns + "/" + name +
			`","subnets":"10.9.0.0/24"}`},
	}
}

// renderedUDN returns the NAD RenderUDN makes for u.
func renderedUDN(t *testing.T, u *UserDefinedNetwork) *nadv1.NetworkAttachmentDefinition {
	t.Helper()
	r, err := RenderUDN(u)
	if err != nil {
		t.Fatal(err)
	}
	return r.NADs[0]
}

func cond(conds []metav1.Condition, typ string) *metav1.Condition {
	for i := range conds {
		if conds[i].Type == typ {
			return &conds[i]
		}
	}
	return nil
}

// wantCond checks one condition's status, reason and a message fragment.
func wantCond(t *testing.T, conds []metav1.Condition, typ string, status metav1.ConditionStatus, reason, msg string) {
	t.Helper()
	c := cond(conds, typ)
	if c == nil {
		t.Fatalf("no %s condition in %+v", typ, conds)
	}
	if c.Status != status || c.Reason != reason || !strings.Contains(c.Message, msg) {
		t.Errorf("%s = %s/%s %q; want %s/%s containing %q", typ, c.Status, c.Reason, c.Message, status, reason, msg)
	}
}

func ops(acts []NADAction) string {
	var s []string
	for _, a := range acts {
		s = append(s, a.Op.String()+" "+a.Namespace+"/"+a.Name)
	}
	return strings.Join(s, ", ")
}

func protectedUDN() *UserDefinedNetwork {
	u := validUDN()
	u.Finalizers = []string{FinalizerProtection}
	u.Generation = 3
	return u
}

// editedUDNConfig returns the NAD rendered for the UDN with old replaced by
// new in its NetConf JSON; the test fails when old is not there.
func editedUDNConfig(old, new string) func(*testing.T, *UserDefinedNetwork) []*nadv1.NetworkAttachmentDefinition {
	return func(t *testing.T, u *UserDefinedNetwork) []*nadv1.NetworkAttachmentDefinition {
		t.Helper()
		nad := renderedUDN(t, u)
		if !strings.Contains(nad.Spec.Config, old) {
			t.Fatalf("test setup: %s not in the rendered config %s", old, nad.Spec.Config)
		}
		nad.Spec.Config = strings.Replace(nad.Spec.Config, old, new, 1)
		return []*nadv1.NetworkAttachmentDefinition{nad}
	}
}

func TestReconcileUDN(t *testing.T) {
	tests := []struct {
		name          string
		udn           func() *UserDefinedNetwork
		nads          func(t *testing.T, u *UserDefinedNetwork) []*nadv1.NetworkAttachmentDefinition
		pods          []types.NamespacedName
		ovn           OVNNetworkState
		wantOps       string
		wantFinalizer FinalizerOp
		wantReady     []string // status, reason, message fragment
		check         func(t *testing.T, d *UDNDecision, u *UserDefinedNetwork)
	}{
		{
			name: "NAD created", udn: validUDN, ovn: OVNNetworkCreated,
			wantOps: "Create demo/db-network", wantFinalizer: FinalizerAdd,
			wantReady: []string{"True", ReasonNADReady, MessageNADReady},
			check: func(t *testing.T, d *UDNDecision, u *UserDefinedNetwork) {
				wantCond(t, d.Status.Conditions, ConditionNetworkCreated, metav1.ConditionTrue, ReasonOVNNetworkCreated, MessageOVNNetworkCreated)
				if !reflect.DeepEqual(d.Actions[0].NAD, renderedUDN(t, u)) {
					t.Errorf("created NAD differs from the rendered one: %+v", d.Actions[0].NAD)
				}
				if d.Network == nil || d.Network.Name != "demo_db-network" {
					t.Errorf("network %v", d.Network)
				}
			},
		},
		{
			name: "NAD up to date", udn: protectedUDN,
			nads: func(t *testing.T, u *UserDefinedNetwork) []*nadv1.NetworkAttachmentDefinition {
				return []*nadv1.NetworkAttachmentDefinition{renderedUDN(t, u)}
			},
			wantOps: "Keep demo/db-network", wantReady: []string{"True", ReasonNADReady, MessageNADReady},
			check: func(t *testing.T, d *UDNDecision, _ *UserDefinedNetwork) {
				if cond(d.Status.Conditions, ConditionNetworkCreated) != nil {
					t.Error("NetworkCreated published although the OVN state is unknown")
				}
				if c := cond(d.Status.Conditions, ConditionNetworkReady); c.ObservedGeneration != 3 || !c.LastTransitionTime.Equal(&t1) {
					t.Errorf("condition %+v", c)
				}
			},
		},
		{
			name: "NAD with reordered but equal config kept", udn: protectedUDN,
			nads:    editedUDNConfig(`{"cniVersion":"1.1.0","name":"demo_db-network",`, "{ \"name\": \"demo_db-network\",\n  \"cniVersion\": \"1.1.0\","),
			wantOps: "Keep demo/db-network", wantReady: []string{"True", ReasonNADReady, ""},
		},
		{
			name: "NAD with an extra NetConf key reconciled", udn: protectedUDN,
			nads:    editedUDNConfig(`{"cniVersion":"1.1.0",`, `{"infrastructureSubnets":"10.0.0.0/30","cniVersion":"1.1.0",`),
			wantOps: "Update demo/db-network", wantReady: []string{"True", ReasonNADReady, ""},
		},
		{
			name: "malformed NAD reconciled", udn: protectedUDN,
			nads: func(t *testing.T, u *UserDefinedNetwork) []*nadv1.NetworkAttachmentDefinition {
				nad := renderedUDN(t, u)
				nad.Spec.Config = `{"cniVersion":"1.1.0","name":"tampered"}`
				nad.Labels = map[string]string{"keep": "me"}
				nad.ResourceVersion = "17"
				return []*nadv1.NetworkAttachmentDefinition{nad}
			},
			wantOps: "Update demo/db-network", wantReady: []string{"True", ReasonNADReady, ""},
			check: func(t *testing.T, d *UDNDecision, u *UserDefinedNetwork) {
				got, want := d.Actions[0].NAD, renderedUDN(t, u)
				if got.Spec.Config != want.Spec.Config || got.ResourceVersion != "17" || got.Labels["keep"] != "me" {
					t.Errorf("update %+v", got)
				}
				if _, ok := got.Labels[LabelUserDefinedNetwork]; !ok {
					t.Error("update lost the label")
				}
			},
		},
		{
			name: "NAD missing finalizer reconciled", udn: protectedUDN,
			nads: func(t *testing.T, u *UserDefinedNetwork) []*nadv1.NetworkAttachmentDefinition {
				nad := renderedUDN(t, u)
				nad.Finalizers = nil
				return []*nadv1.NetworkAttachmentDefinition{nad}
			},
			wantOps: "Update demo/db-network", wantReady: []string{"True", ReasonNADReady, ""},
			check: func(t *testing.T, d *UDNDecision, _ *UserDefinedNetwork) {
				if !slices.Equal(d.Actions[0].NAD.Finalizers, []string{FinalizerProtection}) {
					t.Errorf("finalizers %v", d.Actions[0].NAD.Finalizers)
				}
			},
		},
		{
			name: "foreign NAD with the same name", udn: protectedUDN,
			nads: func(t *testing.T, u *UserDefinedNetwork) []*nadv1.NetworkAttachmentDefinition {
				return []*nadv1.NetworkAttachmentDefinition{foreignNAD("demo", "db-network", false)}
			},
			wantOps:   "Skip demo/db-network",
			wantReady: []string{"False", ReasonNADNotExist, "foreign NetworkAttachmentDefinition with the desired name already exist: 'demo/db-network'"},
			check: func(t *testing.T, d *UDNDecision, _ *UserDefinedNetwork) {
				if d.Actions[0].NAD != nil {
					t.Error("skip carries a NAD to write")
				}
			},
		},
		{
			name: "NAD owned by a deleted UDN of the same name is foreign", udn: protectedUDN,
			nads: func(t *testing.T, u *UserDefinedNetwork) []*nadv1.NetworkAttachmentDefinition {
				nad := renderedUDN(t, u)
				nad.OwnerReferences[0].UID = "previous-incarnation"
				return []*nadv1.NetworkAttachmentDefinition{nad}
			},
			wantOps: "Skip demo/db-network", wantReady: []string{"False", ReasonNADNotExist, "foreign NetworkAttachmentDefinition"},
		},
		{
			name: "primary network already in the namespace", udn: protectedUDN,
			nads: func(t *testing.T, u *UserDefinedNetwork) []*nadv1.NetworkAttachmentDefinition {
				return []*nadv1.NetworkAttachmentDefinition{foreignNAD("demo", "other-private-net", true)}
			},
			wantOps:   "Skip demo/db-network",
			wantReady: []string{"False", ReasonNADNotExist, "primary network already exist: 'demo/other-private-net'"},
		},
		{
			name: "primary network with the early primaryNetwork key", udn: protectedUDN,
			nads: func(t *testing.T, u *UserDefinedNetwork) []*nadv1.NetworkAttachmentDefinition {
				nad := foreignNAD("demo", "l3-network", false)
				nad.Spec.Config = `{"cniVersion":"0.3.1","name":"l3-network","type":"ovn-k8s-cni-overlay","topology":"layer3","primaryNetwork":"true"}`
				return []*nadv1.NetworkAttachmentDefinition{nad}
			},
			wantOps: "Skip demo/db-network", wantReady: []string{"False", ReasonNADNotExist, "'demo/l3-network'"},
		},
		{
			name: "secondary NAD in the namespace does not block", udn: protectedUDN,
			nads: func(t *testing.T, u *UserDefinedNetwork) []*nadv1.NetworkAttachmentDefinition {
				other := foreignNAD("demo", "macvlan", true)
				other.Spec.Config = `{"type":"macvlan","role":"primary"}` // not an OVN network
				return []*nadv1.NetworkAttachmentDefinition{foreignNAD("demo", "side", false), other}
			},
			wantOps: "Create demo/db-network", wantReady: []string{"True", ReasonNADReady, ""},
		},
		{
			name: "secondary UDN beside a primary network", udn: func() *UserDefinedNetwork {
				u := protectedUDN()
				u.Spec.Role = RoleSecondary
				return u
			},
			nads: func(t *testing.T, u *UserDefinedNetwork) []*nadv1.NetworkAttachmentDefinition {
				return []*nadv1.NetworkAttachmentDefinition{foreignNAD("demo", "other-private-net", true)}
			},
			wantOps: "Create demo/db-network", wantReady: []string{"True", ReasonNADReady, ""},
		},
		{
			name: "primary NAD created later is a conflict", udn: protectedUDN,
			nads: func(t *testing.T, u *UserDefinedNetwork) []*nadv1.NetworkAttachmentDefinition {
				return []*nadv1.NetworkAttachmentDefinition{foreignNAD("demo", "late-net", true), renderedUDN(t, u)}
			},
			wantOps:   "Keep demo/db-network",
			wantReady: []string{"False", ReasonPrimaryNetworkConflict, "conflicting primary network NetworkAttachmentDefinition: 'demo/late-net'"},
		},
		{
			name: "NADs of other namespaces are ignored", udn: protectedUDN,
			nads: func(t *testing.T, u *UserDefinedNetwork) []*nadv1.NetworkAttachmentDefinition {
				return []*nadv1.NetworkAttachmentDefinition{foreignNAD("other", "db-network", true)}
			},
			wantOps: "Create demo/db-network", wantReady: []string{"True", ReasonNADReady, ""},
		},
		{
			name: "invalid spec", udn: func() *UserDefinedNetwork {
				u := validUDN()
				u.Spec.Topology = "Layer4"
				return u
			},
			wantOps: "", wantFinalizer: FinalizerAdd,
			wantReady: []string{"False", ReasonInvalidSpec, `spec.topology: Unsupported value: "Layer4"`},
			check: func(t *testing.T, d *UDNDecision, _ *UserDefinedNetwork) {
				wantCond(t, d.Status.Conditions, ConditionNetworkCreated, metav1.ConditionFalse, ReasonInvalidSpec, "Layer4")
				if d.Network != nil {
					t.Error("network returned for an invalid spec")
				}
			},
		},
		{
			name: "invalid spec keeps the NAD it made", udn: func() *UserDefinedNetwork {
				u := protectedUDN()
				u.Spec.MTU = 1
				return u
			},
			nads: func(t *testing.T, u *UserDefinedNetwork) []*nadv1.NetworkAttachmentDefinition {
				v := protectedUDN()
				return []*nadv1.NetworkAttachmentDefinition{renderedUDN(t, v), foreignNAD("demo", "x", true)}
			},
			wantOps:   "Keep demo/db-network",
			wantReady: []string{"False", ReasonInvalidSpec, "spec.mtu"},
		},
		{
			name: "join subnet overlap reported in status", udn: func() *UserDefinedNetwork {
				u := protectedUDN()
				u.Spec.JoinSubnets = []string{"100.64.0.0/16"}
				return u
			},
			wantOps:   "",
			wantReady: []string{"False", ReasonInvalidSpec, `spec.joinSubnets[0]: Invalid value: "100.64.0.0/16": overlaps the default network's join subnet 100.64.0.0/16`},
		},
		{
			name: "OVN network pending", udn: protectedUDN, ovn: OVNNetworkPending,
			wantOps: "Create demo/db-network", wantReady: []string{"True", ReasonNADReady, ""},
			check: func(t *testing.T, d *UDNDecision, _ *UserDefinedNetwork) {
				wantCond(t, d.Status.Conditions, ConditionNetworkCreated, metav1.ConditionFalse, ReasonOVNNetworkPending, MessageOVNNetworkPending)
			},
		},
		{
			name: "deletion while pods use the network", udn: func() *UserDefinedNetwork {
				u := protectedUDN()
				u.DeletionTimestamp = &t0
				return u
			},
			nads: func(t *testing.T, u *UserDefinedNetwork) []*nadv1.NetworkAttachmentDefinition {
				return []*nadv1.NetworkAttachmentDefinition{renderedUDN(t, u)}
			},
			pods:          []types.NamespacedName{{Namespace: "demo", Name: "db-1"}, {Namespace: "demo", Name: "db-0"}, {Namespace: "other", Name: "x"}},
			wantOps:       "Keep demo/db-network",
			wantFinalizer: FinalizerKeep,
			wantReady:     []string{"False", ReasonNetworkInUse, "NetworkAttachmentDefinition cannot be deleted: the network is in use by pods [demo/db-0 demo/db-1]"},
		},
		{
			name: "deletion when no pod uses the network", udn: func() *UserDefinedNetwork {
				u := protectedUDN()
				u.DeletionTimestamp = &t0
				return u
			},
			nads: func(t *testing.T, u *UserDefinedNetwork) []*nadv1.NetworkAttachmentDefinition {
				return []*nadv1.NetworkAttachmentDefinition{renderedUDN(t, u), foreignNAD("demo", "other", true)}
			},
			pods:          []types.NamespacedName{{Namespace: "other", Name: "x"}},
			wantOps:       "Delete demo/db-network",
			wantFinalizer: FinalizerRemove,
			wantReady:     []string{"False", ReasonNADDeleted, MessageNADDeleted},
			check: func(t *testing.T, d *UDNDecision, _ *UserDefinedNetwork) {
				if d.Actions[0].NAD == nil || len(d.Actions[0].NAD.Finalizers) != 0 {
					t.Errorf("delete must release the NAD finalizer: %+v", d.Actions[0].NAD)
				}
			},
		},
		{
			name: "deletion leaves a foreign NAD alone", udn: func() *UserDefinedNetwork {
				u := protectedUDN()
				u.DeletionTimestamp = &t0
				return u
			},
			nads: func(t *testing.T, u *UserDefinedNetwork) []*nadv1.NetworkAttachmentDefinition {
				return []*nadv1.NetworkAttachmentDefinition{foreignNAD("demo", "db-network", false)}
			},
			wantOps: "", wantFinalizer: FinalizerRemove, wantReady: []string{"False", ReasonNADDeleted, ""},
		},
		{
			name: "deletion after our finalizer is gone does nothing", udn: func() *UserDefinedNetwork {
				u := validUDN()
				u.DeletionTimestamp = &t0
				return u
			},
			nads: func(t *testing.T, u *UserDefinedNetwork) []*nadv1.NetworkAttachmentDefinition {
				return []*nadv1.NetworkAttachmentDefinition{renderedUDN(t, u)}
			},
			wantOps: "", wantFinalizer: FinalizerKeep,
			check: func(t *testing.T, d *UDNDecision, _ *UserDefinedNetwork) {
				if len(d.Status.Conditions) != 0 {
					t.Errorf("conditions %+v", d.Status.Conditions)
				}
			},
		},
		{
			name: "our NAD deleted by someone else is released", udn: protectedUDN,
			nads: func(t *testing.T, u *UserDefinedNetwork) []*nadv1.NetworkAttachmentDefinition {
				nad := renderedUDN(t, u)
				nad.DeletionTimestamp = &t0
				return []*nadv1.NetworkAttachmentDefinition{nad}
			},
			wantOps: "Delete demo/db-network", wantReady: []string{"False", ReasonNADNotExist, "'demo/db-network' is being deleted; it is recreated once gone"},
		},
		{
			name: "our NAD deleted by someone else while in use is kept", udn: protectedUDN,
			nads: func(t *testing.T, u *UserDefinedNetwork) []*nadv1.NetworkAttachmentDefinition {
				nad := renderedUDN(t, u)
				nad.DeletionTimestamp = &t0
				return []*nadv1.NetworkAttachmentDefinition{nad}
			},
			pods:    []types.NamespacedName{{Namespace: "demo", Name: "db-0"}},
			wantOps: "Keep demo/db-network", wantReady: []string{"False", ReasonNADNotExist, "in use by pods [demo/db-0]"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u := tt.udn()
			var nads []*nadv1.NetworkAttachmentDefinition
			if tt.nads != nil {
				nads = tt.nads(t, u)
			}
			d, err := ReconcileUDN(UDNInput{UDN: u, NADs: nads, PodsUsing: tt.pods, OVNNetwork: tt.ovn, Now: t1})
			if err != nil {
				t.Fatal(err)
			}
			if got := ops(d.Actions); got != tt.wantOps {
				t.Errorf("actions %q, want %q", got, tt.wantOps)
			}
			if d.Finalizer != tt.wantFinalizer {
				t.Errorf("finalizer %s, want %s", d.Finalizer, tt.wantFinalizer)
			}
			if tt.wantReady != nil {
				wantCond(t, d.Status.Conditions, ConditionNetworkReady, metav1.ConditionStatus(tt.wantReady[0]), tt.wantReady[1], tt.wantReady[2])
			}
			if tt.check != nil {
				tt.check(t, d, u)
			}
		})
	}
}

func TestReconcileUDNBadInput(t *testing.T) {
	if _, err := ReconcileUDN(UDNInput{}); !errors.Is(err, ErrBadInput) {
		t.Errorf("nil UDN: %v", err)
	}
	u := validUDN()
	u.UID = ""
	if _, err := ReconcileUDN(UDNInput{UDN: u}); !errors.Is(err, ErrBadInput) {
		t.Errorf("no UID: %v", err)
	}
	if _, err := ReconcileCUDN(CUDNInput{}); !errors.Is(err, ErrBadInput) {
		t.Errorf("nil CUDN: %v", err)
	}
}

func TestConditionTransitionTimes(t *testing.T) {
	u := protectedUDN()
	u.Status.Conditions = []metav1.Condition{
		{Type: ConditionNetworkReady, Status: metav1.ConditionTrue, Reason: ReasonNADReady, Message: MessageNADReady, LastTransitionTime: t0},
		{Type: "SomeoneElses", Status: metav1.ConditionTrue, Reason: "X", LastTransitionTime: t0},
	}
	d, err := ReconcileUDN(UDNInput{UDN: u, Now: t1})
	if err != nil {
		t.Fatal(err)
	}
	if c := cond(d.Status.Conditions, ConditionNetworkReady); !c.LastTransitionTime.Equal(&t0) {
		t.Errorf("unchanged status moved the transition time: %+v", c)
	}
	if cond(d.Status.Conditions, "SomeoneElses") == nil {
		t.Error("dropped a condition another controller owns")
	}
	if u.Status.Conditions[0].ObservedGeneration != 0 {
		t.Error("reconcile modified its input")
	}
	d, err = ReconcileUDN(UDNInput{UDN: u, NADs: []*nadv1.NetworkAttachmentDefinition{foreignNAD("demo", "db-network", false)}, Now: t1})
	if err != nil {
		t.Fatal(err)
	}
	if c := cond(d.Status.Conditions, ConditionNetworkReady); !c.LastTransitionTime.Equal(&t1) || c.Status != metav1.ConditionFalse {
		t.Errorf("changed status kept the old transition time: %+v", c)
	}
}

// cudnFor returns a primary Layer2 CUDN selecting namespaces by name.
func cudnFor(name, uid string, created metav1.Time, namespaces ...string) *ClusterUserDefinedNetwork {
	c := validCUDN()
	c.Name, c.UID, c.CreationTimestamp = name, types.UID(uid), created
	c.Finalizers = []string{FinalizerProtection}
	c.Spec.NamespaceSelector = metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{
		Key: "kubernetes.io/metadata.name", Operator: metav1.LabelSelectorOpIn, Values: namespaces,
	}}}
	return c
}

func namespaces(names ...string) []Namespace {
	var out []Namespace
	for _, n := range names {
		out = append(out, Namespace{Name: n})
	}
	return out
}

func renderedCUDN(t *testing.T, c *ClusterUserDefinedNetwork, id int, ns ...string) []*nadv1.NetworkAttachmentDefinition {
	t.Helper()
	r, err := RenderCUDN(c, id, ns)
	if err != nil {
		t.Fatal(err)
	}
	return r.NADs
}

func TestReconcileCUDN(t *testing.T) {
	allNS := namespaces("a", "b", "c", "d", "e", "mynamespace", "theirnamespace")
	net1 := cudnFor("net1", "uid-net1", t0, "a", "b", "c")
	net2 := cudnFor("net2", "uid-net2", t1, "c", "d", "e")
	seed := cudnFor("db-network", "uid-db", t0, "mynamespace", "theirnamespace")
	seed.Spec.VRF = "db-network"
	tests := []struct {
		name          string
		cudn          *ClusterUserDefinedNetwork
		id            int
		nads          func(t *testing.T) []*nadv1.NetworkAttachmentDefinition
		others        []PeerCUDN
		pods          []types.NamespacedName
		wantOps       string
		wantFinalizer FinalizerOp
		wantActive    string
		wantReady     []string
	}{
		{
			name: "seed example: theirnamespace has another primary network", cudn: seed, id: 1,
			nads: func(t *testing.T) []*nadv1.NetworkAttachmentDefinition {
				return []*nadv1.NetworkAttachmentDefinition{foreignNAD("theirnamespace", "other-private-net", true)}
			},
			wantOps: "Create mynamespace/db-network, Skip theirnamespace/db-network", wantActive: "mynamespace",
			wantReady: []string{"False", ReasonNADNotExist,
				"Not all desired namespaces provisioned with NetworkAttachmentDefinition: [theirnamespace: primary network already exist: 'theirnamespace/other-private-net']"},
		},
		{
			name: "all namespaces provisioned", cudn: seed, id: 1,
			nads: func(t *testing.T) []*nadv1.NetworkAttachmentDefinition {
				return renderedCUDN(t, seed, 1, "mynamespace", "theirnamespace")
			},
			wantOps: "Keep mynamespace/db-network, Keep theirnamespace/db-network", wantActive: "mynamespace theirnamespace",
			wantReady: []string{"True", ReasonNADReady, MessageNADReady},
		},
		{
			name: "net1 and net2: the older net1 gets all its namespaces", cudn: net1, id: 1,
			others:  []PeerCUDN{{CUDN: net2, NetworkID: 2}},
			wantOps: "Create a/net1, Create b/net1, Create c/net1", wantActive: "a b c",
			wantReady: []string{"True", ReasonNADReady, ""},
		},
		{
			name: "net1 and net2: net2 not ready in C before net1's NAD exists", cudn: net2, id: 2,
			others:  []PeerCUDN{{CUDN: net1, NetworkID: 1}},
			wantOps: "Skip c/net2, Create d/net2, Create e/net2", wantActive: "d e",
			wantReady: []string{"False", ReasonNADNotExist, "[c: primary network already exist: ClusterUserDefinedNetwork 'net1' selects the namespace]"},
		},
		{
			name: "net1 and net2: net2 not ready in C next to net1's NAD", cudn: net2, id: 2,
			nads: func(t *testing.T) []*nadv1.NetworkAttachmentDefinition {
				return renderedCUDN(t, net1, 1, "a", "b", "c")
			},
			others:  []PeerCUDN{{CUDN: net1, NetworkID: 1}},
			wantOps: "Skip c/net2, Create d/net2, Create e/net2", wantActive: "d e",
			wantReady: []string{"False", ReasonNADNotExist, "[c: primary network already exist: 'c/net1']"},
		},
		{
			name: "net1 sees net2's NAD that got to C first", cudn: net1, id: 1,
			nads: func(t *testing.T) []*nadv1.NetworkAttachmentDefinition {
				return append(renderedCUDN(t, net1, 1, "a", "b"), renderedCUDN(t, net2, 2, "c")...)
			},
			others:  []PeerCUDN{{CUDN: net2, NetworkID: 2}},
			wantOps: "Keep a/net1, Keep b/net1, Skip c/net1", wantActive: "a b",
			wantReady: []string{"False", ReasonNADNotExist, "[c: primary network already exist: 'c/net2']"},
		},
		{
			name: "primary NAD created later in one namespace", cudn: seed, id: 1,
			nads: func(t *testing.T) []*nadv1.NetworkAttachmentDefinition {
				return append(renderedCUDN(t, seed, 1, "mynamespace", "theirnamespace"), foreignNAD("theirnamespace", "late", true))
			},
			wantOps: "Keep mynamespace/db-network, Keep theirnamespace/db-network", wantActive: "mynamespace",
			wantReady: []string{"False", ReasonPrimaryNetworkConflict,
				"Conflicts in namespaces: [theirnamespace: conflicting primary network NetworkAttachmentDefinition: 'theirnamespace/late']"},
		},
		{
			name: "foreign NAD in one namespace", cudn: seed, id: 1,
			nads: func(t *testing.T) []*nadv1.NetworkAttachmentDefinition {
				return []*nadv1.NetworkAttachmentDefinition{foreignNAD("mynamespace", "db-network", false)}
			},
			wantOps: "Skip mynamespace/db-network, Create theirnamespace/db-network", wantActive: "theirnamespace",
			wantReady: []string{"False", ReasonNADNotExist,
				"[mynamespace: foreign NetworkAttachmentDefinition with the desired name already exist: 'mynamespace/db-network']"},
		},
		{
			name: "VRF name used by an older CUDN", cudn: func() *ClusterUserDefinedNetwork {
				c := cudnFor("blue-net", "uid-blue", t1, "d")
				c.Spec.VRF = "red-net"
				return c
			}(), id: 3,
			nads: func(t *testing.T) []*nadv1.NetworkAttachmentDefinition {
				c := cudnFor("blue-net", "uid-blue", t1, "e")
				c.Spec.VRF = "red-net"
				return renderedCUDN(t, c, 3, "e")
			},
			others:  []PeerCUDN{{CUDN: cudnFor("red-net", "uid-red", t0, "a"), NetworkID: 4}},
			wantOps: "Keep e/blue-net",
			wantReady: []string{"False", ReasonVRFConflict,
				`VRF name "red-net" is already used by ClusterUserDefinedNetwork "red-net"`},
		},
		{
			name: "generated VRF name used by an older CUDN", cudn: func() *ClusterUserDefinedNetwork {
				c := cudnFor("blue-net", "uid-blue", t1, "d")
				c.Spec.VRF = "udn-4-vrf"
				return c
			}(), id: 3,
			others:    []PeerCUDN{{CUDN: cudnFor("a-very-long-network-name", "uid-long", t0, "a"), NetworkID: 4}},
			wantOps:   "",
			wantReady: []string{"False", ReasonVRFConflict, `"udn-4-vrf" is already used by ClusterUserDefinedNetwork "a-very-long-network-name"`},
		},
		{
			name: "VRF name of a newer CUDN does not block the older", cudn: cudnFor("red-net", "uid-red", t0, "a"), id: 4,
			others: []PeerCUDN{{CUDN: func() *ClusterUserDefinedNetwork {
				c := cudnFor("blue-net", "uid-blue", t1, "d")
				c.Spec.VRF = "red-net"
				return c
			}(), NetworkID: 3}},
			wantOps: "Create a/red-net", wantActive: "a", wantReady: []string{"True", ReasonNADReady, ""},
		},
		{
			name: "namespace no longer selected", cudn: net1, id: 1,
			nads: func(t *testing.T) []*nadv1.NetworkAttachmentDefinition {
				return renderedCUDN(t, net1, 1, "a", "b", "c", "d")
			},
			wantOps: "Keep a/net1, Keep b/net1, Keep c/net1, Delete d/net1", wantActive: "a b c",
			wantReady: []string{"True", ReasonNADReady, ""},
		},
		{
			name: "namespace no longer selected but in use", cudn: net1, id: 1,
			nads: func(t *testing.T) []*nadv1.NetworkAttachmentDefinition {
				return renderedCUDN(t, net1, 1, "a", "b", "c", "d")
			},
			pods:    []types.NamespacedName{{Namespace: "d", Name: "p"}},
			wantOps: "Keep a/net1, Keep b/net1, Keep c/net1, Keep d/net1", wantActive: "a b c",
			wantReady: []string{"False", ReasonPrimaryNetworkConflict, "d: no longer selected, but the network is in use by pods [d/p]"},
		},
		{
			name: "network ID needed for the VRF name", cudn: cudnFor("a-very-long-network-name", "uid-long", t0, "a"), id: 0,
			wantOps: "", wantReady: []string{"False", ReasonNetworkIDNotAllocated, "network ID not allocated yet"},
		},
		{
			name: "invalid template", cudn: func() *ClusterUserDefinedNetwork {
				c := cudnFor("bad", "uid-bad", t0, "a")
				c.Spec.Template.Spec.Subnets = []string{"10.0.0.0/24", "10.1.0.0/24"}
				return c
			}(), id: 1,
			wantOps: "", wantReady: []string{"False", ReasonInvalidSpec, "spec.template.spec.subnets[1]"},
		},
		{
			name: "secondary CUDN ignores primary networks", cudn: func() *ClusterUserDefinedNetwork {
				c := cudnFor("side", "uid-side", t1, "c")
				c.Spec.Template.Spec.Role = RoleSecondary
				return c
			}(), id: 5,
			nads: func(t *testing.T) []*nadv1.NetworkAttachmentDefinition {
				return renderedCUDN(t, net1, 1, "c")
			},
			others:  []PeerCUDN{{CUDN: net1, NetworkID: 1}},
			wantOps: "Create c/side", wantActive: "c", wantReady: []string{"True", ReasonNADReady, ""},
		},
		{
			name: "no namespace selected", cudn: cudnFor("lonely", "uid-lonely", t0, "Z"), id: 1,
			wantOps: "", wantActive: "", wantReady: []string{"True", ReasonNADReady, ""},
		},
		{
			name: "deletion while pods use the network in one namespace", cudn: func() *ClusterUserDefinedNetwork {
				c := cudnFor("net1", "uid-net1", t0, "a", "b", "c")
				c.DeletionTimestamp = &t1
				return c
			}(), id: 1,
			nads: func(t *testing.T) []*nadv1.NetworkAttachmentDefinition {
				return renderedCUDN(t, net1, 1, "a", "b")
			},
			pods:    []types.NamespacedName{{Namespace: "b", Name: "web"}},
			wantOps: "Keep a/net1, Keep b/net1", wantFinalizer: FinalizerKeep, wantActive: "a b",
			wantReady: []string{"False", ReasonNetworkInUse, "in use by pods [b/web]"},
		},
		{
			name: "deletion when unused", cudn: func() *ClusterUserDefinedNetwork {
				c := cudnFor("net1", "uid-net1", t0, "a", "b", "c")
				c.DeletionTimestamp = &t1
				return c
			}(), id: 1,
			nads: func(t *testing.T) []*nadv1.NetworkAttachmentDefinition {
				return renderedCUDN(t, net1, 1, "a", "b")
			},
			wantOps: "Delete a/net1, Delete b/net1", wantFinalizer: FinalizerRemove,
			wantReady: []string{"False", ReasonNADDeleted, ""},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var nads []*nadv1.NetworkAttachmentDefinition
			if tt.nads != nil {
				nads = tt.nads(t)
			}
			in := CUDNInput{CUDN: tt.cudn, NetworkID: tt.id, Namespaces: allNS, NADs: nads, Others: tt.others, PodsUsing: tt.pods, Now: t1}
			d, err := ReconcileCUDN(in)
			if err != nil {
				t.Fatal(err)
			}
			if got := ops(d.Actions); got != tt.wantOps {
				t.Errorf("actions %q, want %q", got, tt.wantOps)
			}
			if d.Finalizer != tt.wantFinalizer {
				t.Errorf("finalizer %s, want %s", d.Finalizer, tt.wantFinalizer)
			}
			if got := strings.Join(d.Status.ActiveNamespaces, " "); got != tt.wantActive {
				t.Errorf("active namespaces %q, want %q", got, tt.wantActive)
			}
			wantCond(t, d.Status.Conditions, ConditionNetworkReady, metav1.ConditionStatus(tt.wantReady[0]), tt.wantReady[1], tt.wantReady[2])

			// Same input in another order: same decision.
			rev := in
			rev.Namespaces = slices.Clone(in.Namespaces)
			slices.Reverse(rev.Namespaces)
			rev.NADs = slices.Clone(in.NADs)
			slices.Reverse(rev.NADs)
			rev.Others = slices.Clone(in.Others)
			slices.Reverse(rev.Others)
			d2, err := ReconcileCUDN(rev)
			if err != nil || !reflect.DeepEqual(d, d2) {
				t.Errorf("decision depends on input order:\n%+v\n%+v", d, d2)
			}
		})
	}
}

func TestSelectNamespaces(t *testing.T) {
	c := validCUDN()
	c.Spec.NamespaceSelector = metav1.LabelSelector{MatchLabels: map[string]string{"tier": "db"}}
	nss := []Namespace{
		{Name: "b", Labels: map[string]string{"tier": "db"}},
		{Name: "a", Labels: map[string]string{"tier": "db"}},
		{Name: "c", Labels: map[string]string{"tier": "web"}},
		{Name: "d"},
	}
	got, err := SelectNamespaces(c, nss)
	if err != nil || strings.Join(got, " ") != "a b" {
		t.Errorf("got %v, %v", got, err)
	}
	c.Spec.NamespaceSelector = metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "kubernetes.io/metadata.name", Operator: "In", Values: []string{"d", "c"}}}}
	if got, err := SelectNamespaces(c, nss); err != nil || strings.Join(got, " ") != "c d" {
		t.Errorf("by name: %v, %v", got, err)
	}
	c.Spec.NamespaceSelector.MatchExpressions[0].Operator = "Bad"
	if _, err := SelectNamespaces(c, nss); !errors.Is(err, ErrInvalidSpec) {
		t.Errorf("bad selector: %v", err)
	}
}

func TestPodList(t *testing.T) {
	var pods []types.NamespacedName
	for _, n := range []string{"g", "f", "e", "d", "c", "b", "a", "a"} {
		pods = append(pods, types.NamespacedName{Namespace: "ns", Name: n})
	}
	if got, want := podList(pods), "[ns/a ns/b ns/c ns/d ns/e and 2 more]"; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

func TestReconcileMultiplePrimary(t *testing.T) {
	otherUDN := func(name, subnet string) *nadv1.NetworkAttachmentDefinition {
		u := validUDN()
		u.Name, u.UID, u.Spec.Subnets = name, types.UID("uid-"+name), []string{subnet}
		return renderedUDN(t, u)
	}
	udnTests := []struct {
		name      string
		nad       *nadv1.NetworkAttachmentDefinition
		wantOps   string
		wantReady []string
	}{
		{name: "second primary UDN with disjoint subnets", nad: otherUDN("blue", "10.1.0.0/24"),
			wantOps: "Create demo/db-network", wantReady: []string{"True", ReasonNADReady, ""}},
		{name: "second primary UDN with overlapping subnets", nad: otherUDN("blue", "10.0.0.0/16"),
			wantOps: "Skip demo/db-network", wantReady: []string{"False", ReasonNADNotExist, "primary network already exist: 'demo/blue' (its subnets overlap)"}},
		{name: "primary CUDN in the namespace", nad: renderedCUDN(t, cudnFor("shared", "uid-shared", t0, "demo"), 1, "demo")[0],
			wantOps: "Skip demo/db-network", wantReady: []string{"False", ReasonNADNotExist, "'demo/shared' (a ClusterUserDefinedNetwork; primary UserDefinedNetworks and ClusterUserDefinedNetworks cannot share a namespace)"}},
		{name: "unmanaged primary NAD", nad: foreignNAD("demo", "hand-made", true),
			wantOps: "Skip demo/db-network", wantReady: []string{"False", ReasonNADNotExist, "'demo/hand-made' (not managed by a UserDefinedNetwork or ClusterUserDefinedNetwork)"}},
	}
	for _, tt := range udnTests {
		t.Run("UDN "+tt.name, func(t *testing.T) {
			d, err := ReconcileUDN(UDNInput{UDN: protectedUDN(), NADs: []*nadv1.NetworkAttachmentDefinition{tt.nad}, MultiplePrimary: true, Now: t1})
			if err != nil {
				t.Fatal(err)
			}
			if got := ops(d.Actions); got != tt.wantOps {
				t.Errorf("actions %q, want %q", got, tt.wantOps)
			}
			wantCond(t, d.Status.Conditions, ConditionNetworkReady, metav1.ConditionStatus(tt.wantReady[0]), tt.wantReady[1], tt.wantReady[2])
		})
	}

	allNS := namespaces("a", "b", "c", "d")
	net1 := cudnFor("net1", "uid-net1", t0, "a", "b")
	sameSel := func(subnet string) *ClusterUserDefinedNetwork {
		c := cudnFor("net2", "uid-net2", t1, "a", "b")
		c.Spec.Template.Spec.Subnets = []string{subnet}
		return c
	}
	cudnTests := []struct {
		name       string
		cudn       *ClusterUserDefinedNetwork
		wantOps    string
		wantActive string
		wantReady  []string
	}{
		{name: "same selector, disjoint subnets", cudn: sameSel("10.1.0.0/24"),
			wantOps: "Create a/net2, Create b/net2", wantActive: "a b", wantReady: []string{"True", ReasonNADReady, ""}},
		{name: "same selector, overlapping subnets", cudn: sameSel("10.0.0.0/23"),
			wantReady: []string{"False", ReasonPrimaryNetworkConflict, `subnets overlap those of primary ClusterUserDefinedNetwork "net1" in namespaces [a b]`}},
		{name: "different selector over shared namespaces", cudn: func() *ClusterUserDefinedNetwork {
			c := cudnFor("net2", "uid-net2", t1, "b", "c")
			c.Spec.Template.Spec.Subnets = []string{"10.1.0.0/24"}
			return c
		}(), wantReady: []string{"False", ReasonPrimaryNetworkConflict, `primary ClusterUserDefinedNetwork "net1" already serves namespaces [b]; a second primary network must have the same namespaceSelector`}},
		{name: "same selector, values in another order", cudn: func() *ClusterUserDefinedNetwork {
			c := cudnFor("net2", "uid-net2", t1, "b", "a")
			c.Spec.Template.Spec.Subnets = []string{"10.1.0.0/24"}
			return c
		}(), wantOps: "Create a/net2, Create b/net2", wantActive: "a b", wantReady: []string{"True", ReasonNADReady, ""}},
		{name: "different selector over other namespaces", cudn: cudnFor("net2", "uid-net2", t1, "c", "d"),
			wantOps: "Create c/net2, Create d/net2", wantActive: "c d", wantReady: []string{"True", ReasonNADReady, ""}},
	}
	for _, tt := range cudnTests {
		t.Run("CUDN "+tt.name, func(t *testing.T) {
			d, err := ReconcileCUDN(CUDNInput{
				CUDN: tt.cudn, NetworkID: 2, Namespaces: allNS, NADs: renderedCUDN(t, net1, 1, "a", "b"),
				Others: []PeerCUDN{{CUDN: net1, NetworkID: 1}}, MultiplePrimary: true, Now: t1,
			})
			if err != nil {
				t.Fatal(err)
			}
			if got := ops(d.Actions); got != tt.wantOps {
				t.Errorf("actions %q, want %q", got, tt.wantOps)
			}
			if got := strings.Join(d.Status.ActiveNamespaces, " "); got != tt.wantActive {
				t.Errorf("active %q, want %q", got, tt.wantActive)
			}
			wantCond(t, d.Status.Conditions, ConditionNetworkReady, metav1.ConditionStatus(tt.wantReady[0]), tt.wantReady[1], tt.wantReady[2])
		})
	}
}

// TestSameSelector: selectors compare as selectors: requirements and
// values in any order are the same selector; another requirement is not.
func TestSameSelector(t *testing.T) {
	req := func(key string, op metav1.LabelSelectorOperator, vs ...string) metav1.LabelSelectorRequirement {
		return metav1.LabelSelectorRequirement{Key: key, Operator: op, Values: vs}
	}
	a := metav1.LabelSelector{MatchLabels: map[string]string{"tier": "db"},
		MatchExpressions: []metav1.LabelSelectorRequirement{req("env", metav1.LabelSelectorOpIn, "a", "b"), req("zone", metav1.LabelSelectorOpExists)}}
	b := metav1.LabelSelector{MatchLabels: map[string]string{"tier": "db"},
		MatchExpressions: []metav1.LabelSelectorRequirement{req("zone", metav1.LabelSelectorOpExists), req("env", metav1.LabelSelectorOpIn, "b", "a")}}
	c := metav1.LabelSelector{MatchLabels: map[string]string{"tier": "db"},
		MatchExpressions: []metav1.LabelSelectorRequirement{req("env", metav1.LabelSelectorOpIn, "a", "b")}}
	if !sameSelector(&a, &b) || sameSelector(&a, &c) {
		t.Errorf("sameSelector: reordered %v, fewer requirements %v", sameSelector(&a, &b), sameSelector(&a, &c))
	}
}
