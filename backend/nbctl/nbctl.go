package nbctl

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ovn-kubernetes/libovsdb/ovsdb"

	"github.com/udnkit/udnkit/internal/nbrow"
	"github.com/udnkit/udnkit/internal/sdkerr"
	"github.com/udnkit/udnkit/internal/shell"
	"github.com/udnkit/udnkit/topology"
)

var (
	// ErrUnsupported: a change the renderer cannot express.
	ErrUnsupported = sdkerr.New(sdkerr.NotSupported, "nbctl: unsupported change")
	// ErrInvalidChange: a change is malformed (no object, an object of
	// another kind or key, a row OVN could not use). It is the same error
	// as ovnnb.ErrInvalidChange.
	ErrInvalidChange = nbrow.ErrInvalid
)

// Config tunes the script. The zero value renders "ovn-nbctl" commands
// that use the default database (or OVN_NB_DB).
type Config struct {
	// Command is the ovn-nbctl command line; default "ovn-nbctl".
	Command string
}

// Script returns the script for changes.
func Script(changes topology.Changes, cfg Config) (string, error) {
	var b strings.Builder
	if err := Render(&b, changes, cfg); err != nil {
		return "", err
	}
	return b.String(), nil
}

// Render writes the script for changes to w.
func Render(w io.Writer, changes topology.Changes, cfg Config) error {
	cmd := cfg.Command
	if cmd == "" {
		cmd = "ovn-nbctl"
	}
	r := &renderer{cmd: cmd, changes: changes, creating: map[string]bool{}, pending: map[string][]attachment{},
		deleting: map[string]bool{}, members: map[string][]int{}, done: map[int]bool{}}
	for i, ch := range changes {
		switch ch.Op {
		case topology.OpCreate:
			r.creating[rowKey(ch.Kind.Table(), ch.Key)] = true
			if ch.Object == nil {
				continue
			}
			if p, name, ok := nbrow.ParentOf(ch.Object); ok && nbrow.MinMembers(p.Kind.Table())[p.Column] > 0 {
				k := rowKey(p.Kind.Table(), name)
				r.members[k] = append(r.members[k], i)
			}
		case topology.OpDelete:
			if named(ch.Kind) {
				r.deleting[rowKey(ch.Kind.Table(), ch.Key)] = true
			}
		}
	}
	r.line("#!/bin/sh")
	r.line("# udnkit: %d changes (%d create, %d update, %d delete)", len(changes), count(changes, topology.OpCreate),
		count(changes, topology.OpUpdate), count(changes, topology.OpDelete))
	r.line("set -e")
	for i, ch := range changes {
		if r.done[i] {
			continue // created with its parent
		}
		r.ids = 0
		r.line("")
		r.line("# %s", comment(ch.String()))
		obj, err := objectOf(ch)
		if err != nil {
			return err
		}
		switch ch.Op {
		case topology.OpCreate:
			err = r.create(ch.Object)
			k := rowKey(ch.Kind.Table(), ch.Key)
			delete(r.creating, k)
			if err == nil && len(r.pending[k]) > 0 {
				// The rows created before this one that are attached to
				// it (load balancers).
				for _, a := range r.pending[k] {
					r.line("%s %s", r.cmd, join([]string{"--", "--id=@r1", "get", a.table, a.name,
						"--", "add", ch.Kind.Table(), ch.Key, a.column, "@r1"}))
				}
				delete(r.pending, k)
			}
		case topology.OpUpdate:
			err = r.update(ch)
		case topology.OpDelete:
			if p, name, ok := nbrow.ParentOf(obj); ok && r.deleting[rowKey(p.Kind.Table(), name)] {
				// Destroying the parent deletes its members (their
				// tables are not root tables), and removing one first
				// could take the parent below its schema's minimum.
				r.line("# (deleted with %s)", comment(nbrow.Describe(p.Kind, name)))
				continue
			}
			err = r.delete(obj)
		default:
			err = fmt.Errorf("%w: operation %v", ErrUnsupported, ch.Op)
		}
		if err != nil {
			return fmt.Errorf("nbctl: %s %s: %w", ch.Op, nbrow.Describe(ch.Kind, ch.Key), err)
		}
	}
	_, err := io.WriteString(w, r.b.String())
	return err
}

// objectOf returns the object of a change (its old one for a delete),
// refusing a change without one or with another kind's or key's.
func objectOf(ch topology.Change) (topology.Object, error) {
	obj := ch.Object
	if obj == nil && ch.Op == topology.OpDelete {
		obj = ch.Old
	}
	if obj == nil {
		return nil, fmt.Errorf("nbctl: %s %s: %w: the change has no object", ch.Op, nbrow.Describe(ch.Kind, ch.Key), ErrInvalidChange)
	}
	if obj.Kind() != ch.Kind || obj.Key() != ch.Key {
		return nil, fmt.Errorf("nbctl: %s %s: %w: its object is %s", ch.Op, nbrow.Describe(ch.Kind, ch.Key), ErrInvalidChange, nbrow.Describe(obj.Kind(), obj.Key()))
	}
	return obj, nil
}

// rowKey names a row of table by its key, for the renderer's maps.
func rowKey(table, key string) string { return table + "\x00" + key }

func count(cs topology.Changes, op topology.Op) int {
	n := 0
	for _, c := range cs {
		if c.Op == op {
			n++
		}
	}
	return n
}

type renderer struct {
	cmd     string
	b       strings.Builder
	ids     int
	changes topology.Changes
	// creating holds the rows (rowKey) the change set has yet to create;
	// pending the load balancers to attach to one of them once it exists.
	creating map[string]bool
	pending  map[string][]attachment
	// members holds, per parent row (rowKey), the changes creating its
	// members in a column with a schema minimum (a Meter's bands): they
	// are created in the parent's invocation, and done once they are.
	members map[string][]int
	done    map[int]bool
	// deleting holds the named rows (rowKey) the change set deletes.
	deleting map[string]bool
}

func (r *renderer) line(format string, a ...any) {
	fmt.Fprintf(&r.b, format, a...)
	r.b.WriteByte('\n')
}

func (r *renderer) id() string {
	r.ids++
	return "@r" + strconv.Itoa(r.ids)
}

// atom spells a string in OVSDB syntax: a JSON string (ovn-nbctl unescapes
// strings as JSON does, \uXXXX included).
func atom(s string) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return strings.TrimSuffix(b.String(), "\n")
}

// value spells a column value in OVSDB syntax.
func value(v any) string {
	switch x := v.(type) {
	case string:
		return atom(x)
	case int:
		return strconv.Itoa(x)
	case bool:
		return strconv.FormatBool(x)
	case []string:
		q := make([]string, len(x))
		for i, s := range x {
			q[i] = atom(s)
		}
		return "[" + strings.Join(q, ",") + "]"
	case map[string]string:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		q := make([]string, len(keys))
		for i, k := range keys {
			q[i] = atom(k) + "=" + atom(x[k])
		}
		return "{" + strings.Join(q, ",") + "}"
	case map[string]int:
		q := make([]string, 0, len(x))
		for _, k := range slices.Sorted(maps.Keys(x)) {
			q = append(q, atom(k)+"="+strconv.Itoa(x[k]))
		}
		return "{" + strings.Join(q, ",") + "}"
	}
	panic(fmt.Sprintf("nbctl: value of type %T", v))
}

// comment makes s safe as the text of a "# ..." comment line: the shell
// ignores a comment up to the end of its line, so a newline in a name must
// not end it. Control characters (newline and carriage return included),
// DEL, the Unicode line separators and the backslash are written as Go
// escapes (\n, \x1b, \u2028, \\); everything else as it is, so the comment
// stays one line and reads unambiguously.
func comment(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\\':
			b.WriteString(`\\`)
		case r < 0x20 || r == 0x7f || r == 0x85 || r == 0x2028 || r == 0x2029 || r == utf8.RuneError:
			q := strconv.QuoteRuneToASCII(r)
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// subst marks a word that holds a command substitution built from quoted
// words: join writes it in double quotes, so that its $( ) runs and its
// output stays one word.
func subst(s string) string { return substPrefix + s }

// substPrefix starts a word join writes in double quotes (a NUL, which no
// other word can hold: names with NUL are refused by the shell anyway).
const substPrefix = "\x00subst:"

func join(words []string) string {
	q := make([]string, len(words))
	for i, w := range words {
		if s, ok := strings.CutPrefix(w, substPrefix); ok {
			q[i] = `"` + s + `"`
			continue
		}
		q[i] = shell.Quote(w)
	}
	return strings.Join(q, " ")
}

// columns renders col=value words in column order.
func columns(cols map[string]any) []string {
	names := make([]string, 0, len(cols))
	for c := range cols {
		names = append(names, c)
	}
	slices.Sort(names)
	out := make([]string, 0, len(names))
	for _, c := range names {
		out = append(out, c+"="+value(cols[c]))
	}
	return out
}

// refs renders "get" commands binding the referenced rows and returns the
// reference column words.
func (r *renderer) refs(row nbrow.Row, words *[]string) []string {
	var cols []string
	for _, ref := range row.Refs {
		ids := make([]string, len(ref.Names))
		for i, n := range ref.Names {
			ids[i] = r.id()
			*words = append(*words, "--", "--id="+ids[i], "get", ref.Table, n)
		}
		if ref.Column == "gateway_port" {
			cols = append(cols, ref.Column+"="+ids[0])
		} else {
			cols = append(cols, ref.Column+"=["+strings.Join(ids, ",")+"]")
		}
	}
	if len(row.GatewayChassis) > 0 {
		ids := make([]string, len(row.GatewayChassis))
		for i, g := range row.GatewayChassis {
			ids[i] = r.id()
			*words = append(*words, "--", "--id="+ids[i], "create", "Gateway_Chassis")
			*words = append(*words, columns(g)...)
		}
		cols = append(cols, "gateway_chassis=["+strings.Join(ids, ",")+"]")
	}
	return cols
}

func (r *renderer) create(obj topology.Object) error {
	words, err := r.createWords(obj)
	if err != nil {
		return err
	}
	r.line("%s %s >/dev/null", r.cmd, join(words))
	return nil
}

// createWords returns the commands creating obj: its row, added to its
// parent's member column, attached to the rows it names that exist. A
// parent whose member column has a schema minimum (a Meter's bands) is
// created with its members of the change set in the same invocation
// (their comments written now), and refused without enough of them.
func (r *renderer) createWords(obj topology.Object) ([]string, error) {
	row, err := nbrow.RowOf(obj)
	if err != nil {
		return nil, err
	}
	var words []string
	var memberCols []string
	if mins := nbrow.MinMembers(row.Table); len(mins) > 0 {
		ids := map[string][]string{}
		for _, i := range r.members[rowKey(row.Table, obj.Key())] {
			ch := r.changes[i]
			m, err := objectOf(ch)
			if err != nil {
				return nil, err
			}
			mrow, err := nbrow.RowOf(m)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", ch.String(), err)
			}
			r.line("# %s", comment(ch.String()))
			id := r.rowWords(mrow, &words)
			ids[mrow.Parent.Column] = append(ids[mrow.Parent.Column], id)
			r.done[i] = true
		}
		for _, col := range slices.Sorted(maps.Keys(mins)) {
			if n := len(ids[col]); n < mins[col] {
				return nil, fmt.Errorf("%w: %s: %s: the schema wants at least %d, the change set creates %d",
					ErrInvalidChange, nbrow.Describe(obj.Kind(), obj.Key()), col, mins[col], n)
			}
			memberCols = append(memberCols, col+"=["+strings.Join(ids[col], ",")+"]")
		}
	}
	self := r.rowWords(row, &words, memberCols...)
	if row.Parent != nil {
		words = append(words, "--", "add", row.Parent.Table, row.Parent.Names[0], row.Parent.Column, self)
	}
	for _, a := range row.Attachments {
		for _, n := range a.Names {
			if r.creating[a.Table+"\x00"+n] {
				r.pending[a.Table+"\x00"+n] = append(r.pending[a.Table+"\x00"+n], attachment{row.Table, obj.Key(), a.Column})
				continue
			}
			words = append(words, "--", "add", a.Table, n, a.Column, self)
		}
	}
	return words, nil
}

// rowWords appends the commands creating row (and the rows it references
// by get or creates with it) to words, with the extra col=value words, and
// returns the row's id.
func (r *renderer) rowWords(row nbrow.Row, words *[]string, extra ...string) string {
	refCols := r.refs(row, words)
	self := r.id()
	*words = append(*words, "--", "--id="+self, "create", row.Table)
	*words = append(*words, columns(row.Columns)...)
	*words = append(*words, refCols...)
	*words = append(*words, extra...)
	return self
}

// reattach appends the commands that move the row id from the rows old is
// attached to onto the rows row is attached to.
func reattach(words []string, id string, old, row nbrow.Row) []string {
	in := func(rs []nbrow.Ref, table, name string) bool {
		for _, r := range rs {
			if r.Table == table && slices.Contains(r.Names, name) {
				return true
			}
		}
		return false
	}
	for _, a := range old.Attachments {
		for _, n := range a.Names {
			if !in(row.Attachments, a.Table, n) {
				words = append(words, "--", "remove", a.Table, n, a.Column, id)
			}
		}
	}
	for _, a := range row.Attachments {
		for _, n := range a.Names {
			if !in(old.Attachments, a.Table, n) {
				words = append(words, "--", "add", a.Table, n, a.Column, id)
			}
		}
	}
	return words
}

// attachment is a row (table, name) to add to a holder's column once the
// holder is created.
type attachment struct{ table, name, column string }

// named kinds have a name: the record can be named on the command line.
func named(k topology.Kind) bool { return nbrow.Named(k) }

func (r *renderer) update(ch topology.Change) error {
	if !named(ch.Kind) {
		old := ch.Old
		if old == nil {
			return fmt.Errorf("%w: update of an unnamed row without its old object", ErrUnsupported)
		}
		// One invocation, one transaction: the new row in and the old one
		// out (found before either), so that its parent never holds
		// fewer members than its schema's minimum.
		rm, err := r.removeWords(old)
		if err != nil {
			return err
		}
		words, err := r.createWords(ch.Object)
		if err != nil {
			return err
		}
		r.line("%s %s -- %s >/dev/null", r.cmd, join(words), rm)
		return nil
	}
	row, err := nbrow.RowOf(ch.Object)
	if err != nil {
		return err
	}
	cols := ch.Columns
	if len(cols) == 0 {
		return fmt.Errorf("%w: update without columns", ErrUnsupported)
	}
	var words, set, clear []string
	refCols := map[string]string{}
	var pre []string
	for _, rc := range r.refs(row, &pre) {
		c, v, _ := strings.Cut(rc, "=")
		refCols[c] = v
	}
	move, attach := false, false
	for _, c := range cols {
		switch {
		case c == topology.ColumnAttachments:
			attach = true
		case nbrow.MoveColumn(ch.Kind, c):
			move = true
		case c == "external_ids" && !nbrow.HasExternalIDs(ch.Kind):
		case refCols[c] != "":
			set = append(set, c+"="+refCols[c])
		case row.Columns[c] != nil:
			set = append(set, c+"="+value(row.Columns[c]))
		default:
			clear = append(clear, c)
		}
	}
	self := ch.Key
	words = append(words, pre...)
	if len(set) > 0 {
		words = append(words, "--", "set", row.Table, self)
		words = append(words, set...)
	}
	for _, c := range clear {
		words = append(words, "--", "clear", row.Table, self, c)
	}
	if move && row.Parent != nil {
		old, err := nbrow.RowOf(ch.Old)
		if err != nil {
			return err
		}
		id := r.id()
		words = append(words, "--", "--id="+id, "get", row.Table, self)
		if old.Parent != nil {
			words = append(words, "--", "remove", old.Parent.Table, old.Parent.Names[0], old.Parent.Column, id)
		}
		words = append(words, "--", "add", row.Parent.Table, row.Parent.Names[0], row.Parent.Column, id)
	}
	if attach {
		if ch.Old == nil {
			return fmt.Errorf("%w: attachments changed without the old object", ErrUnsupported)
		}
		old, err := nbrow.RowOf(ch.Old)
		if err != nil {
			return err
		}
		id := r.id()
		words = append(words, "--", "--id="+id, "get", row.Table, self)
		words = reattach(words, id, old, row)
	}
	if len(words) == 0 {
		return nil
	}
	r.line("%s %s", r.cmd, join(words))
	return nil
}

// findWords returns "find" conditions that select an unnamed row by its
// key columns (its descriptor's, as the adapter matches them) and its
// owner's external_ids. A reference among the key columns (a NAT's
// gateway_port) is matched by the UUID of the named row, looked up by a
// nested ovn-nbctl command.
func (r *renderer) findWords(obj topology.Object) ([]string, error) {
	row, err := nbrow.RowOf(obj)
	if err != nil {
		return nil, err
	}
	refs := map[string]nbrow.NameRef{}
	for _, nr := range nbrow.NameRefs(obj) {
		refs[nr.Column] = nr
	}
	// The values the adapter matches the key columns by (the spelling
	// the row mapping writes, an optional column as a set).
	conds, _ := nbrow.KeyConditions(obj)
	match := make(map[string]any, len(conds))
	for _, c := range conds {
		match[c.Column] = c.Value
	}
	w := []string{"--bare", "--columns=_uuid", "find", row.Table}
	for _, k := range nbrow.KeyColumns(obj.Kind()) {
		if nr, ok := refs[k]; ok {
			if len(nr.Names) == 0 {
				w = append(w, k+"=[]")
				continue
			}
			// Quoted as a word of its own by join: the shell expands the
			// $( ) of this one word only (join leaves it unquoted).
			w = append(w, subst(k+"=$("+r.cmd+" "+join([]string{"--bare", "--columns=_uuid", "find", nr.Kind.Table(),
				"name=" + atom(nr.Names[0])})+")"))
			continue
		}
		switch v := match[k].(type) {
		case ovsdb.OvsSet: // an optional column: empty, or its one value
			if len(v.GoSet) == 0 {
				w = append(w, k+"=[]")
			} else {
				w = append(w, k+"="+value(v.GoSet[0]))
			}
		case nil:
			return nil, fmt.Errorf("%w: %s: key column %s has no condition", ErrUnsupported, obj.Kind(), k)
		default:
			w = append(w, k+"="+value(v))
		}
	}
	ids, _ := row.Columns["external_ids"].(map[string]string)
	keys := make([]string, 0, len(ids))
	for k := range ids {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		w = append(w, "external_ids:"+atom(k)+"="+atom(ids[k]))
	}
	return w, nil
}

// removeWords returns the command removing the unnamed member obj from its
// parent (which deletes it), the row found by its key columns.
func (r *renderer) removeWords(obj topology.Object) (string, error) {
	row, err := nbrow.RowOf(obj)
	if err != nil {
		return "", err
	}
	fw, err := r.findWords(obj)
	if err != nil {
		return "", err
	}
	p := row.Parent
	return fmt.Sprintf("remove %s %s %s $(%s %s)", shell.Quote(p.Table), shell.Quote(p.Names[0]), shell.Quote(p.Column), r.cmd, join(fw)), nil
}

func (r *renderer) delete(obj topology.Object) error {
	if obj == nil {
		return fmt.Errorf("%w: delete without an object", ErrUnsupported)
	}
	row, err := nbrow.RowOf(obj)
	if err != nil {
		return err
	}
	switch {
	case !named(obj.Kind()):
		rm, err := r.removeWords(obj)
		if err != nil {
			return err
		}
		r.line("%s %s", r.cmd, rm)
	case row.Parent != nil:
		id := r.id()
		r.line("%s %s", r.cmd, join([]string{"--", "--id=" + id, "get", row.Table, obj.Key(),
			"--", "remove", row.Parent.Table, row.Parent.Names[0], row.Parent.Column, id}))
	default:
		r.line("%s destroy %s %s", r.cmd, row.Table, shell.Quote(obj.Key()))
	}
	return nil
}
