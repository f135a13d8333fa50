package main

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/udnkit/udnkit"
	"github.com/udnkit/udnkit/backend/ovnnb"
	"github.com/udnkit/udnkit/internal/golden"
	"github.com/udnkit/udnkit/internal/manifest"
)

const manifests = "../../examples/manifests/"

// result is one run of the command.
type result struct {
	stdout, stderr string
	code           int
}

// runCmd runs the command line args with stdin.
func runCmd(t *testing.T, stdin string, args ...string) result {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(context.Background(), args, strings.NewReader(stdin), &out, &errOut)
	return result{out.String(), errOut.String(), code}
}

// text renders a run for a golden file: the command line, stdout, stderr
// and the exit code, with the replacements applied (old, new pairs).
func (r result) text(args []string, replace ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "$ udnkit %s\n", strings.Join(args, " "))
	fmt.Fprintf(&b, "--- stdout\n%s", r.stdout)
	fmt.Fprintf(&b, "--- stderr\n%s", r.stderr)
	fmt.Fprintf(&b, "--- exit %d\n", r.code)
	return strings.NewReplacer(replace...).Replace(b.String())
}

// TestGolden runs every command and format on the fixtures and compares
// what it prints, and its exit code, with testdata/<name>.txt.
func TestGolden(t *testing.T) {
	svc := []string{"--service-ip", "10.96.0.1", "--service-ip", "10.96.0.10"}
	for _, tc := range []struct {
		name string
		args []string
		code int
	}{
		{"validate_invalid", []string{"validate", "-f", manifests + "invalid.yaml"}, 1},
		{"validate_seed-000", []string{"validate", "-f", manifests + "seed-000.yaml"}, 0},
		{"validate_unreadable", []string{"validate", "-f", "testdata/unreadable.yaml"}, 1},
		{"validate_invalid_policy", []string{"validate", "-f", "testdata/invalid-policy.yaml"}, 1},
		{"validate_egress", []string{"validate", "-f", manifests + "egress.yaml"}, 0},
		{"validate_invalid_egress", []string{"validate", "-f", "testdata/invalid-egress.yaml"}, 1},
		{"plan_egress", []string{"plan", "-f", manifests + "egress.yaml", "--zone", "ovn-worker"}, 0},
		{"plan_egress_nbctl", []string{"plan", "-f", manifests + "egress.yaml", "--zone", "ovn-control-plane", "-o", "nbctl"}, 0},
		{"plan_egress_ofctl", []string{"plan", "-f", manifests + "egress.yaml", "--zone", "ovn-worker", "-o", "ofctl"}, 0},
		{"plan_egress_stored", []string{"plan", "-f", manifests + "egress.yaml", "-o", "stored"}, 0},
		{"explain_pod_egress", []string{"explain", "pod", "tenant/db-1", "-f", manifests + "egress.yaml"}, 0},
		{"plan_quickstart", []string{"plan", "-f", manifests + "quickstart.yaml"}, 0},
		{"plan_quickstart_all-zones", []string{"plan", "-f", manifests + "quickstart.yaml", "--all-zones"}, 0},
		{"plan_quickstart_nbctl", []string{"plan", "-f", manifests + "quickstart.yaml", "--zone", "node-b", "-o", "nbctl"}, 0},
		{"plan_seed-000", []string{"plan", "-f", manifests + "seed-000.yaml"}, 0},
		{"plan_seed-001", []string{"plan", "-f", manifests + "seed-001.yaml", "--zone", "ovn-worker"}, 0},
		{"plan_seed-004_json", []string{"plan", "-f", manifests + "seed-004.yaml", "-o", "json"}, 0},
		{"plan_seed-002_yaml", []string{"plan", "-f", manifests + "seed-002.yaml", "-o", "yaml"}, 0},
		{"plan_seed-004", append([]string{"plan", "-f", manifests + "seed-004.yaml", "--zone", "ovn-control-plane"}, svc...), 0},
		{"plan_seed-004_reference", append([]string{"plan", "-f", manifests + "seed-004.yaml", "--zone", "ovn-control-plane", "--profile", "reference", "-o", "nbctl"}, svc...), 0},
		{"plan_quickstart_stored", []string{"plan", "-f", manifests + "quickstart.yaml", "-o", "stored"}, 0},
		{"plan_seed-001_ip", []string{"plan", "-f", manifests + "seed-001.yaml", "--zone", "ovn-worker", "-o", "ip", "--kubelet-cgroup", "kubelet.slice/kubelet.service"}, 0},
		{"plan_seed-001_nft", []string{"plan", "-f", manifests + "seed-001.yaml", "--zone", "ovn-worker", "-o", "nft", "--kubelet-cgroup", "kubelet.slice/kubelet.service"}, 0},
		{"plan_seed-001_ofctl", []string{"plan", "-f", manifests + "seed-001.yaml", "--zone", "ovn-worker", "-o", "ofctl", "--uplink", "ens3:1", "--patch-ofport", "green_green-network=9"}, 0},
		{"plan_seed-004_ip", append([]string{"plan", "-f", manifests + "seed-004.yaml", "--zone", "ovn-control-plane", "-o", "ip"}, svc...), 0},
		{"plan_quickstart_nft_all-zones", []string{"plan", "-f", manifests + "quickstart.yaml", "--all-zones", "-o", "nft"}, 0},
		{"plan_bad_patch_ofport", []string{"plan", "-f", manifests + "seed-001.yaml", "-o", "ofctl", "--patch-ofport", "purple=3"}, 1},
		{"plan_invalid", []string{"plan", "-f", manifests + "invalid.yaml"}, 1},
		{"plan_unknown_zone", []string{"plan", "-f", manifests + "quickstart.yaml", "--zone", "node-z"}, 1},
		{"plan_bad_format", []string{"plan", "-f", manifests + "quickstart.yaml", "-o", "xml"}, 1},
		{"explain_network_udn", []string{"explain", "network", "tenant-a/blue", "-f", manifests + "quickstart.yaml"}, 0},
		{"explain_network_cudn", []string{"explain", "network", "db-network", "-f", manifests + "seed-000.yaml"}, 0},
		{"explain_network_layer2", []string{"explain", "network", "test12_namespace-scoped", "-f", manifests + "seed-004.yaml"}, 0},
		{"explain_network_unknown", []string{"explain", "network", "nope", "-f", manifests + "seed-004.yaml"}, 1},
		{"explain_node", []string{"explain", "node", "ovn-worker", "-f", manifests + "seed-001.yaml"}, 0},
		{"explain_pod", []string{"explain", "pod", "tenant-a/web-1", "-f", manifests + "quickstart.yaml"}, 0},
		{"explain_pod_host_network", []string{"explain", "pod", "tenant-b/agent", "-f", manifests + "quickstart.yaml"}, 1},
		{"draw_seed-001_mermaid", []string{"draw", "-f", manifests + "seed-001.yaml", "--zone", "ovn-worker"}, 0},
		{"draw_seed-002_dot", []string{"draw", "-f", manifests + "seed-002.yaml", "-o", "dot"}, 0},
		{"draw_seed-004_dot", []string{"draw", "-f", manifests + "seed-004.yaml", "-o", "dot", "--zone", "ovn-control-plane"}, 0},
		{"draw_seed-004_mermaid", []string{"draw", "-f", manifests + "seed-004.yaml", "--zone", "ovn-control-plane"}, 0},
		{"apply_embedded", []string{"apply", "-f", manifests + "seed-002.yaml"}, 0},
		{"apply_embedded_dry-run", []string{"apply", "-f", manifests + "seed-004.yaml", "--dry-run", "-o", "text"}, 0},
		{"apply_embedded_dry-run_nbctl", []string{"apply", "-f", manifests + "seed-002.yaml", "--dry-run"}, 0},
		{"diff_missing_nb", []string{"diff", "-f", manifests + "seed-004.yaml"}, 2},
		{"diff_unreachable_nb", []string{"diff", "-f", manifests + "seed-004.yaml", "--nb", "unix:/nonexistent/nb.sock"}, 2},
		{"verify_missing_sb", []string{"verify", "-f", manifests + "seed-001.yaml", "--nb", "unix:/nonexistent/nb.sock"}, 2},
		{"verify_no_ovn-trace", []string{"verify", "-f", manifests + "seed-001.yaml", "--nb", "unix:/nonexistent/nb.sock", "--sb", "unix:/nonexistent/sb.sock", "--ovn-trace", "/nonexistent/ovn-trace"}, 2},
		{"verify_bad_port", []string{"verify", "-f", manifests + "seed-001.yaml", "--nb", "unix:/nonexistent/nb.sock", "--sb", "unix:/nonexistent/sb.sock", "--port", "0"}, 2},
		{"verify_bad_format", []string{"verify", "-f", manifests + "seed-001.yaml", "--nb", "unix:/nonexistent/nb.sock", "--sb", "unix:/nonexistent/sb.sock", "-o", "yaml"}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runCmd(t, "", tc.args...)
			if r.code != tc.code {
				t.Errorf("exit %d, want %d; stderr:\n%s", r.code, tc.code, r.stderr)
			}
			golden.Check(t, tc.name+".txt", r.text(tc.args, manifests, "examples/manifests/"))
		})
	}
}

// TestNodeLocal holds the node-local flags' defaults and refusals: the
// networks not given a patch port are numbered after the default patch
// port in network-name order, skipping the numbers taken.
func TestNodeLocal(t *testing.T) {
	r := runCmd(t, "", "plan", "-f", manifests+"seed-001.yaml", "-o", "stored")
	if r.code != 0 {
		t.Fatal(r.stderr)
	}
	_, l := loadText(t, r.stdout)
	for _, tc := range []struct {
		name  string
		flags nodeFlags
		want  map[string]int
		err   string
	}{
		{"defaults", nodeFlags{uplink: defaultUplink, defaultPatch: defaultPatchOFPort},
			map[string]int{"blue_blue-network": 3, "green_green-network": 4, "red_red-network": 5, "yellow_yellow-network": 6}, ""},
		{"given skip taken", nodeFlags{uplink: "eth0:4", defaultPatch: 2, patches: []string{"red_red-network=3"}},
			map[string]int{"blue_blue-network": 5, "green_green-network": 6, "red_red-network": 3, "yellow_yellow-network": 7}, ""},
		{"bad uplink", nodeFlags{uplink: "eth0", defaultPatch: 2}, nil, `--uplink: "eth0" is not NAME:OFPORT`},
		{"uplink is default patch", nodeFlags{uplink: "eth0:2", defaultPatch: 2}, nil, "--default-patch-ofport: OpenFlow port 2 is the uplink's too"},
		{"unknown network", nodeFlags{uplink: "eth0:1", defaultPatch: 2, patches: []string{"nope=3"}}, nil, `--patch-ofport nope: not a primary network`},
		{"bad number", nodeFlags{uplink: "eth0:1", defaultPatch: 2, patches: []string{"red_red-network=x"}}, nil, `--patch-ofport red_red-network: "x" is not a positive`},
		{"twice", nodeFlags{uplink: "eth0:1", defaultPatch: 2, patches: []string{"red_red-network=3", "red_red-network=4"}}, nil, "--patch-ofport red_red-network: given twice"},
		{"clash", nodeFlags{uplink: "eth0:1", defaultPatch: 2, patches: []string{"red_red-network=3", "blue_blue-network=3"}}, nil, "--patch-ofport blue_blue-network: OpenFlow port 3 is --patch-ofport red_red-network's too"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			local, err := tc.flags.local(l.Cluster)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !maps.Equal(local.PatchOFPorts, tc.want) {
				t.Errorf("patch ports %v, want %v", local.PatchOFPorts, tc.want)
			}
		})
	}
}

// TestNodeFormatsSplitScript: -o ip and -o nft together are the kernel
// plan's whole script, nothing lost or repeated.
func TestNodeFormatsSplitScript(t *testing.T) {
	args := []string{"plan", "-f", manifests + "seed-004.yaml", "--zone", "ovn-control-plane"}
	ip := runCmd(t, "", append(args, "-o", "ip")...)
	nft := runCmd(t, "", append(args, "-o", "nft")...)
	if ip.code != 0 || nft.code != 0 {
		t.Fatalf("exit %d, %d\n%s%s", ip.code, nft.code, ip.stderr, nft.stderr)
	}
	if strings.Contains(ip.stdout, "nft") || !strings.HasPrefix(nft.stdout, "table inet ovn-kubernetes {") {
		t.Errorf("-o ip holds nft, or -o nft is not a ruleset:\n%s\n%s", ip.stdout, nft.stdout)
	}
	_, l := loadText(t, mustRead(t, manifests+"seed-004.yaml"))
	local, err := (&nodeFlags{uplink: defaultUplink, defaultPatch: defaultPatchOFPort}).local(l.Cluster)
	if err != nil {
		t.Fatal(err)
	}
	p, err := l.Cluster.PlanNode("ovn-control-plane", local)
	if err != nil {
		t.Fatal(err)
	}
	script := p.Kernel.Script()
	if !strings.Contains(script, "nft -f - <<'EOF'\n"+nft.stdout+"EOF\n") {
		t.Errorf("-o nft is not the script's ruleset")
	}
	if strings.Replace(script, "nft -f - <<'EOF'\n"+nft.stdout+"EOF\n", "", 1) != ip.stdout {
		t.Errorf("-o ip is not the script without its ruleset")
	}
}

// loadText loads manifests from text with the default settings.
func loadText(t *testing.T, text string) (*manifest.Set, *manifest.Loaded) {
	t.Helper()
	objs, err := manifest.Read(strings.NewReader(text), "test")
	if err != nil {
		t.Fatal(err)
	}
	set, errs := manifest.Decode(objs)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	l, err := manifest.Load(set, udnkit.Config{})
	if err != nil {
		t.Fatal(err)
	}
	return set, l
}

func mustRead(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestStdin reads the manifests from stdin, as `kubectl get ... | udnkit
// plan -f -` does, and plans what the file gives.
func TestStdin(t *testing.T) {
	data, err := os.ReadFile(manifests + "seed-004.yaml")
	if err != nil {
		t.Fatal(err)
	}
	fromFile := runCmd(t, "", "plan", "-f", manifests+"seed-004.yaml")
	fromStdin := runCmd(t, string(data), "plan", "-f", "-")
	if fromStdin.code != 0 || fromStdin.stdout != fromFile.stdout || fromStdin.stdout == "" {
		t.Errorf("plan -f - (exit %d) differs from plan -f FILE:\n%s\nstderr:\n%s", fromStdin.code, fromStdin.stdout, fromStdin.stderr)
	}
}

// TestStored plans each fixture's -o stored output again (through stdin):
// nothing is allocated and every zone plans byte for byte the same.
func TestStored(t *testing.T) {
	for _, name := range []string{"quickstart.yaml", "seed-000.yaml", "seed-001.yaml", "seed-002.yaml", "seed-004.yaml", "egress.yaml"} {
		t.Run(name, func(t *testing.T) {
			before := runCmd(t, "", "plan", "-f", manifests+name, "--all-zones")
			stored := runCmd(t, "", "plan", "-f", manifests+name, "-o", "stored")
			if before.code != 0 || stored.code != 0 {
				t.Fatalf("exit %d, %d\n%s%s", before.code, stored.code, before.stderr, stored.stderr)
			}
			after := runCmd(t, stored.stdout, "plan", "-f", "-", "--all-zones")
			if after.code != 0 || strings.Contains(after.stderr, "allocated:") {
				t.Errorf("plan of the stored objects: exit %d, want nothing allocated\n%s", after.code, after.stderr)
			}
			if after.stdout != before.stdout {
				t.Errorf("plan of the stored objects differs:\n%s", after.stdout)
			}
		})
	}
}

// TestHelp holds every command's --help (and the root's) as golden text.
func TestHelp(t *testing.T) {
	for _, cmd := range []string{"", "validate", "plan", "diff", "apply", "explain", "draw", "verify", "completion"} {
		name := cmd
		if name == "" {
			name = "root"
		}
		t.Run(name, func(t *testing.T) {
			args := append(strings.Fields(cmd), "--help")
			r := runCmd(t, "", args...)
			if r.code != 0 || !strings.Contains(r.stdout, "Usage:") {
				t.Fatalf("--help: exit %d\n%s%s", r.code, r.stdout, r.stderr)
			}
			if cmd != "" && cmd != "completion" && !strings.Contains(r.stdout, "Examples:") { // cobra's own
				t.Errorf("%s --help has no example", cmd)
			}
			golden.Check(t, "help_"+name+".txt", r.stdout)
		})
	}
}

// TestCompletion checks that cobra's completion scripts are there.
func TestCompletion(t *testing.T) {
	for _, shell := range []string{"bash", "zsh", "fish"} {
		r := runCmd(t, "", "completion", shell)
		if r.code != 0 || !strings.Contains(r.stdout, "udnkit") || len(r.stdout) < 1000 {
			t.Errorf("completion %s: exit %d, %d bytes", shell, r.code, len(r.stdout))
		}
	}
}

// TestDiffApplyEmbedded runs diff and apply against an embedded NB: diff
// exits 1 and lists the rows before apply, apply writes them, a second
// apply writes nothing, and diff then exits 0.
func TestDiffApplyEmbedded(t *testing.T) {
	nb, err := ovnnb.StartEmbedded()
	if err != nil {
		t.Fatal(err)
	}
	defer nb.Close()
	for _, format := range []string{"text", "nbctl"} {
		args := []string{"diff", "-f", manifests + "seed-004.yaml", "--nb", nb.Endpoint(), "-o", format}
		r := runCmd(t, "", args...)
		if r.code != 1 {
			t.Fatalf("diff -o %s of an empty NB: exit %d, want 1\n%s", format, r.code, r.stderr)
		}
		golden.Check(t, "diff_embedded_"+format+".txt", r.text(args, manifests, "examples/manifests/", nb.Endpoint(), "ENDPOINT"))
	}
	checkDiffApply(t, nb.Endpoint(), nil)
}

// TestPlanAllZonesJSON: --all-zones -o json|yaml is a PlanList with one
// Plan per ready node, each naming its zone.
func TestPlanAllZonesJSON(t *testing.T) {
	for _, format := range []string{"json", "yaml"} {
		r := runCmd(t, "", "plan", "-f", manifests+"seed-002.yaml", "--all-zones", "-o", format)
		if r.code != 0 {
			t.Fatalf("exit %d\n%s", r.code, r.stderr)
		}
		var list planList
		if err := yaml.Unmarshal([]byte(r.stdout), &list); err != nil {
			t.Fatal(err)
		}
		var zones []string
		for _, p := range list.Items {
			zones = append(zones, p.Zone)
			if p.Kind != "Plan" || len(p.Rows) == 0 || strings.Join(p.Networks, ",") != "tenant,tenant_l2-network,tenant_l3-network" { // the link between the primaries is scoped by namespace
				t.Errorf("%s: zone %s: kind %s, %d rows, networks %v", format, p.Zone, p.Kind, len(p.Rows), p.Networks)
			}
		}
		if list.Kind != "PlanList" || strings.Join(zones, ",") != "ovn-control-plane,ovn-worker,ovn-worker2" {
			t.Errorf("%s: %s of zones %v", format, list.Kind, zones)
		}
	}
}

// checkDiffApply is the diff/apply sequence against the NB at endpoint;
// afterDiff (when set) runs between the two final diffs and returns the
// row it damaged, which the last diff must name.
func checkDiffApply(t *testing.T, endpoint string, damage func() string) {
	t.Helper()
	f := manifests + "seed-001.yaml"
	zone := []string{"--zone", "ovn-worker"}
	r := runCmd(t, "", append([]string{"diff", "-f", f, "--nb", endpoint}, zone...)...)
	if r.code != 1 || !strings.Contains(r.stdout, "create router blue.network") && !strings.Contains(r.stdout, "create") {
		t.Fatalf("diff before apply: exit %d, want 1\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = runCmd(t, "", append([]string{"apply", "-f", f, "--nb", endpoint}, zone...)...)
	if r.code != 0 || !strings.Contains(r.stdout, "applied") {
		t.Fatalf("apply: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = runCmd(t, "", append([]string{"apply", "-f", f, "--nb", endpoint}, zone...)...)
	if r.code != 0 || r.stdout != "zone ovn-worker: nothing to change\n" {
		t.Fatalf("second apply: exit %d, want nothing to change\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = runCmd(t, "", append([]string{"diff", "-f", f, "--nb", endpoint}, zone...)...)
	if r.code != 0 || r.stdout != "" {
		t.Fatalf("diff after apply: exit %d, want 0\n%s%s", r.code, r.stdout, r.stderr)
	}
	if damage == nil {
		return
	}
	name := damage()
	r = runCmd(t, "", append([]string{"diff", "-f", f, "--nb", endpoint, "-o", "nbctl"}, zone...)...)
	if r.code != 1 || !strings.Contains(r.stdout, name) {
		t.Fatalf("diff after deleting %s by hand: exit %d, want 1 and the router named\n%s%s", name, r.code, r.stdout, r.stderr)
	}
}

// TestDrawImages renders the DOT of seed 004 with Graphviz: the SVG and
// PNG exist and are images of some size (the DOT itself is golden in
// TestGolden).
func TestDrawImages(t *testing.T) {
	if _, err := exec.LookPath("dot"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("Graphviz's dot is not on PATH: install graphviz (scripts/test does)")
		}
		t.Skip("Graphviz's dot is not on PATH: install graphviz (apt-get install graphviz)")
	}
	dir := t.TempDir()
	for _, tc := range []struct {
		format string
		magic  []byte
	}{{"png", []byte("\x89PNG\r\n\x1a\n")}, {"svg", []byte("<svg")}} {
		r := runCmd(t, "", "draw", "-f", manifests+"seed-004.yaml", "--zone", "ovn-control-plane", "-o", tc.format)
		if r.code != 0 {
			t.Fatalf("draw -o %s: exit %d\n%s", tc.format, r.code, r.stderr)
		}
		path := filepath.Join(dir, "seed-004."+tc.format)
		if err := os.WriteFile(path, []byte(r.stdout), 0o644); err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains([]byte(r.stdout)[:min(len(r.stdout), 512)], tc.magic) || len(r.stdout) < 10_000 {
			t.Errorf("draw -o %s: %d bytes, starting %q: not an image of the topology", tc.format, len(r.stdout), r.stdout[:min(len(r.stdout), 16)])
		}
	}
}

// flatSpec matches a fixture's UDN spec in the seeds' flat form.
var flatSpec = regexp.MustCompile(`(?m)^  spec:\n    topology: (Layer2|Layer3)\n    role: (\w+)\n    subnets:\n((?:    - \S+\n)+)`)

// crdForm rewrites the fixture's UDN specs in the reference CRD's form
// (spec.layer2 / spec.layer3, Layer3 subnets as {cidr, hostSubnet}), as a
// real cluster's dump holds them, and returns how many it rewrote.
func crdForm(text string) (string, int) {
	n := 0
	out := flatSpec.ReplaceAllStringFunc(text, func(m string) string {
		g := flatSpec.FindStringSubmatch(m)
		n++
		var b strings.Builder
		fmt.Fprintf(&b, "  spec:\n    topology: %s\n    %s:\n      role: %s\n      subnets:\n", g[1], strings.ToLower(g[1]), g[2])
		for _, line := range strings.Split(strings.TrimSpace(g[3]), "\n") {
			sub := strings.TrimPrefix(strings.TrimSpace(line), "- ")
			if g[1] == "Layer3" {
				if i := strings.LastIndex(sub, "/"); strings.Count(sub, "/") == 2 {
					fmt.Fprintf(&b, "      - cidr: %s\n        hostSubnet: %s\n", sub[:i], sub[i+1:])
					continue
				}
				fmt.Fprintf(&b, "      - cidr: %s\n", sub)
				continue
			}
			fmt.Fprintf(&b, "      - %s\n", sub)
		}
		return b.String()
	})
	return out, n
}

// TestReferenceCRDForm plans each fixture with its UDNs in the reference
// CRD's form (what `kubectl get userdefinednetworks -o yaml` prints from a
// real OVN-Kubernetes cluster): every zone plans byte for byte as from the
// seeds' flat form, and validate accepts it.
func TestReferenceCRDForm(t *testing.T) {
	for _, name := range []string{"quickstart.yaml", "seed-001.yaml", "seed-002.yaml", "seed-004.yaml"} {
		t.Run(name, func(t *testing.T) {
			ref, n := crdForm(mustRead(t, manifests+name))
			if n == 0 || !strings.Contains(ref, "    layer") {
				t.Fatalf("no UDN spec rewritten")
			}
			want := runCmd(t, "", "plan", "-f", manifests+name, "--all-zones")
			got := runCmd(t, ref, "plan", "-f", "-", "--all-zones")
			if got.code != 0 || got.stdout != want.stdout || got.stderr != want.stderr {
				t.Errorf("plan of the CRD form (exit %d) differs:\n%s\n%s", got.code, got.stderr, ref)
			}
			if v := runCmd(t, ref, "validate", "-f", "-"); v.code != 0 {
				t.Errorf("validate of the CRD form: exit %d\n%s", v.code, v.stderr)
			}
		})
	}
	// A CUDN's spec.network (secondary networks of both tenants) plans as
	// its spec.template does.
	const cudn = "---\napiVersion: k8s.ovn.org/v1\nkind: ClusterUserDefinedNetwork\nmetadata: {name: shared, uid: 6f1c1f2e-0000-4000-8000-0000000000ff}\nspec:\n  namespaceSelector: {matchExpressions: [{key: kubernetes.io/metadata.name, operator: In, values: [tenant-a, tenant-b]}]}\n"
	for name, spec := range map[string][2]string{
		"cudn layer3": {"  template: {topology: Layer3, role: Secondary, subnets: [10.250.0.0/16/24]}\n",
			"  network: {topology: Layer3, layer3: {role: Secondary, subnets: [{cidr: 10.250.0.0/16, hostSubnet: 24}]}}\n"},
		"cudn localnet": {"  template: {topology: Localnet, role: Secondary, subnets: [192.168.50.0/24], localnet: {physicalNetworkName: physnet, vlanID: 20}}\n",
			"  network: {topology: Localnet, localnet: {role: Secondary, physicalNetworkName: physnet, subnets: [192.168.50.0/24], vlan: {mode: Access, access: {id: 20}}}}\n"},
	} {
		t.Run(name, func(t *testing.T) {
			base := mustRead(t, manifests+"quickstart.yaml")
			flat := runCmd(t, base+cudn+spec[0], "plan", "-f", "-", "--all-zones")
			crd := runCmd(t, base+cudn+spec[1], "plan", "-f", "-", "--all-zones")
			if flat.code != 0 || !strings.Contains(flat.stdout, "cluster_udn_shared") {
				t.Fatalf("flat: exit %d, the CUDN's network not planned\n%s", flat.code, flat.stderr)
			}
			if crd.code != 0 || crd.stdout != flat.stdout || crd.stderr != flat.stderr {
				t.Errorf("spec.network (exit %d) plans differently from spec.template\n%s", crd.code, crd.stderr)
			}
		})
	}
}

// TestReferenceCRDFormErrors: validate names the CRD form's fields for an
// object written in it, and the flat form's for one written flat.
func TestReferenceCRDFormErrors(t *testing.T) {
	const doc = "apiVersion: k8s.ovn.org/v1\nkind: UserDefinedNetwork\nmetadata: {name: bad, namespace: ns}\nspec:\n  topology: Layer3\n  layer3:\n    role: Primary\n    subnets:\n    - {cidr: 10.0.0.0/33, hostSubnet: 24}\n---\napiVersion: k8s.ovn.org/v1\nkind: ClusterUserDefinedNetwork\nmetadata: {name: bad}\nspec:\n  namespaceSelector: {}\n  network:\n    topology: Localnet\n    localnet: {role: Primary, physicalNetworkName: p}\n"
	r := runCmd(t, doc, "validate", "-f", "-")
	if r.code != 1 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	for _, want := range []string{"spec.layer3.subnets[0].cidr", "spec.network.localnet.role"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("no error names %s:\n%s", want, r.stderr)
		}
	}
	if strings.Contains(r.stderr, "spec.subnets") || strings.Contains(r.stderr, "spec.template") {
		t.Errorf("an error names the flat form's field:\n%s", r.stderr)
	}
}

// TestVerifyTraceFails: when ovn-trace fails on every probe (here a
// stand-in that cannot reach its database), verify exits 2 with its
// message rather than reporting each probe as a surprise.
func TestVerifyTraceFails(t *testing.T) {
	nb, err := ovnnb.StartEmbedded()
	if err != nil {
		t.Fatal(err)
	}
	defer nb.Close()
	tracer := filepath.Join(t.TempDir(), "ovn-trace")
	script := "#!/bin/sh\necho 'ovn-trace: unix:/nonexistent/sb.sock: database connection failed (No such file or directory)' >&2\nexit 1\n"
	if err := os.WriteFile(tracer, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	file := manifests + "seed-001.yaml"
	if r := runCmd(t, "", "apply", "-f", file, "--nb", nb.Endpoint(), "--zone", "ovn-worker"); r.code != 0 {
		t.Fatalf("apply: exit %d\n%s", r.code, r.stderr)
	}
	r := runCmd(t, "", "verify", "-f", file, "--zone", "ovn-worker", "--nb", nb.Endpoint(), "--sb", "unix:/nonexistent/sb.sock", "--ovn-trace", tracer)
	if r.code != 2 || r.stdout != "" || !strings.Contains(r.stderr, "error: --sb unix:/nonexistent/sb.sock: ovn-trace failed on every probe: ovn-trace blue_blue.network_ovn-worker: exit status 1: ovn-trace: unix:/nonexistent/sb.sock: database connection failed") {
		t.Errorf("exit %d, want 2\n%s%s", r.code, r.stdout, r.stderr)
	}
}
