package topology

import (
	"errors"
	"fmt"
	"net/netip"
	"testing"
)

// emitConnect emits what a connect-like planner would for networks x
// nodes: per node a reroute policy on each network's cluster router and a
// static route on the connect router; returns the number of objects.
func emitConnect(e *Emitter, networks, nodes int) int {
	const ctl Controller = "test-connect"
	n := 0
	opts := e.Options("ecmp_symmetric_reply", "true") // shared: objects are immutable
	for i := range networks {
		net := e.Cat("ns", e.Itoa(i), "_net")
		own := Owner{Controller: ctl, Network: net}
		cr := e.Cat(net, "_ovn_cluster_router")
		e.Own(ctl, net)
		for j := range nodes {
			hop := netip.AddrFrom4([4]byte{192, 168, byte(i), byte(j)})
			subnet := netip.PrefixFrom(netip.AddrFrom4([4]byte{10, byte(i), byte(j), 0}), 24)
			port := e.Cat("rtos-", net, "_node", e.Itoa(j))
			e.Policy(Policy{Owner: own, Router: cr, Priority: 9001, Action: PolicyReroute, Nexthops: e.Addrs(hop)},
				"inport == ", e.Quote(port), " && ip4.dst == ", e.Prefix(subnet))
			e.Emit(StaticRoute{Owner: own, Router: "connect-router-cnc", Policy: RouteDstIP, Prefix: subnet, Nexthop: hop,
				Options: opts})
			n += 2
		}
	}
	return n
}

func TestEmitter(t *testing.T) {
	var e Emitter
	n := emitConnect(&e, 3, 4)
	if e.Len() != n {
		t.Fatalf("Len() = %d, want %d", e.Len(), n)
	}
	s, err := e.State()
	if err != nil {
		t.Fatal(err)
	}
	if s.Len() != n || len(s.Networks()) != 3 || !s.SpeaksFor("test-connect", "ns1_net") || s.SpeaksFor("", "ns1_net") {
		t.Fatalf("State: %d objects, networks %v, controllers %v", s.Len(), s.Networks(), s.Controllers())
	}
	// Every key agrees with its object, and the same objects built by
	// hand through a Builder make the same State.
	var b Builder
	for o := range s.Objects() {
		if k, ok := s.Get(o.Kind(), o.Key()); !ok || k.Key() != o.Key() {
			t.Errorf("%s %q not found under its own key", o.Kind(), o.Key())
		}
		b.Add(o)
	}
	for _, n := range s.Networks() {
		b.OwnFor("test-connect", n)
	}
	want, err := b.State()
	if err != nil {
		t.Fatal(err)
	}
	if !s.Equal(want) || len(Diff(want, s)) != 0 {
		t.Errorf("Emitter and Builder disagree:\n%s", Diff(want, s))
	}
	pol, ok := s.Get(KindPolicy, `ns1_net_ovn_cluster_router|9001|inport == "rtos-ns1_net_node2" && ip4.dst == 10.1.2.0/24`)
	if !ok || pol.(Policy).Match != `inport == "rtos-ns1_net_node2" && ip4.dst == 10.1.2.0/24` {
		t.Errorf("policy key and match: %v %v", pol, ok)
	}
}

func TestEmitterErrors(t *testing.T) {
	tests := []struct {
		name string
		emit func(e *Emitter)
		want error
	}{
		{"no owner network", func(e *Emitter) { e.Emit(Switch{Name: "s"}) }, ErrInvalid},
		{"policy without owner network", func(e *Emitter) { e.Policy(Policy{Router: "r"}, "1") }, ErrInvalid},
		{"a key twice", func(e *Emitter) {
			o := Owner{Network: "n"}
			e.Policy(Policy{Owner: o, Router: "r", Priority: 1}, "ip4")
			e.Policy(Policy{Owner: o, Router: "r", Priority: 1}, "ip", "4")
		}, ErrConflict},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var e Emitter
			tt.emit(&e)
			if _, err := e.State(); !errors.Is(err, tt.want) {
				t.Errorf("State: %v, want %v", err, tt.want)
			}
		})
	}
}

// BenchmarkEmitter emits a connect-like plan (a reroute policy and a
// static route per network and node) of 100 networks x 100 nodes.
func BenchmarkEmitter(b *testing.B) {
	b.ReportAllocs()
	rows := 0
	for b.Loop() {
		var e Emitter
		rows = emitConnect(&e, 100, 100)
		if _, err := e.State(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	b.ReportMetric(0, "ns/op")
	_ = fmt.Sprint
}
