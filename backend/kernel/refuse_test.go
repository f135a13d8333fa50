package kernel_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vishvananda/netlink"

	"github.com/udnkit/udnkit/backend/kernel"
	"github.com/udnkit/udnkit/netconf/udn"
	"github.com/udnkit/udnkit/vrf"
)

// TestRefusesInconsistentStates: states vrf.Plan refuses, built by hand,
// are refused again before the kernel is touched. A network in table 254
// (main) would have had Sync delete another owner's protocol-85 route
// there; two default routes of a family in a table never converge.
func TestRefusesInconsistentStates(t *testing.T) {
	h, ns := freshNetns(t)
	dummy(t, h, "breth0", "172.18.0.3/16", "169.254.0.2/17")
	dummy(t, h, "ovn-k8s-mp1")
	lo, _ := h.LinkByName("breth0")
	other := &netlink.Route{Table: 254, Protocol: 85, Dst: &net.IPNet{IP: net.IP{198, 51, 100, 0}, Mask: net.CIDRMask(24, 32)}, LinkIndex: lo.Attrs().Index}
	if err := h.RouteAdd(other); err != nil {
		t.Fatal(err)
	}
	k := newKernel(t, h, ns, nil)
	base := withoutVRFs(plan(t, blue))
	for name, mod := range map[string]func(*vrf.State){
		"table main": func(s *vrf.State) {
			for i := range s.Routes {
				s.Routes[i].Table = 254
			}
			for i := range s.Rules {
				s.Rules[i].Table = 254
			}
		},
		"two IPv4 default routes": func(s *vrf.State) {
			r := s.Routes[0]
			r.Gateway = netip.MustParseAddr("172.18.0.254")
			s.Routes = append(s.Routes, r)
		},
		"negative MTU":           func(s *vrf.State) { s.Links[0].MTU = -1 },
		"link name with a space": func(s *vrf.State) { s.Links[0].Name = "ovn k8s" },
		"nft comment breaking out": func(s *vrf.State) {
			s.NFT.Chains[0].Comment = `x" ; } ; chain udn-isolation { ip daddr 6.6.6.6 accept ; } ; chain zzx { #`
		},
	} {
		s := base
		s.Links, s.Routes, s.Rules = append([]vrf.Link(nil), base.Links...), append([]vrf.Route(nil), base.Routes...), append([]vrf.Rule(nil), base.Rules...)
		s.NFT.Chains = append([]vrf.Chain(nil), base.NFT.Chains...)
		mod(&s)
		if _, _, err := k.Sync(context.Background(), s); !errors.Is(err, vrf.ErrInvalid) {
			t.Errorf("%s: Sync: %v", name, err)
		}
	}
	if _, err := k.Apply(context.Background(), vrf.Changes{DeleteRoutes: []vrf.Route{{Table: 254, Type: vrf.RouteUnicast,
		Dst: netip.MustParsePrefix("198.51.100.0/24"), Dev: "breth0"}}}); !errors.Is(err, vrf.ErrInvalid) {
		t.Errorf("deleting from table main: %v", err)
	}
	rs, _ := h.RouteListFiltered(netlink.FAMILY_V4, &netlink.Route{Table: 254, Protocol: 85}, netlink.RT_FILTER_TABLE|netlink.RT_FILTER_PROTOCOL)
	if len(rs) != 1 {
		t.Errorf("table main holds %d routes of protocol 85, want the other owner's one", len(rs))
	}
	if rs, _ := h.RouteListFiltered(netlink.FAMILY_V4, &netlink.Route{Table: 1001}, netlink.RT_FILTER_TABLE); len(rs) != 0 {
		t.Errorf("a refused state wrote %d routes", len(rs))
	}
}

// TestLongNamesAndPaths: a 260-byte cgroup path and a 124-character
// network name fit their rule and chain comments: the batch is applied (no
// ERANGE), the rules match, and a second Sync recognises every rule.
func TestLongNamesAndPaths(t *testing.T) {
	h, ns := freshNetns(t)
	root := cgroup2Root(t)
	base := filepath.Join(root, fmt.Sprintf("udnkit-long-%d.slice", os.Getpid()))
	long := base
	for i := 0; len(long)-len(root) < 260; i++ {
		long = filepath.Join(long, strings.Repeat(string(rune('a'+i)), 60))
	}
	if err := os.MkdirAll(long, 0o755); err != nil {
		need(t, "cannot create cgroups under "+root+": "+err.Error())
	}
	defer func() {
		for d := long; strings.HasPrefix(d, base); d = filepath.Dir(d) {
			os.Remove(d)
		}
	}()
	rel, _ := filepath.Rel(root, long)
	if len(rel) < 260 {
		t.Fatalf("path of %d bytes", len(rel))
	}
	dummy(t, h, "breth0", "172.18.0.3/16", "169.254.0.2/17")
	dummy(t, h, "ovn-k8s-mp1")
	name := strings.Repeat("n", 62) + "_" + strings.Repeat("b", 61)
	b := blue
	b.Network = &udn.Network{Name: name, ID: 1, Topology: udn.TopologyLayer3, Role: udn.RolePrimary,
		Subnets: blue.Network.Subnets}
	s, err := vrf.Plan(vrf.Input{
		Node:     vrf.Node{Name: "node1", Bridge: "breth0", KubeletCgroup: rel},
		Networks: []vrf.Network{b},
		Cluster:  vrf.Cluster{ServiceCIDRs: []netip.Prefix{netip.MustParsePrefix("10.96.0.0/16")}},
		Pods: vrf.Pods{DefaultIPs: []netip.Addr{netip.MustParseAddr("10.244.1.5")},
			HostNetworked: []vrf.HostNetworkedPod{{Namespace: "ns", Name: "p", Cgroup: rel, AllowedIPs: []netip.Addr{netip.MustParseAddr("10.96.0.1")}}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	k := newKernel(t, h, ns, kernel.CgroupID(root))
	if res := sync(t, k, withoutVRFs(s)); res.Batches != 1 || res.ChainsWritten != len(s.NFT.Chains) {
		t.Errorf("first apply: %+v", res)
	}
	if again := sync(t, k, withoutVRFs(s)); again != (kernel.Result{}) {
		t.Errorf("second apply: %+v", again)
	}
	checkObserved(t, k, withoutVRFs(s))
}
