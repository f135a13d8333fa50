package services_test

import (
	"errors"
	"net/netip"
	"slices"
	"strings"
	"testing"

	"github.com/udnkit/udnkit/netconf/udn"
	"github.com/udnkit/udnkit/topology"
	"github.com/udnkit/udnkit/topology/services"
)

// The cases below are the reference's own (OVN-Kubernetes,
// go-controller/pkg/ovn/controller/services/lb_config_test.go and
// services_controller_test.go), fed through whole Services instead of its
// intermediate configs. Its test nodes, names and masquerade subnet
// (169.254.169.0/29) are kept: node-a (gateway 10.0.0.1, host addresses
// 10.0.0.1 and 10.0.0.111) and node-b (10.0.0.2), both in the zone
// planned; pods in 10.128.0.0/16.

func l3() *udn.Network {
	return &udn.Network{Name: "testns_l3", ID: 5, Topology: udn.TopologyLayer3, Role: udn.RolePrimary,
		Subnets: []udn.Subnet{{CIDR: netip.MustParsePrefix("10.128.0.0/16"), HostPrefix: 24},
			{CIDR: netip.MustParsePrefix("fe00::/48"), HostPrefix: 64}}}
}

func input(n *udn.Network) *services.Input {
	return &services.Input{
		Network: n,
		Nodes: []topology.Node{
			{Name: "node-a", Zone: "z", Addresses: []netip.Prefix{netip.MustParsePrefix("10.0.0.1/24")}},
			{Name: "node-b", Zone: "z", Addresses: []netip.Prefix{netip.MustParsePrefix("10.0.0.2/24")}},
			{Name: "node-c", Zone: "other", Addresses: []netip.Prefix{netip.MustParsePrefix("10.0.0.3/24")}},
		},
		Zone:          "z",
		HostAddresses: map[string][]netip.Addr{"node-a": {addr("10.0.0.1"), addr("10.0.0.111")}},
		Cluster: topology.Cluster{MasqueradeSubnets: []netip.Prefix{netip.MustParsePrefix("169.254.169.0/29"),
			netip.MustParsePrefix("fd69::/125")}},
	}
}

func addr(s string) netip.Addr { return netip.MustParseAddr(s) }

func addrs(ss ...string) []netip.Addr {
	out := make([]netip.Addr, len(ss))
	for i, s := range ss {
		out[i] = addr(s)
	}
	return out
}

func yes() *bool { t := true; return &t }
func no() *bool  { f := false; return &f }

// ep is a ready endpoint on node.
func ep(ip, node string) services.Endpoint {
	return services.Endpoint{Addresses: addrs(ip), Node: node}
}

func slice(port uint16, eps ...services.Endpoint) services.EndpointSlice {
	return services.EndpointSlice{Ports: []services.EndpointPort{{Protocol: services.ProtocolTCP, Port: port}}, Endpoints: eps}
}

// render writes load balancers one per line, names without the network
// prefix, switches and routers by node:
// "name tcp skip_snat=false vip=be,be vip=... sw=[node] gr=[node] groups=[...]".
func render(n *udn.Network, lbs []topology.LoadBalancer) string {
	var b strings.Builder
	trim := func(list []string) string {
		out := make([]string, len(list))
		for i, s := range list {
			s = strings.TrimPrefix(s, "GR_")
			out[i] = strings.TrimPrefix(s, n.Prefix())
		}
		return "[" + strings.Join(out, " ") + "]"
	}
	for _, l := range lbs {
		b.WriteString(strings.TrimPrefix(l.Name, n.Prefix()) + " " + string(l.Protocol))
		for _, o := range l.Options {
			if o.Key == "skip_snat" || o.Key == "affinity_timeout" {
				b.WriteString(" " + o.Key + "=" + o.Value)
			}
		}
		for _, v := range l.VIPs {
			be := make([]string, len(v.Backends))
			for i, x := range v.Backends {
				be[i] = x.String()
			}
			b.WriteString(" " + v.VIP.String() + "=" + strings.Join(be, ","))
		}
		if len(l.Switches) > 0 {
			b.WriteString(" sw=" + trim(l.Switches))
		}
		if len(l.Routers) > 0 {
			b.WriteString(" gr=" + trim(l.Routers))
		}
		if len(l.Groups) > 0 {
			b.WriteString(" groups=" + trim(l.Groups))
		}
		if len(l.SelectionFields) > 0 {
			b.WriteString(" selection_fields=" + strings.Join(l.SelectionFields, ","))
		}
		b.WriteString("\n")
	}
	return b.String()
}

func TestReferenceCases(t *testing.T) {
	tcp := func(port, nodePort uint16) []services.Port {
		return []services.Port{{Protocol: services.ProtocolTCP, Port: port, NodePort: nodePort}}
	}
	tests := []struct {
		name string
		svc  services.Service
		want string
	}{{
		// services_controller_test.go "create service from Single Stack
		// Service without endpoints" (l3UDN): one cluster-wide load
		// balancer in the network's cluster group, no backends.
		name: "cluster IP without endpoints",
		svc: services.Service{ClusterIPs: addrs("192.168.1.1"), Ports: tcp(80, 0),
			Slices: []services.EndpointSlice{{}}},
		want: "Service_testns/foo_TCP_cluster tcp skip_snat=false 192.168.1.1:80= groups=[clusterLBGroup]\n",
	}, {
		// lb_config_test.go Test_buildPerNodeLBs "nodeport service,
		// standard pod": per node, one load balancer for router and switch,
		// the node's host addresses as vips. The Service's cluster IP is
		// cluster-wide.
		name: "nodeport, standard pod",
		svc: services.Service{ClusterIPs: addrs("192.168.0.1"), Ports: tcp(8000, 80),
			Slices: []services.EndpointSlice{slice(8080, ep("10.128.0.2", "node-a"))}},
		want: "Service_testns/foo_TCP_cluster tcp skip_snat=false 192.168.0.1:8000=10.128.0.2:8080 groups=[clusterLBGroup]\n" +
			"Service_testns/foo_TCP_node_router+switch_node-a tcp skip_snat=false 10.0.0.1:80=10.128.0.2:8080 10.0.0.111:80=10.128.0.2:8080 sw=[node-a] gr=[node-a]\n" +
			"Service_testns/foo_TCP_node_router+switch_node-b tcp skip_snat=false 10.0.0.2:80=10.128.0.2:8080 sw=[node-b] gr=[node-b]\n",
	}, {
		// Test_buildPerNodeLBs "host-network pod": the endpoint is node-a's
		// own address, so the cluster IP is per node; node-a's router
		// reaches it through the host masquerade IP, and node-b's router +
		// switch load balancer equals node-a's switch one: merged.
		name: "host-network endpoint",
		svc: services.Service{ClusterIPs: addrs("1.2.3.4"), Ports: tcp(80, 0),
			Slices: []services.EndpointSlice{slice(8080, ep("10.0.0.1", "node-a"))}},
		want: "Service_testns/foo_TCP_node_router_node-a tcp skip_snat=false 1.2.3.4:80=169.254.169.2:8080 gr=[node-a]\n" +
			"Service_testns/foo_TCP_node_switch_node-a_merged tcp skip_snat=false 1.2.3.4:80=10.0.0.1:8080 sw=[node-a node-b] gr=[node-b]\n",
	}, {
		// Test_buildPerNodeLBs "LB service with NodePort, standard pods on
		// different nodes, ExternalTrafficPolicy=local, both endpoints are
		// ready": the routers reach local endpoints only, without SNAT; the
		// switches reach every endpoint, and the ETP-local masquerade IP
		// the local ones.
		name: "load balancer, ETP local, pods on both nodes",
		svc: services.Service{ClusterIPs: addrs("192.168.0.1"), ExternalIPs: addrs("4.2.2.2"), LoadBalancerIPs: addrs("5.5.5.5"),
			Ports: tcp(80, 5), ExternalTrafficLocal: true,
			Slices: []services.EndpointSlice{slice(8080, ep("10.128.0.2", "node-a"), ep("10.128.1.2", "node-b"))}},
		want: "Service_testns/foo_TCP_cluster tcp skip_snat=false 192.168.0.1:80=10.128.0.2:8080,10.128.1.2:8080 groups=[clusterLBGroup]\n" +
			"Service_testns/foo_TCP_node_local_router_node-a tcp skip_snat=true 4.2.2.2:80=10.128.0.2:8080 5.5.5.5:80=10.128.0.2:8080 10.0.0.1:5=10.128.0.2:8080 10.0.0.111:5=10.128.0.2:8080 gr=[node-a]\n" +
			"Service_testns/foo_TCP_node_local_router_node-b tcp skip_snat=true 4.2.2.2:80=10.128.1.2:8080 5.5.5.5:80=10.128.1.2:8080 10.0.0.2:5=10.128.1.2:8080 gr=[node-b]\n" +
			"Service_testns/foo_TCP_node_switch_node-a tcp skip_snat=false 4.2.2.2:80=10.128.0.2:8080,10.128.1.2:8080 5.5.5.5:80=10.128.0.2:8080,10.128.1.2:8080 10.0.0.1:5=10.128.0.2:8080,10.128.1.2:8080 10.0.0.111:5=10.128.0.2:8080,10.128.1.2:8080 169.254.169.3:5=10.128.0.2:8080 sw=[node-a]\n" +
			"Service_testns/foo_TCP_node_switch_node-b tcp skip_snat=false 4.2.2.2:80=10.128.0.2:8080,10.128.1.2:8080 5.5.5.5:80=10.128.0.2:8080,10.128.1.2:8080 10.0.0.2:5=10.128.0.2:8080,10.128.1.2:8080 169.254.169.3:5=10.128.1.2:8080 sw=[node-b]\n",
	}, {
		// The same, "one endpoint is ready, the other one is terminating
		// and serving": a ready endpoint wins cluster-wide; on node-b, whose
		// only endpoint terminates but serves, that one is used.
		name: "load balancer, ETP local, one endpoint terminating and serving",
		svc: services.Service{ClusterIPs: addrs("192.168.0.1"), ExternalIPs: addrs("4.2.2.2"), LoadBalancerIPs: addrs("5.5.5.5"),
			Ports: tcp(80, 5), ExternalTrafficLocal: true,
			Slices: []services.EndpointSlice{slice(8080, ep("10.128.0.2", "node-a"),
				services.Endpoint{Addresses: addrs("10.128.1.2"), Node: "node-b", Ready: no(), Serving: yes(), Terminating: yes()})}},
		want: "Service_testns/foo_TCP_cluster tcp skip_snat=false 192.168.0.1:80=10.128.0.2:8080 groups=[clusterLBGroup]\n" +
			"Service_testns/foo_TCP_node_local_router_node-a tcp skip_snat=true 4.2.2.2:80=10.128.0.2:8080 5.5.5.5:80=10.128.0.2:8080 10.0.0.1:5=10.128.0.2:8080 10.0.0.111:5=10.128.0.2:8080 gr=[node-a]\n" +
			"Service_testns/foo_TCP_node_local_router_node-b tcp skip_snat=true 4.2.2.2:80=10.128.1.2:8080 5.5.5.5:80=10.128.1.2:8080 10.0.0.2:5=10.128.1.2:8080 gr=[node-b]\n" +
			"Service_testns/foo_TCP_node_switch_node-a tcp skip_snat=false 4.2.2.2:80=10.128.0.2:8080 5.5.5.5:80=10.128.0.2:8080 10.0.0.1:5=10.128.0.2:8080 10.0.0.111:5=10.128.0.2:8080 169.254.169.3:5=10.128.0.2:8080 sw=[node-a]\n" +
			"Service_testns/foo_TCP_node_switch_node-b tcp skip_snat=false 4.2.2.2:80=10.128.0.2:8080 5.5.5.5:80=10.128.0.2:8080 10.0.0.2:5=10.128.0.2:8080 169.254.169.3:5=10.128.1.2:8080 sw=[node-b]\n",
	}, {
		// Test_buildPerNodeLBs "clusterIP + externalIP service, standard
		// pods, InternalTrafficPolicy=local": the switches send the cluster
		// IP to their node's endpoints only, the external IP and the
		// routers to all; the two routers' load balancers are one.
		name: "cluster and external IP, ITP local",
		svc: services.Service{ClusterIPs: addrs("192.168.0.1"), ExternalIPs: addrs("1.2.3.4"), Ports: tcp(80, 0),
			InternalTrafficLocal: true,
			Slices:               []services.EndpointSlice{slice(8080, ep("10.128.0.1", "node-a"), ep("10.128.1.1", "node-b"))}},
		want: "Service_testns/foo_TCP_node_router_node-a_merged tcp skip_snat=false 1.2.3.4:80=10.128.0.1:8080,10.128.1.1:8080 192.168.0.1:80=10.128.0.1:8080,10.128.1.1:8080 gr=[node-a node-b]\n" +
			"Service_testns/foo_TCP_node_switch_node-a tcp skip_snat=false 1.2.3.4:80=10.128.0.1:8080,10.128.1.1:8080 192.168.0.1:80=10.128.0.1:8080 sw=[node-a]\n" +
			"Service_testns/foo_TCP_node_switch_node-b tcp skip_snat=false 1.2.3.4:80=10.128.0.1:8080,10.128.1.1:8080 192.168.0.1:80=10.128.1.1:8080 sw=[node-b]\n",
	}, {
		// Test_buildClusterLBs "dual stack", with getEndpointsForService's
		// sorting: one TCP load balancer with both families' vips, backends
		// sorted as strings (10.128.0.10 before 10.128.0.9).
		name: "dual stack, backends sorted as strings",
		svc: services.Service{ClusterIPs: addrs("192.168.0.1", "2002::1"), Ports: tcp(80, 0),
			Slices: []services.EndpointSlice{slice(8080, ep("10.128.0.9", "node-a"), ep("10.128.0.10", "node-b")),
				slice(8080, ep("fe00::5", "node-a"), ep("fe00::1:1", "node-b"))}},
		want: "Service_testns/foo_TCP_cluster tcp skip_snat=false 192.168.0.1:80=10.128.0.10:8080,10.128.0.9:8080 [2002::1]:80=[fe00::1:1]:8080,[fe00::5]:8080 groups=[clusterLBGroup]\n",
	}, {
		// Test_buildClusterLBs "tcp / udp services": one load balancer per
		// protocol. Affinity: a timeout under the maximum is an option.
		name: "tcp and udp, affinity",
		svc: services.Service{ClusterIPs: addrs("192.168.0.1"), AffinitySeconds: 10800,
			Ports: []services.Port{{Name: "tcp", Protocol: services.ProtocolTCP, Port: 80}, {Name: "udp", Protocol: services.ProtocolUDP, Port: 53}},
			Slices: []services.EndpointSlice{{Ports: []services.EndpointPort{{Name: "tcp", Protocol: services.ProtocolTCP, Port: 8080},
				{Name: "udp", Protocol: services.ProtocolUDP, Port: 5353}}, Endpoints: []services.Endpoint{ep("10.128.0.1", "node-a")}}}},
		want: "Service_testns/foo_TCP_cluster tcp affinity_timeout=10800 skip_snat=false 192.168.0.1:80=10.128.0.1:8080 groups=[clusterLBGroup]\n" +
			"Service_testns/foo_UDP_cluster udp affinity_timeout=10800 skip_snat=false 192.168.0.1:53=10.128.0.1:5353 groups=[clusterLBGroup]\n",
	}, {
		// The longest affinity hashes on the addresses (buildLB).
		name: "maximum affinity",
		svc: services.Service{ClusterIPs: addrs("192.168.0.1"), AffinitySeconds: services.MaxAffinitySeconds, Ports: tcp(80, 0),
			Slices: []services.EndpointSlice{slice(8080, ep("10.128.0.1", "node-a"))}},
		want: "Service_testns/foo_TCP_cluster tcp skip_snat=false 192.168.0.1:80=10.128.0.1:8080 groups=[clusterLBGroup] selection_fields=ip_dst,ip_src\n",
	}, {
		// getEndpointsForService "slice with a mix of terminating (serving
		// and non-serving) endpoints and no ready endpoints": the serving
		// ones only.
		name: "no ready endpoint: the serving terminating ones",
		svc: services.Service{ClusterIPs: addrs("192.168.0.1"), Ports: tcp(80, 0),
			Slices: []services.EndpointSlice{slice(8080,
				services.Endpoint{Addresses: addrs("10.128.0.1"), Ready: no(), Serving: yes(), Terminating: yes()},
				services.Endpoint{Addresses: addrs("10.128.0.2"), Ready: no(), Serving: no(), Terminating: yes()},
				services.Endpoint{Addresses: addrs("10.128.0.3"), Ready: no()})}},
		want: "Service_testns/foo_TCP_cluster tcp skip_snat=false 192.168.0.1:80=10.128.0.1:8080 groups=[clusterLBGroup]\n",
	}, {
		// The same with publishNotReadyAddresses: every endpoint.
		name: "publish not ready addresses",
		svc: services.Service{ClusterIPs: addrs("192.168.0.1"), Ports: tcp(80, 0), PublishNotReadyAddresses: true,
			Slices: []services.EndpointSlice{slice(8080,
				services.Endpoint{Addresses: addrs("10.128.0.1"), Ready: no(), Serving: yes(), Terminating: yes()},
				services.Endpoint{Addresses: addrs("10.128.0.2"), Ready: no(), Serving: no(), Terminating: yes()},
				services.Endpoint{Addresses: addrs("10.128.0.3"), Ready: no()})}},
		want: "Service_testns/foo_TCP_cluster tcp skip_snat=false 192.168.0.1:80=10.128.0.1:8080,10.128.0.2:8080,10.128.0.3:8080 groups=[clusterLBGroup]\n",
	}, {
		// getEndpointsForService "one slice with a duplicate address across
		// two endpoints": once.
		name: "duplicate addresses",
		svc: services.Service{ClusterIPs: addrs("192.168.0.1"), Ports: tcp(80, 0),
			Slices: []services.EndpointSlice{slice(8080, ep("10.128.0.1", "node-a"), ep("10.128.0.1", "node-a")),
				slice(8080, ep("10.128.0.1", "node-a"))}},
		want: "Service_testns/foo_TCP_cluster tcp skip_snat=false 192.168.0.1:80=10.128.0.1:8080 groups=[clusterLBGroup]\n",
	}, {
		// getEndpointsForService "slice with different port name than the
		// service": no endpoints for the Service's port.
		name: "slice port of another name",
		svc: services.Service{ClusterIPs: addrs("192.168.0.1"), Ports: []services.Port{{Name: "tcp-example", Protocol: services.ProtocolTCP, Port: 80}},
			Slices: []services.EndpointSlice{{Ports: []services.EndpointPort{{Name: "other-port", Protocol: services.ProtocolTCP, Port: 8080}},
				Endpoints: []services.Endpoint{ep("10.128.0.1", "node-a")}}}},
		want: "Service_testns/foo_TCP_cluster tcp skip_snat=false 192.168.0.1:80= groups=[clusterLBGroup]\n",
	}, {
		// A headless Service: nothing.
		name: "headless",
		svc:  services.Service{Ports: tcp(80, 0), Slices: []services.EndpointSlice{slice(8080, ep("10.128.0.1", "node-a"))}},
		want: "",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := l3()
			tt.svc.Namespace, tt.svc.Name = "testns", "foo"
			lbs, err := services.PlanService(input(n), &tt.svc)
			if err != nil {
				t.Fatal(err)
			}
			if got := render(n, lbs); got != tt.want {
				t.Errorf("got:\n%swant:\n%s", got, tt.want)
			}
		})
	}
}

// TestLoadBalancerRow: the options and external ids of every load
// balancer, as the reference writes them (services_controller_test.go
// servicesOptions and loadBalancerExternalIDsForNetwork), with the owner's.
func TestLoadBalancerRow(t *testing.T) {
	n := l3()
	svc := services.Service{Namespace: "testns", Name: "foo", ClusterIPs: addrs("192.168.1.1"),
		Ports: []services.Port{{Protocol: services.ProtocolTCP, Port: 80}}}
	lbs, err := services.PlanService(input(n), &svc)
	if err != nil {
		t.Fatal(err)
	}
	if len(lbs) != 1 {
		t.Fatalf("%d load balancers", len(lbs))
	}
	l := lbs[0]
	if l.Name != "testns_l3_Service_testns/foo_TCP_cluster" {
		t.Errorf("name %q", l.Name)
	}
	want := topology.NewOptions("event", "false", "hairpin_snat_ip", "169.254.169.5 fd69::5", "neighbor_responder", "none",
		"reject", "true", "skip_snat", "false")
	if !l.Options.Equal(want) {
		t.Errorf("options %v, want %v", l.Options, want)
	}
	if !l.ExternalIDs.Equal(topology.NewOptions("k8s.ovn.org/kind", "Service", "k8s.ovn.org/owner", "testns/foo")) {
		t.Errorf("external ids %v", l.ExternalIDs)
	}
	if l.Owner.Controller != services.ControllerServices || l.Owner.Network != n.Name || l.Owner.Role != udn.RolePrimary {
		t.Errorf("owner %+v", l.Owner)
	}
}

// TestLayer2: the per-node load balancers of a Layer2 network sit on its
// one switch and the node's gateway router.
func TestLayer2(t *testing.T) {
	n := l3()
	n.Name, n.Topology = "testns_l2", udn.TopologyLayer2
	n.Subnets = []udn.Subnet{{CIDR: netip.MustParsePrefix("10.128.0.0/16")}}
	in := input(n)
	in.Nodes = in.Nodes[1:2] // node-b alone in the zone
	svc := services.Service{Namespace: "testns", Name: "foo", ClusterIPs: addrs("192.168.0.1"),
		Ports:  []services.Port{{Protocol: services.ProtocolTCP, Port: 80, NodePort: 30080}},
		Slices: []services.EndpointSlice{slice(8080, ep("10.128.0.2", "node-b"))}}
	lbs, err := services.PlanService(in, &svc)
	if err != nil {
		t.Fatal(err)
	}
	want := "Service_testns/foo_TCP_cluster tcp skip_snat=false 192.168.0.1:80=10.128.0.2:8080 groups=[clusterLBGroup]\n" +
		"Service_testns/foo_TCP_node_router+switch_node-b tcp skip_snat=false 10.0.0.2:30080=10.128.0.2:8080 sw=[ovn_layer2_switch] gr=[node-b]\n"
	if got := render(n, lbs); got != want {
		t.Errorf("got:\n%swant:\n%s", got, want)
	}
}

// TestPeerGroups: a connected network's groups hold the cluster-wide load
// balancers too.
func TestPeerGroups(t *testing.T) {
	n := l3()
	in := input(n)
	in.PeerGroups = []string{"ns2_red_clusterSwitchLBGroup"}
	svc := services.Service{Namespace: "testns", Name: "foo", ClusterIPs: addrs("192.168.0.1"),
		Ports: []services.Port{{Protocol: services.ProtocolTCP, Port: 80}}}
	lbs, err := services.PlanService(in, &svc)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"ns2_red_clusterSwitchLBGroup", "testns_l3_clusterLBGroup"}; !slices.Equal(lbs[0].Groups, want) {
		t.Errorf("groups %v, want %v", lbs[0].Groups, want)
	}
}

// TestChanges: the changes between two plans of one Service touch its
// load balancers only; a Service that comes or goes is created or deleted.
func TestChanges(t *testing.T) {
	in := input(l3())
	web := services.Service{Namespace: "testns", Name: "web", ClusterIPs: addrs("192.168.0.1"),
		Ports:  []services.Port{{Protocol: services.ProtocolTCP, Port: 80}},
		Slices: []services.EndpointSlice{slice(8080, ep("10.128.0.5", "node-a"))}}
	moved := web
	moved.Slices = []services.EndpointSlice{slice(8080, ep("10.128.0.6", "node-b"))}
	before, err := services.PlanService(in, &web)
	if err != nil {
		t.Fatal(err)
	}
	after, err := services.PlanService(in, &moved)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name          string
		before, after []topology.LoadBalancer
		cr, up, del   int
	}{{"endpoint moved", before, after, 0, 1, 0}, {"added", nil, before, 1, 0, 0}, {"gone", before, nil, 0, 0, 1}, {"same", before, before, 0, 0, 0}} {
		ch, err := services.Changes(c.before, c.after)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if cr, up, del := ch.Count(); cr != c.cr || up != c.up || del != c.del {
			t.Errorf("%s: %d/%d/%d, want %d/%d/%d:\n%s", c.name, cr, up, del, c.cr, c.up, c.del, ch)
		}
		for _, x := range ch {
			if x.Kind != topology.KindLoadBalancer || !strings.Contains(x.Key, "Service_testns/web_") {
				t.Errorf("%s: %s is not web's load balancer", c.name, x)
			}
		}
	}
}

// TestSingleFamilyMasquerade: an IPv4 cluster's hairpin_snat_ip is its one
// address; of two subnets of a family the first counts; a network with a
// family the masquerade subnets lack is refused.
func TestSingleFamilyMasquerade(t *testing.T) {
	v4 := &udn.Network{Name: "testns_l2", ID: 6, Topology: udn.TopologyLayer2, Role: udn.RolePrimary,
		Subnets: []udn.Subnet{{CIDR: netip.MustParsePrefix("10.128.0.0/16")}}}
	in := input(v4)
	in.Cluster.MasqueradeSubnets = []netip.Prefix{netip.MustParsePrefix("169.254.169.0/29")}
	svc := services.Service{Namespace: "testns", Name: "web", ClusterIPs: addrs("192.168.0.1"),
		Ports: []services.Port{{Protocol: services.ProtocolTCP, Port: 80}}}
	lbs, err := services.PlanService(in, &svc)
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := lbs[0].Options.Get("hairpin_snat_ip"); v != "169.254.169.5" {
		t.Errorf("hairpin_snat_ip %q, want 169.254.169.5", v)
	}
	// Of two subnets of a family, the first is the cluster's, as the
	// topology planner picks it for the gateway routers.
	in.Cluster.MasqueradeSubnets = []netip.Prefix{netip.MustParsePrefix("169.254.169.0/29"), netip.MustParsePrefix("fd69::/125"),
		netip.MustParsePrefix("169.254.0.0/17")}
	lbs, err = services.PlanService(in, &svc)
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := lbs[0].Options.Get("hairpin_snat_ip"); v != "169.254.169.5 fd69::5" {
		t.Errorf("hairpin_snat_ip %q, want the first subnets' 169.254.169.5 fd69::5", v)
	}
	in = input(l3())
	in.Cluster.MasqueradeSubnets = []netip.Prefix{netip.MustParsePrefix("169.254.169.0/29")}
	if _, err := services.PlanService(in, &svc); !errors.Is(err, services.ErrInvalid) {
		t.Errorf("a dual-stack network with IPv4 masquerade only: %v, want ErrInvalid", err)
	}
}

func TestInvalid(t *testing.T) {
	n := l3()
	for _, tt := range []struct {
		name string
		svc  services.Service
		want string
	}{
		{"no name", services.Service{Namespace: "a"}, "namespace and name"},
		{"protocol", services.Service{Namespace: "a", Name: "b", Ports: []services.Port{{Protocol: "tcp", Port: 1}}}, "ports[0].protocol"},
		{"port 0", services.Service{Namespace: "a", Name: "b", Ports: []services.Port{{Protocol: services.ProtocolTCP}}}, "ports[0].port"},
		{"twice", services.Service{Namespace: "a", Name: "b", Ports: []services.Port{{Protocol: services.ProtocolTCP, Port: 1},
			{Protocol: services.ProtocolTCP, Port: 2}}}, "ports[1]: invalid services input: TCP/ twice"},
		{"affinity", services.Service{Namespace: "a", Name: "b", AffinitySeconds: 86401}, "timeoutSeconds"},
		{"NUL in the name", services.Service{Namespace: "a", Name: "b\x00"}, "name \"b\\x00\": byte 1"},
		{"newline in the namespace", services.Service{Namespace: "a\n", Name: "b"}, "namespace \"a\\n\""},
		{"control character in a port name", services.Service{Namespace: "a", Name: "b",
			Ports: []services.Port{{Name: "h\x1b", Protocol: services.ProtocolTCP, Port: 1}}}, "ports[0].name"},
		{"DEL in an endpoint's node", services.Service{Namespace: "a", Name: "b",
			Slices: []services.EndpointSlice{{Endpoints: []services.Endpoint{ep("10.128.0.5", "node-a\x7f")}}}}, "slices[0].endpoints[0].nodeName"},
		{"mapped cluster IP", services.Service{Namespace: "a", Name: "b", ClusterIPs: addrs("::ffff:10.96.0.1")}, "address"},
		{"two IPv4 cluster IPs", services.Service{Namespace: "a", Name: "b", ClusterIPs: addrs("10.96.0.1", "10.96.0.2")}, "clusterIPs"},
		{"three cluster IPs", services.Service{Namespace: "a", Name: "b", ClusterIPs: addrs("10.96.0.1", "fd00::1", "fd00::2")}, "clusterIPs"},
		{"10 MB name", services.Service{Namespace: "a", Name: strings.Repeat("b", 10<<20) + "\x00"}, "(10485763 bytes)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := services.PlanService(input(n), &tt.svc)
			if err == nil || !strings.Contains(err.Error(), tt.want) || len(err.Error()) > 1024 {
				t.Errorf("error %.2000v, want it to mention %q", err, tt.want)
			}
		})
	}
	in := input(n)
	in.Nodes[0].Chassis = "ch\x00"
	if _, err := services.Plan(*in); !errors.Is(err, services.ErrInvalid) || !strings.Contains(err.Error(), "nodes[0]: chassis") {
		t.Errorf("a NUL in a node's chassis: %v", err)
	}
	sec := l3()
	sec.Role = udn.RoleSecondary
	if _, err := services.PlanService(input(sec), &services.Service{Namespace: "a", Name: "b"}); err == nil {
		t.Error("a secondary network got load balancers")
	}
}
