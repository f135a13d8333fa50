// stable: the OVN adapter maps these types. Add fields and kinds; never rename or remove.

package topology

import (
	"net"
	"net/netip"
	"slices"
	"strconv"
	"strings"

	"github.com/udnkit/udnkit/ipam"
	"github.com/udnkit/udnkit/netconf/udn"
)

// Kind is the kind of an OVN Northbound object. The order of the constants is
// the order in which Diff creates objects (a row before the rows that
// reference it); deletes run in the reverse order.
type Kind uint8

// Kinds of objects in a State, in creation order.
const (
	KindAddressSet        Kind = iota + 1 // Address_Set
	KindLoadBalancer                      // Load_Balancer
	KindLoadBalancerGroup                 // Load_Balancer_Group (references load balancers)
	KindSwitch                            // Logical_Switch (references LB groups)
	KindRouter                            // Logical_Router (references LB groups)
	KindSwitchPort                        // Logical_Switch_Port (member of a switch)
	KindRouterPort                        // Logical_Router_Port (member of a router)
	KindPortGroup                         // Port_Group (references switch ports)
	KindStaticRoute                       // Logical_Router_Static_Route (member of a router)
	KindPolicy                            // Logical_Router_Policy (member of a router)
	KindNAT                               // NAT (member of a router)
	KindACL                               // ACL (member of a port group or a switch)
	kindEnd
)

// String returns the kind's short name ("switch_port").
func (k Kind) String() string {
	if k == 0 || k >= kindEnd {
		return "kind(" + strconv.Itoa(int(k)) + ")"
	}
	return descriptors[k].Name
}

// Table returns the OVN Northbound table that holds objects of kind k, ""
// for an unknown kind.
func (k Kind) Table() string {
	if k >= kindEnd {
		return ""
	}
	return descriptors[k].Table
}

// Kinds returns every kind in creation order.
func Kinds() []Kind {
	out := make([]Kind, 0, kindEnd-1)
	for k := KindAddressSet; k < kindEnd; k++ {
		out = append(out, k)
	}
	return out
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
type AddressSet struct {
	Owner     Owner
	Name      string
	Addresses []netip.Prefix // single addresses as /32 or /128
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
type LoadBalancer struct {
	Owner    Owner
	Name     string
	Protocol Protocol
	VIPs     []LBVIP
	Options  Options
	// SelectionFields are the fields the backend choice hashes ("ip_src",
	// "ip_dst", ...; none: OVN's default 5-tuple).
	SelectionFields []string
	Groups          []string
	Switches        []string
	Routers         []string
	// ExternalIDs are external_ids beyond the owner's (a service load
	// balancer's k8s.ovn.org/kind and k8s.ovn.org/owner).
	ExternalIDs Options
}

// LoadBalancerGroup is a Load_Balancer_Group. Its members are not its
// own: each LoadBalancer names the groups it joins (LoadBalancer.Groups).
type LoadBalancerGroup struct {
	Owner Owner
	Name  string
}

// Switch is a Logical_Switch.
type Switch struct {
	Owner              Owner
	Name               string
	OtherConfig        Options
	LoadBalancerGroups []string // names
}

// Router is a Logical_Router.
type Router struct {
	Owner              Owner
	Name               string
	Options            Options
	LoadBalancerGroups []string // names
}

// SwitchPort is a Logical_Switch_Port, member of Switch.
type SwitchPort struct {
	Owner        Owner
	Name         string
	Switch       string
	Type         PortType
	Addresses    []string // OVN spelling: "router", "unknown", "0a:58:0a:80:01:02 10.128.1.2"
	PortSecurity []string
	Options      Options // router-port, requested-tnl-key, requested-chassis, network_name
	// TagRequest is the VLAN of a localnet port (tag_request column); 0 for none.
	TagRequest int
	// ExternalIDs are external_ids beyond the owner's (a pod port's
	// "namespace", "pod" and "k8s.ovn.org/nad", as the reference writes
	// them); the owner's keys win over them.
	ExternalIDs Options
}

// GatewayChassis is one Gateway_Chassis row of a router port.
type GatewayChassis struct {
	Name     string // conventionally "<port>-<chassis>"
	Chassis  string // chassis_name
	Priority int
}

// RouterPort is a Logical_Router_Port, member of Router.
type RouterPort struct {
	Owner          Owner
	Name           string
	Router         string
	MAC            string         // "0a:58:64:41:00:02"
	Networks       []netip.Prefix // interface addresses, e.g. 100.65.0.2/16
	Peer           string         // peer router port name, or ""
	Options        Options        // requested-tnl-key, requested-chassis, gateway_mtu
	GatewayChassis []GatewayChassis
}

// StaticRoute is a Logical_Router_Static_Route, member of Router.
type StaticRoute struct {
	Owner      Owner
	Router     string
	RouteTable string // "" is the main table
	Policy     RoutePolicy
	Prefix     netip.Prefix // ip_prefix; host routes are /32 or /128
	Nexthop    netip.Addr
	OutputPort string
	Options    Options
}

// Policy is a Logical_Router_Policy, member of Router.
type Policy struct {
	Owner    Owner
	Router   string
	Priority int
	Match    string
	Action   PolicyAction
	Nexthops []netip.Addr
	Options  Options // pkt_mark
}

// NAT is a NAT row, member of Router.
type NAT struct {
	Owner       Owner
	Router      string
	Type        NATType
	LogicalIP   netip.Prefix // a single address is /32 or /128
	ExternalIP  netip.Addr
	LogicalPort string
	GatewayPort string
	Match       string
	Options     Options
}

// ACL is an ACL, member of PortGroup or (when PortGroup is empty) Switch.
type ACL struct {
	Owner     Owner
	PortGroup string
	Switch    string
	Name      string
	Tier      int
	Direction ACLDirection
	Priority  int
	Match     string
	Action    ACLAction
	Options   Options
}

// PortGroup is a Port_Group; its members are switch ports by name.
type PortGroup struct {
	Owner Owner
	Name  string
	Ports []string
}

// Key returns "router|route_table|policy|prefix|nexthop".
func (o StaticRoute) Key() string {
	var scratch [128]byte
	return string(o.appendKey(scratch[:0]))
}

func (o StaticRoute) appendKey(b []byte) []byte {
	b = append(append(b, o.Router...), '|')
	b = append(append(b, o.RouteTable...), '|')
	b = append(append(b, o.Policy...), '|')
	b = append(appendPrefix(b, o.Prefix), '|')
	return o.Nexthop.AppendTo(b) // nothing for the zero Addr
}

// Key returns "router|priority|match".
func (o Policy) Key() string {
	var scratch [128]byte
	return string(o.appendKey(scratch[:0]))
}

func (o Policy) appendKey(b []byte) []byte {
	b = append(append(b, o.Router...), '|')
	b = append(strconv.AppendInt(b, int64(o.Priority), 10), '|')
	return append(b, o.Match...)
}

// Key returns "router|type|logical_ip|external_ip|logical_port|gateway_port".
func (o NAT) Key() string {
	var scratch [128]byte
	return string(o.appendKey(scratch[:0]))
}

func (o NAT) appendKey(b []byte) []byte {
	b = append(append(b, o.Router...), '|')
	b = append(append(b, o.Type...), '|')
	b = append(appendPrefix(b, o.LogicalIP), '|')
	b = append(o.ExternalIP.AppendTo(b), '|')
	b = append(append(b, o.LogicalPort...), '|')
	return append(b, o.GatewayPort...)
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
