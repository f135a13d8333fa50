// stable: the OVN adapter maps these types. Add fields and kinds; never rename or remove.

package topology

import (
	"cmp"
	"net"
	"net/netip"
	"slices"
	"strconv"
	"strings"

	"github.com/udnkit/udnkit/ipam"
	"github.com/udnkit/udnkit/netconf/udn"
)

// Kind is the kind of an OVN Northbound object. Its value is stable: a new
// kind takes a new value and renumbers none. Kinds lists the kinds in
// creation order, the order in which Diff creates objects (a row before
// the rows that reference it or that it holds); deletes run in the reverse
// order.
type Kind uint8

// The Kind constants (KindAddressSet...), their creation order and Kinds
// are generated from the kind types' directives (kinds_gen.go).

// String returns the kind's short name ("switch_port").
func (k Kind) String() string {
	if k >= kindEnd || descriptors[k].Name == "" {
		return "kind(" + strconv.Itoa(int(k)) + ")"
	}
	return descriptors[k].Name
}

// Order returns k's place in creation order (Kinds), from 1; 0 for an
// unknown kind. Compare kinds by Order, not by value.
func (k Kind) Order() int { return int(kindOrder[k]) }

// compareKinds orders kinds by creation order.
func compareKinds(a, b Kind) int { return cmp.Compare(a.Order(), b.Order()) }

// Table returns the OVN Northbound table that holds objects of kind k, ""
// for an unknown kind.
func (k Kind) Table() string {
	if k >= kindEnd {
		return ""
	}
	return descriptors[k].Table
}

// Owner identifies who owns an object. The OVN adapter writes it as the
// external_ids k8s.ovn.org/network (Network), k8s.ovn.org/topology
// (Topology.NetConfValue()), k8s.ovn.org/role (Role.NetConfValue()) and
// k8s.ovn.org/node (Node, omitted when empty).
//
// Node is set on every object that exists because of one node (its switch,
// gateway router, ports, the routes towards it); it is empty for the
// network-wide objects (cluster router, transit switch, LB groups).
type Owner struct {
	// Controller is the controller that writes the object (the reference's
	// k8s.ovn.org/owner-controller). Empty is ControllerTopology, the network
	// planners of this package; another planner package (connect, pods,
	// services) sets its own, so that each controller's Diff and Sync speak
	// for its own rows only.
	Controller Controller
	Network    string
	Topology   udn.Topology
	Role       udn.Role
	Node       string
}

// Protocol is a load balancer's transport protocol; the empty value leaves
// the column unset, which OVN reads as TCP.
type Protocol string

// Protocols a Load_Balancer row can have.
const (
	ProtocolTCP  Protocol = "tcp"
	ProtocolUDP  Protocol = "udp"
	ProtocolSCTP Protocol = "sctp"
)

// String returns the OVN spelling ("tcp").
func (p Protocol) String() string { return string(p) }

// Valid reports whether p is empty or one of the defined protocols.
func (p Protocol) Valid() bool {
	return p == "" || p == ProtocolTCP || p == ProtocolUDP || p == ProtocolSCTP
}

// Controller names a controller that owns Northbound rows.
type Controller string

// ControllerTopology is the controller of the network planners (switches,
// routers and ports of a network).
const ControllerTopology Controller = "udnkit-topology"

// String returns the controller's name, ControllerTopology's for the empty
// value.
func (c Controller) String() string {
	if c == "" {
		return string(ControllerTopology)
	}
	return string(c)
}

// canon returns the controller in the form States key partitions by: ""
// for ControllerTopology (both spellings name the same controller).
func (c Controller) canon() Controller {
	if c == ControllerTopology {
		return ""
	}
	return c
}

// Profile is udn.Profile: the seeds' design or the reference
// implementation's wire format.
type Profile = udn.Profile

// Profiles, as in package udn.
const (
	ProfileSeeds     = udn.ProfileSeeds
	ProfileReference = udn.ProfileReference
)

// String returns "network/topology/role/node", prefixed with
// "controller:" for a controller other than ControllerTopology.
func (o Owner) String() string {
	s := o.Network + "/" + string(o.Topology) + "/" + string(o.Role) + "/" + o.Node
	if c := o.Controller.canon(); c != "" {
		s = string(c) + ":" + s
	}
	return s
}

// Equal reports whether o and p name the same owner; an empty Controller
// and ControllerTopology are the same controller.
func (o Owner) Equal(p Owner) bool {
	o.Controller, p.Controller = o.Controller.canon(), p.Controller.canon()
	return o == p
}

// Option is one key/value pair of an OVN map column (options, other_config).
type Option struct {
	Key, Value string
}

// Options is an OVN string map column as a slice sorted by Key with unique
// keys. Build one with NewOptions; the zero value is the empty map.
type Options []Option

// NewOptions returns the options given as key, value pairs, sorted by key.
// A later duplicate key replaces an earlier one. It panics on an odd number
// of arguments (a programming error).
func NewOptions(kv ...string) Options {
	if len(kv)%2 != 0 {
		panic("topology.NewOptions: odd number of arguments")
	}
	o := make(Options, 0, len(kv)/2)
	for i := 0; i < len(kv); i += 2 {
		o = append(o, Option{kv[i], kv[i+1]})
	}
	if len(o) < 2 {
		return o
	}
	slices.SortStableFunc(o, compareOptions)
	out := o[:0]
	for i, e := range o { // keep the last of equal keys
		if i+1 < len(o) && o[i+1].Key == e.Key {
			continue
		}
		out = append(out, e)
	}
	return out
}

// OptionsFromMap returns m as Options.
func OptionsFromMap(m map[string]string) Options {
	o := make(Options, 0, len(m))
	for k, v := range m {
		o = append(o, Option{k, v})
	}
	slices.SortFunc(o, compareOptions)
	return o
}

// compareOptions orders options by key.
func compareOptions(a, b Option) int { return strings.Compare(a.Key, b.Key) }

// compareOptionKey compares an option's key with key.
func compareOptionKey(e Option, key string) int { return strings.Compare(e.Key, key) }

// Get returns the value of key.
func (o Options) Get(key string) (string, bool) {
	i, ok := slices.BinarySearchFunc(o, key, compareOptionKey)
	if !ok {
		return "", false
	}
	return o[i].Value, true
}

// With returns o with key set to value. It does not modify o.
func (o Options) With(key, value string) Options {
	i, ok := slices.BinarySearchFunc(o, key, compareOptionKey)
	out := make(Options, len(o), len(o)+1)
	copy(out, o)
	if ok {
		out[i].Value = value
		return out
	}
	return slices.Insert(out, i, Option{key, value})
}

// Map returns o as a map (for the adapter's libovsdb rows).
func (o Options) Map() map[string]string {
	m := make(map[string]string, len(o))
	for _, e := range o {
		m[e.Key] = e.Value
	}
	return m
}

// Equal reports whether o and p hold the same pairs.
func (o Options) Equal(p Options) bool { return slices.Equal(o, p) }

// String returns "{k1=v1, k2=v2}".
func (o Options) String() string {
	var b strings.Builder
	b.WriteByte('{')
	for i, e := range o {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(e.Key)
		b.WriteByte('=')
		b.WriteString(e.Value)
	}
	b.WriteByte('}')
	return b.String()
}

// Well-known option and other_config keys, spelled as OVN spells them.
const (
	OptRequestedTnlKey  = "requested-tnl-key"
	OptRequestedChassis = "requested-chassis"
	OptRouterPort       = "router-port"
	OptGatewayMTU       = "gateway_mtu"
	OptNetworkName      = "network_name"
	OptInterconnTS      = "interconn-ts"
	OptChassis          = "chassis"
	OptPktMark          = "pkt_mark"
	OptStateless        = "stateless"
)

// PortType is a Logical_Switch_Port type.
type PortType string

// Switch port types used by the planners.
const (
	PortNormal   PortType = ""
	PortRouter   PortType = "router"
	PortRemote   PortType = "remote"
	PortLocalnet PortType = "localnet"
	PortPatch    PortType = "patch"
)

// String returns the OVN spelling, "normal" for the empty type.
func (t PortType) String() string {
	if t == "" {
		return "normal"
	}
	return string(t)
}

// RoutePolicy is a static route's policy column.
type RoutePolicy string

// Static route policies.
const (
	RouteDstIP RoutePolicy = "dst-ip"
	RouteSrcIP RoutePolicy = "src-ip"
)

// String returns the OVN spelling.
func (p RoutePolicy) String() string { return string(p) }

// PolicyAction is a Logical_Router_Policy action.
type PolicyAction string

// Router policy actions.
const (
	PolicyAllow   PolicyAction = "allow"
	PolicyDrop    PolicyAction = "drop"
	PolicyReroute PolicyAction = "reroute"
)

// String returns the OVN spelling.
func (a PolicyAction) String() string { return string(a) }

// NATType is a NAT type.
type NATType string

// NAT types.
const (
	NATSNAT        NATType = "snat"
	NATDNAT        NATType = "dnat"
	NATDNATAndSNAT NATType = "dnat_and_snat"
)

// String returns the OVN spelling.
func (t NATType) String() string { return string(t) }

// ACLDirection is an ACL direction.
type ACLDirection string

// ACL directions.
const (
	ACLFromLport ACLDirection = "from-lport"
	ACLToLport   ACLDirection = "to-lport"
)

// String returns the OVN spelling.
func (d ACLDirection) String() string { return string(d) }

// ACLAction is an ACL action.
type ACLAction string

// ACL actions.
const (
	ACLAllow          ACLAction = "allow"
	ACLAllowRelated   ACLAction = "allow-related"
	ACLAllowStateless ACLAction = "allow-stateless"
	ACLDrop           ACLAction = "drop"
	ACLReject         ACLAction = "reject"
	ACLPass           ACLAction = "pass"
)

// String returns the OVN spelling.
func (a ACLAction) String() string { return string(a) }

// ACLSeverity is the severity an ACL logs at.
type ACLSeverity string

// ACL log severities; the empty value leaves the column empty.
const (
	SeverityAlert   ACLSeverity = "alert"
	SeverityWarning ACLSeverity = "warning"
	SeverityNotice  ACLSeverity = "notice"
	SeverityInfo    ACLSeverity = "info"
	SeverityDebug   ACLSeverity = "debug"
)

// String returns the OVN spelling.
func (s ACLSeverity) String() string { return string(s) }

// Valid reports whether s is empty or one of the defined severities.
func (s ACLSeverity) Valid() bool {
	switch s {
	case "", SeverityAlert, SeverityWarning, SeverityNotice, SeverityInfo, SeverityDebug:
		return true
	}
	return false
}

// Object is one OVN Northbound row of the model: a value of one of the types
// AddressSet, LoadBalancer, LoadBalancerGroup, Switch,
// Router, SwitchPort, RouterPort, PortGroup, StaticRoute, Policy, NAT, ACL.
// The set is closed (the interface has unexported methods).
type Object interface {
	// Kind returns the object's kind.
	Kind() Kind
	// Key returns the object's natural key, unique among objects of its kind.
	Key() string
	// OwnedBy returns the object's owner.
	OwnedBy() Owner

	clone() Object
	normalize() Object
	isNormal() bool
	// columns returns the OVN columns in which o differs from the receiver,
	// or nil when equal. o has the receiver's kind.
	columns(o Object) []string
	render(b *strings.Builder)
}

// AddressSet is an Address_Set.
//
//udnkit:kind table=Address_Set id=1 order=10
type AddressSet struct {
	Owner     Owner
	Name      string         `nb:"name,key"`
	Addresses []netip.Prefix `nb:"addresses,ip"` // single addresses as /32 or /128
	// ExternalIDs are external_ids beyond the owner's (the reference's
	// owner-type, k8s.ovn.org/name, ip-family and k8s.ovn.org/id of a
	// policy's address set); the owner's keys win over them.
	ExternalIDs Options `nb:"external_ids"`
}

// LBVIP is one entry of a load balancer's vips map.
type LBVIP struct {
	VIP      netip.AddrPort
	Backends []netip.AddrPort
}

// LoadBalancer is a Load_Balancer, with the rows it is attached to by
// name: the load balancer groups, switches and routers whose load_balancer
// column holds it. Those rows may belong to another controller (a
// network's groups and gateway routers are the topology's); the load
// balancer's owner alone manages its place in them.
//
//udnkit:kind table=Load_Balancer id=2 order=20
type LoadBalancer struct {
	Owner    Owner
	Name     string   `nb:"name,key"`
	Protocol Protocol `nb:"protocol"`
	VIPs     []LBVIP  `nb:"vips"`
	Options  Options  `nb:"options"`
	// SelectionFields are the fields the backend choice hashes ("ip_src",
	// "ip_dst", ...; none: OVN's default 5-tuple).
	SelectionFields []string `nb:"selection_fields"`
	Groups          []string `nb:",attach=LoadBalancerGroup.load_balancer"`
	Switches        []string `nb:",attach=Switch.load_balancer"`
	Routers         []string `nb:",attach=Router.load_balancer"`
	// ExternalIDs are external_ids beyond the owner's (a service load
	// balancer's k8s.ovn.org/kind and k8s.ovn.org/owner).
	ExternalIDs Options `nb:"external_ids"`
}

// LoadBalancerGroup is a Load_Balancer_Group. Its members are not its
// own: each LoadBalancer names the groups it joins (LoadBalancer.Groups).
//
//udnkit:kind table=Load_Balancer_Group id=3 order=30
type LoadBalancerGroup struct {
	Owner Owner
	Name  string `nb:"name,key"`
}

// Switch is a Logical_Switch.
//
//udnkit:kind table=Logical_Switch id=4 order=40
type Switch struct {
	Owner              Owner
	Name               string   `nb:"name,key"`
	OtherConfig        Options  `nb:"other_config"`
	LoadBalancerGroups []string `nb:"load_balancer_group,ref=LoadBalancerGroup"` // names
}

// Router is a Logical_Router.
//
//udnkit:kind table=Logical_Router id=5 order=50
type Router struct {
	Owner              Owner
	Name               string   `nb:"name,key"`
	Options            Options  `nb:"options"`
	LoadBalancerGroups []string `nb:"load_balancer_group,ref=LoadBalancerGroup"` // names
}

// SwitchPort is a Logical_Switch_Port, member of Switch.
//
//udnkit:kind table=Logical_Switch_Port id=6 order=60
type SwitchPort struct {
	Owner        Owner
	Name         string   `nb:"name,key"`
	Switch       string   `nb:",parent=Switch.ports"`
	Type         PortType `nb:"type"`
	Addresses    []string `nb:"addresses"` // OVN spelling: "router", "unknown", "0a:58:0a:80:01:02 10.128.1.2"
	PortSecurity []string `nb:"port_security"`
	Options      Options  `nb:"options"` // router-port, requested-tnl-key, requested-chassis, network_name
	// TagRequest is the VLAN of a localnet port (tag_request column); 0 for none.
	TagRequest int `nb:"tag_request"`
	// ExternalIDs are external_ids beyond the owner's (a pod port's
	// "namespace", "pod" and "k8s.ovn.org/nad", as the reference writes
	// them); the owner's keys win over them.
	ExternalIDs Options `nb:"external_ids"`
}

// GatewayChassis is one Gateway_Chassis row of a router port.
type GatewayChassis struct {
	Name     string // conventionally "<port>-<chassis>"
	Chassis  string // chassis_name
	Priority int
}

// RouterPort is a Logical_Router_Port, member of Router.
//
//udnkit:kind table=Logical_Router_Port id=7 order=70
type RouterPort struct {
	Owner          Owner
	Name           string           `nb:"name,key"`
	Router         string           `nb:",parent=Router.ports"`
	MAC            string           `nb:"mac,required,q"`      // "0a:58:64:41:00:02"
	Networks       []netip.Prefix   `nb:"networks,required,q"` // interface addresses, e.g. 100.65.0.2/16
	Peer           string           `nb:"peer"`                // peer router port name, or ""
	Options        Options          `nb:"options"`             // requested-tnl-key, requested-chassis, gateway_mtu
	GatewayChassis []GatewayChassis `nb:"gateway_chassis"`
}

// PortGroup is a Port_Group; its members are switch ports by name.
//
//udnkit:kind table=Port_Group id=8 order=80
type PortGroup struct {
	Owner Owner
	Name  string   `nb:"name,key"`
	Ports []string `nb:"ports,ref=SwitchPort"`
	// ExternalIDs are external_ids beyond the owner's (the reference's
	// owner-type, k8s.ovn.org/name and k8s.ovn.org/id); the owner's keys
	// win over them.
	ExternalIDs Options `nb:"external_ids"`
}

// StaticRoute is a Logical_Router_Static_Route, member of Router.
//
//udnkit:kind table=Logical_Router_Static_Route id=9 order=90
type StaticRoute struct {
	Owner      Owner
	Router     string       `nb:",parent=Router.static_routes"`
	RouteTable string       `nb:"route_table,key"` // "" is the main table
	Policy     RoutePolicy  `nb:"policy,key"`
	Prefix     netip.Prefix `nb:"ip_prefix,key,required,ip,label=prefix"` // host routes are /32 or /128
	Nexthop    netip.Addr   `nb:"nexthop,key"`
	OutputPort string       `nb:"output_port"`
	Options    Options      `nb:"options"`
}

// Policy is a Logical_Router_Policy, member of Router.
//
//udnkit:kind table=Logical_Router_Policy id=10 order=100
type Policy struct {
	Owner    Owner
	Router   string       `nb:",parent=Router.policies"`
	Priority int          `nb:"priority,key"`
	Match    string       `nb:"match,key,required,q"`
	Action   PolicyAction `nb:"action,required"`
	Nexthops []netip.Addr `nb:"nexthops"`
	Options  Options      `nb:"options"` // pkt_mark
}

// NAT is a NAT row, member of Router.
//
//udnkit:kind table=NAT id=11 order=110
type NAT struct {
	Owner       Owner
	Router      string       `nb:",parent=Router.nat"`
	Type        NATType      `nb:"type,key,required"`
	LogicalIP   netip.Prefix `nb:"logical_ip,key,required,ip"` // a single address is /32 or /128
	ExternalIP  netip.Addr   `nb:"external_ip,key,required"`
	LogicalPort string       `nb:"logical_port,key"`
	GatewayPort string       `nb:"gateway_port,key,ref=RouterPort"`
	Match       string       `nb:"match,q"`
	Options     Options      `nb:"options"`
}

// ACL is an ACL, member of PortGroup or (when PortGroup is empty) Switch.
//
//udnkit:kind table=ACL id=12 order=120
type ACL struct {
	Owner     Owner
	PortGroup string       `nb:",parent=PortGroup.acls"`
	Switch    string       `nb:",parent=Switch.acls"`
	Name      string       `nb:"name,q"`
	Tier      int          `nb:"tier,key"`
	Direction ACLDirection `nb:"direction,key,required"`
	Priority  int          `nb:"priority,key"`
	Match     string       `nb:"match,key,required,q"`
	Action    ACLAction    `nb:"action,required"`
	Options   Options      `nb:"options"`
	// Log, Severity and Meter are the ACL's logging: whether a packet it
	// matches is logged, at which severity ("" leaves the column empty)
	// and through which Meter's rate limit (by name; "" none).
	Log      bool        `nb:"log"`
	Severity ACLSeverity `nb:"severity"`
	Meter    string      `nb:"meter"`
	// ExternalIDs are external_ids beyond the owner's (the reference's
	// owner-type, k8s.ovn.org/name, direction, … and k8s.ovn.org/id); the
	// owner's keys win over them.
	ExternalIDs Options `nb:"external_ids"`
}

// Key returns "pg:<port group>|tier|direction|priority|match", or
// "ls:<switch>|..." for a switch ACL.
func (o ACL) Key() string {
	var scratch [128]byte
	return string(o.appendKey(scratch[:0]))
}

func (o ACL) appendKey(b []byte) []byte {
	if o.PortGroup == "" {
		b = append(append(b, "ls:"...), o.Switch...)
	} else {
		b = append(append(b, "pg:"...), o.PortGroup...)
	}
	b = append(strconv.AppendInt(append(b, '|'), int64(o.Tier), 10), '|')
	b = append(append(b, o.Direction...), '|')
	b = append(strconv.AppendInt(b, int64(o.Priority), 10), '|')
	return append(b, o.Match...)
}

// appendPrefix appends p.String() to b.
func appendPrefix(b []byte, p netip.Prefix) []byte {
	if !p.IsValid() {
		return append(b, "invalid Prefix"...)
	}
	return p.AppendTo(b)
}

func addrString(a netip.Addr) string {
	if !a.IsValid() {
		return ""
	}
	return a.String()
}

// LinkLocal returns the IPv6 link-local address OVN derives from the port's
// MAC (EUI-64), the address it advertises as the IPv6 default gateway; the
// zero Addr when MAC does not parse.
func (o RouterPort) LinkLocal() netip.Addr {
	hw, err := net.ParseMAC(o.MAC)
	if err != nil || len(hw) != 6 {
		return netip.Addr{}
	}
	return ipam.LinkLocalFromMAC(hw)
}
