package policy

import (
	"net/netip"
	"strings"
	"testing"
)

// The reference's expectations, ported. Each case names the reference's
// file and test (paths under go-controller/pkg/), or the fact sheet's line
// (REFERENCE.md, round 3 (e)) where the expectation comes from the code.

// TestReferenceL4Match ports libovsdb/util/acl_test.go TestGetL4Match.
func TestReferenceL4Match(t *testing.T) {
	for _, tc := range []struct {
		name  string
		ports []Port
		want  string
	}{
		{"acl_test.go TestGetL4Match: single tcp port", []Port{{Protocol: TCP, Number: 800}}, "tcp && tcp.dst==800"},
		{"acl_test.go TestGetL4Match: valid individual tcp ports", []Port{{Number: 800}, {Number: 900}, {Number: 1900}}, "tcp && tcp.dst=={800,900,1900}"},
		{"acl_test.go TestGetL4Match: single udp port range", []Port{{Protocol: UDP, Number: 800, EndPort: 850}}, "udp && 800<=udp.dst<=850"},
		{"acl_test.go TestGetL4Match: valid tcp port ranges only", []Port{{Number: 800, EndPort: 850}, {Number: 900, EndPort: 950}, {Number: 1900, EndPort: 2000}},
			"tcp && (800<=tcp.dst<=850 || 900<=tcp.dst<=950 || 1900<=tcp.dst<=2000)"},
		{"acl_test.go TestGetL4Match: valid udp ports and ranges", []Port{{Protocol: UDP, Number: 800}, {Protocol: UDP, Number: 900},
			{Protocol: UDP, Number: 1900, EndPort: 2000}, {Protocol: UDP, Number: 4900, EndPort: 5000}},
			"udp && (udp.dst=={800,900} || 1900<=udp.dst<=2000 || 4900<=udp.dst<=5000)"},
		{"acl_test.go TestGetL4Match: just sctp", []Port{{Protocol: SCTP}}, "sctp"},
		{"REFERENCE (e) ports: tcp && tcp.dst=={80,443}", []Port{{Number: 80}, {Number: 443}}, "tcp && tcp.dst=={80,443}"},
		{"REFERENCE (e) ports: mixed", []Port{{Number: 80}, {Number: 443}, {Number: 1000, EndPort: 2000}}, "tcp && (tcp.dst=={80,443} || 1000<=tcp.dst<=2000)"},
		{"REFERENCE (e) ports: a range of one port is the port", []Port{{Number: 80, EndPort: 80}}, "tcp && tcp.dst==80"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := numberedL4(tc.ports)
			if len(got) != 1 || got[0].match != tc.want {
				t.Errorf("got %+v, want %q", got, tc.want)
			}
		})
	}
	// acl_test.go TestGetL4Match "empty port policies": no protocol at all.
	if got := numberedL4(nil); len(got) != 0 {
		t.Errorf("no ports: got %+v", got)
	}
	// One ACL per protocol (REFERENCE (e) "one ACL per protocol"), the
	// protocol key as the reference's port-policy-protocol.
	got := numberedL4([]Port{{Protocol: UDP, Number: 53}, {Number: 80}, {Protocol: SCTP, Number: 9}})
	want := []l4Entry{{"sctp", "sctp && sctp.dst==9"}, {"tcp", "tcp && tcp.dst==80"}, {"udp", "udp && udp.dst==53"}}
	if len(got) != len(want) {
		t.Fatalf("per protocol: got %+v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("per protocol [%d]: got %+v, want %+v", i, got[i], want[i])
		}
	}
}

// TestReferenceNamedPorts ports libovsdb/util/acl_test.go
// TestGetL3L4MatchesFromNamedPorts: the per-protocol matches of resolved
// named ports.
func TestReferenceNamedPorts(t *testing.T) {
	tgt := func(name, pod string, proto Protocol, ip string, port int32) namedTarget {
		return namedTarget{name: name, pod: pod, protocol: proto, addr: netip.MustParseAddr(ip), number: port}
	}
	for _, tc := range []struct {
		name    string
		targets []namedTarget
		want    map[string]string
	}{
		{"nil namedPort policies", nil, map[string]string{}},
		{"single namedPort and single v4 namedPort representation",
			[]namedTarget{tgt("web", "a", SCTP, "10.128.1.4", 35356)},
			map[string]string{"sctp-namedPort": "sctp && ((ip4.dst == 10.128.1.4 && sctp.dst == 35356))"}},
		{"single namedPort and multiple v4 namedPort representations",
			[]namedTarget{tgt("web", "a", TCP, "10.128.1.4", 35356), tgt("web", "b", TCP, "10.128.1.5", 35354)},
			map[string]string{"tcp-namedPort": "tcp && ((ip4.dst == 10.128.1.4 && tcp.dst == 35356) || (ip4.dst == 10.128.1.5 && tcp.dst == 35354))"}},
		{"single namedPort and multiple v4 & v6 namedPort representations",
			[]namedTarget{tgt("web", "a", TCP, "10.128.1.4", 35356), tgt("web", "a", TCP, "fe00:10:128:1::4", 35356),
				tgt("web", "b", SCTP, "10.128.1.5", 35354), tgt("web", "b", SCTP, "fe00:10:128:1::5", 35354)},
			map[string]string{
				"tcp-namedPort":  "tcp && ((ip4.dst == 10.128.1.4 && tcp.dst == 35356) || (ip6.dst == fe00:10:128:1::4 && tcp.dst == 35356))",
				"sctp-namedPort": "sctp && ((ip4.dst == 10.128.1.5 && sctp.dst == 35354) || (ip6.dst == fe00:10:128:1::5 && sctp.dst == 35354))"}},
		{"multiple namedPorts and multiple v4 namedPort representations per port; same protocol",
			[]namedTarget{tgt("web123", "c", TCP, "10.128.1.3", 9999), tgt("web123", "d", TCP, "10.128.1.5", 9998),
				tgt("web", "a", TCP, "10.128.1.4", 35356), tgt("web", "b", TCP, "10.128.1.5", 35354)},
			map[string]string{"tcp-namedPort": "tcp && ((ip4.dst == 10.128.1.4 && tcp.dst == 35356) || (ip4.dst == 10.128.1.5 && tcp.dst == 35354) || (ip4.dst == 10.128.1.3 && tcp.dst == 9999) || (ip4.dst == 10.128.1.5 && tcp.dst == 9998))"}},
		{"multiple namedPorts and multiple v4 & v6 namedPort representations per port; all protocols",
			[]namedTarget{
				tgt("web", "a", TCP, "10.128.1.4", 35356), tgt("web", "b", TCP, "10.128.1.5", 35356),
				tgt("web", "c", SCTP, "10.128.1.5", 3535), tgt("web", "c", SCTP, "fe00:10:128:1::5", 3535),
				tgt("web", "d", UDP, "10.128.1.4", 53), tgt("web", "d", UDP, "fe00:10:128:1::4", 53),
				tgt("web123", "e", TCP, "10.128.1.3", 9999), tgt("web123", "e", TCP, "fe00:10:128:1::3", 9999),
				tgt("web123", "f", SCTP, "10.128.1.5", 35354), tgt("web123", "f", SCTP, "fe00:10:128:1::5", 35354),
				tgt("web123", "g", UDP, "10.128.1.4", 5353), tgt("web123", "g", UDP, "fe00:10:128:1::4", 5353)},
			map[string]string{
				"tcp-namedPort":  "tcp && ((ip4.dst == 10.128.1.4 && tcp.dst == 35356) || (ip4.dst == 10.128.1.5 && tcp.dst == 35356) || (ip4.dst == 10.128.1.3 && tcp.dst == 9999) || (ip6.dst == fe00:10:128:1::3 && tcp.dst == 9999))",
				"sctp-namedPort": "sctp && ((ip4.dst == 10.128.1.5 && sctp.dst == 3535) || (ip6.dst == fe00:10:128:1::5 && sctp.dst == 3535) || (ip4.dst == 10.128.1.5 && sctp.dst == 35354) || (ip6.dst == fe00:10:128:1::5 && sctp.dst == 35354))",
				"udp-namedPort":  "udp && ((ip4.dst == 10.128.1.4 && udp.dst == 53) || (ip6.dst == fe00:10:128:1::4 && udp.dst == 53) || (ip4.dst == 10.128.1.4 && udp.dst == 5353) || (ip6.dst == fe00:10:128:1::4 && udp.dst == 5353))"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := map[string]string{}
			for _, e := range namedL4(tc.targets) {
				got[e.protocol] = e.match
			}
			if len(got) != len(tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
			for k, w := range tc.want {
				if got[k] != w {
					t.Errorf("%s:\n got %q\nwant %q", k, got[k], w)
				}
			}
		})
	}
}

// TestReferenceIPBlockMatch ports the fact sheet's ipBlock forms (REFERENCE
// (e), GP:177-211: one ACL for all blocks; ovn/gress_policy_test.go
// TestGetMatchFromIPBlock's inputs; the CIDR masked as its newer version
// expects).
func TestReferenceIPBlockMatch(t *testing.T) {
	blk := func(cidr string, except ...string) *IPBlock {
		b := &IPBlock{CIDR: netip.MustParsePrefix(cidr)}
		for _, e := range except {
			b.Except = append(b.Except, netip.MustParsePrefix(e))
		}
		return b
	}
	for _, tc := range []struct {
		name   string
		dir    PolicyType
		blocks []*IPBlock
		want   string
	}{
		{"IPv4 only no except", Ingress, []*IPBlock{blk("0.0.0.0/0")}, "ip4.src == 0.0.0.0/0"},
		{"multiple IPv4 only no except", Ingress, []*IPBlock{blk("0.0.0.0/0"), blk("10.1.0.0/16")}, "(ip4.src == 0.0.0.0/0 || ip4.src == 10.1.0.0/16)"},
		{"IPv6 only no except (masked, as the reference's newer test expects)", Ingress, []*IPBlock{blk("fd00:10:244:3::49/32")}, "ip6.src == fd00:10::/32"},
		{"mixed IPv4 and IPv6 no except", Ingress, []*IPBlock{blk("::/0"), blk("0.0.0.0/0")}, "(ip6.src == ::/0 || ip4.src == 0.0.0.0/0)"},
		{"IPv4 only with except", Ingress, []*IPBlock{blk("0.0.0.0/0", "10.1.0.0/16")}, "(ip4.src == 0.0.0.0/0 && ip4.src != {10.1.0.0/16})"},
		{"multiple IPv4 with except", Ingress, []*IPBlock{blk("0.0.0.0/0", "10.1.0.0/16"), blk("10.1.0.0/16")},
			"((ip4.src == 0.0.0.0/0 && ip4.src != {10.1.0.0/16}) || ip4.src == 10.1.0.0/16)"},
		{"REFERENCE (e): two excepts", Ingress, []*IPBlock{blk("10.0.0.0/8", "10.1.0.0/16", "10.2.0.0/16")},
			"(ip4.src == 10.0.0.0/8 && ip4.src != {10.1.0.0/16, 10.2.0.0/16})"},
		{"egress is dst", Egress, []*IPBlock{blk("10.0.0.0/8")}, "ip4.dst == 10.0.0.0/8"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := ipBlockMatch(tc.dir, tc.blocks); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// TestReferenceNames ports the fact sheet's hashed names and ACL names
// (REFERENCE (e): util/util.go:290-299, libovsdb/util/acl.go:67-92).
func TestReferenceNames(t *testing.T) {
	if got := hashName("default-network-controller:NetworkPolicy:ns1:np1"); got != "a3128740908762970825" {
		t.Errorf("default network port group: %s", got)
	}
	if got := PortGroupName("ns1_udn1", "ns1", "np1"); got != "a6720084100384672865" {
		t.Errorf("ns1_udn1 port group: %s", got)
	}
	for _, tc := range []struct{ got, want string }{
		{ruleACLName("ns1", "np1", Ingress, 0), "NP:ns1:np1:Ingress:0"},
		{ruleACLName("ns1", "np1", Egress, 3), "NP:ns1:np1:Egress:3"},
		{denyACLName("ns1", Ingress), "NP:ns1:Ingress"},
		{denyACLName("ns1", Egress), "NP:ns1:Egress"},
		{ruleACLName(strings.Repeat("n", 40), strings.Repeat("p", 40), Ingress, 0), "NP:" + strings.Repeat("n", 40) + ":" + strings.Repeat("p", 19)},
	} {
		if tc.got != tc.want {
			t.Errorf("ACL name %q, want %q", tc.got, tc.want)
		}
		if len(tc.got) > 63 {
			t.Errorf("ACL name %q longer than 63", tc.got)
		}
	}
	// Address sets hash the ids with the family (address_set.go:28-29,270-279).
	if AddressSetName("n", "k", false) == AddressSetName("n", "k", true) {
		t.Error("v4 and v6 address sets share a name")
	}
	if got, want := AddressSetName("ns1_udn1", "ns1_LS{}", false), hashName("ns1_udn1-network-controller:PodSelector:ns1_LS{}:v4"); got != want {
		t.Errorf("address set %s, want %s", got, want)
	}
}

// TestReferenceSelectorKeys ports the fact sheet's address-set keys
// (addressset_manager.go:995-1061) and the short selector form.
func TestReferenceSelectorKeys(t *testing.T) {
	sel := func(kv ...string) *Selector {
		s := &Selector{MatchLabels: Labels{}}
		for i := 0; i < len(kv); i += 2 {
			s.MatchLabels[kv[i]] = kv[i+1]
		}
		return s
	}
	for _, tc := range []struct {
		name string
		peer Peer
		want string
	}{
		{"pod selector", Peer{PodSelector: sel("app", "db")}, "ns1_LS{ML:{app: db,},}"},
		{"namespace selector alone", Peer{NamespaceSelector: sel("team", "a")}, "LS{ML:{team: a,},}_LS{}_LNM"},
		{"both", Peer{NamespaceSelector: sel("team", "a"), PodSelector: sel("app", "db")}, "LS{ML:{team: a,},}_LS{ML:{app: db,},}"},
		{"empty pod selector", Peer{PodSelector: &Selector{}}, "ns1_LS{}"},
		{"labels sorted", Peer{PodSelector: sel("b", "2", "a", "1")}, "ns1_LS{ML:{a: 1,b: 2,},}"},
		{"expressions sorted with values", Peer{PodSelector: &Selector{MatchExpressions: []Requirement{
			{Key: "z", Operator: OpExists}, {Key: "a", Operator: OpIn, Values: []string{"y", "x"}}}}},
			"ns1_LS{ME:{LSR{Key:a,Operator:In,Values:[x y],},LSR{Key:z,Operator:Exists,Values:[],}},}"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := peerKey("ns1", &tc.peer); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// TestReferenceAddressSetMatch ports the L3 matches of selectors and of
// empty rules (REFERENCE (e), GP:133-164; ovn/policy_test.go "computes
// match strings from address sets correctly").
func TestReferenceAddressSetMatch(t *testing.T) {
	for _, tc := range []struct {
		name   string
		dir    PolicyType
		v4, v6 []string
		want   string
	}{
		{"one v4 set", Ingress, []string{"a1"}, nil, "ip4.src == {$a1}"},
		{"two v4 sets sorted", Ingress, []string{"a2", "a1"}, nil, "ip4.src == {$a1, $a2}"},
		{"egress", Egress, []string{"a1"}, nil, "ip4.dst == {$a1}"},
		{"v6 only", Ingress, nil, []string{"a3"}, "ip6.src == {$a3}"},
		{"dual stack", Ingress, []string{"a1", "a2"}, []string{"a3", "a4"}, "(ip4.src == {$a1, $a2} || ip6.src == {$a3, $a4})"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := addressSetMatch(tc.dir, tc.v4, tc.v6); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
	for _, tc := range []struct {
		f    families
		want string
	}{{families{v4: true}, "ip4"}, {families{v6: true}, "ip6"}, {families{true, true}, "(ip4 || ip6)"}} {
		if got := tc.f.allIPs(); got != tc.want {
			t.Errorf("empty rule %+v: %q, want %q", tc.f, got, tc.want)
		}
	}
	if got := joinMatch("ip4", "", "outport == @a1"); got != "ip4 && outport == @a1" {
		t.Errorf("no L4: %q", got)
	}
	if got := joinMatch("ip4.dst == {$a2}", "tcp && tcp.dst==80", "inport == @a1"); got != "ip4.dst == {$a2} && tcp && tcp.dst==80 && inport == @a1" {
		t.Errorf("with L4: %q", got)
	}
}
