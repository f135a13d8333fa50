package udnkit

import (
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"testing"

	"github.com/udnkit/udnkit/flows"
	"github.com/udnkit/udnkit/netconf"
	"github.com/udnkit/udnkit/topology"
	"github.com/udnkit/udnkit/topology/egressip"
	"github.com/udnkit/udnkit/topology/egressqos"
	"github.com/udnkit/udnkit/topology/pods"
)

// egressCluster is three nodes (each its own zone), node2 and node3
// egress-assignable, a primary Layer3 UDN in namespace tenant, and the
// EgressIP "web" (172.18.0.100, pods app=web of namespaces team=a).
func egressCluster(t testing.TB) *Cluster {
	t.Helper()
	c, err := New(Config{Nodes: []topology.Node{testNode("node1", 0), testNode("node2", 0), testNode("node3", 0)}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.SetNamespace(netconf.Namespace{Name: "tenant", Labels: map[string]string{"team": "a"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.AddUDN(udnDoc("tenant", "blue", "Layer3", "Primary", "10.128.0.0/16/24")); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"node2", "node3"} {
		if _, err := c.SetEgressAssignable(n, true); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.SetEgressIP(webEgressIP()); err != nil {
		t.Fatal(err)
	}
	return c
}

func webEgressIP() egressip.EgressIP {
	return egressip.EgressIP{Name: "web", IPs: []netip.Addr{netip.MustParseAddr("172.18.0.100")},
		NamespaceSelector: egressip.Selector{Requirements: []egressip.Requirement{{Key: "team", Op: egressip.OpIn, Values: []string{"a"}}}},
		PodSelector:       egressip.Selector{Requirements: []egressip.Requirement{{Key: "app", Op: egressip.OpIn, Values: []string{"web"}}}}}
}

func setPod(t testing.TB, c *Cluster, ns, name, node, app string) Event {
	t.Helper()
	ev, err := c.SetPod(Pod{Pod: pods.Pod{Namespace: ns, Name: name, UID: "uid-" + name, Node: node}, Labels: map[string]string{"app": app}})
	if err != nil {
		t.Fatal(err)
	}
	return ev
}

// podIP returns the pod's address on its primary network.
func podIP(t testing.TB, c *Cluster, ns, name string) netip.Addr {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.pods[ns+"/"+name]
	for _, a := range e.atts {
		if a.Role == "primary" {
			return a.IPs[0].Addr()
		}
	}
	t.Fatalf("pod %s/%s has no primary address", ns, name)
	return netip.Addr{}
}

// policiesOf returns the zone's EgressIP policies rendered, sorted.
func policiesOf(s topology.State) []string {
	var out []string
	for _, o := range s.ObjectsOf(topology.KindPolicy) {
		if o.OwnedBy().Controller == egressip.Controller {
			p := o.(topology.Policy)
			out = append(out, fmt.Sprintf("%s %d %s %v", p.Router, p.Priority, p.Match, p.Nexthops))
		}
	}
	slices.Sort(out)
	return out
}

// TestClusterEgressIP: an EgressIP through the Cluster gets a mark from
// 50000 and a node (egress-assignable, the IP in its subnet), and the
// zone of a selected pod holds its reroute to that node's transit-switch
// address with the mark, the served set with its address, and the
// reply-marking QoS row; an unselected pod has no row.
func TestClusterEgressIP(t *testing.T) {
	c := egressCluster(t)
	setPod(t, c, "tenant", "web-0", "node1", "web")
	setPod(t, c, "tenant", "db-0", "node1", "db")
	st, ok := c.EgressIPStatus("web")
	if !ok || st.Mark != egressip.MarkFirst || len(st.Items) != 1 || st.Items[0].Node != "node2" || len(st.Unassigned) != 0 {
		t.Fatalf("status %+v", st)
	}
	plan, err := c.Plan("node1")
	if err != nil {
		t.Fatal(err)
	}
	web, db := podIP(t, c, "tenant", "web-0"), podIP(t, c, "tenant", "db-0")
	n, _ := c.Network("tenant_blue")
	hop := "100.88.0." + fmt.Sprint(c.nodes["node2"].ID) // node2's transit switch port
	want := fmt.Sprintf("%sovn_cluster_router 100 ip4.src == %s [%s]", n.Prefix(), web, hop)
	got := policiesOf(plan)
	if !slices.Contains(got, want) || slices.ContainsFunc(got, func(s string) bool { return strings.Contains(s, db.String()+" ") }) {
		t.Fatalf("policies:\n%s\nwant one %q and none of %s", strings.Join(got, "\n"), want, db)
	}
	served, ok := plan.Get(topology.KindAddressSet, egressip.AddressSetName(egressip.SetServedPods, n.Name, true))
	if !ok || len(served.(topology.AddressSet).Addresses) != 1 || served.(topology.AddressSet).Addresses[0].Addr() != web {
		t.Fatalf("served set %v", served)
	}
	var reply []topology.QoS
	for _, o := range plan.ObjectsOf(topology.KindQoS) {
		reply = append(reply, o.(topology.QoS))
	}
	if len(reply) != 1 || reply[0].Switch != n.Prefix()+"node1" || reply[0].Priority != egressip.PriorityReplyQoS {
		t.Fatalf("reply QoS rows %v", reply)
	}
	if ann := c.Annotations().EgressIPs; len(ann) != 1 || ann[0].Annotations[egressip.AnnotationMark] != "50000" {
		t.Fatalf("annotations %+v", ann)
	}
}

// TestClusterEgressIPStatus: the status outcomes a controller writes
// back: an IP outside every egress node's subnet, a node's own address,
// no egress node at all, two IPs on one node's subnet of which one has no
// second node; each with its reason, and the mark of a second EgressIP.
func TestClusterEgressIPStatus(t *testing.T) {
	c := egressCluster(t)
	own := c.nodes["node3"].Addresses[0].Addr()
	for _, tc := range []struct {
		name string
		ips  []string
		want string // items, then unassigned
	}{
		{"outside", []string{"192.0.2.1"}, "[] [b 192.0.2.1: NoMatchingSubnet]"},
		{"node IP", []string{own.String()}, "[] [b " + own.String() + ": NodeIP]"},
		{"three IPs, two nodes", []string{"172.18.0.101", "172.18.0.102", "172.18.0.103"}, "[node3=172.18.0.101 node2=172.18.0.102] [b 172.18.0.103: NodesTaken]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := egressip.EgressIP{Name: "b"}
			for _, s := range tc.ips {
				e.IPs = append(e.IPs, netip.MustParseAddr(s))
			}
			if _, err := c.SetEgressIP(e); err != nil {
				t.Fatal(err)
			}
			st, _ := c.EgressIPStatus("b")
			if got := fmt.Sprint(st.Items, " ", st.Unassigned); got != tc.want {
				t.Errorf("status %s, want %s", got, tc.want)
			}
			if st.Mark != egressip.MarkFirst+1 {
				t.Errorf("mark %d, want %d", st.Mark, egressip.MarkFirst+1)
			}
		})
	}
	// No egress node left: every IP says so.
	for _, n := range []string{"node2", "node3"} {
		if _, err := c.SetEgressAssignable(n, false); err != nil {
			t.Fatal(err)
		}
	}
	if st, _ := c.EgressIPStatus("web"); len(st.Items) != 0 || fmt.Sprint(st.Unassigned) != "[web 172.18.0.100: NoEgressNode]" {
		t.Errorf("without egress nodes: %+v", st)
	}
	if _, err := c.SetEgressIP(egressip.EgressIP{Name: "dup", IPs: []netip.Addr{netip.MustParseAddr("172.18.0.5"), netip.MustParseAddr("172.18.0.5")}}); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "egress IP dup: spec.egressIPs[1]") {
		t.Errorf("an IP twice: %v", err)
	}
	if _, err := c.SetEgressIP(egressip.EgressIP{Name: "mapped", IPs: []netip.Addr{netip.MustParseAddr("::ffff:172.18.0.5")}}); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "egress IP mapped: spec.egressIPs[0]") {
		t.Errorf("an IPv4-mapped IPv6 address (assigned and planned as it was): %v", err)
	}
}

// TestClusterEgressIPRestore: the marks go to the EgressIPs' annotations
// and come back through Restore (a restarted Cluster hands an EgressIP
// the mark it had, whatever the order); a mark two EgressIPs claim is
// refused naming both; EndRestore frees the mark of one never set again.
func TestClusterEgressIPRestore(t *testing.T) {
	c := egressCluster(t)
	for i, n := range []string{"a", "b"} {
		if _, err := c.SetEgressIP(egressip.EgressIP{Name: n, IPs: []netip.Addr{netip.AddrFrom4([4]byte{172, 18, 0, byte(111 + i)})}}); err != nil {
			t.Fatal(err)
		}
	}
	stored := c.Annotations()
	if got := fmt.Sprint(stored.EgressIPs); got != "[{ a map[k8s.ovn.org/egressip-mark:50001]} { b map[k8s.ovn.org/egressip-mark:50002]} { web map[k8s.ovn.org/egressip-mark:50000]}]" {
		t.Fatalf("annotations %s", got)
	}
	r, err := New(Config{Nodes: c.Nodes()})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Restore(stored); err != nil {
		t.Fatal(err)
	}
	// Set in another order, "new" first: it must not take a stored mark.
	if _, err := r.SetEgressIP(egressip.EgressIP{Name: "new", IPs: []netip.Addr{netip.MustParseAddr("172.18.0.120")}}); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"b", "web"} {
		if _, err := r.SetEgressIP(egressip.EgressIP{Name: n}); err != nil {
			t.Fatal(err)
		}
	}
	if freed := r.EndRestore(); !slices.Contains(freed, "EgressIP a") || slices.ContainsFunc(freed, func(f string) bool { return f == "EgressIP b" || f == "EgressIP web" }) {
		t.Errorf("EndRestore freed %v", freed)
	}
	if got := fmt.Sprint(r.Annotations().EgressIPs); got != "[{ b map[k8s.ovn.org/egressip-mark:50002]} { new map[k8s.ovn.org/egressip-mark:50003]} { web map[k8s.ovn.org/egressip-mark:50000]}]" {
		t.Errorf("after the restart: %s", got)
	}
	bad := Stored{EgressIPs: []Object{{Name: "x", Annotations: map[string]string{egressip.AnnotationMark: "50000"}}, {Name: "y", Annotations: map[string]string{egressip.AnnotationMark: "50000"}}}}
	r2, _ := New(Config{})
	if err := r2.Restore(bad); !errors.Is(err, ErrConflict) || !strings.Contains(err.Error(), `"y"`) || !strings.Contains(err.Error(), `"x"`) {
		t.Errorf("one mark for two: %v", err)
	}
	r3, _ := New(Config{})
	if err := r3.Restore(Stored{EgressIPs: []Object{{Name: "x", Annotations: map[string]string{egressip.AnnotationMark: "60000"}}}}); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "EgressIP x") {
		t.Errorf("a mark out of range: %v", err)
	}
}

// TestClusterEgressFailover: removing the egress node moves the IP to the
// other egress node, and the zone's changes are the removed node's own
// rows and the reroutes of the pods that EgressIP serves, nothing else;
// the result is the plan from scratch.
func TestClusterEgressFailover(t *testing.T) {
	c := egressCluster(t)
	for i := range 4 {
		setPod(t, c, "tenant", fmt.Sprint("web-", i), "node1", "web")
		setPod(t, c, "tenant", fmt.Sprint("db-", i), "node1", "db")
	}
	prev, err := c.Plan("node1")
	if err != nil {
		t.Fatal(err)
	}
	ev := c.RemoveNode("node2")
	if st, _ := c.EgressIPStatus("web"); len(st.Items) != 1 || st.Items[0].Node != "node3" {
		t.Fatalf("after node2 left: %+v", st)
	}
	changes, err := c.PlanEvent("node1", ev)
	if err != nil {
		t.Fatal(err)
	}
	reroutes := 0
	for _, ch := range changes {
		o := ch.Object
		own := o.OwnedBy()
		switch {
		case own.Node == "node2":
		case own.Controller == egressip.Controller && ch.Op == topology.OpUpdate && o.Kind() == topology.KindPolicy &&
			o.(topology.Policy).Priority == egressip.PriorityReroute:
			reroutes++
			if hop := o.(topology.Policy).Nexthops; len(hop) != 1 || hop[0] != netip.MustParseAddr("100.88.0."+fmt.Sprint(c.nodes["node3"].ID)) {
				t.Errorf("reroute to %v, want node3's transit address", hop)
			}
		case own.Controller == egressip.Controller && o.Kind() == topology.KindAddressSet:
			// the node-ips set loses node2's address
			if !strings.Contains(topology.Render(o), "addresses=") || ch.Op != topology.OpUpdate {
				t.Errorf("set change %v", ch)
			}
		default:
			t.Errorf("a change beyond node2's rows and the reroutes: %v", ch)
		}
	}
	if reroutes != 4 {
		t.Errorf("%d reroutes changed, want the 4 of the web pods:\n%v", reroutes, changes)
	}
	next, err := topology.Apply(prev, changes)
	if err != nil {
		t.Fatal(err)
	}
	want, err := c.fresh("node1")
	if err != nil {
		t.Fatal(err)
	}
	if d := topology.Diff(next, want); len(d) > 0 {
		t.Fatalf("the event's result differs from the plan from scratch:\n%v", d)
	}
}

// TestClusterEgressPodEvent: a pod's change gives that pod's egress rows
// only (its reroute, its address in the served set, its EgressQoS set),
// whatever the number of other pods; the result is the plan from scratch.
func TestClusterEgressPodEvent(t *testing.T) {
	c := egressCluster(t)
	if _, err := c.SetEgressQoS(egressqos.EgressQoS{Namespace: "tenant", Rules: []egressqos.Rule{{DSCP: 46}}}); err != nil {
		t.Fatal(err)
	}
	for i := range 50 {
		setPod(t, c, "tenant", fmt.Sprint("web-", i), []string{"node1", "node2"}[i%2], "web")
	}
	prev, err := c.Plan("node1")
	if err != nil {
		t.Fatal(err)
	}
	check := func(what string, ev Event, want map[string]int) {
		t.Helper()
		changes, err := c.PlanEvent("node1", ev)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]int{}
		for _, ch := range changes {
			got[ch.Object.OwnedBy().Controller.String()+" "+ch.Op.String()+" "+ch.Kind.String()]++
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s: changes %v, want %v:\n%v", what, got, want, changes)
		}
		next, err := topology.Apply(prev, changes)
		if err != nil {
			t.Fatal(err)
		}
		fresh, err := c.fresh("node1")
		if err != nil {
			t.Fatal(err)
		}
		if d := topology.Diff(next, fresh); len(d) > 0 {
			t.Fatalf("%s: differs from the plan from scratch:\n%v", what, d)
		}
		prev = next
	}
	check("a selected pod joins node1", setPod(t, c, "tenant", "web-new", "node1", "web"), map[string]int{
		"udnkit-pods create switch_port":      1,
		"udnkit-policy update port_group":     1, // the network's cluster port group (policy)
		"udnkit-egressip create policy":       1,
		"udnkit-egressip update address_set":  1,
		"udnkit-egressqos update address_set": 1,
	})
	check("it stops being selected", setPod(t, c, "tenant", "web-new", "node1", "db"), map[string]int{
		"udnkit-egressip delete policy":      1,
		"udnkit-egressip update address_set": 1,
	})
	check("a remote pod joins", setPod(t, c, "tenant", "web-far", "node3", "web"), map[string]int{})
	check("it goes", c.RemovePod("tenant", "web-new"), map[string]int{
		"udnkit-pods delete switch_port":      1,
		"udnkit-policy update port_group":     1,
		"udnkit-egressqos update address_set": 1,
	})
}

// TestClusterEgressQoS: an EgressQoS through the Cluster marks its
// namespace's pods on every primary network of the namespace (seed 002:
// a UDN and a CUDN), and its removal removes the rows; an invalid one is
// refused naming the field.
func TestClusterEgressQoS(t *testing.T) {
	c := egressCluster(t)
	if _, err := c.SetNamespace(netconf.Namespace{Name: "tenant", Labels: map[string]string{"team": "a", "tier": "t0"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.AddCUDN(cudnDoc("red", "t0", "Layer2", "10.200.0.0/16")); err != nil {
		t.Fatal(err)
	}
	if _, err := c.SetEgressQoS(egressqos.EgressQoS{Namespace: "tenant", Rules: []egressqos.Rule{{DSCP: 64}}}); !errors.Is(err, egressqos.ErrInvalid) || !strings.Contains(err.Error(), "spec.egress[0].dscp") {
		t.Fatalf("dscp 64: %v", err)
	}
	ev, err := c.SetEgressQoS(egressqos.EgressQoS{Namespace: "tenant", Rules: []egressqos.Rule{{DSCP: 46, DstCIDR: netip.MustParsePrefix("203.0.113.0/24")}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Plan("node1"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.PlanEvent("node1", ev); err != nil {
		t.Fatal(err)
	}
	plan, err := c.fresh("node1")
	if err != nil {
		t.Fatal(err)
	}
	var rows []string
	for _, o := range plan.ObjectsOf(topology.KindQoS) {
		if q := o.(topology.QoS); q.Owner.Controller == egressqos.Controller {
			rows = append(rows, q.Switch+" "+q.Action.String())
		}
	}
	slices.Sort(rows)
	red, _ := c.Network("cluster_udn_red")
	blue, _ := c.Network("tenant_blue")
	if want := fmt.Sprintf("[%sovn_layer2_switch {dscp=46} %snode1 {dscp=46}]", red.Prefix(), blue.Prefix()); fmt.Sprint(rows) != want {
		t.Errorf("rows %v, want %s", rows, want)
	}
	if !c.EgressQoSPlanned("tenant", "node1") || c.EgressQoSPlanned("other", "node1") {
		t.Error("EgressQoSPlanned")
	}
	// A changed EgressQoS is planned once its event is, not before.
	ev, err = c.SetEgressQoS(egressqos.EgressQoS{Namespace: "tenant", Rules: []egressqos.Rule{{DSCP: 10}}})
	if err != nil {
		t.Fatal(err)
	}
	if c.EgressQoSPlanned("tenant", "node1") {
		t.Error("EgressQoSPlanned before the change's event was planned")
	}
	if _, err := c.PlanEvent("node1", ev); err != nil {
		t.Fatal(err)
	}
	if !c.EgressQoSPlanned("tenant", "node1") || c.EgressQoSPlanned("tenant", "node2") {
		t.Error("EgressQoSPlanned after the change's event (node1), or in a zone never planned (node2)")
	}
	ch, err := c.PlanEvent("node1", c.RemoveEgressQoS("tenant"))
	if err != nil {
		t.Fatal(err)
	}
	if cr, up, del := ch.Count(); cr != 0 || up != 0 || del != 4 { // two rows and two sets
		t.Errorf("removal: %d creates, %d updates, %d deletes:\n%v", cr, up, del, ch)
	}
}

// FuzzRestoreEgressMarks: whatever two EgressIPs' mark annotations hold,
// Restore refuses them (invalid or conflicting, naming the EgressIP) or
// takes them, and then the EgressIPs set again get exactly those marks
// and Annotations writes them back as read.
func FuzzRestoreEgressMarks(f *testing.F) {
	f.Add("50000", "50001")
	f.Add("50000", "50000")
	f.Add("54999", "x")
	f.Add("049999", " 50000")
	f.Fuzz(func(t *testing.T, a, b string) {
		c, err := New(Config{})
		if err != nil {
			t.Fatal(err)
		}
		st := Stored{EgressIPs: []Object{{Name: "a", Annotations: map[string]string{egressip.AnnotationMark: a}},
			{Name: "b", Annotations: map[string]string{egressip.AnnotationMark: b}}}}
		if err := c.Restore(st); err != nil {
			if !errors.Is(err, ErrInvalid) && !errors.Is(err, ErrConflict) || !strings.Contains(err.Error(), "EgressIP ") {
				t.Fatalf("Restore(%q, %q): %v", a, b, err)
			}
			return
		}
		for _, n := range []string{"b", "a"} {
			if _, err := c.SetEgressIP(egressip.EgressIP{Name: n}); err != nil {
				t.Fatal(err)
			}
		}
		got := c.Annotations().EgressIPs
		for i, want := range []string{a, b} {
			m, _ := egressip.ParseMark(want)
			if got[i].Annotations[egressip.AnnotationMark] != egressip.FormatMark(m) {
				t.Fatalf("restored %q, %q; annotations %v", a, b, got)
			}
		}
	})
}

// TestClusterEgressPlanNode: the egress node's PlanNode holds the SNAT
// flow of the EgressIP's mark to its IP on the network's patch port, and
// lists the IP for its gateway bridge; another node has neither; after a
// failover the new node has them.
func TestClusterEgressPlanNode(t *testing.T) {
	c := egressCluster(t)
	n, _ := c.Network("tenant_blue")
	local := NodeLocal{Uplink: flows.Port{Name: "eth0", OFPort: 1}, DefaultPatchOFPort: 2, PatchOFPorts: map[string]int{n.Name: 3}}
	snat := "pkt_mark=50000,actions=ct(commit,zone=64000,nat(src=172.18.0.100)"
	check := func(node string, egress bool) {
		t.Helper()
		plan, err := c.PlanNode(node, local)
		if err != nil {
			t.Fatal(err)
		}
		text := flows.Text(plan.Flows)
		if got := strings.Contains(text, "priority=105,in_port=3,") && strings.Contains(text, snat); got != egress {
			t.Errorf("%s: SNAT flow of the egress IP: %v, want %v:\n%s", node, got, egress, text)
		}
		if got := egressip.FormatBridgeIPs(plan.BridgeEgressIPs); (got == `["172.18.0.100"]`) != egress {
			t.Errorf("%s: bridge egress IPs %s", node, got)
		}
		var onBridge []string
		for _, a := range plan.Kernel.Addresses {
			onBridge = append(onBridge, a.Dev+" "+a.Addr.String())
		}
		if got := strings.Join(onBridge, ","); (got == "breth0 172.18.0.100") != egress || !egress && got != "" {
			t.Errorf("%s: the kernel plan puts %q on the bridge", node, got)
		}
		// Served pods' traffic to node IPs (pkt_mark 0x3f0) is SNATed to
		// the node's own address on every node.
		if !strings.Contains(text, "pkt_mark=0x3f0,actions=ct(commit,zone=64000,nat(src="+c.Nodes()[0].Addresses[0].Addr().String()) && node == "node1" {
			t.Errorf("%s: no node-IP SNAT flow:\n%s", node, text)
		}
	}
	check("node2", true)
	check("node1", false)
	c.RemoveNode("node2")
	check("node3", true)
}

// TestClusterEgressLayer2RemoteNode: on a Layer2 network zone node1 (an
// egress node) reroutes node2's served pod; node2 changing (its chassis)
// or leaving gives changes that apply to the previous plan and give the
// plan from scratch (the pod's reroute is node2's row in node1's zone).
func TestClusterEgressLayer2RemoteNode(t *testing.T) {
	c, err := New(Config{Nodes: []topology.Node{testNode("node1", 0), testNode("node2", 0)}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.SetNamespace(netconf.Namespace{Name: "tenant", Labels: map[string]string{"team": "a"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.AddUDN(udnDoc("tenant", "red", "Layer2", "Primary", "10.200.0.0/16")); err != nil {
		t.Fatal(err)
	}
	if _, err := c.SetEgressAssignable("node1", true); err != nil {
		t.Fatal(err)
	}
	if _, err := c.SetEgressIP(webEgressIP()); err != nil {
		t.Fatal(err)
	}
	setPod(t, c, "tenant", "web-0", "node2", "web")
	prev, err := c.Plan("node1")
	if err != nil {
		t.Fatal(err)
	}
	if got := policiesOf(prev); !slices.ContainsFunc(got, func(s string) bool {
		return strings.Contains(s, " 100 ip4.src == "+podIP(t, c, "tenant", "web-0").String())
	}) {
		t.Fatalf("no reroute of the remote pod:\n%s", strings.Join(got, "\n"))
	}
	nd := c.Nodes()[1]
	nd.Chassis = "chassis-node2-new"
	for _, event := range []func() (Event, error){
		func() (Event, error) { return c.SetNode(nd) },
		func() (Event, error) { return c.RemoveNode("node2"), nil },
	} {
		ev, err := event()
		if err != nil {
			t.Fatal(err)
		}
		changes, err := c.PlanEvent("node1", ev)
		if err != nil {
			t.Fatal(err)
		}
		next, err := topology.Apply(prev, changes)
		if err != nil {
			t.Fatalf("%v: the changes do not apply: %v\n%v", ev.Kind, err, changes)
		}
		want, err := c.fresh("node1")
		if err != nil {
			t.Fatal(err)
		}
		if d := topology.Diff(next, want); len(d) > 0 {
			t.Fatalf("%v: differs from the plan from scratch:\n%v", ev.Kind, d)
		}
		prev = next
	}
}
