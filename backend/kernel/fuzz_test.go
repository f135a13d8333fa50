package kernel

import (
	"net/netip"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/nftables"

	"github.com/udnkit/udnkit/vrf"
)

// FuzzElements: every element encode accepts decodes back to itself, and
// decode and verdictChain take any bytes without panicking.
func FuzzElements(f *testing.F) {
	f.Add([]byte{10, 0, 0, 5}, "tcp", uint16(8080), "udn-mark-0x1001", []byte{8, 0, 1, 0, 0, 0, 0, 3})
	f.Fuzz(func(t *testing.T, a []byte, proto string, port uint16, jump string, raw []byte) {
		addr, _ := netip.AddrFromSlice(a)
		e := vrf.Element{Addr: addr, Protocol: vrf.Protocol(proto), Port: port, Jump: jump}
		for _, key := range [][]vrf.DataType{
			{vrf.TypeIPv4Addr}, {vrf.TypeIPv6Addr}, {vrf.TypeInetProto, vrf.TypeInetService},
			{vrf.TypeIPv4Addr, vrf.TypeInetProto, vrf.TypeInetService}, {vrf.TypeIPv6Addr, vrf.TypeInetProto, vrf.TypeInetService},
		} {
			want := vrf.Element{Jump: jump}
			for _, k := range key {
				switch k {
				case vrf.TypeIPv4Addr, vrf.TypeIPv6Addr:
					want.Addr = addr
				case vrf.TypeInetProto:
					want.Protocol = e.Protocol
				case vrf.TypeInetService:
					want.Port = port
				}
			}
			els, err := encode("s", key, []vrf.Element{want})
			if err != nil {
				continue
			}
			if jump != "" {
				els[0].Val = verdictAttrs(jump)
			}
			got, err := decode(key, els)
			if err != nil || len(got) != 1 || jump != "" && strings.ContainsRune(jump, 0) {
				continue
			}
			if got[0] != want {
				t.Fatalf("key %v: %+v decodes as %+v", key, want, got[0])
			}
		}
		decode([]vrf.DataType{vrf.TypeIPv6Addr, vrf.TypeInetProto, vrf.TypeInetService}, []nftables.SetElement{{Key: raw, Val: raw}})
		verdictChain(raw)
	})
}

// verdictAttrs is the kernel's encoding of "jump chain" as the library
// returns it in SetElement.Val.
func verdictAttrs(chain string) []byte {
	attr := func(typ uint16, v []byte) []byte {
		b := []byte{byte(4 + len(v)), byte((4 + len(v)) >> 8), byte(typ), byte(typ >> 8)}
		b = append(b, v...)
		for len(b)%4 != 0 {
			b = append(b, 0)
		}
		return b
	}
	return append(attr(1, []byte{0xff, 0xff, 0xff, 0xfd}), attr(2, append([]byte(chain), 0))...)
}

// FuzzRuleComment: a rule's comment fits nftables user data (at most 127
// bytes and the NUL), is valid UTF-8 without '"', and two rules that
// differ never share one.
func FuzzRuleComment(f *testing.F) {
	f.Add("kubelet.slice/kubelet.service", "other", uint64(7))
	f.Fuzz(func(t *testing.T, a, b string, id uint64) {
		ra := vrf.NFTRule{Cgroup: a, Verdict: vrf.Verdict{Kind: vrf.VerdictAccept}}
		rb := vrf.NFTRule{Cgroup: b, Verdict: vrf.Verdict{Kind: vrf.VerdictAccept}}
		ca, cb := ruleComment(ra, id), ruleComment(rb, id)
		for _, c := range []string{ca, cb} {
			if len(c) > maxRuleComment || strings.Contains(c, `"`) || utf8.ValidString(a) && utf8.ValidString(b) && !utf8.ValidString(c) {
				t.Fatalf("comment %q", c)
			}
		}
		if ra.String() != rb.String() && ca == cb {
			t.Fatalf("%q and %q share the comment %q", a, b, ca)
		}
		if got := comment(userComment(ca)); got != strings.TrimRight(ca, "\x00") {
			t.Fatalf("comment(userComment(%q)) = %q", ca, got)
		}
	})
}
