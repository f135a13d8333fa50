package ovnnb

import (
	"encoding/json"
	"net/netip"
	"testing"
	"unicode/utf8"
)

// FuzzParseIP checks that every address or prefix parseIP accepts is
// written back (ipString) in a form it parses to the same prefix.
func FuzzParseIP(f *testing.F) {
	for _, s := range []string{"10.0.0.1", "10.0.0.0/24", "fd00::1", "fd00::/64", "0.0.0.0/0", "1.2.3.4/32", "::/0", "x", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := parseIP(s)
		if err != nil || !p.IsValid() {
			return
		}
		q, err := parseIP(ipString(p))
		if err != nil || q != p {
			t.Fatalf("parseIP(%q) = %v, written %q, read back %v (%v)", s, p, ipString(p), q, err)
		}
	})
}

// FuzzParseAP checks the load balancer VIP and backend spelling round trip.
func FuzzParseAP(f *testing.F) {
	for _, s := range []string{"10.96.0.10:53", "10.96.0.10", "[fd00::10]:443", "fd00::10", "[fd00::1]", "1.2.3.4:0", "x:1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ap, err := parseAP(s)
		if err != nil {
			return
		}
		back, err := parseAP(apString(ap))
		if err != nil || back != ap {
			t.Fatalf("parseAP(%q) = %v, written %q, read back %v (%v)", s, ap, apString(ap), back, err)
		}
		if !ap.Addr().IsValid() {
			t.Fatalf("parseAP(%q) accepted an invalid address", s)
		}
		_ = netip.AddrPort{}
	})
}

// FuzzOwner checks that external_ids written for an owner read back as it.
func FuzzOwner(f *testing.F) {
	f.Add("ns_blue", "Layer3", "Primary", "node1")
	f.Add("n", "layer2", "x", "")
	f.Fuzz(func(t *testing.T, network, topo, role, node string) {
		ids := map[string]string{ExtNetwork: network, ExtTopology: topo, ExtRole: role, ExtNode: node}
		o, ok := ownerOf(ids)
		if ok != (network != "") {
			t.Fatalf("ownerOf(%v) owned = %v", ids, ok)
		}
		if !ok {
			return
		}
		for _, v := range []string{"layer2", "layer3", "localnet", "primary", "secondary"} {
			if (string(o.Topology) == v && !o.Topology.Valid()) || (string(o.Role) == v && !o.Role.Valid()) {
				return // an invalid value spelled like a valid one reads back valid
			}
		}
		o2, ok := ownerOf(ownerIDs(o))
		if !ok || o2 != o {
			t.Fatalf("owner %+v written %v reads back %+v", o, ownerIDs(o), o2)
		}
	})
}

// FuzzAppendString checks the JSON string encoder used for rows: valid JSON
// always, the same string back for valid UTF-8.
func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "a", `"q"`, `\`, "\x00\x1f\x7f", "ünï", "\xff", "line\nbreak"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b := appendString(nil, s)
		var back string
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatalf("appendString(%q) = %s: invalid JSON: %v", s, b, err)
		}
		if utf8.ValidString(s) && back != s {
			t.Fatalf("appendString(%q) = %s reads back as %q", s, b, back)
		}
	})
}
