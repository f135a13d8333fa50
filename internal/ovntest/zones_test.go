package ovntest_test

import (
	"context"
	"fmt"
	"net/netip"
	"testing"
	"time"

	"github.com/udnkit/udnkit"
	"github.com/udnkit/udnkit/backend/ovnnb"
	"github.com/udnkit/udnkit/internal/ovntest"
	"github.com/udnkit/udnkit/netconf"
	"github.com/udnkit/udnkit/topology"
	"github.com/udnkit/udnkit/topology/pods"
)

func zoneNodes() []topology.Node {
	var nodes []topology.Node
	for i := 1; i <= 2; i++ {
		nodes = append(nodes, topology.Node{Name: fmt.Sprint("node", i), Chassis: fmt.Sprint("chassis-", i),
			Addresses: []netip.Prefix{netip.MustParsePrefix(fmt.Sprintf("172.31.0.%d/24", i))},
			NextHops:  []netip.Addr{netip.MustParseAddr("172.31.0.254")}})
	}
	return nodes
}

func TestZonesProto(t *testing.T) {
	nodes := zoneNodes()
	zs := ovntest.StartZones(t, nodes[0], nodes[1])
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	c, err := udnkit.New(udnkit.Config{Nodes: nodes})
	if err != nil {
		t.Fatal(err)
	}
	c.SetNamespace(netconf.Namespace{Name: "blue"})
	u, _ := netconf.DecodeUDN([]byte("kind: UserDefinedNetwork\nmetadata: {name: l3, namespace: blue}\nspec: {topology: Layer3, role: Primary, subnets: [\"10.128.0.0/16\"]}"))
	if _, err := c.AddUDN(u); err != nil {
		t.Fatal(err)
	}
	for i, n := range []string{"node1", "node2"} {
		if _, err := c.SetPod(udnkit.Pod{Pod: pods.Pod{Namespace: "blue", Name: fmt.Sprint("p", i), UID: fmt.Sprint("uid", i), Node: n}}); err != nil {
			t.Fatal(err)
		}
	}
	for _, z := range zs {
		st, err := c.Plan(z.Node.Name)
		if err != nil {
			t.Fatal(err)
		}
		nb, err := ovnnb.Dial(ctx, ovnnb.Config{Endpoints: []string{z.Env.NBUnix}})
		if err != nil {
			t.Fatal(err)
		}
		defer nb.Close()
		if _, _, err := nb.Sync(ctx, st); err != nil {
			t.Fatal(err)
		}
		if err := z.Env.SyncHV(ctx); err != nil {
			t.Fatal(err)
		}
	}
	var ps []*ovntest.Pod
	for i, z := range zs {
		name := fmt.Sprint("p", i)
		a, err := c.PodAnnotation("blue", name)
		if err != nil {
			t.Fatal(err)
		}
		pn, err := netconf.ParsePodNetworks(a)
		if err != nil {
			t.Fatal(err)
		}
		p, err := z.Host.AddPod(ctx, ovntest.PodSpec{Name: name, Port: pods.PortName("blue", name, "blue/l3"), IfaceIDVer: fmt.Sprint("uid", i), Network: pn["blue/l3"]})
		if err != nil {
			t.Fatal(err)
		}
		ps = append(ps, p)
	}
	for _, z := range zs {
		if err := z.Env.SyncHV(ctx); err != nil {
			t.Fatal(err)
		}
	}
	pctx, pc := context.WithTimeout(ctx, 10*time.Second)
	defer pc()
	if err := ovntest.Ping(pctx, ps[0], ps[1].Addr); err != nil {
		t.Error(err)
	}
	e, err := ovntest.Listen(ps[1], netip.AddrPortFrom(ps[1].Addr, 8080))
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	got, err := ovntest.Ask(ctx, ps[0], netip.AddrPortFrom(ps[1].Addr, 8080), 10*time.Second)
	t.Log(got, err)
	if err != nil {
		t.Error(err)
	}
}
