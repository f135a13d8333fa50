package main

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/udnkit/udnkit/backend/ovnnb"
)

// TestEgressOfctl: each node's bridge SNATs the marks of the EgressIPs
// whose IPs it holds (ovn-worker egress-web's 50007 to 172.18.0.100 and
// egress-db's 50008 to 172.18.0.101, ovn-worker2 50008 to 172.18.0.102)
// on both primary networks' patch ports; the node that is no egress node
// SNATs none.
func TestEgressOfctl(t *testing.T) {
	snat := regexp.MustCompile(`in_port=(\d+),[^']*pkt_mark=(5\d{4}),actions=ct\(commit,zone=64000,nat\(src=([0-9.]+)\)`)
	for node, want := range map[string][]string{
		"ovn-worker":        {"3 50007 172.18.0.100", "3 50008 172.18.0.101", "4 50007 172.18.0.100", "4 50008 172.18.0.101"},
		"ovn-worker2":       {"3 50008 172.18.0.102", "4 50008 172.18.0.102"},
		"ovn-control-plane": nil,
	} {
		r := runCmd(t, "", "plan", "-f", manifests+"egress.yaml", "--zone", node, "-o", "ofctl")
		if r.code != 0 {
			t.Fatalf("%s: exit %d\n%s", node, r.code, r.stderr)
		}
		var got []string
		for _, m := range snat.FindAllStringSubmatch(r.stdout, -1) {
			got = append(got, strings.Join(m[1:], " "))
		}
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("%s: egress SNAT flows %q, want %q", node, got, want)
		}
	}
}

// TestEgressNotAssignable: a stream whose nodes lack the
// egress-assignable label plans no reroute and says, per egress IP, that
// no node takes it.
func TestEgressNotAssignable(t *testing.T) {
	in := strings.ReplaceAll(mustRead(t, manifests+"egress.yaml"), "      k8s.ovn.org/egress-assignable: ''\n", "")
	r := runCmd(t, in, "plan", "-f", "-", "--zone", "ovn-worker")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if strings.Contains(r.stdout, "pkt_mark=5000") {
		t.Errorf("a reroute without an egress node:\n%s", r.stdout)
	}
	for _, ip := range []string{"172.18.0.100", "172.18.0.101", "172.18.0.102"} {
		if !strings.Contains(r.stderr, ip+" not assigned: NoEgressNode") {
			t.Errorf("stderr does not say %s is not assigned:\n%s", ip, r.stderr)
		}
	}
}

// TestEgressApplyEmbedded applies every zone's egress plan to an embedded
// NB: the second apply changes nothing and diff exits 0, so the egress
// rows (policies, QoS, address sets) round-trip through the OVN adapter.
func TestEgressApplyEmbedded(t *testing.T) {
	for _, zone := range []string{"ovn-control-plane", "ovn-worker", "ovn-worker2"} {
		t.Run(zone, func(t *testing.T) {
			nb, err := ovnnb.StartEmbedded()
			if err != nil {
				t.Fatal(err)
			}
			defer nb.Close()
			args := []string{"-f", manifests + "egress.yaml", "--nb", nb.Endpoint(), "--zone", zone}
			r := runCmd(t, "", append([]string{"apply"}, args...)...)
			if r.code != 0 || !strings.Contains(r.stdout, "applied") {
				t.Fatalf("apply: exit %d\n%s%s", r.code, r.stdout, r.stderr)
			}
			r = runCmd(t, "", append([]string{"apply"}, args...)...)
			if r.code != 0 || r.stdout != "zone "+zone+": nothing to change\n" {
				t.Fatalf("second apply: exit %d, want nothing to change\n%s%s", r.code, r.stdout, r.stderr)
			}
			r = runCmd(t, "", append([]string{"diff"}, args...)...)
			if r.code != 0 || r.stdout != "" {
				t.Fatalf("diff after apply: exit %d, want 0\n%s%s", r.code, r.stdout, r.stderr)
			}
		})
	}
}
