package ovnnb_test

import (
	"context"
	"net/netip"
	"strings"
	"testing"

	"github.com/udnkit/udnkit/backend/ovnnb"
	"github.com/udnkit/udnkit/internal/ovntest"
	"github.com/udnkit/udnkit/netconf"
	"github.com/udnkit/udnkit/topology"
	"github.com/udnkit/udnkit/topology/pods"
	"github.com/udnkit/udnkit/topology/services"
)

// TestRealReferenceRowsAdopted: a pod port and a Service load balancer
// written as the reference writes them (k8s.ovn.org/network and its own
// keys, no k8s.ovn.org/owner-controller) are not the topology
// controller's: its Sync leaves them, and the pods controller adopts the
// port with one update of external_ids (no delete, no create), after
// which a second Sync of each controller sends nothing.
func TestRealReferenceRowsAdopted(t *testing.T) {
	env, c := realOVN(t, ovnnb.Config{})
	ctx := context.Background()
	network := ovntest.Layer3Network()
	nodes := ovntest.Nodes(1, "zone1")
	topo, err := ovntest.Plan(network, nodes, "zone1")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Sync(ctx, topo); err != nil {
		t.Fatal(err)
	}
	pod, err := pods.PlanPod(pods.Input{Pod: pods.Pod{Namespace: "ns1", Name: "pod-a", UID: "uid-a", Node: "node1"},
		Attachments: []pods.Attachment{{Network: network, NAD: "ns1/blue", Role: netconf.PodRolePrimary,
			IPs: []netip.Prefix{netip.MustParsePrefix("10.128.1.5/24")}, HostSubnets: []netip.Prefix{netip.MustParsePrefix("10.128.1.0/24")}}},
		Nodes: nodes, Zone: "zone1"})
	if err != nil || len(pod.Ports) != 1 {
		t.Fatalf("PlanPod: %v, %d ports", err, len(pod.Ports))
	}
	port := pod.Ports[0]
	// The reference's port: its name, addresses and keys, no owner-controller.
	if _, err := env.NBCtl(ctx, "lsp-add", port.Switch, port.Name, "--", "lsp-set-addresses", port.Name, port.Addresses[0],
		"--", "set", "Logical_Switch_Port", port.Name, "external_ids:k8s.ovn.org/network=ns1_blue",
		`external_ids:"k8s.ovn.org/nad"="ns1/blue"`, "external_ids:namespace=ns1", "external_ids:pod=true",
		"port_security="+`"`+port.Addresses[0]+`"`, "options:requested-chassis=chassis-1", "options:iface-id-ver=uid-a"); err != nil {
		t.Fatal(err)
	}
	if _, err := env.NBCtl(ctx, "create", "Load_Balancer", "name=Service_ns1/svc_TCP_cluster", "protocol=tcp",
		`vips:"10.96.0.10:80"="10.128.1.5:8080"`, "external_ids:k8s.ovn.org/network=ns1_blue",
		"external_ids:k8s.ovn.org/kind=Service", `external_ids:"k8s.ovn.org/owner"="ns1/svc"`); err != nil {
		t.Fatal(err)
	}
	ch, res, err := c.Sync(ctx, topo)
	if err != nil || len(ch) != 0 || res.Operations != 0 {
		t.Fatalf("topology Sync over the reference's pod port and load balancer: %v, %d ops\n%s", err, res.Operations, ch)
	}
	obs, err := c.Observe(ctx, "ns1_blue")
	if err != nil {
		t.Fatal(err)
	}
	lsp, ok := obs.Get(topology.KindSwitchPort, port.Name)
	if !ok || lsp.OwnedBy().Controller != pods.ControllerPods {
		t.Fatalf("the reference's pod port: found %v, owner %v", ok, lsp)
	}
	var lbOwner topology.Controller
	for _, o := range only(obs, services.ControllerServices) {
		if o.Kind() == topology.KindLoadBalancer {
			lbOwner = o.OwnedBy().Controller
		}
	}
	if lbOwner != services.ControllerServices {
		t.Fatalf("the reference's Service load balancer is not the services controller's")
	}
	var b topology.Builder
	b.OwnFor(pods.ControllerPods, "ns1_blue")
	b.Add(port)
	desired, err := b.State()
	if err != nil {
		t.Fatal(err)
	}
	ch, _, err = c.Sync(ctx, desired)
	if err != nil {
		t.Fatal(err)
	}
	if len(ch) != 1 || ch[0].Op != topology.OpUpdate || !strings.Contains(strings.Join(ch[0].Columns, " "), "external_ids") {
		t.Fatalf("pods Sync adopting the reference's port: want one update of external_ids, got\n%s", ch)
	}
	for _, s := range []topology.State{desired, topo} {
		if ch, _, err := c.Sync(ctx, s); err != nil || len(ch) != 0 {
			t.Fatalf("second Sync: %v\n%s", err, ch)
		}
	}
	out, err := env.NBCtl(ctx, "--bare", "--columns=external_ids", "find", "Logical_Switch_Port", "name="+port.Name)
	if err != nil || !strings.Contains(out, string(pods.ControllerPods)) {
		t.Fatalf("the adopted port's external_ids: %v %s", err, out)
	}
}
