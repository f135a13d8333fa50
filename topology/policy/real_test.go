package policy_test

import (
	"context"
	"fmt"
	"net/netip"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/udnkit/udnkit/backend/ovnnb"
	"github.com/udnkit/udnkit/internal/ovntest"
	"github.com/udnkit/udnkit/ipam"
	"github.com/udnkit/udnkit/netconf"
	"github.com/udnkit/udnkit/netconf/udn"
	"github.com/udnkit/udnkit/topology"
	"github.com/udnkit/udnkit/topology/pods"
	"github.com/udnkit/udnkit/topology/policy"
)

var realOutRE = regexp.MustCompile(`output to "([^"]+)"`)

// realPod is a pod the real test attaches with the pods planner.
type realPod struct {
	ns, name, node string
	network        *udn.Network
	nad            string
	labels         policy.Labels
	ports          []policy.ContainerPort
	planned        pods.Planned
}

func (p *realPod) port() topology.SwitchPort { return p.planned.Ports[0] }
func (p *realPod) ip() netip.Addr            { return p.planned.Annotation[p.nad].IPs[0].Addr() }
func (p *realPod) mac() string               { return p.planned.Annotation[p.nad].MAC.String() }
func (p *realPod) gwMAC() string {
	return ipam.MACFromIP(p.planned.Annotation[p.nad].Gateways[0]).String()
}

// TestRealPolicy applies two overlapping primary Layer3 networks on three
// nodes of one zone, their pods (planned by the pods planner) and
// ns1's network policies to a real NB, and lets ovn-trace referee new
// connections and replies: default deny in both directions, allow by pod
// selector (on its port only), by namespace selector, by ipBlock with
// except, by named port, the management port's traffic, replies of
// allowed connections; the other network's pod with the same address is
// never reached. Any northd warning fails the test (ovntest).
func TestRealPolicy(t *testing.T) {
	env := ovntest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cl, err := ovnnb.Dial(ctx, ovnnb.Config{Endpoints: []string{env.NBUnix}})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	nodes := ovntest.Nodes(3, "zone1")
	blue := ovntest.Layer3Network()
	red := ovntest.Layer3Network()
	red.Name, red.ID = "ns2_red", 2
	inputs := map[string]topology.Input{}
	for _, n := range []*udn.Network{blue, red} {
		in := ovntest.PlanInput(n, nodes, "zone1")
		inputs[n.Name] = in
		s, err := topology.Plan(in)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := cl.Sync(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	alloc := map[string]*ipam.PodIPAllocator{}
	mk := func(ns, name, node string, n *udn.Network, nad string, labels policy.Labels, ports ...policy.ContainerPort) *realPod {
		key := n.Name + "/" + node
		if alloc[key] == nil {
			a, err := ipam.NewPodIPAllocator(inputs[n.Name].HostSubnets[node], nil)
			if err != nil {
				t.Fatal(err)
			}
			alloc[key] = a
		}
		ips, err := alloc[key].Allocate()
		if err != nil {
			t.Fatal(err)
		}
		pl, err := pods.PlanPod(pods.Input{Pod: pods.Pod{Namespace: ns, Name: name, UID: "uid-" + name, Node: node},
			Attachments: []pods.Attachment{{Network: n, NAD: nad, Role: netconf.PodRolePrimary, IPs: ips, HostSubnets: inputs[n.Name].HostSubnets[node]}},
			Nodes:       nodes, Zone: "zone1"})
		if err != nil {
			t.Fatal(err)
		}
		ch, err := pods.Changes(pods.Planned{}, pl)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := cl.Apply(ctx, ch); err != nil {
			t.Fatal(err)
		}
		return &realPod{ns: ns, name: name, node: node, network: n, nad: nad, labels: labels, ports: ports, planned: pl}
	}
	web := mk("ns1", "web", "node1", blue, "ns1/blue", policy.Labels{"app": "web"})
	db := mk("ns1", "db", "node1", blue, "ns1/blue", policy.Labels{"app": "db"}, policy.ContainerPort{Name: "postgres", Number: 5432})
	client := mk("ns1", "client", "node2", blue, "ns1/blue", policy.Labels{"app": "client"})
	other := mk("ns3", "other", "node2", blue, "ns3/blue", policy.Labels{"app": "other"})
	twin := mk("ns2", "twin", "node1", red, "ns2/red", policy.Labels{"app": "db"}) // red's first pod on node1: web's address
	if twin.ip() != web.ip() {
		t.Fatalf("the red pod %s does not share an address with a blue pod (%s)", twin.ip(), web.ip())
	}
	all := []*realPod{web, db, client, other, twin}
	in := policy.Input{
		Networks: []policy.Network{
			{Network: blue, Namespaces: []string{"ns1", "ns3"}, HostSubnets: inputs[blue.Name].HostSubnets},
			{Network: red, Namespaces: []string{"ns2"}, HostSubnets: inputs[red.Name].HostSubnets},
		},
		Nodes: nodes, Zone: "zone1", Multicast: true, AllowICMP: true,
		Namespaces: []policy.Namespace{
			{Name: "ns1", Labels: policy.Labels{"team": "a"}, Multicast: true},
			{Name: "ns2", Labels: policy.Labels{"team": "b"}},
			{Name: "ns3", Labels: policy.Labels{"team": "b"}},
		},
		Policies: []policy.Policy{
			{Namespace: "ns1", Name: "deny-all", PolicyTypes: []policy.PolicyType{policy.Ingress, policy.Egress}},
			{Namespace: "ns1", Name: "db-from-web", PodSelector: *sel("app", "db"),
				Ingress: []policy.Rule{{Peers: []policy.Peer{{PodSelector: sel("app", "web")}}, Ports: []policy.Port{{Name: "postgres"}}}}},
			{Namespace: "ns1", Name: "web-from-team-b", PodSelector: *sel("app", "web"),
				Ingress: []policy.Rule{{Peers: []policy.Peer{{NamespaceSelector: sel("team", "b")}}}}},
			{Namespace: "ns1", Name: "web-egress", PodSelector: *sel("app", "web"), Egress: []policy.Rule{
				{Peers: []policy.Peer{{PodSelector: sel("app", "db")}}},
				{Peers: []policy.Peer{{IPBlock: &policy.IPBlock{CIDR: netip.MustParsePrefix("172.16.0.0/12"),
					Except: []netip.Prefix{netip.MustParsePrefix("172.16.5.0/24")}}}}}}},
		},
	}
	for _, p := range all {
		in.Pods = append(in.Pods, policy.Pod{Namespace: p.ns, Name: p.name, Node: p.node, Labels: p.labels, Ports: p.ports,
			Networks: []policy.Attachment{{Network: p.network.Name, Port: p.port().Name, IPs: []netip.Addr{p.ip()}}}})
	}
	planner, err := policy.New(in)
	if err != nil {
		t.Fatal(err)
	}
	desired, err := planner.State()
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := cl.Sync(ctx, desired); err != nil {
		t.Fatal(err)
	}
	if err := env.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if ch, _, err := cl.Sync(ctx, desired); err != nil || len(ch) != 0 {
		t.Fatalf("a second policy sync changes %v (%v)", ch, err)
	}
	// The pods controller's Sync of a node leaves the port groups that
	// hold its ports alone.
	for _, node := range []string{"node1", "node2"} {
		var planned []pods.Planned
		for _, p := range all {
			if p.node == node && p.network == blue {
				planned = append(planned, p.planned)
			}
		}
		s, err := pods.PlanNode(node, []string{blue.Name}, planned)
		if err != nil {
			t.Fatal(err)
		}
		if ch, _, err := cl.Sync(ctx, s); err != nil || len(ch) != 0 {
			t.Fatalf("pods re-sync of %s changes %v (%v)", node, ch, err)
		}
	}
	// The topology's Sync leaves the policy rows (on its switches) alone.
	for _, n := range []*udn.Network{blue, red} {
		s, err := topology.Plan(inputs[n.Name])
		if err != nil {
			t.Fatal(err)
		}
		if ch, _, err := cl.Sync(ctx, s); err != nil || len(ch) != 0 {
			t.Fatalf("%s: topology re-sync changes %v (%v)", n.Name, ch, err)
		}
	}

	ctNew := []string{"--ct=new,trk", "--ct=new,trk", "--ct=new,trk", "--ct=new,trk", "--ct=new,trk", "--ct=new,trk"}
	ctReply := []string{"--ct=est,rpl,trk", "--ct=est,rpl,trk", "--ct=est,rpl,trk", "--ct=est,rpl,trk", "--ct=est,rpl,trk", "--ct=est,rpl,trk"}
	trace := func(from *realPod, src, dst string, l4 string, ct []string) (string, []string) {
		t.Helper()
		match := fmt.Sprintf(`inport == %q && eth.src == %s && eth.dst == %s && ip4.src == %s && ip4.dst == %s && ip.ttl == 64 && %s`,
			from.port().Name, from.mac(), from.gwMAC(), src, dst, l4)
		out, err := env.Trace(ctx, append(slices.Clone(ct), from.port().Switch, match)...)
		if err != nil {
			t.Fatal(err)
		}
		var outs []string
		for _, m := range realOutRE.FindAllStringSubmatch(out, -1) {
			outs = append(outs, m[1])
		}
		return out, outs
	}
	reaches := func(t *testing.T, from, to *realPod, l4 string, ct []string, want bool) {
		t.Helper()
		out, outs := trace(from, from.ip().String(), to.ip().String(), l4, ct)
		if got := slices.Contains(outs, to.port().Name); got != want {
			t.Errorf("%s/%s -> %s/%s (%s, %v): delivered %v, want %v (outputs %v):\n%s", from.ns, from.name, to.ns, to.name, l4, ct[0], got, want, outs, out)
		}
		// The planner's own verdict agrees with ovn-trace on new connections.
		var port int32
		if _, err := fmt.Sscanf(l4, "tcp && tcp.dst == %d", &port); err == nil && ct[0] == ctNew[0] {
			if got := planner.Allows(policy.Endpoint{Namespace: from.ns, Name: from.name}, policy.Endpoint{Namespace: to.ns, Name: to.name}, policy.TCP, port); got != want {
				t.Errorf("Allows(%s/%s -> %s/%s, tcp %d) = %v, ovn-trace says %v", from.ns, from.name, to.ns, to.name, port, got, want)
			}
		}
	}
	const pg5432 = "tcp && tcp.dst == 5432"
	t.Run("allow by pod selector, on the named port only", func(t *testing.T) {
		reaches(t, web, db, pg5432, ctNew, true)
		reaches(t, web, db, "tcp && tcp.dst == 80", ctNew, false)
	})
	t.Run("default deny ingress", func(t *testing.T) {
		reaches(t, other, db, pg5432, ctNew, false)                   // ns3 is free to send; db takes only web
		reaches(t, client, web, "tcp && tcp.dst == 80", ctNew, false) // same namespace, not team b
	})
	t.Run("allow by namespace selector", func(t *testing.T) {
		reaches(t, other, web, "tcp && tcp.dst == 80", ctNew, true)
	})
	t.Run("default deny egress", func(t *testing.T) {
		reaches(t, db, other, "tcp && tcp.dst == 80", ctNew, false)     // ns3 takes anything, db may send nothing
		reaches(t, client, other, "tcp && tcp.dst == 80", ctNew, false) // across nodes too
		reaches(t, other, client, "tcp && tcp.dst == 80", ctNew, false) // and client's ingress
	})
	t.Run("replies pass", func(t *testing.T) {
		// db -> web is a new connection nothing allows; as the reply of web's
		// connection to db it passes.
		reaches(t, db, web, "tcp && tcp.src == 5432", ctNew, false)
		reaches(t, db, web, "tcp && tcp.src == 5432", ctReply, true)
		reaches(t, web, other, "tcp && tcp.src == 80", ctReply, true)
	})
	t.Run("allow by ipBlock with except", func(t *testing.T) {
		leaves := func(dst string) (bool, string) {
			out, _ := trace(web, web.ip().String(), dst, "tcp && tcp.dst == 443", ctNew)
			// Allowed: the packet leaves web's switch for the cluster router.
			return strings.Contains(out, `output to "stor-`) || strings.Contains(out, "ingress(dp=\"ns1_blue_ovn_cluster_router\""), out
		}
		for dst, want := range map[string]bool{"172.16.1.1": true, "172.16.5.1": false, "192.168.1.1": false} {
			if got := planner.Allows(policy.Endpoint{Namespace: "ns1", Name: "web"}, policy.Endpoint{IP: netip.MustParseAddr(dst)}, policy.TCP, 443); got != want {
				t.Errorf("Allows(web -> %s) = %v, want %v", dst, got, want)
			}
		}
		if ok, out := leaves("172.16.1.1"); !ok {
			t.Errorf("web -> 172.16.1.1 (in the block) did not leave the switch:\n%s", out)
		}
		if ok, out := leaves("172.16.5.1"); ok {
			t.Errorf("web -> 172.16.5.1 (excepted) left the switch:\n%s", out)
		}
		if ok, out := leaves("192.168.1.1"); ok {
			t.Errorf("web -> 192.168.1.1 (outside the block) left the switch:\n%s", out)
		}
	})
	t.Run("the management port reaches selected pods", func(t *testing.T) {
		mp := "k8s-" + blue.Prefix() + "node1"
		mgmt := netip.MustParseAddr("10.128.1.2")
		match := fmt.Sprintf(`inport == %q && eth.src == %s && eth.dst == %s && ip4.src == %s && ip4.dst == %s && ip.ttl == 64 && tcp && tcp.dst == 8080`,
			mp, ipam.MACFromIP(mgmt), db.mac(), mgmt, db.ip())
		out, err := env.Trace(ctx, append(slices.Clone(ctNew), db.port().Switch, match)...)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out, `output to "`+db.port().Name+`"`) {
			t.Errorf("management port -> db not delivered:\n%s", out)
		}
	})
	t.Run("the overlapping network stays isolated", func(t *testing.T) {
		// twin (red) has web's address; red has no policy, and blue's
		// pods never see its traffic.
		out, outs := trace(twin, twin.ip().String(), db.ip().String(), pg5432, ctNew)
		if slices.Contains(outs, db.port().Name) || strings.Contains(out, "ns1_blue") {
			t.Errorf("red's twin reached blue (outputs %v):\n%s", outs, out)
		}
	})
	// A relabel through the incremental path: web loses its label, db
	// stops taking it.
	t.Run("incremental relabel", func(t *testing.T) {
		pw := in.Pods[0]
		pw.Labels = policy.Labels{"app": "gone"}
		ch, err := planner.SetPod(pw)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := cl.Apply(ctx, ch); err != nil {
			t.Fatal(err)
		}
		if err := env.Sync(ctx); err != nil {
			t.Fatal(err)
		}
		reaches(t, web, db, pg5432, ctNew, false)
		now, err := planner.State()
		if err != nil {
			t.Fatal(err)
		}
		if ch, _, err := cl.Sync(ctx, now); err != nil || len(ch) != 0 {
			t.Errorf("after the relabel the database differs from the plan: %v (%v)", ch, err)
		}
	})
	// Removing the policy controller's rows removes them all and nothing
	// else: the topology and the pods see no change.
	t.Run("removal", func(t *testing.T) {
		ch, _, err := cl.Sync(ctx, topology.RemovalFor(policy.Controller, blue.Name, red.Name))
		if err != nil {
			t.Fatal(err)
		}
		now, _ := planner.State()
		if _, _, del := ch.Count(); del != now.Len() {
			t.Errorf("removal deleted %d rows, the plan had %d", del, now.Len())
		}
		if err := env.Sync(ctx); err != nil {
			t.Fatal(err)
		}
		for _, n := range []*udn.Network{blue, red} {
			s, _ := topology.Plan(inputs[n.Name])
			if ch, _, err := cl.Sync(ctx, s); err != nil || len(ch) != 0 {
				t.Errorf("%s: topology changes after the policy removal: %v (%v)", n.Name, ch, err)
			}
		}
		// Nothing denies now (the planner still holds the policies: no Allows).
		if out, outs := trace(client, client.ip().String(), web.ip().String(), "tcp && tcp.dst == 80", ctNew); !slices.Contains(outs, web.port().Name) {
			t.Errorf("client -> web not delivered once the policies are gone:\n%s", out)
		}
	})
}
