// Command egress gives a tenant a primary network on two nodes, reads an
// EgressIP, an EgressQoS and the nodes as Kubernetes objects, assigns the
// egress IP and its mark, plans the zone's egress IP rows, the egress
// node's gateway-bridge SNAT flows and the EgressQoS rows, applies the
// Northbound rows as their own controllers, and prints them.
//
//	go run ./examples/egress                        # embedded in-memory NB
//	go run ./examples/egress -nb tcp:127.0.0.1:6641 # a real NB
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net/netip"
	"os"

	"github.com/udnkit/udnkit"
	"github.com/udnkit/udnkit/backend/ovnnb"
	"github.com/udnkit/udnkit/flows"
	"github.com/udnkit/udnkit/ipam"
	"github.com/udnkit/udnkit/netconf"
	"github.com/udnkit/udnkit/topology"
	"github.com/udnkit/udnkit/topology/egressip"
	eipkube "github.com/udnkit/udnkit/topology/egressip/kube"
	"github.com/udnkit/udnkit/topology/egressqos"
	qoskube "github.com/udnkit/udnkit/topology/egressqos/kube"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

const udn = `
kind: UserDefinedNetwork
metadata: {name: blue, namespace: tenant-a}
spec: {topology: Layer3, role: Primary, subnets: ["10.128.0.0/16/24"]}
`

const egressIPYAML = `
apiVersion: k8s.ovn.org/v1
kind: EgressIP
metadata: {name: tenant-a-web}
spec:
  egressIPs: ["172.18.0.100"]
  namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: tenant-a}}
  podSelector: {matchLabels: {app: web}}
`

const egressQoSYAML = `
apiVersion: k8s.ovn.org/v1
kind: EgressQoS
metadata: {name: default, namespace: tenant-a}
spec:
  egress:
  - {dscp: 46, dstCIDR: 203.0.113.0/24}
  - {dscp: 10, podSelector: {matchLabels: {app: web}}}
`

const zone = "node-a"

func main() {
	nb := flag.String("nb", "", "Northbound endpoints, comma separated; empty starts an embedded in-memory NB")
	flag.Parse()
	if err := run(context.Background(), os.Stdout, *nb); err != nil {
		fmt.Fprintln(os.Stderr, "egress:", err)
		os.Exit(1)
	}
}

func topoNodes() []topology.Node {
	var out []topology.Node
	for i, name := range []string{"node-a", "node-b"} {
		out = append(out, topology.Node{Name: name, ID: ipam.MinNodeID + i, Chassis: "chassis-" + name,
			Addresses: []netip.Prefix{netip.PrefixFrom(netip.AddrFrom4([4]byte{172, 18, 0, byte(2 + i)}), 16)},
			NextHops:  []netip.Addr{netip.MustParseAddr("172.18.0.1")}})
	}
	return out
}

// kubeNodes are the nodes as the API server has them: node-b is
// egress-assignable.
func kubeNodes() []*corev1.Node {
	var out []*corev1.Node
	for _, n := range topoNodes() {
		k := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: n.Name, Labels: map[string]string{},
			Annotations: map[string]string{eipkube.AnnotationPrimaryIfAddr: `{"ipv4":"` + n.Addresses[0].String() + `"}`}},
			Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}}}
		if n.Name == "node-b" {
			k.Labels[egressip.LabelEgressAssignable] = ""
		}
		out = append(out, k)
	}
	return out
}

func run(ctx context.Context, w io.Writer, endpoints string) error {
	nets, err := udnkit.New(udnkit.Config{Nodes: topoNodes()})
	if err != nil {
		return err
	}
	u, err := netconf.DecodeUDN([]byte(udn))
	if err != nil {
		return err
	}
	n, err := nets.AddUDN(u)
	if err != nil {
		return err
	}
	in, err := nets.Input(n.Name, zone)
	if err != nil {
		return err
	}
	networks, err := nets.Plan(zone)
	if err != nil {
		return err
	}
	// Two pods of tenant-a on node-a: web (selected) and db.
	alloc, err := ipam.NewPodIPAllocator(in.HostSubnets["node-a"], nil)
	if err != nil {
		return err
	}
	var eipPods []egressip.Pod
	var qosPods []egressqos.Pod
	for _, app := range []string{"web", "db"} {
		ips, err := alloc.Allocate()
		if err != nil {
			return err
		}
		labels := eipkube.LabelsFrom(map[string]string{"app": app})
		eipPods = append(eipPods, egressip.Pod{Namespace: u.Namespace, Name: app + "-0", Node: "node-a", Labels: labels, IPs: []netip.Addr{ips[0].Addr()}})
		qosPods = append(qosPods, egressqos.Pod{Namespace: u.Namespace, Name: app + "-0", Node: "node-a", Labels: labels,
			IPs: []egressqos.NetworkIPs{{Network: n.Name, IPs: []netip.Addr{ips[0].Addr()}}}})
	}

	// The cluster manager's part: nodes, assignment, mark, status.
	var egressNodes []egressip.Node
	for _, k := range kubeNodes() {
		en, err := eipkube.NodeFrom(k)
		if err != nil {
			return err
		}
		egressNodes = append(egressNodes, en)
	}
	obj, err := eipkube.Decode([]byte(egressIPYAML))
	if err != nil {
		return err
	}
	eip, err := eipkube.EgressIPFrom(obj)
	if err != nil {
		return err
	}
	var marks egressip.MarkAllocator
	if eip.Mark, err = marks.Allocate(eip.Name); err != nil {
		return err
	}
	status, unassigned := egressip.Assign([]egressip.EgressIP{eip}, egressNodes)
	eip.Status = status[0].Items
	fmt.Fprintf(w, "egress IP %s: mark patch %s, status patch %s, unassigned %v\n", eip.Name, eipkube.MarkPatch(eip.Mark), eipkube.StatusPatch(status[0]), unassigned)

	// The zone's rows.
	eipRows, err := egressip.Plan(egressip.Input{Network: n, Nodes: in.Nodes, Zone: zone, EgressIPs: []egressip.EgressIP{eip},
		Namespaces: []egressip.Namespace{{Name: u.Namespace, Labels: egressip.NewLabels("kubernetes.io/metadata.name", u.Namespace)}},
		Pods:       eipPods, NodeIPs: []netip.Addr{netip.MustParseAddr("172.18.0.2"), netip.MustParseAddr("172.18.0.3")},
		ServiceIPs: in.Cluster.ServiceIPs})
	if err != nil {
		return err
	}
	qobj, err := qoskube.Decode([]byte(egressQoSYAML))
	if err != nil {
		return err
	}
	q, _, err := qoskube.EgressQoSFrom(qobj)
	if err != nil {
		return err
	}
	qos, err := egressqos.PlanZone(egressqos.Input{Networks: []egressqos.Network{{Network: n, Namespaces: []string{u.Namespace}}},
		Nodes: in.Nodes, Zone: zone, EgressQoS: []egressqos.EgressQoS{q}, Pods: qosPods})
	if err != nil {
		return err
	}

	c, closeNB, err := ovnnb.Open(ctx, endpoints)
	if err != nil {
		return err
	}
	defer closeNB()
	states := []topology.State{networks, eipRows, qos}
	for _, s := range states {
		changes, _, err := c.Sync(ctx, s)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "applied %d rows of %v in %v\n", len(changes), s.Controllers(), s.Networks())
	}
	fmt.Fprintf(w, "\negress IP rows of zone %s:\n", zone)
	for _, o := range eipRows.ObjectsOf(topology.KindPolicy) {
		fmt.Fprintf(w, "  %s\n", topology.Render(o))
	}
	fmt.Fprintln(w, "\nEgressQoS rows:")
	for _, o := range qos.ObjectsOf(topology.KindQoS) {
		fmt.Fprintf(w, "  %s\n", topology.Render(o))
	}

	// node-b's side: its gateway bridge SNATs the marked traffic.
	fs, err := egressip.BridgeFlows(egressip.BridgeInput{Node: "node-b", Physical: flows.Port{Name: "eth0", OFPort: 1},
		MAC: ipam.MACFromIP(netip.MustParseAddr("172.18.0.3")), NodeIPs: []netip.Addr{netip.MustParseAddr("172.18.0.3")},
		Networks:  []egressip.BridgeNetwork{{ID: n.ID, Patch: flows.Port{Name: "patch-breth0_" + n.Prefix() + "node-b-to-br-int", OFPort: 3}}},
		EgressIPs: []egressip.EgressIP{eip}})
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "\nnode-b: %s=%s\n", egressip.AnnotationBridgeEgressIPs, egressip.FormatBridgeIPs(egressip.BridgeIPs("node-b", []egressip.EgressIP{eip})))
	fmt.Fprint(w, flows.Text(fs))

	again := 0
	for _, s := range states {
		changes, _, err := c.Sync(ctx, s)
		if err != nil {
			return err
		}
		again += len(changes)
	}
	fmt.Fprintf(w, "\napplying everything again: %d changes\n", again)
	return nil
}
