package ovnnb

import (
	"fmt"
	"reflect"
	"slices"

	"github.com/udnkit/udnkit/topology"
)

// Row is the OVN Northbound row an object maps to, as the adapter writes
// it. Renderers of other forms (ovn-nbctl scripts) use it so that every
// form writes the same columns.
type Row struct {
	// Table is the NB table.
	Table string
	// Columns holds every column with a value other than the default,
	// excluding references: string, int, bool, []string or
	// map[string]string values.
	Columns map[string]any
	// Refs are the reference columns, by the names of the referenced
	// rows (load_balancer_group, ports of a port group, gateway_port...).
	Refs []Ref
	// Parent is the row whose reference set holds this one (members only).
	Parent *Ref
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
	m, err := toRow(obj)
	if err != nil {
		return Row{}, err
	}
	r := Row{Table: obj.Kind().Table(), Columns: plainColumns(m)}
	for _, nr := range nameRefs(obj) {
		if len(nr.names) > 0 {
			r.Refs = append(r.Refs, Ref{Column: nr.column, Table: nr.kind.Table(), Names: slices.Clone(nr.names)})
		}
	}
	if pk, pname, ok := parentOf(obj); ok {
		r.Parent = &Ref{Column: pk.column, Table: pk.kind.Table(), Names: []string{pname}}
	}
	if rp, ok := obj.(topology.RouterPort); ok {
		for _, g := range rp.GatewayChassis {
			r.GatewayChassis = append(r.GatewayChassis, map[string]any{"name": g.Name, "chassis_name": g.Chassis, "priority": g.Priority})
		}
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
			mm := make(map[string]string, f.Len())
			it := f.MapRange()
			for it.Next() {
				mm[it.Key().String()] = it.Value().String()
			}
			out[col] = mm
		default:
			panic(fmt.Sprintf("ovnnb: column %s of kind %s", col, f.Kind()))
		}
	}
	return out
}
