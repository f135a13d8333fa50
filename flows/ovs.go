package flows

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/digitalocean/go-openvswitch/ovs"
)

// OVS returns the flow as a go-openvswitch value: its priority, table,
// cookie, protocol ("ip"/"ipv6"), in_port and the other matches (as
// ovs.FieldMatch, which keeps every field, reg1 and pkt_mark included),
// and its actions. Its MarshalText is an ovs-ofctl flow Open vSwitch
// installs as the same flow as String (the real-OVS tests check that).
func (f Flow) OVS() (*ovs.Flow, error) {
	out := &ovs.Flow{Priority: f.Priority, Table: f.Table, Cookie: Cookie}
	for _, m := range splitTop(f.Match) {
		k, v, ok := strings.Cut(m, "=")
		switch {
		case !ok && (m == "ip" || m == "ipv6"):
			out.Protocol = ovs.Protocol(m)
		case !ok:
			return nil, fmt.Errorf("flow %s: %w: match %q", f.Key(), ErrInvalid, m)
		case k == "in_port" && v == "LOCAL":
			out.InPort = ovs.PortLOCAL
		case k == "in_port":
			p, err := strconv.Atoi(v)
			if err != nil || p <= 0 {
				return nil, fmt.Errorf("flow %s: %w: in_port %q", f.Key(), ErrInvalid, v)
			}
			out.InPort = p
		default:
			out.Matches = append(out.Matches, ovs.FieldMatch(k, v))
		}
	}
	for _, a := range splitTop(f.Actions) {
		act, err := ovsAction(a)
		if err != nil {
			return nil, fmt.Errorf("flow %s: %w", f.Key(), err)
		}
		out.Actions = append(out.Actions, act)
	}
	if len(out.Actions) == 0 {
		return nil, fmt.Errorf("flow %s: %w: no actions", f.Key(), ErrInvalid)
	}
	return out, nil
}

func ovsAction(a string) (ovs.Action, error) {
	switch {
	case a == "drop":
		return ovs.Drop(), nil
	case a == "NORMAL":
		return ovs.Normal(), nil
	case a == "LOCAL" || a == "output:LOCAL":
		return ovs.Local(), nil
	case strings.HasPrefix(a, "ct(") && strings.HasSuffix(a, ")"):
		return ovs.ConnectionTracking(a[len("ct(") : len(a)-1]), nil
	case strings.HasPrefix(a, "output:"):
		p, err := strconv.Atoi(a[len("output:"):])
		if err != nil || p <= 0 {
			return nil, fmt.Errorf("%w: action %q", ErrInvalid, a)
		}
		return ovs.Output(p), nil
	case strings.HasPrefix(a, "set_field:"):
		v, fld, ok := strings.Cut(a[len("set_field:"):], "->")
		if !ok {
			return nil, fmt.Errorf("%w: action %q", ErrInvalid, a)
		}
		return ovs.SetField(v, fld), nil
	case strings.HasPrefix(a, "move:"):
		src, dst, ok := strings.Cut(a[len("move:"):], "->")
		if !ok {
			return nil, fmt.Errorf("%w: action %q", ErrInvalid, a)
		}
		return ovs.Move(src, dst), nil
	}
	return nil, fmt.Errorf("%w: action %q", ErrInvalid, a)
}

// splitTop splits s at the commas outside parentheses ("ct(commit,zone=1),output:2").
func splitTop(s string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(':
			depth++
		case ')':
			depth--
		case ',':
			if depth == 0 {
				if i > start {
					out = append(out, s[start:i])
				}
				start = i + 1
			}
		}
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}
