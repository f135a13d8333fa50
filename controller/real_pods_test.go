package controller

import (
	"context"
	"fmt"
	"net/netip"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/udnkit/udnkit/backend/ovnnb"
	"github.com/udnkit/udnkit/internal/ovntest"
	"github.com/udnkit/udnkit/netconf"
	"github.com/udnkit/udnkit/topology"
	"github.com/udnkit/udnkit/topology/pods"
)

// burstNamespaces are the namespaces of burst pod i (i%3): two connected
// primaries (Layer3 blue, Layer2 green) and a Layer3 primary no connect
// selects (yellow).
var burstNamespaces = [3]string{"blue", "green", "yellow"}

// burstPod is pod i of the burst: on node1 when i is even, node2 when odd.
// Later pods sort first (p-999, p-998, ...), so a restarted controller
// meets new pods before the annotated ones.
func burstPod(i int) *corev1.Pod {
	return pod(burstNamespaces[i%3], fmt.Sprintf("p-%03d", 999-i), fmt.Sprintf("node%d", 1+i%2), nil, nil)
}

// TestRealPods runs the controller against a real NB (ovsdb-server and
// ovn-northd) and one API server for both subtests: a burst of pods with a
// restart in the middle, then ovn-trace on what the controllers wrote.
func TestRealPods(t *testing.T) {
	e := startEnv(t)
	ovn := ovntest.Start(t)
	ctx := context.Background()
	nb, err := ovnnb.Dial(ctx, ovnnb.Config{Endpoints: []string{ovn.NBUnix}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nb.Close)
	scenario(t, e)
	create(t, e, namespace("yellow", map[string]string{netconf.LabelPrimaryUDN: ""}),
		udn("yellow", "net", netconf.UserDefinedNetworkSpec{Topology: netconf.TopologyLayer3, Role: netconf.RolePrimary, Subnets: []string{"10.60.0.0/16/24"}}))
	serviceAccounts(t, e, burstNamespaces[:]...)
	ctl := run(t, e, Config{Zone: "node1", NB: nb})
	converged(t, e)
	eventually(t, "UDN yellow/net", func() error { return udnReady(e, "yellow", "net") })

	var last *running
	t.Run("burst-restart", func(t *testing.T) { last = burstRestart(t, e, ovn, nb, ctl) })
	if last == nil || t.Failed() {
		return
	}
	t.Run("trace", func(t *testing.T) { traceBurst(t, e, ovn, last) })
}

// burstRestart creates 200 pods while the controller runs, stops it once
// some are annotated, starts another in the middle of the burst, and
// checks that no pod's annotation changed, no address is used twice, the
// NB holds one port per pod with the pod's address (read with ovn-nbctl)
// and every status is right. It returns the running controller.
func burstRestart(t *testing.T, e *env, ovn *ovntest.Env, nb *ovnnb.Client, first *running) *running {
	const burst, killAt, restartAt = 200, 60, 120
	ctx := context.Background()
	created := make(chan int, burst)
	var createErr error
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(created)
		for i := range burst {
			if err := e.c.Create(ctx, burstPod(i)); err != nil {
				createErr = fmt.Errorf("create pod %d: %w", i, err)
				return
			}
			created <- i
		}
	}()
	annotated := func() map[string]string {
		var l corev1.PodList
		if err := e.c.List(ctx, &l); err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		for _, p := range l.Items {
			if v, ok := p.Annotations[netconf.AnnotationPodNetworks]; ok && strings.HasPrefix(p.Name, "p-") {
				out[p.Namespace+"/"+p.Name] = v
			}
		}
		return out
	}
	eventually(t, "pods annotated before the kill", func() error {
		if n := len(annotated()); n < killAt {
			return fmt.Errorf("%d annotated", n)
		}
		return nil
	})
	first.stop() // mid-pass, most likely: its writes in flight fail
	before := annotated()
	n := 0
	for range created {
		if n++; n == restartAt {
			break
		}
	}
	if n < restartAt {
		t.Fatalf("the burst ended after %d pods: %v", n, createErr)
	}
	if len(before) >= n {
		t.Logf("every pod created so far was annotated before the kill (%d)", len(before))
	}
	second := run(t, e, Config{Zone: "node1", NB: nb})
	for range created {
	}
	wg.Wait()
	if createErr != nil {
		t.Fatal(createErr)
	}
	var after map[string]string
	eventually(t, "every pod annotated", func() error {
		if after = annotated(); len(after) != burst {
			return fmt.Errorf("%d of %d annotated", len(after), burst)
		}
		return nil
	})
	t.Logf("%d pods annotated before the kill, %d created when the second controller started", len(before), restartAt)
	for k, v := range before {
		if after[k] != v {
			t.Errorf("pod %s: annotation %s after the restart, was %s", k, after[k], v)
		}
	}
	owner := map[netip.Addr]string{}
	for k, v := range after {
		pn, err := netconf.ParsePodNetworks(v)
		if err != nil {
			t.Fatalf("pod %s: %v", k, err)
		}
		ns, _, _ := strings.Cut(k, "/")
		a, err := firstIP(pn, ns+"/net")
		if err != nil {
			t.Fatalf("pod %s: %v", k, err)
		}
		if o, dup := owner[a]; dup {
			t.Errorf("address %s of pod %s is pod %s's too", a, k, o)
		}
		owner[a] = k
	}

	plan := nbPlan(t, second, nb, "node1")
	// What ovn-nbctl reads: every pod's port once, with the annotation's
	// address; nothing else of the burst.
	out, err := ovn.NBCtl(ctx, "--format=csv", "--data=bare", "--no-headings", "--columns=name,addresses", "list", "Logical_Switch_Port")
	if err != nil {
		t.Fatal(err)
	}
	lsps := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		name, addrs, _ := strings.Cut(line, ",")
		lsps[name] = append(lsps[name], addrs)
	}
	var want []string
	for o := range plan.Objects() {
		if sp, ok := o.(topology.SwitchPort); ok && strings.Contains(sp.Name, "_p-") {
			want = append(want, sp.Name)
		}
	}
	var got []string
	for name, addrs := range lsps {
		if !strings.Contains(name, "_p-") {
			continue
		}
		got = append(got, name)
		if len(addrs) > 1 {
			t.Errorf("port %s is in the NB %d times", name, len(addrs))
		}
	}
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("pod ports in the NB (%d) are not the plan's (%d):\n%s", len(got), len(want), lineDiff(strings.Join(want, "\n"), strings.Join(got, "\n")))
	}
	local := 0
	for i := range burst {
		p := burstPod(i)
		if p.Spec.NodeName != "node1" {
			continue
		}
		local++
		pn, _ := netconf.ParsePodNetworks(after[p.Namespace+"/"+p.Name])
		a, _ := firstIP(pn, p.Namespace+"/net")
		name := pods.PortName(p.Namespace, p.Name, p.Namespace+"/net")
		if addrs := lsps[name]; len(addrs) == 0 || !slices.Contains(strings.Fields(addrs[0]), a.String()) {
			t.Errorf("port %s: addresses %q, want the annotation's %s", name, addrs, a)
		}
	}
	if local != burst/2 {
		t.Fatalf("%d pods on node1, want %d", local, burst/2)
	}

	converged(t, e)
	eventually(t, "UDN yellow/net", func() error { return udnReady(e, "yellow", "net") })
	if err := ovn.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	return second
}

var outputRE = regexp.MustCompile(`output to "([^"]+)"`)

// traceBurst proves with ovn-trace, on the NB the controllers wrote: two
// pods of blue reach each other, a blue pod reaches a green pod through
// the ClusterNetworkConnect, and no blue packet reaches yellow, which no
// connect selects.
func traceBurst(t *testing.T, e *env, ovn *ovntest.Env, ctl *running) {
	ctx := context.Background()
	plan, err := ctl.c.Cluster().Plan("node1")
	if err != nil {
		t.Fatal(err)
	}
	type end struct {
		port, sw string
		mac, gw  string
		ip       netip.Addr
	}
	at := func(i int) end {
		t.Helper()
		p := burstPod(i)
		if p.Spec.NodeName != "node1" {
			t.Fatalf("pod %d is not on node1", i)
		}
		nad := p.Namespace + "/net"
		pn, _, err := podNetworks(e, p.Namespace, p.Name)
		if err != nil {
			t.Fatal(err)
		}
		n := pn[nad]
		if len(n.IPs) == 0 || len(n.Gateways) == 0 {
			t.Fatalf("pod %s/%s: no address or gateway on %s: %+v", p.Namespace, p.Name, nad, n)
		}
		name := pods.PortName(p.Namespace, p.Name, nad)
		o, ok := plan.Get(topology.KindSwitchPort, name)
		if !ok {
			t.Fatalf("no port %s in the plan", name)
		}
		gw := n.Gateways[0].As4()
		return end{port: name, sw: o.(topology.SwitchPort).Switch, mac: n.MAC.String(), ip: n.IPs[0].Addr(),
			gw: fmt.Sprintf("0a:58:%02x:%02x:%02x:%02x", gw[0], gw[1], gw[2], gw[3])}
	}
	trace := func(from, to end, dstMAC string) (string, []string) {
		t.Helper()
		match := fmt.Sprintf("inport == %q && eth.src == %s && eth.dst == %s && ip4.src == %s && ip4.dst == %s && ip.ttl == 64 && icmp4.type == 8",
			from.port, from.mac, dstMAC, from.ip, to.ip)
		out, err := ovn.Trace(ctx, from.sw, match)
		if err != nil {
			t.Fatal(err)
		}
		var outs []string
		for _, m := range outputRE.FindAllStringSubmatch(out, -1) {
			outs = append(outs, m[1])
		}
		return out, outs
	}
	// Pods i%3 == 0 are blue, 1 green, 2 yellow; even ones run on node1.
	blueA, blueB, green, yellow := at(0), at(6), at(4), at(2)
	if out, outs := trace(blueA, blueB, blueB.mac); !slices.Contains(outs, blueB.port) {
		t.Errorf("blue %s does not reach blue %s (outputs %v):\n%s", blueA.ip, blueB.ip, outs, out)
	}
	if out, outs := trace(blueA, green, blueA.gw); !slices.Contains(outs, green.port) {
		t.Errorf("blue %s does not reach green %s through the connect (outputs %v):\n%s", blueA.ip, green.ip, outs, out)
	}
	out, outs := trace(blueA, yellow, blueA.gw)
	if slices.Contains(outs, yellow.port) || strings.Contains(out, "yellow_net") {
		t.Errorf("blue %s reaches yellow %s, which no connect selects (outputs %v):\n%s", blueA.ip, yellow.ip, outs, out)
	}
}
