package controller

import (
	"context"
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/udnkit/udnkit/backend/ovnnb"
	"github.com/udnkit/udnkit/netconf"
	"github.com/udnkit/udnkit/topology"
	"github.com/udnkit/udnkit/topology/pods"
)

// pod returns a pod scheduled on node with a named container port.
func pod(ns, name, node string, labels, annotations map[string]string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: labels, Annotations: annotations},
		Spec: corev1.PodSpec{NodeName: node, Containers: []corev1.Container{{Name: "c", Image: "registry.invalid/web",
			Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: 8080, Protocol: corev1.ProtocolTCP}}}}},
	}
}

// serviceAccounts creates the default ServiceAccount of each namespace
// (the test API server runs no controller that would, and pods need it).
func serviceAccounts(t *testing.T, e *env, namespaces ...string) {
	t.Helper()
	for _, ns := range namespaces {
		create(t, e, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "default"}})
	}
}

// podNetworks returns a pod's k8s.ovn.org/pod-networks annotation, parsed,
// or an error when it has none.
func podNetworks(e *env, ns, name string) (netconf.PodNetworks, string, error) {
	var p corev1.Pod
	if err := e.c.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, &p); err != nil {
		return nil, "", err
	}
	v, ok := p.Annotations[netconf.AnnotationPodNetworks]
	if !ok {
		return nil, "", fmt.Errorf("pod %s/%s has no %s annotation", ns, name, netconf.AnnotationPodNetworks)
	}
	pn, err := netconf.ParsePodNetworks(v)
	return pn, v, err
}

// firstIP returns the first address a pod has on nad.
func firstIP(pn netconf.PodNetworks, nad string) (netip.Addr, error) {
	n, ok := pn[nad]
	if !ok || len(n.IPs) == 0 {
		return netip.Addr{}, fmt.Errorf("no address on %s in %v", nad, pn)
	}
	return n.IPs[0].Addr(), nil
}

// nbPlan waits until the NB holds exactly the controller's plan of zone
// and returns it.
func nbPlan(t testing.TB, ctl *running, nb *ovnnb.Client, zone string) topology.State {
	t.Helper()
	var got topology.State
	eventually(t, "NB holds the plan", func() error {
		plan, err := ctl.c.Cluster().Plan(zone)
		if err != nil {
			return err
		}
		if got, err = nb.Observe(context.Background(), plan.Networks()...); err != nil {
			return err
		}
		if !got.Equal(plan) {
			return fmt.Errorf("NB:\n%s\nplan:\n%s", got, plan)
		}
		return nil
	})
	return got
}

// checkWorkloads runs on scenario's converged cluster: pods created
// through the API server get their pod-networks annotation and their
// ports, a Service its load balancer with the pods' addresses on the
// network from its (default network) EndpointSlice, a NetworkPolicy its
// ACLs; all of it through the events' changes, without planning the
// zone again.
func checkWorkloads(t *testing.T, e *env, ctl *running, nb *ovnnb.Client) {
	t.Helper()
	ctx := context.Background()
	syncs := ctl.c.r.syncs.Load()
	web := map[string]string{"app": "web"}
	serviceAccounts(t, e, "blue", "green", "red")
	create(t, e,
		pod("blue", "web-0", "node1", web, nil),
		pod("blue", "web-1", "node2", web, nil),
		pod("green", "db-0", "node1", nil, nil),
		pod("red", "tool-0", "node1", nil, map[string]string{pods.AnnotationNetworks: "shared"}),
		&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "blue", Name: "host-0"}, Spec: corev1.PodSpec{
			NodeName: "node1", HostNetwork: true, Containers: []corev1.Container{{Name: "c", Image: "registry.invalid/web"}}}})

	ips := map[string]netip.Addr{}
	eventually(t, "pod-networks annotations", func() error {
		for _, c := range []struct{ ns, name, nad, subnet string }{
			{"blue", "web-0", "blue/net", "10.10.0.0/16"}, {"blue", "web-1", "blue/net", "10.10.0.0/16"},
			{"green", "db-0", "green/net", "10.20.0.0/16"}, {"red", "tool-0", "red/shared", "10.30.0.0/16"},
		} {
			pn, _, err := podNetworks(e, c.ns, c.name)
			if err != nil {
				return err
			}
			a, err := firstIP(pn, c.nad)
			if err != nil {
				return fmt.Errorf("pod %s/%s: %w", c.ns, c.name, err)
			}
			if !netip.MustParsePrefix(c.subnet).Contains(a) {
				return fmt.Errorf("pod %s/%s: %s not in %s", c.ns, c.name, a, c.subnet)
			}
			ips[c.ns+"/"+c.name] = a
		}
		return nil
	})
	if pn, _, err := podNetworks(e, "blue", "web-0"); err != nil || pn["blue/net"].Role != netconf.PodRolePrimary {
		t.Errorf("pod blue/web-0: role %q on blue/net, want primary (%v)", pn["blue/net"].Role, err)
	}
	if _, _, err := podNetworks(e, "blue", "host-0"); err == nil {
		t.Error("the host-networked pod blue/host-0 got a pod-networks annotation")
	}

	// A Service whose default-network EndpointSlice names web-0 and web-1:
	// its load balancer on blue/net balances to their blue/net addresses.
	create(t, e,
		&corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "blue", Name: "web"}, Spec: corev1.ServiceSpec{
			ClusterIP: "10.96.0.50", Selector: web,
			Ports: []corev1.ServicePort{{Name: "http", Port: 80, Protocol: corev1.ProtocolTCP}}}},
		&discoveryv1.EndpointSlice{
			ObjectMeta: metav1.ObjectMeta{Namespace: "blue", Name: "web-abcde", Labels: map[string]string{
				discoveryv1.LabelServiceName: "web", discoveryv1.LabelManagedBy: "endpointslice-controller.k8s.io"}},
			AddressType: discoveryv1.AddressTypeIPv4,
			Ports:       []discoveryv1.EndpointPort{{Name: ptr.To("http"), Port: ptr.To[int32](8080), Protocol: ptr.To(corev1.ProtocolTCP)}},
			Endpoints: []discoveryv1.Endpoint{
				{Addresses: []string{"10.244.0.5"}, NodeName: ptr.To("node1"), TargetRef: &corev1.ObjectReference{Kind: "Pod", Namespace: "blue", Name: "web-0"}},
				{Addresses: []string{"10.244.1.5"}, NodeName: ptr.To("node2"), TargetRef: &corev1.ObjectReference{Kind: "Pod", Namespace: "blue", Name: "web-1"}},
			}},
		&networkingv1.NetworkPolicy{ObjectMeta: metav1.ObjectMeta{Namespace: "blue", Name: "web-ingress"}, Spec: networkingv1.NetworkPolicySpec{
			PodSelector: metav1.LabelSelector{MatchLabels: web}, PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeIngress},
			Ingress: []networkingv1.NetworkPolicyIngressRule{{Ports: []networkingv1.NetworkPolicyPort{{Port: ptr.To(intstr.FromString("http"))}}}}}})
	wantVIP := "10.96.0.50:80 → " + strings.Join([]string{
		netip.AddrPortFrom(ips["blue/web-0"], 8080).String(), netip.AddrPortFrom(ips["blue/web-1"], 8080).String()}, ",")
	eventually(t, "the Service's load balancer", func() error {
		got := nbPlan(t, ctl, nb, "node1")
		var vips []string
		for _, o := range got.ObjectsOf(topology.KindLoadBalancer) {
			lb := o.(topology.LoadBalancer)
			if lb.Owner.Network != "blue_net" {
				continue
			}
			for _, v := range lb.VIPs {
				var bs []string
				for _, b := range v.Backends {
					bs = append(bs, b.String())
				}
				slices.Sort(bs)
				vips = append(vips, v.VIP.String()+" → "+strings.Join(bs, ","))
			}
		}
		if !slices.Contains(vips, wantVIP) {
			return fmt.Errorf("load balancers of blue_net %v, want %q", vips, wantVIP)
		}
		return nil
	})
	got := nbPlan(t, ctl, nb, "node1")
	ports := map[string]bool{}
	for _, o := range got.ObjectsOf(topology.KindSwitchPort) {
		ports[o.(topology.SwitchPort).Name] = true
	}
	for _, want := range []string{pods.PortName("blue", "web-0", "blue/net"), pods.PortName("green", "db-0", "green/net"), pods.PortName("red", "tool-0", "red/shared")} {
		if !ports[want] {
			t.Errorf("no switch port %s in the NB", want)
		}
	}
	if ports[pods.PortName("blue", "web-1", "blue/net")] {
		t.Errorf("node2's pod blue/web-1 has a port in node1's zone")
	}
	if ports[pods.PortName("blue", "host-0", "blue/net")] {
		t.Errorf("the host-networked pod has a port")
	}
	var acls int
	for _, o := range got.ObjectsOf(topology.KindACL) {
		if strings.Contains(topology.Render(o), "web-ingress") {
			acls++
		}
	}
	if acls == 0 {
		t.Errorf("no ACL of NetworkPolicy blue/web-ingress in the NB")
	}
	if n := ctl.c.r.syncs.Load(); n != syncs {
		t.Errorf("pods, Services and policies planned the zone again (%d Syncs, were %d): want the events' changes only", n, syncs)
	}

	// A pod deleted loses its port; its address is free again.
	// (No kubelet confirms a graceful deletion here: delete at once.)
	if err := e.c.Delete(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "green", Name: "db-0"}}, client.GracePeriodSeconds(0)); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the deleted pod's port gone", func() error {
		got := nbPlan(t, ctl, nb, "node1")
		if _, ok := got.Get(topology.KindSwitchPort, pods.PortName("green", "db-0", "green/net")); ok {
			return fmt.Errorf("port of green/db-0 still in the NB")
		}
		return nil
	})
}
