package udnkit_test

import (
	"context"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"io/fs"
	"maps"
	"net/netip"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/udnkit/udnkit"
	"github.com/udnkit/udnkit/backend/kernel"
	"github.com/udnkit/udnkit/backend/nbctl"
	"github.com/udnkit/udnkit/backend/ovnnb"
	"github.com/udnkit/udnkit/backend/ovs"
	"github.com/udnkit/udnkit/connect"
	"github.com/udnkit/udnkit/flows"
	"github.com/udnkit/udnkit/internal/kubetest"
	"github.com/udnkit/udnkit/internal/manifest"
	"github.com/udnkit/udnkit/internal/nbrow"
	"github.com/udnkit/udnkit/internal/ovntest"
	"github.com/udnkit/udnkit/ipam"
	"github.com/udnkit/udnkit/netconf"
	"github.com/udnkit/udnkit/netconf/podnetwork"
	"github.com/udnkit/udnkit/topology"
	"github.com/udnkit/udnkit/topology/egressip"
	"github.com/udnkit/udnkit/topology/egressqos"
	"github.com/udnkit/udnkit/topology/pods"
	podkube "github.com/udnkit/udnkit/topology/pods/kube"
	"github.com/udnkit/udnkit/topology/policy"
	policykube "github.com/udnkit/udnkit/topology/policy/kube"
	"github.com/udnkit/udnkit/topology/services"
	"github.com/udnkit/udnkit/topology/services/kube"
	"github.com/udnkit/udnkit/vrf"
)

// classes in the order udnkit.ErrorClass prefers them.
var classes = []struct {
	name string
	err  error
}{
	{"outcome unknown", udnkit.ErrOutcomeUnknown}, {"unavailable", udnkit.ErrUnavailable}, {"refused", udnkit.ErrRefused},
	{"conflict", udnkit.ErrConflict}, {"exhausted", udnkit.ErrExhausted}, {"not found", udnkit.ErrNotFound},
	{"not supported", udnkit.ErrNotSupported}, {"invalid", udnkit.ErrInvalid},
}

// classesOf names the classes err belongs to, in the order of classes.
func classesOf(err error) []string {
	var out []string
	for _, c := range classes {
		if errors.Is(err, c.err) {
			out = append(out, c.name)
		}
	}
	return out
}

// TestSentinelClasses holds every exported sentinel of every package of
// the module (an exported package-level variable named Err*, found in the
// source, so that a new one fails here until it is listed) to exactly one
// class, and its message to what it was.
func TestSentinelClasses(t *testing.T) {
	type sentinel struct {
		err   error
		class string
		msg   string
	}
	want := map[string]sentinel{
		"udnkit.ErrInvalid":        {udnkit.ErrInvalid, "invalid", "invalid"},
		"udnkit.ErrConflict":       {udnkit.ErrConflict, "conflict", "conflict"},
		"udnkit.ErrExhausted":      {udnkit.ErrExhausted, "exhausted", "exhausted"},
		"udnkit.ErrNotFound":       {udnkit.ErrNotFound, "not found", "not found"},
		"udnkit.ErrNotSupported":   {udnkit.ErrNotSupported, "not supported", "not supported"},
		"udnkit.ErrUnavailable":    {udnkit.ErrUnavailable, "unavailable", "unavailable"},
		"udnkit.ErrRefused":        {udnkit.ErrRefused, "refused", "refused"},
		"udnkit.ErrOutcomeUnknown": {udnkit.ErrOutcomeUnknown, "outcome unknown", "outcome unknown"},

		"backend/kernel.ErrNotSupported":    {kernel.ErrNotSupported, "not supported", "not supported by this kernel"},
		"backend/kernel.ErrMissingLink":     {kernel.ErrMissingLink, "not found", "link does not exist"},
		"backend/nbctl.ErrUnsupported":      {nbctl.ErrUnsupported, "not supported", "nbctl: unsupported change"},
		"backend/nbctl.ErrInvalidChange":    {nbctl.ErrInvalidChange, "invalid", "invalid change"},
		"backend/ovnnb.ErrConnect":          {ovnnb.ErrConnect, "unavailable", "ovnnb: cannot connect to the Northbound database"},
		"backend/ovnnb.ErrSchema":           {ovnnb.ErrSchema, "not supported", "ovnnb: unsupported Northbound schema"},
		"backend/ovnnb.ErrInvalidChange":    {ovnnb.ErrInvalidChange, "invalid", "invalid change"},
		"backend/ovnnb.ErrTransaction":      {ovnnb.ErrTransaction, "refused", "ovnnb: transaction failed"},
		"backend/ovnnb.ErrOutcomeUnknown":   {ovnnb.ErrOutcomeUnknown, "outcome unknown", "ovnnb: transaction outcome unknown"},
		"backend/ovs.ErrOfctl":              {ovs.ErrOfctl, "refused", "ovs-ofctl failed"},
		"connect.ErrAnnotation":             {connect.ErrAnnotation, "invalid", "invalid annotation"},
		"connect.ErrInvalid":                {connect.ErrInvalid, "invalid", "invalid connect input"},
		"connect.ErrTunnelKeyLimit":         {connect.ErrTunnelKeyLimit, "exhausted", "connect port tunnel key over OVN's limit"},
		"flows.ErrInvalid":                  {flows.ErrInvalid, "invalid", "invalid flows input"},
		"internal/nbrow.ErrInvalid":         {nbrow.ErrInvalid, "invalid", "invalid change"},
		"internal/ovntest.ErrUnavailable":   {ovntest.ErrUnavailable, "unavailable", "real OVN unavailable"},
		"ipam.ErrExhausted":                 {ipam.ErrExhausted, "exhausted", "exhausted"},
		"ipam.ErrConflict":                  {ipam.ErrConflict, "conflict", "conflict"},
		"ipam.ErrOutOfRange":                {ipam.ErrOutOfRange, "invalid", "out of range"},
		"ipam.ErrInvalid":                   {ipam.ErrInvalid, "invalid", "invalid"},
		"netconf.ErrInvalidSpec":            {netconf.ErrInvalidSpec, "invalid", "netconf: invalid network spec"},
		"netconf.ErrInvalidSubnet":          {netconf.ErrInvalidSubnet, "invalid", "netconf: invalid subnet"},
		"netconf.ErrInvalidNetConf":         {netconf.ErrInvalidNetConf, "invalid", "netconf: invalid NetConf"},
		"netconf.ErrNetworkIDRequired":      {netconf.ErrNetworkIDRequired, "invalid", "netconf: network ID required"},
		"netconf.ErrNADBinding":             {netconf.ErrNADBinding, "invalid", "netconf: NAD not allowed to carry this network"},
		"netconf.ErrNotOVNManaged":          {netconf.ErrNotOVNManaged, "invalid", "netconf: net-attach-def not managed by OVN"},
		"netconf.ErrDefaultNetworkNAD":      {netconf.ErrDefaultNetworkNAD, "invalid", "netconf: NetConf of the default network"},
		"netconf.ErrChainingNotSupported":   {netconf.ErrChainingNotSupported, "not supported", "netconf: CNI plugin chaining is not supported"},
		"netconf.ErrBadInput":               {netconf.ErrBadInput, "invalid", "netconf: bad reconcile input"},
		"netconf.ErrPodNetworks":            {netconf.ErrPodNetworks, "invalid", "invalid pod-networks annotation"},
		"netconf/podnetwork.ErrDecode":      {podnetwork.ErrDecode, "invalid", "podnetwork: decode"},
		"topology.ErrInvalid":               {topology.ErrInvalid, "invalid", "invalid"},
		"topology.ErrConflict":              {topology.ErrConflict, "conflict", "conflict"},
		"topology.ErrNotFound":              {topology.ErrNotFound, "not found", "not found"},
		"topology.ErrUnsupported":           {topology.ErrUnsupported, "not supported", "unsupported"},
		"topology/pods.ErrInvalid":          {pods.ErrInvalid, "invalid", "invalid pod input"},
		"topology/pods.ErrOverlap":          {pods.ErrOverlap, "conflict", "the pod's networks overlap"},
		"topology/pods.ErrNoPrimary":        {pods.ErrNoPrimary, "not found", "no primary network for the pod"},
		"topology/services.ErrInvalid":      {services.ErrInvalid, "invalid", "invalid services input"},
		"topology/services/kube.ErrService": {kube.ErrService, "invalid", "invalid service"},
		"vrf.ErrInvalid":                    {vrf.ErrInvalid, "invalid", "invalid node plan input"},

		"udnkit.ErrUnknownNetwork":          {udnkit.ErrUnknownNetwork, "not found", "unknown network"},
		"udnkit.ErrZoneNotReady":            {udnkit.ErrZoneNotReady, "unavailable", "zone has no ready node"},
		"udnkit.ErrNotPlanned":              {udnkit.ErrNotPlanned, "not found", "zone not planned yet"},
		"udnkit.ErrUnknownNode":             {udnkit.ErrUnknownNode, "not found", "unknown node"},
		"udnkit.ErrUnknownPod":              {udnkit.ErrUnknownPod, "not found", "unknown pod"},
		"topology/pods/kube.ErrNotAttached": {podkube.ErrNotAttached, "not found", "pod is not attached to networks"},
		"topology/policy.ErrInvalid":        {policy.ErrInvalid, "invalid", "invalid network policy input"},
		"internal/kubetest.ErrUnavailable":  {kubetest.ErrUnavailable, "unavailable", "kube-apiserver unavailable"},
		"topology/egressip.ErrInvalid":      {egressip.ErrInvalid, "invalid", "invalid egress IP input"},
		"topology/egressip.ErrExhausted":    {egressip.ErrExhausted, "exhausted", "egress IP marks exhausted"},
		"topology/egressip.ErrConflict":     {egressip.ErrConflict, "conflict", "egress IP conflict"},
		"topology/egressip.ErrUnsupported":  {egressip.ErrUnsupported, "not supported", "not supported"},
		"topology/egressqos.ErrInvalid":     {egressqos.ErrInvalid, "invalid", "invalid egress QoS input"},
		"topology/egressqos.ErrUnsupported": {egressqos.ErrUnsupported, "not supported", "not supported"},
		"topology/policy/kube.ErrPolicy":    {policykube.ErrPolicy, "invalid", "invalid network policy object"},
		"internal/manifest.ErrNoZone":       {manifest.ErrNoZone, "unavailable", "no ready node: nothing to plan"},
		"internal/manifest.ErrAnnotation":   {manifest.ErrAnnotation, "invalid", "malformed annotation"},
		"internal/manifest.ErrRead":         {manifest.ErrRead, "invalid", "manifest: read"},
	}
	// The sentinels of main packages, which no test imports: held, in their
	// source, to a declaration sdkerr.New(sdkerr.<class>, "<message>").
	mainWant := map[string]struct{ class, msg string }{
		"cmd/udnkit.ErrNoGraphviz": {"unavailable", "Graphviz's dot is not on PATH (Debian: apt-get install graphviz)"},
		"cmd/udnkit.ErrNoOVNTrace": {"unavailable", "ovn-trace is not on PATH (Debian: apt-get install ovn-common)"},
	}
	// Sentinels whose class is about to change, with the class they are to
	// have: the test fails once they have it, until the entry moves to want.
	pending := map[string]sentinel{}

	// Sentinels other branches are adding, with their classes: ignored while
	// absent, held to their class once declared (with sdkerr.New).
	upcoming := map[string]string{}

	found := moduleSentinels(t)
	if len(found) < len(want) {
		t.Fatalf("found %d sentinels in the module's source, fewer than the %d listed: %v", len(found), len(want), found)
	}
	for _, name := range found {
		if w, isMain := mainWant[name]; isMain {
			class, msg := declaredSentinel(t, name)
			if class != w.class || msg != w.msg {
				t.Errorf("%s: declared with class %q and message %q, want sdkerr.New of class %q and message %q", name, class, msg, w.class, w.msg)
			}
			continue
		}
		s, ok := want[name]
		if p, isPending := pending[name]; isPending {
			if got := classesOf(p.err); slices.Equal(got, []string{p.class}) {
				t.Errorf("%s is now of class %s: move it from pending to want", name, p.class)
			} else {
				t.Logf("%s: classes %v, pending %s", name, got, p.class)
			}
			continue
		}
		if class, isUpcoming := upcoming[name]; isUpcoming && !ok {
			t.Errorf("%s: now declared: its class is %s (declare it with sdkerr.New if it is not) and it moves to want", name, class)
			continue
		}
		if !ok {
			t.Errorf("%s: an exported sentinel without a class: list it here and declare it with sdkerr.New", name)
			continue
		}
		if got := classesOf(s.err); !slices.Equal(got, []string{s.class}) {
			t.Errorf("%s: classes %v, want exactly [%s]", name, got, s.class)
		}
		if got := s.err.Error(); got != s.msg {
			t.Errorf("%s: message %q, want %q", name, got, s.msg)
		}
	}
	for _, name := range slices.Concat(slices.Collect(maps.Keys(want)), slices.Collect(maps.Keys(mainWant))) {
		if !slices.Contains(found, name) {
			t.Errorf("%s is listed but not declared in the source", name)
		}
	}
}

// declaredSentinel reads the declaration of the sentinel name
// ("<package dir>.<Name>") in its package's source: the class and message
// of a value sdkerr.New(sdkerr.<Class>, "<message>"), or empty strings for
// any other value.
func declaredSentinel(t *testing.T, name string) (class, msg string) {
	t.Helper()
	dir, id, _ := strings.Cut(name, ".")
	classNames := map[string]string{
		"Invalid": "invalid", "Conflict": "conflict", "Exhausted": "exhausted", "NotFound": "not found",
		"NotSupported": "not supported", "Unavailable": "unavailable", "Refused": "refused", "OutcomeUnknown": "outcome unknown",
	}
	files, err := filepath.Glob(filepath.Join(filepath.FromSlash(dir), "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, p := range files {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range f.Decls {
			g, ok := decl.(*ast.GenDecl)
			if !ok || g.Tok != token.VAR {
				continue
			}
			for _, spec := range g.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, n := range vs.Names {
					if n.Name != id || i >= len(vs.Values) {
						continue
					}
					call, ok := vs.Values[i].(*ast.CallExpr)
					if !ok || len(call.Args) != 2 || types.ExprString(call.Fun) != "sdkerr.New" {
						return "", ""
					}
					c, ok := call.Args[0].(*ast.SelectorExpr)
					lit, ok2 := call.Args[1].(*ast.BasicLit)
					if !ok || !ok2 || types.ExprString(c.X) != "sdkerr" || lit.Kind != token.STRING {
						return "", ""
					}
					m, err := strconv.Unquote(lit.Value)
					if err != nil {
						t.Fatal(err)
					}
					return classNames[c.Sel.Name], m
				}
			}
		}
	}
	t.Fatalf("%s: no declaration in %s", name, dir)
	return "", ""
}

// moduleSentinels lists the exported package-level variables named Err*
// declared in the module's non-test Go files (not in testdata or nested
// modules), as "<package dir>.<name>" ("udnkit.<name>" for the root package).
func moduleSentinels(t *testing.T) []string {
	t.Helper()
	var out []string
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != "." && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") || strings.HasPrefix(d.Name(), "_")) {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(p, "go.mod")); p != "." && err == nil {
				return filepath.SkipDir // another module
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		pkg := filepath.ToSlash(filepath.Dir(p))
		if pkg == "." {
			pkg = "udnkit"
		}
		for _, decl := range f.Decls {
			g, ok := decl.(*ast.GenDecl)
			if !ok || g.Tok != token.VAR {
				continue
			}
			for _, spec := range g.Specs {
				for _, id := range spec.(*ast.ValueSpec).Names {
					if id.IsExported() && strings.HasPrefix(id.Name, "Err") {
						out = append(out, path.Join(pkg)+"."+id.Name)
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

// TestErrorClasses feeds bad input to the public entry points of each
// package and classifies what they return with the root classes only.
func TestErrorClasses(t *testing.T) {
	ctx := context.Background()
	pfx := netip.MustParsePrefix
	own := topology.Owner{Network: "blue", Topology: netconf.TopologyLayer3, Role: netconf.RolePrimary}
	sw := topology.Switch{Owner: own, Name: "blue_node1"}
	create := topology.Change{Op: topology.OpCreate, Kind: sw.Kind(), Key: sw.Key(), Object: sw}
	del := topology.Change{Op: topology.OpDelete, Kind: sw.Kind(), Key: sw.Key(), Object: sw, Old: sw}

	cases := []struct {
		name string
		run  func() error
		want []string // the classes, in the order of classes (ErrorClass gives the first)
	}{
		// udnkit
		{"udnkit.New: a node listed twice", func() error {
			_, err := udnkit.New(udnkit.Config{Nodes: []topology.Node{{Name: "a", ID: 2}, {Name: "a", ID: 3}}})
			return err
		}, []string{"invalid"}},
		// ipam
		{"ipam.NewIPPool: no subnet", func() error { _, err := ipam.NewIPPool(netip.Prefix{}); return err }, []string{"invalid"}},
		{"ipam.IPPool.Allocate: a /30 runs out", func() error {
			p, err := ipam.NewIPPool(pfx("10.0.0.0/30"))
			if err != nil {
				return nil
			}
			for range 4 {
				if _, err = p.Allocate(); err != nil {
					break
				}
			}
			return err
		}, []string{"exhausted"}},
		{"ipam.IPPool.AllocateIP: twice", func() error {
			p, _ := ipam.NewIPPool(pfx("10.0.0.0/24"))
			_ = p.AllocateIP(netip.MustParseAddr("10.0.0.9"))
			return p.AllocateIP(netip.MustParseAddr("10.0.0.9"))
		}, []string{"conflict"}},
		{"ipam.IPPool.AllocateIP: outside the subnet", func() error {
			p, _ := ipam.NewIPPool(pfx("10.0.0.0/24"))
			return p.AllocateIP(netip.MustParseAddr("10.0.1.9"))
		}, []string{"invalid"}},
		{"ipam.NewIDAllocator: empty range", func() error { _, err := ipam.NewIDAllocator("x", 5, 1); return err }, []string{"invalid"}},
		// netconf
		{"netconf.DecodeUDN: another kind", func() error { _, err := netconf.DecodeUDN([]byte("kind: Pod\n")); return err }, []string{"invalid"}},
		{"netconf.DecodeCUDN: an inline spec beside template.spec", func() error {
			_, err := netconf.DecodeCUDN([]byte(`{"kind":"ClusterUserDefinedNetwork","spec":{"template":{"spec":{},"topology":"Layer2"}}}`))
			return err
		}, []string{"invalid"}},
		{"netconf.ParseSubnet: not a CIDR", func() error { _, err := netconf.ParseSubnet("10.0.0.0", netconf.TopologyLayer3); return err }, []string{"invalid"}},
		{"netconf.ParseNetConf: another plugin's", func() error {
			_, err := netconf.ParseNetConf([]byte(`{"cniVersion":"1.1.0","name":"x","type":"bridge"}`))
			return err
		}, []string{"invalid"}},
		{"netconf.ParseNetConf: a chained list", func() error {
			_, err := netconf.ParseNetConf([]byte(`{"cniVersion":"1.1.0","name":"x","plugins":[` +
				`{"type":"ovn-k8s-cni-overlay","topology":"layer2","name":"x","netAttachDefName":"a/b"},{"type":"tuning"}]}`))
			return err
		}, []string{"not supported", "invalid"}}, // ErrorClass: not supported
		{"netconf.ParsePodNetworks: not JSON", func() error { _, err := netconf.ParsePodNetworks("{"); return err }, []string{"invalid"}},
		{"netconf.ReconcileUDN: no UDN", func() error { _, err := netconf.ReconcileUDN(netconf.UDNInput{}); return err }, []string{"invalid"}},
		{"netconf.ForeignNADError", func() error { return netconf.ForeignNADError("a/b") }, []string{"conflict"}},
		{"netconf.PrimaryNetworkExistsError", func() error { return netconf.PrimaryNetworkExistsError("a", "b") }, []string{"conflict"}},
		{"netconf.MissingPrimaryLabelError", func() error { return netconf.MissingPrimaryLabelError("a") }, []string{"invalid"}},
		// netconf/podnetwork
		{"podnetwork.Decode: another kind", func() error { _, err := podnetwork.Decode([]byte("kind: Service\n")); return err }, []string{"invalid"}},
		{"podnetwork.DecodePod: a misspelt network field", func() error {
			_, err := podnetwork.DecodePod([]byte(`{"kind":"Pod","spec":{"networks":[{"podNetworkNam":"x"}]}}`))
			return err
		}, []string{"invalid"}},
		// topology
		{"topology.Plan: no network", func() error { _, err := topology.Plan(topology.Input{}); return err }, []string{"invalid"}},
		{"topology.Apply: create twice", func() error {
			s, err := topology.Apply(topology.State{}, topology.Changes{create})
			if err != nil {
				return nil
			}
			_, err = topology.Apply(s, topology.Changes{create})
			return err
		}, []string{"conflict"}},
		{"topology.Apply: delete what is not there", func() error { _, err := topology.Apply(topology.State{}, topology.Changes{del}); return err }, []string{"not found"}},
		// topology/pods
		{"pods.PlanPod: no pod", func() error { _, err := pods.PlanPod(pods.Input{}); return err }, []string{"invalid"}},
		{"pods.ChoosePrimary: the requested network is not the namespace's", func() error {
			pool, err := ipam.NewPodIPAllocator([]netip.Prefix{pfx("10.0.0.0/24")}, nil)
			if err != nil {
				return nil
			}
			_, _, err = pods.ChoosePrimary(pods.Pod{Namespace: "ns", Name: "p"}, map[string]string{pods.AnnotationRequestedPrimaryUDN: "green"},
				[]pods.Primary{{NAD: "ns/blue", Source: pods.Source{Pool: pool}}})
			return err
		}, []string{"not found"}},
		// topology/services and kube
		{"services.Plan: no network", func() error { _, err := services.Plan(services.Input{}); return err }, []string{"invalid"}},
		{"kube.ServiceFrom: a bad cluster IP", func() error {
			_, _, err := kube.ServiceFrom(&corev1.Service{Spec: corev1.ServiceSpec{ClusterIPs: []string{"10.96.0.300"},
				Ports: []corev1.ServicePort{{Port: 80, Protocol: corev1.ProtocolTCP}}}}, nil)
			return err
		}, []string{"invalid"}},
		// connect
		{"connect.Decode: another kind", func() error { _, err := connect.Decode([]byte("kind: Pod\n")); return err }, []string{"invalid"}},
		{"connect.Decode: an unknown field", func() error { _, err := connect.Decode([]byte("spec:\n  bogus: 1\n")); return err }, []string{"invalid"}},
		{"connect.ParseAnnotations: a bad tunnel key", func() error {
			_, err := connect.ParseAnnotations(map[string]string{connect.AnnotationTunnelKey: "x"})
			return err
		}, []string{"invalid"}},
		{"connect.Plan: no connect", func() error { _, err := connect.Plan(connect.Input{}); return err }, []string{"invalid"}},
		// flows, vrf
		{"flows.Plan: no node", func() error { _, err := flows.Plan(flows.Input{}); return err }, []string{"invalid"}},
		{"vrf.Plan: no node", func() error { _, err := vrf.Plan(vrf.Input{}); return err }, []string{"invalid"}},
		// backends
		{"nbrow.RowOf: a switch without a name", func() error { _, err := nbrow.RowOf(topology.Switch{Owner: own}); return err }, []string{"invalid"}},
		{"nbctl.Script: a change without its object", func() error {
			_, err := nbctl.Script(topology.Changes{{Op: topology.OpCreate, Kind: sw.Kind(), Key: sw.Key()}}, nbctl.Config{})
			return err
		}, []string{"invalid"}},
		{"nbctl.Script: an update without columns", func() error {
			_, err := nbctl.Script(topology.Changes{{Op: topology.OpUpdate, Kind: sw.Kind(), Key: sw.Key(), Object: sw, Old: sw}}, nbctl.Config{})
			return err
		}, []string{"not supported"}},
		{"ovnnb.Dial: no endpoint", func() error { _, err := ovnnb.Dial(ctx, ovnnb.Config{}); return err }, []string{"unavailable"}},
		{"ovnnb.Dial: nothing listening", func() error {
			ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
			defer cancel()
			_, err := ovnnb.Dial(ctx, ovnnb.Config{Endpoints: []string{"unix:" + filepath.Join(t.TempDir(), "nb.sock")}})
			return err
		}, []string{"unavailable"}},
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			checkClasses(t, tt.run(), tt.want)
		})
	}
}

// TestErrorClassesBackends classifies the errors of the Northbound adapter
// against an embedded database.
func TestErrorClassesBackends(t *testing.T) {
	ctx := context.Background()
	own := topology.Owner{Network: "blue", Topology: netconf.TopologyLayer3, Role: netconf.RolePrimary}
	sw := topology.Switch{Owner: own, Name: "blue_node1"}
	create := topology.Changes{{Op: topology.OpCreate, Kind: sw.Kind(), Key: sw.Key(), Object: sw}}
	e, err := ovnnb.StartEmbedded()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.Close() })
	nb, err := ovnnb.Dial(ctx, e.Config())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nb.Close)
	cases := []struct {
		name string
		run  func() error
		want []string
	}{
		{"ovnnb.Apply: a change without its object", func() error {
			_, err := nb.Apply(ctx, topology.Changes{{Op: topology.OpCreate, Kind: sw.Kind(), Key: sw.Key()}})
			return err
		}, []string{"invalid"}},
		{"ovnnb.Apply: a row that already exists", func() error {
			if _, err := nb.Apply(ctx, create); err != nil {
				return nil
			}
			_, err := nb.Apply(ctx, create)
			return err
		}, []string{"conflict", "invalid"}},
		{"ovnnb.Apply: delete a row that is not there", func() error {
			gone := topology.Switch{Owner: own, Name: "blue_gone"}
			_, err := nb.Apply(ctx, topology.Changes{{Op: topology.OpDelete, Kind: gone.Kind(), Key: gone.Key(), Object: gone, Old: gone}})
			return err
		}, []string{"not found", "invalid"}},
		{"ovnnb.Apply: a closed client", func() error {
			c, err := ovnnb.Dial(ctx, e.Config())
			if err != nil {
				return nil
			}
			c.Close()
			_, err = c.Apply(ctx, create)
			return err
		}, []string{"unavailable"}},
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			checkClasses(t, tt.run(), tt.want)
		})
	}
}

func checkClasses(t *testing.T, err error, want []string) {
	t.Helper()
	if err == nil {
		t.Fatal("no error")
	}
	t.Log(err)
	if got := classesOf(err); !slices.Equal(got, want) {
		t.Errorf("%v: classes %v, want %v", err, got, want)
	}
	if got, want := udnkit.ErrorClass(err), classOf(want[0]); got != want {
		t.Errorf("ErrorClass(%v) = %v, want %v", err, got, want)
	}
}

func classOf(name string) error {
	for _, c := range classes {
		if c.name == name {
			return c.err
		}
	}
	return nil
}
