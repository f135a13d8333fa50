package topology

import (
	"net/netip"
	"slices"
	"strconv"
	"strings"
)

// Per-kind clone, normalisation (set columns sorted), column comparison and
// rendering. Set-valued OVN columns are kept sorted so that states observed
// from a database compare equal to planned ones.

func cloneOpts(o Options) Options {
	if o == nil {
		return nil
	}
	return slices.Clone(o)
}

func comparePrefix(a, b netip.Prefix) int {
	if c := a.Addr().Compare(b.Addr()); c != 0 {
		return c
	}
	return a.Bits() - b.Bits()
}

func sortedStrings(s []string) []string {
	if slices.IsSorted(s) {
		return s
	}
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

func sortedPrefixes(s []netip.Prefix) []netip.Prefix {
	if slices.IsSortedFunc(s, comparePrefix) {
		return s
	}
	s = slices.Clone(s)
	slices.SortFunc(s, comparePrefix)
	return s
}

func sortedAddrs(s []netip.Addr) []netip.Addr {
	if slices.IsSortedFunc(s, netip.Addr.Compare) {
		return s
	}
	s = slices.Clone(s)
	slices.SortFunc(s, netip.Addr.Compare)
	return s
}

func sortedOptions(o Options) Options {
	if optsSorted(o) {
		return o
	}
	o = slices.Clone(o)
	slices.SortStableFunc(o, compareOptions)
	return o
}

func compareVIP(a, b LBVIP) int { return a.VIP.Compare(b.VIP) }

func compareGC(a, b GatewayChassis) int { return strings.Compare(a.Name, b.Name) }

// cols collects changed column names.
type cols []string

func (c *cols) add(changed bool, name string) {
	if changed {
		*c = append(*c, name)
	}
}

// --- clone ---

func (o AddressSet) clone() Object {
	o.Addresses = slices.Clone(o.Addresses)
	return o
}

func (o LoadBalancer) clone() Object {
	o.VIPs = slices.Clone(o.VIPs)
	for i := range o.VIPs {
		o.VIPs[i].Backends = slices.Clone(o.VIPs[i].Backends)
	}
	o.Options = cloneOpts(o.Options)
	o.Groups, o.Switches, o.Routers = slices.Clone(o.Groups), slices.Clone(o.Switches), slices.Clone(o.Routers)
	o.SelectionFields = slices.Clone(o.SelectionFields)
	o.ExternalIDs = cloneOpts(o.ExternalIDs)
	return o
}

func (o LoadBalancerGroup) clone() Object { return o }

func (o Switch) clone() Object {
	o.OtherConfig = cloneOpts(o.OtherConfig)
	o.LoadBalancerGroups = slices.Clone(o.LoadBalancerGroups)
	return o
}

func (o Router) clone() Object {
	o.Options = cloneOpts(o.Options)
	o.LoadBalancerGroups = slices.Clone(o.LoadBalancerGroups)
	return o
}

func (o SwitchPort) clone() Object {
	o.Addresses = slices.Clone(o.Addresses)
	o.PortSecurity = slices.Clone(o.PortSecurity)
	o.Options = cloneOpts(o.Options)
	o.ExternalIDs = cloneOpts(o.ExternalIDs)
	return o
}

func (o RouterPort) clone() Object {
	o.Networks = slices.Clone(o.Networks)
	o.Options = cloneOpts(o.Options)
	o.GatewayChassis = slices.Clone(o.GatewayChassis)
	return o
}

func (o PortGroup) clone() Object {
	o.Ports = slices.Clone(o.Ports)
	return o
}

func (o StaticRoute) clone() Object {
	o.Options = cloneOpts(o.Options)
	return o
}

func (o Policy) clone() Object {
	o.Nexthops = slices.Clone(o.Nexthops)
	o.Options = cloneOpts(o.Options)
	return o
}

func (o NAT) clone() Object {
	o.Options = cloneOpts(o.Options)
	return o
}

func (o ACL) clone() Object {
	o.Options = cloneOpts(o.Options)
	return o
}

// --- normalize ---

func (o AddressSet) normalize() Object {
	o.Addresses = sortedPrefixes(o.Addresses)
	return o
}

func (o LoadBalancer) normalize() Object {
	if !slices.IsSortedFunc(o.VIPs, compareVIP) {
		o.VIPs = slices.Clone(o.VIPs)
		slices.SortFunc(o.VIPs, compareVIP)
	}
	o.Options = sortedOptions(o.Options)
	o.Groups, o.Switches, o.Routers = sortedStrings(o.Groups), sortedStrings(o.Switches), sortedStrings(o.Routers)
	o.SelectionFields = sortedStrings(o.SelectionFields)
	o.ExternalIDs = sortedOptions(o.ExternalIDs)
	return o
}

func (o LoadBalancerGroup) normalize() Object { return o }

func (o Switch) normalize() Object {
	o.OtherConfig = sortedOptions(o.OtherConfig)
	o.LoadBalancerGroups = sortedStrings(o.LoadBalancerGroups)
	return o
}

func (o Router) normalize() Object {
	o.Options = sortedOptions(o.Options)
	o.LoadBalancerGroups = sortedStrings(o.LoadBalancerGroups)
	return o
}

func (o SwitchPort) normalize() Object {
	o.Addresses = sortedStrings(o.Addresses)
	o.PortSecurity = sortedStrings(o.PortSecurity)
	o.Options = sortedOptions(o.Options)
	o.ExternalIDs = sortedOptions(o.ExternalIDs)
	return o
}

func (o RouterPort) normalize() Object {
	o.Networks = sortedPrefixes(o.Networks)
	o.Options = sortedOptions(o.Options)
	if !slices.IsSortedFunc(o.GatewayChassis, compareGC) {
		o.GatewayChassis = slices.Clone(o.GatewayChassis)
		slices.SortFunc(o.GatewayChassis, compareGC)
	}
	return o
}

func (o PortGroup) normalize() Object {
	o.Ports = sortedStrings(o.Ports)
	return o
}

func (o StaticRoute) normalize() Object {
	o.Options = sortedOptions(o.Options)
	return o
}

func (o Policy) normalize() Object {
	o.Nexthops = sortedAddrs(o.Nexthops)
	o.Options = sortedOptions(o.Options)
	return o
}

func (o NAT) normalize() Object {
	o.Options = sortedOptions(o.Options)
	return o
}

func (o ACL) normalize() Object {
	o.Options = sortedOptions(o.Options)
	return o
}

// --- columns ---

func vipsEqual(a, b []LBVIP) bool {
	return slices.EqualFunc(a, b, func(x, y LBVIP) bool { return x.VIP == y.VIP && slices.Equal(x.Backends, y.Backends) })
}

func (o AddressSet) columns(x Object) []string {
	p := x.(AddressSet)
	var c cols
	c.add(!slices.Equal(o.Addresses, p.Addresses), "addresses")
	c.add(!o.Owner.Equal(p.Owner), "external_ids")
	return c
}

func (o LoadBalancer) columns(x Object) []string {
	p := x.(LoadBalancer)
	var c cols
	c.add(o.Protocol != p.Protocol, "protocol")
	c.add(!vipsEqual(o.VIPs, p.VIPs), "vips")
	c.add(!o.Options.Equal(p.Options), "options")
	c.add(!slices.Equal(o.SelectionFields, p.SelectionFields), "selection_fields")
	c.add(!o.Owner.Equal(p.Owner) || !o.ExternalIDs.Equal(p.ExternalIDs), "external_ids")
	c.add(!slices.Equal(o.Groups, p.Groups) || !slices.Equal(o.Switches, p.Switches) || !slices.Equal(o.Routers, p.Routers), ColumnAttachments)
	return c
}

func (o LoadBalancerGroup) columns(x Object) []string {
	p := x.(LoadBalancerGroup)
	var c cols
	c.add(!o.Owner.Equal(p.Owner), "external_ids")
	return c
}

func (o Switch) columns(x Object) []string {
	p := x.(Switch)
	var c cols
	c.add(!o.OtherConfig.Equal(p.OtherConfig), "other_config")
	c.add(!slices.Equal(o.LoadBalancerGroups, p.LoadBalancerGroups), "load_balancer_group")
	c.add(!o.Owner.Equal(p.Owner), "external_ids")
	return c
}

func (o Router) columns(x Object) []string {
	p := x.(Router)
	var c cols
	c.add(!o.Options.Equal(p.Options), "options")
	c.add(!slices.Equal(o.LoadBalancerGroups, p.LoadBalancerGroups), "load_balancer_group")
	c.add(!o.Owner.Equal(p.Owner), "external_ids")
	return c
}

func (o SwitchPort) columns(x Object) []string {
	p := x.(SwitchPort)
	var c cols
	c.add(o.Switch != p.Switch, ColumnSwitch)
	c.add(o.Type != p.Type, "type")
	c.add(!slices.Equal(o.Addresses, p.Addresses), "addresses")
	c.add(!slices.Equal(o.PortSecurity, p.PortSecurity), "port_security")
	c.add(!o.Options.Equal(p.Options), "options")
	c.add(o.TagRequest != p.TagRequest, "tag_request")
	c.add(!o.Owner.Equal(p.Owner) || !o.ExternalIDs.Equal(p.ExternalIDs), "external_ids")
	return c
}

func (o RouterPort) columns(x Object) []string {
	p := x.(RouterPort)
	var c cols
	c.add(o.Router != p.Router, ColumnRouter)
	c.add(o.MAC != p.MAC, "mac")
	c.add(!slices.Equal(o.Networks, p.Networks), "networks")
	c.add(o.Peer != p.Peer, "peer")
	c.add(!o.Options.Equal(p.Options), "options")
	c.add(!slices.Equal(o.GatewayChassis, p.GatewayChassis), "gateway_chassis")
	c.add(!o.Owner.Equal(p.Owner), "external_ids")
	return c
}

func (o PortGroup) columns(x Object) []string {
	p := x.(PortGroup)
	var c cols
	c.add(!slices.Equal(o.Ports, p.Ports), "ports")
	c.add(!o.Owner.Equal(p.Owner), "external_ids")
	return c
}

func (o StaticRoute) columns(x Object) []string {
	p := x.(StaticRoute)
	var c cols
	c.add(o.OutputPort != p.OutputPort, "output_port")
	c.add(!o.Options.Equal(p.Options), "options")
	c.add(!o.Owner.Equal(p.Owner), "external_ids")
	return c
}

func (o Policy) columns(x Object) []string {
	p := x.(Policy)
	var c cols
	c.add(o.Action != p.Action, "action")
	c.add(!slices.Equal(o.Nexthops, p.Nexthops), "nexthops")
	c.add(!o.Options.Equal(p.Options), "options")
	c.add(!o.Owner.Equal(p.Owner), "external_ids")
	return c
}

func (o NAT) columns(x Object) []string {
	p := x.(NAT)
	var c cols
	c.add(o.Match != p.Match, "match")
	c.add(!o.Options.Equal(p.Options), "options")
	c.add(!o.Owner.Equal(p.Owner), "external_ids")
	return c
}

func (o ACL) columns(x Object) []string {
	p := x.(ACL)
	var c cols
	c.add(o.Name != p.Name, "name")
	c.add(o.Action != p.Action, "action")
	c.add(!o.Options.Equal(p.Options), "options")
	c.add(!o.Owner.Equal(p.Owner), "external_ids")
	return c
}

// --- render ---

type line struct{ b *strings.Builder }

func (l line) s(name, v string) {
	if v == "" {
		return
	}
	l.b.WriteByte(' ')
	l.b.WriteString(name)
	l.b.WriteByte('=')
	l.b.WriteString(v)
}

func (l line) q(name, v string) {
	if v == "" {
		return
	}
	l.s(name, strconv.Quote(v))
}

func (l line) i(name string, v int) {
	if v == 0 {
		return
	}
	l.s(name, strconv.Itoa(v))
}

func (l line) opts(name string, o Options) {
	if len(o) == 0 {
		return
	}
	l.s(name, o.String())
}

func (l line) strs(name string, v []string) {
	if len(v) == 0 {
		return
	}
	q := make([]string, len(v))
	for i, s := range v {
		q[i] = strconv.Quote(s)
	}
	l.s(name, "["+strings.Join(q, ", ")+"]")
}

func (l line) list(name string, n int, f func(i int) string) {
	if n == 0 {
		return
	}
	q := make([]string, n)
	for i := range q {
		q[i] = f(i)
	}
	l.s(name, "["+strings.Join(q, ", ")+"]")
}

func (l line) owner(o Owner) {
	l.b.WriteString(" owner=")
	l.b.WriteString(o.String())
}

func (l line) head(k Kind, name string) {
	l.b.WriteString(k.String())
	if name != "" {
		l.b.WriteByte(' ')
		l.b.WriteString(name)
	}
}

func prefixStr(p netip.Prefix) string {
	if !p.IsValid() {
		return ""
	}
	return p.String()
}

func (o AddressSet) render(b *strings.Builder) {
	l := line{b}
	l.head(o.Kind(), o.Name)
	l.list("addresses", len(o.Addresses), func(i int) string { return o.Addresses[i].String() })
	l.owner(o.Owner)
}

func (o LoadBalancer) render(b *strings.Builder) {
	l := line{b}
	l.head(o.Kind(), o.Name)
	l.s("protocol", string(o.Protocol))
	l.list("vips", len(o.VIPs), func(i int) string {
		v := o.VIPs[i]
		be := make([]string, len(v.Backends))
		for j, x := range v.Backends {
			be[j] = x.String()
		}
		return v.VIP.String() + "=" + strings.Join(be, ",")
	})
	l.opts("options", o.Options)
	l.strs("selection_fields", o.SelectionFields)
	l.strs("groups", o.Groups)
	l.strs("switches", o.Switches)
	l.strs("routers", o.Routers)
	l.opts("external_ids", o.ExternalIDs)
	l.owner(o.Owner)
}

func (o LoadBalancerGroup) render(b *strings.Builder) {
	l := line{b}
	l.head(o.Kind(), o.Name)
	l.owner(o.Owner)
}

func (o Switch) render(b *strings.Builder) {
	l := line{b}
	l.head(o.Kind(), o.Name)
	l.opts("other_config", o.OtherConfig)
	l.strs("load_balancer_group", o.LoadBalancerGroups)
	l.owner(o.Owner)
}

func (o Router) render(b *strings.Builder) {
	l := line{b}
	l.head(o.Kind(), o.Name)
	l.opts("options", o.Options)
	l.strs("load_balancer_group", o.LoadBalancerGroups)
	l.owner(o.Owner)
}

func (o SwitchPort) render(b *strings.Builder) {
	l := line{b}
	l.head(o.Kind(), o.Name)
	l.s("switch", o.Switch)
	l.s("type", string(o.Type))
	l.strs("addresses", o.Addresses)
	l.strs("port_security", o.PortSecurity)
	l.opts("options", o.Options)
	l.i("tag_request", o.TagRequest)
	l.opts("external_ids", o.ExternalIDs)
	l.owner(o.Owner)
}

func (o RouterPort) render(b *strings.Builder) {
	l := line{b}
	l.head(o.Kind(), o.Name)
	l.s("router", o.Router)
	l.q("mac", o.MAC)
	l.list("networks", len(o.Networks), func(i int) string { return strconv.Quote(o.Networks[i].String()) })
	l.s("peer", o.Peer)
	l.opts("options", o.Options)
	l.list("gateway_chassis", len(o.GatewayChassis), func(i int) string {
		g := o.GatewayChassis[i]
		return g.Name + ":" + g.Chassis + ":" + strconv.Itoa(g.Priority)
	})
	l.owner(o.Owner)
}

func (o PortGroup) render(b *strings.Builder) {
	l := line{b}
	l.head(o.Kind(), o.Name)
	l.strs("ports", o.Ports)
	l.owner(o.Owner)
}

func (o StaticRoute) render(b *strings.Builder) {
	l := line{b}
	l.head(o.Kind(), "")
	l.s("router", o.Router)
	l.s("route_table", o.RouteTable)
	l.s("prefix", prefixStr(o.Prefix))
	l.s("nexthop", addrString(o.Nexthop))
	l.s("policy", string(o.Policy))
	l.s("output_port", o.OutputPort)
	l.opts("options", o.Options)
	l.owner(o.Owner)
}

func (o Policy) render(b *strings.Builder) {
	l := line{b}
	l.head(o.Kind(), "")
	l.s("router", o.Router)
	l.i("priority", o.Priority)
	l.q("match", o.Match)
	l.s("action", string(o.Action))
	l.list("nexthops", len(o.Nexthops), func(i int) string { return o.Nexthops[i].String() })
	l.opts("options", o.Options)
	l.owner(o.Owner)
}

func (o NAT) render(b *strings.Builder) {
	l := line{b}
	l.head(o.Kind(), "")
	l.s("router", o.Router)
	l.s("type", string(o.Type))
	l.s("logical_ip", prefixStr(o.LogicalIP))
	l.s("external_ip", addrString(o.ExternalIP))
	l.s("logical_port", o.LogicalPort)
	l.s("gateway_port", o.GatewayPort)
	l.q("match", o.Match)
	l.opts("options", o.Options)
	l.owner(o.Owner)
}

func (o ACL) render(b *strings.Builder) {
	l := line{b}
	l.head(o.Kind(), "")
	l.s("port_group", o.PortGroup)
	l.s("switch", o.Switch)
	l.q("name", o.Name)
	l.s("tier", strconv.Itoa(o.Tier))
	l.s("direction", string(o.Direction))
	l.i("priority", o.Priority)
	l.q("match", o.Match)
	l.s("action", string(o.Action))
	l.opts("options", o.Options)
	l.owner(o.Owner)
}

// Render returns the one-line text form of o used by State.String.
func Render(o Object) string {
	var b strings.Builder
	o.render(&b)
	return b.String()
}

// --- isNormal: whether normalize would change nothing ---

func optsSorted(o Options) bool {
	return slices.IsSortedFunc(o, compareOptions)
}

func (o AddressSet) isNormal() bool { return slices.IsSortedFunc(o.Addresses, comparePrefix) }
func (o LoadBalancer) isNormal() bool {
	return slices.IsSortedFunc(o.VIPs, compareVIP) && optsSorted(o.Options) &&
		slices.IsSorted(o.SelectionFields) && slices.IsSorted(o.Groups) && slices.IsSorted(o.Switches) && slices.IsSorted(o.Routers) && optsSorted(o.ExternalIDs)
}
func (o LoadBalancerGroup) isNormal() bool { return true }
func (o Switch) isNormal() bool {
	return optsSorted(o.OtherConfig) && slices.IsSorted(o.LoadBalancerGroups)
}
func (o Router) isNormal() bool {
	return optsSorted(o.Options) && slices.IsSorted(o.LoadBalancerGroups)
}
func (o SwitchPort) isNormal() bool {
	return slices.IsSorted(o.Addresses) && slices.IsSorted(o.PortSecurity) && optsSorted(o.Options) && optsSorted(o.ExternalIDs)
}
func (o RouterPort) isNormal() bool {
	return slices.IsSortedFunc(o.Networks, comparePrefix) && optsSorted(o.Options) &&
		slices.IsSortedFunc(o.GatewayChassis, compareGC)
}
func (o PortGroup) isNormal() bool   { return slices.IsSorted(o.Ports) }
func (o StaticRoute) isNormal() bool { return optsSorted(o.Options) }
func (o Policy) isNormal() bool {
	return slices.IsSortedFunc(o.Nexthops, netip.Addr.Compare) && optsSorted(o.Options)
}
func (o NAT) isNormal() bool { return optsSorted(o.Options) }
func (o ACL) isNormal() bool { return optsSorted(o.Options) }

// normalized returns o with its set columns sorted, boxing a new value only
// when something needs sorting.
func normalized(o Object) Object {
	if o.isNormal() {
		return o
	}
	return o.normalize()
}
