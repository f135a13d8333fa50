package egressqos

import (
	"cmp"
	"fmt"
	"net/netip"
	"slices"
	"strconv"

	"github.com/udnkit/udnkit/internal/sdkerr"
	"github.com/udnkit/udnkit/netconf/udn"
	"github.com/udnkit/udnkit/topology"
	"github.com/udnkit/udnkit/topology/egressip"
)

// Controller owns every row this package plans.
const Controller topology.Controller = "udnkit-egressqos"

// Limits of the reference's CRD.
const (
	MaxRules    = 1000
	MaxDSCP     = 63
	TopPriority = 1000 // rule i has priority TopPriority - i
	// Name is the only EgressQoS name the reference acts on.
	Name = "default"
)

// Errors callers branch on.
var (
	ErrInvalid     = sdkerr.New(sdkerr.Invalid, "invalid egress QoS input")
	ErrUnsupported = sdkerr.New(sdkerr.NotSupported, "not supported")
)

// EgressQoS is a namespace's k8s.ovn.org/v1 EgressQoS ("default").
type EgressQoS struct {
	Namespace string
	Rules     []Rule
}

// Rule is one entry of spec.egress.
type Rule struct {
	// DSCP is the value written into the packets' DSCP field (0..63).
	DSCP int
	// DstCIDR limits the rule to a destination; the zero Prefix is any.
	DstCIDR netip.Prefix
	// PodSelector selects the namespace's pods; nil selects them all.
	PodSelector *egressip.Selector
}

// Selects reports whether the rule takes a pod with labels l: every pod
// without a PodSelector.
func (r Rule) Selects(l egressip.Labels) bool {
	return r.PodSelector == nil || r.PodSelector.Matches(l)
}

// Validate checks the rules; errors name the namespace and the field.
func (q *EgressQoS) Validate() error {
	if len(q.Rules) > MaxRules {
		return fmt.Errorf("egressqos %s/%s: spec.egress: %w: %d rules, at most %d", q.Namespace, Name, ErrInvalid, len(q.Rules), MaxRules)
	}
	for i, r := range q.Rules {
		if r.DSCP < 0 || r.DSCP > MaxDSCP {
			return fmt.Errorf("egressqos %s/%s: spec.egress[%d].dscp: %w: %d not in 0..%d", q.Namespace, Name, i, ErrInvalid, r.DSCP, MaxDSCP)
		}
		if r.DstCIDR.IsValid() && r.DstCIDR != r.DstCIDR.Masked() {
			return fmt.Errorf("egressqos %s/%s: spec.egress[%d].dstCIDR: %w: %s has host bits", q.Namespace, Name, i, ErrInvalid, r.DstCIDR)
		}
	}
	return nil
}

// Network is a primary network and the namespaces it is primary for (one
// for a UDN, those of its selector for a CUDN).
type Network struct {
	Network    *udn.Network
	Namespaces []string
}

// Pod is a pod with its labels and its addresses on each network.
type Pod struct {
	Namespace, Name, Node string
	Labels                egressip.Labels
	// IPs are the pod's addresses per network name.
	IPs []NetworkIPs
}

// NetworkIPs are a pod's addresses on one network.
type NetworkIPs struct {
	Network string
	IPs     []netip.Addr
}

// Input is what Plan needs: the primary networks, the nodes and zone, every
// EgressQoS and the pods of their namespaces.
type Input struct {
	Networks  []Network
	Nodes     []topology.Node
	Zone      string
	EgressQoS []EgressQoS
	Pods      []Pod
}

// AddressSetName returns the name of the address set of namespace's rule
// at priority on network for a family: "a" and the decimal FNV-1a-64 of
// its id, as the reference names address sets.
func AddressSetName(network, namespace string, priority int, is4 bool) string {
	fam := "v6"
	if is4 {
		fam = "v4"
	}
	return topology.HashName(string(Controller) + ":EgressQoS:" + namespace + ":" + strconv.Itoa(priority) + ":" + fam + ":" + network)
}

// PlanZone plans every EgressQoS of in for in.Zone on every primary network
// of its namespace (seed 002: a namespace may have several): per rule and
// network an address set per family of the network holding the local pods
// the rule selects (their addresses on that network), and a QoS row on
// each of the network's switches in the zone (a Layer3 network's local node
// switches, a Layer2 network's switch) matching
// "(<ip>.dst == <dstCIDR>) && <ip>.src == $<set>" (both families:
// "(ip4.src == $v4 || ip6.src == $v6)"; no dstCIDR:
// "(ip4.dst == 0.0.0.0/0 || ip6.dst == ::/0)") with action dscp=<value>.
// Both kinds of rows are in the State, owned by Controller, which speaks
// for every network of in. It is pure.
func PlanZone(in Input) (topology.State, error) {
	if in.Zone == "" {
		return topology.State{}, fmt.Errorf("egressqos: zone: %w: empty", ErrInvalid)
	}
	local := map[string]bool{}
	for i := range in.Nodes {
		if in.Nodes[i].InZone() == in.Zone {
			local[in.Nodes[i].Name] = true
		}
	}
	byNS := map[string]*EgressQoS{}
	for i := range in.EgressQoS {
		q := &in.EgressQoS[i]
		if err := q.Validate(); err != nil {
			return topology.State{}, err
		}
		if byNS[q.Namespace] != nil {
			return topology.State{}, fmt.Errorf("egressqos %s/%s: %w: given twice", q.Namespace, Name, ErrInvalid)
		}
		byNS[q.Namespace] = q
	}
	podsOf := map[string][]*Pod{}
	for i := range in.Pods {
		p := &in.Pods[i]
		podsOf[p.Namespace] = append(podsOf[p.Namespace], p)
	}
	var e topology.Emitter
	type row struct {
		sw   string
		prio int
		q    topology.QoS
	}
	var rows []row
	for _, nw := range in.Networks {
		n := nw.Network
		if n == nil || !n.IsPrimary() {
			return topology.State{}, fmt.Errorf("egressqos: network: %w: need a primary network", ErrInvalid)
		}
		// The zone's pod switches and, on Layer3, the node of each (the
		// owner's Node); the one Layer2 switch has none.
		type podSwitch struct{ name, node string }
		var switches []podSwitch
		switch n.Topology {
		case udn.TopologyLayer3:
			for i := range in.Nodes {
				if nd := in.Nodes[i].Name; local[nd] {
					switches = append(switches, podSwitch{topology.PodSwitchName(n, nd), nd})
				}
			}
		case udn.TopologyLayer2:
			switches = append(switches, podSwitch{topology.PodSwitchName(n, ""), ""})
		default:
			return topology.State{}, fmt.Errorf("egressqos: network %q: %w: topology %s", n.Name, ErrUnsupported, n.Topology)
		}
		slices.SortFunc(switches, func(a, b podSwitch) int { return cmp.Compare(a.name, b.name) })
		own := topology.Owner{Controller: Controller, Network: n.Name, Topology: n.Topology, Role: n.Role}
		e.Own(Controller, n.Name)
		fams := n.Families()
		namespaces := slices.Sorted(slices.Values(nw.Namespaces))
		for _, ns := range slices.Compact(namespaces) {
			q := byNS[ns]
			if q == nil {
				continue
			}
			for i, r := range q.Rules {
				prio := TopPriority - i
				var sets [2][]netip.Prefix
				for _, p := range podsOf[ns] {
					if !local[p.Node] || !r.Selects(p.Labels) {
						continue
					}
					for _, a := range p.IPs {
						if a.Network != n.Name {
							continue
						}
						for _, ip := range a.IPs {
							f := 1
							if ip.Is4() {
								f = 0
							}
							sets[f] = append(sets[f], netip.PrefixFrom(ip, ip.BitLen()))
						}
					}
				}
				var srcs []string
				for _, is4 := range fams {
					f := 1
					if is4 {
						f = 0
					}
					name := AddressSetName(n.Name, ns, prio, is4)
					slices.SortFunc(sets[f], func(a, b netip.Prefix) int { return a.Addr().Compare(b.Addr()) })
					e.Emit(topology.AddressSet{Owner: own, Name: name, Addresses: e.Prefixes(slices.Compact(sets[f])...)})
					srcs = append(srcs, []string{"ip4", "ip6"}[f]+".src == $"+name)
				}
				if len(srcs) == 0 {
					continue // a network without subnets has no pod addresses
				}
				src := srcs[0]
				if len(srcs) == 2 {
					src = "(" + srcs[0] + " || " + srcs[1] + ")"
				}
				dst := "ip4.dst == 0.0.0.0/0 || ip6.dst == ::/0"
				if r.DstCIDR.IsValid() {
					dst = "ip4.dst == " + r.DstCIDR.String()
					if r.DstCIDR.Addr().Is6() {
						dst = "ip6.dst == " + r.DstCIDR.String()
					}
				}
				match := "(" + dst + ") && " + src
				for _, sw := range switches {
					o := own
					o.Node = sw.node
					rows = append(rows, row{sw.name, prio, topology.QoS{Owner: o, Switch: sw.name, Direction: topology.ACLToLport, Priority: prio,
						Match: match, Action: topology.NewIntOptions(topology.QoSDSCP, r.DSCP)}})
				}
			}
		}
	}
	// Rows sorted by switch, priority (highest first) and match; one key
	// planned twice is refused, not merged.
	slices.SortFunc(rows, func(a, b row) int {
		return cmp.Or(cmp.Compare(a.sw, b.sw), cmp.Compare(b.prio, a.prio), cmp.Compare(a.q.Match, b.q.Match))
	})
	for i := range rows {
		if i > 0 && rows[i].sw == rows[i-1].sw && rows[i].prio == rows[i-1].prio && rows[i].q.Match == rows[i-1].q.Match {
			return topology.State{}, fmt.Errorf("egressqos: switch %s: %w: two rows at priority %d with match %q", rows[i].sw, ErrInvalid, rows[i].prio, rows[i].q.Match)
		}
		e.Emit(rows[i].q)
	}
	return e.State()
}
