package manifest

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/yaml"

	"github.com/udnkit/udnkit"
	"github.com/udnkit/udnkit/topology/egressip"
)

// TestEgressLoad loads the egress fixture: the labelled nodes take the
// egress IPs, egress-web keeps its stored mark and status, egress-db's
// mark is allocated and reported, and the zones' plans hold the reroutes
// of both networks with the EgressIPs' marks and the EgressQoS rows.
func TestEgressLoad(t *testing.T) {
	_, l := load(t, readFixture(t, "egress.yaml"))
	c := l.Cluster
	if !slices.Contains(l.Allocated, "EgressIP egress-db: k8s.ovn.org/egressip-mark=50008") {
		t.Errorf("allocated %q: want egress-db's mark", l.Allocated)
	}
	for _, a := range l.Allocated {
		if strings.HasPrefix(a, "EgressIP egress-web:") {
			t.Errorf("allocated %q: egress-web's mark is stored", a)
		}
	}
	web, ok := c.EgressIPStatus("egress-web")
	if !ok || web.Mark != 50007 || len(web.Items) != 1 || web.Items[0].Node != "ovn-worker" || web.Items[0].IP.String() != "172.18.0.100" {
		t.Errorf("egress-web: %+v, want mark 50007 and 172.18.0.100 on ovn-worker", web)
	}
	db, _ := c.EgressIPStatus("egress-db")
	var nodes []string
	for _, it := range db.Items {
		nodes = append(nodes, it.Node)
	}
	slices.Sort(nodes)
	if db.Mark != 50008 || !slices.Equal(nodes, []string{"ovn-worker", "ovn-worker2"}) || len(db.Unassigned) > 0 {
		t.Errorf("egress-db: %+v, want mark 50008, one IP on each egress node", db)
	}
	for _, n := range l.Notes {
		if strings.HasPrefix(n, "EgressIP") || strings.HasPrefix(n, "EgressQoS") {
			t.Errorf("note %q", n)
		}
	}
	st, err := c.Plan("ovn-worker")
	if err != nil {
		t.Fatal(err)
	}
	text := st.String()
	for _, want := range []string{
		// web-1 on the Layer3 network, on the egress node itself
		`router=tenant_l3.network_ovn_cluster_router priority=100 match="ip4.src == 11.0.1.3" action=reroute nexthops=[100.65.0.3] options={pkt_mark=50007} owner=udnkit-egressip:tenant_l3-network`,
		// db-1 (ovn-worker2) and web-2 (ovn-control-plane) on the Layer2 network
		`match="ip4.src == 10.0.0.3" action=reroute nexthops=[100.88.0.10] options={pkt_mark=50008} owner=udnkit-egressip:tenant_l2-network`,
		`match="ip4.src == 10.0.0.4" action=reroute nexthops=[100.88.0.10] options={pkt_mark=50007} owner=udnkit-egressip:tenant_l2-network`,
		`direction=to-lport priority=1000 match="(ip4.dst == 1.2.3.0/24) && ip4.src == $`,
		`action={dscp=46} owner=udnkit-egressqos:tenant_l3-network`,
		`action={dscp=10} owner=udnkit-egressqos:tenant_l2-network`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("ovn-worker's plan lacks %s", want)
		}
	}
}

// TestEgressNoAssignableNode: without the egress-assignable label no node
// takes an egress IP; each is noted, and no reroute is planned.
func TestEgressNoAssignableNode(t *testing.T) {
	objs := readFixture(t, "egress.yaml")
	for i, o := range objs {
		if o.Kind == KindNode {
			objs[i].JSON = []byte(strings.Replace(string(o.JSON), `"k8s.ovn.org/egress-assignable":"",`, "", 1))
		}
	}
	_, l := load(t, objs)
	want := []string{
		"EgressIP egress-db: 172.18.0.101 not assigned: NoEgressNode",
		"EgressIP egress-db: 172.18.0.102 not assigned: NoEgressNode",
		"EgressIP egress-web: 172.18.0.100 not assigned: NoEgressNode",
	}
	for _, w := range want {
		if !slices.Contains(l.Notes, w) {
			t.Errorf("notes %q lack %q", l.Notes, w)
		}
	}
	st, err := l.Cluster.Plan("ovn-worker")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(st.String(), "pkt_mark=5000") {
		t.Errorf("a reroute without an egress node:\n%s", st)
	}
}

// TestEgressAnnotate: the stored dump holds egress-db's allocated mark and
// both EgressIPs' assignments in status.items, as the reference writes
// them.
func TestEgressAnnotate(t *testing.T) {
	objs := readFixture(t, "egress.yaml")
	set, l := load(t, objs)
	checked := 0
	for _, o := range dump(t, objs, set, l) {
		if o.Kind != KindEgressIP {
			continue
		}
		checked++
		var e struct {
			Metadata struct{ Annotations map[string]string }
			Status   struct {
				Items []struct{ Node, EgressIP string }
			}
		}
		if err := yaml.Unmarshal(o.JSON, &e); err != nil {
			t.Fatal(err)
		}
		want := map[string]string{"egress-web": "50007", "egress-db": "50008"}[o.Name]
		if got := e.Metadata.Annotations[egressip.AnnotationMark]; got != want {
			t.Errorf("EgressIP %s: mark %q, want %q", o.Name, got, want)
		}
		if n := map[string]int{"egress-web": 1, "egress-db": 2}[o.Name]; len(e.Status.Items) != n {
			t.Errorf("EgressIP %s: status items %v, want %d", o.Name, e.Status.Items, n)
		}
	}
	if checked != 2 {
		t.Fatalf("%d EgressIPs in the dump, want 2", checked)
	}
}

const egressStream = `
apiVersion: v1
kind: List
items:
- apiVersion: k8s.ovn.org/v1
  kind: EgressIP
  metadata: {name: bad-ip}
  spec: {egressIPs: ["172.18.0.300"], namespaceSelector: {matchLabels: {a: b}}}
- apiVersion: k8s.ovn.org/v1
  kind: EgressIP
  metadata: {name: bad-operator}
  spec: {egressIPs: ["172.18.0.100"], namespaceSelector: {matchExpressions: [{key: a, operator: Has}]}}
- apiVersion: k8s.ovn.org/v1
  kind: EgressIP
  metadata: {name: bad-mark, annotations: {k8s.ovn.org/egressip-mark: "42"}}
  spec: {egressIPs: ["172.18.0.101"], namespaceSelector: {}}
- apiVersion: k8s.ovn.org/v1
  kind: EgressIP
  metadata: {name: a-mark, annotations: {k8s.ovn.org/egressip-mark: "50001"}}
  spec: {egressIPs: ["172.18.0.102"], namespaceSelector: {}}
- apiVersion: k8s.ovn.org/v1
  kind: EgressIP
  metadata: {name: same-mark, annotations: {k8s.ovn.org/egressip-mark: "50001"}}
  spec: {egressIPs: ["172.18.0.103"], namespaceSelector: {}}
- apiVersion: k8s.ovn.org/v1
  kind: EgressQoS
  metadata: {name: default, namespace: a}
  spec:
    egress:
    - {dscp: 64}
    - {dscp: 1, dstCIDR: 1.2.3.4/24}
`

// TestValidateEgress: each invalid EgressIP and EgressQoS is one
// StatusError at the field to fix, in the stream's order; the valid
// EgressIP whose mark another repeats passes, the later one does not.
func TestValidateEgress(t *testing.T) {
	objs, err := Read(strings.NewReader(egressStream), "e.yaml")
	if err != nil {
		t.Fatal(err)
	}
	set, errs := Decode(objs)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	want := []struct {
		kind, name string
		fields     []string
	}{
		{"EgressIP", "bad-ip", []string{"spec.egressIPs[0]"}},
		{"EgressIP", "bad-operator", []string{"spec.namespaceSelector.matchExpressions[0].operator"}},
		{"EgressIP", "bad-mark", []string{"metadata.annotations[k8s.ovn.org/egressip-mark]"}},
		{"EgressIP", "same-mark", []string{"metadata.annotations[k8s.ovn.org/egressip-mark]"}},
		{"EgressQoS", "default", []string{"spec.egress[0].dscp", "spec.egress[1].dstCIDR"}},
	}
	got := set.Validate()
	if len(got) != len(want) {
		t.Fatalf("%d invalid objects, want %d: %v", len(got), len(want), got)
	}
	for i, inv := range got {
		var se *apierrors.StatusError
		if !errors.As(inv, &se) || !apierrors.IsInvalid(inv) {
			t.Fatalf("%v is not an Invalid StatusError", inv)
		}
		d := se.ErrStatus.Details
		var fields []string
		for _, c := range d.Causes {
			fields = append(fields, c.Field)
		}
		w := want[i]
		if d.Group != "k8s.ovn.org" || d.Kind != w.kind || d.Name != w.name || !slices.Equal(fields, w.fields) {
			t.Errorf("#%d: %s %s.%s %q at %q, want %s %q at %q", i, inv.Source, d.Kind, d.Group, d.Name, fields, w.kind, w.name, w.fields)
		}
	}
	if msg := got[3].Error(); !strings.Contains(msg, "EgressIP a-mark") {
		t.Errorf("%s: the duplicate mark does not name the EgressIP holding it", msg)
	}
}

// TestDecodeEgress: an unknown field or another apiVersion is a decode
// error naming the object; an EgressQoS not named "default" is noted
// and left out, as the reference ignores it.
func TestDecodeEgress(t *testing.T) {
	objs, err := Read(strings.NewReader(`
apiVersion: k8s.ovn.org/v1
kind: EgressIP
metadata: {name: typo}
spec: {egressIP: ["172.18.0.100"], namespaceSelector: {}}
---
apiVersion: k8s.ovn.org/v2
kind: EgressQoS
metadata: {name: default, namespace: a}
spec: {egress: [{dscp: 1}]}
---
apiVersion: k8s.ovn.org/v1
kind: EgressQoS
metadata: {name: other, namespace: a}
spec: {egress: [{dscp: 1}]}
`), "d.yaml")
	if err != nil {
		t.Fatal(err)
	}
	set, errs := Decode(objs)
	if len(errs) != 2 || !strings.Contains(errs[0].Error(), "d.yaml: document 1: EgressIP typo:") || !strings.Contains(errs[0].Error(), "egressIP") ||
		!strings.Contains(errs[1].Error(), "d.yaml: document 2: EgressQoS a/default:") || !strings.Contains(errs[1].Error(), "k8s.ovn.org/v2") {
		t.Fatalf("errors %v: want the unknown field and the apiVersion, each naming the object", errs)
	}
	if len(set.EgressQoSes) != 1 {
		t.Fatalf("EgressQoSes %v", set.EgressQoSes)
	}
	l, err := Load(set, udnkit.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if want := `EgressQoS a/other: not named "default": ignored, as the reference does`; !slices.Contains(l.Notes, want) {
		t.Errorf("notes %q lack %q", l.Notes, want)
	}
}

// egressBase is a ready egress node and a namespace with a primary
// network: what FuzzEgress plans the fuzzed objects on.
const egressBase = `
- apiVersion: v1
  kind: Node
  metadata:
    name: n1
    labels: {k8s.ovn.org/egress-assignable: ""}
    annotations:
      k8s.ovn.org/node-chassis-id: c1
      k8s.ovn.org/l3-gateway-config: '{"default":{"mode":"shared","mac-address":"02:42:ac:12:00:02","ip-addresses":["172.18.0.2/16"],"next-hops":["172.18.0.1"]}}'
- {apiVersion: v1, kind: Namespace, metadata: {name: a, labels: {k8s.ovn.org/primary-user-defined-network: ""}}}
- apiVersion: k8s.ovn.org/v1
  kind: UserDefinedNetwork
  metadata: {name: blue, namespace: a}
  spec: {topology: Layer3, role: Primary, subnets: ["10.128.0.0/16/24"]}
- {apiVersion: v1, kind: Pod, metadata: {name: p, namespace: a, uid: u1, labels: {app: web}}, spec: {nodeName: n1}, status: {phase: Running}}
`

// FuzzEgress decodes any EgressIP and EgressQoS: what fails to decode is
// an error naming the object; what validates loads and plans.
func FuzzEgress(f *testing.F) {
	f.Add(`{metadata: {name: e, annotations: {k8s.ovn.org/egressip-mark: "50001"}}, spec: {egressIPs: ["172.18.0.100"], namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: a}}, podSelector: {matchExpressions: [{key: app, operator: In, values: [web]}]}}, status: {items: [{node: n1, egressIP: 172.18.0.100}]}}`,
		`{metadata: {name: default, namespace: a}, spec: {egress: [{dscp: 46, dstCIDR: 1.2.3.0/24, podSelector: {matchLabels: {app: web}}}, {dscp: 10}]}}`)
	f.Add(`{metadata: {name: e}, spec: {egressIPs: ["fd00::1", "172.18.0.100"], namespaceSelector: {}}, status: {items: [{node: gone, egressIP: 1.1.1.1}]}}`,
		`{metadata: {name: default, namespace: b}, spec: {egress: [{dscp: 0, dstCIDR: "::/0"}]}}`)
	f.Add(`{metadata: {name: e}, spec: {egressIPs: ["10.128.0.5"], namespaceSelector: {matchExpressions: [{key: x, operator: DoesNotExist}]}}}`, `{}`)
	f.Fuzz(func(t *testing.T, eip, qos string) {
		stream := "kind: List\nitems:\n" + egressBase +
			"- " + withKind(eip, "EgressIP") + "\n- " + withKind(qos, "EgressQoS") + "\n"
		objs, err := Read(strings.NewReader(stream), "fuzz")
		if err != nil {
			return // not YAML, or no name: Read's own fuzzing covers it
		}
		set, errs := Decode(objs)
		for _, err := range errs {
			if !strings.Contains(err.Error(), "fuzz: document 1, items[") {
				t.Fatalf("decode error %v does not name where the object is", err)
			}
		}
		if len(errs) > 0 || len(set.Validate()) > 0 {
			return
		}
		l, err := Load(set, udnkit.Config{})
		if err != nil {
			t.Fatalf("valid objects not loaded: %v\n%s", err, stream)
		}
		if _, err := l.Cluster.Plan("n1"); err != nil {
			t.Fatalf("valid objects not planned: %v\n%s", err, stream)
		}
	})
}

// withKind returns the flow-style object doc with its apiVersion and kind
// (the fuzzer mutates the rest).
func withKind(doc, kind string) string {
	doc = strings.TrimSpace(doc)
	if !strings.HasPrefix(doc, "{") || strings.ContainsAny(doc, "\n\r") {
		return fmt.Sprintf("{apiVersion: k8s.ovn.org/v1, kind: %s, metadata: {name: x}}", kind)
	}
	return fmt.Sprintf("{apiVersion: k8s.ovn.org/v1, kind: %s, %s", kind, doc[1:])
}

// BenchmarkLoadEgress reads, decodes, validates and loads the egress
// fixture (two primaries, three pods, two EgressIPs, an EgressQoS) and
// plans the egress node's zone: what `udnkit plan` does before printing.
func BenchmarkLoadEgress(b *testing.B) {
	data, err := os.ReadFile(fixtures + "egress.yaml")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		objs, err := Read(strings.NewReader(string(data)), "egress.yaml")
		if err != nil {
			b.Fatal(err)
		}
		set, errs := Decode(objs)
		if len(errs) > 0 || len(set.Validate()) > 0 {
			b.Fatal(errs)
		}
		l, err := Load(set, udnkit.Config{})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := l.Cluster.Plan("ovn-worker"); err != nil {
			b.Fatal(err)
		}
	}
}
