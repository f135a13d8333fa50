package flows

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestPlanRefusesInconsistentInput: each input that would give a bridge
// inconsistent flows is an ErrInvalid naming the field.
func TestPlanRefusesInconsistentInput(t *testing.T) {
	for _, tc := range []struct {
		name, field string
		mod         func(*Input)
	}{
		{"no bridge", "node.bridge", func(in *Input) { in.Node.Bridge = "" }},
		{"bridge with a blank", "node.bridge", func(in *Input) { in.Node.Bridge = "br 0" }},
		{"bridge with a NUL", "node.bridge", func(in *Input) { in.Node.Bridge = "br\x00" }},
		{"bridge like an option", "node.bridge", func(in *Input) { in.Node.Bridge = "--strict" }},
		{"no uplink port", "node.physical.ofport", func(in *Input) { in.Node.Physical.OFPort = 0 }},
		{"uplink LOCAL", "node.physical.ofport", func(in *Input) { in.Node.Physical.OFPort = 0xfffe }},
		{"uplink named as the bridge", "node.physical.name", func(in *Input) { in.Node.Physical.Name = "breth0" }},
		{"short MAC", "node.mac", func(in *Input) { in.Node.MAC = in.Node.MAC[:4] }},
		{"multicast MAC", "node.mac", func(in *Input) { in.Node.MAC = mac("01:00:5e:00:00:01") }},
		{"zero MAC", "node.mac", func(in *Input) { in.Node.MAC = make(net.HardwareAddr, 6) }},
		{"no node IP", "node.ips", func(in *Input) { in.Node.IPs = nil }},
		{"two IPv4 node IPs", "node.ips[2]", func(in *Input) { in.Node.IPs = append(in.Node.IPs, netip.MustParseAddr("172.18.0.4")) }},
		{"unspecified node IP", "node.ips[0]", func(in *Input) { in.Node.IPs[0] = netip.IPv4Unspecified() }},
		{"default patch is the uplink", "node.defaultPatch.ofport", func(in *Input) { in.Node.DefaultPatch.OFPort = 1 }},
		{"default patch named as the uplink", "node.defaultPatch.name", func(in *Input) { in.Node.DefaultPatch.Name = "eth0" }},
		{"network ID 0", ".id", func(in *Input) { in.Networks[0].ID = 0 }},
		{"same ID twice", ".id", func(in *Input) { in.Networks[1].ID = 1 }},
		{"no network name", "networks[0].name", func(in *Input) { in.Networks[0].Name = "" }},
		{"NUL in a network name", "networks[0].name", func(in *Input) { in.Networks[0].Name = "a\x00" }},
		{"same name twice", ".name", func(in *Input) { in.Networks[1].Name = "ns1_net1" }},
		{"no gateway MAC", ".gatewayMAC", func(in *Input) { in.Networks[0].GatewayMAC = nil }},
		{"no family", ".ipv4", func(in *Input) { in.Networks[1].IPv4 = false }},
		{"duplicate patch port", ".patch.ofport", func(in *Input) { in.Networks[1].Patch.OFPort = 3 }},
		{"duplicate patch name", ".patch.name", func(in *Input) { in.Networks[1].Patch.Name = in.Networks[0].Patch.Name }},
		{"patch port is the uplink", ".patch.ofport", func(in *Input) { in.Networks[0].Patch.OFPort = 1 }},
		{"patch port is the default patch", ".patch.ofport", func(in *Input) { in.Networks[0].Patch.OFPort = 2 }},
		{"patch port LOCAL", ".patch.ofport", func(in *Input) { in.Networks[0].Patch.OFPort = 0xfffe }},
		{"patch port named as the bridge", ".patch.name", func(in *Input) { in.Networks[0].Patch.Name = "breth0" }},
		{"negative patch port", ".patch.ofport", func(in *Input) { in.Networks[0].Patch.OFPort = -3 }},
		{"cluster IP outside the service CIDRs", ".clusterIPs[0]", func(in *Input) { in.Networks[0].ClusterIPs[0] = netip.MustParseAddr("10.200.0.5") }},
		{"cluster IP of a family the network lacks", ".clusterIPs[0]", func(in *Input) {
			in.Networks[1].ClusterIPs[0] = netip.MustParseAddr("fd00:10:96::6")
		}},
		{"one cluster IP on two networks", ".clusterIPs[0]", func(in *Input) { in.Networks[1].ClusterIPs[0] = netip.MustParseAddr("10.96.0.5") }},
		{"unmasked service CIDR", "cluster.serviceCIDRs[0]", func(in *Input) { in.Cluster.ServiceCIDRs[0] = netip.MustParsePrefix("10.96.0.1/16") }},
		{"no masq of a fam", "masquerade", func(in *Input) {
			in.Cluster.MasqueradeSubnets = []netip.Prefix{netip.MustParsePrefix("169.254.0.0/17")}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := seedInput()
			in.Networks[0].ClusterIPs = append([]netip.Addr(nil), in.Networks[0].ClusterIPs...)
			in.Networks[1].ClusterIPs = append([]netip.Addr(nil), in.Networks[1].ClusterIPs...)
			in.Node.IPs = append([]netip.Addr(nil), in.Node.IPs...)
			in.Cluster.ServiceCIDRs = append([]netip.Prefix(nil), in.Cluster.ServiceCIDRs...)
			tc.mod(&in)
			_, err := Plan(in)
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("%v, want ErrInvalid", err)
			}
			if !strings.Contains(err.Error(), tc.field) {
				t.Errorf("%v does not name %s", err, tc.field)
			}
		})
	}
}

// TestScriptWithHostileNames: the flows script of a bridge whose name is
// shell syntax, run by a real sh (in a fresh network namespace when root),
// runs no payload and hands ovs-ofctl each word as printed.
func TestScriptWithHostileNames(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	for _, bridge := range []string{"a;>x", "b$(>y)", "c`>z`", `q'"&>w|>v`, "d&>u"} {
		in := seedInput()
		in.Node.Bridge = bridge
		fs := mustPlan(t, in)
		dir := t.TempDir()
		work := filepath.Join(dir, "work")
		bin := filepath.Join(dir, "bin")
		for _, d := range []string{work, bin} {
			if err := os.Mkdir(d, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		// A stand-in ovs-ofctl that records its arguments, one a line.
		log := filepath.Join(dir, "args")
		if err := os.WriteFile(filepath.Join(bin, "ovs-ofctl"), []byte("#!/bin/sh\nprintf '%s\\n' \"$@\" >> "+log+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		script := filepath.Join(dir, "flows.sh")
		if err := os.WriteFile(script, []byte(Script(bridge, fs)), 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(sh, script)
		if os.Geteuid() == 0 {
			cmd = exec.Command("unshare", "-n", sh, script)
		}
		cmd.Dir, cmd.Env = work, append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"))
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", bridge, err, out)
		}
		if files, _ := os.ReadDir(work); len(files) != 0 {
			t.Errorf("bridge %q: the script ran a payload (%d files)", bridge, len(files))
		}
		b, _ := os.ReadFile(log)
		lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
		if len(lines) != 3*len(fs) {
			t.Fatalf("bridge %q: ovs-ofctl got %d words for %d flows", bridge, len(lines), len(fs))
		}
		for i, f := range fs {
			if got := lines[3*i : 3*i+3]; got[0] != "add-flow" || got[1] != bridge || got[2] != f.String() {
				t.Errorf("bridge %q: ovs-ofctl got %q", bridge, got)
			}
		}
	}
}

// TestErrorsAreBounded: a 1 MiB value in any checked field gives an error
// of a few hundred bytes, not the value.
func TestErrorsAreBounded(t *testing.T) {
	huge := strings.Repeat("x", 1<<20)
	for name, mod := range map[string]func(*Input){
		"bridge":       func(in *Input) { in.Node.Bridge = huge },
		"network name": func(in *Input) { in.Networks[0].Name = huge + "\x00" },
		"port name":    func(in *Input) { in.Networks[0].Patch.Name, in.Networks[1].Patch.Name = huge, huge },
		"MAC":          func(in *Input) { in.Node.MAC = make(net.HardwareAddr, 1<<20) },
	} {
		in := seedInput()
		mod(&in)
		if _, err := Plan(in); err == nil || len(err.Error()) > 512 {
			t.Errorf("%s: an error of %d bytes", name, len(fmt.Sprint(err)))
		}
	}
	f := Flow{Table: 300, Match: huge, Actions: "drop"}
	if err := f.Validate(); err == nil || len(err.Error()) > 512 {
		t.Errorf("flow: an error of %d bytes", len(fmt.Sprint(err)))
	}
}
