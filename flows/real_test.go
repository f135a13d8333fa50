package flows_test

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/udnkit/udnkit/flows"
	"github.com/udnkit/udnkit/internal/ovstest"
)

const brMAC = "02:42:ac:12:00:03"

// bridge builds breth0 with an uplink and the patch ports of the default
// network and of two networks (a and b, with overlapping pod subnets) to
// br-int, and returns the planner input with their OpenFlow ports.
func bridge(t *testing.T, env *ovstest.Env, ctx context.Context) flows.Input {
	t.Helper()
	const def, pa, pb = "patch-breth0_ovn-worker-to-br-int", "patch-breth0_ns1_a_ovn-worker-to-br-int", "patch-breth0_ns2_b_ovn-worker-to-br-int"
	ports, err := env.GatewayBridge(ctx, "breth0", brMAC, "eth0", def, pa, pb)
	if err != nil {
		t.Fatal(err)
	}
	port := func(name string) flows.Port { return flows.Port{Name: name, OFPort: ports[name]} }
	m := func(s string) net.HardwareAddr { hw, _ := net.ParseMAC(s); return hw }
	return flows.Input{
		Node: flows.Node{Bridge: "breth0", Physical: port("eth0"), MAC: m(brMAC),
			IPs: []netip.Addr{netip.MustParseAddr("172.18.0.3")}, DefaultPatch: port(def)},
		Networks: []flows.Network{
			{ID: 1, Name: "ns1_a", Patch: port(pa), GatewayMAC: m("02:42:ac:12:00:05"),
				IPv4: true, ClusterIPs: []netip.Addr{netip.MustParseAddr("10.96.0.5")}},
			{ID: 2, Name: "ns2_b", Patch: port(pb), GatewayMAC: m("02:42:ac:12:00:06"),
				IPv4: true, ClusterIPs: []netip.Addr{netip.MustParseAddr("10.96.0.6")}},
		},
		Cluster: flows.Cluster{ServiceCIDRs: []netip.Prefix{netip.MustParsePrefix("10.96.0.0/16")}},
	}
}

// TestRealTrace installs the plan on a real Open vSwitch bridge and lets
// ofproto/trace referee the four behaviours of the seed and the reference.
func TestRealTrace(t *testing.T) {
	env := ovstest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	in := bridge(t, env, ctx)
	fs, err := flows.Plan(in)
	if err != nil {
		t.Fatal(err)
	}
	if out, err := env.Ofctl(ctx, flows.Text(fs), "add-flows", "breth0", "-"); err != nil {
		t.Fatal(err, out)
	}
	a, b, phys := in.Networks[0].Patch.OFPort, in.Networks[1].Patch.OFPort, in.Node.Physical.OFPort
	trace := func(t *testing.T, flow string, opts ...string) string {
		t.Helper()
		out, err := env.Trace(ctx, "breth0", flow, opts...)
		if err != nil {
			t.Fatal(err, out)
		}
		return out
	}
	datapath := func(out string) string {
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(l, "Datapath actions:") {
				return l
			}
		}
		return ""
	}
	t.Run("egress of a leaves the uplink SNATed to the node IP with ct_mark 3+a", func(t *testing.T) {
		out := trace(t, fmt.Sprintf("in_port=%d,ip,dl_src=%s,dl_dst=02:00:00:00:00:99,nw_src=169.254.0.11,nw_dst=8.8.8.8", a, brMAC))
		want := "ct(commit,zone=64000,mark=0x4/0xffffffff,nat(src=172.18.0.3))"
		if got := datapath(out); !strings.Contains(got, want) || !strings.Contains(out, fmt.Sprintf("output:%d\n", phys)) {
			t.Errorf("datapath actions %q, want %q and output to the uplink %d:\n%s", got, want, phys, out)
		}
	})
	t.Run("a reply marked 3+b goes to b's patch port, never a's", func(t *testing.T) {
		out := trace(t, fmt.Sprintf("in_port=%d,ip,ct_mark=0x5,dl_dst=%s,nw_src=8.8.8.8,nw_dst=172.18.0.3", phys, brMAC), "--ct-next", "trk,est")
		if !regexp.MustCompile(fmt.Sprintf(`1\. ct_state=\+est\+trk,ct_mark=0x5,ip, priority 100, cookie 0xdeff105\s+output:%d\n`, b)).MatchString(out) {
			t.Errorf("reply of b not sent to its patch port %d:\n%s", b, out)
		}
		if strings.Contains(out, fmt.Sprintf("output:%d", a)) {
			t.Errorf("reply of b sent to a's patch port:\n%s", out)
		}
	})
	t.Run("host to a's cluster IP goes to a's gateway MAC and patch port", func(t *testing.T) {
		out := trace(t, "in_port=LOCAL,tcp,dl_src="+brMAC+",dl_dst=02:00:00:00:00:01,nw_src=172.18.0.3,nw_dst=10.96.0.5,tp_dst=80")
		want := regexp.MustCompile(fmt.Sprintf(`2\. reg1=0x4, priority 300, cookie 0xdeff105\s+mod_dl_dst:02:42:ac:12:00:05\s+output:%d\n`, a))
		if !strings.Contains(out, "load:0x4->NXM_NX_REG1[]") || !want.MatchString(out) || strings.Contains(out, fmt.Sprintf("output:%d\n", b)) {
			t.Errorf("host -> 10.96.0.5 not dispatched to a's gateway MAC and patch port %d:\n%s", a, out)
		}
	})
	t.Run("a patch port's traffic to the service CIDR is dropped", func(t *testing.T) {
		out := trace(t, fmt.Sprintf("in_port=%d,ip,dl_src=%s,nw_src=10.128.0.5,nw_dst=10.96.0.6", a, brMAC))
		if got := datapath(out); got != "Datapath actions: drop" {
			t.Errorf("datapath actions %q, want drop:\n%s", got, out)
		}
	})
}
