package probe

import (
	"regexp"
	"strconv"
	"strings"
)

// Hop is one logical flow a traced packet matched: a stage of a logical
// datapath's pipeline, as ovn-trace prints it
// (" 8. ls_in_acl_eval (northd.c:7051): ip4.src == 10.1.1.2, priority 2001, uuid 5e6b5882").
type Hop struct {
	Datapath string
	// Pipeline is "ingress" or "egress".
	Pipeline string
	Table    int
	Stage    string
	Match    string
	Priority int
	// UUID is the logical flow's UUID prefix (SB).
	UUID string
}

// Output is a packet leaving a logical datapath through a port.
type Output struct {
	Datapath string
	Port     string
	// Type is the port's type as ovn-trace names it: "" (a VIF), "patch",
	// "remote", "localnet", "l3gateway", ...
	Type string
}

// Trace is what ovn-trace's detailed output says happened to a packet.
type Trace struct {
	// Hops are the logical flows matched, in the order printed.
	Hops []Hop
	// Outputs are the ports output to, in the order printed (a flood
	// outputs to several).
	Outputs []Output
	// Drop is the hop after which a drop action was printed (Drop.Stage
	// is "" when none was).
	Drop Hop
}

// Last returns the last hop printed, or a zero Hop.
func (t Trace) Last() Hop {
	if len(t.Hops) == 0 {
		return Hop{}
	}
	return t.Hops[len(t.Hops)-1]
}

// End is where the packet's last branch ended: the drop's hop when a drop
// was printed, else the last hop (an ACL's evaluation rather than the
// action stage after it: ovn-trace prints no drop for an ACL's).
func (t Trace) End() Hop {
	if t.Drop.Stage != "" {
		return t.Drop
	}
	if len(t.Hops) == 0 {
		return Hop{}
	}
	return t.dropHop("", "")
}

// OutputTo returns the output to port, if any.
func (t Trace) OutputTo(port string) (Output, bool) {
	for _, o := range t.Outputs {
		if o.Port == port {
			return o, true
		}
	}
	return Output{}, false
}

var (
	headerRE = regexp.MustCompile(`^(ingress|egress|multicast)\(dp="([^"]*)"`)
	hopRE    = regexp.MustCompile(`^(\d+)\. ([A-Za-z0-9_]+) \([^)]*\): (.*), priority (\d+), uuid ([0-9a-f]+)$`)
	outputRE = regexp.MustCompile(`^/\* output to "([^"]*)", type "([^"]*)" \*/;?$`)
)

// generated are the actions whose nested section traces a packet OVN
// makes (an ARP or ND request, an ICMP error, a reset), not the probe.
var generated = map[string]bool{"arp": true, "nd_ns": true, "nd_ns_mcast": true, "icmp4": true, "icmp6": true,
	"icmp4_error": true, "icmp6_error": true, "tcp_reset": true, "sctp_abort": true, "reject": true}

// ParseTrace reads ovn-trace's default (detailed) output: the probe's own
// packet, skipping the sections of packets OVN generates on its way (an
// ARP request's flood is not a delivery). It never fails: lines it does
// not know are skipped, so a newer ovn-trace's additions leave the
// verdict to the lines it knows.
func ParseTrace(out string) Trace {
	var t Trace
	var dp, pipeline string
	lines := strings.Split(out, "\n")
	skip := -1 // the indentation of a generated packet's section
	for i, raw := range lines {
		line := strings.TrimSpace(raw)
		indent := len(raw) - len(strings.TrimLeft(raw, " "))
		if skip >= 0 {
			if line == "" || indent > skip || strings.Trim(line, "-") == "" {
				continue
			}
			skip = -1
		}
		if generated[line] && i+1 < len(lines) && isRule(lines[i+1], len(line)) {
			skip = indent
			continue
		}
		if line == "" {
			continue
		}
		switch c := line[0]; {
		case c == 'i' || c == 'e' || c == 'm':
			if m := headerRE.FindStringSubmatch(line); m != nil {
				dp, pipeline = m[2], m[1]
			}
			continue
		case c == '/':
			if m := outputRE.FindStringSubmatch(line); m != nil {
				t.Outputs = append(t.Outputs, Output{Datapath: dp, Port: m[1], Type: m[2]})
			}
			continue
		case c < '0' || c > '9':
			if line == "drop;" {
				t.Drop = t.dropHop(dp, pipeline)
			}
			continue
		}
		if m := hopRE.FindStringSubmatch(line); m != nil {
			table, _ := strconv.Atoi(m[1])
			prio, _ := strconv.Atoi(m[4])
			t.Hops = append(t.Hops, Hop{Datapath: dp, Pipeline: pipeline, Table: table, Stage: m[2], Match: m[3], Priority: prio, UUID: m[5]})
		}
	}
	return t
}

// isRule reports whether line is a section's underline of n dashes.
func isRule(line string, n int) bool {
	line = strings.TrimSpace(line)
	return len(line) == n && strings.Trim(line, "-") == ""
}

// dropHop is the hop a drop printed now belongs to: the last hop, or, when
// that is an ACL action stage, the ACL evaluation before it (whose match
// holds the ACL's).
func (t Trace) dropHop(dp, pipeline string) Hop {
	last := t.Last()
	if last.Stage == "" {
		return Hop{Datapath: dp, Pipeline: pipeline, Stage: "?"}
	}
	if strings.HasSuffix(last.Stage, "_acl_action") || strings.HasSuffix(last.Stage, "_acl_after_lb_action") {
		for i := len(t.Hops) - 1; i >= 0; i-- {
			h := t.Hops[i]
			if h.Datapath != last.Datapath {
				break
			}
			if strings.HasSuffix(h.Stage, "_acl_eval") || strings.HasSuffix(h.Stage, "_acl_after_lb_eval") {
				return h
			}
		}
	}
	return last
}
