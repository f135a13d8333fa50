package udnkit

import (
	"fmt"
	"maps"
	"net"
	"net/netip"
	"slices"
	"strings"

	"github.com/udnkit/udnkit/flows"
	"github.com/udnkit/udnkit/ipam"
	"github.com/udnkit/udnkit/netconf/udn"
	"github.com/udnkit/udnkit/topology/egressip"
	"github.com/udnkit/udnkit/topology/services"
	"github.com/udnkit/udnkit/vrf"
)

// NodeLocal is what only the node itself knows, for PlanNode: the
// OpenFlow port numbers of its gateway bridge's ports (the Interface
// table's ofport) and its kubelet's cgroup. Everything else comes from the
// Cluster.
type NodeLocal struct {
	// Uplink is the gateway bridge's physical port ("eth0") and its
	// OpenFlow number.
	Uplink flows.Port
	// DefaultPatchOFPort is the OpenFlow number of the default network's
	// patch port to br-int.
	DefaultPatchOFPort int
	// PatchOFPorts are the OpenFlow numbers of the primary networks' patch
	// ports to br-int, by network name.
	PatchOFPorts map[string]int
	// KubeletCgroup is the kubelet's cgroup v2 path; empty leaves kubelet
	// probes of the networks' pods blocked (the plan warns).
	KubeletCgroup string
	// Pods are what host isolation needs of the node's pods on the default
	// network (their default-network addresses, open ports,
	// host-networked pods).
	Pods vrf.Pods
}

// NodePlan is a node's desired kernel and gateway-bridge state.
type NodePlan struct {
	// Bridge is the gateway bridge the flows go on (Config.Cluster's
	// ExternalBridge, "breth0" by default), for flows.Script.
	Bridge string
	// Kernel holds the VRFs, management ports, routes, rules and nftables
	// of the primary networks (backend/kernel applies it).
	Kernel vrf.State
	// Flows are the gateway bridge's flows (backend/ovs applies them),
	// the egress IPs' SNAT flows among them.
	Flows []flows.Flow
	// BridgeEgressIPs are the egress IPs assigned to the node, which go on
	// its gateway bridge (Kernel.Addresses puts them there);
	// egressip.FormatBridgeIPs spells them for the node's
	// k8s.ovn.org/bridge-egress-ips annotation.
	BridgeEgressIPs []netip.Addr
}

// PlanNode plans a ready node's kernel (vrf) and gateway-bridge (flows)
// state for every primary network the Cluster holds, with the node's host
// subnets, addresses and gateways, the networks' Services (cluster IPs
// dispatched per network, NodePorts marked) and the cluster's settings.
func (s *Cluster) PlanNode(node string, local NodeLocal) (NodePlan, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	nd, ok := s.nodes[node]
	if !ok {
		return NodePlan{}, fmt.Errorf("node %q: %w", node, ErrUnknownNode)
	}
	if why := notReady(nd); why != "" {
		return NodePlan{}, fmt.Errorf("node %q: %w: %s", node, ErrZoneNotReady, why)
	}
	bridge := s.cfg.Cluster.ExternalBridge
	if bridge == "" {
		bridge = "breth0"
	}
	mac := nd.MAC
	if mac == nil {
		mac = ipam.MACFromIP(nd.Addresses[0].Addr())
	}
	kin := vrf.Input{
		Node:    vrf.Node{Name: node, Bridge: bridge, Gateways: slices.Clone(nd.NextHops), KubeletCgroup: local.KubeletCgroup},
		Cluster: vrf.Cluster{ServiceCIDRs: s.cfg.DefaultNetwork.ServiceCIDRs, MasqueradeSubnets: s.cfg.Cluster.MasqueradeSubnets, MTU: s.cfg.Cluster.MTU},
		Pods:    local.Pods,
	}
	fin := flows.Input{
		Node: flows.Node{Bridge: bridge, Physical: local.Uplink, MAC: slices.Clone(net.HardwareAddr(mac)),
			DefaultPatch: flows.Port{Name: "patch-" + bridge + "_" + node + "-to-br-int", OFPort: local.DefaultPatchOFPort}},
		Cluster: flows.Cluster{ServiceCIDRs: s.cfg.DefaultNetwork.ServiceCIDRs, MasqueradeSubnets: s.cfg.Cluster.MasqueradeSubnets},
	}
	for _, a := range nd.Addresses {
		fin.Node.IPs = append(fin.Node.IPs, a.Addr())
	}
	for _, nw := range s.networkList() {
		if !nw.n.IsPrimary() || nw.n.Topology == udn.TopologyLocalnet {
			continue
		}
		kn := vrf.Network{Network: nw.n.Clone(), HostSubnets: slices.Clone(nw.hostSubnets[node])}
		if nw.cudn != nil {
			kn.CUDN = nw.cudn.Name
		}
		fn := flows.Network{ID: nw.n.ID, Name: nw.n.Name, GatewayMAC: slices.Clone(net.HardwareAddr(mac))}
		for _, sub := range nw.n.Subnets {
			fn.IPv4 = fn.IPv4 || sub.CIDR.Addr().Is4()
			fn.IPv6 = fn.IPv6 || !sub.CIDR.Addr().Is4()
		}
		ofport, ok := local.PatchOFPorts[nw.n.Name]
		if !ok {
			return NodePlan{}, fmt.Errorf("node %q: network %q: %w: NodeLocal.PatchOFPorts has no OpenFlow port for its patch port", node, nw.n.Name, ErrUnknownNetwork)
		}
		fn.Patch = flows.Port{Name: "patch-" + bridge + "_" + udn.NetworkPrefix(nw.n.Name) + node + "-to-br-int", OFPort: ofport}
		for _, svc := range s.servicesOf(nw) {
			fn.ClusterIPs = append(fn.ClusterIPs, svc.ClusterIPs...)
			for _, p := range svc.Ports {
				if p.NodePort != 0 {
					kn.NodePorts = append(kn.NodePorts, vrf.L4Port{Protocol: vrf.Protocol(strings.ToLower(string(p.Protocol))), Port: p.NodePort})
				}
			}
			for _, ip := range slices.Concat(svc.ExternalIPs, svc.LoadBalancerIPs) {
				for _, p := range svc.Ports {
					kn.ExternalIPs = append(kn.ExternalIPs, vrf.Endpoint{Addr: ip, L4Port: vrf.L4Port{Protocol: vrf.Protocol(strings.ToLower(string(p.Protocol))), Port: p.Port}})
				}
			}
		}
		slices.SortFunc(fn.ClusterIPs, netip.Addr.Compare)
		fn.ClusterIPs = slices.Compact(fn.ClusterIPs)
		kin.Networks = append(kin.Networks, kn)
		fin.Networks = append(fin.Networks, fn)
	}
	if len(s.egress.eips) > 0 {
		kin.Node.EgressIPs = egressip.BridgeIPs(node, s.egressIPList())
	}
	kernel, err := vrf.Plan(kin)
	if err != nil {
		return NodePlan{}, fmt.Errorf("node %q: kernel: %w", node, err)
	}
	fs, err := flows.Plan(fin)
	if err != nil {
		return NodePlan{}, fmt.Errorf("node %q: gateway bridge: %w", node, err)
	}
	plan := NodePlan{Bridge: bridge, Kernel: kernel, Flows: fs}
	if err := s.planNodeEgress(&plan, node, fin); err != nil {
		return NodePlan{}, fmt.Errorf("node %q: gateway bridge: %w", node, err)
	}
	return plan, nil
}

// servicesOf returns the Services of a network's namespaces, sorted.
func (s *Cluster) servicesOf(nw *network) []services.Service {
	var out []services.Service
	for _, key := range slices.Sorted(maps.Keys(s.services)) {
		if svc := s.services[key]; slices.Contains(nw.namespaces, svc.Namespace) {
			out = append(out, svc)
		}
	}
	return out
}
