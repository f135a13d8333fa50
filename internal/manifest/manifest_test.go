package manifest

import (
	"encoding/json"
	"errors"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/udnkit/udnkit"
)

const fixtures = "../../examples/manifests/"

func TestRead(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     []string // "Kind key @ source"
		err      string
	}{
		{"documents", "kind: Namespace\nmetadata: {name: a}\n---\n---\nkind: Node\nmetadata: {name: n1}\n",
			[]string{"Namespace a @ s: document 1", "Node n1 @ s: document 2"}, ""},
		{"list", "apiVersion: v1\nkind: List\nmetadata: {resourceVersion: \"\"}\nitems:\n- {kind: Namespace, metadata: {name: a}}\n- {apiVersion: k8s.ovn.org/v1, kind: UserDefinedNetwork, metadata: {name: u, namespace: a}}\n",
			[]string{"Namespace a @ s: document 1, items[0]", "UserDefinedNetwork a/u @ s: document 1, items[1]"}, ""},
		{"typed list and nested", `{"kind":"NodeList","items":[{"kind":"Node","metadata":{"name":"x"}},{"kind":"List","items":[{"kind":"Node","metadata":{"name":"y"}}]}]}`,
			[]string{"Node x @ s: document 1, items[0]", "Node y @ s: document 1, items[1], items[0]"}, ""},
		{"json stream", `{"kind":"Node","metadata":{"name":"x"}} {"kind":"Node","metadata":{"name":"y"}}`,
			[]string{"Node x @ s: document 1", "Node y @ s: document 2"}, ""},
		{"empty", "", nil, ""},
		{"comments only", "# nothing\n---\n", nil, ""},
		{"no kind", "metadata: {name: x}\n", nil, "s: document 1: kind: manifest: read: missing"},
		{"no name", "kind: Node\nmetadata: {}\n", nil, "s: document 1: Node: metadata.name: manifest: read: missing"},
		{"scalar", "just text\n", nil, "s: document 1: manifest: read: not an object"},
		{"item scalar", "kind: List\nitems: [3]\n", nil, "s: document 1, items[0]: manifest: read: not an object"},
		{"bad yaml", "kind: [\n", nil, "s: document 1: manifest: read"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			objs, err := Read(strings.NewReader(tc.in), "s")
			if tc.err != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tc.err) || !errors.Is(err, ErrRead) {
					t.Fatalf("err %v, want one starting %q wrapping ErrRead", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, o := range objs {
				got = append(got, o.Kind+" "+o.Key()+" @ "+o.Source)
				var m map[string]any
				if err := json.Unmarshal(o.JSON, &m); err != nil || m["kind"] != o.Kind {
					t.Errorf("%s: JSON %s is not the object", o.Source, o.JSON)
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestReadPaths(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{
		"b.yaml": "kind: Node\nmetadata: {name: b}\n", "a.json": `{"kind":"Node","metadata":{"name":"a"}}`,
		"c.txt": "not read", "d.yml": "kind: Node\nmetadata: {name: d}\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	objs, err := ReadPaths([]string{dir, "-"}, strings.NewReader("kind: Node\nmetadata: {name: s}\n"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, o := range objs {
		got = append(got, o.Name)
	}
	if want := []string{"a", "b", "d", "s"}; !slices.Equal(got, want) {
		t.Errorf("read %v, want %v (directory sorted, then stdin)", got, want)
	}
	if _, err := ReadPaths([]string{filepath.Join(dir, "missing.yaml")}, nil); err == nil {
		t.Error("a missing file read without error")
	}
	empty := t.TempDir()
	if _, err := ReadPaths([]string{empty}, nil); !errors.Is(err, ErrRead) {
		t.Errorf("an empty directory: %v, want ErrRead", err)
	}
}

func TestDecode(t *testing.T) {
	objs, err := Read(strings.NewReader(`
kind: UserDefinedNetwork
metadata: {name: u, namespace: b}
spec: {topology: Layer2, role: Secondary, subnets: ["10.0.0.0/24"]}
---
kind: UserDefinedNetwork
metadata: {name: u, namespace: a}
spec: {topology: Layer2, role: Secondary, subnets: ["10.0.0.0/24"]}
---
kind: UserDefinedNetwork
metadata: {name: u, namespace: a}
spec: {topology: Layer2, role: Secondary, subnets: ["10.1.0.0/24"]}
---
kind: UserDefinedNetwork
metadata: {name: typo, namespace: a}
spec: {topology: Layer2, role: Secondary, subnetz: ["10.0.0.0/24"]}
---
kind: ConfigMap
metadata: {name: p, namespace: a}
---
kind: ConfigMap
metadata: {name: q, namespace: a}
---
kind: Secret
metadata: {name: s, namespace: a}
`), "s")
	if err != nil {
		t.Fatal(err)
	}
	set, errs := Decode(objs)
	if len(errs) != 2 || !strings.Contains(errs[0].Error(), "s: document 3: UserDefinedNetwork a/u: manifest: read: also in s: document 2") ||
		!strings.Contains(errs[1].Error(), "s: document 4: UserDefinedNetwork a/typo:") || !strings.Contains(errs[1].Error(), "subnetz") {
		t.Fatalf("errors %v: want the duplicate and the unknown field, each naming the object", errs)
	}
	if len(set.UDNs) != 2 || set.UDNs[0].Namespace != "a" || set.UDNs[1].Namespace != "b" {
		t.Errorf("UDNs not sorted by key: %v", set.UDNs)
	}
	if got := set.IgnoredKinds(); !slices.Equal(got, []string{"2 ConfigMap", "1 Secret"}) {
		t.Errorf("ignored %v", got)
	}
	if got := set.Source("UserDefinedNetwork", "b/u"); got != "s: document 1" {
		t.Errorf("source %q", got)
	}
}

func node(ann map[string]string) *corev1.Node {
	return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1", Annotations: ann}}
}

func TestNodeOf(t *testing.T) {
	pfx := netip.MustParsePrefix
	addr := netip.MustParseAddr
	for _, tc := range []struct {
		name  string
		ann   map[string]string
		addrs []netip.Prefix
		hops  []netip.Addr
		mac   string
		err   string
	}{
		{"dual stack", map[string]string{AnnotationChassisID: "c1", AnnotationL3Gateway: `{"default":{"mode":"shared","mac-address":"02:42:ac:12:00:03","ip-addresses":["172.18.0.3/16","fc00::3/64","172.18.0.9/16"],"next-hops":["172.18.0.1","fc00::1"]}}`},
			[]netip.Prefix{pfx("172.18.0.3/16"), pfx("fc00::3/64")}, []netip.Addr{addr("172.18.0.1"), addr("fc00::1")}, "02:42:ac:12:00:03", ""},
		{"older single fields", map[string]string{AnnotationL3Gateway: `{"default":{"mode":"local","ip-address":"10.0.0.5/24","next-hop":"10.0.0.1"}}`},
			[]netip.Prefix{pfx("10.0.0.5/24")}, []netip.Addr{addr("10.0.0.1")}, "", ""},
		{"primary ifaddr fallback", map[string]string{AnnotationPrimaryIfAddr: `{"ipv4":"10.1.0.5/16","ipv6":"fd00::5/64"}`},
			[]netip.Prefix{pfx("10.1.0.5/16"), pfx("fd00::5/64")}, nil, "", ""},
		{"gateway wins over ifaddr", map[string]string{AnnotationPrimaryIfAddr: `{"ipv4":"10.1.0.5/16"}`, AnnotationL3Gateway: `{"default":{"ip-addresses":["10.2.0.5/16"]}}`},
			[]netip.Prefix{pfx("10.2.0.5/16")}, nil, "", ""},
		{"disabled gateway", map[string]string{AnnotationL3Gateway: `{"default":{"mode":"disabled","ip-addresses":["10.2.0.5/16"]}}`}, nil, nil, "", ""},
		{"nothing yet", nil, nil, nil, "", ""},
		{"not json", map[string]string{AnnotationL3Gateway: `{`}, nil, nil, "", "Node n1: annotation k8s.ovn.org/l3-gateway-config: malformed annotation"},
		{"bare address", map[string]string{AnnotationL3Gateway: `{"default":{"ip-addresses":["10.2.0.5"]}}`}, nil, nil, "", `ip-addresses: "10.2.0.5" is not an interface address`},
		{"bad hop", map[string]string{AnnotationL3Gateway: `{"default":{"next-hops":["gw"]}}`}, nil, nil, "", `next-hops: "gw" is not an address`},
		{"bad mac", map[string]string{AnnotationL3Gateway: `{"default":{"mac-address":"zz"}}`}, nil, nil, "", `mac-address: "zz" is not a MAC`},
		{"bad ifaddr", map[string]string{AnnotationPrimaryIfAddr: `{"ipv4":"10.1.0.5"}`}, nil, nil, "", `annotation k8s.ovn.org/node-primary-ifaddr: malformed annotation: "10.1.0.5"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			nd, err := NodeOf(node(tc.ann))
			if tc.err != "" {
				var ae *AnnotationError
				if err == nil || !strings.Contains(err.Error(), tc.err) || !errors.As(err, &ae) || !errors.Is(err, ErrAnnotation) {
					t.Fatalf("err %v, want an AnnotationError with %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if nd.Name != "n1" || nd.ID != 0 || nd.Chassis != tc.ann[AnnotationChassisID] || !slices.Equal(nd.Addresses, tc.addrs) ||
				!slices.Equal(nd.NextHops, tc.hops) || nd.MAC.String() != tc.mac {
				t.Errorf("got %+v (MAC %s), want addresses %v, next hops %v, MAC %q", nd, nd.MAC, tc.addrs, tc.hops, tc.mac)
			}
		})
	}
}

// load reads a file and loads it.
func load(t *testing.T, objs []Object) (*Set, *Loaded) {
	t.Helper()
	set, errs := Decode(objs)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	if inv := set.Validate(); len(inv) > 0 {
		t.Fatal(inv)
	}
	l, err := Load(set, udnkit.Config{})
	if err != nil {
		t.Fatal(err)
	}
	return set, l
}

func readFixture(t *testing.T, name string) []Object {
	t.Helper()
	objs, err := ReadPaths([]string{fixtures + name}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return objs
}

// plans returns the text of every zone's plan.
func plans(t *testing.T, l *Loaded) string {
	t.Helper()
	zs, err := Zones(l.Cluster)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, z := range zs {
		st, err := l.Cluster.Plan(z)
		if err != nil {
			t.Fatal(err)
		}
		b.WriteString("# " + z + "\n" + st.String())
	}
	return b.String()
}

// dump returns objs annotated (Annotate), through YAML and back as
// kubectl would print it.
func dump(t *testing.T, objs []Object, set *Set, l *Loaded) []Object {
	t.Helper()
	out, err := Annotate(objs, set, l)
	if err != nil {
		t.Fatal(err)
	}
	list, err := List(out)
	if err != nil {
		t.Fatal(err)
	}
	y, err := yaml.JSONToYAML(list)
	if err != nil {
		t.Fatal(err)
	}
	again, err := Read(strings.NewReader(string(y)), "dump")
	if err != nil {
		t.Fatal(err)
	}
	return again
}

// TestRestart plans each fixture, stores what was allocated the way the
// cluster would (the Nodes', NADs' and connects' annotations), and loads
// the dump again: nothing is allocated and every zone plans byte for byte
// the same.
func TestRestart(t *testing.T) {
	for _, name := range []string{"quickstart.yaml", "seed-000.yaml", "seed-001.yaml", "seed-002.yaml", "seed-004.yaml", "egress.yaml"} {
		t.Run(name, func(t *testing.T) {
			objs := readFixture(t, name)
			set, first := load(t, objs)
			before := plans(t, first)
			_, second := load(t, dump(t, objs, set, first))
			if len(second.Allocated) > 0 {
				t.Errorf("restart allocated %q", second.Allocated)
			}
			if after := plans(t, second); after != before {
				t.Errorf("restart planned differently:\n%s\nbefore:\n%s", after, before)
			}
			switch {
			case name == "seed-004.yaml" && len(first.Allocated) > 0:
				t.Errorf("the fixture stores every allocation, yet %q were allocated", first.Allocated)
			case name != "seed-004.yaml" && len(first.Allocated) == 0:
				t.Error("the fixture stores every allocation already: the test proves nothing")
			}
		})
	}
}

// TestRestartAfterDelete restarts from a dump in which the first network
// and the first node are gone (deleted while no controller ran, with their
// pods and Service): the
// others keep the IDs, subnets and keys they had instead of being
// renumbered from the start, and nothing is allocated.
func TestRestartAfterDelete(t *testing.T) {
	objs := readFixture(t, "quickstart.yaml")
	set, first := load(t, objs)
	d := slices.DeleteFunc(dump(t, objs, set, first), func(o Object) bool {
		// blue, its namespace's pods and Service, node-a and its pod
		return o.Namespace == "tenant-a" || o.Key() == "node-a" || o.Key() == "tenant-b/db-1"
	})
	_, second := load(t, d)
	if len(second.Allocated) > 0 {
		t.Errorf("restart allocated %q", second.Allocated)
	}
	red, _ := second.Cluster.Network("tenant-b_red")
	in, err := second.Cluster.Input("tenant-b_red", "node-b")
	if err != nil {
		t.Fatal(err)
	}
	if red.ID != 2 || !slices.Equal(in.TunnelKeys, []int{16711685, 16715779}) {
		t.Errorf("red has ID %d, keys %v: want the stored 2, [16711685 16715779]", red.ID, in.TunnelKeys)
	}
	for _, nd := range second.Cluster.Nodes() {
		if want := map[string]int{"node-b": 3, "node-c": 4}[nd.Name]; nd.ID != want {
			t.Errorf("node %s has ID %d, want the stored %d", nd.Name, nd.ID, want)
		}
	}
}

// TestRestartConflict refuses a dump whose stored network IDs collide,
// naming both objects.
func TestRestartConflict(t *testing.T) {
	objs := readFixture(t, "seed-001.yaml")
	set, l := load(t, objs)
	d := dump(t, objs, set, l)
	for i, o := range d {
		if o.Kind == KindNAD && o.Key() == "green/green-network" {
			d[i].JSON = []byte(strings.Replace(string(o.JSON), `"k8s.ovn.org/network-id":"2"`, `"k8s.ovn.org/network-id":"1"`, 1))
		}
	}
	set2, errs := Decode(d)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	_, err := Load(set2, udnkit.Config{})
	if err == nil || !strings.Contains(err.Error(), "blue/blue-network") || !strings.Contains(err.Error(), "green/green-network") {
		t.Fatalf("err %v: want a conflict naming both NADs", err)
	}
}

func TestLoadNotes(t *testing.T) {
	objs, err := Read(strings.NewReader(`
kind: Node
metadata: {name: joining, annotations: {k8s.ovn.org/node-chassis-id: c9}}
---
kind: Node
metadata:
  name: ready
  annotations:
    k8s.ovn.org/node-chassis-id: c1
    k8s.ovn.org/l3-gateway-config: '{"default":{"ip-addresses":["172.18.0.2/16"],"next-hops":["172.18.0.1"]}}'
---
apiVersion: k8s.cni.cncf.io/v1
kind: NetworkAttachmentDefinition
metadata: {name: macvlan, namespace: a}
spec: {config: '{"cniVersion":"1.0.0","name":"m","type":"macvlan"}'}
---
apiVersion: k8s.cni.cncf.io/v1
kind: NetworkAttachmentDefinition
metadata: {name: sec, namespace: a}
spec: {config: '{"cniVersion":"1.0.0","name":"a_sec","type":"ovn-k8s-cni-overlay","topology":"layer2","role":"secondary","subnets":"10.9.0.0/24","netAttachDefName":"a/sec"}'}
`), "s")
	if err != nil {
		t.Fatal(err)
	}
	_, l := load(t, objs)
	want := []string{
		"NetworkAttachmentDefinition a/macvlan: not an OVN-Kubernetes user-defined network: skipped",
		"Node joining: not ready, planned nowhere: no address on its external interface",
	}
	if !slices.Equal(l.Notes, want) {
		t.Errorf("notes %q, want %q", l.Notes, want)
	}
	if !slices.Contains(l.Allocated, "NetworkAttachmentDefinition a/sec: k8s.ovn.org/network-id=1") {
		t.Errorf("allocated %q: want the NAD's network ID", l.Allocated)
	}
	if zs, err := Zones(l.Cluster); err != nil || !slices.Equal(zs, []string{"ready"}) {
		t.Errorf("zones %v, %v", zs, err)
	}
}

// FuzzRead reads any stream without panicking; what it reads has a kind
// and a name, and its JSON reads back as the same object.
func FuzzRead(f *testing.F) {
	// Small kubectl-shaped seeds: whole fixture files stall the fuzzer here.
	f.Add([]byte(`apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata:
    name: n1
    annotations:
      k8s.ovn.org/node-id: "2"
      k8s.ovn.org/l3-gateway-config: '{"default":{"mode":"shared","ip-addresses":["172.18.0.2/16"],"next-hops":["172.18.0.1"]}}'
- apiVersion: k8s.ovn.org/v1
  kind: UserDefinedNetwork
  metadata: {name: blue, namespace: a}
  spec: {topology: Layer3, role: Primary, subnets: ["10.128.0.0/16/24"]}
- apiVersion: k8s.cni.cncf.io/v1
  kind: NetworkAttachmentDefinition
  metadata: {name: sec, namespace: a}
  spec: {config: '{"cniVersion":"1.0.0","name":"a_sec","type":"ovn-k8s-cni-overlay","topology":"layer2","role":"secondary","subnets":"10.9.0.0/24","netAttachDefName":"a/sec"}'}
`))
	f.Add([]byte("kind: List\nitems: [{kind: Node, metadata: {name: a}}, {kind: List, items: []}]\n---\n{\"kind\":\"Node\",\"metadata\":{\"name\":\"b\"}}"))
	f.Add([]byte("---\n---\n"))
	f.Add([]byte(`kind: List
items:
- apiVersion: k8s.ovn.org/v1
  kind: EgressIP
  metadata: {name: e, annotations: {k8s.ovn.org/egressip-mark: "50001"}}
  spec: {egressIPs: ["172.18.0.100"], namespaceSelector: {matchLabels: {a: b}}}
  status: {items: [{node: n1, egressIP: 172.18.0.100}]}
- apiVersion: k8s.ovn.org/v1
  kind: EgressQoS
  metadata: {name: default, namespace: a}
  spec: {egress: [{dscp: 46, dstCIDR: 1.2.3.0/24}]}
`))
	f.Fuzz(func(t *testing.T, data []byte) {
		objs, err := Read(strings.NewReader(string(data)), "fuzz")
		if err != nil {
			if !errors.Is(err, ErrRead) {
				t.Fatalf("error %v does not wrap ErrRead", err)
			}
			return
		}
		for _, o := range objs {
			if o.Kind == "" || o.Name == "" {
				t.Fatalf("%s: object without kind or name", o.Source)
			}
			var h header
			if err := json.Unmarshal(o.JSON, &h); err != nil || h.Kind != o.Kind || h.Metadata.Name != o.Name {
				t.Fatalf("%s: JSON %q does not read back", o.Source, o.JSON)
			}
		}
		set, _ := Decode(objs)
		set.Validate()
	})
}

// FuzzNodeOf reads any pair of gateway and interface-address annotations
// without panicking: a node it returns has at most one address and one
// next hop per family; an error is an AnnotationError naming the node and
// one of the two annotations.
func FuzzNodeOf(f *testing.F) {
	f.Add(`{"default":{"mode":"shared","mac-address":"02:42:ac:12:00:03","ip-addresses":["172.18.0.3/16","fc00::3/64"],"next-hops":["172.18.0.1","fc00::1"]}}`, `{"ipv4":"172.18.0.3/16"}`)
	f.Add(`{"default":{"mode":"local","ip-address":"10.0.0.5/24","next-hop":"10.0.0.1"}}`, ``)
	f.Add(`{"default":{"mode":"disabled"}}`, `{"ipv6":"fd00::5/64"}`)
	f.Fuzz(func(t *testing.T, gw, ifaddr string) {
		ann := map[string]string{AnnotationChassisID: "c"}
		if gw != "" {
			ann[AnnotationL3Gateway] = gw
		}
		if ifaddr != "" {
			ann[AnnotationPrimaryIfAddr] = ifaddr
		}
		nd, err := NodeOf(node(ann))
		if err != nil {
			var ae *AnnotationError
			if !errors.As(err, &ae) || ae.Node != "n1" || (ae.Annotation != AnnotationL3Gateway && ae.Annotation != AnnotationPrimaryIfAddr) {
				t.Fatalf("error %v is not an AnnotationError of n1", err)
			}
			return
		}
		for _, fam := range []bool{true, false} {
			a := 0
			for _, p := range nd.Addresses {
				if p.Addr().Is4() == fam {
					a++
				}
			}
			h := 0
			for _, x := range nd.NextHops {
				if x.Is4() == fam {
					h++
				}
			}
			if a > 1 || h > 1 {
				t.Fatalf("node %+v: more than one address or next hop of a family", nd)
			}
		}
	})
}

// BenchmarkLoad reads, decodes, validates and loads seed 001's cluster
// (four networks, a connect, three nodes) and plans one zone: what `udnkit
// plan` does before printing.
func BenchmarkLoad(b *testing.B) {
	data, err := os.ReadFile(fixtures + "seed-001.yaml")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		objs, err := Read(strings.NewReader(string(data)), "seed-001.yaml")
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

// TestValidate validates the invalid fixture: one StatusError per invalid
// object, in the stream's order, each naming the kind, the object and the
// field as the API server would; the valid UDN and the macvlan NAD pass.
func TestValidate(t *testing.T) {
	set, errs := Decode(readFixture(t, "invalid.yaml"))
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	want := []struct{ group, kind, name, field string }{
		{"", "Node", "bad-node", "metadata.annotations[k8s.ovn.org/l3-gateway-config]"},
		{"k8s.ovn.org", "UserDefinedNetwork", "join-overlap", "spec.subnets[0]"},
		{"k8s.ovn.org", "UserDefinedNetwork", "no-subnets", "spec.subnets"},
		{"k8s.ovn.org", "ClusterUserDefinedNetwork", "tiny-mtu", "spec.template.spec.mtu"},
		{"k8s.ovn.org", "ClusterNetworkConnect", "bad-prefix", "spec.connectSubnets[0]"},
		{"k8s.cni.cncf.io", "NetworkAttachmentDefinition", "bad-config", "spec.config"},
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
		w := want[i]
		if d.Group != w.group || d.Kind != w.kind || d.Name != w.name || len(d.Causes) != 1 || d.Causes[0].Field != w.field {
			t.Errorf("#%d: %s %s.%s %q causes %v, want %s.%s %q at %s", i, inv.Source, d.Kind, d.Group, d.Name, d.Causes, w.kind, w.group, w.name, w.field)
		}
		if !strings.HasPrefix(inv.Source, fixtures+"invalid.yaml: document 1, items[") {
			t.Errorf("#%d: source %q", i, inv.Source)
		}
	}
}
