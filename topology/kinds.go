package topology

//go:generate go run ./internal/kindgen -o kinds_gen.go kinds.go

// Descriptor describes one kind of object: the single source from which
// the generated per-kind methods (kinds_gen.go), the OVN adapters' row
// mapping (internal/nbrow: parents, references, key and updatable
// columns) and the ovn-nbctl renderer take what they need to know about
// the kind.
type Descriptor struct {
	// Kind is the kind described.
	Kind Kind
	// Type is the Go type of its objects (generation reads it).
	Type string
	// Name is its short name ("switch_port"), Kind.String.
	Name string
	// Table is its OVN Northbound table.
	Table string
	// Named: its key is its name column (Key returns Name); else its key
	// is built from KeyColumns and its parent.
	Named bool
	// Indexed: the table has an index on name, so the server itself
	// refuses a second row of one name. The adapter guards creates of
	// named kinds without one with a wait.
	Indexed bool
	// KeyColumns are the OVN columns that, with the parent, make the key
	// of an unnamed kind, in the order Key spells them.
	KeyColumns []string
	// Parents are the kinds whose rows hold objects of this kind as
	// members, and the member column (several for an ACL: a port group's
	// or a switch's). Empty for root kinds.
	Parents []ParentColumn
	// Refs are the columns referencing other rows, which the model holds
	// by name.
	Refs []RefColumn
	// Attachments are the columns of other rows that hold objects of this
	// kind by weak reference and that the object's owner, not the row's,
	// manages by mutation (a load balancer's switches, routers and
	// groups): the object names those rows, and Attached lists them.
	Attachments []ParentColumn
	// Updatable are the columns an update may write ("external_ids" where
	// the table has it).
	Updatable []string
}

// ParentColumn is a parent kind and its column holding members.
type ParentColumn struct {
	Kind   Kind
	Column string
}

// RefColumn is a column holding references to rows of Kind, by name in
// the model.
type RefColumn struct {
	Column string
	Kind   Kind
}

// descriptors is indexed by Kind. Adding a kind: a constant in model.go,
// its type, a descriptor here, its per-kind methods in objects.go (clone,
// normalize, columns, render) and its row mapping in internal/nbrow, then
// go generate (see the package documentation).
var descriptors = [kindEnd]Descriptor{
	{},
	{Kind: KindAddressSet, Type: "AddressSet", Name: "address_set", Table: "Address_Set", Named: true, Indexed: true,
		Updatable: []string{"addresses", "external_ids"}},
	{Kind: KindLoadBalancer, Type: "LoadBalancer", Name: "load_balancer", Table: "Load_Balancer", Named: true,
		Attachments: []ParentColumn{{KindLoadBalancerGroup, "load_balancer"}, {KindSwitch, "load_balancer"}, {KindRouter, "load_balancer"}},
		Updatable:   []string{"protocol", "vips", "options", "selection_fields", "external_ids"}},
	{Kind: KindLoadBalancerGroup, Type: "LoadBalancerGroup", Name: "load_balancer_group", Table: "Load_Balancer_Group", Named: true, Indexed: true},
	{Kind: KindSwitch, Type: "Switch", Name: "switch", Table: "Logical_Switch", Named: true,
		Refs: []RefColumn{{"load_balancer_group", KindLoadBalancerGroup}}, Updatable: []string{"other_config", "load_balancer_group", "external_ids"}},
	{Kind: KindRouter, Type: "Router", Name: "router", Table: "Logical_Router", Named: true,
		Refs: []RefColumn{{"load_balancer_group", KindLoadBalancerGroup}}, Updatable: []string{"options", "load_balancer_group", "external_ids"}},
	{Kind: KindSwitchPort, Type: "SwitchPort", Name: "switch_port", Table: "Logical_Switch_Port", Named: true, Indexed: true,
		Parents:   []ParentColumn{{KindSwitch, "ports"}},
		Updatable: []string{"type", "addresses", "port_security", "options", "tag_request", "external_ids"}},
	{Kind: KindRouterPort, Type: "RouterPort", Name: "router_port", Table: "Logical_Router_Port", Named: true, Indexed: true,
		Parents:   []ParentColumn{{KindRouter, "ports"}},
		Updatable: []string{"mac", "networks", "peer", "options", "gateway_chassis", "external_ids"}},
	{Kind: KindPortGroup, Type: "PortGroup", Name: "port_group", Table: "Port_Group", Named: true, Indexed: true,
		Refs: []RefColumn{{"ports", KindSwitchPort}}, Updatable: []string{"ports", "external_ids"}},
	{Kind: KindStaticRoute, Type: "StaticRoute", Name: "static_route", Table: "Logical_Router_Static_Route",
		KeyColumns: []string{"route_table", "policy", "ip_prefix", "nexthop"},
		Parents:    []ParentColumn{{KindRouter, "static_routes"}}, Updatable: []string{"output_port", "options", "external_ids"}},
	{Kind: KindPolicy, Type: "Policy", Name: "policy", Table: "Logical_Router_Policy",
		KeyColumns: []string{"priority", "match"},
		Parents:    []ParentColumn{{KindRouter, "policies"}}, Updatable: []string{"action", "nexthops", "options", "external_ids"}},
	{Kind: KindNAT, Type: "NAT", Name: "nat", Table: "NAT",
		KeyColumns: []string{"type", "logical_ip", "external_ip", "logical_port", "gateway_port"},
		Parents:    []ParentColumn{{KindRouter, "nat"}}, Refs: []RefColumn{{"gateway_port", KindRouterPort}},
		Updatable: []string{"match", "options", "external_ids"}},
	{Kind: KindACL, Type: "ACL", Name: "acl", Table: "ACL",
		KeyColumns: []string{"tier", "direction", "priority", "match"},
		Parents:    []ParentColumn{{KindPortGroup, "acls"}, {KindSwitch, "acls"}}, Updatable: []string{"name", "action", "options", "external_ids"}},
}

// Descriptor returns the descriptor of kind k (the zero Descriptor for an
// unknown kind). Its slices are shared: do not modify them.
func (k Kind) Descriptor() Descriptor {
	if k >= kindEnd {
		return Descriptor{}
	}
	return descriptors[k]
}

// Parent returns the kind and name of the row whose member column holds o
// (a port's switch or router, a route's router, an ACL's port group or
// switch), and false for a root object.
func Parent(o Object) (Kind, string, bool) {
	switch x := o.(type) {
	case SwitchPort:
		return KindSwitch, x.Switch, true
	case RouterPort:
		return KindRouter, x.Router, true
	case StaticRoute:
		return KindRouter, x.Router, true
	case Policy:
		return KindRouter, x.Router, true
	case NAT:
		return KindRouter, x.Router, true
	case ACL:
		if x.PortGroup != "" {
			return KindPortGroup, x.PortGroup, true
		}
		return KindSwitch, x.Switch, true
	}
	return 0, "", false
}

// References returns, in the order of o's descriptor's Refs, the names
// each reference column of o holds (nil for none).
func References(o Object) [][]string {
	switch x := o.(type) {
	case Switch:
		return [][]string{x.LoadBalancerGroups}
	case Router:
		return [][]string{x.LoadBalancerGroups}
	case PortGroup:
		return [][]string{x.Ports}
	case NAT:
		if x.GatewayPort != "" {
			return [][]string{{x.GatewayPort}}
		}
		return [][]string{nil}
	}
	return nil
}

// Attached returns, in the order of o's descriptor's Attachments, the
// names of the rows each attachment column holds o in (nil for none).
func Attached(o Object) [][]string {
	if x, ok := o.(LoadBalancer); ok {
		return [][]string{x.Groups, x.Switches, x.Routers}
	}
	return nil
}

// WithAttached returns o holding the attachments names, in the order of
// Attached (a backend reading them back); o unchanged for a kind without
// attachments.
func WithAttached(o Object, names [][]string) Object {
	if x, ok := o.(LoadBalancer); ok && len(names) == 3 {
		x.Groups, x.Switches, x.Routers = names[0], names[1], names[2]
		return x
	}
	return o
}
