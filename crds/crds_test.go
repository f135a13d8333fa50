package crds_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/udnkit/udnkit/connect"
	"github.com/udnkit/udnkit/controller"
	"github.com/udnkit/udnkit/crds"
	"github.com/udnkit/udnkit/internal/kubetest"
	"github.com/udnkit/udnkit/netconf"
)

// TestCRDsCurrent runs controller-gen into a temporary directory and
// compares what it writes with the committed CRDs: run go generate ./crds
// when it fails.
func TestCRDsCurrent(t *testing.T) {
	if testing.Short() {
		t.Skip("builds controller-gen")
	}
	dir := t.TempDir()
	// Two runs, as go generate: controller-gen merges the kinds of one
	// group across the packages of a run, and package netconf has a
	// PodNetwork of its own (the pod-networks annotation's entry).
	for _, paths := range [][]string{
		{"paths=github.com/udnkit/udnkit/netconf", "paths=github.com/udnkit/udnkit/connect",
			"paths=github.com/udnkit/udnkit/topology/egressip/kube", "paths=github.com/udnkit/udnkit/topology/egressqos/kube"},
		{"paths=github.com/udnkit/udnkit/netconf/podnetwork"},
	} {
		cmd := exec.Command("go", append(append([]string{"run", crds.ControllerGen, "crd:crdVersions=v1"}, paths...), "output:crd:dir="+dir)...)
		cmd.Dir = "."
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("controller-gen: %v\n%s", err, out)
		}
	}
	have, err := crds.Files()
	if err != nil {
		t.Fatal(err)
	}
	gen, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(gen) != len(have) || len(gen) != 7 {
		t.Errorf("controller-gen wrote %d files, crds holds %d, want 7", len(gen), len(have))
	}
	for _, p := range gen {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(b, have[filepath.Base(p)]) {
			t.Errorf("%s is stale: run go generate ./crds", filepath.Base(p))
		}
	}
}

// TestAll: the seven kinds, with status subresources.
func TestAll(t *testing.T) {
	all, err := crds.All()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range all {
		names = append(names, c.Name+"/"+string(c.Spec.Scope))
		if c.Spec.Versions[0].Subresources == nil || c.Spec.Versions[0].Subresources.Status == nil {
			t.Errorf("%s has no status subresource", c.Name)
		}
	}
	want := "clusternetworkconnects.k8s.ovn.org/Cluster clusteruserdefinednetworks.k8s.ovn.org/Cluster " +
		"egressips.k8s.ovn.org/Cluster egressqoses.k8s.ovn.org/Namespaced " +
		"podnetworkattachments.k8s.ovn.org/Namespaced podnetworks.k8s.ovn.org/Cluster userdefinednetworks.k8s.ovn.org/Namespaced"
	if got := strings.Join(names, " "); got != want {
		t.Errorf("CRDs %s, want %s", got, want)
	}
}

// TestAdmission installs the CRDs into a real API server: the seeds'
// example manifests (decoded by the SDK, which writes the documented
// form) are admitted, and each invalid object is refused by both the API
// server and the SDK's validation with the same message.
func TestAdmission(t *testing.T) {
	s := kubetest.Start(t)
	all, err := crds.All()
	if err != nil {
		t.Fatal(err)
	}
	kubetest.InstallCRDs(t, s.Config, all...)
	scheme, err := controller.NewScheme()
	if err != nil {
		t.Fatal(err)
	}
	c, err := client.New(s.Config, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()

	for _, f := range []string{"udn-l3-network.yaml", "udn-db-network.yaml", "cudn-db-network.yaml", "cudn-localnet.yaml"} {
		b, err := os.ReadFile(filepath.Join("..", "netconf", "testdata", f))
		if err != nil {
			t.Fatal(err)
		}
		var obj client.Object
		var errs field.ErrorList
		if bytes.Contains(b, []byte("kind: ClusterUserDefinedNetwork")) {
			o, err := netconf.DecodeCUDN(b)
			if err != nil {
				t.Fatal(err)
			}
			obj, errs = o, netconf.ValidateCUDN(o)
		} else {
			o, err := netconf.DecodeUDN(b)
			if err != nil {
				t.Fatal(err)
			}
			obj, errs = o, netconf.ValidateUDN(o)
		}
		if len(errs) > 0 {
			t.Fatalf("%s: the SDK refuses a seed example: %v", f, errs)
		}
		obj.SetUID("")
		if ns := obj.GetNamespace(); ns != "" && ns != "default" {
			if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil && !apierrors.IsAlreadyExists(err) {
				t.Fatal(err)
			}
		}
		if err := c.Create(ctx, obj, client.FieldValidation("Strict")); err != nil {
			t.Errorf("%s: the API server refused a seed example: %v", f, err)
		}
	}
	// Dual-stack Layer3: each family has a host-subnet length of its own,
	// written or not.
	for i, subnets := range [][]string{{"10.0.0.0/16/24", "fd00::/48"}, {"10.0.0.0/16", "fd00::/48/64"}, {"10.0.0.0/16/26", "fd00::/48/64"}} {
		u := &netconf.UserDefinedNetwork{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: fmt.Sprintf("dual-stack-%d", i)},
			Spec: netconf.UserDefinedNetworkSpec{Topology: netconf.TopologyLayer3, Role: netconf.RoleSecondary, Subnets: subnets}}
		if errs := netconf.ValidateUDN(u); len(errs) > 0 {
			t.Errorf("%v: the SDK refuses: %v", subnets, errs)
		}
		if err := c.Create(ctx, u, client.FieldValidation("Strict")); err != nil {
			t.Errorf("%v: the API server refuses: %v", subnets, err)
		}
	}

	cnc := validCNC("seed-example")
	if errs := connect.Validate(cnc); len(errs) > 0 {
		t.Fatal(errs)
	}
	if err := c.Create(ctx, cnc, client.FieldValidation("Strict")); err != nil {
		t.Errorf("the API server refused the seed's ClusterNetworkConnect: %v", err)
	}

	for _, tc := range invalid() {
		t.Run(tc.name, func(t *testing.T) {
			sdk := tc.validate().ToAggregate()
			if sdk == nil || !strings.Contains(sdk.Error(), tc.message) {
				t.Errorf("SDK: %v, want %q", sdk, tc.message)
			}
			err := c.Create(ctx, tc.obj, client.FieldValidation("Strict"))
			if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), tc.message) {
				t.Errorf("API server: %v, want Invalid with %q", err, tc.message)
			}
		})
	}

	// Immutability: the API server refuses a spec change as the SDK's
	// update validation does.
	var u netconf.UserDefinedNetwork
	if err := c.Get(ctx, client.ObjectKey{Namespace: "default", Name: "l3-network"}, &u); err != nil {
		t.Fatal(err)
	}
	upd := u.DeepCopy()
	upd.Spec.MTU = 1500
	const immutable = "Spec is immutable; delete and recreate the UserDefinedNetwork to change it"
	if errs := netconf.ValidateUDNUpdate(&u, upd).ToAggregate(); errs == nil || !strings.Contains(errs.Error(), immutable) {
		t.Errorf("SDK update: %v", errs)
	}
	if err := c.Update(ctx, upd); !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), immutable) {
		t.Errorf("API server update: %v, want %q", err, immutable)
	}

	t.Run("podnetworks", func(t *testing.T) { admitPodNetworks(t, c) })
	t.Run("egress", func(t *testing.T) { admitEgress(t, c) })
}

func validCNC(name string) *connect.ClusterNetworkConnect {
	return &connect.ClusterNetworkConnect{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: connect.ClusterNetworkConnectSpec{
		NetworkSelectors: []connect.NetworkSelector{{NetworkSelectionType: connect.ClusterUserDefinedNetworks,
			ClusterUserDefinedNetworkSelector: &connect.ClusterUserDefinedNetworkSelector{
				NetworkSelector: metav1.LabelSelector{MatchLabels: map[string]string{"connect": "yes"}}}}},
		ConnectSubnets:      []connect.ConnectSubnet{{CIDR: "192.168.0.0/16", NetworkPrefix: 24}},
		ConnectivityEnabled: []connect.ConnectivityType{connect.PodNetwork, connect.ClusterIPServiceNetwork},
	}}
}

type invalidCase struct {
	name     string
	obj      client.Object
	validate func() field.ErrorList
	message  string
}

func invalid() []invalidCase {
	udn := func(name string, spec netconf.UserDefinedNetworkSpec) *netconf.UserDefinedNetwork {
		return &netconf.UserDefinedNetwork{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, UID: "u-" + "1"}, Spec: spec}
	}
	var out []invalidCase
	addUDN := func(name, msg string, spec netconf.UserDefinedNetworkSpec) {
		u := udn(name, spec)
		out = append(out, invalidCase{name: name, obj: u, message: msg, validate: func() field.ErrorList {
			return netconf.ValidateUDN(u)
		}})
	}
	addUDN("layer3-without-subnets", "Layer3 topology requires subnets",
		netconf.UserDefinedNetworkSpec{Topology: netconf.TopologyLayer3, Role: netconf.RoleSecondary})
	addUDN("localnet-primary", "Localnet topology is not supported for primary networks; use Secondary",
		netconf.UserDefinedNetworkSpec{Topology: netconf.TopologyLocalnet, Role: netconf.RolePrimary, Subnets: []string{"10.0.0.0/24"},
			Localnet: &netconf.LocalnetSpec{PhysicalNetworkName: "physnet"}})
	addUDN("join-on-secondary", "JoinSubnets is only supported for Primary network",
		netconf.UserDefinedNetworkSpec{Topology: netconf.TopologyLayer2, Role: netconf.RoleSecondary, Subnets: []string{"10.0.0.0/24"}, JoinSubnets: []string{"100.66.0.0/16"}})
	addUDN("persistent-layer3", "Persistent is supported for Layer2 and Localnet topologies only",
		netconf.UserDefinedNetworkSpec{Topology: netconf.TopologyLayer3, Role: netconf.RoleSecondary, Subnets: []string{"10.0.0.0/16"},
			IPAM: &netconf.IPAMSpec{Lifecycle: netconf.IPAMPersistent}})
	addUDN("ipam-disabled-primary", "Disabled is supported for Secondary networks only",
		netconf.UserDefinedNetworkSpec{Topology: netconf.TopologyLayer2, Role: netconf.RolePrimary, IPAM: &netconf.IPAMSpec{Mode: netconf.IPAMDisabled}})
	addUDN("mtu-too-small", "must be between 576 and 65536",
		netconf.UserDefinedNetworkSpec{Topology: netconf.TopologyLayer2, Role: netconf.RoleSecondary, Subnets: []string{"10.0.0.0/24"}, MTU: 500})
	addUDN("two-ipv4-subnets", "at most one subnet per IP family",
		netconf.UserDefinedNetworkSpec{Topology: netconf.TopologyLayer2, Role: netconf.RoleSecondary, Subnets: []string{"10.0.0.0/24", "10.1.0.0/24"}})
	addUDN("layer3-host-subnets-differ", netconf.HostSubnetMismatchMessage,
		netconf.UserDefinedNetworkSpec{Topology: netconf.TopologyLayer3, Role: netconf.RolePrimary, Subnets: []string{"10.0.0.0/16/24", "10.1.0.0/16/26"}})
	addUDN("layer3-host-subnet-one-unset", netconf.HostSubnetMismatchMessage,
		netconf.UserDefinedNetworkSpec{Topology: netconf.TopologyLayer3, Role: netconf.RolePrimary, Subnets: []string{"10.0.0.0/16", "10.1.0.0/16/24"}})
	addUDN("unknown-topology", `Unsupported value: "Layer4"`,
		netconf.UserDefinedNetworkSpec{Topology: "Layer4", Role: netconf.RoleSecondary, Subnets: []string{"10.0.0.0/24"}})

	// A CUDN's template holds the same rules.
	cudn := &netconf.ClusterUserDefinedNetwork{ObjectMeta: metav1.ObjectMeta{Name: "layer3-host-subnets-differ", UID: "c-1"},
		Spec: netconf.ClusterUserDefinedNetworkSpec{
			NamespaceSelector: metav1.LabelSelector{MatchLabels: map[string]string{"a": "b"}},
			Template: &netconf.UserDefinedNetworkTemplateSpec{Spec: netconf.UserDefinedNetworkSpec{Topology: netconf.TopologyLayer3,
				Role: netconf.RolePrimary, Subnets: []string{"10.0.0.0/16/24", "10.1.0.0/16/26"}}}}}
	out = append(out, invalidCase{name: "cudn-layer3-host-subnets-differ", obj: cudn, message: netconf.HostSubnetMismatchMessage,
		validate: func() field.ErrorList { return netconf.ValidateCUDN(cudn) }})

	addCNC := func(name, msg string, mut func(*connect.ClusterNetworkConnect)) {
		c := validCNC(name)
		mut(c)
		out = append(out, invalidCase{name: name, obj: c, message: msg, validate: func() field.ErrorList { return connect.Validate(c) }})
	}
	addCNC("cnc-secondary-selector", "Only ClusterUserDefinedNetworks or PrimaryUserDefinedNetworks can be selected", func(c *connect.ClusterNetworkConnect) {
		c.Spec.NetworkSelectors = []connect.NetworkSelector{{NetworkSelectionType: connect.SecondaryUserDefinedNetworks,
			SecondaryUserDefinedNetworkSelector: &connect.SecondaryUserDefinedNetworkSelector{}}}
	})
	addCNC("cnc-host-bits", "CIDR must be a valid network address", func(c *connect.ClusterNetworkConnect) {
		c.Spec.ConnectSubnets[0].CIDR = "192.168.0.1/16"
	})
	addCNC("cnc-prefix-shorter", "networkPrefix must be smaller than CIDR subnet", func(c *connect.ClusterNetworkConnect) {
		c.Spec.ConnectSubnets[0].NetworkPrefix = 8
	})
	addCNC("cnc-prefix-ipv4-32", "networkPrefix must < 32 for ipv4 CIDR", func(c *connect.ClusterNetworkConnect) {
		c.Spec.ConnectSubnets[0].NetworkPrefix = 32
	})
	addCNC("cnc-same-family", "When 2 CIDRs are set, they must be from different IP families", func(c *connect.ClusterNetworkConnect) {
		c.Spec.ConnectSubnets = append(c.Spec.ConnectSubnets, connect.ConnectSubnet{CIDR: "172.31.0.0/16", NetworkPrefix: 24})
	})
	addCNC("cnc-duplicate-connectivity", "connectivityEnabled cannot contain duplicate values", func(c *connect.ClusterNetworkConnect) {
		c.Spec.ConnectivityEnabled = []connect.ConnectivityType{connect.PodNetwork, connect.PodNetwork}
	})
	return out
}
