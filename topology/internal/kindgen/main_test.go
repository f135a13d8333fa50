package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/udnkit/udnkit/internal/ovntest"
)

// TestGeneratedUpToDate checks that kinds_gen.go and nbrow's rows_gen.go
// are what kindgen makes of the kind types now (run go generate
// ./topology after changing one).
func TestGeneratedUpToDate(t *testing.T) {
	topo, rows, err := generate("../..")
	if err != nil {
		t.Fatal(err)
	}
	for file, got := range map[string][]byte{"../../kinds_gen.go": topo, "../../../internal/nbrow/rows_gen.go": rows} {
		want, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Errorf("%s is stale: run go generate ./topology", file)
		}
	}
}

// TestNewKind adds a kind to package topology as one file
// (testdata/newkind/kind_mirror.go: a root kind with enum string kinds),
// generates, and builds and tests package nbrow with the result through an
// overlay: a new kind takes that file and go generate, nothing else.
func TestNewKind(t *testing.T) {
	if testing.Short() {
		t.Skip("builds packages")
	}
	out := withNewKinds(t, []string{"kind_mirror.go"}, map[string]string{"internal/nbrow/mirror_test.go": "mirror_test.go"},
		"", "./internal/nbrow", "./topology")
	for _, want := range []string{"--- PASS: TestNewKindMirror", "--- PASS: TestDescriptorsMatchSchema/mirror"} {
		if !strings.Contains(out, want) {
			t.Fatalf("go test did not print %q:\n%s", want, out)
		}
	}
}

// TestNewKindMeter adds a Forwarding_Group kind (a plain boolean) from one
// file beside the package's Meter and Meter_Band (Meter ordered before
// every other kind, its bands a member column of minimum 1, an optional
// boolean; they began here as the first kinds added), generates, and
// runs with the result: the row mapping's tests, topology's creation-order
// tests, and TestRealEveryKind of backend/nbctl, which syncs, observes,
// syncs again with no change and removes a row of every kind on a real NB
// through ovnnb, the ovn-nbctl script and ovnnb with its monitor. No
// existing Kind changes its value.
func TestNewKindMeter(t *testing.T) {
	if testing.Short() {
		t.Skip("builds packages and runs OVN")
	}
	base, _, err := generate("../..")
	if err != nil {
		t.Fatal(err)
	}
	files := []string{"kind_fwdgroup.go"} // Meter and Meter_Band are kinds of the package now (kind_meter.go)
	var abs []string
	for _, f := range files {
		a, err := filepath.Abs(filepath.Join("testdata", "newkind", f))
		if err != nil {
			t.Fatal(err)
		}
		abs = append(abs, a)
	}
	topo, _, err := generate("../..", abs...)
	if err != nil {
		t.Fatal(err)
	}
	consts := regexp.MustCompile(`(?m)^\s*(Kind[A-Z]\w*)\s+Kind = (\d+)`)
	after := map[string]string{}
	for _, m := range consts.FindAllStringSubmatch(string(topo), -1) {
		after[m[1]] = m[2]
	}
	before := consts.FindAllStringSubmatch(string(base), -1)
	if len(before) == 0 || len(after) != len(before)+1 {
		t.Fatalf("%d Kind constants before, %d after adding a kind", len(before), len(after))
	}
	for _, m := range before {
		if after[m[1]] != m[2] {
			t.Errorf("%s was %s and is %s with the new kinds", m[1], m[2], after[m[1]])
		}
	}
	out := withNewKinds(t, files, map[string]string{
		"internal/nbrow/meter_test.go": "meter_nbrow_test.go",
		"backend/nbctl/meter_test.go":  "meter_nbctl_test.go",
		"backend/ovnnb/meter_test.go":  "meter_ovnnb_test.go",
	}, "TestNewKindMeter|TestDescriptorsMatchSchema|TestKindsInCreationOrder|TestModelAllKinds|TestRealEveryKind",
		"./internal/nbrow", "./topology", "./backend/nbctl", "./backend/ovnnb")
	want := []string{"--- PASS: TestNewKindMeter ", "--- PASS: TestNewKindMeterScript", "--- PASS: TestNewKindMeterApply",
		"--- PASS: TestDescriptorsMatchSchema/meter_band", "--- PASS: TestKindsInCreationOrder"}
	if _, _, err := ovntest.Available(); err == nil {
		want = append(want, "--- PASS: TestRealEveryKind/ovnnb ", "--- PASS: TestRealEveryKind/nbctl", "--- PASS: TestRealEveryKind/ovnnb-monitor")
	} else {
		t.Logf("TestRealEveryKind skipped: %v", err)
	}
	for _, w := range want {
		if !strings.Contains(out, w) {
			t.Errorf("go test did not print %q", w)
		}
	}
	if t.Failed() {
		t.Logf("go test output:\n%s", out)
		return
	}
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "--- ") {
			t.Log(strings.TrimSpace(l))
		}
	}
}

// withNewKinds generates with the kind files of testdata/newkind added to
// package topology and runs go test on pkgs through an overlay that holds
// the generated files, the kind files and the test files (module path →
// file of testdata/newkind). It returns go test's verbose output.
func withNewKinds(t *testing.T, kindFiles []string, tests map[string]string, run string, pkgs ...string) string {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		goTool = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	root, err := filepath.Abs("../../..")
	if err != nil {
		t.Fatal(err)
	}
	replace := map[string]string{}
	var kinds []string
	for _, f := range kindFiles {
		p, err := filepath.Abs(filepath.Join("testdata", "newkind", f))
		if err != nil {
			t.Fatal(err)
		}
		kinds = append(kinds, p)
		replace[filepath.Join(root, "topology", f)] = p
	}
	topo, rows, err := generate("../..", kinds...)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	replace[filepath.Join(root, "topology", "kinds_gen.go")] = write("kinds_gen.go", topo)
	replace[filepath.Join(root, "internal", "nbrow", "rows_gen.go")] = write("rows_gen.go", rows)
	for dst, src := range tests {
		p, err := filepath.Abs(filepath.Join("testdata", "newkind", src))
		if err != nil {
			t.Fatal(err)
		}
		replace[filepath.Join(root, filepath.FromSlash(dst))] = p
	}
	overlay, err := json.Marshal(map[string]map[string]string{"Replace": replace})
	if err != nil {
		t.Fatal(err)
	}
	args := []string{"test", "-overlay=" + write("overlay.json", overlay), "-count=1", "-v"}
	if run != "" {
		args = append(args, "-run", run)
	}
	cmd := exec.Command(goTool, append(args, pkgs...)...)
	cmd.Dir = root
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go test with the new kinds: %v\n%s", err, out)
	}
	return string(out)
}

// TestRefusals: a kind the generator cannot map is an error naming the
// type and field, never wrong code.
func TestRefusals(t *testing.T) {
	cases := []struct{ name, src, want string }{
		{"unknown table", "//udnkit:kind table=Nope id=200 order=150\ntype X struct {\n\tOwner Owner\n\tName string `nb:\"name,key\"`\n}", `table "Nope" is not in the Northbound schema`},
		{"unknown column", "//udnkit:kind table=Forwarding_Group id=200 order=150\ntype X struct {\n\tOwner Owner\n\tS string `nb:\",parent=Switch.forwarding_groups\"`\n\tP string `nb:\"vipx,key\"`\n}", `X.P: table Forwarding_Group has no column "vipx"`},
		{"unknown flag", "//udnkit:kind table=Forwarding_Group id=200 order=150\ntype X struct {\n\tOwner Owner\n\tP string `nb:\"vip,key,fast\"`\n}", `X.P: unknown flag "fast"`},
		{"no tag", "//udnkit:kind table=Forwarding_Group id=200 order=150\ntype X struct {\n\tOwner Owner\n\tP string\n}", "X.P: no nb tag"},
		{"no owner", "//udnkit:kind table=Forwarding_Group id=200 order=150\ntype X struct {\n\tS string `nb:\",parent=Switch.forwarding_groups\"`\n\tP string `nb:\"vip,key\"`\n}", "no Owner field"},
		{"same order", "//udnkit:kind table=Forwarding_Group id=200 order=120\ntype X struct {\n\tOwner Owner\n\tS string `nb:\",parent=Switch.forwarding_groups\"`\n\tP string `nb:\"vip,key\"`\n}", "same order 120"},
		{"parent not a kind", "//udnkit:kind table=Forwarding_Group id=200 order=150\ntype X struct {\n\tOwner Owner\n\tS string `nb:\",parent=Bridge.qos_rules\"`\n\tP string `nb:\"vip,key\"`\n}", "X.S: Bridge is not a kind"},
		{"parent column", "//udnkit:kind table=Forwarding_Group id=200 order=150\ntype X struct {\n\tOwner Owner\n\tS string `nb:\",parent=Switch.qos\"`\n\tP string `nb:\"vip,key\"`\n}", "X.S: Logical_Switch has no column qos"},
		{"no key", "//udnkit:kind table=Forwarding_Group id=200 order=150\ntype X struct {\n\tOwner Owner\n\tS string `nb:\",parent=Switch.forwarding_groups\"`\n\tP string `nb:\"vip\"`\n}", "no key field"},
		{"unmapped type", "//udnkit:kind table=Forwarding_Group id=200 order=150\ntype X struct {\n\tOwner Owner\n\tS string `nb:\",parent=Switch.forwarding_groups\"`\n\tP string `nb:\"vip,key\"`\n\tM int `nb:\"vmac\"`\n}", "X.M: no mapping of a int field to column vmac"},
		{"wrong reference", "//udnkit:kind table=HA_Chassis_Group id=200 order=150\ntype X struct {\n\tOwner Owner\n\tName string `nb:\"name,key\"`\n\tC []string `nb:\"ha_chassis,ref=Switch\"`\n}", `X.C: column ha_chassis refers to "HA_Chassis", not Logical_Switch`},
		{"created before its parent", "//udnkit:kind table=Forwarding_Group id=200 order=35\ntype X struct {\n\tOwner Owner\n\tS string `nb:\",parent=Switch.forwarding_groups\"`\n\tP string `nb:\"vip,key\"`\n}", "X.S: order 35 is not after its parent Switch's 40"},
		{"holder column of another table", "//udnkit:kind table=Forwarding_Group id=200 order=150\ntype X struct {\n\tOwner Owner\n\tS string `nb:\",parent=Switch.load_balancer\"`\n\tP string `nb:\"vip,key\"`\n}", `X.S: Logical_Switch.load_balancer references "Load_Balancer", not Forwarding_Group`},
		{"reference without ref", "//udnkit:kind table=HA_Chassis_Group id=200 order=150\ntype X struct {\n\tOwner Owner\n\tName string `nb:\"name,key\"`\n\tC []string `nb:\"ha_chassis\"`\n}", "X.C: column ha_chassis references HA_Chassis: say ref=<Type>"},
		{"no external_ids", "//udnkit:kind table=Static_MAC_Binding id=200 order=150\ntype X struct {\n\tOwner Owner\n\tPort string `nb:\"logical_port,key\"`\n}", "table Static_MAC_Binding has no external_ids to own its rows by"},
		{"flag with a value", "//udnkit:kind table=Forwarding_Group id=200 order=150\ntype X struct {\n\tOwner Owner\n\tS string `nb:\",parent=Switch.forwarding_groups\"`\n\tP string `nb:\"vip,key=false\"`\n}", `X.P: flag "key=false" takes no value`},
		{"no id", "//udnkit:kind table=Forwarding_Group order=150\ntype X struct {\n\tOwner Owner\n\tS string `nb:\",parent=Switch.forwarding_groups\"`\n\tP string `nb:\"vip,key\"`\n}", "directive of X: table, id and order are required"},
		{"id zero", "//udnkit:kind table=Forwarding_Group id=0 order=150\ntype X struct {\n\tOwner Owner\n}", `directive of X: id "0" is not a number from 1 to 255`},
		{"id too large", "//udnkit:kind table=Forwarding_Group id=256 order=150\ntype X struct {\n\tOwner Owner\n}", `directive of X: id "256" is not a number from 1 to 255`},
		{"order not a number", "//udnkit:kind table=Forwarding_Group id=200 order=late\ntype X struct {\n\tOwner Owner\n}", `directive of X: order "late" is not a positive number`},
		{"same id", "//udnkit:kind table=Forwarding_Group id=12 order=150\ntype X struct {\n\tOwner Owner\n\tS string `nb:\",parent=Switch.forwarding_groups\"`\n\tP string `nb:\"vip,key\"`\n}", "ACL and X: same id 12"},
		{"member of a root table", "//udnkit:kind table=DNS id=200 order=150\ntype X struct {\n\tOwner Owner\n\tS string `nb:\",parent=Switch.dns_records\"`\n\tR Options `nb:\"records,key\"`\n}", "X.S: DNS is a root table: its rows outlive the Logical_Switch that holds them"},
		{"required bool", "//udnkit:kind table=Forwarding_Group id=200 order=150\ntype X struct {\n\tOwner Owner\n\tName string `nb:\"name,key\"`\n\tFair bool `nb:\"liveness,required\"`\n}", "X.Fair: a bool cannot be required"},
		{"bool to a string column", "//udnkit:kind table=Forwarding_Group id=200 order=150\ntype X struct {\n\tOwner Owner\n\tName string `nb:\"name,key\"`\n\tUnit bool `nb:\"vip\"`\n}", "X.Unit: no mapping of a bool field to column vip"},
		{"id twice", "//udnkit:kind table=Forwarding_Group id=200 id=201 order=150\ntype X struct {\n\tOwner Owner\n}", "directive of X: id given twice"},
		{"two directives", "//udnkit:kind table=Forwarding_Group id=200 order=150\n//udnkit:kind table=Forwarding_Group id=201 order=151\ntype X struct {\n\tOwner Owner\n}", "X: two //udnkit:kind directives"},
		{"unknown directive key", "//udnkit:kind table=Forwarding_Group id=200 rank=130\ntype X struct {\n\tOwner Owner\n}", `directive of X: unknown "rank=130"`},
		{"same table", "//udnkit:kind table=ACL id=200 order=150\ntype X struct {\n\tOwner Owner\n}", "ACL and X: same table ACL"},
		{"integer map to a string map", "//udnkit:kind table=Copp id=200 order=150\ntype X struct {\n\tOwner Owner\n\tName string `nb:\"name,key\"`\n\tM IntOptions `nb:\"meters\"`\n}", "X.M: no mapping of a IntOptions field to column meters"},
		{"string map to an integer map", "//udnkit:kind table=Forwarding_Group id=200 order=150\ntype X struct {\n\tOwner Owner\n\tS string `nb:\",parent=Switch.forwarding_groups\"`\n\tP string `nb:\"vip,key\"`\n\tA Options `nb:\"liveness\"`\n}", "X.A: no mapping of a Options field to column liveness"},
		{"same short name", "//udnkit:kind table=Forwarding_Group id=200 order=150 name=acl\ntype X struct {\n\tOwner Owner\n\tS string `nb:\",parent=Switch.forwarding_groups\"`\n\tP string `nb:\"vip,key\"`\n}", `ACL and X: same name "acl"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "x.go")
			if err := os.WriteFile(file, []byte("package topology\n\n// X is a test kind.\n//\n"+tc.src+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			_, _, err := generate("../..", file)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one holding %q", err, tc.want)
			}
		})
	}
}
