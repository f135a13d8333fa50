package netconf

import (
	"errors"
	"net/netip"
	"slices"
	"testing"

	ipamclaims "github.com/k8snetworkplumbingwg/ipamclaims/pkg/crd/ipamclaims/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/udnkit/udnkit/ipam"
)

func TestRecordedIPAMClaimRestores(t *testing.T) {
	pods, err := ipam.NewPodIPAllocator([]netip.Prefix{netip.MustParsePrefix("10.100.200.0/24")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	claims := ipam.NewClaimAllocator("ns1_vmnet", pods)
	claim := &ipamclaims.IPAMClaim{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns1", Name: "vm-a.pod"},
		Spec:       ipamclaims.IPAMClaimSpec{Network: "ns1_vmnet", Interface: "pod16367aacb67"},
		Status:     ipamclaims.IPAMClaimStatus{IPs: []string{"10.100.200.7/24"}},
	}
	rc := RecordedIPAMClaim(claim)
	if rc.Key != (ipam.ClaimKey{Namespace: "ns1", Name: "vm-a.pod"}) || rc.Network != "ns1_vmnet" {
		t.Fatalf("RecordedIPAMClaim = %+v", rc)
	}
	claim.Status.IPs[0] = "changed"
	if !slices.Equal(rc.IPs, []string{"10.100.200.7/24"}) {
		t.Fatalf("the record shares the claim's status slice: %v", rc.IPs)
	}
	got, err := claims.Restore(rc)
	if err != nil || len(got) != 1 || got[0] != netip.MustParsePrefix("10.100.200.7/24") {
		t.Fatalf("Restore = %v, %v", got, err)
	}
	if _, err := claims.Restore(RecordedIPAMClaim(nil)); !errors.Is(err, ipam.ErrInvalid) {
		t.Fatalf("Restore(nil claim) = %v, want ErrInvalid", err)
	}
}
