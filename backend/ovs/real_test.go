package ovs_test

import (
	"context"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/udnkit/udnkit/backend/ovs"
	"github.com/udnkit/udnkit/flows"
	"github.com/udnkit/udnkit/internal/ovstest"
)

func TestRealSync(t *testing.T) {
	env := ovstest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	const def, pa, pb = "patch-def", "patch-a", "patch-b"
	ports, err := env.GatewayBridge(ctx, "breth0", "02:42:ac:12:00:03", "eth0", def, pa, pb)
	if err != nil {
		t.Fatal(err)
	}
	port := func(n string) flows.Port { return flows.Port{Name: n, OFPort: ports[n]} }
	m := func(s string) net.HardwareAddr { hw, _ := net.ParseMAC(s); return hw }
	in := flows.Input{
		Node: flows.Node{Bridge: "breth0", Physical: port("eth0"), MAC: m("02:42:ac:12:00:03"),
			IPs: []netip.Addr{netip.MustParseAddr("172.18.0.3"), netip.MustParseAddr("fc00::3")}, DefaultPatch: port(def)},
		Networks: []flows.Network{
			{ID: 1, Name: "a", Patch: port(pa), GatewayMAC: m("02:42:ac:12:00:05"), IPv4: true, IPv6: true,
				ClusterIPs: []netip.Addr{netip.MustParseAddr("10.96.0.5")}},
			{ID: 2, Name: "b", Patch: port(pb), GatewayMAC: m("02:42:ac:12:00:06"), IPv4: true,
				ClusterIPs: []netip.Addr{netip.MustParseAddr("10.96.0.6")}},
		},
		Cluster: flows.Cluster{ServiceCIDRs: []netip.Prefix{netip.MustParsePrefix("10.96.0.0/16"), netip.MustParsePrefix("fd00:10:96::/112")}},
	}
	const foreign = "cookie=0x1234,table=7,priority=5,ip,actions=drop"
	if out, err := env.Ofctl(ctx, "", "add-flow", "breth0", foreign); err != nil {
		t.Fatal(err, out)
	}
	br, err := ovs.New(ovs.Config{Bridge: "breth0", Run: env.RunOfctl, Dir: env.Dir, DirForOfctl: env.In})
	if err != nil {
		t.Fatal(err)
	}
	plan := func() []flows.Flow {
		fs, err := flows.Plan(in)
		if err != nil {
			t.Fatal(err)
		}
		return fs
	}
	sync := func(want ovs.Result) {
		t.Helper()
		changes, got, err := br.Sync(ctx, plan())
		if err != nil {
			t.Fatal(err)
		}
		if got != want || changes.Len() != want.Added+want.Deleted {
			t.Errorf("Sync = %+v (%d changes), want %+v", got, changes.Len(), want)
		}
		observed, err := br.Observe(ctx, plan())
		if err != nil {
			t.Fatal(err)
		}
		if d := flows.Diff(observed, plan()); d.Len() != 0 {
			t.Errorf("observed after Sync differs from the plan: %+v", d)
		}
		observed, err = br.Observe(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(observed) != len(plan()) {
			t.Errorf("the bridge holds %d flows of the cookie, the plan %d", len(observed), len(plan()))
		}
		out, err := env.Ofctl(ctx, "", "dump-flows", "breth0", "cookie=0x1234/-1")
		if err != nil || !strings.Contains(out, "table=7") {
			t.Errorf("the foreign flow is gone: %v\n%s", err, out)
		}
	}
	sync(ovs.Result{Added: len(plan())})
	sync(ovs.Result{}) // applying twice changes nothing

	// The plan's go-openvswitch values, as text, are the flows the bridge
	// holds: Open vSwitch finds no difference.
	var text strings.Builder
	for _, f := range plan() {
		v, err := f.OVS()
		if err != nil {
			t.Fatal(err)
		}
		b, err := v.MarshalText()
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		text.Write(append(b, '\n'))
	}
	if err := os.WriteFile(filepath.Join(env.Dir, "ovs-values.txt"), []byte(text.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := env.Ofctl(ctx, "", "-O", "OpenFlow14", "diff-flows", "breth0", filepath.Join(env.In, "ovs-values.txt"))
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "cookie=0xdeff105") {
			t.Errorf("the go-openvswitch values differ from the bridge's flows: %s", l)
		}
	}
	if err != nil && !strings.Contains(err.Error(), "exit status 2") {
		t.Fatalf("diff-flows: %v\n%s", err, out)
	}

	// One more cluster IP: one flow.
	in.Networks[1].ClusterIPs = append(in.Networks[1].ClusterIPs, netip.MustParseAddr("10.96.0.7"))
	sync(ovs.Result{Added: 1})

	// Someone changes one of the SDK's flows: Sync puts it back (an add of
	// the same match replaces the actions).
	if out, err := env.Ofctl(ctx, "", "mod-flows", "--strict", "breth0", "cookie=0xdeff105,table=2,priority=300,reg1=0x4,actions=drop"); err != nil {
		t.Fatal(err, out)
	}
	sync(ovs.Result{Added: 1})
	// Someone adds a flow of the SDK's cookie: Sync deletes it.
	if out, err := env.Ofctl(ctx, "", "add-flow", "breth0", "cookie=0xdeff105,table=9,priority=1,ip,actions=drop"); err != nil {
		t.Fatal(err, out)
	}
	sync(ovs.Result{Deleted: 1})

	// Network b goes: its flows and the fan-out that listed its port.
	in.Networks = in.Networks[:1]
	_, got, err := br.Sync(ctx, plan())
	if err != nil || got.Deleted == 0 {
		t.Fatalf("removing b: %+v %v", got, err)
	}
	observed, _ := br.Observe(ctx, nil)
	for _, f := range observed {
		if strings.Contains(f.Match, "in_port="+itoa(ports[pb])) || strings.Contains(f.Actions, "output:"+itoa(ports[pb])) {
			t.Errorf("a flow of b remains: %+v", f)
		}
	}
	sync(ovs.Result{})

	// Why the bundle deletes strictly: a non-strict delete of the host's
	// service-CIDR flow (what go-openvswitch's transaction sends) also
	// takes the cluster-IP flow under it. Sync then restores both.
	before, _ := br.Observe(ctx, nil)
	if out, err := env.Ofctl(ctx, "", "del-flows", "breth0", "cookie=0xdeff105/-1,table=0,ip,in_port=LOCAL,nw_dst=10.96.0.0/16"); err != nil {
		t.Fatal(err, out)
	}
	after, _ := br.Observe(ctx, nil)
	if gone := len(before) - len(after); gone < 3 {
		t.Errorf("a non-strict delete of the service-CIDR flow took %d flows, expected it and the cluster-IP flow under it", gone)
	}
	_, got, err = br.Sync(ctx, plan())
	if err != nil || got.Added != len(before)-len(after) || got.Deleted != 0 {
		t.Errorf("restoring: %+v %v", got, err)
	}
}

func itoa(i int) string { return strconv.Itoa(i) }
