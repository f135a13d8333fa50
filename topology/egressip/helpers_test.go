package egressip_test

import (
	"context"
	"net/netip"
	"strings"
	"testing"

	"github.com/udnkit/udnkit/backend/ovnnb"
	"github.com/udnkit/udnkit/ipam"
	"github.com/udnkit/udnkit/netconf"
	"github.com/udnkit/udnkit/netconf/udn"
	"github.com/udnkit/udnkit/topology"
	"github.com/udnkit/udnkit/topology/pods"
)

// realPod is a pod synced to a real NB: its port, MAC and address.
type realPod struct {
	port, mac string
	ip        netip.Addr
}

// planPods plans pods called names on node of network n and syncs them.
func planPods(t *testing.T, c *ovnnb.Client, ctx context.Context, n *udn.Network, in topology.Input, nodes []topology.Node, node string, names ...string) map[string]realPod {
	t.Helper()
	a, err := ipam.NewPodIPAllocator(in.HostSubnets[node], nil)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]realPod{}
	var planned []pods.Planned
	for _, name := range names {
		ips, err := a.Allocate()
		if err != nil {
			t.Fatal(err)
		}
		p, err := pods.PlanPod(pods.Input{Pod: pods.Pod{Namespace: "ns1", Name: name, UID: "uid-" + name, Node: node},
			Attachments: []pods.Attachment{{Network: n, NAD: strings.Replace(n.Name, "_", "/", 1), Role: netconf.PodRolePrimary, IPs: ips, HostSubnets: in.HostSubnets[node]}},
			Nodes:       nodes, Zone: in.Zone, ServiceCIDRs: []netip.Prefix{netip.MustParsePrefix("10.96.0.0/16")}})
		if err != nil {
			t.Fatal(err)
		}
		planned = append(planned, p)
		mac, _, _ := strings.Cut(p.Ports[0].Addresses[0], " ")
		out[name] = realPod{port: p.Ports[0].Name, mac: mac, ip: ips[0].Addr()}
	}
	s, err := pods.PlanNode(node, []string{n.Name}, planned)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Sync(ctx, s); err != nil {
		t.Fatal(err)
	}
	return out
}
