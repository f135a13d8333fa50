package policy

import (
	"fmt"
	"maps"
	"net/netip"
	"slices"
	"strconv"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/udnkit/udnkit/internal/names"
	"github.com/udnkit/udnkit/topology"
)

// DefaultNetworkName is the reference's name of the cluster default
// network. The policy controller's rows outside any user-defined network
// (the acl-logging Meter, the default network's isolation of primary-UDN
// pods) are owned for it.
const DefaultNetworkName = "default"

// DefaultNetworkController is the reference's controller of the default
// network, the first field of the isolation rows' ids.
const DefaultNetworkController = "default-network-controller"

// The default network's isolation of primary-UDN pods (the reference's
// ovn/udn_isolation.go): tier 0, its own priorities.
const (
	IsolationTier          = 0
	PriorityIsolationDeny  = 1000
	PriorityIsolationAllow = 1001
	isolationPGBase        = "SecondaryPods" // the reference keeps the legacy name
	aclDenyPrimaryUDN      = "DenyPrimaryUDN"
	aclAllowHostARP        = "AllowHostARPPrimaryUDN"
	aclAllowHost           = "AllowHostPrimaryUDN"
	aclOpenPortPrefix      = "OpenPort-"
)

// DefaultNetwork asks the planner for the default network's isolation of
// the pods whose primary network is a user-defined one: their ports on the
// default network (Pod.DefaultPort, the infrastructure-locked interface
// the default network's controller plugs) join a port group whose ACLs drop
// everything but ARP/ND with the node and the node's own traffic (kubelet
// probes), and each pod's open default ports (Pod.OpenPorts).
//
// The default network's switches and ports are its controller's; the
// policy controller owns the port group and its ACLs only, and names the
// ports: plan them once the ports exist.
type DefaultNetwork struct {
	// ManagementIPs are the default network's management-port addresses
	// of the zone's nodes (the second address of each node's default host
	// subnet), the source the isolation lets in.
	ManagementIPs []netip.Addr
}

// OpenPort is one entry of a pod's k8s.ovn.org/open-default-ports: a port
// of TCP, UDP or SCTP, or ICMP (Port 0), on which the default network stays
// open for a primary-UDN pod.
type OpenPort struct {
	// Protocol is "tcp", "udp", "sctp" or "icmp".
	Protocol string
	Port     int32
}

// valid reports whether op is a port ParseOpenPorts accepts: tcp, udp or
// sctp with a port 0-65535, or icmp without one.
func (op OpenPort) valid() bool {
	switch op.Protocol {
	case "icmp":
		return op.Port == 0
	case "tcp", "udp", "sctp":
		return op.Port >= 0 && op.Port <= 65535
	}
	return false
}

// AnnotationOpenPorts is the pod annotation that lists its open default
// ports: [{"protocol": "tcp", "port": 80}, {"protocol": "icmp"}].
const AnnotationOpenPorts = "k8s.ovn.org/open-default-ports"

// ParseOpenPorts reads the k8s.ovn.org/open-default-ports annotation as
// the reference does: protocols tcp, udp, sctp (a port 0-65535 required)
// and icmp (no port). The reference reads YAML; udnkit reads its JSON form.
// Errors wrap ErrInvalid and name the entry and field.
func ParseOpenPorts(annotation string) ([]OpenPort, error) {
	var raw []struct {
		Protocol string `json:"protocol"`
		Port     *int64 `json:"port"`
	}
	if err := yaml.Unmarshal([]byte(annotation), &raw); err != nil {
		return nil, fmt.Errorf("annotations[%s]: %w: %s is not a YAML (or JSON) list of {protocol, port}: %v", AnnotationOpenPorts, ErrInvalid, names.Quote(annotation), err)
	}
	out := make([]OpenPort, 0, len(raw))
	for i, r := range raw {
		at := fmt.Sprintf("annotations[%s][%d]", AnnotationOpenPorts, i)
		switch r.Protocol {
		case "icmp":
			if r.Port != nil {
				return nil, fmt.Errorf("%s.port: %w: icmp takes no port", at, ErrInvalid)
			}
			out = append(out, OpenPort{Protocol: r.Protocol})
		case "tcp", "udp", "sctp":
			if r.Port == nil {
				return nil, fmt.Errorf("%s.port: %w: required for %s", at, ErrInvalid, r.Protocol)
			}
			if *r.Port < 0 || *r.Port > 65535 {
				return nil, fmt.Errorf("%s.port: %w: %d is not a port (0-65535)", at, ErrInvalid, *r.Port)
			}
			out = append(out, OpenPort{Protocol: r.Protocol, Port: int32(*r.Port)})
		default:
			return nil, fmt.Errorf("%s.protocol: %w: %s is not tcp, udp, sctp or icmp", at, ErrInvalid, names.Quote(r.Protocol))
		}
	}
	return out, nil
}

// IsolationPortGroupName is the name of the default network's port group
// of primary-UDN pods (the reference's "SecondaryPods").
func IsolationPortGroupName() string {
	_, id := isolationIDs(topology.KindPortGroup, isolationPGBase, "")
	return hashName(id)
}

// isolationIDs returns the reference ids of an isolation row: the port
// group (UDNIsolation, name) or an ACL (UDNIsolation, name, direction).
func isolationIDs(kind topology.Kind, name, dir string) (topology.Options, string) {
	if kind == topology.KindPortGroup {
		return refIDs(DefaultNetworkController, ownerUDNIsolation, IDName, name)
	}
	return refIDs(DefaultNetworkController, ownerUDNIsolation, IDName, name, IDDirection, dir)
}

// isolationRows plans the default network's isolation of the zone's
// primary-UDN pods: the port group of their default-network ports, the
// deny both ways at 1000, ARP/ND with the management ports and the host's
// own traffic at 1001, and per pod with open ports its allows at 1001.
func (p *Planner) isolationRows() []topology.Object {
	if p.isolation == nil {
		return nil
	}
	own := topology.Owner{Controller: Controller, Network: DefaultNetworkName}
	pg := IsolationPortGroupName()
	pgIDs, _ := isolationIDs(topology.KindPortGroup, isolationPGBase, "")
	acl := func(name string, dir PolicyType, prio int, match string, action topology.ACLAction) topology.ACL {
		ids, _ := isolationIDs(topology.KindACL, name, dir.String())
		a := topology.ACL{Owner: own, PortGroup: pg, Tier: IsolationTier, Direction: topology.ACLToLport, Priority: prio,
			Match: match, Action: action, Meter: MeterName, ExternalIDs: ids}
		if dir == Egress { // before load balancing, as the reference's LportEgress
			a.Direction = topology.ACLFromLport
		}
		return a
	}
	var ports []string
	var open []topology.Object
	for _, ns := range slices.Sorted(maps.Keys(p.pods)) {
		m := p.pods[ns]
		for _, name := range slices.Sorted(maps.Keys(m)) {
			pod := m[name]
			if p.isolationOf(pod).port == "" {
				continue
			}
			ports = append(ports, pod.DefaultPort)
			if len(pod.OpenPorts) == 0 {
				continue
			}
			var ms []string
			for _, op := range pod.OpenPorts {
				if op.Protocol == "icmp" {
					ms = append(ms, "icmp") // icmp4 || icmp6
				} else {
					ms = append(ms, op.Protocol+".dst == "+strconv.Itoa(int(op.Port)))
				}
			}
			openName := aclOpenPortPrefix + ns + "/" + name
			open = append(open,
				acl(openName, Ingress, PriorityIsolationAllow, `outport == "`+pod.DefaultPort+`" && (arp || nd || (`+strings.Join(ms, " || ")+`))`, topology.ACLAllowRelated),
				acl(openName, Egress, PriorityIsolationAllow, `inport == "`+pod.DefaultPort+`" && (arp || nd)`, topology.ACLAllow))
		}
	}
	slices.Sort(ports)
	rows := []topology.Object{topology.PortGroup{Owner: own, Name: pg, Ports: slices.Compact(ports), ExternalIDs: pgIDs},
		acl(aclDenyPrimaryUDN, Egress, PriorityIsolationDeny, "inport == @"+pg, topology.ACLDrop),
		acl(aclDenyPrimaryUDN, Ingress, PriorityIsolationDeny, "outport == @"+pg, topology.ACLDrop)}
	mgmt := slices.Clone(p.isolation.ManagementIPs)
	slices.SortFunc(mgmt, netip.Addr.Compare)
	mgmt = slices.Compact(mgmt)
	if len(mgmt) > 0 {
		arp := func(dir PolicyType) string {
			var ms []string
			for _, ip := range mgmt {
				switch {
				case ip.Is6():
					ms = append(ms, "( nd && nd.target == "+ip.String()+" )")
				case dir == Ingress:
					ms = append(ms, "( arp && arp.spa == "+ip.String()+" )")
				default:
					ms = append(ms, "( arp && arp.tpa == "+ip.String()+" )")
				}
			}
			return "(" + strings.Join(ms, " || ") + ")"
		}
		var src []string
		for _, ip := range mgmt {
			fam := "ip4"
			if ip.Is6() {
				fam = "ip6"
			}
			src = append(src, fam+".src=="+ip.String())
		}
		rows = append(rows,
			acl(aclAllowHostARP, Egress, PriorityIsolationAllow, "inport == @"+pg+" && "+arp(Egress), topology.ACLAllow),
			acl(aclAllowHostARP, Ingress, PriorityIsolationAllow, "outport == @"+pg+" && "+arp(Ingress), topology.ACLAllow),
			acl(aclAllowHost, Ingress, PriorityIsolationAllow, "outport == @"+pg+" && ("+strings.Join(src, " || ")+")", topology.ACLAllowRelated))
	}
	return append(rows, open...)
}

// meterRows plans the acl-logging Meter while some namespace logs, unless
// it is another controller's.
func (p *Planner) meterRows() []topology.Object {
	if len(p.logging) == 0 || p.externalMeter {
		return nil
	}
	own := topology.Owner{Controller: Controller, Network: DefaultNetworkName}
	return []topology.Object{
		topology.Meter{Owner: own, Name: MeterName, Unit: "pktps", Fair: true},
		topology.MeterBand{Owner: own, Meter: MeterName, Action: "drop", Rate: p.meterRate},
	}
}

// isolationView is what of a pod the isolation rows read.
type isolationView struct {
	port string
	open []OpenPort
}

func (a isolationView) equal(b isolationView) bool {
	return a.port == b.port && slices.Equal(a.open, b.open)
}

// isolationOf returns the pod's isolation view: nothing for a pod of
// another zone.
func (p *Planner) isolationOf(pod *Pod) isolationView {
	if pod.DefaultPort == "" || !p.local[pod.Node] && p.zone != "" {
		return isolationView{}
	}
	return isolationView{pod.DefaultPort, pod.OpenPorts}
}
