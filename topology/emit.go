package topology

import (
	"net/netip"
	"slices"
	"strconv"

	"github.com/udnkit/udnkit/ipam"
)

// Emitter is the planner toolkit for other planner packages (connect,
// pods, services): it builds a State of their own objects at the speed of
// this package's planners (over a million objects per second, about one
// allocation per object). Names, keys and matches are carved from a
// shared string arena, column slices from shared slabs, and an object
// handed to Emit is stored as it is, not copied.
//
// The zero value is ready to use. An Emitter is not safe for concurrent
// use and must not be copied once used (it holds a Builder). The strings
// and slices it returns belong to the State being built: they stay valid
// and must not be modified.
//
//	var e topology.Emitter
//	e.Own(ctl, network) // speak for the network even with no objects
//	for _, n := range nodes {
//		e.Policy(topology.Policy{Owner: own, Router: cr, Priority: 9001,
//			Action: topology.PolicyReroute, Nexthops: e.Addrs(hop)},
//			"inport == ", e.Quote(port), " && ip4.dst == ", e.Prefix(subnet))
//	}
//	desired, err := e.State()
type Emitter struct {
	b     Builder
	strs  slab[string]
	opts  slab[Option]
	addrs slab[netip.Addr]
	pfxs  slab[netip.Prefix]

	partial bool
	nodes   []string
}

// Partial makes the State an incremental plan that speaks only for the
// rows of the named nodes ("" names the rows of no node), like PlanNodes'
// results: Diff against it leaves other nodes' rows alone, and
// previous.Overlay(it) is the new full state. Calls add up.
func (e *Emitter) Partial(nodes ...string) {
	e.partial = true
	e.nodes = append(e.nodes, nodes...)
}

// Own adds the rows controller c writes for network to the scope of the
// State, even if it ends up with no objects (see Builder.OwnFor).
func (e *Emitter) Own(c Controller, network string) { e.b.OwnFor(c, network) }

// Cat returns the concatenation of parts, built in the arena.
func (e *Emitter) Cat(parts ...string) string { return e.b.strs.cat(parts...) }

// Itoa returns the decimal spelling of i, built in the arena.
func (e *Emitter) Itoa(i int) string {
	var scratch [20]byte
	return e.b.strs.bytes(strconv.AppendInt(scratch[:0], int64(i), 10))
}

// Quote returns strconv.Quote(s), built in the arena (a port name in a
// match, say).
func (e *Emitter) Quote(s string) string {
	var scratch [128]byte
	return e.b.strs.bytes(strconv.AppendQuote(scratch[:0], s))
}

// Prefix returns p.String(), built in the arena.
func (e *Emitter) Prefix(p netip.Prefix) string {
	var scratch [64]byte
	return e.b.strs.bytes(appendPrefix(scratch[:0], p))
}

// Addr returns a.String() ("" for the zero Addr), built in the arena.
func (e *Emitter) Addr(a netip.Addr) string {
	var scratch [64]byte
	return e.b.strs.bytes(a.AppendTo(scratch[:0]))
}

// MAC returns ipam.MACFromIP(a).String(), a port's MAC from its first
// address, built in the arena.
func (e *Emitter) MAC(a netip.Addr) string {
	var scratch [17]byte
	return e.b.strs.bytes(ipam.AppendMAC(scratch[:0], a))
}

// Strings returns a copy of v carved from a slab (nil for none).
func (e *Emitter) Strings(v ...string) []string { return e.strs.of(v...) }

// Addrs returns a copy of v carved from a slab (nil for none).
func (e *Emitter) Addrs(v ...netip.Addr) []netip.Addr { return e.addrs.of(v...) }

// Prefixes returns a copy of v carved from a slab (nil for none).
func (e *Emitter) Prefixes(v ...netip.Prefix) []netip.Prefix { return e.pfxs.of(v...) }

// Options returns the options given as key, value pairs, sorted by key,
// carved from a slab (see NewOptions; it panics on an odd count).
func (e *Emitter) Options(kv ...string) Options {
	if len(kv)%2 != 0 {
		panic("topology.Emitter.Options: odd number of arguments")
	}
	var buf [8]Option
	o := buf[:0]
	for i := 0; i < len(kv); i += 2 {
		o = append(o, Option{kv[i], kv[i+1]})
	}
	if !optsSorted(o) {
		o = NewOptions(kv...)
	}
	return e.opts.of(o...)
}

// Emit adds objects as they are (no copy): their set-valued columns are
// sorted in place when they are not already, so hand over slices nothing
// else uses (the Emitter's own, or fresh ones). Each object's (controller,
// network) joins the scope. An object without an owner network makes
// State fail.
func (e *Emitter) Emit(objs ...Object) {
	for _, o := range objs {
		if o == nil {
			continue
		}
		if o.OwnedBy().Network == "" && e.b.err == nil {
			e.b.err = invalidOwner(o)
		}
		e.b.add(o)
	}
}

// Policy emits p with its match the concatenation of match: the match and
// the policy's key ("router|priority|match", Policy.Key) are built
// together, as one string of the arena, so that the key always agrees
// with the match. p.Match is ignored.
func (e *Emitter) Policy(p Policy, match ...string) {
	var scratch [256]byte
	p.Match = ""
	k := p.appendKey(scratch[:0]) // "router|priority|", the match follows
	n := len(k)
	for _, m := range match {
		k = append(k, m...)
	}
	key := e.b.strs.bytes(k)
	p.Match = key[n:]
	if p.Owner.Network == "" && e.b.err == nil {
		e.b.err = invalidOwner(p)
	}
	e.b.copyCheck()
	e.b.addKeyed(p, key)
}

// State returns the State emitted so far. Keys must be unique per kind;
// errors wrap ErrConflict or ErrInvalid and name the object.
func (e *Emitter) State() (State, error) {
	s, err := e.b.State()
	if err != nil || !e.partial {
		return s, err
	}
	s.partial = true
	s.nodes = slices.Compact(slices.Sorted(slices.Values(e.nodes)))
	return s, nil
}

// Len returns the number of objects emitted so far.
func (e *Emitter) Len() int {
	n := 0
	for _, r := range e.b.runs {
		n += len(r)
	}
	if e.b.open {
		n += len(e.b.chunk) - e.b.start
	}
	return n
}
