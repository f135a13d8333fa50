package nbctl_test

import (
	"net/netip"

	"github.com/udnkit/udnkit/topology"
)

// The Meter and Meter_Band kinds, an ACL that logs through a meter and
// rows with external_ids beyond the owner's (as the policy controller
// writes them) go through TestRealEveryKind: created, observed, synced
// again and removed on a real NB through ovnnb, the ovn-nbctl script and
// ovnnb with its monitor.
func init() {
	moreKinds = append(moreKinds, func(own topology.Owner) []topology.Object {
		ids := topology.NewOptions("k8s.ovn.org/owner-type", "NetworkPolicy", "k8s.ovn.org/name", "ns:np",
			"k8s.ovn.org/id", "ns_every-network-controller:NetworkPolicy:ns:np")
		return []topology.Object{
			topology.Meter{Owner: own, Name: "ns_every_meter", Unit: "pktps", Fair: true},
			topology.MeterBand{Owner: own, Meter: "ns_every_meter", Action: "drop", Rate: 20},
			topology.MeterBand{Owner: own, Meter: "ns_every_meter", Action: "drop", Rate: 1000, BurstSize: 100},
			topology.Meter{Owner: own, Name: "ns_every_meter2", Unit: "kbps"},
			topology.MeterBand{Owner: own, Meter: "ns_every_meter2", Action: "drop", Rate: 8},
			topology.PortGroup{Owner: own, Name: "ns_every_pg2", Ports: []string{"ns_every_pod"}, ExternalIDs: ids},
			topology.AddressSet{Owner: own, Name: "ns_every_as2", Addresses: []netip.Prefix{netip.MustParsePrefix("10.9.0.6/32")},
				ExternalIDs: topology.NewOptions("ip-family", "v4")},
			topology.ACL{Owner: own, PortGroup: "ns_every_pg2", Name: "NP:ns:np:Ingress:0", Tier: 2, Direction: topology.ACLToLport,
				Priority: 1001, Match: "outport == @ns_every_pg2 && ip4.src == $ns_every_as2", Action: topology.ACLAllowRelated,
				Log: true, Severity: topology.SeverityNotice, Meter: "ns_every_meter", ExternalIDs: ids},
		}
	})
}
