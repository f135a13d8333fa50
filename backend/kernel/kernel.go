package kernel

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"slices"
	"strings"
	"syscall"

	"github.com/google/nftables"
	"github.com/vishvananda/netlink"
	"github.com/vishvananda/netns"
	"golang.org/x/sys/unix"

	"github.com/udnkit/udnkit/backend"
	"github.com/udnkit/udnkit/internal/sdkerr"
	"github.com/udnkit/udnkit/vrf"
)

// ErrNotSupported is wrapped when the kernel lacks a feature the plan needs;
// NotSupportedError names it.
var ErrNotSupported = sdkerr.New(sdkerr.NotSupported, "not supported by this kernel")

// NotSupportedError says which kernel feature is missing.
type NotSupportedError struct {
	// Feature is the missing feature ("VRF devices (CONFIG_NET_VRF)").
	Feature string
	Err     error
}

func (e *NotSupportedError) Error() string {
	return fmt.Sprintf("kernel: %s: %v: %v", e.Feature, ErrNotSupported, e.Err)
}

// Unwrap returns ErrNotSupported and the kernel's error.
func (e *NotSupportedError) Unwrap() []error { return []error{ErrNotSupported, e.Err} }

// ErrMissingLink is wrapped when a management port does not exist: Open
// vSwitch creates it (an internal port), the plan only configures it.
var ErrMissingLink = sdkerr.New(sdkerr.NotFound, "link does not exist")

// Kernel applies vrf plans to one network namespace: links, routes and
// rules through a netlink handle, the nftables part through a
// google/nftables connection. It is not safe for concurrent use.
type Kernel struct {
	h        *netlink.Handle
	nft      *nftables.Conn
	cgroupID func(string) (uint64, error)
	netns    netns.NsHandle // of the route netlink requests the handle cannot make
}

// Config says where a Kernel writes.
type Config struct {
	// Netlink is the handle of the network namespace (netlink.NewHandleAt,
	// or netlink.NewHandle for the current one). Required.
	Netlink *netlink.Handle
	// NFT is an nftables connection to the same namespace (nftables.New,
	// with nftables.WithNetNSFd for another one). Required.
	NFT *nftables.Conn
	// CgroupID resolves the plan's cgroup v2 paths (the kubelet's,
	// host-networked pods') to IDs; nil is CgroupID("/sys/fs/cgroup").
	CgroupID func(path string) (uint64, error)
	// NetNSFd is the network namespace Netlink and NFT are in, for the
	// requests the netlink handle cannot make (addresses with their
	// protocol); 0 is the current namespace.
	NetNSFd int
}

// New returns the adapter of cfg.
func New(cfg Config) (*Kernel, error) {
	if cfg.Netlink == nil || cfg.NFT == nil {
		return nil, fmt.Errorf("kernel: %w: Config.Netlink and Config.NFT are required", vrf.ErrInvalid)
	}
	if cfg.CgroupID == nil {
		cfg.CgroupID = CgroupID("/sys/fs/cgroup")
	}
	ns := netns.None()
	if cfg.NetNSFd > 0 {
		ns = netns.NsHandle(cfg.NetNSFd)
	}
	return &Kernel{h: cfg.Netlink, nft: cfg.NFT, cgroupID: cfg.CgroupID, netns: ns}, nil
}

var _ backend.NodeApplier[vrf.State, vrf.Changes, Result] = (*Kernel)(nil)

// Result counts what an Apply or Sync changed.
type Result struct {
	Links, LinksDeleted, RoutesAdded, RoutesDeleted, RulesAdded, RulesDeleted int
	// The nftables part: sets and maps, their elements, chains written
	// (created or their rules rewritten) and deleted, and the batches sent
	// (one per Apply with nftables changes, none without).
	SetsCreated, SetsDeleted, ElementsAdded, ElementsDeleted, ChainsWritten, ChainsDeleted, Batches int
	// AddressesAdded and AddressesDeleted count the egress IPs put on or
	// taken off the bridge.
	AddressesAdded, AddressesDeleted int
}

// Sync makes the kernel hold desired: it refuses a desired state that does
// not validate (vrf.State.Validate) before it reads or writes anything,
// observes desired's scope, diffs (vrf.Diff) and applies. It owns the
// routes of protocol vrf.RouteProtocol in desired's tables, the rules at
// vrf.RulePriority that look them up and the SDK's sets, maps and chains
// of table inet vrf.NFTTable; other routes, rules and nftables objects are
// never touched. Applying twice changes nothing.
func (k *Kernel) Sync(ctx context.Context, desired vrf.State) (vrf.Changes, Result, error) {
	if err := desired.Validate(); err != nil {
		return vrf.Changes{}, Result{}, fmt.Errorf("kernel: %w", err)
	}
	observed, err := k.Observe(ctx, desired)
	if err != nil {
		return vrf.Changes{}, Result{}, err
	}
	changes := vrf.Diff(observed, desired)
	res, err := k.Apply(ctx, changes)
	return changes, res, err
}

// Apply writes changes (from vrf.Diff against what Observe returned),
// refusing changes that do not validate (vrf.Changes.Validate) before
// anything is written. VRFs are created first, so a kernel without VRF
// support fails the apply (*NotSupportedError) before anything else
// changed; then management ports, routes and rules (deletes first); then
// the nftables changes in one batch. A changed link is in AddLinks and is
// brought to its planned state; deleted links are VRFs (management ports
// are Open vSwitch's and stay). A partial failure leaves a kernel the
// next Sync converges from.
func (k *Kernel) Apply(ctx context.Context, c vrf.Changes) (Result, error) {
	var res Result
	if err := c.Validate(); err != nil {
		return res, fmt.Errorf("kernel: %w", err)
	}
	for _, kind := range []vrf.LinkKind{vrf.LinkVRF, vrf.LinkManagementPort} {
		for _, l := range c.AddLinks {
			if l.Kind != kind {
				continue
			}
			if err := ctx.Err(); err != nil {
				return res, err
			}
			ensure := k.ensureVRF
			if kind == vrf.LinkManagementPort {
				ensure = k.ensurePort
			}
			changed, err := ensure(l)
			if err != nil {
				return res, err
			}
			if changed {
				res.Links++
			}
		}
	}
	for _, a := range c.DeleteAddresses {
		if err := k.deleteAddress(a); err != nil {
			return res, err
		}
		res.AddressesDeleted++
	}
	for _, a := range c.AddAddresses {
		if err := k.addAddress(a); err != nil {
			return res, err
		}
		res.AddressesAdded++
	}
	for _, r := range c.DeleteRoutes {
		nr, err := k.route(r)
		if err != nil {
			nr = &netlink.Route{Table: r.Table, Dst: ipNet(r.Dst), Protocol: vrf.RouteProtocol, Priority: r.Metric}
		}
		if err := k.h.RouteDel(nr); err != nil && !errors.Is(err, syscall.ESRCH) {
			return res, sdkerr.Errorf(sdkerr.Refused, "kernel: delete route %s: %w", r, err)
		}
		res.RoutesDeleted++
	}
	for _, r := range c.AddRoutes {
		nr, err := k.route(r)
		if err != nil {
			return res, err
		}
		if err := k.h.RouteReplace(nr); err != nil {
			return res, sdkerr.Errorf(sdkerr.Refused, "kernel: route %s: %w", r, err)
		}
		res.RoutesAdded++
	}
	for _, r := range c.DeleteRules {
		if err := k.h.RuleDel(toRule(r)); err != nil && !errors.Is(err, syscall.ENOENT) {
			return res, sdkerr.Errorf(sdkerr.Refused, "kernel: delete rule %s: %w", r, err)
		}
		res.RulesDeleted++
	}
	for _, r := range c.AddRules {
		if err := k.h.RuleAdd(toRule(r)); err != nil && !errors.Is(err, syscall.EEXIST) {
			return res, sdkerr.Errorf(sdkerr.Refused, "kernel: rule %s: %w", r, err)
		}
		res.RulesAdded++
	}
	if err := ctx.Err(); err != nil {
		return res, err
	}
	if err := k.applyNFT(c, &res); err != nil {
		return res, err
	}
	for _, l := range c.DeleteLinks {
		if l.Kind != vrf.LinkVRF {
			continue
		}
		if link, err := k.h.LinkByName(l.Name); err == nil {
			if _, ok := link.(*netlink.Vrf); !ok {
				return res, sdkerr.Errorf(sdkerr.Conflict, "kernel: link %s: is a %s, not a VRF: not deleted", l.Name, link.Type())
			}
			if err := k.h.LinkDel(link); err != nil {
				return res, sdkerr.Errorf(sdkerr.Refused, "kernel: delete VRF %s: %w", l.Name, err)
			}
			res.LinksDeleted++
		}
	}
	return res, nil
}

// Remove deletes what Sync wrote for a network that is no longer planned:
// the routes of protocol vrf.RouteProtocol in gone's tables, the rules at
// vrf.RulePriority looking them up, and gone's VRF devices (management
// ports are Open vSwitch's and stay). Its marking chain goes with the
// next Sync, which sees it unplanned. gone must validate.
func (k *Kernel) Remove(ctx context.Context, gone vrf.State) error {
	if err := gone.Validate(); err != nil {
		return fmt.Errorf("kernel: %w", err)
	}
	scope := vrf.State{Links: gone.Links, Routes: gone.Routes, Rules: gone.Rules}
	observed, err := k.Observe(ctx, scope)
	if err != nil {
		return err
	}
	c := vrf.Diff(observed, vrf.State{})
	c.DeleteChains, c.DeleteSets, c.DeleteElements, c.DeleteAddresses = nil, nil, nil, nil
	_, err = k.Apply(ctx, c)
	return err
}

func planTables(s vrf.State) map[int]bool {
	t := map[int]bool{}
	for _, r := range s.Routes {
		t[r.Table] = true
	}
	for _, r := range s.Rules {
		t[r.Table] = true
	}
	return t
}

func (k *Kernel) ensureVRF(l vrf.Link) (bool, error) {
	link, err := k.h.LinkByName(l.Name)
	if err == nil {
		v, ok := link.(*netlink.Vrf)
		if !ok {
			return false, sdkerr.Errorf(sdkerr.Conflict, "kernel: link %s: is a %s, not a VRF", l.Name, link.Type())
		}
		if int(v.Table) == l.Table {
			if link.Attrs().Flags&net.FlagUp == 0 {
				if err := k.h.LinkSetUp(link); err != nil {
					return true, sdkerr.Errorf(sdkerr.Refused, "kernel: VRF %s: up: %w", l.Name, err)
				}
				return true, nil
			}
			return false, nil
		}
		// The table is fixed at creation: recreate the device.
		if err := k.h.LinkDel(link); err != nil {
			return false, sdkerr.Errorf(sdkerr.Refused, "kernel: VRF %s: replace (table %d, want %d): %w", l.Name, v.Table, l.Table, err)
		}
	}
	v := &netlink.Vrf{LinkAttrs: netlink.LinkAttrs{Name: l.Name}, Table: uint32(l.Table)}
	if err := k.h.LinkAdd(v); err != nil {
		if errors.Is(err, unix.EOPNOTSUPP) || strings.Contains(err.Error(), "not supported") {
			return false, &NotSupportedError{Feature: "VRF devices (CONFIG_NET_VRF)", Err: err}
		}
		return false, sdkerr.Errorf(sdkerr.Refused, "kernel: create VRF %s: %w", l.Name, err)
	}
	link, err = k.h.LinkByName(l.Name)
	if err != nil {
		return false, sdkerr.Errorf(sdkerr.Refused, "kernel: VRF %s: %w", l.Name, err)
	}
	if err := k.h.LinkSetUp(link); err != nil {
		return true, sdkerr.Errorf(sdkerr.Refused, "kernel: VRF %s: up: %w", l.Name, err)
	}
	return true, nil
}

func (k *Kernel) ensurePort(l vrf.Link) (bool, error) {
	link, err := k.h.LinkByName(l.Name)
	if err != nil {
		return false, fmt.Errorf("kernel: management port %s: %w: %v", l.Name, ErrMissingLink, err)
	}
	changed := false
	a := link.Attrs()
	if l.MAC != nil && !slices.Equal(a.HardwareAddr, l.MAC) {
		if err := k.h.LinkSetHardwareAddr(link, l.MAC); err != nil {
			return false, sdkerr.Errorf(sdkerr.Refused, "kernel: %s: address %s: %w", l.Name, l.MAC, err)
		}
		changed = true
	}
	if l.MTU != 0 && a.MTU != l.MTU {
		if err := k.h.LinkSetMTU(link, l.MTU); err != nil {
			return false, sdkerr.Errorf(sdkerr.Refused, "kernel: %s: mtu %d: %w", l.Name, l.MTU, err)
		}
		changed = true
	}
	if l.Master != "" {
		master, err := k.h.LinkByName(l.Master)
		if err != nil {
			return false, sdkerr.Errorf(sdkerr.NotFound, "kernel: %s: master %s: %w", l.Name, l.Master, err)
		}
		if a.MasterIndex != master.Attrs().Index {
			if err := k.h.LinkSetMasterByIndex(link, master.Attrs().Index); err != nil {
				return false, sdkerr.Errorf(sdkerr.Refused, "kernel: %s: master %s: %w", l.Name, l.Master, err)
			}
			changed = true
		}
	}
	if a.Flags&net.FlagUp == 0 {
		if err := k.h.LinkSetUp(link); err != nil {
			return false, sdkerr.Errorf(sdkerr.Refused, "kernel: %s: up: %w", l.Name, err)
		}
		changed = true
	}
	have, err := k.h.AddrList(link, netlink.FAMILY_ALL)
	if err != nil {
		return false, sdkerr.Errorf(sdkerr.Refused, "kernel: %s: addresses: %w", l.Name, err)
	}
	for _, want := range l.Addresses {
		if slices.ContainsFunc(have, func(h netlink.Addr) bool { return prefixOf(h.IPNet) == want }) {
			continue
		}
		if err := k.h.AddrReplace(link, &netlink.Addr{IPNet: ipNet(want)}); err != nil {
			return false, sdkerr.Errorf(sdkerr.Refused, "kernel: %s: address %s: %w", l.Name, want, err)
		}
		changed = true
	}
	return changed, nil
}

// listRoutes returns the kernel's routes of protocol vrf.RouteProtocol in
// tables: one dump per family, filtered here.
func (k *Kernel) listRoutes(tables map[int]bool) ([]netlink.Route, error) {
	var have []netlink.Route
	if len(tables) == 0 {
		return nil, nil
	}
	for _, fam := range []int{netlink.FAMILY_V4, netlink.FAMILY_V6} {
		rs, err := k.h.RouteListFiltered(fam, &netlink.Route{Table: unix.RT_TABLE_UNSPEC, Protocol: vrf.RouteProtocol},
			netlink.RT_FILTER_TABLE|netlink.RT_FILTER_PROTOCOL)
		if err != nil {
			return nil, sdkerr.Errorf(sdkerr.Refused, "kernel: list routes: %w", err)
		}
		for _, r := range rs {
			if tables[r.Table] {
				have = append(have, r)
			}
		}
	}
	return have, nil
}

func (k *Kernel) route(r vrf.Route) (*netlink.Route, error) {
	nr := &netlink.Route{Table: r.Table, Protocol: vrf.RouteProtocol, Dst: ipNet(r.Dst), MTU: r.MTU, Priority: r.Metric}
	if r.Dst.Addr().Is4() {
		nr.Family = netlink.FAMILY_V4
	} else {
		nr.Family = netlink.FAMILY_V6
	}
	if r.Type == vrf.RouteUnreachable {
		nr.Type = unix.RTN_UNREACHABLE
		if r.Dst.Addr().Is6() {
			nr.LinkIndex = 1 // lo, as the reference installs it
		}
		return nr, nil
	}
	if r.Gateway.IsValid() {
		nr.Gw = r.Gateway.AsSlice()
	}
	if r.Src.IsValid() {
		nr.Src = r.Src.AsSlice()
	}
	if r.Dev != "" {
		link, err := k.h.LinkByName(r.Dev)
		if err != nil {
			return nil, sdkerr.Errorf(sdkerr.Refused, "kernel: route %s: dev %s: %w", r, r.Dev, err)
		}
		nr.LinkIndex = link.Attrs().Index
	}
	return nr, nil
}

// listRules returns the kernel's rules at vrf.RulePriority into tables.
func (k *Kernel) listRules(tables map[int]bool) ([]netlink.Rule, error) {
	var have []netlink.Rule
	for _, fam := range []int{netlink.FAMILY_V4, netlink.FAMILY_V6} {
		rs, err := k.h.RuleList(fam)
		if err != nil {
			return nil, sdkerr.Errorf(sdkerr.Refused, "kernel: list rules: %w", err)
		}
		for _, r := range rs {
			if r.Priority == vrf.RulePriority && tables[r.Table] {
				r.Family = fam
				have = append(have, r)
			}
		}
	}
	return have, nil
}

func toRule(r vrf.Rule) *netlink.Rule {
	nr := netlink.NewRule()
	nr.Priority, nr.Table = vrf.RulePriority, r.Table
	nr.Family = netlink.FAMILY_V4
	if r.IPv6 {
		nr.Family = netlink.FAMILY_V6
	}
	if r.Mark != 0 {
		nr.Mark = r.Mark
	}
	if r.To.IsValid() {
		nr.Dst = ipNet(r.To)
	}
	return nr
}

func ipNet(p netip.Prefix) *net.IPNet {
	return &net.IPNet{IP: p.Addr().AsSlice(), Mask: net.CIDRMask(p.Bits(), p.Addr().BitLen())}
}

func prefixOf(n *net.IPNet) netip.Prefix {
	a, _ := netip.AddrFromSlice(n.IP)
	ones, _ := n.Mask.Size()
	return netip.PrefixFrom(a.Unmap(), ones)
}

func zeroOf(v4 bool) netip.Addr {
	if v4 {
		return netip.IPv4Unspecified()
	}
	return netip.IPv6Unspecified()
}

// Observe reads back what the kernel holds of plan's objects: its links,
// the routes of protocol vrf.RouteProtocol in its tables, the rules at
// vrf.RulePriority that look them up, and the SDK's sets, maps and chains
// of table inet vrf.NFTTable (plan's, and every marking chain), in the
// plan's terms, sorted as vrf.Plan sorts (compare with vrf.Diff). A rule
// is recognised by the comment Apply wrote on it; one that carries no
// planned rule's comment reads back as an NFTRule with that Comment. A
// plan without nftables objects reads (and Sync writes) none.
func (k *Kernel) Observe(ctx context.Context, plan vrf.State) (vrf.State, error) {
	var s vrf.State
	if err := ctx.Err(); err != nil {
		return s, err
	}
	// One dump of the links and one of the addresses, however many links
	// the plan has.
	var links []netlink.Link
	byName, names := map[string]netlink.Link{}, map[int]string{} // names: link names by index
	var addrs map[int][]netip.Prefix
	// The SDK's addresses are read on the plan's bridge (below), found by
	// these links.
	ownAddrs := plan.Bridge != ""
	if len(plan.Links) > 0 || len(plan.Routes) > 0 || ownAddrs {
		var err error
		if links, err = k.h.LinkList(); err != nil {
			return s, sdkerr.Errorf(sdkerr.Refused, "kernel: list links: %w", err)
		}
		for _, l := range links {
			byName[l.Attrs().Name], names[l.Attrs().Index] = l, l.Attrs().Name
		}
	}
	for _, l := range plan.Links {
		link, ok := byName[l.Name]
		if !ok {
			continue
		}
		a := link.Attrs()
		got := vrf.Link{Kind: l.Kind, Name: a.Name}
		if v, ok := link.(*netlink.Vrf); ok {
			got.Table = int(v.Table)
		} else if l.Kind == vrf.LinkManagementPort {
			got.MAC, got.MTU = a.HardwareAddr, a.MTU
			if a.MasterIndex != 0 {
				got.Master = names[a.MasterIndex]
			}
			if addrs == nil {
				all, err := k.h.AddrList(nil, netlink.FAMILY_ALL)
				if err != nil {
					return s, sdkerr.Errorf(sdkerr.Refused, "kernel: list addresses: %w", err)
				}
				addrs = map[int][]netip.Prefix{}
				for _, ad := range all {
					if p := prefixOf(ad.IPNet); !p.Addr().IsLinkLocalUnicast() {
						addrs[ad.LinkIndex] = append(addrs[ad.LinkIndex], p)
					}
				}
			}
			got.Addresses = slices.Clone(addrs[a.Index])
			slices.SortFunc(got.Addresses, func(a, b netip.Prefix) int { return a.Addr().Compare(b.Addr()) })
		}
		s.Links = append(s.Links, got)
	}
	if ownAddrs {
		// Every address of the SDK's protocol on the bridge: one the plan
		// no longer has (an egress IP moved away) is deleted. Other
		// devices' are not the SDK's to read.
		s.Bridge = plan.Bridge
		if br, ok := byName[plan.Bridge]; ok {
			var err error
			if s.Addresses, err = k.listAddresses(br.Attrs().Index, names); err != nil {
				return s, err
			}
		}
	}
	tables := planTables(plan)
	have, err := k.listRoutes(tables)
	if err != nil {
		return s, err
	}
	for _, r := range have {
		vr := vrf.Route{Table: r.Table, MTU: r.MTU, Metric: r.Priority, Type: vrf.RouteUnicast}
		if r.Type == unix.RTN_UNREACHABLE {
			vr.Type = vrf.RouteUnreachable
		}
		fam4 := r.Family == netlink.FAMILY_V4
		vr.Dst = netip.PrefixFrom(zeroOf(fam4), 0)
		if r.Dst != nil {
			vr.Dst = prefixOf(r.Dst)
		}
		if a, ok := netip.AddrFromSlice(r.Gw); ok {
			vr.Gateway = a.Unmap()
		}
		if a, ok := netip.AddrFromSlice(r.Src); ok {
			vr.Src = a.Unmap()
		}
		if vr.Type == vrf.RouteUnicast && r.LinkIndex != 0 {
			vr.Dev = names[r.LinkIndex]
		}
		s.Routes = append(s.Routes, vr)
	}
	rules, err := k.listRules(tables)
	if err != nil {
		return s, err
	}
	for _, r := range rules {
		vr := vrf.Rule{Table: r.Table, Mark: r.Mark, IPv6: r.Family == netlink.FAMILY_V6}
		if r.Dst != nil {
			vr.To = prefixOf(r.Dst)
		}
		s.Rules = append(s.Rules, vr)
	}
	if len(plan.NFT.Sets)+len(plan.NFT.Chains) > 0 { // a state without nftables speaks for none
		if s.NFT, err = k.observeNFT(plan.NFT); err != nil {
			return s, err
		}
	}
	vrf.SortState(&s)
	return s, nil
}
