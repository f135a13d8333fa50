package policy_test

import (
	"context"
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/udnkit/udnkit/backend/ovnnb"
	"github.com/udnkit/udnkit/internal/ovntest"
	"github.com/udnkit/udnkit/ipam"
	"github.com/udnkit/udnkit/netconf"
	"github.com/udnkit/udnkit/topology"
	"github.com/udnkit/udnkit/topology/pods"
	"github.com/udnkit/udnkit/topology/policy"
)

// TestRealLoggingIDsIsolation applies a primary Layer3 network, two of
// its pods and ns1's policies with the namespace logging (deny alert,
// allow notice) to a real NB beside the default network's switch of the
// node, with the pods' default-network ports and the management port
// created with ovn-nbctl as the default network's controller would. It
// checks what the NB holds (the acl-logging Meter and band, each ACL's
// log, severity and meter, the reference's external_ids on every policy
// row) and lets ovn-trace referee: a denied connection is logged at
// alert through the meter, an allowed one at notice; on the default
// network the primary-UDN pod takes only its open port and the host,
// sends only ARP to the host, and replies pass. A namespace's logging
// change reaches the NB as updates of its ACLs alone. Any northd warning
// fails the test (ovntest).
func TestRealLoggingIDsIsolation(t *testing.T) {
	env := ovntest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cl, err := ovnnb.Dial(ctx, ovnnb.Config{Endpoints: []string{env.NBUnix}})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	nodes := ovntest.Nodes(1, "zone1")
	blue := ovntest.Layer3Network()
	tin := ovntest.PlanInput(blue, nodes, "zone1")
	ts, err := topology.Plan(tin)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := cl.Sync(ctx, ts); err != nil {
		t.Fatal(err)
	}
	alloc, err := ipam.NewPodIPAllocator(tin.HostSubnets["node1"], nil)
	if err != nil {
		t.Fatal(err)
	}
	mk := func(name string, labels policy.Labels) *realPod {
		ips, err := alloc.Allocate()
		if err != nil {
			t.Fatal(err)
		}
		pl, err := pods.PlanPod(pods.Input{Pod: pods.Pod{Namespace: "ns1", Name: name, UID: "uid-" + name, Node: "node1"},
			Attachments: []pods.Attachment{{Network: blue, NAD: "ns1/blue", Role: netconf.PodRolePrimary, IPs: ips, HostSubnets: tin.HostSubnets["node1"]}},
			Nodes:       nodes, Zone: "zone1"})
		if err != nil {
			t.Fatal(err)
		}
		ch, err := pods.Changes(pods.Planned{}, pl)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := cl.Apply(ctx, ch); err != nil {
			t.Fatal(err)
		}
		return &realPod{ns: "ns1", name: name, node: "node1", network: blue, nad: "ns1/blue", labels: labels, planned: pl}
	}
	web := mk("web", policy.Labels{"app": "web"})
	client := mk("client", policy.Labels{"app": "client"})
	// The default network's switch of node1 with its management port, the
	// pods' infrastructure-locked ports and a default-network pod, as the
	// reference's default network controller names them.
	if _, err := env.NBCtl(ctx, "ls-add", "node1", "--", "set", "logical_switch", "node1", "other_config:subnet=10.244.1.0/24",
		"--", "lsp-add", "node1", "k8s-node1", "--", "lsp-set-addresses", "k8s-node1", "0a:58:0a:f4:01:02 10.244.1.2",
		"--", "lsp-add", "node1", "ns1_web", "--", "lsp-set-addresses", "ns1_web", "0a:58:0a:f4:01:05 10.244.1.5",
		"--", "lsp-add", "node1", "ns1_client", "--", "lsp-set-addresses", "ns1_client", "0a:58:0a:f4:01:07 10.244.1.7",
		"--", "lsp-add", "node1", "default_pod", "--", "lsp-set-addresses", "default_pod", "0a:58:0a:f4:01:06 10.244.1.6"); err != nil {
		t.Fatal(err)
	}
	in := policy.Input{
		Networks:       []policy.Network{{Network: blue, Namespaces: []string{"ns1"}, HostSubnets: tin.HostSubnets}},
		Nodes:          nodes,
		Zone:           "zone1",
		DefaultNetwork: &policy.DefaultNetwork{ManagementIPs: []netip.Addr{netip.MustParseAddr("10.244.1.2")}},
		Namespaces:     []policy.Namespace{{Name: "ns1", Logging: policy.ACLLogging{Deny: topology.SeverityAlert, Allow: topology.SeverityNotice}}},
		Policies: []policy.Policy{
			{Namespace: "ns1", Name: "web-from-client", PodSelector: *sel("app", "web"),
				Ingress: []policy.Rule{{Peers: []policy.Peer{{PodSelector: sel("app", "client")}}, Ports: []policy.Port{{Number: 8080}}}}},
		},
		Pods: []policy.Pod{
			{Namespace: "ns1", Name: "web", Node: "node1", Labels: web.labels, DefaultPort: "ns1_web",
				OpenPorts: []policy.OpenPort{{Protocol: "tcp", Port: 80}},
				Networks:  []policy.Attachment{{Network: blue.Name, Port: web.port().Name, IPs: []netip.Addr{web.ip()}}}},
			{Namespace: "ns1", Name: "client", Node: "node1", Labels: client.labels, DefaultPort: "ns1_client",
				Networks: []policy.Attachment{{Network: blue.Name, Port: client.port().Name, IPs: []netip.Addr{client.ip()}}}},
		},
	}
	planner, err := policy.New(in)
	if err != nil {
		t.Fatal(err)
	}
	desired, err := planner.State()
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := cl.Sync(ctx, desired); err != nil {
		t.Fatal(err)
	}
	if err := env.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if ch, _, err := cl.Sync(ctx, desired); err != nil || len(ch) != 0 {
		t.Fatalf("a second sync changes %v (%v)", ch, err)
	}

	t.Run("the NB holds the meter, the logging and the reference's ids", func(t *testing.T) {
		all, err := env.Rows(ctx, "ACL", "Meter", "Meter_Band", "Port_Group", "Address_Set")
		if err != nil {
			t.Fatal(err)
		}
		str := func(v any) string { // an optional column: ["set", []] or the value
			if a, ok := v.([]any); ok && len(a) == 2 && a[0] == "set" {
				return ""
			}
			return fmt.Sprint(v)
		}
		ids := func(r map[string]any) map[string]string {
			m := map[string]string{}
			for _, kv := range r["external_ids"].([]any)[1].([]any) {
				p := kv.([]any)
				m[p[0].(string)] = p[1].(string)
			}
			return m
		}
		if len(all["Meter"]) != 1 || len(all["Meter_Band"]) != 1 {
			t.Fatalf("meters %v bands %v", all["Meter"], all["Meter_Band"])
		}
		for _, m := range all["Meter"] {
			if m["name"] != policy.MeterName || m["unit"] != "pktps" || str(m["fair"]) != "true" {
				t.Errorf("meter %v", m)
			}
		}
		for _, b := range all["Meter_Band"] {
			if b["action"] != "drop" || fmt.Sprint(b["rate"]) != "20" {
				t.Errorf("meter band %v", b)
			}
		}
		logged := map[string]string{}
		for _, a := range all["ACL"] {
			id := ids(a)
			if id["k8s.ovn.org/owner-controller"] != string(policy.Controller) || id[policy.IDOwnerType] == "" || id[policy.IDPrimary] == "" {
				t.Errorf("ACL %v: external_ids %v", a["match"], id)
			}
			if str(a["meter"]) != policy.MeterName {
				t.Errorf("ACL %v: meter %v", a["match"], a["meter"])
			}
			if a["log"] == true {
				logged[id[policy.IDPrimary]] = str(a["severity"])
			}
		}
		ctrl := policy.ReferenceController(blue.Name)
		want := map[string]string{
			ctrl + ":NetpolNamespace:ns1:Ingress:defaultDeny":            "alert",
			ctrl + ":NetpolNamespace:ns1:Egress:defaultDeny":             "alert",
			ctrl + ":NetworkPolicy:ns1:web-from-client:Ingress:0:tcp:-1": "notice",
		}
		if fmt.Sprint(logged) != fmt.Sprint(want) {
			t.Errorf("logged ACLs %v, want %v", logged, want)
		}
		for _, table := range []string{"Port_Group", "Address_Set"} {
			for _, r := range all[table] {
				id := ids(r)
				if id[policy.IDPrimary] == "" || topology.HashName(id[policy.IDPrimary]) != r["name"] {
					t.Errorf("%s %v: id %q", table, r["name"], id[policy.IDPrimary])
				}
			}
		}
	})

	ctNew := []string{"--ct=new,trk", "--ct=new,trk", "--ct=new,trk", "--ct=new,trk", "--ct=new,trk", "--ct=new,trk"}
	ctReply := []string{"--ct=est,rpl,trk", "--ct=est,rpl,trk", "--ct=est,rpl,trk", "--ct=est,rpl,trk", "--ct=est,rpl,trk", "--ct=est,rpl,trk"}
	trace := func(t *testing.T, ct []string, sw, match string) (string, []string) {
		t.Helper()
		out, err := env.Trace(ctx, append(slices.Clone(ct), sw, match)...)
		if err != nil {
			t.Fatal(err)
		}
		var outs []string
		for _, m := range realOutRE.FindAllStringSubmatch(out, -1) {
			outs = append(outs, m[1])
		}
		return out, outs
	}
	t.Run("the namespace's drops log at alert, its allows at notice, through the meter", func(t *testing.T) {
		l4 := func(from, to *realPod, port int) string {
			return fmt.Sprintf(`inport == %q && eth.src == %s && eth.dst == %s && ip4.src == %s && ip4.dst == %s && ip.ttl == 64 && tcp && tcp.dst == %d`,
				from.port().Name, from.mac(), from.gwMAC(), from.ip(), to.ip(), port)
		}
		out, outs := trace(t, ctNew, client.port().Switch, l4(client, web, 8080))
		if !slices.Contains(outs, web.port().Name) || !strings.Contains(out, `log(name="NP:ns1:web-from-client:Ingress:0", verdict=allow, severity=notice, meter="acl-logging`) {
			t.Errorf("client -> web:8080 not delivered with a notice log:\n%s", out)
		}
		out, outs = trace(t, ctNew, client.port().Switch, l4(client, web, 9090))
		if slices.Contains(outs, web.port().Name) || !strings.Contains(out, `log(name="NP:ns1:Ingress", verdict=drop, severity=alert, meter="acl-logging`) {
			t.Errorf("client -> web:9090 not dropped with an alert log:\n%s", out)
		}
	})
	dflt := func(from string, mac, ip string, to string, toMAC, toIP, l4 string) string {
		return fmt.Sprintf(`inport == %q && eth.src == %s && eth.dst == %s && ip4.src == %s && ip4.dst == %s && ip.ttl == 64 && %s`,
			from, mac, toMAC, ip, toIP, l4)
	}
	const webMAC, podMAC, mgmtMAC = "0a:58:0a:f4:01:05", "0a:58:0a:f4:01:06", "0a:58:0a:f4:01:02"
	t.Run("the default network isolates the primary-UDN pod", func(t *testing.T) {
		for _, tc := range []struct {
			name     string
			ct       []string
			match    string
			to       string
			delivers bool
		}{
			{"a default pod reaches the open port", ctNew, dflt("default_pod", podMAC, "10.244.1.6", "ns1_web", webMAC, "10.244.1.5", "tcp && tcp.dst == 80"), "ns1_web", true},
			{"a default pod does not reach another port", ctNew, dflt("default_pod", podMAC, "10.244.1.6", "ns1_web", webMAC, "10.244.1.5", "tcp && tcp.dst == 81"), "ns1_web", false},
			{"a default pod does not reach a pod without open ports", ctNew, dflt("default_pod", podMAC, "10.244.1.6", "ns1_client", "0a:58:0a:f4:01:07", "10.244.1.7", "tcp && tcp.dst == 80"), "ns1_client", false},
			{"the host (management port) reaches any port", ctNew, dflt("k8s-node1", mgmtMAC, "10.244.1.2", "ns1_web", webMAC, "10.244.1.5", "tcp && tcp.dst == 10250"), "ns1_web", true},
			{"the pod opens nothing on the default network", ctNew, dflt("ns1_web", webMAC, "10.244.1.5", "default_pod", podMAC, "10.244.1.6", "tcp && tcp.dst == 80"), "default_pod", false},
			{"nor towards the host", ctNew, dflt("ns1_web", webMAC, "10.244.1.5", "k8s-node1", mgmtMAC, "10.244.1.2", "tcp && tcp.dst == 80"), "k8s-node1", false},
			{"the reply to the host's connection passes", ctReply, dflt("ns1_web", webMAC, "10.244.1.5", "k8s-node1", mgmtMAC, "10.244.1.2", "tcp && tcp.src == 10250"), "k8s-node1", true},
			{"the reply on the open port passes", ctReply, dflt("ns1_web", webMAC, "10.244.1.5", "default_pod", podMAC, "10.244.1.6", "tcp && tcp.src == 80"), "default_pod", true},
			{"a default pod reaches another", ctNew, dflt("default_pod", podMAC, "10.244.1.6", "k8s-node1", mgmtMAC, "10.244.1.2", "tcp && tcp.dst == 80"), "k8s-node1", true},
		} {
			out, outs := trace(t, tc.ct, "node1", tc.match)
			if got := slices.Contains(outs, tc.to); got != tc.delivers {
				t.Errorf("%s: delivered %v, want %v (outputs %v):\n%s", tc.name, got, tc.delivers, outs, out)
			}
		}
		// ARP out: the host only; a pod with open ports any (the reference's
		// open-port egress ACL allows its ARP/ND).
		arp := func(port, mac, spa, tpa string) string {
			return fmt.Sprintf(`inport == %q && eth.src == %s && eth.dst == ff:ff:ff:ff:ff:ff && arp.op == 1 && arp.sha == %s && arp.spa == %s && arp.tpa == %s`,
				port, mac, mac, spa, tpa)
		}
		const clientMAC = "0a:58:0a:f4:01:07"
		if out, outs := trace(t, ctNew, "node1", arp("ns1_client", clientMAC, "10.244.1.7", "10.244.1.2")); len(outs) == 0 {
			t.Errorf("the pod's ARP for the host went nowhere:\n%s", out)
		}
		if out, outs := trace(t, ctNew, "node1", arp("ns1_client", clientMAC, "10.244.1.7", "10.244.1.6")); len(outs) != 0 {
			t.Errorf("the pod's ARP for a default pod went to %v:\n%s", outs, out)
		}
		if out, outs := trace(t, ctNew, "node1", arp("ns1_web", webMAC, "10.244.1.5", "10.244.1.6")); len(outs) == 0 {
			t.Errorf("the open-ports pod's ARP for a default pod went nowhere:\n%s", out)
		}
	})
	t.Run("a logging change updates the namespace's ACLs alone", func(t *testing.T) {
		ch, err := planner.SetNamespace(policy.Namespace{Name: "ns1", Logging: policy.ACLLogging{Deny: topology.SeverityDebug}})
		if err != nil {
			t.Fatal(err)
		}
		if len(ch) != 3 {
			t.Errorf("changes %s, want the default denies' severity and the rule's log", ch)
		}
		if _, err := cl.Apply(ctx, ch); err != nil {
			t.Fatal(err)
		}
		now, err := planner.State()
		if err != nil {
			t.Fatal(err)
		}
		if ch, _, err := cl.Sync(ctx, now); err != nil || len(ch) != 0 {
			t.Errorf("after the change the NB differs from the plan: %v (%v)", ch, err)
		}
		// Nobody logs: the meter goes, with its band.
		ch, err = planner.SetNamespace(policy.Namespace{Name: "ns1"})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := cl.Apply(ctx, ch); err != nil {
			t.Fatal(err)
		}
		all, err := env.Rows(ctx, "Meter", "Meter_Band")
		if err != nil {
			t.Fatal(err)
		}
		if len(all["Meter"])+len(all["Meter_Band"]) != 0 {
			t.Errorf("meter rows left: %v", all)
		}
		if err := env.Sync(ctx); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("the default network's switch and ports stay the default controller's", func(t *testing.T) {
		ch, _, err := cl.Sync(ctx, topology.RemovalFor(policy.Controller, blue.Name, policy.DefaultNetworkName))
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range ch {
			if c.Kind == topology.KindSwitch || c.Kind == topology.KindSwitchPort {
				t.Errorf("the removal touches %s", c)
			}
		}
		out, err := env.NBCtl(ctx, "--bare", "--columns=name", "list", "Logical_Switch_Port")
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range []string{"k8s-node1", "ns1_web", "ns1_client", "default_pod"} {
			if !strings.Contains(out, p) {
				t.Errorf("default network port %s gone after the policy removal", p)
			}
		}
		if err := env.Sync(ctx); err != nil {
			t.Fatal(err)
		}
	})
}
