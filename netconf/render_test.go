package netconf

import (
	"bytes"
	"errors"
	"flag"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	nadv1 "github.com/k8snetworkplumbingwg/network-attachment-definition-client/pkg/apis/k8s.cni.cncf.io/v1"
	"sigs.k8s.io/yaml"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// goldenNADs renders NADs as a YAML stream and compares it with testdata/name.
func goldenNADs(t *testing.T, name string, nads []*nadv1.NetworkAttachmentDefinition) {
	t.Helper()
	var buf bytes.Buffer
	for i, nad := range nads {
		if i > 0 {
			buf.WriteString("---\n")
		}
		b, err := yaml.Marshal(nad)
		if err != nil {
			t.Fatal(err)
		}
		buf.Write(b)
	}
	golden(t, name, buf.Bytes())
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -run %s -update to create it)", err, t.Name())
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (-update to accept):\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

func readUDN(t *testing.T, file string) *UserDefinedNetwork {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	u, err := DecodeUDN(b)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func readCUDN(t *testing.T, file string) *ClusterUserDefinedNetwork {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	c, err := DecodeCUDN(b)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestRenderGolden(t *testing.T) {
	tests := []struct {
		name       string
		input      string
		namespaces []string // CUDN only
		networkID  int
	}{
		{name: "namespace-scoped db-network", input: "udn-db-network.yaml"},
		{name: "cluster-scoped db-network", input: "cudn-db-network.yaml", namespaces: []string{"theirnamespace", "mynamespace"}, networkID: 7},
		{name: "layer3 dual-stack", input: "udn-l3-network.yaml"},
		{name: "localnet", input: "cudn-localnet.yaml", namespaces: []string{"db-b", "db-a"}, networkID: 9},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var r *Rendered
			var err error
			if strings.HasPrefix(tt.input, "udn-") {
				r, err = RenderUDN(readUDN(t, tt.input))
			} else {
				r, err = RenderCUDN(readCUDN(t, tt.input), tt.networkID, tt.namespaces)
			}
			if err != nil {
				t.Fatal(err)
			}
			goldenNADs(t, strings.TrimSuffix(tt.input, ".yaml")+".nads.golden.yaml", r.NADs)
			// Every rendered NAD parses back to the rendered network.
			for _, nad := range r.NADs {
				n, err := NetworkFromNAD(nad)
				if err != nil {
					t.Fatal(err)
				}
				want := r.Network.Clone()
				want.ID, want.NADs = 0, []string{nad.Namespace + "/" + nad.Name}
				if !n.Equal(want) {
					t.Errorf("NAD %s/%s parses to %+v, want %+v", nad.Namespace, nad.Name, n, want)
				}
			}
		})
	}
}

func TestRenderUDNMetadata(t *testing.T) {
	r, err := RenderUDN(readUDN(t, "udn-db-network.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	nad := r.NADs[0]
	if nad.Name != "db-network" || nad.Namespace != "demo" {
		t.Errorf("NAD is %s/%s, want demo/db-network", nad.Namespace, nad.Name)
	}
	if v, ok := nad.Labels[LabelUserDefinedNetwork]; !ok || v != "" {
		t.Errorf("label %s = %q, %v; want present and empty", LabelUserDefinedNetwork, v, ok)
	}
	if len(nad.Finalizers) != 1 || nad.Finalizers[0] != FinalizerProtection {
		t.Errorf("finalizers %v", nad.Finalizers)
	}
	if len(nad.OwnerReferences) != 1 {
		t.Fatalf("owner references %v", nad.OwnerReferences)
	}
	ref := nad.OwnerReferences[0]
	if ref.APIVersion != "k8s.ovn.org/v1" || ref.Kind != KindUDN || ref.Name != "db-network" ||
		ref.UID != "f45efb13-9511-48c1-95d7-44ee17c949f4" || ref.Controller == nil || !*ref.Controller ||
		ref.BlockOwnerDeletion == nil || !*ref.BlockOwnerDeletion {
		t.Errorf("owner reference %+v", ref)
	}
	if !IsControlledBy(nad, "f45efb13-9511-48c1-95d7-44ee17c949f4") || IsControlledBy(nad, "other") || IsControlledBy(nad, "") {
		t.Error("IsControlledBy disagrees with the owner reference")
	}
	const want = `{"cniVersion":"1.1.0","name":"demo_db-network","type":"ovn-k8s-cni-overlay","topology":"layer2",` +
		`"role":"primary","netAttachDefName":"demo/db-network","subnets":"10.0.0.0/24","excludeSubnets":"10.0.0.64/26",` +
		`"joinSubnet":"100.65.0.0/16","transitSubnet":"100.88.0.0/16","mtu":9000,"allowPersistentIPs":true}`
	if nad.Spec.Config != want {
		t.Errorf("config\n got %s\nwant %s", nad.Spec.Config, want)
	}
	if r.Network.Name != "demo_db-network" || r.Network.ID != 0 || len(r.Network.NADs) != 1 || r.Network.NADs[0] != "demo/db-network" {
		t.Errorf("network %+v", r.Network)
	}
}

func TestRenderCUDNNamespacesAndNames(t *testing.T) {
	c := readCUDN(t, "cudn-db-network.yaml")
	r, err := RenderCUDN(c, 7, []string{"theirnamespace", "mynamespace", "mynamespace"})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.NADs) != 2 || r.NADs[0].Namespace != "mynamespace" || r.NADs[1].Namespace != "theirnamespace" {
		t.Fatalf("NADs not one per namespace, sorted: %v", r.NADs)
	}
	if got := strings.Join(r.Network.NADs, " "); got != "mynamespace/db-network theirnamespace/db-network" {
		t.Errorf("Network.NADs = %s", got)
	}
	if r.Network.Name != "cluster_udn_db-network" || r.Network.VRF != "db-network" || r.Network.ID != 7 {
		t.Errorf("network %+v", r.Network)
	}
	for _, nad := range r.NADs {
		if !strings.Contains(nad.Spec.Config, `"netAttachDefName":"`+nad.Namespace+`/db-network"`) ||
			!strings.Contains(nad.Spec.Config, `"vrf":"db-network"`) ||
			!strings.Contains(nad.Spec.Config, `"name":"cluster_udn_db-network"`) {
			t.Errorf("config %s", nad.Spec.Config)
		}
		if nad.OwnerReferences[0].Kind != KindCUDN {
			t.Errorf("owner kind %s", nad.OwnerReferences[0].Kind)
		}
	}
	if _, err := RenderCUDN(c, 7, []string{"Bad_NS"}); !errors.Is(err, ErrInvalidSpec) {
		t.Errorf("invalid namespace: err %v, want ErrInvalidSpec", err)
	}
}

func TestCUDNVRFName(t *testing.T) {
	mk := func(name, vrf string, role Role) *ClusterUserDefinedNetwork {
		c := validCUDN()
		c.Name, c.Spec.VRF, c.Spec.Template.Spec.Role = name, vrf, role
		return c
	}
	tests := []struct {
		name    string
		cudn    *ClusterUserDefinedNetwork
		id      int
		want    string
		wantErr error
	}{
		{name: "explicit vrf wins", cudn: mk("a-very-long-network-name", "blue", RolePrimary), id: 3, want: "blue"},
		{name: "short name used", cudn: mk("db-network", "", RolePrimary), id: 3, want: "db-network"},
		{name: "15 characters is short", cudn: mk("abcdefghijklmno", "", RolePrimary), id: 3, want: "abcdefghijklmno"},
		{name: "16 characters is generated", cudn: mk("abcdefghijklmnop", "", RolePrimary), id: 12, want: "udn-12-vrf"},
		{name: "generated needs an ID", cudn: mk("abcdefghijklmnop", "", RolePrimary), id: 0, wantErr: ErrNetworkIDRequired},
		{name: "secondary has none", cudn: mk("db-network", "", RoleSecondary), id: 3, want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := CUDNVRFName(tt.cudn, tt.id)
			if !errors.Is(err, tt.wantErr) || got != tt.want {
				t.Errorf("got %q, %v; want %q, %v", got, err, tt.want, tt.wantErr)
			}
		})
	}
}

func TestNetworkFromCUDN(t *testing.T) {
	c := validCUDN()
	c.Name = "a-long-cluster-network"
	n, err := NetworkFromCUDN(c, 42)
	if err != nil {
		t.Fatal(err)
	}
	if n.VRF != "udn-42-vrf" || n.ID != 42 || n.Name != "cluster_udn_a-long-cluster-network" || len(n.NADs) != 0 {
		t.Errorf("network %+v", n)
	}
	if _, err := NetworkFromCUDN(c, 0); !errors.Is(err, ErrNetworkIDRequired) {
		t.Errorf("ID 0: %v, want ErrNetworkIDRequired", err)
	}
	if _, err := NetworkFromCUDN(c, MaxNetworkID+1); !errors.Is(err, ErrInvalidSpec) {
		t.Errorf("ID too large: %v, want ErrInvalidSpec", err)
	}
	c.Spec.Template.Spec.Topology = "Layer4"
	_, err = NetworkFromCUDN(c, 42)
	if !errors.Is(err, ErrInvalidSpec) || !strings.Contains(err.Error(), "spec.template.spec.topology") ||
		!strings.Contains(err.Error(), `"a-long-cluster-network"`) {
		t.Errorf("invalid template: %v", err)
	}
}

func TestNetworkFromUDNDefaults(t *testing.T) {
	tests := []struct {
		name        string
		topology    Topology
		subnets     []string
		join        []string
		wantJoin    string
		wantTransit string
		wantSubnets string
	}{
		{name: "v4 layer2 defaults", topology: TopologyLayer2, subnets: []string{"10.0.0.0/24"},
			wantJoin: "100.65.0.0/16", wantTransit: "100.88.0.0/16", wantSubnets: "10.0.0.0/24"},
		{name: "dual-stack follows subnet order", topology: TopologyLayer2, subnets: []string{"fd00:10::/64", "10.0.0.0/24"},
			wantJoin: "fd99::/64 100.65.0.0/16", wantTransit: "fd97::/64 100.88.0.0/16", wantSubnets: "fd00:10::/64 10.0.0.0/24"},
		{name: "layer3 host prefix defaults", topology: TopologyLayer3, subnets: []string{"10.128.0.0/16", "fd00:10:128::/48"},
			wantJoin: "100.65.0.0/16 fd99::/64", wantTransit: "100.88.0.0/16 fd97::/64", wantSubnets: "10.128.0.0/16/24 fd00:10:128::/48/64"},
		{name: "transit moves off pod subnet", topology: TopologyLayer2, subnets: []string{"100.88.0.0/24", "fd97::/64"},
			wantJoin: "100.65.0.0/16 fd99::/64", wantTransit: "100.89.0.0/16 fd97:0:0:1::/64", wantSubnets: "100.88.0.0/24 fd97::/64"},
		{name: "transit moves past pod and join subnets", topology: TopologyLayer2, subnets: []string{"100.88.0.0/15"}, join: []string{"100.90.0.0/16"},
			wantJoin: "100.90.0.0/16", wantTransit: "100.91.0.0/16", wantSubnets: "100.88.0.0/15"},
		{name: "user join kept, missing family defaulted", topology: TopologyLayer3, subnets: []string{"10.1.0.0/16", "fd00:1::/48"}, join: []string{"100.70.0.0/16"},
			wantJoin: "100.70.0.0/16 fd99::/64", wantTransit: "100.88.0.0/16 fd97::/64", wantSubnets: "10.1.0.0/16/24 fd00:1::/48/64"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u := validUDN()
			u.Spec.Topology, u.Spec.Subnets, u.Spec.JoinSubnets = tt.topology, tt.subnets, tt.join
			n, err := NetworkFromUDN(u)
			if err != nil {
				t.Fatal(err)
			}
			if got := prefixesString(n.JoinSubnets); got != tt.wantJoin {
				t.Errorf("join %s, want %s", got, tt.wantJoin)
			}
			if got := prefixesString(n.TransitSubnets); got != tt.wantTransit {
				t.Errorf("transit %s, want %s", got, tt.wantTransit)
			}
			// The NetConf carries the transit subnets of Layer2 networks only.
			c := NetConfOf(n, "demo/db-network")
			if want := strings.ReplaceAll(tt.wantTransit, " ", ","); tt.topology != TopologyLayer2 {
				if c.TransitSubnet != "" {
					t.Errorf("NetConf transitSubnet %q for %s", c.TransitSubnet, tt.topology)
				}
			} else if c.TransitSubnet != want {
				t.Errorf("NetConf transitSubnet %q, want %q", c.TransitSubnet, want)
			}
			if want := strings.ReplaceAll(tt.wantJoin, " ", ","); c.JoinSubnet != want {
				t.Errorf("NetConf joinSubnet %q, want %q", c.JoinSubnet, want)
			}
			var subs []string
			for _, s := range n.Subnets {
				subs = append(subs, s.String())
			}
			if got := strings.Join(subs, " "); got != tt.wantSubnets {
				t.Errorf("subnets %s, want %s", got, tt.wantSubnets)
			}
		})
	}
}

func TestSecondaryHasNoJoinOrTransit(t *testing.T) {
	u := validUDN()
	u.Spec.Role = RoleSecondary
	// A secondary spec may not set joinSubnets (TestValidateUDN); a
	// secondary NetConf may, and they are ignored.
	n, err := NetworkFromUDN(u)
	if err != nil {
		t.Fatal(err)
	}
	if len(n.JoinSubnets) != 0 || len(n.TransitSubnets) != 0 {
		t.Errorf("secondary network has join %v transit %v", n.JoinSubnets, n.TransitSubnets)
	}
	c := NetConfOf(n, "ns/x")
	if c.JoinSubnet != "" || c.TransitSubnet != "" || c.Role != "secondary" {
		t.Errorf("NetConf %+v", c)
	}
	c.JoinSubnet = "100.70.0.0/16"
	if n2, err := c.Network(); err != nil || len(n2.JoinSubnets) != 0 {
		t.Errorf("secondary NetConf with joinSubnet: %v, %+v", err, n2)
	}
}

func prefixesString(ps []netip.Prefix) string {
	var s []string
	for _, p := range ps {
		s = append(s, p.String())
	}
	return strings.Join(s, " ")
}
