package nbrow

import (
	"maps"
	"net/netip"
	"strconv"
	"testing"

	"github.com/udnkit/udnkit/internal/nbdb"
	"github.com/udnkit/udnkit/topology"
)

// FuzzParseIP checks that every address or prefix ParseIP accepts is
// written back (IPString) in a form it parses to the same prefix.
func FuzzParseIP(f *testing.F) {
	for _, s := range []string{"10.0.0.1", "10.0.0.0/24", "fd00::1", "fd00::/64", "0.0.0.0/0", "1.2.3.4/32", "::/0", "x", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ParseIP(s)
		if err != nil || !p.IsValid() {
			return
		}
		q, err := ParseIP(IPString(p))
		if err != nil || q != p {
			t.Fatalf("ParseIP(%q) = %v, written %q, read back %v (%v)", s, p, IPString(p), q, err)
		}
	})
}

// FuzzParseAP checks the load balancer VIP and backend spelling round trip.
func FuzzParseAP(f *testing.F) {
	for _, s := range []string{"10.96.0.10:53", "10.96.0.10", "[fd00::10]:443", "fd00::10", "[fd00::1]", "1.2.3.4:0", "x:1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ap, err := ParseAP(s)
		if err != nil {
			return
		}
		back, err := ParseAP(APString(ap))
		if err != nil || back != ap {
			t.Fatalf("ParseAP(%q) = %v, written %q, read back %v (%v)", s, ap, APString(ap), back, err)
		}
		if !ap.Addr().IsValid() {
			t.Fatalf("ParseAP(%q) accepted an invalid address", s)
		}
		_ = netip.AddrPort{}
	})
}

// FuzzOwner checks that external_ids written for an owner read back as it.
func FuzzOwner(f *testing.F) {
	f.Add("", "ns_blue", "Layer3", "Primary", "node1")
	f.Add("udnkit-topology", "n", "layer2", "x", "")
	f.Add("pods", "n", "layer3", "primary", "n1")
	f.Fuzz(func(t *testing.T, ctl, network, topo, role, node string) {
		ids := map[string]string{ExtNetwork: network, ExtTopology: topo, ExtRole: role, ExtNode: node}
		if ctl != "" {
			ids[ExtController] = ctl
		}
		o, ok := OwnerOf(ids)
		if ok != (network != "") {
			t.Fatalf("OwnerOf(%v) owned = %v", ids, ok)
		}
		if !ok {
			return
		}
		// Without owner-controller a row is the topology's, unless the
		// reference wrote it as a pod port or a Service load balancer.
		if ctl == "" {
			withPod := maps.Clone(ids)
			withPod[ExtPod], withPod[ExtNAD] = "true", node+"/"+topo
			withLB := maps.Clone(ids)
			withLB[ExtKind] = "Service"
			po, _ := OwnerOf(withPod)
			lo, _ := OwnerOf(withLB)
			if o.Controller != "" || po.Controller != ControllerPods || lo.Controller != ControllerServices {
				t.Fatalf("controllers without owner-controller: %q, pod port %q, Service load balancer %q", o.Controller, po.Controller, lo.Controller)
			}
		}
		for _, v := range []string{"layer2", "layer3", "localnet", "primary", "secondary"} {
			if (string(o.Topology) == v && !o.Topology.Valid()) || (string(o.Role) == v && !o.Role.Valid()) {
				return // an invalid value spelled like a valid one reads back valid
			}
		}
		o2, ok := OwnerOf(OwnerIDs(o))
		if !ok || o2 != o {
			t.Fatalf("owner %+v written %v reads back %+v", o, OwnerIDs(o), o2)
		}
	})
}

// FuzzRowRoundTrip checks the generated mapping of every kind: an object
// that Check accepts, written as a row (references resolved by name) and
// read back, is the object again, but for what a row does not hold (a load
// balancer's attachments).
func FuzzRowRoundTrip(f *testing.F) {
	f.Add("n1", "sw", 100, "10.0.0.0/24", "10.0.0.1", uint16(80))
	f.Add("p", "r", 0, "fd00::1/128", "fd00::2", uint16(0))
	f.Add("", "", -1, "x", "", uint16(1))
	f.Fuzz(func(t *testing.T, name, other string, n int, prefix, addr string, port uint16) {
		p, _ := netip.ParsePrefix(prefix)
		a, _ := netip.ParseAddr(addr)
		owner := topology.Owner{Network: "ns_net", Topology: "Layer3", Role: "Primary", Node: other}
		opts := topology.NewOptions(name, other)
		ap := netip.AddrPortFrom(a, port)
		objs := []topology.Object{
			topology.AddressSet{Owner: owner, Name: name, Addresses: []netip.Prefix{p}},
			topology.LoadBalancer{Owner: owner, Name: name, Protocol: topology.Protocol(other), VIPs: []topology.LBVIP{{VIP: ap, Backends: []netip.AddrPort{ap}}},
				Options: opts, SelectionFields: []string{other}, ExternalIDs: topology.NewOptions("k8s.ovn.org/kind", name)},
			topology.LoadBalancerGroup{Owner: owner, Name: name},
			topology.Switch{Owner: owner, Name: name, OtherConfig: opts, LoadBalancerGroups: []string{other}},
			topology.Router{Owner: owner, Name: name, Options: opts, LoadBalancerGroups: []string{other}},
			topology.SwitchPort{Owner: owner, Name: name, Switch: other, Type: topology.PortType(other), Addresses: []string{name, other},
				PortSecurity: []string{other}, Options: opts, TagRequest: n, ExternalIDs: topology.NewOptions("pod", other)},
			topology.RouterPort{Owner: owner, Name: name, Router: other, MAC: other, Networks: []netip.Prefix{p}, Peer: other, Options: opts,
				GatewayChassis: []topology.GatewayChassis{{Name: name, Chassis: other, Priority: n}}},
			topology.PortGroup{Owner: owner, Name: name, Ports: []string{other}},
			topology.StaticRoute{Owner: owner, Router: other, RouteTable: name, Policy: topology.RoutePolicy(other), Prefix: p, Nexthop: a, OutputPort: name, Options: opts},
			topology.Policy{Owner: owner, Router: other, Priority: n, Match: name, Action: topology.PolicyAction(other), Nexthops: []netip.Addr{a}, Options: opts},
			topology.NAT{Owner: owner, Router: other, Type: topology.NATType(other), LogicalIP: p, ExternalIP: a, LogicalPort: name, GatewayPort: name, Match: other, Options: opts},
			topology.ACL{Owner: owner, PortGroup: other, Name: name, Tier: n, Direction: topology.ACLDirection(other), Priority: n, Match: name, Action: topology.ACLAction(other), Options: opts},
		}
		for _, o := range objs {
			m, err := ToRow(o, nil)
			if err != nil {
				continue
			}
			for _, r := range NameRefs(o) {
				SetUUIDs(m, r.Column, r.Names) // names stand for UUIDs
			}
			gcs := map[string]*nbdb.GatewayChassis{}
			var gcUUIDs []string
			for i, g := range ChassisOf(o) {
				u := "gc" + strconv.Itoa(i)
				gcs[u] = &nbdb.GatewayChassis{Name: g.Name, ChassisName: g.Chassis, Priority: g.Priority}
				gcUUIDs = append(gcUUIDs, u)
			}
			if gcUUIDs != nil {
				SetUUIDs(m, ColumnGatewayChassis, gcUUIDs)
			}
			parentTable, parent := "", ""
			if pk, pname, ok := ParentOf(o); ok {
				parentTable, parent = pk.Kind.Table(), pname
			}
			back, err := FromRow(m, owner, func(u string) string { return u }, parentTable, parent, gcs)
			if err != nil {
				t.Fatalf("%s: written as %#v, read back: %v", topology.Render(o), m, err)
			}
			if lb, ok := o.(topology.LoadBalancer); ok {
				back = topology.WithAttached(back, topology.Attached(lb))
			}
			want, got := state(t, o), state(t, back)
			if ch := topology.Diff(want, got); len(ch) != 0 {
				t.Fatalf("%s read back as %s: %v", topology.Render(o), topology.Render(back), ch)
			}
		}
	})
}

func state(t *testing.T, o topology.Object) topology.State {
	var b topology.Builder
	b.Add(o)
	s, err := b.State()
	if err != nil {
		t.Fatal(err)
	}
	return s
}
