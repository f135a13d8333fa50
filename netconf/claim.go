package netconf

import (
	ipamclaims "github.com/k8snetworkplumbingwg/ipamclaims/pkg/crd/ipamclaims/v1alpha1"

	"github.com/udnkit/udnkit/ipam"
)

// RecordedIPAMClaim returns what an IPAMClaim records of its addresses, for
// ipam.ClaimAllocator.Restore after a restart. A nil claim gives the zero
// value, which Restore refuses as belonging to no network.
func RecordedIPAMClaim(claim *ipamclaims.IPAMClaim) ipam.RecordedClaim {
	if claim == nil {
		return ipam.RecordedClaim{}
	}
	return ipam.RecordedClaim{
		Key:     ipam.ClaimKey{Namespace: claim.Namespace, Name: claim.Name},
		Network: claim.Spec.Network,
		IPs:     append([]string(nil), claim.Status.IPs...),
	}
}
