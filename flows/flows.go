package flows

import (
	"cmp"
	"fmt"
	"net"
	"net/netip"
	"slices"
	"strconv"
	"strings"

	"github.com/udnkit/udnkit/internal/sdkerr"
	"github.com/udnkit/udnkit/internal/shell"
	"github.com/udnkit/udnkit/ipam"
)

// Cookie marks every flow the SDK writes on the gateway bridge; flows with
// another cookie are never touched.
const Cookie uint64 = 0xdeff105

// Conntrack zones and marks (the reference's, DESIGN's facts).
const (
	ZoneMain     = 64000 // OVN and host traffic leaving and entering the node
	ZoneHostMasq = 64001 // host to service, SNATed to the host masquerade IP
	ZoneOVNMasq  = 64002 // service replies SNATed to the OVN masquerade IP

	CtMarkOVN  = 0x1 // the default network
	CtMarkHost = 0x2 // the host
	// CtMarkNetworkBase + ID is a user-defined network's conntrack mark.
	CtMarkNetworkBase = 0x3
	// PktMarkNetworkBase + ID is the packet mark nftables puts on a
	// network's NodePort and external-IP traffic.
	PktMarkNetworkBase = 0x1000
)

// Priorities of the flows.
const (
	prioEgress         = 100
	prioServiceLocal   = 500
	prioClusterIP      = 501 // the seed's per-cluster-IP dispatch, above the service CIDR flow
	prioServiceMasq    = 550
	prioServiceReply   = 500
	prioServiceDrop    = 115
	prioReplies        = 50
	prioFanOut         = 10
	prioPatchNormal    = 10
	prioPatchDrop      = 9
	prioDispatch       = 100
	prioMgmtMasqDrop   = 200
	prioPktMark        = 250
	prioClusterIPTable = 300
)

// Errors of Plan.
var ErrInvalid = sdkerr.New(sdkerr.Invalid, "invalid flows input")

// Port is a port of the gateway bridge: its name and OpenFlow port number
// (Interface ofport), which the flows use.
type Port struct {
	Name   string
	OFPort int
}

// Node is the node whose gateway bridge is planned.
type Node struct {
	// Bridge is the gateway bridge ("breth0").
	Bridge string
	// Physical is the bridge's uplink.
	Physical Port
	// MAC is the bridge's MAC, which the gateway routers' external ports
	// share in shared gateway mode.
	MAC net.HardwareAddr
	// IPs are the node's addresses, at most one per family; egress is
	// SNATed to them.
	IPs []netip.Addr
	// DefaultPatch is the default network's patch port to br-int.
	DefaultPatch Port
}

// Network is a primary user-defined network on the node.
type Network struct {
	// ID is the network ID (1..ipam.MaxNetworkID).
	ID int
	// Name is the network name, for errors.
	Name string
	// Patch is the network's patch port,
	// "patch-<bridge>_<prefix><node>-to-br-int".
	Patch Port
	// GatewayMAC is the MAC of the network gateway router's external port,
	// where the seed's host-to-ClusterIP dispatch sends packets.
	GatewayMAC net.HardwareAddr
	// IPv4 and IPv6 say which families the network has.
	IPv4, IPv6 bool
	// ClusterIPs are the network's service cluster IPs, dispatched from the
	// host to the network's gateway router (the seed's reg1 flows).
	ClusterIPs []netip.Addr
}

// Cluster holds cluster-wide settings.
type Cluster struct {
	// ServiceCIDRs are the cluster's service CIDRs.
	ServiceCIDRs []netip.Prefix
	// MasqueradeSubnets default to ipam.DefaultMasqueradeSubnets.
	MasqueradeSubnets []netip.Prefix
}

// Input is what Plan needs.
type Input struct {
	Node     Node
	Networks []Network
	Cluster  Cluster
}

// Flow is one OpenFlow flow of the gateway bridge.
type Flow struct {
	Table    int
	Priority int
	// Match is the flow's match in ovs-ofctl syntax, without table and
	// priority ("ip,in_port=2,nw_src=169.254.0.11").
	Match string
	// Actions in ovs-ofctl syntax.
	Actions string
}

// flowID is a flow's identity in its bridge.
type flowID struct {
	table, priority int
	match           string
}

func (f Flow) id() flowID { return flowID{f.Table, f.Priority, f.Match} }

// Key identifies the flow in its table: table, priority and match.
func (f Flow) Key() string {
	return "table=" + strconv.Itoa(f.Table) + ",priority=" + strconv.Itoa(f.Priority) + matchSep(f.Match)
}

func matchSep(m string) string {
	if m == "" {
		return ""
	}
	return "," + m
}

// String returns the flow as an ovs-ofctl add-flow argument, cookie
// included.
func (f Flow) String() string {
	return "cookie=0x" + strconv.FormatUint(Cookie, 16) + "," + f.Key() + ",actions=" + f.Actions
}

// family holds what the flows of one IP family need.
type family struct {
	ip, src, dst string // "ip", "nw_src", "nw_dst" or the IPv6 spellings
	nodeIP       netip.Addr
	masq         ipam.Masquerade
	services     []netip.Prefix
}

// Plan returns the flows of in's gateway bridge, sorted by table, priority
// and match. It is pure.
func Plan(in Input) ([]Flow, error) {
	if err := validateInput(in); err != nil {
		return nil, err
	}
	nd := in.Node
	masqs := in.Cluster.MasqueradeSubnets
	if len(masqs) == 0 {
		masqs = ipam.DefaultMasqueradeSubnets()
	}
	var fams []family
	for _, ip := range nd.IPs {
		f := family{ip: "ip", src: "nw_src", dst: "nw_dst", nodeIP: ip}
		if ip.Is6() {
			f.ip, f.src, f.dst = "ipv6", "ipv6_src", "ipv6_dst"
		}
		i := slices.IndexFunc(masqs, func(p netip.Prefix) bool { return p.Addr().Is4() == ip.Is4() })
		if i < 0 {
			return nil, fmt.Errorf("node: ips: %w: no masquerade subnet of %s's family", ErrInvalid, ip)
		}
		m, err := ipam.MasqueradeIPs(masqs[i])
		if err != nil {
			return nil, fmt.Errorf("cluster: masqueradeSubnets: %w", err)
		}
		f.masq = m
		for _, s := range in.Cluster.ServiceCIDRs {
			if s.Addr().Is4() == ip.Is4() {
				f.services = append(f.services, s)
			}
		}
		fams = append(fams, f)
	}
	if len(fams) == 0 {
		return nil, fmt.Errorf("node: ips: %w: none", ErrInvalid)
	}
	nets := slices.Clone(in.Networks)
	slices.SortFunc(nets, func(a, b Network) int { return cmp.Compare(a.ID, b.ID) })

	var out []Flow
	add := func(table, prio int, match, actions string) {
		out = append(out, Flow{Table: table, Priority: prio, Match: match, Actions: actions})
	}
	mac := nd.MAC.String()
	phys, def := strconv.Itoa(nd.Physical.OFPort), strconv.Itoa(nd.DefaultPatch.OFPort)
	patches := []string{def}
	for _, n := range nets {
		patches = append(patches, strconv.Itoa(n.Patch.OFPort))
	}
	for _, f := range fams {
		// Egress of the default network, replies by conntrack mark.
		add(0, prioEgress, f.ip+",in_port="+def+",dl_src="+mac,
			"ct(commit,zone="+itoa(ZoneMain)+",exec(set_field:"+hex(CtMarkOVN)+"->ct_mark)),output:"+phys)
		add(0, prioReplies, f.ip+",dl_dst="+mac, "ct(zone="+itoa(ZoneMain)+",nat,table=1)")
		for _, st := range []string{"+est+trk", "+rel+trk"} {
			add(1, prioEgress, f.ip+",ct_state="+st+",ct_mark="+hex(CtMarkOVN), "output:"+def)
			add(1, prioEgress, f.ip+",ct_state="+st+",ct_mark="+hex(CtMarkHost), "output:LOCAL")
		}
		// Host to services: SNAT to the host masquerade IP (unless a
		// network's VRF already did), then dispatch in table 2.
		for _, s := range f.services {
			add(0, prioServiceLocal, f.ip+",in_port=LOCAL,"+f.dst+"="+s.String(),
				"ct(commit,zone="+itoa(ZoneHostMasq)+",nat(src="+f.masq.Host.String()+"),table=2)")
			add(0, prioServiceMasq, f.ip+",in_port=LOCAL,"+f.src+"="+f.masq.Subnet.String()+","+f.dst+"="+s.String(),
				"ct(commit,zone="+itoa(ZoneHostMasq)+",table=2)")
			for _, p := range patches {
				add(0, prioServiceReply, f.ip+",in_port="+p+","+f.src+"="+s.String()+","+f.dst+"="+f.masq.Subnet.String(),
					"ct(zone="+itoa(ZoneHostMasq)+",nat,table=3)")
				add(0, prioServiceDrop, f.ip+",in_port="+p+","+f.dst+"="+s.String(), "drop")
			}
		}
		add(4, 0, f.ip, "ct(commit,zone="+itoa(ZoneOVNMasq)+",nat(src="+f.masq.OVN.String()+"),table=3)")
		add(5, 0, f.ip, "ct(commit,zone="+itoa(ZoneHostMasq)+",nat,table=2)")

		for _, n := range nets {
			if f.nodeIP.Is4() && !n.IPv4 || f.nodeIP.Is6() && !n.IPv6 {
				continue
			}
			gr, mp, err := ipam.NetworkMasqueradeIPs(f.masq.Subnet, n.ID)
			if err != nil {
				return nil, fmt.Errorf("network %q: masquerade IPs: %w", n.Name, err)
			}
			patch, mark := strconv.Itoa(n.Patch.OFPort), hex(CtMarkNetworkBase+n.ID)
			// Egress: from the network's gateway router, SNATed by it to
			// the network's masquerade IP, now to the node IP, marked.
			add(0, prioEgress, f.ip+",in_port="+patch+",dl_src="+mac+","+f.src+"="+gr.String(),
				"ct(commit,zone="+itoa(ZoneMain)+",nat(src="+f.nodeIP.String()+"),exec(set_field:"+mark+"->ct_mark)),output:"+phys)
			for _, st := range []string{"+est+trk", "+rel+trk"} {
				add(1, prioEgress, f.ip+",ct_state="+st+",ct_mark="+mark, "output:"+patch)
			}
			// The reference's dispatch: NodePort and external-IP traffic the
			// host marked for the network; a network's management-port
			// masquerade source never reaches another network's services.
			add(2, prioPktMark, f.ip+",pkt_mark="+hex(PktMarkNetworkBase+n.ID), "set_field:"+mac+"->eth_dst,output:"+patch)
			add(2, prioMgmtMasqDrop, f.ip+","+f.src+"="+mp.String(), "drop")
			// The seed's dispatch: each of the network's cluster IPs.
			for _, c := range n.ClusterIPs {
				if c.Is4() != f.nodeIP.Is4() {
					continue
				}
				add(0, prioClusterIP, f.ip+",in_port=LOCAL,"+f.dst+"="+c.String(),
					"set_field:"+hex(dispatchReg(n.ID))+"->reg1,ct(commit,zone="+itoa(ZoneHostMasq)+",nat(src="+f.masq.Host.String()+"),table=2)")
			}
		}
	}
	for _, n := range nets {
		if len(n.ClusterIPs) > 0 {
			add(2, prioClusterIPTable, "reg1="+hex(dispatchReg(n.ID)),
				"set_field:"+n.GatewayMAC.String()+"->eth_dst,output:"+strconv.Itoa(n.Patch.OFPort))
		}
	}
	// Shared: unknown traffic to the bridge MAC reaches every patch port and
	// the host; a patch port sends only with the bridge MAC.
	add(0, prioFanOut, "dl_dst="+mac, "output:"+strings.Join(patches, ",output:")+",LOCAL")
	for _, p := range patches {
		add(0, prioPatchNormal, "in_port="+p+",dl_src="+mac, "NORMAL")
		add(0, prioPatchDrop, "in_port="+p, "drop")
	}
	add(2, prioDispatch, "", "set_field:"+mac+"->eth_dst,output:"+def)
	add(3, 0, "", "move:NXM_OF_ETH_DST[]->NXM_OF_ETH_SRC[],set_field:"+mac+"->eth_dst,output:LOCAL")
	slices.SortFunc(out, compareFlows)
	out = slices.CompactFunc(out, func(a, b Flow) bool { return a == b })
	for i := 1; i < len(out); i++ {
		if out[i].id() == out[i-1].id() {
			return nil, fmt.Errorf("flow %s: %w: planned twice with different actions", out[i].Key(), ErrInvalid)
		}
	}
	for _, f := range out {
		if err := f.Validate(); err != nil { // what the checks above missed
			return nil, err
		}
	}
	return out, nil
}

// dispatchReg is the reg1 value of a network's host-to-ClusterIP dispatch.
func dispatchReg(id int) int { return CtMarkNetworkBase + id }

func itoa(i int) string { return strconv.Itoa(i) }
func hex(i int) string  { return "0x" + strconv.FormatInt(int64(i), 16) }

func compareFlows(a, b Flow) int {
	return cmp.Or(cmp.Compare(a.Table, b.Table), cmp.Compare(b.Priority, a.Priority), cmp.Compare(a.Match, b.Match),
		cmp.Compare(a.Actions, b.Actions))
}

// Sort sorts fs as Plan does: by table, then priority (highest first), then
// match and actions.
func Sort(fs []Flow) { slices.SortFunc(fs, compareFlows) }

// Changes are what turns a bridge's flows of Cookie into the desired ones.
type Changes struct {
	// Add are the flows to add (or whose actions to replace: adding a flow
	// of an existing key replaces it).
	Add []Flow
	// Delete are the flows to remove.
	Delete []Flow
}

// Len returns the number of changes.
func (c Changes) Len() int { return len(c.Add) + len(c.Delete) }

// Diff returns the changes from observed to desired, both the SDK's flows
// (Cookie) only, sorted. A flow whose actions changed is in Add only.
func Diff(observed, desired []Flow) Changes {
	have := make(map[flowID]string, len(observed))
	for _, f := range observed {
		have[f.id()] = f.Actions
	}
	want := make(map[flowID]bool, len(desired))
	var c Changes
	for _, f := range desired {
		want[f.id()] = true
		if a, ok := have[f.id()]; !ok || a != f.Actions {
			c.Add = append(c.Add, f)
		}
	}
	for _, f := range observed {
		if !want[f.id()] {
			c.Delete = append(c.Delete, f)
		}
	}
	slices.SortFunc(c.Add, compareFlows)
	slices.SortFunc(c.Delete, compareFlows)
	return c
}

// Script returns the flows as the ovs-ofctl commands that add them to
// bridge, one per flow: a dry run to read, and safe to run whatever bridge
// is called (every word is shell-quoted).
func Script(bridge string, fs []Flow) string {
	var b strings.Builder
	for _, f := range fs {
		b.WriteString(shell.Join("ovs-ofctl", "add-flow", bridge, f.String()) + "\n")
	}
	return b.String()
}

// Text returns the flows as ovs-ofctl add-flow lines, one per flow.
func Text(fs []Flow) string {
	var b strings.Builder
	for _, f := range fs {
		b.WriteString(f.String())
		b.WriteByte('\n')
	}
	return b.String()
}
