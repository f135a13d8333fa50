package topology

//go:generate go run ./internal/kindgen -o kinds_gen.go -nbrow ../internal/nbrow/rows_gen.go .

// Descriptor describes one kind of object. The descriptors are generated
// (kinds_gen.go) from the kind types' directives and field tags, with the
// rest of the per-kind code; the OVN adapters' row mapping
// (internal/nbrow) and the ovn-nbctl renderer read them.
type Descriptor struct {
	// Kind is the kind described.
	Kind Kind
	// Type is the Go type of its objects.
	Type string
	// Name is its short name ("switch_port"), Kind.String.
	Name string
	// Table is its OVN Northbound table.
	Table string
	// Named: its key is its name column (Key returns Name); else its key
	// is built from KeyColumns and its parent.
	Named bool
	// Indexed: the table has an index on name, so the server itself
	// refuses a second row of one name. The adapter guards creates of
	// named kinds without one with a wait.
	Indexed bool
	// KeyColumns are the OVN columns that, with the parent, make the key
	// of an unnamed kind, in the order Key spells them.
	KeyColumns []string
	// Parents are the kinds whose rows hold objects of this kind as
	// members, and the member column (several for an ACL: a port group's
	// or a switch's). Empty for root kinds.
	Parents []ParentColumn
	// Refs are the columns referencing other rows, which the model holds
	// by name.
	Refs []RefColumn
	// Attachments are the columns of other rows that hold objects of this
	// kind by weak reference and that the object's owner, not the row's,
	// manages by mutation (a load balancer's switches, routers and
	// groups): the object names those rows, and Attached lists them.
	Attachments []ParentColumn
	// Updatable are the columns an update may write ("external_ids" where
	// the table has it).
	Updatable []string
}

// ParentColumn is a parent kind and its column holding members.
type ParentColumn struct {
	Kind   Kind
	Column string
	// Min is the schema's least number of rows Column holds (a Meter's
	// bands: 1): a parent is created together with that many members, and
	// keeps that many.
	Min int
}

// RefColumn is a column holding references to rows of Kind, by name in
// the model.
type RefColumn struct {
	Column string
	Kind   Kind
}

// Descriptor returns the descriptor of kind k (the zero Descriptor for an
// unknown kind). Its slices are shared: do not modify them.
func (k Kind) Descriptor() Descriptor {
	if k >= kindEnd {
		return Descriptor{}
	}
	return descriptors[k]
}

// nameList returns a single optional reference as a list of names.
func nameList(name string) []string {
	if name == "" {
		return nil
	}
	return []string{name}
}
