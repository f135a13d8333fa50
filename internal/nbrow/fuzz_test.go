package nbrow

import (
	"net/netip"
	"testing"
)

// FuzzParseIP checks that every address or prefix ParseIP accepts is
// written back (IPString) in a form it parses to the same prefix.
func FuzzParseIP(f *testing.F) {
	for _, s := range []string{"10.0.0.1", "10.0.0.0/24", "fd00::1", "fd00::/64", "0.0.0.0/0", "1.2.3.4/32", "::/0", "x", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ParseIP(s)
		if err != nil || !p.IsValid() {
			return
		}
		q, err := ParseIP(IPString(p))
		if err != nil || q != p {
			t.Fatalf("ParseIP(%q) = %v, written %q, read back %v (%v)", s, p, IPString(p), q, err)
		}
	})
}

// FuzzParseAP checks the load balancer VIP and backend spelling round trip.
func FuzzParseAP(f *testing.F) {
	for _, s := range []string{"10.96.0.10:53", "10.96.0.10", "[fd00::10]:443", "fd00::10", "[fd00::1]", "1.2.3.4:0", "x:1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ap, err := ParseAP(s)
		if err != nil {
			return
		}
		back, err := ParseAP(APString(ap))
		if err != nil || back != ap {
			t.Fatalf("ParseAP(%q) = %v, written %q, read back %v (%v)", s, ap, APString(ap), back, err)
		}
		if !ap.Addr().IsValid() {
			t.Fatalf("ParseAP(%q) accepted an invalid address", s)
		}
		_ = netip.AddrPort{}
	})
}

// FuzzOwner checks that external_ids written for an owner read back as it.
func FuzzOwner(f *testing.F) {
	f.Add("", "ns_blue", "Layer3", "Primary", "node1")
	f.Add("udnkit-topology", "n", "layer2", "x", "")
	f.Add("pods", "n", "layer3", "primary", "n1")
	f.Fuzz(func(t *testing.T, ctl, network, topo, role, node string) {
		ids := map[string]string{ExtNetwork: network, ExtTopology: topo, ExtRole: role, ExtNode: node}
		if ctl != "" {
			ids[ExtController] = ctl
		}
		o, ok := OwnerOf(ids)
		if ok != (network != "") {
			t.Fatalf("OwnerOf(%v) owned = %v", ids, ok)
		}
		if !ok {
			return
		}
		for _, v := range []string{"layer2", "layer3", "localnet", "primary", "secondary"} {
			if (string(o.Topology) == v && !o.Topology.Valid()) || (string(o.Role) == v && !o.Role.Valid()) {
				return // an invalid value spelled like a valid one reads back valid
			}
		}
		o2, ok := OwnerOf(OwnerIDs(o))
		if !ok || o2 != o {
			t.Fatalf("owner %+v written %v reads back %+v", o, OwnerIDs(o), o2)
		}
	})
}
