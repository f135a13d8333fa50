package udnkit_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/netip"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/udnkit/udnkit"
	"github.com/udnkit/udnkit/backend/ovnnb"
	"github.com/udnkit/udnkit/connect"
	"github.com/udnkit/udnkit/internal/ovntest"
	"github.com/udnkit/udnkit/netconf"
	"github.com/udnkit/udnkit/netconf/udn"
	"github.com/udnkit/udnkit/topology"
	"github.com/udnkit/udnkit/topology/pods"
	"github.com/udnkit/udnkit/topology/policy"
	"github.com/udnkit/udnkit/topology/services"
)

// realCluster is what the real-NB tests of the Cluster build: Layer3,
// Layer2 and Localnet networks, a CUDN, two primaries of one namespace, a
// ClusterNetworkConnect, pods and Services, on four nodes, each its own
// zone.
type realCluster struct {
	t     *testing.T
	udns  []string
	cudns []*netconf.ClusterUserDefinedNetwork
	cnc   *connect.ClusterNetworkConnect
}

func newRealCluster(t *testing.T) realCluster {
	t.Helper()
	rc := realCluster{t: t, udns: []string{
		"blue/l3/Layer3/Primary/10.128.0.0/16/24",
		"green/l2/Layer2/Primary/10.129.0.0/16",
		"blue/sec/Layer2/Secondary/192.168.5.0/24",
		"shop/front/Layer3/Primary/10.130.0.0/16/24",
	}}
	ln, err := os.ReadFile("netconf/testdata/cudn-localnet.yaml")
	if err != nil {
		t.Fatal(err)
	}
	localnet, err := netconf.DecodeCUDN(ln)
	if err != nil {
		t.Fatal(err)
	}
	back, err := netconf.DecodeCUDN([]byte(`
kind: ClusterUserDefinedNetwork
metadata: {name: back}
spec:
  namespaceSelector: {matchLabels: {tier: t0}}
  template: {spec: {topology: Layer2, role: Primary, subnets: ["10.131.0.0/16"]}}`))
	if err != nil {
		t.Fatal(err)
	}
	rc.cudns = []*netconf.ClusterUserDefinedNetwork{localnet, back}
	rc.cnc, err = connect.Decode([]byte(`
kind: ClusterNetworkConnect
metadata: {name: cnc0}
spec:
  networkSelectors:
  - networkSelectionType: PrimaryUserDefinedNetworks
    primaryUserDefinedNetworkSelector:
      namespaceSelector: {matchExpressions: [{key: kubernetes.io/metadata.name, operator: In, values: [blue, green, shop]}]}
  connectSubnets: [{cidr: 192.168.0.0/16, networkPrefix: 24}]
  connectivityEnabled: [PodNetwork, ClusterIPServiceNetwork]`))
	if err != nil {
		t.Fatal(err)
	}
	return rc
}

func (rc realCluster) udn(spec string) *netconf.UserDefinedNetwork {
	f := strings.SplitN(spec, "/", 5)
	u, err := netconf.DecodeUDN([]byte(fmt.Sprintf("kind: UserDefinedNetwork\nmetadata: {name: %s, namespace: %s}\nspec: {topology: %s, role: %s, subnets: [%q]}",
		f[1], f[0], f[2], f[3], f[4])))
	if err != nil {
		rc.t.Fatal(err)
	}
	return u
}

// build adds everything but skip, in a shuffled order when rng is set;
// pods are restored from annotations when given.
func (rc realCluster) build(c *udnkit.Cluster, rng *rand.Rand, podAnnotations map[string]string, skip ...string) {
	t := rc.t
	t.Helper()
	for _, ns := range []netconf.Namespace{{Name: "blue"}, {Name: "green"}, {Name: "db", Labels: map[string]string{"tier": "db"}},
		{Name: "shop", Labels: map[string]string{"tier": "t0"}}} {
		if _, err := c.SetNamespace(ns); err != nil {
			t.Fatal(err)
		}
	}
	var adds []func() error
	for _, nd := range ovntest.Nodes(4, "") {
		if !slices.Contains(skip, nd.Name) {
			nd.ID = 0 // the Cluster allocates
			adds = append(adds, func() error { return c.AddNode(nd) })
		}
	}
	for _, spec := range rc.udns {
		u := rc.udn(spec)
		if !slices.Contains(skip, u.Namespace+"_"+u.Name) {
			adds = append(adds, func() error { _, err := c.AddUDN(u); return err })
		}
	}
	for _, cu := range rc.cudns {
		if !slices.Contains(skip, netconf.CUDNNetworkName(cu.Name)) {
			adds = append(adds, func() error { _, err := c.AddCUDN(cu); return err })
		}
	}
	if rng != nil {
		rng.Shuffle(len(adds), func(i, j int) { adds[i], adds[j] = adds[j], adds[i] })
	}
	for _, add := range adds {
		if err := add(); err != nil {
			t.Fatal(err)
		}
	}
	if acc, _, err := c.SetConnect(rc.cnc); err != nil || !acc.Accepted() {
		t.Fatalf("connect: %v %+v", err, acc.Condition)
	}
	for i, p := range []pods.Pod{
		{Namespace: "blue", Name: "a", Node: "node1"}, {Namespace: "blue", Name: "b", Node: "node2"},
		{Namespace: "green", Name: "c", Node: "node1"}, {Namespace: "shop", Name: "d", Node: "node4"},
		{Namespace: "green", Name: "e", Node: "node3"},
	} {
		p.UID = fmt.Sprint("uid-", i)
		if slices.Contains(skip, p.Node) {
			continue
		}
		ann := map[string]string{}
		if p.Namespace == "blue" {
			ann[pods.AnnotationNetworks] = "blue/sec"
		}
		if v, ok := podAnnotations[p.Namespace+"/"+p.Name]; ok {
			ann[netconf.AnnotationPodNetworks] = v
		}
		if _, err := c.SetPod(udnkit.Pod{Pod: p, Annotations: ann}); err != nil {
			if slices.ContainsFunc(skip, func(s string) bool { return strings.HasPrefix(s, p.Namespace+"_") }) {
				continue // its network is gone
			}
			t.Fatal(err)
		}
	}
	for i, ns := range []string{"blue", "green", "shop"} {
		if _, err := c.SetService(services.Service{Namespace: ns, Name: "web",
			ClusterIPs: []netip.Addr{netip.AddrFrom4([4]byte{10, 96, 0, byte(10 + i)})},
			Ports:      []services.Port{{Name: "http", Protocol: services.ProtocolTCP, Port: 80}}}); err != nil {
			t.Fatal(err)
		}
	}
}

// TestRealClusterRestart: the cluster is built through the Cluster and
// synced to a real NB (northd compiles it: any warning fails the test); a
// new Cluster restored from the annotations the first one wrote — shuffled,
// after one node and one network were deleted — plans what the first one
// planned minus those, and its Sync deletes exactly their rows and writes
// nothing else; a second Sync writes nothing.
func TestRealClusterRestart(t *testing.T) {
	for _, profile := range []udn.Profile{udn.ProfileSeeds, udn.ProfileReference} {
		t.Run(profile.String(), func(t *testing.T) {
			env := ovntest.Start(t)
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			nb, err := ovnnb.Dial(ctx, ovnnb.Config{Endpoints: []string{env.NBUnix}, Monitor: true})
			if err != nil {
				t.Fatal(err)
			}
			defer nb.Close()
			rc := newRealCluster(t)
			before, err := udnkit.New(udnkit.Config{Profile: profile})
			if err != nil {
				t.Fatal(err)
			}
			rc.build(before, nil, nil)
			const zone, goneNode, goneNet = "node1", "node3", "blue_l3"
			old, err := before.Plan(zone)
			if err != nil {
				t.Fatal(err)
			}
			if _, _, err := nb.Sync(ctx, old); err != nil {
				t.Fatal(err)
			}
			if err := env.Sync(ctx); err != nil {
				t.Fatal(err)
			}
			stored := before.Annotations()
			podAnn := map[string]string{}
			for _, p := range []string{"blue/a", "blue/b", "green/c", "shop/d", "green/e"} {
				ns, name, _ := strings.Cut(p, "/")
				if podAnn[p], err = before.PodAnnotation(ns, name); err != nil {
					t.Fatal(err)
				}
			}

			rng := rand.New(rand.NewPCG(1, 2))
			for _, objs := range [][]udnkit.Object{stored.Nodes, stored.NADs, stored.Connects} {
				rng.Shuffle(len(objs), func(i, j int) { objs[i], objs[j] = objs[j], objs[i] })
			}
			after, err := udnkit.New(udnkit.Config{Profile: profile})
			if err != nil {
				t.Fatal(err)
			}
			if err := after.Restore(stored); err != nil {
				t.Fatal(err)
			}
			rc.build(after, rng, podAnn, goneNode, goneNet)
			after.EndRestore()
			now, err := after.Plan(zone)
			if err != nil {
				t.Fatal(err)
			}
			changes, _, err := nb.Sync(ctx, now)
			if err != nil {
				t.Fatal(err)
			}
			if len(changes) == 0 {
				t.Fatal("the restart removes nothing of the deleted node and network")
			}
			for _, ch := range changes {
				text := topology.Render(ch.Object)
				if ch.Old != nil {
					text += " " + topology.Render(ch.Old)
				}
				owner := ch.Object.OwnedBy()
				gone := owner.Network == goneNet || owner.Node == goneNode || strings.Contains(text, "blue.l3") || strings.Contains(text, goneNet) ||
					strings.Contains(text, "10.128.") || strings.Contains(text, goneNode) || strings.Contains(text, "chassis-3")
				if ch.Op != topology.OpDelete && !(ch.Op == topology.OpUpdate && gone) || !gone {
					t.Errorf("the restarted Sync writes what is not the deleted node's or network's: %v", ch)
				}
			}
			if err := env.Sync(ctx); err != nil {
				t.Fatal(err)
			}
			if again, _, err := nb.Sync(ctx, now); err != nil || len(again) != 0 {
				t.Fatalf("a second Sync: %v %v", again, err)
			}
		})
	}
}

// TestRealClusterEvents applies a controller's life as events to a real
// NB: each event's changes (PlanEvent) applied alone leave the database
// holding the zone's full plan (a Sync of Plan then writes nothing), and
// northd compiles every step without a warning (no tunnel key, address or
// port requested twice).
func TestRealClusterEvents(t *testing.T) {
	env := ovntest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	nb, err := ovnnb.Dial(ctx, ovnnb.Config{Endpoints: []string{env.NBUnix}, Monitor: true})
	if err != nil {
		t.Fatal(err)
	}
	defer nb.Close()
	rc := newRealCluster(t)
	nodes := ovntest.Nodes(6, "")
	c, err := udnkit.New(udnkit.Config{Nodes: nodes[:3]})
	if err != nil {
		t.Fatal(err)
	}
	for _, spec := range rc.udns[:2] {
		if _, err := c.AddUDN(rc.udn(spec)); err != nil {
			t.Fatal(err)
		}
	}
	const zone = "node1"
	desired, err := c.Plan(zone)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := nb.Sync(ctx, desired); err != nil {
		t.Fatal(err)
	}
	bootstrapping := nodes[4]
	bootstrapping.Chassis = ""
	steps := []struct {
		what string
		do   func() (udnkit.Event, error)
	}{
		{"node4 joins", func() (udnkit.Event, error) { return c.SetNode(nodes[3]) }},
		{"node5 bootstraps", func() (udnkit.Event, error) { return c.SetNode(bootstrapping) }},
		{"node5 is ready", func() (udnkit.Event, error) { return c.SetNode(nodes[4]) }},
		{"a Layer2 primary in shop", func() (udnkit.Event, error) {
			_, ev, err := c.SetUDN(rc.udn("shop/front/Layer2/Primary/10.130.0.0/16"))
			return ev, err
		}},
		{"a second primary in shop (linked)", func() (udnkit.Event, error) {
			_, ev, err := c.SetUDN(rc.udn("shop/back/Layer3/Primary/10.132.0.0/16/24"))
			return ev, err
		}},
		{"a connect", func() (udnkit.Event, error) { _, ev, err := c.SetConnect(rc.cnc); return ev, err }},
		{"a pod on node1", func() (udnkit.Event, error) {
			return c.SetPod(udnkit.Pod{Pod: pods.Pod{Namespace: "green", Name: "p1", UID: "u1", Node: "node1"}})
		}},
		{"a pod on node4", func() (udnkit.Event, error) {
			return c.SetPod(udnkit.Pod{Pod: pods.Pod{Namespace: "shop", Name: "p2", UID: "u2", Node: "node4"}})
		}},
		{"a Service", func() (udnkit.Event, error) {
			return c.SetService(services.Service{Namespace: "shop", Name: "web", ClusterIPs: []netip.Addr{netip.MustParseAddr("10.96.0.9")},
				Ports: []services.Port{{Name: "http", Protocol: services.ProtocolTCP, Port: 80, NodePort: 30080}}})
		}},
		{"a network policy in shop, on both its primaries", func() (udnkit.Event, error) {
			return c.SetNetworkPolicy(policy.Policy{Namespace: "shop", Name: "deny-but-web",
				PodSelector: policy.Selector{MatchLabels: policy.Labels{"app": "db"}},
				Ingress:     []policy.Rule{{Peers: []policy.Peer{{PodSelector: &policy.Selector{MatchLabels: policy.Labels{"app": "web"}}}}}}})
		}},
		{"the pod on node4 relabelled into the policy", func() (udnkit.Event, error) {
			return c.SetPod(udnkit.Pod{Pod: pods.Pod{Namespace: "shop", Name: "p2", UID: "u2", Node: "node4"}, Labels: map[string]string{"app": "db"}})
		}},
		{"node2 leaves", func() (udnkit.Event, error) { return c.RemoveNode("node2"), nil }},
		{"the pod on node4 goes", func() (udnkit.Event, error) { return c.RemovePod("shop", "p2"), nil }},
		{"the Layer2 network goes", func() (udnkit.Event, error) { return c.Remove("green_l2"), nil }},
		{"the connect goes", func() (udnkit.Event, error) { return c.RemoveConnect("cnc0"), nil }},
		{"node6 joins", func() (udnkit.Event, error) { return c.SetNode(nodes[5]) }},
	}
	for _, step := range steps {
		ev, err := step.do()
		if err != nil {
			t.Fatalf("%s: %v", step.what, err)
		}
		changes, err := c.PlanEvent(zone, ev)
		if err != nil {
			t.Fatalf("%s: %v", step.what, err)
		}
		if _, err := nb.Apply(ctx, changes); err != nil {
			t.Fatalf("%s: applying its %d changes: %v", step.what, len(changes), err)
		}
		if err := env.Sync(ctx); err != nil {
			t.Fatal(err)
		}
		full, err := c.Plan(zone)
		if err != nil {
			t.Fatal(err)
		}
		if missed, _, err := nb.Sync(ctx, full); err != nil || len(missed) != 0 {
			t.Fatalf("%s: after its %d changes the database differs from the plan (%v):\n%v", step.what, len(changes), err, missed)
		}
	}
}

// BenchmarkRealClusterNodeJoin is the system issue's figure: a node joins
// (and, every other iteration, leaves) a cluster of primary Layer3
// networks × 100 nodes, interconnect, zone node1 held by a real NB with
// ovn-northd running; one iteration is the facade event (SetNode or
// RemoveNode), its changes (PlanEvent) and their Apply through the
// monitored ovnnb client. Sizes: UDNKIT_BENCH_NETWORKS (default 100).
func BenchmarkRealClusterNodeJoin(b *testing.B) {
	networks := 100
	if n, err := strconv.Atoi(os.Getenv("UDNKIT_BENCH_NETWORKS")); err == nil && n > 0 {
		networks = n
	}
	env := ovntest.Start(b)
	// 100 nodes' unknown chassis are warned about more often than northd's
	// log allows (the tests check each message; a benchmark does not).
	env.AllowNorthd(regexp.MustCompile(`Dropped \d+ log messages in last \d+ seconds .*due to excessive rate`))
	ctx := context.Background()
	nb, err := ovnnb.Dial(ctx, ovnnb.Config{Endpoints: []string{env.NBUnix}, Monitor: true, Timeout: 10 * time.Minute})
	if err != nil {
		b.Fatal(err)
	}
	defer nb.Close()
	nodes := ovntest.Nodes(101, "")
	c, err := udnkit.New(udnkit.Config{Nodes: nodes[:100]})
	if err != nil {
		b.Fatal(err)
	}
	for i := range networks {
		u, err := netconf.DecodeUDN([]byte(fmt.Sprintf("kind: UserDefinedNetwork\nmetadata: {name: net, namespace: ns%d}\nspec: {topology: Layer3, role: Primary, subnets: [\"10.%d.%d.0/20/27\"]}",
			i, 100+i/16, (i%16)*16)))
		if err != nil {
			b.Fatal(err)
		}
		if _, err := c.AddUDN(u); err != nil {
			b.Fatal(err)
		}
	}
	desired, err := c.Plan("node1")
	if err != nil {
		b.Fatal(err)
	}
	if _, _, err := nb.Sync(ctx, desired); err != nil {
		b.Fatal(err)
	}
	// The monitor catches up with the Sync (its update, the first index)
	// before the clock starts: that is not an event's cost.
	if _, err := nb.Observe(ctx); err != nil {
		b.Fatal(err)
	}
	var planned, applied time.Duration
	changes := 0
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		start := time.Now()
		var ev udnkit.Event
		if i%2 == 0 {
			ev, err = c.SetNode(nodes[100])
		} else {
			ev = c.RemoveNode(nodes[100].Name)
		}
		if err != nil {
			b.Fatal(err)
		}
		ch, err := c.PlanEvent("node1", ev)
		if err != nil {
			b.Fatal(err)
		}
		mid := time.Now()
		if _, err := nb.Apply(ctx, ch); err != nil {
			b.Fatal(err)
		}
		planned += mid.Sub(start)
		applied += time.Since(mid)
		changes = len(ch)
	}
	b.ReportMetric(float64(changes), "changes/event")
	b.ReportMetric(float64(desired.Len()), "objects")
	b.ReportMetric(float64(planned.Microseconds())/float64(b.N)/1000, "plan-ms/op")
	b.ReportMetric(float64(applied.Microseconds())/float64(b.N)/1000, "apply-ms/op")
}
