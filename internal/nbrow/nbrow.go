// Package nbrow maps topology objects to OVN Northbound rows and back: the
// one mapping both backends use (backend/ovnnb writes the rows,
// backend/nbctl renders them as ovn-nbctl commands), so that every form
// writes the same columns. Its per-kind code (rows_gen.go: object to row
// and back, checks, key conditions, reference columns, tables) is
// generated with topology's from the kind types (go generate ./topology);
// what it knows of a kind beyond that comes from the kind's
// topology.Descriptor.
//
// It is internal: its API follows the adapters' needs. Functions are pure
// and safe for concurrent use.
package nbrow

import (
	"fmt"
	"maps"
	"net/netip"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/ovn-kubernetes/libovsdb/model"
	"github.com/ovn-kubernetes/libovsdb/ovsdb"

	"github.com/udnkit/udnkit/internal/names"
	"github.com/udnkit/udnkit/internal/nbdb"
	"github.com/udnkit/udnkit/internal/sdkerr"
	"github.com/udnkit/udnkit/netconf"
	"github.com/udnkit/udnkit/topology"
)

// ErrInvalid: an object the database would take but OVN could not use (a
// name, match or address missing), or of an unknown type. Both backends'
// ErrInvalidChange are this error.
var ErrInvalid = sdkerr.New(sdkerr.Invalid, "invalid change")

// The external_ids keys that carry an object's owner. A row is the SDK's
// when it has ExtNetwork; ExtController names the controller that owns it
// (topology.Owner.Controller). Where it is absent (rows written before
// controllers existed, or by the reference) OwnerOf infers it from the
// row's other keys (referenceController).
const (
	ExtController = "k8s.ovn.org/owner-controller"
	ExtNetwork    = "k8s.ovn.org/network"
	ExtTopology   = "k8s.ovn.org/topology"
	ExtRole       = "k8s.ovn.org/role"
	ExtNode       = "k8s.ovn.org/node"
)

func OwnerIDs(o topology.Owner) map[string]string {
	m := map[string]string{ExtController: o.Controller.String(), ExtNetwork: o.Network}
	// Valid values in NetConf spelling ("layer3", "primary"); anything else
	// verbatim so that it reads back unchanged.
	if o.Topology.Valid() {
		m[ExtTopology] = o.Topology.NetConfValue()
	} else if o.Topology != "" {
		m[ExtTopology] = string(o.Topology)
	}
	if o.Role.Valid() {
		m[ExtRole] = o.Role.NetConfValue()
	} else if o.Role != "" {
		m[ExtRole] = string(o.Role)
	}
	if o.Node != "" {
		m[ExtNode] = o.Node
	}
	return m
}

// withExtra returns ids with extra added where the owner's keys leave room,
// in a new map when there is any: ids may be shared by every row of one
// owner.
func withExtra(ids map[string]string, extra topology.Options) map[string]string {
	if len(extra) == 0 {
		return ids
	}
	out := maps.Clone(ids)
	for _, kv := range extra {
		if _, owner := out[kv.Key]; !owner {
			out[kv.Key] = kv.Value
		}
	}
	return out
}

// ownerKeys are the external_ids keys OwnerIDs writes.
var ownerKeys = []string{ExtController, ExtNetwork, ExtTopology, ExtRole, ExtNode}

// extraIDs returns the external_ids of ids beyond the owner's, sorted (nil
// for none).
func extraIDs(ids map[string]string) topology.Options {
	var out topology.Options
	for k, v := range ids {
		if !slices.Contains(ownerKeys, k) {
			out = append(out, topology.Option{Key: k, Value: v})
		}
	}
	slices.SortFunc(out, func(a, b topology.Option) int { return strings.Compare(a.Key, b.Key) })
	return out
}

// OwnerOf returns the owner recorded in ids, and whether the row is owned.
func OwnerOf(ids map[string]string) (topology.Owner, bool) {
	n, ok := ids[ExtNetwork]
	if !ok || n == "" {
		return topology.Owner{}, false
	}
	o := topology.Owner{Network: n, Node: ids[ExtNode]}
	// ControllerTopology's name: the network planners' row, held as the
	// empty Controller. Absent: a row the reference (or the SDK before
	// controllers existed) wrote, the controller's that writes such rows.
	c, ok := ids[ExtController]
	if !ok {
		c = string(referenceController(ids))
	}
	if c := topology.Controller(c); c != topology.ControllerTopology {
		o.Controller = c
	}
	if v, ok := ids[ExtTopology]; ok {
		o.Topology = netconf.Topology(v)
		if t, ok := topologyOfValue[v]; ok {
			o.Topology = t
		}
	}
	if v, ok := ids[ExtRole]; ok {
		o.Role = netconf.Role(v)
		if r, ok := roleOfValue[v]; ok {
			o.Role = r
		}
	}
	return o, true
}

// The controllers of the rows the reference writes without
// ExtController: its pod ports (ExtPod "true" beside ExtNAD) and Service
// load balancers (ExtKind "Service"). They are pods.ControllerPods and
// services.ControllerServices (nbrow's tests hold them equal); any other
// row is the network topology's.
const (
	ControllerPods     topology.Controller = "udnkit-pods"
	ControllerServices topology.Controller = "udnkit-services"

	ExtPod  = "pod"
	ExtNAD  = "k8s.ovn.org/nad"
	ExtKind = "k8s.ovn.org/kind"
)

// referenceController returns the controller of a row without
// ExtController, from the keys the reference writes on it, so that a
// topology Sync never takes a reference-written pod port or Service load
// balancer for its own (and deletes it): the pods and services
// controllers adopt them.
func referenceController(ids map[string]string) topology.Controller {
	if ids[ExtPod] == "true" && ids[ExtNAD] != "" {
		return ControllerPods
	}
	if ids[ExtKind] == "Service" {
		return ControllerServices
	}
	return topology.ControllerTopology
}

// topologyOfValue and roleOfValue map the NetConf spellings OwnerIDs
// writes back to the values, computed once: OwnerOf reads every row's
// owner on each Observe, and NetConfValue allocates.
var (
	topologyOfValue = map[string]netconf.Topology{}
	roleOfValue     = map[string]netconf.Role{}
)

func init() {
	for _, t := range []netconf.Topology{netconf.TopologyLayer2, netconf.TopologyLayer3, netconf.TopologyLocalnet} {
		topologyOfValue[t.NetConfValue()] = t
	}
	for _, r := range []netconf.Role{netconf.RolePrimary, netconf.RoleSecondary} {
		roleOfValue[r.NetConfValue()] = r
	}
}

// IPString spells a prefix as OVN tools do: a single address without its
// length, anything else as address/length.
func IPString(p netip.Prefix) string {
	if !p.IsValid() {
		return ""
	}
	if p.IsSingleIP() {
		return p.Addr().String()
	}
	return p.String()
}

func ParseIP(s string) (netip.Prefix, error) {
	if s == "" {
		return netip.Prefix{}, nil
	}
	if strings.Contains(s, "/") {
		p, err := netip.ParsePrefix(s)
		if err != nil {
			return netip.Prefix{}, fmt.Errorf("%w: %w", ErrInvalid, err)
		}
		return p, nil
	}
	a, err := netip.ParseAddr(s)
	if err != nil {
		return netip.Prefix{}, fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	return netip.PrefixFrom(a, a.BitLen()), nil
}

func AddrString(a netip.Addr) string {
	if !a.IsValid() {
		return ""
	}
	return a.String()
}

func ParseAddr(s string) (netip.Addr, error) {
	if s == "" {
		return netip.Addr{}, nil
	}
	return netip.ParseAddr(s)
}

func APString(ap netip.AddrPort) string {
	if ap.Port() == 0 {
		return ap.Addr().String()
	}
	return ap.String()
}

func ParseAP(s string) (netip.AddrPort, error) {
	if ap, err := netip.ParseAddrPort(s); err == nil {
		return ap, nil
	}
	a, err := netip.ParseAddr(strings.Trim(s, "[]"))
	if err != nil {
		return netip.AddrPort{}, fmt.Errorf("address %q: %w: %w", s, ErrInvalid, err)
	}
	return netip.AddrPortFrom(a, 0), nil
}

func deref[T ~string](p *T) string {
	if p == nil {
		return ""
	}
	return string(*p)
}

func optMap(o topology.Options) map[string]string {
	if len(o) == 0 {
		return nil
	}
	return o.Map()
}

func opts(m map[string]string) topology.Options {
	if len(m) == 0 {
		return nil
	}
	return topology.OptionsFromMap(m)
}

// ToRow maps an object to a libovsdb model without its UUID and without
// the columns that reference other rows (see NameRefs, ParentOf and
// ChassisOf), which the caller fills in. ids is its external_ids map (nil:
// OwnerIDs of its owner; a caller writing many rows of one owner shares
// one map).
func ToRow(o topology.Object, ids map[string]string) (model.Model, error) {
	if err := Check(o); err != nil {
		return nil, err
	}
	if ids == nil {
		ids = OwnerIDs(o.OwnedBy())
	}
	m, err := toRow(o, ids)
	if err != nil {
		return nil, err
	}
	if err := checkText(m); err != nil {
		return nil, err
	}
	return m, nil
}

// CheckNames refuses, as ToRow does, an object whose key or the names of
// the rows it references hold what OVSDB cannot carry: a backend calls it
// before it sends the names in a read's conditions.
func CheckNames(o topology.Object) error {
	if msg := names.ControlError(o.Key()); msg != "" {
		return fmt.Errorf("%w: key %s: %s", ErrInvalid, names.Quote(o.Key()), msg)
	}
	return checkRefText(o)
}

// checkRefText applies checkText's rule to the names of the rows o
// references, its parent, the rows it is attached to and its
// Gateway_Chassis, which the model does not hold.
func checkRefText(o topology.Object) error {
	bad := func(what, s string) error {
		if msg := names.ControlError(s); msg != "" {
			return fmt.Errorf("%w: %s %s: %s", ErrInvalid, what, names.Quote(s), msg)
		}
		return nil
	}
	for _, nr := range NameRefs(o) {
		for _, n := range nr.Names {
			if err := bad(nr.Column, n); err != nil {
				return err
			}
		}
	}
	if pk, pname, ok := ParentOf(o); ok {
		if err := bad(pk.Kind.String(), pname); err != nil {
			return err
		}
	}
	for _, a := range AttachmentRefs(o) {
		for _, n := range a.Names {
			if err := bad(a.Table, n); err != nil {
				return err
			}
		}
	}
	for _, g := range ChassisOf(o) {
		if err := bad("gateway_chassis", g.Name); err != nil {
			return err
		}
		if err := bad("gateway_chassis chassis_name", g.Chassis); err != nil {
			return err
		}
	}
	return nil
}

// checkText refuses a row holding a string OVSDB cannot carry (a NUL ends
// the server's JSON string and it drops the connection; strings are UTF-8)
// or a printed script cannot (other control characters, DEL): names.Control
// in any string, set member, map key or value of the model. The error names
// the column and quotes a bounded prefix of the value.
func checkText(m model.Model) error {
	v := reflect.ValueOf(m).Elem()
	for _, tf := range textFieldsOf(v.Type()) {
		f := v.Field(tf.index)
		switch tf.kind {
		case textString:
			if err := badText(tf.column, f.String()); err != nil {
				return err
			}
		case textPointer:
			if !f.IsNil() {
				if err := badText(tf.column, f.Elem().String()); err != nil {
					return err
				}
			}
		case textSlice:
			for j := range f.Len() {
				if err := badText(tf.column, f.Index(j).String()); err != nil {
					return err
				}
			}
		case textMap:
			for k, val := range f.Interface().(map[string]string) {
				if names.Control(k) >= 0 {
					return badText(tf.column+" key", k)
				}
				if names.Control(val) >= 0 {
					return badText(tf.column+"["+names.Quote(k)+"]", val)
				}
			}
		}
	}
	return nil
}

func badText(column, s string) error {
	if names.Control(s) < 0 {
		return nil
	}
	return fmt.Errorf("%w: %s %s: %s", ErrInvalid, column, names.Quote(s), names.ControlError(s))
}

// A textField is a model's string-holding column.
type textField struct {
	index  int
	kind   uint8
	column string
}

const (
	textString uint8 = iota
	textPointer
	textSlice
	textMap
)

// textFieldCache maps a model type to its textFields: the layout is fixed
// by the generated models, so it is computed once per type.
var textFieldCache sync.Map

func textFieldsOf(t reflect.Type) []textField {
	if v, ok := textFieldCache.Load(t); ok {
		return v.([]textField)
	}
	var out []textField
	str := reflect.TypeFor[string]()
	for i := range t.NumField() {
		sf := t.Field(i)
		col := sf.Tag.Get("ovsdb")
		if col == "" || col == "_uuid" {
			continue
		}
		switch ft := sf.Type; {
		case ft.Kind() == reflect.String:
			out = append(out, textField{i, textString, col})
		case ft.Kind() == reflect.Pointer && ft.Elem().Kind() == reflect.String:
			out = append(out, textField{i, textPointer, col})
		case ft.Kind() == reflect.Slice && ft.Elem().Kind() == reflect.String:
			out = append(out, textField{i, textSlice, col})
		case ft == reflect.MapOf(str, str):
			out = append(out, textField{i, textMap, col})
		}
	}
	textFieldCache.Store(t, out)
	return out
}

// Check refuses objects the database would take but OVN could not use: a
// required column empty (a name, match, address...) or an enum column
// holding a value the schema does not list.
func Check(o topology.Object) error { return checkColumns(o) }

func empty(column string) error { return fmt.Errorf("%w: %s is empty or invalid", ErrInvalid, column) }

func inEnum(column, v string, allowed []string) error {
	if v == "" || slices.Contains(allowed, v) {
		return nil
	}
	return fmt.Errorf("%w: %s %q is not one of %s", ErrInvalid, column, v, strings.Join(allowed, ", "))
}

// checkIntOptions refuses a map of integers with a key twice (the row
// would keep one), a key not in keys (nil: any) or a value outside
// [lo, hi], naming the column and key.
func checkIntOptions(column string, o topology.IntOptions, keys []string, lo, hi int) error {
	for i, e := range o {
		if keys != nil && !slices.Contains(keys, e.Key) {
			return fmt.Errorf("%w: %s key %s is not one of %s", ErrInvalid, column, names.Quote(e.Key), strings.Join(keys, ", "))
		}
		if slices.ContainsFunc(o[:i], func(p topology.IntOption) bool { return p.Key == e.Key }) {
			return fmt.Errorf("%w: %s key %s given twice", ErrInvalid, column, names.Quote(e.Key))
		}
		if e.Value < lo || e.Value > hi {
			return fmt.Errorf("%w: %s %s=%d is not in %d..%d", ErrInvalid, column, names.Quote(e.Key), e.Value, lo, hi)
		}
	}
	return nil
}

func intMap(o topology.IntOptions) map[string]int {
	if len(o) == 0 {
		return nil
	}
	return o.Map()
}

func intOpts(m map[string]int) topology.IntOptions {
	if len(m) == 0 {
		return nil
	}
	return topology.IntOptionsFromMap(m)
}

// FromRow maps an owned row back to an object. names resolves a UUID of a
// referenced row to its name; parentTable and parent are the table and
// name of the row's parent (for members); gcs resolves Gateway_Chassis
// UUIDs. Set columns come back in the row's order, maps sorted by key: a
// topology.Builder normalises the object when it is added.
func FromRow(m model.Model, owner topology.Owner, names func(string) string, parentTable, parent string, gcs map[string]*nbdb.GatewayChassis) (topology.Object, error) {
	return fromRow(m, owner, names, parentTable, parent, gcs)
}

// vipsRow spells a load balancer's VIPs as its vips column.
func vipsRow(vips []topology.LBVIP) map[string]string {
	if len(vips) == 0 {
		return nil
	}
	m := make(map[string]string, len(vips))
	for _, v := range vips {
		be := make([]string, len(v.Backends))
		for i, b := range v.Backends {
			be[i] = APString(b)
		}
		m[APString(v.VIP)] = strings.Join(be, ",")
	}
	return m
}

// vipsFromRow reads a vips column back.
func vipsFromRow(m map[string]string) ([]topology.LBVIP, error) {
	var out []topology.LBVIP
	for vip, bes := range m {
		v, err := ParseAP(vip)
		if err != nil {
			return nil, err
		}
		e := topology.LBVIP{VIP: v}
		for _, b := range strings.Split(bes, ",") {
			if b == "" {
				continue
			}
			ap, err := ParseAP(b)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", vip, err)
			}
			e.Backends = append(e.Backends, ap)
		}
		out = append(out, e)
	}
	return out, nil
}

func parsePrefix(s string) (netip.Prefix, error) {
	if s == "" {
		return netip.Prefix{}, nil
	}
	return netip.ParsePrefix(s)
}

func prefixString(p netip.Prefix) string {
	if !p.IsValid() {
		return ""
	}
	return p.String()
}

func equal(column string, v any) ovsdb.Condition {
	return ovsdb.NewCondition(column, ovsdb.ConditionEqual, v)
}

// optional spells an optional column's value as a set of zero or one: the
// zero value (which the row mapping leaves unset) as the empty set.
func optional[T comparable](v T) ovsdb.OvsSet {
	var zero T
	if v == zero {
		return ovsdb.OvsSet{GoSet: []any{}}
	}
	return ovsdb.OvsSet{GoSet: []any{v}}
}

// KindOfTable maps a table to its kind (0 for a table of no kind).
func KindOfTable(table string) topology.Kind { return kindOfTable[table] }

// kindOfTable maps each kind's table to the kind.
var kindOfTable = func() map[string]topology.Kind {
	out := map[string]topology.Kind{}
	for _, k := range topology.Kinds() {
		out[k.Table()] = k
	}
	return out
}()

// CanonController returns c with topology.ControllerTopology spelled "",
// the form in which rows' owners are read back.
func CanonController(c topology.Controller) topology.Controller {
	if c == topology.ControllerTopology {
		return ""
	}
	return c
}

// Parent is a parent kind and its column holding members.
type Parent = topology.ParentColumn

// ParentOf returns the parent of a member object (switch port, router
// port, route, policy, NAT, ACL), from its descriptor, with the parent's
// name.
func ParentOf(o topology.Object) (Parent, string, bool) {
	k, name, ok := topology.Parent(o)
	if !ok {
		return Parent{}, "", false
	}
	for _, p := range o.Kind().Descriptor().Parents {
		if p.Kind == k {
			return p, name, true
		}
	}
	return Parent{}, "", false
}

// NameRef is a column of an object holding references by name to rows of
// Kind.
type NameRef struct {
	Column string
	Kind   topology.Kind
	Names  []string
}

// NameRefs returns the reference columns of o, from its descriptor.
func NameRefs(o topology.Object) []NameRef {
	refs := o.Kind().Descriptor().Refs
	if len(refs) == 0 {
		return nil
	}
	names := topology.References(o)
	out := make([]NameRef, len(refs))
	for i, r := range refs {
		out[i] = NameRef{Column: r.Column, Kind: r.Kind}
		if i < len(names) {
			out[i].Names = names[i]
		}
	}
	return out
}

// Named reports whether kind k is keyed by its name column.
func Named(k topology.Kind) bool { return k.Descriptor().Named }

// Unindexed reports whether kind k has a name but its table no index on
// it (Logical_Switch, Logical_Router, Load_Balancer).
func Unindexed(k topology.Kind) bool { d := k.Descriptor(); return d.Named && !d.Indexed }

// Updatable lists the columns an update of kind k may write.
func Updatable(k topology.Kind) []string { return k.Descriptor().Updatable }

// KeyColumns lists the columns that, with the parent, make the key of an
// unnamed kind.
func KeyColumns(k topology.Kind) []string { return k.Descriptor().KeyColumns }

// Describe names an object for error messages: `switch_port "x"`.
func Describe(k topology.Kind, key string) string { return k.String() + " " + names.Quote(key) }

// Row is the OVN Northbound row an object maps to, as the adapter writes
// it. Renderers of other forms (ovn-nbctl scripts) use it so that every
// form writes the same columns.
type Row struct {
	// Table is the NB table.
	Table string
	// Columns holds every column with a value other than the default,
	// excluding references: string, int, bool, []string,
	// map[string]string or map[string]int values.
	Columns map[string]any
	// Refs are the reference columns, by the names of the referenced
	// rows (load_balancer_group, ports of a port group, gateway_port...).
	Refs []Ref
	// Parent is the row whose reference set holds this one (members only).
	Parent *Ref
	// Attachments are the rows, by name, whose reference sets hold this
	// one by the choice of its owner (a load balancer's switches,
	// routers and groups), one Ref per table; empty ones are left out.
	Attachments []Ref
	// GatewayChassis are the Gateway_Chassis rows of a router port.
	GatewayChassis []map[string]any
}

// Ref is a reference column by names.
type Ref struct {
	Column string
	Table  string
	Names  []string
}

// RowOf returns the row obj maps to.
func RowOf(obj topology.Object) (Row, error) {
	m, err := ToRow(obj, nil)
	if err != nil {
		return Row{}, err
	}
	if err := checkRefText(obj); err != nil {
		return Row{}, err
	}
	r := Row{Table: obj.Kind().Table(), Columns: plainColumns(m)}
	for _, nr := range NameRefs(obj) {
		if len(nr.Names) > 0 {
			r.Refs = append(r.Refs, Ref{Column: nr.Column, Table: nr.Kind.Table(), Names: slices.Clone(nr.Names)})
		}
	}
	if pk, pname, ok := ParentOf(obj); ok {
		r.Parent = &Ref{Column: pk.Column, Table: pk.Kind.Table(), Names: []string{pname}}
	}
	r.Attachments = AttachmentRefs(obj)
	for _, g := range ChassisOf(obj) {
		r.GatewayChassis = append(r.GatewayChassis, map[string]any{"name": g.Name, "chassis_name": g.Chassis, "priority": g.Priority})
	}
	return r, nil
}

// plainColumns reflects over a libovsdb model: non-default, non-reference
// columns.
func plainColumns(m any) map[string]any {
	out := map[string]any{}
	v := reflect.ValueOf(m).Elem()
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		col := t.Field(i).Tag.Get("ovsdb")
		if col == "" || col == "_uuid" {
			continue
		}
		f := v.Field(i)
		switch f.Kind() {
		case reflect.Pointer:
			if f.IsNil() {
				continue
			}
			f = f.Elem()
		case reflect.Slice, reflect.Map:
			if f.Len() == 0 {
				continue
			}
		}
		switch f.Kind() {
		case reflect.String:
			if f.String() != "" || t.Field(i).Type.Kind() == reflect.Pointer {
				out[col] = f.String()
			}
		case reflect.Int:
			if f.Int() != 0 || t.Field(i).Type.Kind() == reflect.Pointer {
				out[col] = int(f.Int())
			}
		case reflect.Bool:
			out[col] = f.Bool()
		case reflect.Slice:
			s := make([]string, f.Len())
			for j := range s {
				s[j] = f.Index(j).String()
			}
			out[col] = s
		case reflect.Map:
			if mi, ok := f.Interface().(map[string]int); ok {
				out[col] = maps.Clone(mi)
				continue
			}
			mm := make(map[string]string, f.Len())
			it := f.MapRange()
			for it.Next() {
				mm[it.Key().String()] = it.Value().String()
			}
			out[col] = mm
		default:
			panic(fmt.Sprintf("nbrow: column %s of kind %s", col, f.Kind()))
		}
	}
	return out
}

// AttachmentRefs returns the rows o is attached to (its descriptor's
// Attachments), one Ref per table that holds it, in descriptor order.
func AttachmentRefs(o topology.Object) []Ref {
	cols := o.Kind().Descriptor().Attachments
	if len(cols) == 0 {
		return nil
	}
	names := topology.Attached(o)
	var out []Ref
	for i, c := range cols {
		if i < len(names) && len(names[i]) > 0 {
			out = append(out, Ref{Column: c.Column, Table: c.Kind.Table(), Names: slices.Clone(names[i])})
		}
	}
	return out
}

// tableOf maps a model type to its table.
var tableOf = func() map[reflect.Type]string {
	out := map[reflect.Type]string{}
	for t, m := range Models() {
		out[reflect.TypeOf(m)] = t
	}
	return out
}()

// memberColumns maps a table to its columns holding other kinds' rows as
// members, from the descriptors' Parents.
var memberColumns = func() map[string][]string {
	out := map[string][]string{}
	for _, k := range topology.Kinds() {
		for _, p := range k.Descriptor().Parents {
			t := p.Kind.Table()
			if !slices.Contains(out[t], p.Column) {
				out[t] = append(out[t], p.Column)
			}
		}
	}
	return out
}()

// minMembers maps a table to its member columns whose schema minimum is
// above zero, with that minimum (Meter: bands 1), from the descriptors'
// Parents.
var minMembers = func() map[string]map[string]int {
	out := map[string]map[string]int{}
	for _, k := range topology.Kinds() {
		for _, p := range k.Descriptor().Parents {
			if p.Min > 0 {
				t := p.Kind.Table()
				if out[t] == nil {
					out[t] = map[string]int{}
				}
				out[t][p.Column] = p.Min
			}
		}
	}
	return out
}()

// MinMembers returns the member columns of table that the schema wants
// holding at least some rows, with that minimum (nil for none): a parent
// is created with that many members in one transaction and never left
// with fewer. The map is shared: do not modify it.
func MinMembers(table string) map[string]int { return minMembers[table] }

// TableOf returns the table of a model of Models ("" for another).
func TableOf(m model.Model) string { return tableOf[reflect.TypeOf(m)] }

// MemberColumns lists the columns of table that hold members (nil for a
// table without members). The slice is shared: do not modify it. Read a
// row's members in a loop with UUIDs, without Members' map.
func MemberColumns(table string) []string { return memberColumns[table] }

// Members lists, for a parent row, its member UUIDs per member column (nil
// for a row of a table without members).
func Members(m model.Model) map[string][]string {
	cols := memberColumns[TableOf(m)]
	if len(cols) == 0 {
		return nil
	}
	out := make(map[string][]string, len(cols))
	for _, c := range cols {
		out[c] = UUIDs(m, c)
	}
	return out
}

// IsMemberColumn reports whether col of table holds members.
func IsMemberColumn(table, col string) bool { return slices.Contains(memberColumns[table], col) }

// ParentTables lists the tables whose rows hold members.
func ParentTables() []string {
	var out []string
	for _, t := range Tables() {
		if len(memberColumns[t]) > 0 {
			out = append(out, t)
		}
	}
	return out
}

// ColumnGatewayChassis is a router port's column referencing its
// Gateway_Chassis rows (ChassisOf).
const ColumnGatewayChassis = "gateway_chassis"

// MoveColumn reports whether c, in the columns of a change to an object of
// kind k, is the pseudo-column of a move to another parent: the name of
// one of k's parent kinds (topology.ColumnSwitch, topology.ColumnRouter).
func MoveColumn(k topology.Kind, c string) bool {
	for _, p := range k.Descriptor().Parents {
		if p.Kind.String() == c {
			return true
		}
	}
	return false
}

// HasExternalIDs reports whether kind k's table has external_ids
// (Load_Balancer_Group has none).
func HasExternalIDs(k topology.Kind) bool {
	return slices.Contains(k.Descriptor().Updatable, "external_ids")
}

// checkVIPs refuses a load balancer VIP or backend without a valid address.
func checkVIPs(vips []topology.LBVIP) error {
	for _, v := range vips {
		if !v.VIP.Addr().IsValid() {
			return empty("vips")
		}
		for _, b := range v.Backends {
			if !b.Addr().IsValid() {
				return fmt.Errorf("%w: vips %s: a backend is invalid", ErrInvalid, APString(v.VIP))
			}
		}
	}
	return nil
}
