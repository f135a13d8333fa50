package netconf

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

// The design document's examples, verbatim.
const (
	seedUDN = `kind: UserDefinedNetwork
metadata:
  name: db-network
  namespace: demo
spec:
  topology: Layer2
  role: Primary
  mtu: 9000
  subnets: ["10.0.0.0/24"]
  excludeSubnets: ["10.0.0.0/26"]
  ipamLifecycle: Persistent
`
	seedUDNAfterCreation = `kind: UserDefinedNetwork
metadata:
  name: db-network
  namespace: demo
  finalizers:
    - k8s.ovn.org/user-defined-network-protection
spec:
  topology: Layer2
  role: Primary
  mtu: 9000
  subnets: ["10.0.0.0/24"]
  excludeSubnets: ["10.0.0.100/26"]
  ipam:
    lifecycle: Persistent
status:
  conditions:
  - type: "NetworkReady"
    status: "True"
    reason: "NetworkAttachmentDefinitionReady"
    message: "NetworkAttachmentDefinition has been created"
`
	seedCUDN = `kind: ClusterUserDefinedNetwork
metadata:
  name: db-network
spec:
  vrf: db-network
  namespaceSelector:
    matchExpressions:
    - key: kubernetes.io/metadata.name
      operator: In
      values:
        - "mynamespace"
        - "theirnamespace"
  template:
    topology: Layer2
    role: Primary
    mtu: 9000
    subnets: ["10.0.0.0/24"]
    excludeSubnets: ["10.0.0.100/26"]
status:
  activeNamespaces:
  - mynamespace
  conditions:
  - type: "NetworkReady"
    status: "False"
    reason: "NetworkAttachmentDefinitionNotExist"
    message: "Not all desired namespaces provisioned with NetworkAttachmentDefinition: ['theirnamespace', 'primary network already exist: 'theirnamespace/other-private-net'']"
`
)

func TestDecodeSeedExamples(t *testing.T) {
	t.Run("namespace-scoped", func(t *testing.T) {
		u, err := DecodeUDN([]byte(seedUDN))
		if err != nil {
			t.Fatal(err)
		}
		if u.APIVersion != GroupVersion || u.Kind != KindUDN || u.Spec.Topology != TopologyLayer2 ||
			u.Spec.Role != RolePrimary || u.Spec.MTU != 9000 || u.Spec.ipamLifecycle() != IPAMPersistent {
			t.Errorf("decoded %+v", u)
		}
		n, err := NetworkFromUDN(u)
		if err != nil {
			t.Fatal(err)
		}
		if !n.PersistentIPs || prefixesString(n.ExcludeSubnets) != "10.0.0.0/26" {
			t.Errorf("network %+v", n)
		}
	})
	t.Run("namespace-scoped after creation", func(t *testing.T) {
		u, err := DecodeUDN([]byte(seedUDNAfterCreation))
		if err != nil {
			t.Fatal(err)
		}
		if len(u.Finalizers) != 1 || u.Spec.IPAM == nil || u.Spec.IPAM.Lifecycle != IPAMPersistent ||
			len(u.Status.Conditions) != 1 || u.Status.Conditions[0].Reason != ReasonNADReady {
			t.Errorf("decoded %+v", u)
		}
		if errs := ValidateUDN(u); len(errs) != 0 {
			t.Errorf("seed example invalid: %v", errs)
		}
	})
	t.Run("cluster-scoped with inline template", func(t *testing.T) {
		c, err := DecodeCUDN([]byte(seedCUDN))
		if err != nil {
			t.Fatal(err)
		}
		if c.Spec.VRF != "db-network" || c.Spec.Template == nil || c.Spec.Template.Spec.MTU != 9000 ||
			len(c.Spec.NamespaceSelector.MatchExpressions) != 1 || len(c.Status.ActiveNamespaces) != 1 {
			t.Errorf("decoded %+v", c)
		}
		if errs := ValidateCUDN(c); len(errs) != 0 {
			t.Errorf("seed example invalid: %v", errs)
		}
	})
	t.Run("JSON", func(t *testing.T) {
		j, err := yaml.YAMLToJSON([]byte(seedCUDN))
		if err != nil {
			t.Fatal(err)
		}
		c, err := DecodeCUDN(j)
		if err != nil || c.Spec.Template.Spec.Topology != TopologyLayer2 {
			t.Fatalf("JSON decode: %v, %+v", err, c)
		}
	})
}

func TestDecodeErrors(t *testing.T) {
	tests := []struct {
		name    string
		doc     string
		cluster bool
		want    string
	}{
		{name: "unknown spec field", doc: "metadata: {name: a, namespace: b}\nspec: {topology: Layer2, role: Primary, subnet: [10.0.0.0/24]}", want: `unknown field "subnet"`},
		{name: "wrong kind", doc: "kind: Pod\nmetadata: {name: a}", want: `kind "Pod", want UserDefinedNetwork`},
		{name: "wrong kind for CUDN", doc: "kind: UserDefinedNetwork\nmetadata: {name: a}", cluster: true, want: "want ClusterUserDefinedNetwork"},
		{name: "unknown template field", doc: "metadata: {name: a}\nspec: {namespaceSelector: {matchLabels: {a: b}}, template: {topology: Layer2, rol: Primary}}", cluster: true, want: `unknown field "rol"`},
		{name: "template mixes both forms", doc: "metadata: {name: a}\nspec: {namespaceSelector: {matchLabels: {a: b}}, template: {spec: {topology: Layer2}, role: Primary}}", cluster: true, want: "not both"},
		{name: "template not an object", doc: "metadata: {name: a}\nspec: {template: 3}", cluster: true, want: "template"},
		{name: "mtu not a number", doc: "metadata: {name: a, namespace: b}\nspec: {topology: Layer2, role: Primary, mtu: big}", want: "mtu"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var err error
			if tt.cluster {
				_, err = DecodeCUDN([]byte(tt.doc))
			} else {
				_, err = DecodeUDN([]byte(tt.doc))
			}
			if !errors.Is(err, ErrInvalidSpec) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want ErrInvalidSpec containing %q", err, tt.want)
			}
		})
	}
}

func TestTemplateForms(t *testing.T) {
	var inline, nested UserDefinedNetworkTemplateSpec
	if err := json.Unmarshal([]byte(`{"topology":"Layer3","role":"Secondary","subnets":["10.1.0.0/16"]}`), &inline); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(`{"spec":{"topology":"Layer3","role":"Secondary","subnets":["10.1.0.0/16"]}}`), &nested); err != nil {
		t.Fatal(err)
	}
	if inline.Spec.Topology != TopologyLayer3 || !equalJSON(t, inline, nested) {
		t.Errorf("inline %+v != nested %+v", inline, nested)
	}
	b, err := json.Marshal(inline)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"spec":{"topology":"Layer3","role":"Secondary","subnets":["10.1.0.0/16"]}}`; string(b) != want {
		t.Errorf("marshal %s, want %s", b, want)
	}
	var null UserDefinedNetworkTemplateSpec
	if err := json.Unmarshal([]byte(`{"spec":null}`), &null); err != nil || null.Spec.Topology != "" {
		t.Errorf("null spec: %v %+v", err, null)
	}
}

func equalJSON(t *testing.T, a, b any) bool {
	t.Helper()
	ja, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	jb, err := json.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	return string(ja) == string(jb)
}

func TestEnumStrings(t *testing.T) {
	tests := []struct{ got, want string }{
		{TopologyLayer3.String(), "Layer3"},
		{TopologyLayer3.NetConfValue(), "layer3"},
		{RolePrimary.NetConfValue(), "primary"},
		{IPAMDisabled.String(), "Disabled"},
		{IPAMPersistent.String(), "Persistent"},
		{NADCreate.String(), "Create"},
		{NADDelete.String(), "Delete"},
		{NADOp(42).String(), "NADOp(42)"},
		{FinalizerRemove.String(), "Remove"},
		{FinalizerOp(9).String(), "FinalizerOp(9)"},
		{OVNNetworkCreated.String(), "Created"},
		{OVNNetworkState(7).String(), "OVNNetworkState(7)"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
}

func TestStatusRoundTripsThroughJSON(t *testing.T) {
	u := validUDN()
	u.Status.Conditions = []metav1.Condition{{Type: ConditionNetworkReady, Status: metav1.ConditionTrue, Reason: ReasonNADReady, Message: MessageNADReady}}
	b, err := json.Marshal(u)
	if err != nil {
		t.Fatal(err)
	}
	back, err := DecodeUDN(b)
	if err != nil {
		t.Fatal(err)
	}
	if !equalJSON(t, u, back) {
		t.Errorf("JSON round trip changed the object:\n%s", b)
	}
}
