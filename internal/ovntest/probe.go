package ovntest

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/net/icmp"
	"golang.org/x/net/ipv4"
	"golang.org/x/net/ipv6"
)

// Echo is a TCP server in a namespace that answers every connection with
// one line: its namespace's name (Netns.String). Ask reads it, so a test
// sees which of two pods with one address answered.
type Echo struct {
	l        net.Listener
	name     string
	accepted atomic.Int64
	wg       sync.WaitGroup
}

// Listen starts an Echo on addr in ns. Close it.
func Listen(ns Netns, addr netip.AddrPort) (*Echo, error) {
	e := &Echo{name: ns.String()}
	if err := ns.In(func() (err error) {
		e.l, err = net.Listen("tcp", addr.String())
		return err
	}); err != nil {
		return nil, fmt.Errorf("%s: listen on %s: %w", ns, addr, err)
	}
	e.wg.Add(1)
	go func() {
		defer e.wg.Done()
		for {
			conn, err := e.l.Accept()
			if err != nil {
				return
			}
			e.accepted.Add(1)
			_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
			_, _ = conn.Write([]byte(e.name + "\n"))
			conn.Close()
		}
	}()
	return e, nil
}

// Accepted returns how many connections the Echo accepted.
func (e *Echo) Accepted() int { return int(e.accepted.Load()) }

// Close stops the Echo.
func (e *Echo) Close() error {
	err := e.l.Close()
	e.wg.Wait()
	return err
}

// Ask connects from ns to addr and returns the line the server answered
// (an Echo's name), without its newline. timeout bounds the connection.
func Ask(ctx context.Context, from Netns, to netip.AddrPort, timeout time.Duration) (string, error) {
	var got string
	err := from.In(func() error {
		d := net.Dialer{Timeout: timeout}
		conn, err := d.DialContext(ctx, "tcp", to.String())
		if err != nil {
			return err
		}
		defer conn.Close()
		_ = conn.SetDeadline(time.Now().Add(timeout))
		line, err := bufio.NewReader(conn).ReadString('\n')
		got = strings.TrimSuffix(line, "\n")
		if err != nil {
			return fmt.Errorf("read %q: %w", line, err)
		}
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("TCP from %s to %s: %w", from, to, err)
	}
	return got, nil
}

// Ping sends ICMP echo requests from ns to addr, one a second, until a
// reply with the request's identifier, sequence and payload comes back
// from addr (nil) or ctx ends (an error saying how many went unanswered).
// It needs root: the socket is raw.
func Ping(ctx context.Context, from Netns, to netip.Addr) error {
	network, proto, request := "ip4:icmp", 1, icmp.Type(ipv4.ICMPTypeEcho)
	if to.Is6() && !to.Is4In6() {
		network, proto, request = "ip6:ipv6-icmp", 58, ipv6.ICMPTypeEchoRequest
	}
	var conn *icmp.PacketConn
	if err := from.In(func() (err error) {
		conn, err = icmp.ListenPacket(network, "")
		return err
	}); err != nil {
		return fmt.Errorf("ping from %s: %w", from, err)
	}
	defer conn.Close()
	id := os.Getpid() & 0xffff
	payload := []byte("udnkit " + from.String())
	for seq := 1; ; seq++ {
		msg := icmp.Message{Type: request, Body: &icmp.Echo{ID: id, Seq: seq, Data: payload}}
		b, err := msg.Marshal(nil)
		if err != nil {
			return err
		}
		if _, err := conn.WriteTo(b, &net.IPAddr{IP: to.AsSlice()}); err != nil {
			return fmt.Errorf("ping from %s to %s: %w", from, to, err)
		}
		deadline := time.Now().Add(time.Second)
		if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
			deadline = d
		}
		_ = conn.SetReadDeadline(deadline)
		for {
			ok, err := echoReply(conn, proto, to, id, seq, payload)
			if ok {
				return nil
			}
			if errors.Is(err, os.ErrDeadlineExceeded) {
				break
			}
			if err != nil {
				return fmt.Errorf("ping from %s to %s: %w", from, to, err)
			}
		}
		if ctx.Err() != nil {
			return fmt.Errorf("ping from %s to %s: %d echo requests unanswered: %w", from, to, seq, ctx.Err())
		}
	}
}

// echoReply reads one packet and reports whether it is the reply to echo
// request id/seq sent to addr.
func echoReply(conn *icmp.PacketConn, proto int, addr netip.Addr, id, seq int, payload []byte) (bool, error) {
	buf := make([]byte, 1500)
	n, peer, err := conn.ReadFrom(buf)
	if err != nil {
		return false, err
	}
	src, ok := netip.AddrFromSlice(peer.(*net.IPAddr).IP)
	return ok && src.Unmap() == addr.Unmap() && isEchoReply(proto, buf[:n], id, seq, payload), nil
}

// isEchoReply reports whether b, an ICMP (proto 1) or ICMPv6 (58) message,
// is the echo reply to request id/seq carrying payload. Any other packet
// of the namespace is not, whatever its bytes.
func isEchoReply(proto int, b []byte, id, seq int, payload []byte) bool {
	m, err := icmp.ParseMessage(proto, b)
	if err != nil {
		return false
	}
	echo, ok := m.Body.(*icmp.Echo)
	if !ok || m.Type != ipv4.ICMPTypeEchoReply && m.Type != ipv6.ICMPTypeEchoReply {
		return false
	}
	return echo.ID == id && echo.Seq == seq && bytes.Equal(echo.Data, payload)
}
