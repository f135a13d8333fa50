package kernel_test

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"os"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/google/nftables"
	"github.com/google/nftables/binaryutil"
	"github.com/google/nftables/expr"
	"github.com/vishvananda/netlink"
	"github.com/vishvananda/netns"
	"golang.org/x/sys/unix"

	"github.com/udnkit/udnkit/backend/kernel"
	"github.com/udnkit/udnkit/internal/sdkerr"
	"github.com/udnkit/udnkit/netconf/udn"
	"github.com/udnkit/udnkit/vrf"
)

func need(t testing.TB, why string) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf("CI=true and %s", why)
	}
	t.Skip(why)
}

// freshNetns returns a netlink handle into a new network namespace, and
// the namespace.
func freshNetns(t testing.TB) (*netlink.Handle, netns.NsHandle) {
	t.Helper()
	if os.Geteuid() != 0 {
		need(t, "network namespaces need root")
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	orig, err := netns.Get()
	if err != nil {
		t.Fatal(err)
	}
	defer orig.Close()
	ns, err := netns.New()
	if err != nil {
		t.Fatal(err)
	}
	if err := netns.Set(orig); err != nil {
		t.Fatal(err)
	}
	h, err := netlink.NewHandleAt(ns)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close(); ns.Close() })
	return h, ns
}

// newKernel returns the adapter of the namespace ns (h its handle);
// cgroupID may be nil.
func newKernel(t testing.TB, h *netlink.Handle, ns netns.NsHandle, cgroupID func(string) (uint64, error)) *kernel.Kernel {
	t.Helper()
	conn, err := nftables.New(nftables.WithNetNSFd(int(ns)))
	if err != nil {
		t.Fatal(err)
	}
	k, err := kernel.New(kernel.Config{Netlink: h, NFT: conn, CgroupID: cgroupID, NetNSFd: int(ns)})
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// sync runs k.Sync and fails the test on an error.
func sync(t *testing.T, k *kernel.Kernel, desired vrf.State) kernel.Result {
	t.Helper()
	_, res, err := k.Sync(context.Background(), desired)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// dummy adds a link called name (one end of a veth pair: this kernel has
// no dummy devices) with addrs, up.
func dummy(t testing.TB, h *netlink.Handle, name string, addrs ...string) {
	t.Helper()
	if err := h.LinkAdd(&netlink.Veth{LinkAttrs: netlink.LinkAttrs{Name: name}, PeerName: name + "-p"}); err != nil {
		t.Fatal(err)
	}
	if peer, err := h.LinkByName(name + "-p"); err == nil {
		_ = h.LinkSetUp(peer)
	}
	l, err := h.LinkByName(name)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range addrs {
		p := netip.MustParsePrefix(a)
		if err := h.AddrAdd(l, &netlink.Addr{IPNet: &net.IPNet{IP: p.Addr().AsSlice(), Mask: net.CIDRMask(p.Bits(), p.Addr().BitLen())}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := h.LinkSetUp(l); err != nil {
		t.Fatal(err)
	}
}

func plan(t testing.TB, nets ...vrf.Network) vrf.State {
	t.Helper()
	s, err := vrf.Plan(vrf.Input{
		Node:     vrf.Node{Name: "node1", Bridge: "breth0", Gateways: []netip.Addr{netip.MustParseAddr("172.18.0.1")}},
		Networks: nets,
		Cluster:  vrf.Cluster{ServiceCIDRs: []netip.Prefix{netip.MustParsePrefix("10.96.0.0/16")}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

var (
	blue = vrf.Network{Network: &udn.Network{Name: "ns1_blue", ID: 1, Topology: udn.TopologyLayer3, Role: udn.RolePrimary,
		Subnets: []udn.Subnet{{CIDR: netip.MustParsePrefix("10.128.0.0/16"), HostPrefix: 24}}},
		HostSubnets: []netip.Prefix{netip.MustParsePrefix("10.128.1.0/24")},
		NodePorts:   []vrf.L4Port{{Protocol: vrf.TCP, Port: 30080}}}
	red = vrf.Network{Network: &udn.Network{Name: "ns2_red", ID: 2, Topology: udn.TopologyLayer2, Role: udn.RolePrimary,
		Subnets: []udn.Subnet{{CIDR: netip.MustParsePrefix("10.128.0.0/16")}}}}
)

// withoutVRFs is s for this kernel, which has no VRF devices: the
// management ports stay unenslaved, the tables exist all the same.
func withoutVRFs(s vrf.State) vrf.State {
	var links []vrf.Link
	for _, l := range s.Links {
		if l.Kind == vrf.LinkManagementPort {
			l.Master = ""
			links = append(links, l)
		}
	}
	s.Links = links
	return s
}

func routes(t *testing.T, h *netlink.Handle, table int) []netlink.Route {
	t.Helper()
	rs, err := h.RouteListFiltered(netlink.FAMILY_ALL, &netlink.Route{Table: table}, netlink.RT_FILTER_TABLE)
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

func TestApplyInANetworkNamespace(t *testing.T) {
	h, ns := freshNetns(t)
	dummy(t, h, "breth0", "172.18.0.3/16", "169.254.0.2/17")
	dummy(t, h, "ovn-k8s-mp1")
	dummy(t, h, "ovn-k8s-mp2")
	k := newKernel(t, h, ns, nil)
	ctx := context.Background()

	// A kernel without VRFs refuses the plan before changing anything.
	both := plan(t, blue, red)
	_, _, err := k.Sync(ctx, both)
	var nse *kernel.NotSupportedError
	if !errors.As(err, &nse) || !errors.Is(err, kernel.ErrNotSupported) {
		if err == nil {
			need(t, "this kernel has VRF devices: the not-supported path is tested on kernels without them")
		}
		t.Fatalf("VRF on a kernel without them: %v", err)
	}
	if len(routes(t, h, 1001))+len(routes(t, h, 1002)) != 0 {
		t.Fatal("routes were written before the VRF failed")
	}

	// A foreign route in the network's table and a foreign rule.
	mp1, _ := h.LinkByName("ovn-k8s-mp1")
	foreign := &netlink.Route{Table: 1001, Protocol: unix.RTPROT_STATIC, Dst: &net.IPNet{IP: net.IP{192, 0, 2, 0}, Mask: net.CIDRMask(24, 32)}, LinkIndex: mp1.Attrs().Index}
	if err := h.RouteAdd(foreign); err != nil {
		t.Fatal(err)
	}
	fr := netlink.NewRule()
	fr.Priority, fr.Table, fr.Mark, fr.Family = 100, 1001, 0x77, netlink.FAMILY_V4
	if err := h.RuleAdd(fr); err != nil {
		t.Fatal(err)
	}

	desired := withoutVRFs(both)
	res := sync(t, k, desired)
	if res.RoutesAdded != len(desired.Routes) || res.RulesAdded != len(desired.Rules) || res.RoutesDeleted+res.RulesDeleted != 0 ||
		res.SetsCreated != len(desired.NFT.Sets) || res.ChainsWritten != len(desired.NFT.Chains) || res.Batches != 1 ||
		res.ElementsAdded != 1 { // blue's NodePort: a map element jumping to a chain of the same batch
		t.Errorf("first apply: %+v for %d routes, %d rules, %d sets, %d chains", res, len(desired.Routes), len(desired.Rules),
			len(desired.NFT.Sets), len(desired.NFT.Chains))
	}
	if again := sync(t, k, desired); again != (kernel.Result{}) {
		t.Errorf("second apply: %+v", again)
	}
	checkObserved(t, k, desired)
	mp1, _ = h.LinkByName("ovn-k8s-mp1")
	if mp1.Attrs().HardwareAddr.String() != "0a:58:0a:80:01:02" || mp1.Attrs().MTU != 1400 {
		t.Errorf("management port: %s mtu %d", mp1.Attrs().HardwareAddr, mp1.Attrs().MTU)
	}
	var ours int
	for _, r := range routes(t, h, 1001) {
		if r.Protocol == 85 {
			ours++
		}
	}
	var planned int
	for _, r := range desired.Routes {
		if r.Table == 1001 {
			planned++
		}
	}
	if ours != planned || len(routes(t, h, 1001)) != planned+1 {
		t.Errorf("table 1001: %d routes of protocol 85 (want %d), %d in all (want %d with the foreign one)", ours, planned, len(routes(t, h, 1001)), planned+1)
	}

	// Chains named like marking chains that the SDK did not write: one
	// setting a mark without the SDK's comment (as `nft add rule` writes
	// it), an empty one, one of a name no mark spells.
	conn, err := nftables.New(nftables.WithNetNSFd(int(ns)))
	if err != nil {
		t.Fatal(err)
	}
	table := &nftables.Table{Family: nftables.TableFamilyINet, Name: vrf.NFTTable}
	foreignChains := map[string]int{"udn-mark-0x1005": 1, "udn-mark-0x1006": 0, "udn-mark-0xforeign": 0}
	for name, rules := range foreignChains {
		c := conn.AddChain(&nftables.Chain{Name: name, Table: table})
		for range rules {
			conn.AddRule(&nftables.Rule{Table: table, Chain: c, Exprs: []expr.Any{
				&expr.Immediate{Register: 1, Data: binaryutil.NativeEndian.PutUint32(0x1005)},
				&expr.Meta{Key: expr.MetaKeyMARK, SourceRegister: true, Register: 1}}})
		}
	}
	if err := conn.Flush(); err != nil {
		t.Fatal(err)
	}

	// red goes: its routes and rules go, then its marking chain; blue's
	// and the foreign ones stay.
	if err := k.Remove(ctx, withoutVRFs(plan(t, red))); err != nil {
		t.Fatal(err)
	}
	if n := len(routes(t, h, 1002)); n != 0 {
		t.Errorf("table 1002 keeps %d routes", n)
	}
	if again := sync(t, k, withoutVRFs(plan(t, blue))); again != (kernel.Result{ChainsDeleted: 1, Batches: 1}) {
		t.Errorf("blue after red left: %+v", again)
	}
	if again := sync(t, k, withoutVRFs(plan(t, blue))); again != (kernel.Result{}) {
		t.Errorf("blue again: %+v", again)
	}
	rules, _ := h.RuleList(netlink.FAMILY_V4)
	var foreignRule, redRules bool
	for _, r := range rules {
		foreignRule = foreignRule || r.Priority == 100 && r.Mark == 0x77
		redRules = redRules || r.Priority == 2000 && r.Table == 1002
	}
	if !foreignRule || redRules {
		t.Errorf("rules: foreign kept %v, red's left %v", foreignRule, redRules)
	}
	found := false
	for _, r := range routes(t, h, 1001) {
		found = found || r.Protocol == unix.RTPROT_STATIC && r.Dst != nil && r.Dst.String() == "192.0.2.0/24"
	}
	if !found {
		t.Error("the foreign route in table 1001 is gone")
	}
	chains, err := conn.ListChainsOfTableFamily(nftables.TableFamilyINet)
	if err != nil {
		t.Fatal(err)
	}
	left := map[string]bool{}
	for _, c := range chains {
		if c.Table.Name != vrf.NFTTable {
			continue
		}
		left[c.Name] = true
		if want, ok := foreignChains[c.Name]; ok {
			if rules, err := conn.GetRules(table, c); err != nil || len(rules) != want {
				t.Errorf("foreign chain %s: %d rules (want %d), %v", c.Name, len(rules), want, err)
			}
		}
	}
	for name := range foreignChains {
		if !left[name] {
			t.Errorf("the foreign chain %s was deleted", name)
		}
	}
	if left[vrf.MarkChainName(red.Network.ID)] || !left[vrf.MarkChainName(blue.Network.ID)] {
		t.Errorf("marking chains left: %v (red's must go, blue's stay)", left)
	}
}

// checkObserved reads the kernel back and compares it with desired.
func checkObserved(t *testing.T, k *kernel.Kernel, desired vrf.State) {
	t.Helper()
	observed, err := k.Observe(context.Background(), desired)
	if err != nil {
		t.Fatal(err)
	}
	if d := vrf.Diff(observed, desired); d.Len() != 0 {
		t.Errorf("the kernel differs from the plan: %+v", d)
	}
}

// TestApplyConvergesAfterAFailure: an Apply that stops halfway (red's
// management port does not exist yet: blue's port is configured, then the
// apply fails) leaves a kernel from which the next Apply, once the port
// exists, reaches the plan exactly.
func TestApplyConvergesAfterAFailure(t *testing.T) {
	h, ns := freshNetns(t)
	dummy(t, h, "breth0", "172.18.0.3/16", "169.254.0.2/17")
	dummy(t, h, "ovn-k8s-mp1")
	k := newKernel(t, h, ns, nil)
	desired := withoutVRFs(plan(t, blue, red))
	if _, _, err := k.Sync(context.Background(), desired); err == nil {
		t.Fatal("applying with red's management port missing succeeded")
	}
	mp1, _ := h.LinkByName("ovn-k8s-mp1")
	if mp1.Attrs().MTU != 1400 {
		t.Fatalf("the failed apply did not get as far as blue's port (mtu %d)", mp1.Attrs().MTU)
	}
	dummy(t, h, "ovn-k8s-mp2")
	sync(t, k, desired)
	checkObserved(t, k, desired)
	if again := sync(t, k, desired); again != (kernel.Result{}) {
		t.Errorf("third apply: %+v", again)
	}
}

// TestEgressIPsOnTheBridge: the node's egress IPs go on the bridge with
// the SDK's protocol (full length, IPv6 without DAD) and are read back as
// the SDK's, so a second Sync changes nothing; an egress IP that moves
// away is deleted while the bridge's own address and a hand-added one
// stay; a planned address someone else put there is refused, not taken.
func TestEgressIPsOnTheBridge(t *testing.T) {
	h, ns := freshNetns(t)
	dummy(t, h, "breth0", "172.18.0.3/16", "192.0.2.99/32")
	k := newKernel(t, h, ns, nil)
	withEgress := func(ips ...string) vrf.State {
		in := vrf.Input{Node: vrf.Node{Name: "node1", Bridge: "breth0", Gateways: []netip.Addr{netip.MustParseAddr("172.18.0.1")}}}
		for _, ip := range ips {
			in.Node.EgressIPs = append(in.Node.EgressIPs, netip.MustParseAddr(ip))
		}
		s, err := vrf.Plan(in)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	bridgeAddrs := func() map[string]netlink.Addr {
		l, err := h.LinkByName("breth0")
		if err != nil {
			t.Fatal(err)
		}
		all, err := h.AddrList(l, netlink.FAMILY_ALL)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]netlink.Addr{}
		for _, a := range all {
			out[a.IPNet.String()] = a
		}
		return out
	}

	desired := withEgress("172.18.0.100", "2001:db8::100")
	if res := sync(t, k, desired); res.AddressesAdded != 2 || res.AddressesDeleted != 0 {
		t.Errorf("first sync: %+v", res)
	}
	have := bridgeAddrs()
	for _, want := range []string{"172.18.0.100/32", "2001:db8::100/128", "172.18.0.3/16", "192.0.2.99/32"} {
		if _, ok := have[want]; !ok {
			t.Errorf("breth0 lacks %s: %v", want, have)
		}
	}
	if a := have["2001:db8::100/128"]; a.Flags&unix.IFA_F_NODAD == 0 {
		t.Errorf("the IPv6 egress IP was added with DAD (flags %#x)", a.Flags)
	}
	if again := sync(t, k, desired); again != (kernel.Result{}) {
		t.Errorf("second sync (the addresses not read back as the SDK's?): %+v", again)
	}
	checkObserved(t, k, desired)

	// The IPv6 egress IP moves to another node.
	if res := sync(t, k, withEgress("172.18.0.100")); res.AddressesDeleted != 1 || res.AddressesAdded != 0 {
		t.Errorf("after the IPv6 egress IP left: %+v", res)
	}
	have = bridgeAddrs()
	for _, want := range []string{"172.18.0.100/32", "172.18.0.3/16", "192.0.2.99/32"} {
		if _, ok := have[want]; !ok {
			t.Errorf("breth0 lost %s: %v", want, have)
		}
	}
	if _, ok := have["2001:db8::100/128"]; ok {
		t.Error("the IPv6 egress IP that left is still on breth0")
	}

	// 192.0.2.99/32 is someone else's (no protocol): planned, it is
	// refused as another owner's and stays as it was.
	_, _, err := k.Sync(context.Background(), withEgress("172.18.0.100", "192.0.2.99"))
	if !errors.Is(err, sdkerr.Conflict) || !strings.Contains(err.Error(), "192.0.2.99") {
		t.Errorf("an address of another owner planned: %v, want a conflict naming it", err)
	}
	if _, ok := bridgeAddrs()["192.0.2.99/32"]; !ok {
		t.Error("the foreign address is gone")
	}
	observed, err := k.Observe(context.Background(), desired)
	if err != nil {
		t.Fatal(err)
	}
	if want := []vrf.Address{{Dev: "breth0", Addr: netip.MustParseAddr("172.18.0.100")}}; !slices.Equal(observed.Addresses, want) {
		t.Errorf("observed addresses %v, want %v (the foreign ones are not the SDK's)", observed.Addresses, want)
	}
	// A scope without the bridge (rules alone) reads no address: none is
	// deleted by its Sync.
	observed, err = k.Observe(context.Background(), vrf.State{Rules: []vrf.Rule{{Table: vrf.TableBase + 1, Mark: 0x1001}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(observed.Addresses) != 0 {
		t.Errorf("observed addresses of a scope without the bridge: %v", observed.Addresses)
	}

	// An address of the SDK's protocol on another device (another
	// bridge's, or the reference's) is not read on breth0's plan: the
	// next Sync leaves it.
	dummy(t, h, "other0")
	other := withEgress("198.51.100.5")
	other.Bridge, other.Addresses[0].Dev = "other0", "other0"
	if res := sync(t, k, other); res.AddressesAdded != 1 || res.AddressesDeleted != 0 {
		t.Errorf("other0's egress IP: %+v", res)
	}
	if res := sync(t, k, withEgress("172.18.0.100")); res != (kernel.Result{}) {
		t.Errorf("breth0's plan after other0 got an address of protocol 85: %+v", res)
	}
	l, err := h.LinkByName("other0")
	if err != nil {
		t.Fatal(err)
	}
	if all, err := h.AddrList(l, netlink.FAMILY_V4); err != nil || len(all) != 1 || all[0].IPNet.String() != "198.51.100.5/32" {
		t.Errorf("other0's addresses: %v, %v", all, err)
	}
}
