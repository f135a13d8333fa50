package probe

import (
	"context"
	"fmt"
	"net/netip"
	"os/exec"
	"slices"
	"strings"

	"github.com/udnkit/udnkit/topology"
)

// Outcome is what a traced probe came to.
type Outcome uint8

const (
	// Delivered: output to the destination's port, or, for a destination
	// on another node, into the tunnel toward it on the destination's
	// network (or the connect joining them).
	Delivered Outcome = iota
	// Dropped: a logical flow dropped it, or it went nowhere.
	Dropped
	// Left: it left OVN through a localnet port (the gateway router's way
	// to the host and the underlay), not reaching the destination: how a
	// primary network's traffic to another network's addresses ends when
	// nothing connects them.
	Left
	// Elsewhere: output to another port than the destination's (an
	// overlapping address of another network, a wrong node).
	Elsewhere
	// Failed: ovn-trace could not trace it (a missing source port).
	Failed
)

var outcomeNames = [...]string{"delivered", "dropped", "left", "elsewhere", "failed"}

// String returns "delivered", "dropped", "left", "elsewhere" or "failed".
func (o Outcome) String() string {
	if int(o) < len(outcomeNames) {
		return outcomeNames[o]
	}
	return fmt.Sprintf("outcome(%d)", o)
}

// Result is a probe traced and judged.
type Result struct {
	Probe
	Outcome Outcome
	// Where is the port or the logical datapath and stage it ended at.
	Where string
	// Surprise reports an outcome the intent does not expect.
	Surprise bool
	// Rows name the NB rows that may be responsible for a surprise.
	Rows []string
}

// Tracer runs ovn-trace for a packet entering datapath with flow (an
// ovn-trace microflow) as a new connection.
type Tracer interface {
	Trace(ctx context.Context, datapath, flow string) (string, error)
}

// Exec runs the ovn-trace program at Path against the Southbound
// database SB.
type Exec struct {
	Path, SB string
}

// ctNew is one --ct per ct_next a packet may meet on the longest path
// (two switches, three routers): every one sees a new connection.
var ctNew = slices.Repeat([]string{"--ct=new,trk"}, 10)

// Trace runs ovn-trace --db=SB --ct=new,trk… datapath flow.
func (e Exec) Trace(ctx context.Context, datapath, flow string) (string, error) {
	args := append([]string{"--db=" + e.SB}, ctNew...)
	cmd := exec.CommandContext(ctx, e.Path, append(args, datapath, flow)...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return string(out), fmt.Errorf("ovn-trace %s: %w: %s", datapath, err, strings.TrimSpace(stderr.String()))
	}
	return string(out), nil
}

// Flow is the probe's ovn-trace microflow: from the source port, to the
// destination's MAC on the same switch or to the gateway's otherwise, a
// TCP, UDP or SCTP packet to the configured port.
func (p *Plan) Flow(pr Probe) string {
	dstMAC := pr.From.Gateway
	if pr.To.Switch == pr.From.Switch {
		dstMAC = pr.To.MAC
	}
	ip := "ip4"
	if pr.From.IP.Is6() {
		ip = "ip6"
	}
	l4 := p.Protocol.String()
	return fmt.Sprintf(`inport == %q && eth.src == %s && eth.dst == %s && %s.src == %s && %s.dst == %s && ip.ttl == 64 && %s && %s.src == 33000 && %s.dst == %d`,
		pr.From.Port, pr.From.MAC, dstMAC, ip, pr.From.IP, ip, pr.To.IP, l4, l4, l4, p.Port)
}

// Judge judges a probe by its trace (out, or err when ovn-trace failed).
func (p *Plan) Judge(pr Probe, out string, err error) Result {
	r, _ := p.judge(pr, out, err)
	return r
}

func (p *Plan) judge(pr Probe, out string, err error) (Result, Trace) {
	r := Result{Probe: pr}
	var t Trace
	if err != nil {
		r.Outcome, r.Where = Failed, err.Error()
	} else {
		t = ParseTrace(out)
		r.Outcome, r.Where = p.outcome(pr, t)
	}
	r.Surprise = r.Outcome == Failed || (r.Outcome == Delivered) != pr.Intent.Delivered
	return r, t
}

func (p *Plan) outcome(pr Probe, t Trace) (Outcome, string) {
	if o, ok := t.OutputTo(pr.To.Port); ok && pr.To.Local {
		return Delivered, o.Datapath + ": output to " + o.Port
	}
	for _, o := range t.Outputs {
		rem, ok := p.Remote[o.Port]
		if !ok || rem.Node != pr.To.Node {
			continue
		}
		if rem.Owner == pr.To.Network || (rem.Owner == pr.Intent.Via && rem.Owner != "" &&
			slices.ContainsFunc(rem.Dests, func(d netip.Prefix) bool { return d.Contains(pr.To.IP) })) {
			return Delivered, o.Datapath + ": to node " + rem.Node + " through " + o.Port
		}
	}
	if t.Drop.Stage != "" {
		return Dropped, hopText(t.Drop)
	}
	var left, elsewhere []Output
	for _, o := range t.Outputs {
		_, remote := p.Remote[o.Port]
		switch {
		case o.Type == "localnet":
			left = append(left, o)
		case remote || o.Type == "" || o.Type == "remote":
			elsewhere = append(elsewhere, o)
		}
	}
	if len(elsewhere) > 0 {
		o := elsewhere[len(elsewhere)-1]
		if rem, ok := p.Remote[o.Port]; ok {
			return Elsewhere, o.Datapath + ": to node " + rem.Node + " through " + o.Port
		}
		return Elsewhere, o.Datapath + ": output to " + o.Port
	}
	if len(left) > 0 {
		o := left[len(left)-1]
		return Left, o.Datapath + ": output to " + o.Port + " (localnet)"
	}
	if len(t.Hops) == 0 {
		return Dropped, "nowhere: ovn-trace printed no logical flow"
	}
	return Dropped, hopText(t.End())
}

// aclOffset is what northd adds to an ACL's priority for its logical flow.
const aclOffset = 1000

// isACL reports whether h is an ACL evaluation stage.
func isACL(h Hop) bool {
	return strings.Contains(h.Stage, "_acl") && strings.HasSuffix(h.Stage, "_eval")
}

// hopText names a hop: "<datapath> <stage>", with the ACL's priority and
// the flow's match at an ACL stage (the ACL's own match is in its last
// parentheses).
func hopText(h Hop) string {
	s := h.Datapath + " " + h.Stage
	if isACL(h) {
		s += fmt.Sprintf(" (ACL priority %d: %s)", h.Priority-aclOffset, h.Match)
	}
	return s
}

// maxRows bounds the rows named for one surprise.
const maxRows = 6

// Blame names the NB rows that may explain a surprise: the changes
// between the NB and the plan (topology.Diff(observed, desired)) of rows
// owned by either network or by what joins them (Intent.Via), as
// "missing <kind> <key>", "extra <kind> <key>" or "<kind> <key> differs
// in <columns>"; first, for a drop at an ACL stage, the ACL of observed
// (the NB's rows udnkit owns) whose priority and match the flow has, or
// that flow when the ACL is not udnkit's.
func Blame(r Result, drop Hop, changes topology.Changes, observed topology.State) []string {
	if !r.Surprise {
		return nil
	}
	owners := []string{r.From.Network, r.To.Network}
	if r.Intent.Via != "" {
		owners = append(owners, r.Intent.Via)
	}
	var rows []string
	if isACL(drop) {
		rows = append(rows, aclText(drop, observed))
	}
	for _, c := range changes {
		if c.Object == nil || !slices.Contains(owners, c.Object.OwnedBy().Network) {
			continue
		}
		rows = append(rows, changeText(c))
	}
	if len(rows) > maxRows {
		rows = append(rows[:maxRows:maxRows], fmt.Sprintf("and %d more", len(rows)-maxRows))
	}
	if len(rows) == 0 {
		rows = []string{"no row udnkit owns differs from the plan; the packet ended at " + r.Where}
	}
	return rows
}

// aclText names the ACL whose flow dropped a packet: udnkit's (in
// observed) with the flow's priority and match, or the flow's.
func aclText(drop Hop, observed topology.State) string {
	for _, o := range observed.ObjectsOf(topology.KindACL) {
		acl := o.(topology.ACL)
		if acl.Priority == drop.Priority-aclOffset && strings.HasSuffix(drop.Match, "("+acl.Match+")") {
			return fmt.Sprintf("acl %s dropped it (action %s)", acl.Key(), acl.Action)
		}
	}
	return fmt.Sprintf("an ACL udnkit does not own dropped it: priority %d, flow match %s", drop.Priority-aclOffset, drop.Match)
}

func changeText(c topology.Change) string {
	switch c.Op {
	case topology.OpCreate:
		return "missing " + c.Kind.String() + " " + c.Key
	case topology.OpDelete:
		return "extra " + c.Kind.String() + " " + c.Key
	}
	return c.Kind.String() + " " + c.Key + " differs in " + strings.Join(c.Columns, ", ")
}

// Run traces every probe of the plan with tr, judges it, and names the
// rows that may explain each surprise (Blame: changes, the NB against the
// plan; observed, the NB's rows udnkit owns).
func Run(ctx context.Context, tr Tracer, p *Plan, changes topology.Changes, observed topology.State) ([]Result, error) {
	out := make([]Result, 0, len(p.Probes))
	for _, pr := range p.Probes {
		if err := ctx.Err(); err != nil {
			return out, err
		}
		text, err := tr.Trace(ctx, pr.From.Switch, p.Flow(pr))
		r, t := p.judge(pr, text, err)
		r.Rows = Blame(r, t.End(), changes, observed)
		out = append(out, r)
	}
	return out, nil
}
