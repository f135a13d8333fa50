package udnkit_test

import (
	"context"
	"fmt"
	"net/netip"
	"os"
	"strings"
	"testing"

	"github.com/udnkit/udnkit"
	"github.com/udnkit/udnkit/backend/ovnnb"
	"github.com/udnkit/udnkit/connect"
	"github.com/udnkit/udnkit/flows"
	"github.com/udnkit/udnkit/netconf"
	"github.com/udnkit/udnkit/topology"
	"github.com/udnkit/udnkit/topology/pods"
	"github.com/udnkit/udnkit/topology/services"
)

// usingIt is the README's "Using it" snippet: TestREADME holds the README
// to it, so the README's code compiles and runs.
func usingIt(ctx context.Context, nodes []topology.Node, udnYAML, cncYAML []byte, zone string) (string, error) {
	// README: begin
	cluster, err := udnkit.New(udnkit.Config{Nodes: nodes}) // settings and profile, once
	if err != nil {
		return "", err
	}
	u, err := netconf.DecodeUDN(udnYAML)
	if err != nil {
		return "", err
	}
	network, err := cluster.AddUDN(u) // validated; ID, tunnel keys, host subnets allocated
	if err != nil {
		return "", err
	}
	desired, err := cluster.Plan(zone) // everything the Cluster holds, for one zone
	if err != nil {
		return "", err
	}
	nb, closeNB, err := ovnnb.Open(ctx, "") // "" = embedded NB; or "unix:/var/run/ovn/ovnnb_db.sock"
	if err != nil {
		return "", err
	}
	defer closeNB()
	if _, _, err := nb.Sync(ctx, desired); err != nil { // a UDN to rows: 4 calls
		return "", err
	}

	cnc, err := connect.Decode(cncYAML)
	if err != nil {
		return "", err
	}
	accepted, ev, err := cluster.SetConnect(cnc) // admitted, key and subnets from the same allocators
	if err != nil {
		return "", err
	}
	changes, err := cluster.PlanEvent(zone, ev) // just the connect's rows: 2 more calls
	if err != nil {
		return "", err
	}
	if _, err := nb.Apply(ctx, changes); err != nil {
		return "", err
	}

	ev, err = cluster.SetPod(pods.Pod{Namespace: u.Namespace, Name: "web-0", UID: "9f1c", Node: nodes[0].Name}, nil)
	if err != nil {
		return "", err
	}
	if changes, err = cluster.PlanEvent(zone, ev); err != nil { // the pod's port: 2 more calls
		return "", err
	}
	if _, err := nb.Apply(ctx, changes); err != nil {
		return "", err
	}
	podNetworks, err := cluster.PodAnnotation(u.Namespace, "web-0") // k8s.ovn.org/pod-networks, to write on the pod
	if err != nil {
		return "", err
	}

	ev, err = cluster.SetService(services.Service{Namespace: u.Namespace, Name: "web",
		ClusterIPs: []netip.Addr{netip.MustParseAddr("10.96.0.10")},
		Ports:      []services.Port{{Name: "http", Protocol: services.ProtocolTCP, Port: 80}}})
	if err != nil {
		return "", err
	}
	if changes, err = cluster.PlanEvent(zone, ev); err != nil { // its load balancers: 2 more calls
		return "", err
	}
	if _, err := nb.Apply(ctx, changes); err != nil {
		return "", err
	}

	node, err := cluster.PlanNode(nodes[0].Name, udnkit.NodeLocal{ // the node's VRFs, nftables and br-ex flows: 1 call
		Uplink: flows.Port{Name: "eth0", OFPort: 1}, DefaultPatchOFPort: 2,
		PatchOFPorts: map[string]int{network.Name: 3}, KubeletCgroup: "kubelet.slice/kubelet.service"})
	if err != nil {
		return "", err
	}
	stored := cluster.Annotations() // what to write on Nodes, NADs and CNCs; a restart Restores it
	// README: end
	return fmt.Sprintf("%s %s %d NADs %d flows %t", accepted.Condition.Reason, network.Name, len(stored.NADs),
		len(node.Flows), strings.Contains(podNetworks, `"role":"primary"`)), nil
}

// TestREADME runs the README's snippet and holds the README's Go block to
// it, line for line.
func TestREADME(t *testing.T) {
	nodes := []topology.Node{exampleNode("node-a", 2), exampleNode("node-b", 3)}
	got, err := usingIt(context.Background(), nodes, []byte(`
kind: UserDefinedNetwork
metadata: {name: blue, namespace: blue}
spec: {topology: Layer3, role: Primary, subnets: ["10.128.0.0/16/24"]}`), []byte(`
kind: ClusterNetworkConnect
metadata: {name: c}
spec:
  networkSelectors:
  - networkSelectionType: PrimaryUserDefinedNetworks
    primaryUserDefinedNetworkSelector: {namespaceSelector: {}}
  connectSubnets: [{cidr: 192.168.0.0/16, networkPrefix: 24}]
  connectivityEnabled: [PodNetwork]`), "node-a")
	if err != nil {
		t.Fatal(err)
	}
	if want := "InsufficientNetworks blue_blue 1 NADs"; !strings.HasPrefix(got, want) || !strings.HasSuffix(got, "true") {
		t.Fatalf("the snippet gives %q, want %q... true", got, want)
	}
	src, err := os.ReadFile("readme_test.go")
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, body, _ := strings.Cut(string(src), "\t// README: begin\n")
	body, _, _ = strings.Cut(body, "\t// README: end\n")
	var lines []string
	for _, l := range strings.Split(strings.TrimRight(body, "\n"), "\n") {
		lines = append(lines, strings.TrimPrefix(l, "\t"))
	}
	block := "```go\n" + strings.Join(lines, "\n") + "\n```"
	if !strings.Contains(string(readme), block) {
		t.Fatalf("README.md's \"Using it\" block is not the snippet of readme_test.go; it should read:\n%s", block)
	}
}
