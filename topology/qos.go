package topology

import (
	"slices"
	"strconv"
	"strings"
)

// QoS is a QoS rule, member of Switch: packets matching Match in
// Direction get Action's marks (dscp, mark) and Bandwidth's limits (rate,
// burst). The egress planners write them: an EgressQoS rule's DSCP row,
// an EgressIP's reply-marking row.
//
//udnkit:kind table=QoS id=13 order=130 name=qos
type QoS struct {
	Owner     Owner
	Switch    string       `nb:",parent=Switch.qos_rules"`
	Direction ACLDirection `nb:"direction,key,required"`
	Priority  int          `nb:"priority,key"`
	Match     string       `nb:"match,key,required,q"`
	Action    IntOptions   `nb:"action"`    // dscp, mark
	Bandwidth IntOptions   `nb:"bandwidth"` // rate (kbps), burst (kb)
}

// QoS action and bandwidth keys, spelled as OVN spells them.
const (
	QoSDSCP  = "dscp"
	QoSMark  = "mark"
	QoSRate  = "rate"
	QoSBurst = "burst"
)

// IntOption is one key/value pair of an OVN map column of integers (a QoS
// row's action or bandwidth).
type IntOption struct {
	Key   string
	Value int
}

// IntOptions is an OVN map column of integers as a slice sorted by Key
// with unique keys, as Options is for strings. Build one with
// NewIntOptions; the zero value is the empty map.
type IntOptions []IntOption

// NewIntOptions returns the single pair key=value; With adds more.
func NewIntOptions(key string, value int) IntOptions { return IntOptions{{key, value}} }

// IntOptionsFromMap returns m as IntOptions, sorted by key.
func IntOptionsFromMap(m map[string]int) IntOptions {
	o := make(IntOptions, 0, len(m))
	for k, v := range m {
		o = append(o, IntOption{k, v})
	}
	slices.SortFunc(o, compareIntOptions)
	return o
}

func compareIntOptions(a, b IntOption) int { return strings.Compare(a.Key, b.Key) }

// Get returns the value of key.
func (o IntOptions) Get(key string) (int, bool) {
	i, ok := slices.BinarySearchFunc(o, IntOption{Key: key}, compareIntOptions)
	if !ok {
		return 0, false
	}
	return o[i].Value, true
}

// With returns o with key set to value. It does not modify o.
func (o IntOptions) With(key string, value int) IntOptions {
	i, ok := slices.BinarySearchFunc(o, IntOption{Key: key}, compareIntOptions)
	out := make(IntOptions, len(o), len(o)+1)
	copy(out, o)
	if ok {
		out[i].Value = value
		return out
	}
	return slices.Insert(out, i, IntOption{key, value})
}

// Map returns o as a map (for the adapter's libovsdb rows).
func (o IntOptions) Map() map[string]int {
	m := make(map[string]int, len(o))
	for _, e := range o {
		m[e.Key] = e.Value
	}
	return m
}

// Equal reports whether o and p hold the same pairs.
func (o IntOptions) Equal(p IntOptions) bool { return slices.Equal(o, p) }

// String returns "{k1=1, k2=2}".
func (o IntOptions) String() string {
	var b strings.Builder
	b.WriteByte('{')
	for i, e := range o {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(e.Key)
		b.WriteByte('=')
		b.WriteString(strconv.Itoa(e.Value))
	}
	b.WriteByte('}')
	return b.String()
}

func (l line) intOpts(name string, o IntOptions) {
	if len(o) == 0 {
		return
	}
	l.s(name, o.String())
}
