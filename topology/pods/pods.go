package pods

import (
	"cmp"
	"errors"
	"net"
	"net/netip"
	"slices"
	"strconv"

	"github.com/udnkit/udnkit/internal/names"
	"github.com/udnkit/udnkit/internal/sdkerr"
	"github.com/udnkit/udnkit/ipam"
	"github.com/udnkit/udnkit/netconf"
	"github.com/udnkit/udnkit/netconf/udn"
	"github.com/udnkit/udnkit/topology"
)

// ControllerPods owns the pod ports.
const ControllerPods topology.Controller = "udnkit-pods"

// External ids of a pod port (the reference's keys).
const (
	ExtNamespace = "namespace"
	ExtPod       = "pod"
	ExtNAD       = "k8s.ovn.org/nad"
	OptIfaceID   = "iface-id-ver"
)

// ErrInvalid is wrapped by errors about the input; ErrOverlap when two of a
// pod's networks overlap.
var (
	ErrInvalid = sdkerr.New(sdkerr.Invalid, "invalid pod input")
	ErrOverlap = sdkerr.New(sdkerr.Conflict, "the pod's networks overlap")
)

// Pod is a pod being attached.
type Pod struct {
	Namespace, Name, UID string
	// Node is the node the pod runs on.
	Node string
}

// Attachment is one network of a pod, its addresses allocated.
type Attachment struct {
	// Network is the user-defined network; nil for the default network.
	Network *udn.Network
	// NAD is the key of the NAD the pod uses ("<namespace>/<name>"); empty
	// for the default network.
	NAD string
	// Role is the network's role in this pod.
	Role netconf.PodRole
	// IPs are the pod's interface addresses on the network.
	IPs []netip.Prefix
	// MAC defaults to the one derived from the first address.
	MAC net.HardwareAddr
	// HostSubnets are the pod's node's subnets of a Layer3 network (and of
	// the default network): the gateway and routes come from them.
	HostSubnets []netip.Prefix
	// TunnelID is a Layer2 port's tunnel key (requested-tnl-key), the same
	// in every zone, so that remote ports reach it; 0 leaves it to OVN (one
	// zone).
	TunnelID int
}

// Input is what PlanPod needs.
type Input struct {
	Pod         Pod
	Attachments []Attachment
	// Nodes gives the nodes' chassis and zones; Zone is the zone planned.
	Nodes []topology.Node
	Zone  string
	// ServiceCIDRs and ClusterSubnets (the default network's) feed the
	// routes.
	ServiceCIDRs, ClusterSubnets []netip.Prefix
	// Layer2 and LegacyNodes say, as in topology.Input, which nodes run a
	// primary Layer2 network on the legacy topology (no transit router):
	// there the gateway router answers for the gateway on the switch, and
	// a pod's IPv6 link-local gateway is its join port's.
	Layer2      topology.Layer2Mode
	LegacyNodes []string
}

// Planned is a pod's rows and annotation.
type Planned struct {
	// Ports are the pod's switch ports in the zone (none on a Layer3
	// network for a pod of another zone: its node's switch is not here).
	Ports []topology.SwitchPort
	// Annotation is the pod's k8s.ovn.org/pod-networks value.
	Annotation netconf.PodNetworks
}

// PortName returns the logical port of a pod on a network: "<ns>_<pod>" on
// the default network, prefixed with the NAD's name prefix on a
// user-defined one (the reference's names).
func PortName(namespace, pod, nad string) string {
	if nad == "" {
		return namespace + "_" + pod
	}
	return udn.NetworkPrefix(nad) + namespace + "_" + pod
}

// PlanPod plans one pod's ports and annotation.
func PlanPod(in Input) (Planned, error) {
	p := in.Pod
	if p.Namespace == "" || p.Name == "" || p.Node == "" {
		return Planned{}, names.Errorf("pod %s/%s: %w: namespace, name and node are required", names.Quote(p.Namespace), names.Quote(p.Name), ErrInvalid)
	}
	if err := checkNames(in); err != nil {
		return Planned{}, names.Errorf("pod %s/%s: %w: %w", names.Quote(p.Namespace), names.Quote(p.Name), ErrInvalid, err)
	}
	node := slices.IndexFunc(in.Nodes, func(n topology.Node) bool { return n.Name == p.Node })
	if node < 0 {
		return Planned{}, names.Errorf("pod %s/%s: node %q: %w: not among the nodes", p.Namespace, p.Name, p.Node, ErrInvalid)
	}
	nd := in.Nodes[node]
	local := nd.InZone() == in.Zone
	if err := checkOverlaps(p, in.Attachments); err != nil {
		return Planned{}, err
	}
	out := Planned{Annotation: netconf.PodNetworks{}}
	for _, a := range in.Attachments {
		key := netconf.DefaultNetworkKey
		if a.Network != nil {
			key = a.NAD
			if a.NAD == "" {
				return Planned{}, names.Errorf("pod %s/%s: network %q: nad: %w: required", p.Namespace, p.Name, a.Network.Name, ErrInvalid)
			}
		}
		if len(a.IPs) == 0 {
			return Planned{}, names.Errorf("pod %s/%s: network %s: ips: %w: none allocated", p.Namespace, p.Name, key, ErrInvalid)
		}
		mac := a.MAC
		if mac == nil {
			mac = ipam.MACFromIP(a.IPs[0].Addr())
		}
		gws, routes, err := netconf.PodRoutes(netconf.PodRoutesInput{Network: a.Network, Role: a.Role, ClusterSubnets: in.ClusterSubnets,
			HostSubnets: a.HostSubnets, ServiceCIDRs: in.ServiceCIDRs})
		if err != nil {
			return Planned{}, names.Errorf("pod %s/%s: network %s: %w", p.Namespace, p.Name, key, err)
		}
		pn := netconf.PodNetwork{IPs: a.IPs, MAC: mac, Gateways: gws, Routes: routes, TunnelID: a.TunnelID, Role: a.Role}
		if a.Network != nil && a.Network.Topology == udn.TopologyLayer2 && a.Role == netconf.PodRolePrimary && len(gws) > 0 {
			for _, gw := range gws {
				if !gw.Is6() {
					continue
				}
				src := firstV4(gws, gw) // the transit router's switch port answers for the gateway
				if legacyNode(in, nd.Name) {
					// The legacy gateway router's port: its MAC is its join
					// address's (IPv4 first), as the topology planner derives it.
					var err error
					if src, err = legacyJoinAddr(a.Network, nd.ID); err != nil {
						return Planned{}, names.Errorf("pod %s/%s: network %s: %w: %w", p.Namespace, p.Name, key, ErrInvalid, err)
					}
				}
				pn.GatewayIPv6LLA = ipam.LinkLocalFromMAC(ipam.MACFromIP(src))
			}
		}
		out.Annotation[key] = pn
		if a.Network == nil {
			continue // the default network's ports are the default network controller's
		}
		port, ok := portOf(p, nd, local, a, mac)
		if ok {
			out.Ports = append(out.Ports, port)
		}
	}
	slices.SortFunc(out.Ports, func(a, b topology.SwitchPort) int { return cmp.Compare(a.Name, b.Name) })
	return out, nil
}

// checkNames refuses control characters in the names PlanPod writes into
// rows and the annotation (topology.CheckNames), naming the field.
func checkNames(in Input) error {
	p := in.Pod
	for _, f := range [][2]string{{"namespace", p.Namespace}, {"name", p.Name}, {"uid", p.UID}, {"node", p.Node}} {
		if msg := names.ControlError(f[1]); msg != "" {
			return names.Errorf("%s %s: %s", f[0], names.Quote(f[1]), msg)
		}
	}
	if err := topology.CheckNames(nil, in.Nodes, in.Zone); err != nil {
		return err
	}
	for i, a := range in.Attachments {
		if msg := names.ControlError(a.NAD); msg != "" {
			return names.Errorf("attachments[%d]: nad %s: %s", i, names.Quote(a.NAD), msg)
		}
		if err := topology.CheckNames(a.Network, nil, ""); err != nil {
			return names.Errorf("attachments[%d]: %w", i, err)
		}
	}
	return nil
}

// legacyNode reports whether node runs the network on the legacy Layer2
// topology.
func legacyNode(in Input, node string) bool {
	return in.Layer2 == topology.Layer2Legacy || in.Layer2 == topology.Layer2Upgrade && slices.Contains(in.LegacyNodes, node)
}

// legacyJoinAddr returns the join address of node id's gateway router
// whose MAC the legacy gateway router's switch port carries: the IPv4 one
// when the network has an IPv4 join subnet.
func legacyJoinAddr(n *udn.Network, id int) (netip.Addr, error) {
	var out netip.Addr
	for _, j := range n.JoinSubnets {
		a, err := ipam.JoinGatewayRouterIP(j, id)
		if err != nil {
			return netip.Addr{}, err
		}
		if !out.IsValid() || a.Addr().Is4() && !out.Is4() {
			out = a.Addr()
		}
	}
	if !out.IsValid() {
		return netip.Addr{}, errors.New("joinSubnets: none, a legacy Layer2 gateway router needs one")
	}
	return out, nil
}

// firstV4 returns the network's IPv4 gateway, whose MAC names the IPv6
// link-local gateway (the router port's MAC comes from its IPv4 address),
// or fallback.
func firstV4(gws []netip.Addr, fallback netip.Addr) netip.Addr {
	for _, g := range gws {
		if g.Is4() {
			return g
		}
	}
	return fallback
}

func portOf(p Pod, nd topology.Node, local bool, a Attachment, mac net.HardwareAddr) (topology.SwitchPort, bool) {
	n := a.Network
	// Only a Layer2 switch spans the zones: a remote pod of another
	// topology has no port here.
	if !local && n.Topology != udn.TopologyLayer2 {
		return topology.SwitchPort{}, false
	}
	sw := topology.PodSwitchName(n, nd.Name)
	addr := mac.String()
	for _, ip := range a.IPs {
		addr += " " + ip.Addr().String()
	}
	opts := []string{topology.OptRequestedChassis, nd.Chassis}
	if a.TunnelID != 0 {
		opts = append(opts, topology.OptRequestedTnlKey, strconv.Itoa(a.TunnelID))
	}
	port := topology.SwitchPort{
		Owner: topology.Owner{Controller: ControllerPods, Network: n.Name, Topology: n.Topology, Role: n.Role, Node: p.Node},
		Name:  PortName(p.Namespace, p.Name, a.NAD), Switch: sw,
		Addresses: []string{addr}, PortSecurity: []string{addr},
		ExternalIDs: topology.NewOptions(ExtNAD, a.NAD, ExtNamespace, p.Namespace, ExtPod, "true"),
	}
	if local {
		if p.UID != "" {
			opts = append(opts, OptIfaceID, p.UID)
		}
	} else {
		port.Type = topology.PortRemote
	}
	port.Options = topology.NewOptions(opts...)
	return port, true
}

// checkOverlaps refuses a pod two of whose networks overlap in pod or join
// subnets.
func checkOverlaps(p Pod, as []Attachment) error {
	type named struct {
		name   string
		subnet netip.Prefix
	}
	var all []named
	for _, a := range as {
		name := netconf.DefaultNetworkKey
		var subnets []netip.Prefix
		if a.Network != nil {
			name = a.Network.Name
			subnets = append(a.Network.SubnetPrefixes(), a.Network.JoinSubnets...)
		}
		for _, s := range subnets {
			for _, o := range all {
				if o.name != name && o.subnet.Overlaps(s) {
					return names.Errorf("pod %s/%s: %w: network %q (%s) and network %q (%s)", p.Namespace, p.Name, ErrOverlap, o.name, o.subnet, name, s)
				}
			}
		}
		for _, s := range subnets {
			all = append(all, named{name, s})
		}
	}
	return nil
}

// PlanNode returns the ports of all pods of node in the zone as a State
// that speaks for that node's pod ports only (pods is every pod of the
// node, planned with PlanPod): a pods controller's desired state for the
// node.
func PlanNode(node string, networks []string, pods []Planned) (topology.State, error) {
	var e topology.Emitter
	for _, n := range networks {
		e.Own(ControllerPods, n)
	}
	e.Partial(node)
	for _, p := range pods {
		for _, port := range p.Ports {
			if port.Owner.Node != node {
				return topology.State{}, names.Errorf("port %s: %w: a pod of node %q planned for node %q", port.Name, ErrInvalid, port.Owner.Node, node)
			}
			e.Emit(port)
		}
	}
	return e.State()
}

// Changes returns the changes that take a pod's rows from before to after
// (either may be the zero Planned: a pod that comes or goes), and nothing
// else: a controller applies them directly (Apply, not Sync), at a cost
// that depends on that pod alone, however many pods the node or the
// cluster has. PlanNode's State is the full resync.
func Changes(before, after Planned) (topology.Changes, error) {
	return topology.ObjectChanges(before.Ports, after.Ports)
}
