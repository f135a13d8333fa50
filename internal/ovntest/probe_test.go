package ovntest

import (
	"testing"

	"golang.org/x/net/icmp"
	"golang.org/x/net/ipv4"
	"golang.org/x/net/ipv6"
)

func echoBytes(tb testing.TB, typ icmp.Type, id, seq int, data []byte) []byte {
	tb.Helper()
	b, err := (&icmp.Message{Type: typ, Body: &icmp.Echo{ID: id, Seq: seq, Data: data}}).Marshal(nil)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// TestIsEchoReply: only the reply to the request sent (its identifier,
// sequence and payload, ICMP or ICMPv6) counts; the request itself (a
// namespace's raw socket sees its own), an earlier reply, another
// payload or a truncated packet do not.
func TestIsEchoReply(t *testing.T) {
	data := []byte("udnkit pod a")
	for _, tc := range []struct {
		name  string
		proto int
		b     []byte
		want  bool
	}{
		{"reply", 1, echoBytes(t, ipv4.ICMPTypeEchoReply, 7, 3, data), true},
		{"ICMPv6 reply", 58, echoBytes(t, ipv6.ICMPTypeEchoReply, 7, 3, data), true},
		{"the request", 1, echoBytes(t, ipv4.ICMPTypeEcho, 7, 3, data), false},
		{"an earlier reply", 1, echoBytes(t, ipv4.ICMPTypeEchoReply, 7, 2, data), false},
		{"another identifier", 1, echoBytes(t, ipv4.ICMPTypeEchoReply, 8, 3, data), false},
		{"another payload", 1, echoBytes(t, ipv4.ICMPTypeEchoReply, 7, 3, []byte("udnkit pod b")), false},
		{"truncated", 1, echoBytes(t, ipv4.ICMPTypeEchoReply, 7, 3, data)[:6], false},
		{"empty", 1, nil, false},
	} {
		if got := isEchoReply(tc.proto, tc.b, 7, 3, data); got != tc.want {
			t.Errorf("%s: isEchoReply = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// FuzzIsEchoReply: any bytes a namespace's raw socket reads are judged
// without a panic, and a reply is recognised only with its own fields.
func FuzzIsEchoReply(f *testing.F) {
	f.Add([]byte{0, 0, 0, 0, 0, 7, 0, 3, 'x'}, 7, 3, []byte("x"))
	f.Add([]byte{129, 0, 0, 0}, 1, 1, []byte(nil))
	f.Fuzz(func(t *testing.T, b []byte, id, seq int, payload []byte) {
		isEchoReply(1, b, id, seq, payload)
		isEchoReply(58, b, id, seq, payload)
		id, seq = id&0xffff, seq&0xffff
		r := echoBytes(t, ipv4.ICMPTypeEchoReply, id, seq, payload)
		if !isEchoReply(1, r, id, seq, payload) {
			t.Fatalf("reply %d/%d not recognised", id, seq)
		}
		if isEchoReply(1, r, id, seq^1, payload) {
			t.Fatalf("reply %d/%d taken for %d", id, seq, seq^1)
		}
	})
}
