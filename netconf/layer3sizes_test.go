package netconf

import (
	"net/netip"
	"strconv"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/udnkit/udnkit/ipam"
)

// referencePodsPerNode is how many pods a Layer3 host subnet /host holds
// as the reference allocates it (OVN-Kubernetes 8871cd9): the IPAM range
// leaves out the network address and, for IPv4, the broadcast
// (pkg/allocator/ip/allocator.go:102-121 NewAllocatorCIDRRange); the node
// switch excludes the gateway (.1, the cluster router's rtos- port) and the
// management port (.2) (base_network_controller.go:548-561, exclude_ips).
// An IPv4 /31 or /32 host subnet has no room even for the gateway and the
// management port: none.
func referencePodsPerNode(v6 bool, host int) uint64 {
	bits := 32
	if v6 {
		bits = 128
	}
	if bits-host >= 63 {
		return 1 << 62 // plenty
	}
	size := uint64(1) << (bits - host)
	reserved := uint64(3) // network, gateway, management port
	if !v6 {
		reserved++ // broadcast
	}
	if size <= reserved {
		return 0
	}
	return size - reserved
}

// referenceCRDAccepts says whether the reference's CRD admits a Layer3
// subnet /cluster with hostSubnet host (0: unset): shared.go:86-87 at
// 8871cd9, hostSubnet longer than the CIDR and, for IPv4, under 32;
// Minimum 1, Maximum 127 (shared.go:97-98). Its parser then takes IPv6
// host subnets of /64 only (pkg/config/utils.go:103) and defaults an unset
// one to /24 or /64, which must be longer than the CIDR (:121).
func referenceCRDAccepts(v6 bool, cluster, host int) (crd, parser bool) {
	eff := host
	if host == 0 {
		eff = 24
		if v6 {
			eff = 64
		}
	}
	crd = host == 0 || host > cluster && host >= 1 && host <= 127 && (v6 || host < 32)
	parser = crd && eff > cluster && (!v6 || eff == 64) && (v6 || eff <= 32)
	return crd, parser
}

// TestLayer3SubnetSizes walks every IPv4 cluster subnet length with every
// host subnet length (and the default), and the IPv6 ones around /64: a
// Layer3 network validates exactly when the reference's CRD and parser
// accept it and a node's host subnet holds at least one pod as the
// reference allocates it, and then it plans, holds a pod on a node, and
// holds as many as the reference's allocation gives. The reference's CRD
// admits IPv4 host subnets /30 and /31 (and its parser /30 and /31 too),
// which hold no pod: udnkit refuses them, naming spec.subnets[0]. So a
// Layer3 /29 or /30 cluster subnet never validates (issue 22): with the
// default /24 its host subnet is not longer than it, and a /30 or /31 host
// subnet holds no pod.
func TestLayer3SubnetSizes(t *testing.T) {
	type tc struct {
		v6            bool
		cluster, host int // host 0: unset
	}
	var cases []tc
	for c := 8; c <= 32; c++ {
		for h := 0; h <= 32; h++ {
			if h == 0 || h > c-2 { // every length around the cluster subnet's
				cases = append(cases, tc{false, c, h})
			}
		}
	}
	for _, c := range []int{32, 47, 48, 63, 64, 65, 120, 127, 128} {
		for _, h := range []int{0, c - 1, c, c + 1, 63, 64, 65, 120, 127, 128} {
			if h >= 0 && h <= 128 {
				cases = append(cases, tc{true, c, h})
			}
		}
	}
	valid := map[string]int{}
	for _, tc := range cases {
		base := "10.0.0.0"
		if tc.v6 {
			base = "fd00::"
		}
		subnet := base + "/" + strconv.Itoa(tc.cluster)
		if tc.host != 0 {
			subnet += "/" + strconv.Itoa(tc.host)
		}
		eff := tc.host
		if eff == 0 {
			eff = map[bool]int{false: DefaultHostPrefixV4, true: DefaultHostPrefixV6}[tc.v6]
		}
		_, parser := referenceCRDAccepts(tc.v6, tc.cluster, tc.host)
		want := parser && referencePodsPerNode(tc.v6, eff) >= 1
		for _, role := range []Role{RolePrimary, RoleSecondary} {
			u := &UserDefinedNetwork{ObjectMeta: metav1.ObjectMeta{Name: "n", Namespace: "ns"},
				Spec: UserDefinedNetworkSpec{Topology: TopologyLayer3, Role: role, Subnets: []string{subnet}}}
			n, err := NetworkFromUDN(u)
			if (err == nil) != want {
				t.Errorf("%s %s: %v, want valid %v", role, subnet, err, want)
				continue
			}
			if err != nil {
				if errs := ValidateUDN(u); len(errs) == 0 || errs[0].Field != "spec.subnets[0]" {
					t.Errorf("%s %s: %v, want an error at spec.subnets[0]", role, subnet, errs)
				}
				continue
			}
			valid[role.String()]++
			checkPlansWithPod(t, n)
			// As many pods as the reference's allocation gives (counted
			// where the pool is small enough to count).
			if want := referencePodsPerNode(tc.v6, eff); want <= 1024 {
				pool, err := ipam.NewIPPool(netip.PrefixFrom(n.Subnets[0].CIDR.Addr(), eff))
				if err != nil {
					t.Fatal(err)
				}
				var got uint64
				for ; got <= want; got++ {
					if _, err := pool.Allocate(); err != nil {
						break
					}
				}
				if got != want {
					t.Errorf("%s %s: a node holds %d pods, the reference's allocation %d", role, subnet, got, want)
				}
			}
		}
	}
	// Some of each kind were valid, and the sizes were not.
	if valid["Primary"] != 256 || valid["Primary"] != valid["Secondary"] {
		t.Errorf("valid networks: %v", valid)
	}
	for _, s := range []string{"10.0.0.0/29", "10.0.0.0/30", "10.0.0.0/29/30", "10.0.0.0/29/31", "10.0.0.0/30/31", "10.0.0.0/16/30", "10.0.0.0/16/31"} {
		u := &UserDefinedNetwork{ObjectMeta: metav1.ObjectMeta{Name: "n", Namespace: "ns"},
			Spec: UserDefinedNetworkSpec{Topology: TopologyLayer3, Role: RolePrimary, Subnets: []string{s}}}
		if errs := ValidateUDN(u); len(errs) == 0 {
			t.Errorf("Layer3 %s validates", s)
		}
	}
}
