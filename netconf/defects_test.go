package netconf

import (
	"errors"
	"strings"
	"testing"

	nadv1 "github.com/k8snetworkplumbingwg/network-attachment-definition-client/pkg/apis/k8s.cni.cncf.io/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// TestNetConfRefusesControlCharacters: a newline in a NetConf name (which
// ends up in OVN names and in the comments of an ovn-nbctl script), vrf or
// physicalNetworkName is refused with the key named.
func TestNetConfRefusesControlCharacters(t *testing.T) {
	base := `{"cniVersion":"1.0.0","name":"ns_x","type":"ovn-k8s-cni-overlay","topology":"layer2","netAttachDefName":"ns/x","subnets":"10.9.0.0/24"}`
	if _, err := ParseNetConf([]byte(base)); err != nil {
		t.Fatal(err)
	}
	for key, doc := range map[string]string{
		"name":                strings.Replace(base, `"name":"ns_x"`, `"name":"ns_x\n rm -rf / #"`, 1),
		"vrf":                 strings.Replace(base, `"topology"`, `"vrf":"v\tx","topology"`, 1),
		"physicalNetworkName": strings.Replace(base, `"topology":"layer2"`, `"physicalNetworkName":"a\u007fb","topology":"localnet"`, 1),
		"name (space)":        strings.Replace(base, `"name":"ns_x"`, `"name":"ns x"`, 1),
	} {
		_, err := ParseNetConf([]byte(doc))
		if !errors.Is(err, ErrInvalidNetConf) || !strings.Contains(err.Error(), strings.Fields(key)[0]+":") {
			t.Errorf("%s: %v", key, err)
		}
	}
}

func nadOf(ns, name, network string, owner *metav1.OwnerReference) *nadv1.NetworkAttachmentDefinition {
	nad := &nadv1.NetworkAttachmentDefinition{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: nadv1.NetworkAttachmentDefinitionSpec{Config: `{"cniVersion":"1.0.0","name":"` + network +
			`","type":"ovn-k8s-cni-overlay","topology":"layer2","netAttachDefName":"` + ns + "/" + name + `","subnets":"10.9.0.0/24"}`}}
	if owner != nil {
		nad.OwnerReferences = []metav1.OwnerReference{*owner}
	}
	return nad
}

// TestNADBinding: a NAD in tenant B naming tenant A's network, or a CUDN's
// network without that CUDN controlling it, is refused; the NADs the SDK
// renders pass.
func TestNADBinding(t *testing.T) {
	yes := true
	ctl := func(kind, name string) *metav1.OwnerReference {
		return &metav1.OwnerReference{Kind: kind, Name: name, Controller: &yes, APIVersion: GroupVersion}
	}
	for _, tc := range []struct {
		name string
		nad  *nadv1.NetworkAttachmentDefinition
		ok   bool
	}{
		{"own namespace", nadOf("tenant-b", "x", "tenant-b_x", nil), true},
		{"own UDN", nadOf("tenant-b", "x", "tenant-b_x", ctl(KindUDN, "x")), true},
		{"another tenant's network", nadOf("tenant-b", "x", "tenant-a_x", nil), false},
		{"another UDN of the namespace", nadOf("tenant-b", "x", "tenant-b_y", ctl(KindUDN, "x")), false},
		{"a CUDN's network, not controlled by it", nadOf("tenant-b", "x", "cluster_udn_shared", nil), false},
		{"a CUDN's network, controlled by another", nadOf("tenant-b", "x", "cluster_udn_shared", ctl(KindCUDN, "other")), false},
		{"a CUDN's network, controlled by it", nadOf("tenant-b", "shared", "cluster_udn_shared", ctl(KindCUDN, "shared")), true},
	} {
		_, err := NetworkFromNAD(tc.nad)
		if tc.ok != (err == nil) || (err != nil && !errors.Is(err, ErrNADBinding)) {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
	nad := nadOf("tenant-b", "x", "tenant-b_x", nil)
	nad.Spec.Config = strings.Replace(nad.Spec.Config, `"netAttachDefName":"tenant-b/x"`, `"netAttachDefName":"tenant-b/other"`, 1)
	if _, err := NetworkFromNAD(nad); !errors.Is(err, ErrNADBinding) || !strings.Contains(err.Error(), "netAttachDefName") {
		t.Errorf("netAttachDefName of another NAD: %v", err)
	}
	// Everything the SDK renders binds.
	r, err := RenderUDN(validUDN())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := NetworkFromNAD(r.NADs[0]); err != nil {
		t.Errorf("a rendered UDN NAD: %v", err)
	}
	c := validCUDN()
	rc, err := RenderCUDN(c, 5, []string{"a", "b"})
	if err != nil {
		t.Fatal(err)
	}
	for _, nad := range rc.NADs {
		if _, err := NetworkFromNAD(nad); err != nil {
			t.Errorf("a rendered CUDN NAD: %v", err)
		}
	}
}

// TestPrefixCollision: UDNs x-y and x.y of one namespace map to the same
// OVN names; the later one is refused with a condition naming both, and
// writes nothing.
func TestPrefixCollision(t *testing.T) {
	older, newer := validUDN(), validUDN()
	older.Name, older.UID, older.CreationTimestamp = "x-y", "uid-1", t0
	newer.Name, newer.UID, newer.CreationTimestamp = "x.y", "uid-2", t1
	peers := []PeerNetwork{
		{Object: "demo/x-y", Network: UDNNetworkName("demo", "x-y"), Created: t0},
		{Object: "demo/x.y", Network: UDNNetworkName("demo", "x.y"), Created: t1},
	}
	d, err := ReconcileUDN(UDNInput{UDN: newer, Peers: peers, Now: t1})
	if err != nil {
		t.Fatal(err)
	}
	if d.Network != nil || len(d.Actions) != 0 {
		t.Errorf("the later network plans %v and acts %v", d.Network, d.Actions)
	}
	wantCond(t, d.Status.Conditions, ConditionNetworkCreated, metav1.ConditionFalse, ReasonNetworkNameConflict, `"demo_x-y" of demo/x-y`)
	d, err = ReconcileUDN(UDNInput{UDN: older, Peers: peers, Now: t1})
	if err != nil || d.Network == nil {
		t.Fatalf("the older network is refused: %v %+v", err, d)
	}
	// CUDNs: cluster_udn_a-b and cluster_udn_a.b.
	ca, cb := validCUDN(), validCUDN()
	ca.Name, ca.UID, ca.CreationTimestamp = "a-b", "uid-a", t0
	cb.Name, cb.UID, cb.CreationTimestamp = "a.b", "uid-b", t1
	dc, err := ReconcileCUDN(CUDNInput{CUDN: cb, NetworkID: 3, Others: []PeerCUDN{{CUDN: ca, NetworkID: 2}}, Now: t1})
	if err != nil {
		t.Fatal(err)
	}
	if dc.Network != nil || !strings.Contains(dc.Status.Conditions[0].Message, "cluster_udn_a-b") {
		t.Errorf("the later CUDN: %+v", dc.Status.Conditions)
	}
}

// TestMessagesAreCapped: a condition never carries more than the API's
// 32768 bytes, and says how much it left out.
func TestMessagesAreCapped(t *testing.T) {
	var errs field.ErrorList
	for range 5000 {
		errs = append(errs, field.Invalid(field.NewPath("spec", "subnets"), strings.Repeat("x", 20), "bad"))
	}
	msg := errorsMessage(errs)
	if len(msg) > MaxMessageLength || !strings.Contains(msg, "more errors]") {
		t.Errorf("%d bytes, ends %q", len(msg), msg[len(msg)-30:])
	}
	if got := capMessage(strings.Repeat("é", MaxMessageLength)); len(got) > MaxMessageLength || !strings.Contains(got, "more bytes left out") {
		t.Errorf("capMessage: %d bytes", len(got))
	}
	u := validUDN()
	for range 3000 {
		u.Spec.ExcludeSubnets = append(u.Spec.ExcludeSubnets, "not-a-cidr-"+strings.Repeat("z", 10))
	}
	d, err := ReconcileUDN(UDNInput{UDN: u, Now: t0})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range d.Status.Conditions {
		if len(c.Message) > MaxMessageLength {
			t.Errorf("condition %s: %d bytes", c.Type, len(c.Message))
		}
	}
}
