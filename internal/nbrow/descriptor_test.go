package nbrow

import (
	"slices"
	"testing"

	"github.com/ovn-kubernetes/libovsdb/ovsdb"

	"github.com/udnkit/udnkit/internal/nbdb"
	"github.com/udnkit/udnkit/topology"
)

// TestDescriptorsMatchSchema checks every kind's descriptor against the
// Northbound schema the adapters write: its table, name column and name
// index, and every key, reference, member and updatable column exist.
func TestDescriptorsMatchSchema(t *testing.T) {
	schema := nbdb.Schema()
	for _, k := range topology.Kinds() {
		d := k.Descriptor()
		t.Run(k.String(), func(t *testing.T) {
			if d.Kind != k || d.Name != k.String() {
				t.Fatalf("descriptor of %v describes %v (%q)", k, d.Kind, d.Name)
			}
			ts, ok := schema.Tables[d.Table]
			if !ok {
				t.Fatalf("table %q is not in the schema", d.Table)
			}
			has := func(col string) bool { _, ok := ts.Columns[col]; return ok || col == "_uuid" }
			if d.Named != has("name") && k != topology.KindACL {
				t.Errorf("Named %v, table has a name column: %v", d.Named, has("name"))
			}
			indexed := slices.ContainsFunc(ts.Indexes, func(ix []string) bool { return slices.Equal(ix, []string{"name"}) })
			if d.Named && d.Indexed != indexed {
				t.Errorf("Indexed %v, the schema indexes name: %v", d.Indexed, indexed)
			}
			if d.Named == (len(d.KeyColumns) > 0) {
				t.Errorf("a kind is keyed by its name or by key columns, not both nor neither: %v", d.KeyColumns)
			}
			for _, c := range d.KeyColumns {
				if !has(c) {
					t.Errorf("key column %q is not in %s", c, d.Table)
				}
			}
			for _, c := range d.Updatable {
				if !has(c) {
					t.Errorf("updatable column %q is not in %s", c, d.Table)
				}
			}
			for _, r := range d.Refs {
				if refTable(ts.Columns[r.Column]) != r.Kind.Table() {
					t.Errorf("reference column %q does not refer to %s", r.Column, r.Kind.Table())
				}
			}
			for _, p := range d.Parents {
				cs := schema.Tables[p.Kind.Table()].Columns[p.Column]
				if refTable(cs) != d.Table {
					t.Errorf("parent column %s.%s does not hold %s rows", p.Kind.Table(), p.Column, d.Table)
				}
				if cs != nil && cs.TypeObj != nil && p.Min != cs.TypeObj.Min() {
					t.Errorf("parent column %s.%s: Min %d, the schema's %d", p.Kind.Table(), p.Column, p.Min, cs.TypeObj.Min())
				}
				if ts.IsRoot {
					t.Errorf("%s is a root table: a row would outlive its parent", d.Table)
				}
			}
			for _, a := range d.Attachments {
				col := schema.Tables[a.Kind.Table()].Columns[a.Column]
				if refTable(col) != d.Table {
					t.Errorf("attachment column %s.%s does not hold %s rows", a.Kind.Table(), a.Column, d.Table)
				}
				// The owner of the attached row may delete it: only a weak
				// reference lets that go without the other owner's rows.
				if col == nil {
					continue
				}
				if rt, err := col.TypeObj.Key.RefType(); err != nil || rt != ovsdb.Weak {
					t.Errorf("attachment column %s.%s is a strong reference", a.Kind.Table(), a.Column)
				}
			}
		})
	}
}

// refTable returns the table a reference column refers to ("" for none).
func refTable(col *ovsdb.ColumnSchema) string {
	if col == nil || col.TypeObj == nil || col.TypeObj.Key == nil {
		return ""
	}
	t, err := col.TypeObj.Key.RefTable()
	if err != nil {
		return ""
	}
	return t
}

// TestParentAndRefsFollowDescriptors checks that the mapping's parents and
// references are those the descriptors name, for an object of each kind.
func TestParentAndRefsFollowDescriptors(t *testing.T) {
	own := topology.Owner{Network: "n"}
	for _, o := range []topology.Object{
		topology.SwitchPort{Owner: own, Name: "p", Switch: "s"},
		topology.RouterPort{Owner: own, Name: "p", Router: "r"},
		topology.ACL{Owner: own, PortGroup: "pg", Match: "1", Action: topology.ACLDrop, Direction: topology.ACLToLport},
		topology.ACL{Owner: own, Switch: "s", Match: "1", Action: topology.ACLDrop, Direction: topology.ACLToLport},
		topology.NAT{Owner: own, Router: "r", GatewayPort: "gw"},
		topology.Switch{Owner: own, Name: "s", LoadBalancerGroups: []string{"g"}},
	} {
		d := o.Kind().Descriptor()
		pk, name, member := ParentOf(o)
		if member != (len(d.Parents) > 0) || member && (name == "" || !slices.Contains(d.Parents, pk)) {
			t.Errorf("%T: parent %v %q %v, descriptor %v", o, pk, name, member, d.Parents)
		}
		refs := NameRefs(o)
		if len(refs) != len(d.Refs) {
			t.Errorf("%T: %d reference columns, descriptor %d", o, len(refs), len(d.Refs))
		}
		for i, r := range refs {
			if r.Column != d.Refs[i].Column || r.Kind != d.Refs[i].Kind || len(r.Names) != 1 {
				t.Errorf("%T: reference %v, descriptor %v", o, r, d.Refs[i])
			}
		}
	}
}
