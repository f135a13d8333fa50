package udnkit

import (
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"sync"
	"testing"

	"github.com/udnkit/udnkit/ipam"
	"github.com/udnkit/udnkit/netconf"
	"github.com/udnkit/udnkit/topology"
)

// testNode returns a ready node; id 0 leaves the ID to the Cluster, and
// the address then follows the name.
func testNode(name string, id int) topology.Node {
	host := byte(id)
	if id == 0 {
		for _, c := range []byte(name) {
			host = host*31 + c
		}
		host = 10 + host%200
	}
	return topology.Node{Name: name, ID: id, Chassis: "chassis-" + name,
		Addresses: []netip.Prefix{netip.PrefixFrom(netip.AddrFrom4([4]byte{172, 18, 1, host}), 16)},
		NextHops:  []netip.Addr{netip.MustParseAddr("172.18.0.1")}}
}

func decodeUDN(t *testing.T, doc string) *netconf.UserDefinedNetwork {
	t.Helper()
	u, err := netconf.DecodeUDN([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	return u
}

const (
	blueUDN = `
kind: UserDefinedNetwork
metadata: {name: blue, namespace: tenant-a}
spec: {topology: Layer3, role: Primary, subnets: ["10.128.0.0/23/24"]}`
	redUDN = `
kind: UserDefinedNetwork
metadata: {name: red, namespace: tenant-b}
spec: {topology: Layer2, role: Primary, subnets: ["10.128.0.0/16"]}`
	greenCUDN = `
kind: ClusterUserDefinedNetwork
metadata: {name: green}
spec:
  namespaceSelector: {matchLabels: {tenant: green}}
  template: {spec: {topology: Layer2, role: Secondary, subnets: ["192.168.0.0/24"]}}`
)

// TestNetworksPlanEqualsTheLongPath: the short path plans exactly what the
// allocators and planners give when called one by one.
func TestNetworksPlanEqualsTheLongPath(t *testing.T) {
	nodes := []topology.Node{testNode("node-b", 3), testNode("node-a", 2)}
	nets, err := New(Config{Nodes: nodes})
	if err != nil {
		t.Fatal(err)
	}
	blue, err := nets.AddUDN(decodeUDN(t, blueUDN))
	if err != nil {
		t.Fatal(err)
	}
	red, err := nets.AddUDN(decodeUDN(t, redUDN))
	if err != nil {
		t.Fatal(err)
	}
	cudn, err := netconf.DecodeCUDN([]byte(greenCUDN))
	if err != nil {
		t.Fatal(err)
	}
	green, err := nets.AddCUDN(cudn)
	if err != nil {
		t.Fatal(err)
	}
	if blue.ID != 1 || red.ID != 2 || green.ID != 3 {
		t.Fatalf("IDs %d %d %d, want 1 2 3 in the order added", blue.ID, red.ID, green.ID)
	}
	got, err := nets.Plan("node-a")
	if err != nil {
		t.Fatal(err)
	}

	// The long path.
	sorted := []topology.Node{testNode("node-a", 2), testNode("node-b", 3)}
	keys := ipam.NewTunnelKeyAllocator()
	hs, err := ipam.NewHostSubnetAllocator(blue.Name, []ipam.HostSubnetRange{{CIDR: blue.Subnets[0].CIDR, HostPrefix: 24}})
	if err != nil {
		t.Fatal(err)
	}
	blueIn := topology.Input{Network: blue, Nodes: sorted, Zone: "node-a", HostSubnets: map[string][]netip.Prefix{}}
	for _, nd := range sorted {
		if blueIn.HostSubnets[nd.Name], err = hs.Allocate(nd.Name); err != nil {
			t.Fatal(err)
		}
	}
	redKeys, _ := keys.AllocateForNetwork(red.Name, red.ID, ipam.Layer2TunnelKeys)
	greenKeys, _ := keys.AllocateForNetwork(green.Name, green.ID, 1)
	var states []topology.State
	for _, in := range []topology.Input{blueIn,
		{Network: red, Nodes: sorted, Zone: "node-a", TunnelKeys: redKeys},
		{Network: green, Nodes: sorted, Zone: "node-a", TunnelKeys: greenKeys}} {
		s, err := topology.Plan(in)
		if err != nil {
			t.Fatal(err)
		}
		states = append(states, s)
	}
	want, err := states[0].Merge(states[1:]...)
	if err != nil {
		t.Fatal(err)
	}
	if d := topology.Diff(want, got); len(d) != 0 {
		t.Fatalf("the short path differs from the long one:\n%s", d)
	}
	if got.Len() == 0 || len(got.Networks()) != 3 {
		t.Fatalf("plan holds %d objects of %v", got.Len(), got.Networks())
	}
}

func TestNetworksAddTwiceAndConflicts(t *testing.T) {
	nets, err := New(Config{Nodes: []topology.Node{testNode("node-a", 2)}})
	if err != nil {
		t.Fatal(err)
	}
	first, err := nets.AddUDN(decodeUDN(t, redUDN))
	if err != nil {
		t.Fatal(err)
	}
	again, err := nets.AddUDN(decodeUDN(t, redUDN))
	if err != nil || !again.Equal(first) {
		t.Fatalf("adding the same UDN again: %v, %v", again, err)
	}
	changed := first.Clone()
	changed.MTU = 9000
	if _, err := nets.Add(changed); !errors.Is(err, ipam.ErrConflict) {
		t.Fatalf("a different network under a known name: %v, want ErrConflict", err)
	}
	bad := decodeUDN(t, redUDN)
	bad.Name, bad.Spec.Subnets = "bad", []string{"10.0.0.0/33"}
	if _, err := nets.AddUDN(bad); !errors.Is(err, netconf.ErrInvalidSpec) {
		t.Fatalf("an invalid UDN: %v, want ErrInvalidSpec", err)
	}
	cudn, _ := netconf.DecodeCUDN([]byte(greenCUDN))
	cudn.Spec.Template.Spec.Subnets = []string{"bogus"}
	if _, err := nets.AddCUDN(cudn); !errors.Is(err, netconf.ErrInvalidSpec) {
		t.Fatalf("an invalid CUDN: %v, want ErrInvalidSpec", err)
	}
	if _, ok := nets.ids.Lookup(netconf.CUDNNetworkName("green")); ok {
		t.Error("an invalid CUDN keeps its network ID")
	}
	if names := fmt.Sprint(nets.Names()); names != "[tenant-b_red]" {
		t.Errorf("Names() = %s", names)
	}
	nets.Remove("tenant-b_red")
	if _, err := nets.Input("tenant-b_red", "node-a"); !errors.Is(err, ErrUnknownNetwork) {
		t.Errorf("Input of a removed network: %v", err)
	}
	if _, ok := nets.keys.Lookup("tenant-b_red"); ok {
		t.Error("a removed network keeps its tunnel keys")
	}
}

// TestNetworksAddNodeAllOrNothing: a node that does not fit in one Layer3
// network gets no host subnet in any.
func TestNetworksAddNodeAllOrNothing(t *testing.T) {
	nets, err := New(Config{Nodes: []topology.Node{testNode("node-a", 2)}})
	if err != nil {
		t.Fatal(err)
	}
	roomy := decodeUDN(t, blueUDN)
	roomy.Namespace, roomy.Spec.Subnets = "aaa", []string{"10.200.0.0/16/24"}
	if _, err := nets.AddUDN(roomy); err != nil {
		t.Fatal(err)
	}
	if _, err := nets.AddUDN(decodeUDN(t, blueUDN)); err != nil { // room for two nodes
		t.Fatal(err)
	}
	if err := nets.AddNode(testNode("node-b", 3)); err != nil {
		t.Fatal(err)
	}
	if err := nets.AddNode(testNode("node-c", 4)); !errors.Is(err, ipam.ErrExhausted) {
		t.Fatalf("third node in a /23 of /24s: %v, want ErrExhausted", err)
	}
	in, err := nets.Input("aaa_blue", "node-a")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := in.HostSubnets["node-c"]; ok || len(in.Nodes) != 2 {
		t.Fatalf("a refused node left traces: %d nodes, host subnets %v", len(in.Nodes), in.HostSubnets)
	}
	nets.RemoveNode("node-b")
	if err := nets.AddNode(testNode("node-c", 4)); err != nil {
		t.Fatalf("node-c after node-b left: %v", err)
	}
	if _, err := nets.Plan("node-a"); err != nil {
		t.Fatal(err)
	}
}

func TestNetworksConcurrentAdds(t *testing.T) {
	nets, err := New(Config{Nodes: []topology.Node{testNode("node-a", 2)}})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	ids := make([]int, 16)
	for i := range ids {
		wg.Go(func() {
			u := decodeUDN(t, redUDN)
			u.Namespace = fmt.Sprintf("ns-%d", i)
			n, err := nets.AddUDN(u)
			if err != nil {
				t.Error(err)
				return
			}
			ids[i] = n.ID
			if _, err := nets.Plan("node-a"); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	seen := map[int]bool{}
	for _, id := range ids {
		if id == 0 || seen[id] {
			t.Fatalf("IDs %v: zero or repeated", ids)
		}
		seen[id] = true
	}
}

// TestRefusedCUDNReleasesID: a CUDN that validates but that the cluster
// refuses (netconf.CheckCluster: its subnet overlaps the default network's)
// does not keep the network ID AddCUDN took for it.
func TestRefusedCUDNReleasesID(t *testing.T) {
	nets, err := New(Config{Nodes: []topology.Node{testNode("node-a", 2)},
		DefaultNetwork: netconf.Cluster{PodSubnets: []netip.Prefix{netip.MustParsePrefix("192.168.0.0/16")}}})
	if err != nil {
		t.Fatal(err)
	}
	cudn, err := netconf.DecodeCUDN([]byte(greenCUDN))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := nets.AddCUDN(cudn); !errors.Is(err, netconf.ErrInvalidSpec) {
		t.Fatalf("a CUDN on the default network's subnets: %v, want ErrInvalidSpec", err)
	}
	if id, ok := nets.ids.Lookup(netconf.CUDNNetworkName("green")); ok {
		t.Errorf("the refused CUDN keeps network ID %d", id)
	}
}

// TestDefaultNetworkSubnetsAreThePlanners: the masquerade and default
// network join subnets set in Config.DefaultNetwork (what networks are
// checked against) are the ones the planner takes, and New refuses a
// Config.Cluster that says otherwise (the networks were checked against
// one set of subnets and planned with another).
func TestDefaultNetworkSubnetsAreThePlanners(t *testing.T) {
	masq := []netip.Prefix{netip.MustParsePrefix("10.200.0.0/16"), netip.MustParsePrefix("fd70::/112")}
	join := []netip.Prefix{netip.MustParsePrefix("100.62.0.0/16"), netip.MustParsePrefix("fd98::/64")}
	nets, err := New(Config{Nodes: []topology.Node{testNode("node-a", 2)},
		DefaultNetwork: netconf.Cluster{MasqueradeSubnets: masq, JoinSubnets: join}})
	if err != nil {
		t.Fatal(err)
	}
	n, err := nets.AddUDN(decodeUDN(t, blueUDN))
	if err != nil {
		t.Fatal(err)
	}
	in, err := nets.Input(n.Name, "node-a")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(in.Cluster.MasqueradeSubnets, masq) || !slices.Equal(in.Cluster.DefaultNetworkJoinSubnets, join) {
		t.Errorf("the planner takes masquerade %v and join %v, the networks were checked against %v and %v",
			in.Cluster.MasqueradeSubnets, in.Cluster.DefaultNetworkJoinSubnets, masq, join)
	}
	if _, err := New(Config{DefaultNetwork: netconf.Cluster{MasqueradeSubnets: masq},
		Cluster: topology.Cluster{MasqueradeSubnets: ipam.DefaultMasqueradeSubnets()}}); !errors.Is(err, topology.ErrInvalid) {
		t.Errorf("two different masquerade subnets: %v, want topology.ErrInvalid", err)
	}
}
