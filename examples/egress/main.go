// Command egress gives a tenant a primary network on two nodes, reads an
// EgressIP, an EgressQoS and the nodes as Kubernetes objects and hands them
// to a udnkit.Cluster, which assigns the egress IP, allocates its mark and
// plans the zone's rows (the egress IP's policies, the EgressQoS's DSCP
// and the reply-marking QoS rows among the network's); it applies them,
// prints the mark and status a controller writes back, and the egress
// node's gateway-bridge SNAT flows.
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
	qoskube "github.com/udnkit/udnkit/topology/egressqos/kube"
	"github.com/udnkit/udnkit/topology/pods"
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
	c, err := udnkit.New(udnkit.Config{Nodes: topoNodes()})
	if err != nil {
		return err
	}
	u, err := netconf.DecodeUDN([]byte(udn))
	if err != nil {
		return err
	}
	n, err := c.AddUDN(u)
	if err != nil {
		return err
	}
	// The egress nodes, as the API server labels them.
	for _, k := range kubeNodes() {
		en, err := eipkube.NodeFrom(k)
		if err != nil {
			return err
		}
		if _, err := c.SetEgressAssignable(en.Name, en.Assignable); err != nil {
			return err
		}
	}
	// The EgressIP and the EgressQoS, read as Kubernetes objects.
	obj, err := eipkube.Decode([]byte(egressIPYAML))
	if err != nil {
		return err
	}
	eip, err := eipkube.EgressIPFrom(obj)
	if err != nil {
		return err
	}
	if _, err := c.SetEgressIP(eip); err != nil {
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
	if _, err := c.SetEgressQoS(q); err != nil {
		return err
	}
	// Two pods of tenant-a on node-a: web (selected) and db.
	for _, app := range []string{"web", "db"} {
		if _, err := c.SetPod(udnkit.Pod{Pod: pods.Pod{Namespace: u.Namespace, Name: app + "-0", UID: "uid-" + app, Node: "node-a"},
			Labels: map[string]string{"app": app}}); err != nil {
			return err
		}
	}
	// What the controller writes back: the mark and the status.
	st, _ := c.EgressIPStatus(eip.Name)
	fmt.Fprintf(w, "egress IP %s: mark patch %s, status patch %s, unassigned %v\n", eip.Name, eipkube.MarkPatch(st.Mark),
		eipkube.StatusPatch(egressip.Status{EgressIP: eip.Name, Items: st.Items}), st.Unassigned)

	desired, err := c.Plan(zone)
	if err != nil {
		return err
	}
	nb, closeNB, err := ovnnb.Open(ctx, endpoints)
	if err != nil {
		return err
	}
	defer closeNB()
	changes, _, err := nb.Sync(ctx, desired)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "applied %d rows of %v in %v\n", len(changes), desired.Controllers(), desired.Networks())
	fmt.Fprintf(w, "\negress IP rows of zone %s:\n", zone)
	for _, o := range desired.ObjectsOf(topology.KindPolicy) {
		if o.OwnedBy().Controller == egressip.Controller {
			fmt.Fprintf(w, "  %s\n", topology.Render(o))
		}
	}
	fmt.Fprintln(w, "\nQoS rows (EgressQoS's DSCP, EgressIP's reply marking):")
	for _, o := range desired.ObjectsOf(topology.KindQoS) {
		fmt.Fprintf(w, "  %s\n", topology.Render(o))
	}

	// node-b's side: its gateway bridge SNATs the marked traffic.
	eip.Mark, eip.Status = st.Mark, st.Items
	fs, err := egressip.BridgeFlows(egressip.BridgeInput{Node: "node-b", Physical: flows.Port{Name: "eth0", OFPort: 1},
		MAC: ipam.MACFromIP(netip.MustParseAddr("172.18.0.3")), NodeIPs: []netip.Addr{netip.MustParseAddr("172.18.0.3")},
		Networks:  []egressip.BridgeNetwork{{ID: n.ID, Patch: flows.Port{Name: "patch-breth0_" + n.Prefix() + "node-b-to-br-int", OFPort: 3}}},
		EgressIPs: []egressip.EgressIP{eip}})
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "\nnode-b: %s=%s\n", egressip.AnnotationBridgeEgressIPs, egressip.FormatBridgeIPs(egressip.BridgeIPs("node-b", []egressip.EgressIP{eip})))
	fmt.Fprint(w, flows.Text(fs))

	again, _, err := nb.Sync(ctx, desired)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "\napplying everything again: %d changes\n", len(again))
	return nil
}
