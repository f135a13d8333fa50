package udnkit

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/udnkit/udnkit/connect"
	"github.com/udnkit/udnkit/ipam"
	"github.com/udnkit/udnkit/netconf"
	"github.com/udnkit/udnkit/netconf/udn"
	"github.com/udnkit/udnkit/topology"
)

// restartCluster is the cluster the restart tests build: Layer3, Layer2
// and Localnet networks, a CUDN, two primaries in one namespace (linked), a
// ClusterNetworkConnect, on four nodes.
type restartCluster struct {
	nodes      []topology.Node
	namespaces []netconf.Namespace
	udns       []*netconf.UserDefinedNetwork
	cudns      []*netconf.ClusterUserDefinedNetwork
	connects   []string // namespaces of cnc0
}

func newRestartCluster(t *testing.T) restartCluster {
	t.Helper()
	var rc restartCluster
	for i := range 4 {
		rc.nodes = append(rc.nodes, testNode(fmt.Sprintf("node%d", i+1), 0))
	}
	rc.namespaces = []netconf.Namespace{{Name: "blue"}, {Name: "green"}, {Name: "db", Labels: map[string]string{"tier": "db"}},
		{Name: "shop", Labels: map[string]string{"tier": "t0"}}}
	rc.udns = []*netconf.UserDefinedNetwork{
		udnDoc("blue", "l3", "Layer3", "Primary", "10.128.0.0/16/24"),
		udnDoc("green", "l2", "Layer2", "Primary", "10.129.0.0/16"),
		udnDoc("blue", "sec", "Layer2", "Secondary", "192.168.5.0/24"),
		udnDoc("shop", "front", "Layer3", "Primary", "10.130.0.0/16/24"),
	}
	localnet, err := os.ReadFile("netconf/testdata/cudn-localnet.yaml")
	if err != nil {
		t.Fatal(err)
	}
	ln, err := netconf.DecodeCUDN(localnet)
	if err != nil {
		t.Fatal(err)
	}
	rc.cudns = []*netconf.ClusterUserDefinedNetwork{ln, cudnDoc("back", "t0", "Layer2", "10.131.0.0/16")}
	return rc
}

// build adds everything to c in the order of perm (a shuffle of the
// additions), skipping the node and network named in skip.
func (rc restartCluster) build(t *testing.T, c *Cluster, rng *rand.Rand, skip ...string) {
	t.Helper()
	var adds []func() error
	for _, nd := range rc.nodes {
		if !slices.Contains(skip, nd.Name) {
			adds = append(adds, func() error { return c.AddNode(nd) })
		}
	}
	for _, u := range rc.udns {
		if !slices.Contains(skip, u.Namespace+"_"+u.Name) {
			adds = append(adds, func() error { _, err := c.AddUDN(u); return err })
		}
	}
	// Namespaces come before the CUDNs that select them, as a controller's
	// informers deliver them before it reconciles a CUDN.
	for _, ns := range rc.namespaces {
		if _, err := c.SetNamespace(ns); err != nil {
			t.Fatal(err)
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
	if _, _, err := c.SetConnect(cncDoc("cnc0", "192.168.0.0/16", "blue", "green", "shop")); err != nil {
		t.Fatal(err)
	}
	if acc, _, _ := c.Connect("cnc0"); !acc.Accepted() {
		t.Fatalf("cnc0 not accepted: %+v", acc.Condition)
	}
}

// shuffled returns the stored objects in a random order.
func shuffled(st Stored, rng *rand.Rand) Stored {
	for _, objs := range [][]Object{st.Nodes, st.NADs, st.Connects} {
		rng.Shuffle(len(objs), func(i, j int) { objs[i], objs[j] = objs[j], objs[i] })
	}
	return st
}

// TestRestartPlansWhatWasPlanned: a cluster built in one order, its
// annotations written out; a new Cluster restored from them (shuffled),
// after one node and one network were deleted, with everything else added
// in another order, plans every zone as before minus what was deleted.
func TestRestartPlansWhatWasPlanned(t *testing.T) {
	for _, profile := range []udn.Profile{udn.ProfileSeeds, udn.ProfileReference} {
		for seed := range uint64(5) {
			t.Run(fmt.Sprintf("%v/%d", profile, seed), func(t *testing.T) {
				rng := rand.New(rand.NewPCG(seed, 11))
				rc := newRestartCluster(t)
				before, err := New(Config{Profile: profile})
				if err != nil {
					t.Fatal(err)
				}
				rc.build(t, before, nil)
				stored := before.Annotations()
				const goneNode, goneNet = "node3", "blue_l3"
				want := map[string]topology.State{}
				for _, zone := range []string{"node1", "node2", "node4"} {
					st, err := before.Plan(zone)
					if err != nil {
						t.Fatal(err)
					}
					want[zone] = st
				}

				after, err := New(Config{Profile: profile})
				if err != nil {
					t.Fatal(err)
				}
				if err := after.Restore(shuffled(stored, rng)); err != nil {
					t.Fatal(err)
				}
				rc.build(t, after, rng, goneNode, goneNet)
				freed := after.EndRestore()
				if !slices.Equal(freed, []string{"Node " + goneNode, "network " + goneNet}) {
					t.Fatalf("EndRestore freed %v, want the deleted node and network", freed)
				}
				for zone, old := range want {
					got, err := after.Plan(zone)
					if err != nil {
						t.Fatal(err)
					}
					// What the restarted cluster must delete: the gone
					// network's rows, the gone node's, and what referred to
					// them (the connect's and the link's rows of the gone network).
					changes := topology.Diff(old, got)
					for _, ch := range changes {
						if ch.Op == topology.OpCreate {
							t.Fatalf("zone %s: the restarted cluster plans something new: %v", zone, ch)
						}
						owner := ch.Object.OwnedBy()
						text := topology.Render(ch.Object)
						if owner.Network != goneNet && owner.Node != goneNode && !strings.Contains(text, "blue.l3") && !strings.Contains(text, "10.128.") &&
							!strings.Contains(text, goneNet) && !strings.Contains(text, goneNode) {
							t.Fatalf("zone %s: the restart changes a row of neither the deleted node nor network: %v", zone, ch)
						}
					}
					if len(changes) == 0 {
						t.Fatalf("zone %s: nothing of the deleted node and network is removed", zone)
					}
				}
				// The allocations of what stayed are byte for byte those stored.
				again := after.Annotations()
				for _, o := range again.Nodes {
					i := slices.IndexFunc(stored.Nodes, func(s Object) bool { return s.Name == o.Name })
					if got, was := o.Annotations[AnnotationNodeID], stored.Nodes[i].Annotations[AnnotationNodeID]; got != was {
						t.Fatalf("node %s renumbered %s → %s", o.Name, was, got)
					}
				}
				for _, o := range again.NADs {
					i := slices.IndexFunc(stored.NADs, func(s Object) bool { return s.Key() == o.Key() })
					if i < 0 || fmt.Sprint(o.Annotations) != fmt.Sprint(stored.NADs[i].Annotations) {
						t.Fatalf("NAD %s: %v, stored %v", o.Key(), o.Annotations, stored.NADs)
					}
				}
				// The connect keeps its key and every subnet but the deleted
				// network's.
				was, err := connect.ParseAnnotations(stored.Connects[0].Annotations)
				if err != nil {
					t.Fatal(err)
				}
				now, err := connect.ParseAnnotations(again.Connects[0].Annotations)
				if err != nil {
					t.Fatal(err)
				}
				goneID := 0
				for _, o := range stored.NADs {
					if o.Annotations[AnnotationNetworkName] == goneNet {
						goneID, _ = strconv.Atoi(o.Annotations[AnnotationNetworkID])
					}
				}
				delete(was.Subnets, connect.NetworkKey{Topology: ipam.ConnectLayer3, NetworkID: goneID})
				if was.TunnelKey != now.TunnelKey || fmt.Sprint(was.Subnets) != fmt.Sprint(now.Subnets) {
					t.Fatalf("connect allocation %+v, stored %+v (without network %d)", now, was, goneID)
				}
			})
		}
	}
}

// TestRestoreReferenceAnnotations reads the reference's formats: the
// single-string form of node-subnets with the default network's entry,
// the legacy network-ids, a NAD's tunnel-keys with the preserved key.
func TestRestoreReferenceAnnotations(t *testing.T) {
	c, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	err = c.Restore(Stored{
		Nodes: []Object{
			{Name: "node-a", Annotations: map[string]string{AnnotationNodeID: "7",
				AnnotationNodeSubnets: `{"default":"10.244.1.0/24","ns1_l3":"10.128.9.0/24"}`,
				AnnotationNetworkIDs:  `{"default":"0","ns1_l3":"12"}`}},
		},
		NADs: []Object{
			{Namespace: "ns2", Name: "l2", Annotations: map[string]string{AnnotationNetworkName: "ns2_l2",
				AnnotationNetworkID: "5", AnnotationTunnelKeys: "[16711688,16715790]"}},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.AddNode(testNode("node-a", 0)); err != nil {
		t.Fatal(err)
	}
	l3, err := c.AddUDN(udnDoc("ns1", "l3", "Layer3", "Primary", "10.128.0.0/16/24"))
	if err != nil {
		t.Fatal(err)
	}
	l2, err := c.AddUDN(udnDoc("ns2", "l2", "Layer2", "Primary", "10.129.0.0/16"))
	if err != nil {
		t.Fatal(err)
	}
	c.EndRestore()
	if l3.ID != 12 || l2.ID != 5 {
		t.Fatalf("network IDs %d, %d: want 12 (legacy node annotation) and 5 (NAD)", l3.ID, l2.ID)
	}
	if sub, _ := c.HostSubnets("ns1_l3", "node-a"); len(sub) != 1 || sub[0] != mustPrefix("10.128.9.0/24") {
		t.Fatalf("host subnet %v, want the stored 10.128.9.0/24", sub)
	}
	in, err := c.Input("ns2_l2", "node-a")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(in.TunnelKeys, []int{16711688, 16715790}) || in.Nodes[0].ID != 7 {
		t.Fatalf("keys %v, node ID %d: want the stored ones", in.TunnelKeys, in.Nodes[0].ID)
	}
	if _, err := c.Plan("node-a"); err != nil {
		t.Fatal(err)
	}
	ann := c.Annotations()
	// The default network's entry is another controller's: written back.
	if got := ann.Nodes[0].Annotations[AnnotationNodeSubnets]; got != `{"default":["10.244.1.0/24"],"ns1_l3":["10.128.9.0/24"]}` {
		t.Fatalf("node-subnets written back as %s: the default network's entry must stay", got)
	}
	if got := ann.NADs[1].Annotations[AnnotationTunnelKeys]; got != "[16711688,16715790]" {
		t.Fatalf("tunnel keys written back as %q", got)
	}
}

// TestRestoreRefusesConflicts: an annotation that conflicts with another
// is refused, naming both objects.
func TestRestoreRefusesConflicts(t *testing.T) {
	for _, tc := range []struct {
		name   string
		stored Stored
		names  []string
	}{
		{"one network ID, two networks", Stored{NADs: []Object{
			{Namespace: "a", Name: "x", Annotations: map[string]string{AnnotationNetworkName: "a_x", AnnotationNetworkID: "3"}},
			{Namespace: "b", Name: "y", Annotations: map[string]string{AnnotationNetworkName: "b_y", AnnotationNetworkID: "3"}},
		}}, []string{"a/x", "b/y"}},
		{"one network, two IDs", Stored{NADs: []Object{
			{Namespace: "a", Name: "c", Annotations: map[string]string{AnnotationNetworkName: "cluster_udn_c", AnnotationNetworkID: "3"}},
			{Namespace: "b", Name: "c", Annotations: map[string]string{AnnotationNetworkName: "cluster_udn_c", AnnotationNetworkID: "4"}},
		}}, []string{"a/c", "b/c"}},
		{"one node ID, two nodes", Stored{Nodes: []Object{
			{Name: "n1", Annotations: map[string]string{AnnotationNodeID: "4"}},
			{Name: "n2", Annotations: map[string]string{AnnotationNodeID: "4"}},
		}}, []string{"n1", "n2"}},
		{"one tunnel key, two networks", Stored{NADs: []Object{
			{Namespace: "a", Name: "x", Annotations: map[string]string{AnnotationNetworkName: "a_x", AnnotationNetworkID: "3", AnnotationTunnelKeys: "[16711686,16715779]"}},
			{Namespace: "b", Name: "y", Annotations: map[string]string{AnnotationNetworkName: "b_y", AnnotationNetworkID: "4", AnnotationTunnelKeys: "[16711687,16715779]"}},
		}}, []string{"a_x", "b/y"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, _ := New(Config{})
			err := c.Restore(tc.stored)
			if !errors.Is(err, ipam.ErrConflict) {
				t.Fatalf("Restore = %v, want a conflict", err)
			}
			for _, n := range tc.names {
				if !strings.Contains(err.Error(), n) {
					t.Fatalf("%v does not name %s", err, n)
				}
			}
		})
	}
}
