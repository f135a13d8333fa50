package kernel

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"slices"
	"strings"
	"syscall"

	"github.com/vishvananda/netlink"
	"golang.org/x/sys/unix"

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

// Kernel applies vrf plans through one netlink handle, so to one network
// namespace. It is not safe for concurrent use.
type Kernel struct {
	h *netlink.Handle
}

// New returns the adapter writing through h (netlink.NewHandleAt for a
// network namespace, netlink.NewHandle for the current one).
func New(h *netlink.Handle) *Kernel { return &Kernel{h: h} }

// Result counts what Apply changed.
type Result struct {
	Links, RoutesAdded, RoutesDeleted, RulesAdded, RulesDeleted int
}

// Apply makes the kernel hold desired's links, routes and rules. It owns
// the routes of protocol vrf.RouteProtocol in the plan's tables and the
// rules at vrf.RulePriority that look them up; routes of other protocols,
// other tables' routes and other rules are never touched. VRFs are created
// first, so a kernel without VRF support fails the apply
// (*NotSupportedError) before anything else changed. Applying twice changes
// nothing. The nftables part of the plan is not applied yet.
func (k *Kernel) Apply(desired vrf.State) (Result, error) {
	var res Result
	for _, l := range desired.Links {
		if l.Kind != vrf.LinkVRF {
			continue
		}
		changed, err := k.ensureVRF(l)
		if err != nil {
			return res, err
		}
		if changed {
			res.Links++
		}
	}
	for _, l := range desired.Links {
		if l.Kind != vrf.LinkManagementPort {
			continue
		}
		changed, err := k.ensurePort(l)
		if err != nil {
			return res, err
		}
		if changed {
			res.Links++
		}
	}
	tables := planTables(desired)
	add, del, err := k.routeChanges(desired.Routes, tables)
	if err != nil {
		return res, err
	}
	for _, r := range del {
		if err := k.h.RouteDel(&r); err != nil && !errors.Is(err, syscall.ESRCH) {
			return res, sdkerr.Errorf(sdkerr.Refused, "kernel: delete route %s table %d: %w", r.Dst, r.Table, err)
		}
		res.RoutesDeleted++
	}
	for _, r := range add {
		nr, err := k.route(r)
		if err != nil {
			return res, err
		}
		if err := k.h.RouteReplace(nr); err != nil {
			return res, sdkerr.Errorf(sdkerr.Refused, "kernel: route %s: %w", r, err)
		}
		res.RoutesAdded++
	}
	radd, rdel, err := k.ruleChanges(desired.Rules, tables)
	if err != nil {
		return res, err
	}
	for _, r := range rdel {
		if err := k.h.RuleDel(r); err != nil && !errors.Is(err, syscall.ENOENT) {
			return res, sdkerr.Errorf(sdkerr.Refused, "kernel: delete rule to table %d: %w", r.Table, err)
		}
		res.RulesDeleted++
	}
	for _, r := range radd {
		if err := k.h.RuleAdd(toRule(r)); err != nil {
			return res, sdkerr.Errorf(sdkerr.Refused, "kernel: rule %s: %w", r, err)
		}
		res.RulesAdded++
	}
	return res, nil
}

// Remove deletes what Apply wrote for the tables of gone (the routes of
// protocol vrf.RouteProtocol and the rules at vrf.RulePriority looking them
// up) and its VRF devices; management ports are Open vSwitch's and stay.
func (k *Kernel) Remove(gone vrf.State) error {
	tables := planTables(gone)
	_, del, err := k.routeChanges(nil, tables)
	if err != nil {
		return err
	}
	for _, r := range del {
		if err := k.h.RouteDel(&r); err != nil && !errors.Is(err, syscall.ESRCH) {
			return sdkerr.Errorf(sdkerr.Refused, "kernel: delete route %s table %d: %w", r.Dst, r.Table, err)
		}
	}
	_, rdel, err := k.ruleChanges(nil, tables)
	if err != nil {
		return err
	}
	for _, r := range rdel {
		if err := k.h.RuleDel(r); err != nil && !errors.Is(err, syscall.ENOENT) {
			return sdkerr.Errorf(sdkerr.Refused, "kernel: delete rule to table %d: %w", r.Table, err)
		}
	}
	for _, l := range gone.Links {
		if l.Kind != vrf.LinkVRF {
			continue
		}
		if link, err := k.h.LinkByName(l.Name); err == nil {
			if err := k.h.LinkDel(link); err != nil {
				return sdkerr.Errorf(sdkerr.Refused, "kernel: delete VRF %s: %w", l.Name, err)
			}
		}
	}
	return nil
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
				return true, k.h.LinkSetUp(link)
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
			return false, sdkerr.Errorf(sdkerr.Refused, "kernel: %s: %w", l.Name, err)
		}
		changed = true
	}
	have, err := k.h.AddrList(link, netlink.FAMILY_ALL)
	if err != nil {
		return false, sdkerr.Errorf(sdkerr.Refused, "kernel: %s: %w", l.Name, err)
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

// routeChanges returns the planned routes the kernel lacks and the
// kernel's routes of the SDK (protocol, table) that the plan lacks.
func (k *Kernel) routeChanges(want []vrf.Route, tables map[int]bool) (add []vrf.Route, del []netlink.Route, err error) {
	var have []netlink.Route
	for t := range tables {
		for _, fam := range []int{netlink.FAMILY_V4, netlink.FAMILY_V6} {
			rs, err := k.h.RouteListFiltered(fam, &netlink.Route{Table: t, Protocol: vrf.RouteProtocol},
				netlink.RT_FILTER_TABLE|netlink.RT_FILTER_PROTOCOL)
			if err != nil {
				return nil, nil, sdkerr.Errorf(sdkerr.Refused, "kernel: list routes of table %d: %w", t, err)
			}
			have = append(have, rs...)
		}
	}
	keep := make([]bool, len(have))
	for _, w := range want {
		i := slices.IndexFunc(have, func(h netlink.Route) bool { return k.sameRoute(h, w) })
		if i < 0 {
			add = append(add, w)
			continue
		}
		keep[i] = true
	}
	for i, h := range have {
		if !keep[i] {
			del = append(del, h)
		}
	}
	return add, del, nil
}

func (k *Kernel) sameRoute(h netlink.Route, w vrf.Route) bool {
	dst := netip.PrefixFrom(zeroOf(w.Dst.Addr().Is4()), 0)
	if h.Dst != nil {
		dst = prefixOf(h.Dst)
	}
	if dst != w.Dst.Masked() || h.Table != w.Table || h.MTU != w.MTU || h.Priority != w.Metric {
		return false
	}
	if (w.Type == vrf.RouteUnreachable) != (h.Type == unix.RTN_UNREACHABLE) {
		return false
	}
	if gw, _ := netip.AddrFromSlice(h.Gw); w.Gateway.IsValid() != (h.Gw != nil) || w.Gateway.IsValid() && gw.Unmap() != w.Gateway {
		return false
	}
	if src, _ := netip.AddrFromSlice(h.Src); w.Src.IsValid() != (h.Src != nil) || w.Src.IsValid() && src.Unmap() != w.Src {
		return false
	}
	if w.Dev != "" {
		link, err := k.h.LinkByName(w.Dev)
		if err != nil || link.Attrs().Index != h.LinkIndex {
			return false
		}
	}
	return true
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

// ruleChanges returns the planned rules the kernel lacks and the kernel's
// rules at vrf.RulePriority into the plan's tables that the plan lacks.
func (k *Kernel) ruleChanges(want []vrf.Rule, tables map[int]bool) (add []vrf.Rule, del []*netlink.Rule, err error) {
	var have []netlink.Rule
	for _, fam := range []int{netlink.FAMILY_V4, netlink.FAMILY_V6} {
		rs, err := k.h.RuleList(fam)
		if err != nil {
			return nil, nil, sdkerr.Errorf(sdkerr.Refused, "kernel: list rules: %w", err)
		}
		for _, r := range rs {
			if r.Priority == vrf.RulePriority && tables[r.Table] {
				r.Family = fam
				have = append(have, r)
			}
		}
	}
	keep := make([]bool, len(have))
	for _, w := range want {
		i := slices.IndexFunc(have, func(h netlink.Rule) bool { return sameRule(h, w) })
		if i < 0 {
			add = append(add, w)
			continue
		}
		keep[i] = true
	}
	for i := range have {
		if !keep[i] {
			del = append(del, &have[i])
		}
	}
	return add, del, nil
}

func sameRule(h netlink.Rule, w vrf.Rule) bool {
	if h.Table != w.Table || h.Mark != w.Mark || (h.Family == netlink.FAMILY_V6) != w.IPv6 {
		return false
	}
	if w.To.IsValid() != (h.Dst != nil) {
		return false
	}
	return !w.To.IsValid() || prefixOf(h.Dst) == w.To
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
// the routes of protocol vrf.RouteProtocol in its tables and the rules at
// vrf.RulePriority that look them up, in the plan's terms, sorted as
// vrf.Plan sorts (compare with vrf.Diff). The nftables part is not read.
func (k *Kernel) Observe(plan vrf.State) (vrf.State, error) {
	var s vrf.State
	for _, l := range plan.Links {
		link, err := k.h.LinkByName(l.Name)
		if err != nil {
			continue
		}
		a := link.Attrs()
		got := vrf.Link{Kind: l.Kind, Name: a.Name}
		if v, ok := link.(*netlink.Vrf); ok {
			got.Table = int(v.Table)
		} else if l.Kind == vrf.LinkManagementPort {
			got.MAC, got.MTU = a.HardwareAddr, a.MTU
			if a.MasterIndex != 0 {
				if m, err := k.h.LinkByIndex(a.MasterIndex); err == nil {
					got.Master = m.Attrs().Name
				}
			}
			addrs, err := k.h.AddrList(link, netlink.FAMILY_ALL)
			if err != nil {
				return s, sdkerr.Errorf(sdkerr.Refused, "kernel: %s: addresses: %w", l.Name, err)
			}
			for _, ad := range addrs {
				p := prefixOf(ad.IPNet)
				if !p.Addr().IsLinkLocalUnicast() {
					got.Addresses = append(got.Addresses, p)
				}
			}
			slices.SortFunc(got.Addresses, func(a, b netip.Prefix) int { return a.Addr().Compare(b.Addr()) })
		}
		s.Links = append(s.Links, got)
	}
	tables := planTables(plan)
	_, have, err := k.routeChanges(nil, tables)
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
			if l, err := k.h.LinkByIndex(r.LinkIndex); err == nil {
				vr.Dev = l.Attrs().Name
			}
		}
		s.Routes = append(s.Routes, vr)
	}
	_, rules, err := k.ruleChanges(nil, tables)
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
	vrf.SortState(&s)
	return s, nil
}
