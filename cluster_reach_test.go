package udnkit_test

import (
	"errors"
	"testing"

	"github.com/udnkit/udnkit"
	"github.com/udnkit/udnkit/connect"
	"github.com/udnkit/udnkit/internal/manifest"
)

// loadManifest builds a Cluster from one of examples/manifests.
func loadManifest(t *testing.T, file string) *udnkit.Cluster {
	t.Helper()
	objs, err := manifest.ReadPaths([]string{"examples/manifests/" + file}, nil)
	if err != nil {
		t.Fatal(err)
	}
	set, errs := manifest.Decode(objs)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	l, err := manifest.Load(set, udnkit.Config{})
	if err != nil {
		t.Fatal(err)
	}
	return l.Cluster
}

// TestReach: seed 001's connect joins blue, green and yellow and leaves
// red out; seed 002's namespace links its two primaries; a service-only
// connect keeps its networks' pods apart; unknown networks are not found.
func TestReach(t *testing.T) {
	seed1 := loadManifest(t, "seed-001.yaml")
	for _, tc := range []struct {
		c        *udnkit.Cluster
		from, to string
		want     udnkit.Reach
	}{
		{seed1, "blue_blue-network", "blue_blue-network", udnkit.Reach{Connected: true, Why: "same network"}},
		{seed1, "blue_blue-network", "green_green-network", udnkit.Reach{Connected: true, Why: "ClusterNetworkConnect colored-enterprise (PodNetwork)", Via: "colored-enterprise"}},
		{seed1, "yellow_yellow-network", "blue_blue-network", udnkit.Reach{Connected: true, Why: "ClusterNetworkConnect colored-enterprise (PodNetwork)", Via: "colored-enterprise"}},
		{seed1, "blue_blue-network", "red_red-network", udnkit.Reach{Why: "isolated"}},
		{seed1, "red_red-network", "yellow_yellow-network", udnkit.Reach{Why: "isolated"}},
		{loadManifest(t, "seed-002.yaml"), "tenant_l3-network", "tenant_l2-network", udnkit.Reach{Connected: true, Why: "primary networks of one namespace (link tenant)", Via: "tenant"}},
	} {
		got, err := tc.c.Reach(tc.from, tc.to)
		if err != nil || got != tc.want {
			t.Errorf("Reach(%s, %s) = %+v, %v; want %+v", tc.from, tc.to, got, err, tc.want)
		}
	}
	svc, err := connect.Decode([]byte(`
kind: ClusterNetworkConnect
metadata: {name: colored-enterprise}
spec:
  networkSelectors:
  - networkSelectionType: PrimaryUserDefinedNetworks
    primaryUserDefinedNetworkSelector:
      namespaceSelector: {matchExpressions: [{key: kubernetes.io/metadata.name, operator: In, values: [blue, green]}]}
  connectSubnets: [{cidr: 192.168.0.0/16, networkPrefix: 24}]
  connectivityEnabled: [ClusterIPServiceNetwork]`))
	if err != nil {
		t.Fatal(err)
	}
	if acc, _, err := seed1.SetConnect(svc); err != nil || !acc.Accepted() {
		t.Fatalf("service-only connect: %v %+v", err, acc.Condition)
	}
	want := udnkit.Reach{Why: "ClusterNetworkConnect colored-enterprise (ClusterIPServiceNetwork only)", Via: "colored-enterprise"}
	if got, err := seed1.Reach("green_green-network", "blue_blue-network"); err != nil || got != want {
		t.Errorf("service-only: %+v, %v; want %+v", got, err, want)
	}
	if _, err := seed1.Reach("blue_blue-network", "nope"); !errors.Is(err, udnkit.ErrNotFound) {
		t.Errorf("unknown network: %v, want ErrNotFound", err)
	}
}
