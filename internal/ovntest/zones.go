package ovntest

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/udnkit/udnkit/topology"
)

// Zone is one interconnect zone of StartZones: its own OVN (NB, SB,
// ovn-northd) and its one node's Host.
type Zone struct {
	// Node is the zone's node; the zone is named after it.
	Node topology.Node
	Env  *Env
	Host *Host
}

// StartZones starts two interconnect zones, one per node, and stops them
// when tb ends: for each node an Env and a Host whose chassis is the node's
// Chassis, the hosts joined by Underlay on the nodes' first addresses
// (which are also their Geneve encap addresses, as OVN-Kubernetes uses the
// node's address), and in each zone's SB the other node's chassis
// registered as a remote chassis (AddRemoteChassis). That is what the
// zones need beside what a plan writes to their NBs. A port bound to a
// chassis neither zone holds fails tb (Env.RequireChassis), as do the
// warnings and errors of every northd, ovs-vswitchd and ovn-controller.
func StartZones(tb testing.TB, a, b topology.Node) [2]*Zone {
	tb.Helper()
	var zs [2]*Zone
	for i, nd := range []topology.Node{a, b} {
		if len(nd.Addresses) == 0 || !nd.Addresses[0].Addr().Is4() {
			tb.Fatalf("node %s: addresses: want an IPv4 address first (the underlay's), have %v", nd.Name, nd.Addresses)
		}
		env := Start(tb)
		env.RequireChassis()
		zs[i] = &Zone{Node: nd, Env: env, Host: StartHost(tb, env, nd.Chassis, nd.Addresses[0].Addr().String())}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := Underlay(ctx, zs[0].Host, zs[1].Host, a.Addresses[0].String(), b.Addresses[0].String()); err != nil {
		tb.Fatal(err)
	}
	for i, z := range zs {
		peer := zs[1-i].Node
		if err := z.Env.AddRemoteChassis(ctx, peer.Chassis, peer.Addresses[0].Addr().String()); err != nil {
			tb.Fatal(err)
		}
	}
	return zs
}

// AddRemoteChassis registers chassis name of another zone in this zone's
// SB, as ovnkube-controller does for every node outside its zone (its
// zone chassis handler; ovn-ic does the same): a Chassis row with a
// Geneve encap at encapIP and other_config:is-remote=true. ovn-controller
// tunnels to it the packets of remote ports bound to it (requested-chassis).
func (e *Env) AddRemoteChassis(ctx context.Context, name, encapIP string) error {
	if _, err := e.SBCtl(ctx, "--may-exist", "chassis-add", name, "geneve", encapIP,
		"--", "set", "Chassis", name, "other_config:is-remote=true", "hostname="+name); err != nil {
		return fmt.Errorf("remote chassis %s: %w", name, err)
	}
	return nil
}

// SyncHV waits until ovn-northd has compiled the NB into the SB and every
// ovn-controller of the zone has installed the result.
func (e *Env) SyncHV(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	if out, err := e.NBCtl(ctx, "--timeout=60", "--wait=hv", "sync"); err != nil {
		return fmt.Errorf("waiting for the zone's hypervisors: %w: %s", err, strings.TrimSpace(out))
	}
	return nil
}

// Sync waits until the zone's northd has compiled its NB, its
// ovn-controller has installed the result (Env.SyncHV), and its
// ovs-vswitchd has checked the flows its datapath cached against the new
// OpenFlow tables (Host.Revalidate): a packet sent after Sync takes the
// path the NB now describes.
func (z *Zone) Sync(ctx context.Context) error {
	if err := z.Env.SyncHV(ctx); err != nil {
		return fmt.Errorf("zone %s: %w", z.Node.Name, err)
	}
	if err := z.Host.Revalidate(ctx); err != nil {
		return fmt.Errorf("zone %s: %w", z.Node.Name, err)
	}
	return nil
}
