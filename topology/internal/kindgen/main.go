// Command kindgen writes the per-kind code of package topology and of the
// OVN row mapping (internal/nbrow) from the object types themselves: a
// type is a kind when its doc comment carries the directive
//
//	//udnkit:kind table=<OVN Northbound table> id=<value> order=<creation rank> [name=<short name>]
//
// id is the value of the kind's Kind constant (1 to 255, unique, never
// reused: inserting a kind renumbers nothing); order ranks it for creation
// (a parent and a referenced row before the rows that name them), apart
// from its value; the short name, Kind.String, defaults to the type's name
// in snake case. Its fields say, in `nb` struct tags, which column each
// one is:
//
//	nb:"<column>[,flag...]"
//
// with the flags
//
//	key           part of the key (a named kind's key is its name column)
//	required      an object with the zero value is refused (nbrow.Check)
//	ip            a prefix spelled as OVN tools do (a single address bare)
//	q             rendered quoted
//	label=<text>  rendered under text instead of the column name
//	ref=<Type>    the column references rows of kind Type, held by name
//	parent=<Type>.<column>  (no column) the name of the row of kind Type
//	              whose column holds the object as a member
//	attach=<Type>.<column>  (no column) the names of the rows of kind Type
//	              whose column holds the object by its owner's choice
//
// The Owner field is implicit (external_ids), as is an ExternalIDs field's
// merge into it. Set columns (slices) are kept sorted. An Options field
// maps a map of strings, an IntOptions field a map of integers (its keys
// checked against the schema's enum, each once, its values against the
// schema's range). A bool field maps a
// boolean column (an optional one is left unset when false). A member's
// table must not be a root table (deleting its parent deletes it), and a
// parent's member column with a schema minimum is recorded
// (ParentColumn.Min) for the adapters. From these it writes kinds_gen.go
// (Kind constants, Kinds and each kind's creation order, descriptors, Kind,
// OwnedBy, Key, clone, normalize, isNormal, columns, render, Parent,
// References, Attached, WithAttached) and the nbrow rows_gen.go (ToRow,
// FromRow, the generated checks, key conditions, reference column access
// and the client's table models), reading the Northbound schema for the
// column types, enums and name indexes.
//
//	go run ./internal/kindgen -o kinds_gen.go -nbrow ../internal/nbrow/rows_gen.go .
package main

import (
	"bytes"
	"cmp"
	"flag"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/ovn-kubernetes/libovsdb/ovsdb"

	"github.com/udnkit/udnkit/internal/nbdb"
)

func main() {
	out := flag.String("o", "kinds_gen.go", "topology output file")
	rows := flag.String("nbrow", "../internal/nbrow/rows_gen.go", "nbrow output file")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: kindgen -o OUT -nbrow OUT DIR")
		os.Exit(2)
	}
	top, nb, err := generate(flag.Arg(0))
	if err == nil {
		err = os.WriteFile(*out, top, 0o644)
	}
	if err == nil {
		err = os.WriteFile(*rows, nb, 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "kindgen:", err)
		os.Exit(1)
	}
}

// generate reads package dir (and the extra files, as if they were in it)
// and returns the two generated files.
func generate(dir string, extra ...string) (topo, rows []byte, err error) {
	kinds, structs, appenders, err := read(dir, extra...)
	if err != nil {
		return nil, nil, err
	}
	if err := resolve(kinds, structs, appenders); err != nil {
		return nil, nil, err
	}
	topo, err = writeTopology(kinds, structs)
	if err != nil {
		return nil, nil, fmt.Errorf("topology: %w", err)
	}
	rows, err = writeRows(kinds)
	if err != nil {
		return nil, nil, fmt.Errorf("nbrow: %w", err)
	}
	return topo, rows, nil
}

// kind is one object type with its directive and fields.
type kind struct {
	typ, table string
	id, order  int
	fields     []field
	pos        string

	name        string // short name, snake case of typ
	named       bool
	indexed     bool
	ids         bool // the table has external_ids
	extraIDs    bool // an ExternalIDs field
	handKey     bool // appendKey written by hand
	model       reflect.Type
	keyFields   []*field
	parents     []*field
	attachments []*field
}

// field is one field of a kind.
type field struct {
	name, typ                string // Go field name and type expression
	column                   string
	key, required, ip, quote bool
	label                    string
	ref                      string // kind type
	parentOf, attachTo       string // kind type of parent / holder
	holderColumn             string
	holderMin                int // the schema's minimum size of holderColumn

	colType   reflect.Type // the nbdb model's Go type of column
	modelName string       // and its Go field name
	enum      []string     // the values a column (or a map's key) takes
	// valueMin and valueMax bound the values of a map of integers.
	valueMin, valueMax int
}

func (f *field) isOwner() bool { return f.typ == "Owner" }

// plain: a column the row mapping converts (not a reference, parent,
// attachment or gateway chassis).
func (f *field) plain() bool {
	return f.column != "" && f.ref == "" && f.typ != "[]GatewayChassis"
}

func (f *field) renderLabel() string {
	switch {
	case f.label != "":
		return f.label
	case f.column != "":
		return f.column
	}
	return snake(f.name)
}

func read(dir string, extra ...string) (kinds []*kind, structs map[string]*ast.StructType, appenders map[string]bool, err error) {
	fset := token.NewFileSet()
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, nil, nil, err
	}
	names = append(names, extra...)
	structs = map[string]*ast.StructType{}
	appenders = map[string]bool{}
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") || strings.HasSuffix(name, "_gen.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ParseComments)
		if err != nil {
			return nil, nil, nil, err
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv != nil && d.Name.Name == "appendKey" && len(d.Recv.List) == 1 {
					appenders[types(d.Recv.List[0].Type)] = true
				}
			case *ast.GenDecl:
				if d.Tok != token.TYPE {
					continue
				}
				for _, s := range d.Specs {
					ts := s.(*ast.TypeSpec)
					st, ok := ts.Type.(*ast.StructType)
					if !ok {
						continue
					}
					structs[ts.Name.Name] = st
					doc := ts.Doc
					if doc == nil && len(d.Specs) == 1 {
						doc = d.Doc
					}
					k, err := directive(doc, ts.Name.Name, st)
					if err != nil {
						return nil, nil, nil, fmt.Errorf("%s: %w", fset.Position(ts.Pos()), err)
					}
					if k != nil {
						k.pos = fset.Position(ts.Pos()).String()
						kinds = append(kinds, k)
					}
				}
			}
		}
	}
	slices.SortFunc(kinds, func(a, b *kind) int { return cmp.Or(cmp.Compare(a.order, b.order), strings.Compare(a.typ, b.typ)) })
	byName := map[string]string{}
	for _, k := range kinds {
		if other, dup := byName[k.name]; dup {
			a, b := min(other, k.typ), max(other, k.typ)
			return nil, nil, nil, fmt.Errorf("%s and %s: same name %q", a, b, k.name)
		}
		byName[k.name] = k.typ
	}
	for i := 1; i < len(kinds); i++ {
		if kinds[i].order == kinds[i-1].order {
			return nil, nil, nil, fmt.Errorf("%s and %s: same order %d", kinds[i-1].typ, kinds[i].typ, kinds[i].order)
		}
	}
	byTable := map[string]string{}
	for _, k := range kinds {
		// Observe reads a table's rows back as one kind.
		if other, dup := byTable[k.table]; dup {
			a, b := min(other, k.typ), max(other, k.typ)
			return nil, nil, nil, fmt.Errorf("%s and %s: same table %s", a, b, k.table)
		}
		byTable[k.table] = k.typ
	}
	byID := map[int]string{}
	for _, k := range kinds {
		if other, dup := byID[k.id]; dup {
			a, b := min(other, k.typ), max(other, k.typ)
			return nil, nil, nil, fmt.Errorf("%s and %s: same id %d", a, b, k.id)
		}
		byID[k.id] = k.typ
	}
	if len(kinds) == 0 {
		return nil, nil, nil, fmt.Errorf("%s: no type with a //udnkit:kind directive", dir)
	}
	return kinds, structs, appenders, nil
}

func types(e ast.Expr) string {
	var b bytes.Buffer
	format.Node(&b, token.NewFileSet(), e)
	return b.String()
}

// directive returns the kind a type's doc comment declares, nil for none.
func directive(doc *ast.CommentGroup, typ string, st *ast.StructType) (*kind, error) {
	if doc == nil {
		return nil, nil
	}
	var k *kind
	for _, c := range doc.List {
		rest, ok := strings.CutPrefix(c.Text, "//udnkit:kind ")
		if !ok {
			continue
		}
		if k != nil {
			return nil, fmt.Errorf("%s: two //udnkit:kind directives", typ)
		}
		k = &kind{typ: typ, name: snake(typ)}
		seen := map[string]bool{}
		for _, kv := range strings.Fields(rest) {
			key, v, _ := strings.Cut(kv, "=")
			if seen[key] {
				return nil, fmt.Errorf("directive of %s: %s given twice", typ, key)
			}
			seen[key] = true
			switch key {
			case "table":
				k.table = v
			case "name":
				k.name = v
			case "order":
				n, err := strconv.Atoi(v)
				if err != nil || n <= 0 {
					return nil, fmt.Errorf("directive of %s: order %q is not a positive number", typ, v)
				}
				k.order = n
			case "id":
				// Kind is a uint8, and 0 is no kind.
				n, err := strconv.Atoi(v)
				if err != nil || n < 1 || n > 255 {
					return nil, fmt.Errorf("directive of %s: id %q is not a number from 1 to 255", typ, v)
				}
				k.id = n
			default:
				return nil, fmt.Errorf("directive of %s: unknown %q", typ, kv)
			}
		}
		if k.table == "" || k.order == 0 || k.id == 0 {
			return nil, fmt.Errorf("directive of %s: table, id and order are required", typ)
		}
	}
	if k == nil {
		return nil, nil
	}
	for _, fl := range st.Fields.List {
		if len(fl.Names) != 1 {
			return nil, fmt.Errorf("%s: one name per field", typ)
		}
		f := field{name: fl.Names[0].Name, typ: types(fl.Type)}
		if fl.Tag != nil {
			tag, _ := strconv.Unquote(fl.Tag.Value)
			nb, ok := reflect.StructTag(tag).Lookup("nb")
			if !ok {
				return nil, fmt.Errorf("%s.%s: a tag other than nb", typ, f.name)
			}
			parts := strings.Split(nb, ",")
			f.column = parts[0]
			for _, p := range parts[1:] {
				key, v, hasValue := strings.Cut(p, "=")
				if valued := key == "label" || key == "ref" || key == "parent" || key == "attach"; valued != hasValue {
					if hasValue {
						return nil, fmt.Errorf("%s.%s: flag %q takes no value", typ, f.name, p)
					}
					return nil, fmt.Errorf("%s.%s: flag %q needs a value", typ, f.name, p)
				}
				switch key {
				case "key":
					f.key = true
				case "required":
					f.required = true
				case "ip":
					f.ip = true
				case "q":
					f.quote = true
				case "label":
					f.label = v
				case "ref":
					f.ref = v
				case "parent", "attach":
					t, col, ok := strings.Cut(v, ".")
					if !ok || f.column != "" {
						return nil, fmt.Errorf("%s.%s: %s=Type.column, and no column of its own", typ, f.name, key)
					}
					f.holderColumn = col
					if key == "parent" {
						f.parentOf = t
					} else {
						f.attachTo = t
					}
				default:
					return nil, fmt.Errorf("%s.%s: unknown flag %q", typ, f.name, p)
				}
			}
		} else if !f.isOwner() {
			return nil, fmt.Errorf("%s.%s: no nb tag", typ, f.name)
		}
		k.fields = append(k.fields, f)
	}
	return k, nil
}

// resolve checks the kinds against each other and the Northbound schema.
func resolve(kinds []*kind, structs map[string]*ast.StructType, appenders map[string]bool) error {
	schema := nbdb.Schema()
	dbm, err := nbdb.FullDatabaseModel()
	if err != nil {
		return err
	}
	models := dbm.Types()
	byType := map[string]*kind{}
	for _, k := range kinds {
		byType[k.typ] = k
	}
	for _, k := range kinds {
		ts, ok := schema.Tables[k.table]
		if !ok {
			return fmt.Errorf("%s: table %q is not in the Northbound schema", k.pos, k.table)
		}
		k.model = models[k.table].Elem()
		_, k.ids = ts.Columns["external_ids"]
		if !k.ids && k.table != "Load_Balancer_Group" {
			// The adapter owns a group by the rows that reference it;
			// any other row by its external_ids.
			return fmt.Errorf("%s: table %s has no external_ids to own its rows by", k.pos, k.table)
		}
		k.handKey = appenders[k.typ]
		owner := false
		for i := range k.fields {
			f := &k.fields[i]
			where := k.typ + "." + f.name
			if f.isOwner() {
				owner = true
				continue
			}
			if f.name == "ExternalIDs" && f.column == "external_ids" {
				k.extraIDs = true
			}
			for _, t := range []string{f.ref, f.parentOf, f.attachTo} {
				if t != "" && byType[t] == nil {
					return fmt.Errorf("%s: %s is not a kind", where, t)
				}
			}
			if h := f.parentOf + f.attachTo; h != "" {
				// The holder column must reference this kind's table, and
				// Diff creates (in order=) a parent before its members.
				hk := byType[h]
				if cs, ok := schema.Tables[hk.table].Columns[f.holderColumn]; ok {
					if rt := refTable(cs); rt != k.table {
						return fmt.Errorf("%s: %s.%s references %q, not %s", where, hk.table, f.holderColumn, rt, k.table)
					}
				}
				if f.parentOf != "" && hk.order >= k.order {
					return fmt.Errorf("%s: order %d is not after its parent %s's %d", where, k.order, hk.typ, hk.order)
				}
			}
			if f.ref != "" && byType[f.ref].order >= k.order {
				return fmt.Errorf("%s: order %d is not after the referenced %s's %d", where, k.order, f.ref, byType[f.ref].order)
			}
			switch {
			case f.parentOf != "":
				k.parents = append(k.parents, f)
				pt := byType[f.parentOf].table
				if !hasColumn(schema, pt, f.holderColumn) {
					return fmt.Errorf("%s: %s has no column %s", where, pt, f.holderColumn)
				}
				if ts.IsRoot {
					// Deleting the parent deletes a member only when
					// nothing else keeps it: a root row would stay.
					return fmt.Errorf("%s: %s is a root table: its rows outlive the %s that holds them", where, k.table, pt)
				}
				f.holderMin = schema.Tables[pt].Columns[f.holderColumn].TypeObj.Min()
				if f.typ != "string" {
					return fmt.Errorf("%s: a parent is a string", where)
				}
			case f.attachTo != "":
				k.attachments = append(k.attachments, f)
				if !hasColumn(schema, byType[f.attachTo].table, f.holderColumn) {
					return fmt.Errorf("%s: %s has no column %s", where, byType[f.attachTo].table, f.holderColumn)
				}
				if f.typ != "[]string" {
					return fmt.Errorf("%s: attachments are []string", where)
				}
			default:
				cs, ok := ts.Columns[f.column]
				if !ok {
					return fmt.Errorf("%s: table %s has no column %q", where, k.table, f.column)
				}
				sf, ok := modelField(k.model, f.column)
				if !ok {
					return fmt.Errorf("%s: model of %s has no column %q", where, k.table, f.column)
				}
				f.colType, f.modelName = sf.Type, sf.Name
				if f.ref != "" {
					if rt, _ := cs.TypeObj.Key.RefTable(); rt != byType[f.ref].table {
						return fmt.Errorf("%s: column %s refers to %q, not %s", where, f.column, rt, byType[f.ref].table)
					}
				}
				if cs.TypeObj != nil && cs.TypeObj.Key != nil {
					for _, e := range cs.TypeObj.Key.Enum {
						f.enum = append(f.enum, fmt.Sprint(e))
					}
					slices.Sort(f.enum)
					// A single enum value, not optional: empty is not one.
					f.required = f.required || len(f.enum) > 0 && f.colType.Kind() == reflect.String
				}
				if f.typ == intOptions && cs.TypeObj != nil && cs.TypeObj.Value != nil {
					// Bounds of a map's integer values (a QoS action's
					// 0..4294967295, its bandwidth's 1..).
					f.valueMin, _ = cs.TypeObj.Value.MinInteger()
					f.valueMax, _ = cs.TypeObj.Value.MaxInteger()
				}
				if f.plain() && refTable(cs) != "" {
					return fmt.Errorf("%s: column %s references %s: say ref=<Type>", where, f.column, refTable(cs))
				}
				if f.plain() {
					if _, err := toRowExpr(f, "x"); err != nil {
						return fmt.Errorf("%s: %w", where, err)
					}
				}
			}
			if f.typ == "bool" && f.required {
				return fmt.Errorf("%s: a bool cannot be required (false is a value)", where)
			}
			if f.key {
				k.keyFields = append(k.keyFields, f)
			}
		}
		if !owner {
			return fmt.Errorf("%s: no Owner field", k.pos)
		}
		k.named = len(k.keyFields) == 1 && k.keyFields[0].column == "name"
		if k.named {
			k.indexed = slices.ContainsFunc(ts.Indexes, func(ix []string) bool { return slices.Equal(ix, []string{"name"}) })
		} else {
			if len(k.keyFields) == 0 {
				return fmt.Errorf("%s: no key field", k.pos)
			}
			if len(k.parents) != 1 && !k.handKey {
				return fmt.Errorf("%s: a key with %d parents needs appendKey written by hand", k.pos, len(k.parents))
			}
		}
		for _, f := range k.fields {
			if strings.HasPrefix(f.typ, "[]") {
				if el := f.typ[2:]; structs[el] != nil && el != "GatewayChassis" && el != "LBVIP" {
					return fmt.Errorf("%s.%s: slices of %s are not supported", k.typ, f.name, el)
				}
			}
		}
	}
	return nil
}

// refTable returns the table a reference column refers to, "" for another column.
func refTable(cs *ovsdb.ColumnSchema) string {
	if cs.TypeObj == nil || cs.TypeObj.Key == nil {
		return ""
	}
	rt, _ := cs.TypeObj.Key.RefTable()
	return rt
}

func hasColumn(s ovsdb.DatabaseSchema, table, col string) bool {
	_, ok := s.Tables[table].Columns[col]
	return ok
}

func modelField(t reflect.Type, col string) (reflect.StructField, bool) {
	for i := 0; i < t.NumField(); i++ {
		if t.Field(i).Tag.Get("ovsdb") == col {
			return t.Field(i), true
		}
	}
	return reflect.StructField{}, false
}

// snake returns the snake case of a Go name: SwitchPort → switch_port,
// NAT → nat, LoadBalancerGroup → load_balancer_group.
func snake(s string) string {
	var b strings.Builder
	r := []rune(s)
	for i, c := range r {
		if unicode.IsUpper(c) && i > 0 && (unicode.IsLower(r[i-1]) || i+1 < len(r) && unicode.IsLower(r[i+1])) {
			b.WriteByte('_')
		}
		b.WriteRune(unicode.ToLower(c))
	}
	return b.String()
}

// gen is a buffer of generated code.
type gen struct{ bytes.Buffer }

func (g *gen) p(format string, args ...any) { fmt.Fprintf(g, format+"\n", args...) }

// withHeader returns body as a formatted file of package pkg, importing
// the standard packages it uses and those of module that it uses.
func withHeader(pkg string, body []byte, module []string) ([]byte, error) {
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s\npackage %s\n\nimport (\n", header, pkg)
	for _, std := range []string{"fmt", "net/netip", "slices", "strconv", "strings"} {
		if bytes.Contains(body, []byte(std[strings.LastIndex(std, "/")+1:]+".")) {
			fmt.Fprintf(&b, "%q\n", std)
		}
	}
	b.WriteString("\n")
	for _, m := range module {
		if bytes.Contains(body, []byte(m[strings.LastIndex(m, "/")+1:]+".")) {
			fmt.Fprintf(&b, "%q\n", m)
		}
	}
	b.WriteString(")\n\n")
	b.Write(body)
	code, err := format.Source(b.Bytes())
	if err != nil {
		return nil, fmt.Errorf("%w\n%s", err, b.Bytes())
	}
	return code, nil
}

const header = "// Code generated by kindgen from the kind types; DO NOT EDIT.\n"

// intOptions is the field type of a map column of integers (topology.IntOptions).
const intOptions = "IntOptions"

// elem returns a slice type's element type, "" for another type.
func elem(typ string) string {
	e, _ := strings.CutPrefix(typ, "[]")
	if e == typ {
		return ""
	}
	return e
}

// compareFunc returns the comparison a set column of element type e is
// sorted by ("" for the natural order of strings).
func compareFunc(e string) string {
	switch e {
	case "string":
		return ""
	case "netip.Prefix":
		return "comparePrefix"
	case "netip.Addr":
		return "netip.Addr.Compare"
	case "Option":
		return "compareOptions"
	}
	return "compare" + e
}

func writeTopology(kinds []*kind, structs map[string]*ast.StructType) ([]byte, error) {
	var g gen
	byID := slices.Clone(kinds)
	slices.SortFunc(byID, func(a, b *kind) int { return cmp.Compare(a.id, b.id) })
	g.p("// Kinds of objects in a State. A value is the kind's id= and never\n// changes; Kinds lists them in creation order (the kinds' order=).\nconst (")
	for _, k := range byID {
		g.p("Kind%s Kind = %d // %s", k.typ, k.id, k.table)
	}
	g.p(")\n")
	g.p("// kindEnd is one more than the largest Kind.\nconst kindEnd = %d\n", byID[len(byID)-1].id+1)

	var inOrder []string
	for _, k := range kinds {
		inOrder = append(inOrder, "Kind"+k.typ)
	}
	g.p("// kindsInOrder holds every kind in creation order.\nvar kindsInOrder = [...]Kind{%s}\n", strings.Join(inOrder, ", "))
	g.p("// Kinds returns every kind in creation order: a row's parent and the\n// rows it references come before it.\nfunc Kinds() []Kind { return slices.Clone(kindsInOrder[:]) }\n")
	g.p("// kindOrder is indexed by Kind: the kind's place in kindsInOrder, from 1\n// (0: no kind). One entry per uint8, so indexing needs no bounds check.\nvar kindOrder = [256]uint8{")
	for i, k := range kinds {
		g.p("Kind%s: %d,", k.typ, i+1)
	}
	g.p("}\n")

	g.p("// descriptors is indexed by Kind.\nvar descriptors = [kindEnd]Descriptor{")
	for _, k := range kinds {
		g.p("Kind%s: {Kind: Kind%s, Type: %q, Name: %q, Table: %q, Named: %v, Indexed: %v,", k.typ, k.typ, k.typ, k.name, k.table, k.named, k.indexed)
		if !k.named {
			var cols []string
			for _, f := range k.keyFields {
				cols = append(cols, strconv.Quote(f.column))
			}
			g.p("KeyColumns: []string{%s},", strings.Join(cols, ", "))
		}
		if len(k.parents) > 0 {
			var ps []string
			for _, f := range k.parents {
				if f.holderMin > 0 {
					ps = append(ps, fmt.Sprintf("{Kind: Kind%s, Column: %q, Min: %d}", f.parentOf, f.holderColumn, f.holderMin))
				} else {
					ps = append(ps, fmt.Sprintf("{Kind: Kind%s, Column: %q}", f.parentOf, f.holderColumn))
				}
			}
			g.p("Parents: []ParentColumn{%s},", strings.Join(ps, ", "))
		}
		var refs, upd []string
		for _, f := range k.fields {
			if f.ref != "" {
				refs = append(refs, fmt.Sprintf("{%q, Kind%s}", f.column, f.ref))
			}
			if f.column != "" && !f.key && f.column != "external_ids" {
				upd = append(upd, strconv.Quote(f.column))
			}
		}
		if k.ids {
			upd = append(upd, `"external_ids"`)
		}
		if len(refs) > 0 {
			g.p("Refs: []RefColumn{%s},", strings.Join(refs, ", "))
		}
		if len(k.attachments) > 0 {
			var as []string
			for _, f := range k.attachments {
				as = append(as, fmt.Sprintf("{Kind: Kind%s, Column: %q}", f.attachTo, f.holderColumn))
			}
			g.p("Attachments: []ParentColumn{%s},", strings.Join(as, ", "))
		}
		if len(upd) > 0 {
			g.p("Updatable: []string{%s},", strings.Join(upd, ", "))
		}
		g.p("},")
	}
	g.p("}\n")

	for _, k := range kinds {
		g.p("// Kind returns Kind%s.\nfunc (%s) Kind() Kind { return Kind%s }\n", k.typ, k.typ, k.typ)
		g.p("// OwnedBy returns the owner.\nfunc (o %s) OwnedBy() Owner { return o.Owner }\n", k.typ)
		switch {
		case k.named:
			g.p("// Key returns the name.\nfunc (o %s) Key() string { return o.Name }\n", k.typ)
		case !k.handKey:
			writeKey(&g, k)
		}
		writeClone(&g, k, structs)
		writeNormalize(&g, k)
		writeColumns(&g, k, kinds, structs)
		writeRender(&g, k)
	}
	writeRelations(&g, kinds)
	return withHeader("topology", g.Bytes(), nil)
}

func writeKey(g *gen, k *kind) {
	names := []string{snake(k.parents[0].name)}
	for _, f := range k.keyFields {
		names = append(names, f.column)
	}
	g.p("// Key returns %q.\nfunc (o %s) Key() string {\nvar scratch [128]byte\nreturn string(o.appendKey(scratch[:0]))\n}\n", strings.Join(names, "|"), k.typ)
	g.p("func (o %s) appendKey(b []byte) []byte {", k.typ)
	fs := append([]*field{k.parents[0]}, k.keyFields...)
	for i, f := range fs {
		var e string
		switch f.typ {
		case "int":
			e = fmt.Sprintf("strconv.AppendInt(b, int64(o.%s), 10)", f.name)
		case "bool":
			e = fmt.Sprintf("strconv.AppendBool(b, o.%s)", f.name)
		case "netip.Prefix":
			e = fmt.Sprintf("appendPrefix(b, o.%s)", f.name)
		case "netip.Addr":
			e = fmt.Sprintf("o.%s.AppendTo(b)", f.name)
		default:
			e = fmt.Sprintf("append(b, o.%s...)", f.name)
		}
		if i == len(fs)-1 {
			g.p("return %s", e)
		} else {
			g.p("b = append(%s, '|')", e)
		}
	}
	g.p("}\n")
}

// deep reports the slice fields of struct type e.
func deep(structs map[string]*ast.StructType, e string) []string {
	var out []string
	if st := structs[e]; st != nil {
		for _, fl := range st.Fields.List {
			if strings.HasPrefix(types(fl.Type), "[]") {
				out = append(out, fl.Names[0].Name)
			}
		}
	}
	return out
}

func writeClone(g *gen, k *kind, structs map[string]*ast.StructType) {
	g.p("func (o %s) clone() Object {", k.typ)
	for _, f := range k.fields {
		e := elem(f.typ)
		switch {
		case f.typ == "Options":
			g.p("o.%s = cloneOpts(o.%s)", f.name, f.name)
		case f.typ == intOptions:
			g.p("o.%s = slices.Clone(o.%s)", f.name, f.name)
		case e != "":
			g.p("o.%s = slices.Clone(o.%s)", f.name, f.name)
			for _, d := range deep(structs, e) {
				g.p("for i := range o.%s {\no.%s[i].%s = slices.Clone(o.%s[i].%s)\n}", f.name, f.name, d, f.name, d)
			}
		}
	}
	g.p("return o\n}\n")
}

func writeNormalize(g *gen, k *kind) {
	var norm, is []string
	for _, f := range k.fields {
		e := elem(f.typ)
		switch {
		case f.typ == "Options":
			norm = append(norm, fmt.Sprintf("o.%s = sortedOptions(o.%s)", f.name, f.name))
			is = append(is, fmt.Sprintf("optsSorted(o.%s)", f.name))
		case f.typ == intOptions:
			norm = append(norm, fmt.Sprintf("o.%s = sortedFunc(o.%s, compareIntOptions)", f.name, f.name))
			is = append(is, fmt.Sprintf("slices.IsSortedFunc(o.%s, compareIntOptions)", f.name))
		case e != "":
			if c := compareFunc(e); c == "" {
				norm = append(norm, fmt.Sprintf("o.%s = sortedStrings(o.%s)", f.name, f.name))
				is = append(is, fmt.Sprintf("slices.IsSorted(o.%s)", f.name))
			} else {
				norm = append(norm, fmt.Sprintf("o.%s = sortedFunc(o.%s, %s)", f.name, f.name, c))
				is = append(is, fmt.Sprintf("slices.IsSortedFunc(o.%s, %s)", f.name, c))
			}
		}
	}
	g.p("func (o %s) normalize() Object {\n%s\nreturn o\n}\n", k.typ, strings.Join(norm, "\n"))
	if len(is) == 0 {
		is = []string{"true"}
	}
	g.p("func (o %s) isNormal() bool {\nreturn %s\n}\n", k.typ, strings.Join(is, " &&\n"))
}

// differs returns the expression that is true when field f of o and p differ.
func differs(f *field, structs map[string]*ast.StructType) string {
	e := elem(f.typ)
	switch {
	case f.typ == "Options" || f.typ == intOptions:
		return fmt.Sprintf("!o.%s.Equal(p.%s)", f.name, f.name)
	case e != "" && len(deep(structs, e)) > 0:
		var conds []string
		for _, fl := range structs[e].Fields.List {
			n := fl.Names[0].Name
			if strings.HasPrefix(types(fl.Type), "[]") {
				conds = append(conds, fmt.Sprintf("slices.Equal(x.%s, y.%s)", n, n))
			} else {
				conds = append(conds, fmt.Sprintf("x.%s == y.%s", n, n))
			}
		}
		return fmt.Sprintf("!slices.EqualFunc(o.%s, p.%s, func(x, y %s) bool { return %s })", f.name, f.name, e, strings.Join(conds, " && "))
	case e != "":
		return fmt.Sprintf("!slices.Equal(o.%s, p.%s)", f.name, f.name)
	}
	return fmt.Sprintf("o.%s != p.%s", f.name, f.name)
}

func writeColumns(g *gen, k *kind, kinds []*kind, structs map[string]*ast.StructType) {
	g.p("func (o %s) columns(x Object) []string {\np := x.(%s)\nvar c cols", k.typ, k.typ)
	ids := []string{"!o.Owner.Equal(p.Owner)"}
	var attach []string
	for i := range k.fields {
		f := &k.fields[i]
		switch {
		case f.isOwner() || f.key:
		case f.parentOf != "":
			if k.named { // an unnamed kind's parent is part of its key
				// A move: the pseudo-column named after the parent kind.
				g.p("c.add(o.%s != p.%s, %q)", f.name, f.name, kindOf(kinds, f.parentOf).name)
			}
		case f.attachTo != "":
			attach = append(attach, differs(f, structs))
		case f.column == "external_ids":
			ids = append(ids, differs(f, structs))
		default:
			g.p("c.add(%s, %q)", differs(f, structs), f.column)
		}
	}
	g.p("c.add(%s, \"external_ids\")", strings.Join(ids, " || "))
	if len(attach) > 0 {
		g.p("c.add(%s, ColumnAttachments)", strings.Join(attach, " || "))
	}
	g.p("return c\n}\n")
}

func writeRender(g *gen, k *kind) {
	g.p("func (o %s) render(b *strings.Builder) {\nl := line{b}", k.typ)
	if k.named {
		g.p("l.head(o.Kind(), o.Name)")
	} else {
		g.p("l.head(o.Kind(), \"\")")
	}
	for _, f := range k.fields {
		if f.isOwner() || k.named && f.column == "name" {
			continue
		}
		label := f.renderLabel()
		e := elem(f.typ)
		switch {
		case f.typ == "Options":
			g.p("l.opts(%q, o.%s)", label, f.name)
		case f.typ == intOptions:
			g.p("l.intOpts(%q, o.%s)", label, f.name)
		case f.typ == "int":
			g.p("l.i(%q, o.%s)", label, f.name)
		case f.typ == "bool":
			g.p("l.flag(%q, o.%s)", label, f.name)
		case f.typ == "netip.Prefix":
			g.p("l.s(%q, prefixStr(o.%s))", label, f.name)
		case f.typ == "netip.Addr":
			g.p("l.s(%q, addrString(o.%s))", label, f.name)
		case e == "string":
			g.p("l.strs(%q, o.%s)", label, f.name)
		case e != "":
			if f.quote {
				g.p("l.list(%q, len(o.%s), func(i int) string { return strconv.Quote(o.%s[i].String()) })", label, f.name, f.name)
			} else {
				g.p("l.list(%q, len(o.%s), func(i int) string { return o.%s[i].String() })", label, f.name, f.name)
			}
		case f.quote:
			g.p("l.q(%q, string(o.%s))", label, f.name)
		default:
			g.p("l.s(%q, string(o.%s))", label, f.name)
		}
	}
	g.p("l.owner(o.Owner)\n}\n")
}

func writeRelations(g *gen, kinds []*kind) {
	g.p(`// Parent returns the kind and name of the row whose member column holds o
// (a port's switch or router, a route's router, an ACL's port group or
// switch), and false for a root object. Of several parents, the first set
// is the object's (the last when none is).
func Parent(o Object) (Kind, string, bool) {
	switch x := o.(type) {`)
	for _, k := range kinds {
		if len(k.parents) == 0 {
			continue
		}
		g.p("case %s:", k.typ)
		for _, f := range k.parents[:len(k.parents)-1] {
			g.p("if x.%s != \"\" {\nreturn Kind%s, x.%s, true\n}", f.name, f.parentOf, f.name)
		}
		f := k.parents[len(k.parents)-1]
		g.p("return Kind%s, x.%s, true", f.parentOf, f.name)
	}
	g.p("}\nreturn 0, \"\", false\n}\n")

	g.p(`// appendKey appends the key of an object of an unnamed kind to b, and
// reports false for a named kind. A type switch, not an interface: b's
// array stays on the caller's stack.
func appendKey(o Object, b []byte) ([]byte, bool) {
	switch x := o.(type) {`)
	for _, k := range kinds {
		if !k.named {
			g.p("case %s:\nreturn x.appendKey(b), true", k.typ)
		}
	}
	g.p("}\nreturn b, false\n}\n")

	g.p(`// References returns, in the order of o's descriptor's Refs, the names
// each reference column of o holds (nil for none).
func References(o Object) [][]string {
	switch x := o.(type) {`)
	for _, k := range kinds {
		var refs []string
		for _, f := range k.fields {
			if f.ref == "" {
				continue
			}
			if f.typ == "string" {
				refs = append(refs, fmt.Sprintf("nameList(x.%s)", f.name))
			} else {
				refs = append(refs, "x."+f.name)
			}
		}
		if len(refs) > 0 {
			g.p("case %s:\nreturn [][]string{%s}", k.typ, strings.Join(refs, ", "))
		}
	}
	g.p("}\nreturn nil\n}\n")

	g.p(`// Attached returns, in the order of o's descriptor's Attachments, the
// names of the rows each attachment column holds o in (nil for none).
func Attached(o Object) [][]string {
	switch x := o.(type) {`)
	for _, k := range kinds {
		if len(k.attachments) == 0 {
			continue
		}
		var as []string
		for _, f := range k.attachments {
			as = append(as, "x."+f.name)
		}
		g.p("case %s:\nreturn [][]string{%s}", k.typ, strings.Join(as, ", "))
	}
	g.p("}\nreturn nil\n}\n")

	g.p(`// WithAttached returns o holding the attachments names, in the order of
// Attached (a backend reading them back); o unchanged for a kind without
// attachments.
func WithAttached(o Object, names [][]string) Object {
	switch x := o.(type) {`)
	for _, k := range kinds {
		if len(k.attachments) == 0 {
			continue
		}
		g.p("case %s:\nif len(names) != %d {\nreturn o\n}", k.typ, len(k.attachments))
		for i, f := range k.attachments {
			g.p("x.%s = names[%d]", f.name, i)
		}
		g.p("return x")
	}
	g.p("}\nreturn o\n}")
}

// toRowExpr returns the statements setting column f of row r from field f
// of object x.
func toRowExpr(f *field, x string) (string, error) {
	v := x + "." + f.name
	col := "r." + f.modelName
	ct := f.colType
	ptr := ct.Kind() == reflect.Pointer
	base := ct
	if ptr {
		base = ct.Elem()
	}
	switch {
	case f.typ == "Options" && ct.Kind() == reflect.Map && ct.Elem().Kind() == reflect.String:
		if f.column == "external_ids" {
			return col + " = withExtra(ids, " + v + ")", nil
		}
		return col + " = optMap(" + v + ")", nil
	case f.typ == "[]LBVIP" && ct.Kind() == reflect.Map:
		return col + " = vipsRow(" + v + ")", nil
	case f.typ == intOptions && ct.Kind() == reflect.Map && ct.Key().Kind() == reflect.String && ct.Elem().Kind() == reflect.Int:
		return col + " = intMap(" + v + ")", nil
	case f.typ == "bool" && base.Kind() == reflect.Bool:
		// An optional boolean is left unset when false.
		if !ptr {
			return col + " = " + v, nil
		}
		return fmt.Sprintf("if %s {\nv := true\n%s = &v\n}", v, col), nil
	case f.typ == "int" && base.Kind() == reflect.Int,
		(f.typ == "netip.Prefix" || f.typ == "netip.Addr") && base.Kind() == reflect.String && !ptr,
		!strings.HasPrefix(f.typ, "[]") && !strings.HasPrefix(f.typ, "netip.") && f.typ != "int" && f.typ != "bool" && f.typ != "Options" && f.typ != intOptions && base.Kind() == reflect.String:
		// A single value: an int, an address, a string kind (string,
		// PortType, NATType...); an optional one is left unset when zero.
		e := scalarValue(f, v)
		if !ptr {
			return col + " = " + e, nil
		}
		zero := `""`
		if f.typ == "int" {
			zero = "0"
		}
		return fmt.Sprintf("if %s != %s {\nv := %s\n%s = &v\n}", v, zero, e, col), nil
	case ct.Kind() == reflect.Slice && ct.Elem().Kind() == reflect.String:
		switch elem(f.typ) {
		case "string":
			return col + " = slices.Clone(" + v + ")", nil
		case "netip.Prefix":
			if f.ip {
				return fmt.Sprintf("for _, e := range %s {\n%s = append(%s, IPString(e))\n}", v, col, col), nil
			}
			return fmt.Sprintf("for _, e := range %s {\n%s = append(%s, e.String())\n}", v, col, col), nil
		case "netip.Addr":
			return fmt.Sprintf("for _, e := range %s {\n%s = append(%s, e.String())\n}", v, col, col), nil
		}
	}
	return "", fmt.Errorf("no mapping of a %s field to column %s (%s)", f.typ, f.column, ct)
}

// scalarValue returns the expression spelling v, the value of a single
// (not set) field f, as its column holds it: what toRow writes and
// KeyConditions matches.
func scalarValue(f *field, v string) string {
	switch f.typ {
	case "int", "bool":
		return v
	case "netip.Prefix":
		if f.ip {
			return "IPString(" + v + ")"
		}
		return "prefixString(" + v + ")"
	case "netip.Addr":
		return "AddrString(" + v + ")"
	}
	return "string(" + v + ")"
}

// qualified returns a topology type expression as nbrow spells it.
func qualified(typ string) string {
	switch {
	case strings.HasPrefix(typ, "[]"):
		return "[]" + qualified(typ[2:])
	case strings.Contains(typ, ".") || typ == "string" || typ == "int" || typ == "bool":
		return typ
	}
	return "topology." + typ
}

func writeRows(kinds []*kind) ([]byte, error) {
	var g gen
	model := func(k *kind) string { return "nbdb." + k.model.Name() }

	// toRow
	g.p("// toRow maps o to its row but for references (see ToRow).\nfunc toRow(o topology.Object, ids map[string]string) (model.Model, error) {\nswitch x := o.(type) {")
	for _, k := range kinds {
		g.p("case topology.%s:\nr := &%s{}", k.typ, model(k))
		if k.ids && !k.extraIDs {
			g.p("r.ExternalIDs = ids")
		}
		for i := range k.fields {
			f := &k.fields[i]
			if !f.plain() {
				continue
			}
			s, err := toRowExpr(f, "x")
			if err != nil {
				return nil, err
			}
			g.p("%s", s)
		}
		g.p("return r, nil")
	}
	g.p("}\nreturn nil, fmt.Errorf(\"%%w: object of type %%T\", ErrInvalid, o)\n}\n")

	// fromRow
	g.p(`// fromRow maps an owned row back to an object (see FromRow).
func fromRow(m model.Model, owner topology.Owner, names func(string) string, parentTable, parent string, gcs map[string]*nbdb.GatewayChassis) (topology.Object, error) {
	switch r := m.(type) {`)
	for _, k := range kinds {
		g.p("case *%s:\no := topology.%s{Owner: owner}", model(k), k.typ)
		fail := "return nil, fmt.Errorf(\"" + k.name + " %s in %q: COLUMN: %w\", r.UUID, parent, err)"
		if k.named {
			fail = "return nil, fmt.Errorf(\"" + k.name + " %q: COLUMN: %w\", r.Name, err)"
		}
		for i := range k.fields {
			f := &k.fields[i]
			col := "r." + f.modelName
			failf := func() string { return strings.Replace(fail, "COLUMN", f.column, 1) }
			switch {
			case f.isOwner() || f.attachTo != "":
			case f.parentOf != "":
				if len(k.parents) == 1 {
					g.p("o.%s = parent", f.name)
				} else {
					pk := kindOf(kinds, f.parentOf)
					g.p("if parentTable == %q {\no.%s = parent\n}", pk.table, f.name)
				}
			case f.typ == "[]GatewayChassis":
				g.p("for _, u := range %s {\nif g, ok := gcs[u]; ok {\no.%s = append(o.%s, topology.GatewayChassis{Name: g.Name, Chassis: g.ChassisName, Priority: g.Priority})\n}\n}", col, f.name, f.name)
			case f.ref != "" && f.colType.Kind() == reflect.Pointer:
				g.p("if %s != nil {\no.%s = names(*%s)\n}", col, f.name, col)
			case f.ref != "":
				g.p("for _, u := range %s {\no.%s = append(o.%s, names(u))\n}", col, f.name, f.name)
			case f.column == "external_ids":
				g.p("o.%s = extraIDs(%s)", f.name, col)
			case f.typ == "Options":
				g.p("o.%s = opts(%s)", f.name, col)
			case f.typ == intOptions:
				g.p("o.%s = intOpts(%s)", f.name, col)
			case f.typ == "[]LBVIP":
				g.p("{\nvar err error\nif o.%s, err = vipsFromRow(%s); err != nil {\n%s\n}\n}", f.name, col, failf())
			case f.typ == "int" || f.typ == "bool":
				if f.colType.Kind() == reflect.Pointer {
					g.p("if %s != nil {\no.%s = *%s\n}", col, f.name, col)
				} else {
					g.p("o.%s = %s", f.name, col)
				}
			case f.typ == "netip.Prefix" || f.typ == "netip.Addr":
				parse := map[string]string{"netip.Addr": "ParseAddr", "netip.Prefix": "parsePrefix"}[f.typ]
				if f.ip {
					parse = "ParseIP"
				}
				g.p("{\nvar err error\nif o.%s, err = %s(%s); err != nil {\n%s\n}\n}", f.name, parse, col, failf())
			case f.typ == "[]string" && f.colType.Elem().Kind() == reflect.String:
				g.p("o.%s = slices.Clone(%s)", f.name, col)
			case f.typ == "[]netip.Prefix" || f.typ == "[]netip.Addr":
				parse := "netip.ParseAddr"
				if f.typ == "[]netip.Prefix" {
					parse = "netip.ParsePrefix"
					if f.ip {
						parse = "ParseIP"
					}
				}
				g.p("for _, s := range %s {\ne, err := %s(s)\nif err != nil {\n%s\n}\no.%s = append(o.%s, e)\n}", col, parse, failf(), f.name, f.name)
			case f.colType.Kind() == reflect.Pointer:
				g.p("o.%s = %s(deref(%s))", f.name, qualified(f.typ), col)
			default:
				g.p("o.%s = %s(%s)", f.name, qualified(f.typ), col)
			}
		}
		g.p("return o, nil")
	}
	g.p("}\nreturn nil, fmt.Errorf(\"unexpected row type %%T\", m)\n}\n")

	// checks
	var enums []string
	g.p(`// checkColumns refuses an object whose required column is empty or whose
// enum column holds a value the schema does not list.
func checkColumns(o topology.Object) error {
	switch x := o.(type) {`)
	for _, k := range kinds {
		var lines []string
		for i := range k.fields {
			f := &k.fields[i]
			v := "x." + f.name
			if f.required || k.named && f.column == "name" {
				var empty string
				switch {
				case strings.HasPrefix(f.typ, "[]") || f.typ == intOptions:
					empty = "len(" + v + ") == 0"
				case f.typ == "netip.Prefix" || f.typ == "netip.Addr":
					empty = "!" + v + ".IsValid()"
				case f.typ == "int":
					empty = v + " == 0"
				default:
					empty = v + ` == ""`
				}
				lines = append(lines, fmt.Sprintf("if %s {\nreturn empty(%q)\n}", empty, f.column))
			}
			switch f.typ {
			case "[]netip.Prefix", "[]netip.Addr":
				lines = append(lines, fmt.Sprintf("for _, e := range %s {\nif !e.IsValid() {\nreturn empty(%q)\n}\n}", v, f.column))
			case "[]LBVIP":
				lines = append(lines, fmt.Sprintf("if err := checkVIPs(%s); err != nil {\nreturn err\n}", v))
			case intOptions:
				// Keys unique and of the schema's enum (nil: any), values
				// in its range.
				keys := "nil"
				if len(f.enum) > 0 {
					keys = "enum" + k.typ + f.name
					var qs []string
					for _, e := range f.enum {
						qs = append(qs, strconv.Quote(e))
					}
					enums = append(enums, fmt.Sprintf("%s = []string{%s}", keys, strings.Join(qs, ", ")))
				}
				lines = append(lines, fmt.Sprintf("if err := checkIntOptions(%q, %s, %s, %d, %d); err != nil {\nreturn err\n}", f.column, v, keys, f.valueMin, f.valueMax))
				continue
			}
			if len(f.enum) > 0 && f.plain() {
				name := "enum" + k.typ + f.name
				var qs []string
				for _, e := range f.enum {
					qs = append(qs, strconv.Quote(e))
				}
				enums = append(enums, fmt.Sprintf("%s = []string{%s}", name, strings.Join(qs, ", ")))
				if strings.HasPrefix(f.typ, "[]") {
					lines = append(lines, fmt.Sprintf("for _, e := range %s {\nif err := inEnum(%q, e, %s); err != nil {\nreturn err\n}\n}", v, f.column, name))
				} else {
					lines = append(lines, fmt.Sprintf("if err := inEnum(%q, string(%s), %s); err != nil {\nreturn err\n}", f.column, v, name))
				}
			}
		}
		if len(lines) > 0 {
			g.p("case topology.%s:\n%s", k.typ, strings.Join(lines, "\n"))
		}
	}
	g.p("}\nreturn nil\n}\n")
	if len(enums) > 0 {
		g.p("// The values the schema allows in enum columns.\nvar (\n%s\n)\n", strings.Join(enums, "\n"))
	}

	// key conditions
	g.p(`// KeyConditions returns the conditions matching the rows of an unnamed
// kind whose key columns, but for the parent and references, hold obj's
// key in the spelling udnkit writes it; false for a named kind.
func KeyConditions(o topology.Object) ([]ovsdb.Condition, bool) {
	switch x := o.(type) {`)
	for _, k := range kinds {
		if k.named {
			continue
		}
		var cs []string
		for _, f := range k.keyFields {
			if f.ref != "" {
				continue
			}
			v := scalarValue(f, "x."+f.name)
			if f.colType.Kind() == reflect.Pointer {
				v = "optional(" + v + ")"
			}
			cs = append(cs, fmt.Sprintf("equal(%q, %s)", f.column, v))
		}
		g.p("case topology.%s:\nreturn []ovsdb.Condition{%s}, true", k.typ, strings.Join(cs, ", "))
	}
	g.p("}\nreturn nil, false\n}\n")

	// gateway chassis
	g.p("// ChassisOf returns the Gateway_Chassis rows o references (a router port's).\nfunc ChassisOf(o topology.Object) []topology.GatewayChassis {\nswitch x := o.(type) {")
	gc := false
	for _, k := range kinds {
		for _, f := range k.fields {
			if f.typ == "[]GatewayChassis" {
				g.p("case topology.%s:\nreturn x.%s", k.typ, f.name)
				gc = true
			}
		}
	}
	g.p("}\nreturn nil\n}\n")

	// reference columns: UUIDs reads them, SetUUIDs writes them
	var gets, sets []string
	for _, k := range kinds {
		var get, set []string
		for _, c := range uuidColumns(kinds, k) {
			sf, _ := modelField(k.model, c)
			if sf.Type.Kind() == reflect.Pointer {
				get = append(get, fmt.Sprintf("case %q:\nif r.%s != nil {\nreturn []string{*r.%s}\n}", c, sf.Name, sf.Name))
				set = append(set, fmt.Sprintf("case %q:\nif len(us) > 1 {\nreturn false\n}\nr.%s = nil\nif len(us) == 1 {\nr.%s = &us[0]\n}\nreturn true", c, sf.Name, sf.Name))
			} else {
				get = append(get, fmt.Sprintf("case %q:\nreturn r.%s", c, sf.Name))
				set = append(set, fmt.Sprintf("case %q:\nr.%s = us\nreturn true", c, sf.Name))
			}
		}
		if len(get) > 0 {
			gets = append(gets, fmt.Sprintf("case *%s:\nswitch col {\n%s\n}", model(k), strings.Join(get, "\n")))
			sets = append(sets, fmt.Sprintf("case *%s:\nswitch col {\n%s\n}", model(k), strings.Join(set, "\n")))
		}
	}
	g.p(`// UUIDs returns the row UUIDs column col of m holds (a reference set or
// an optional reference the mapping uses), nil for none or another column.
func UUIDs(m model.Model, col string) []string {
	switch r := m.(type) {
%s
	}
	return nil
}
`, strings.Join(gets, "\n"))
	g.p(`// SetUUIDs sets column col of m to the row UUIDs us, and reports whether
// m has such a column (an optional reference takes at most one).
func SetUUIDs(m model.Model, col string, us []string) bool {
	switch r := m.(type) {
%s
	}
	return false
}
`, strings.Join(sets, "\n"))

	// columns read back, per table
	read := map[string][]string{}
	var tables []string
	for _, k := range kinds {
		tables = append(tables, k.table)
		for _, f := range k.fields {
			if f.column != "" {
				read[k.table] = append(read[k.table], f.column)
			}
			if f.parentOf != "" || f.attachTo != "" {
				t := kindOf(kinds, f.parentOf+f.attachTo).table
				read[t] = append(read[t], f.holderColumn)
			}
		}
		if k.ids {
			read[k.table] = append(read[k.table], "external_ids")
		}
	}
	if gc {
		tables = append(tables, "Gateway_Chassis")
		read["Gateway_Chassis"] = []string{"name", "chassis_name", "priority"}
	}
	g.p("// Tables lists the tables the kinds map to, in creation order, and the\n// tables their rows reference.\nfunc Tables() []string {\nreturn []string{")
	for _, t := range tables {
		g.p("%q,", t)
	}
	g.p("}\n}\n")
	g.p("// ReadColumns returns, per table of Tables, the columns the mapping reads\n// back: every column of a kind, the member and attachment columns that\n// hold other kinds' rows, and external_ids.\nfunc ReadColumns() map[string][]string {\nreturn map[string][]string{")
	for _, t := range tables {
		cols := read[t]
		slices.Sort(cols)
		cols = slices.Compact(cols)
		var qs []string
		for _, c := range cols {
			qs = append(qs, strconv.Quote(c))
		}
		g.p("%q: {%s},", t, strings.Join(qs, ", "))
	}
	g.p("}\n}\n")
	g.p("// Models returns an empty model of every table the kinds map to.\nfunc Models() map[string]model.Model {\nreturn map[string]model.Model{")
	for _, k := range kinds {
		g.p("%q: &%s{},", k.table, model(k))
	}
	if gc {
		g.p("\"Gateway_Chassis\": &nbdb.GatewayChassis{},")
	}
	g.p("}\n}")
	return withHeader("nbrow", g.Bytes(), []string{"github.com/ovn-kubernetes/libovsdb/model", "github.com/ovn-kubernetes/libovsdb/ovsdb",
		"github.com/udnkit/udnkit/internal/nbdb", "github.com/udnkit/udnkit/topology"})
}

func kindOf(kinds []*kind, typ string) *kind {
	for _, k := range kinds {
		if k.typ == typ {
			return k
		}
	}
	return nil
}

// uuidColumns lists, sorted, the columns of k's table that hold
// references the mapping reads or writes: k's references and gateway
// chassis, and the columns holding other kinds' members or attachments.
func uuidColumns(kinds []*kind, k *kind) []string {
	var out []string
	for _, f := range k.fields {
		if f.ref != "" || f.typ == "[]GatewayChassis" {
			out = append(out, f.column)
		}
	}
	for _, o := range kinds {
		for _, f := range o.fields {
			if h := f.parentOf + f.attachTo; h == k.typ {
				out = append(out, f.holderColumn)
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}
