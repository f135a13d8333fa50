package udnkit

import (
	"errors"
	"net/netip"
	"slices"
	"strings"
	"testing"

	"github.com/udnkit/udnkit/netconf"
	"github.com/udnkit/udnkit/topology"
	"github.com/udnkit/udnkit/topology/pods"
	"github.com/udnkit/udnkit/topology/policy"
)

// TestNamespaceLoggingEvent: a namespace's k8s.ovn.org/acl-logging reaches
// the policy rows through SetNamespace; a change of the annotation alone
// is an event whose changes are that namespace's ACLs (and the meter when
// it is the first to log), not a replan; a bad annotation is refused,
// naming the namespace and key.
func TestNamespaceLoggingEvent(t *testing.T) {
	c, err := New(Config{Nodes: []topology.Node{testNode("node1", 0)}})
	if err != nil {
		t.Fatal(err)
	}
	for _, ns := range []string{"blue", "red"} {
		if _, err := c.SetNamespace(netconf.Namespace{Name: ns, Labels: map[string]string{"team": ns}}); err != nil {
			t.Fatal(err)
		}
		if _, _, err := c.SetUDN(udnDoc(ns, "net", "Layer3", "Primary", "10.100.0.0/16/24")); err != nil {
			t.Fatal(err)
		}
		if _, err := c.SetPod(Pod{Pod: pods.Pod{Namespace: ns, Name: "web", UID: "uid-" + ns, Node: "node1"}, Labels: map[string]string{"app": "web"}}); err != nil {
			t.Fatal(err)
		}
		if _, err := c.SetNetworkPolicy(policy.Policy{Namespace: ns, Name: "np", Ingress: []policy.Rule{{Peers: []policy.Peer{{PodSelector: &policy.Selector{}}}}}}); err != nil {
			t.Fatal(err)
		}
	}
	prev, err := c.Plan("node1")
	if err != nil {
		t.Fatal(err)
	}
	ev, err := c.SetNamespace(netconf.Namespace{Name: "blue", Labels: map[string]string{"team": "blue"},
		Annotations: map[string]string{policy.AnnotationACLLogging: `{"deny":"alert","allow":"notice"}`}})
	if err != nil {
		t.Fatal(err)
	}
	ch, err := c.PlanEvent("node1", ev)
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, x := range ch {
		kinds = append(kinds, x.Op.String()+" "+x.Kind.String())
		switch o := x.Object.(type) {
		case topology.ACL:
			if x.Op != topology.OpUpdate || !strings.HasPrefix(o.Name, "NP:blue:") || o.Owner.Network != "blue_net" || !o.Log {
				t.Errorf("change %s: want a logging update of one of blue's ACLs", x)
			}
		case topology.Meter, topology.MeterBand:
			if x.Op != topology.OpCreate {
				t.Errorf("change %s", x)
			}
		default:
			t.Errorf("change %s is neither blue's ACLs nor the meter", x)
		}
	}
	// blue's default-deny drops (both directions) and its rule ACL, the
	// meter and its band.
	if len(ch) != 5 {
		t.Errorf("changes %q, want 5", kinds)
	}
	next, err := topology.Apply(prev, ch)
	if err != nil {
		t.Fatal(err)
	}
	if want, err := c.fresh("node1"); err != nil || !next.Equal(want) {
		t.Errorf("the event's changes do not give the zone's plan (%v):\n%s", err, topology.Diff(next, want))
	}
	// The same annotation again: no change.
	ev, _ = c.SetNamespace(netconf.Namespace{Name: "blue", Labels: map[string]string{"team": "blue"},
		Annotations: map[string]string{policy.AnnotationACLLogging: `{"deny":"alert","allow":"notice"}`}})
	if ch, err := c.PlanEvent("node1", ev); err != nil || len(ch) != 0 {
		t.Errorf("same annotation: %v (%v)", ch, err)
	}
	_, err = c.SetNamespace(netconf.Namespace{Name: "red", Annotations: map[string]string{policy.AnnotationACLLogging: `{"deny":"loud"}`}})
	if err == nil || !errors.Is(err, policy.ErrInvalid) || !strings.Contains(err.Error(), "namespace red: annotations[k8s.ovn.org/acl-logging].deny") {
		t.Errorf("bad annotation: %v", err)
	}
	if got := NamespaceAnnotations(map[string]string{"x": "y", policy.AnnotationACLLogging: "{}"}); len(got) != 1 {
		t.Errorf("NamespaceAnnotations kept %v", got)
	}
}

// TestDefaultNetworkIsolationFacade: with DefaultNetworkIsolation, a pod
// of a primary UDN has its default-network port "<namespace>_<pod>" in the
// isolation port group, its open default ports allowed, the management
// address of the node's restored default subnet let in.
func TestDefaultNetworkIsolationFacade(t *testing.T) {
	c, err := New(Config{Nodes: []topology.Node{testNode("node1", 0)}, Policy: PolicyOptions{DefaultNetworkIsolation: true}})
	if err != nil {
		t.Fatal(err)
	}
	c.defaultSubnets = map[string][]netip.Prefix{"node1": {netip.MustParsePrefix("10.244.1.0/24")}}
	if _, _, err := c.SetUDN(udnDoc("blue", "net", "Layer3", "Primary", "10.100.0.0/16/24")); err != nil {
		t.Fatal(err)
	}
	if _, err := c.SetPod(Pod{Pod: pods.Pod{Namespace: "blue", Name: "web", UID: "u1", Node: "node1"},
		Annotations: map[string]string{policy.AnnotationOpenPorts: `[{"protocol":"tcp","port":80}]`}}); err != nil {
		t.Fatal(err)
	}
	_, err = c.SetPod(Pod{Pod: pods.Pod{Namespace: "blue", Name: "bad", UID: "u2", Node: "node1"},
		Annotations: map[string]string{policy.AnnotationOpenPorts: `[{"protocol":"icmp","port":1}]`}})
	if err == nil || !strings.Contains(err.Error(), "pod blue/bad: annotations[k8s.ovn.org/open-default-ports][0].port") {
		t.Errorf("bad open ports: %v", err)
	}
	s, err := c.Plan("node1")
	if err != nil {
		t.Fatal(err)
	}
	o, ok := s.Get(topology.KindPortGroup, policy.IsolationPortGroupName())
	if !ok || !slices.Equal(o.(topology.PortGroup).Ports, []string{"blue_web"}) {
		t.Fatalf("isolation port group %v", o)
	}
	var matches []string
	for _, a := range s.ObjectsOf(topology.KindACL) {
		if a := a.(topology.ACL); a.PortGroup == policy.IsolationPortGroupName() {
			matches = append(matches, a.Match)
		}
	}
	for _, w := range []string{`outport == "blue_web" && (arp || nd || (tcp.dst == 80))`, "outport == @" + policy.IsolationPortGroupName() + " && (ip4.src==10.244.1.2)"} {
		if !slices.Contains(matches, w) {
			t.Errorf("no isolation ACL %q in %q", w, matches)
		}
	}
}
