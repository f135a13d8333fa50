package ovnnb

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"

	"github.com/ovn-kubernetes/libovsdb/ovsdb"

	"github.com/udnkit/udnkit/topology"
)

// StartEmbeddedSchema starts an embedded server with a given schema (older
// or altered schemas in tests).
var StartEmbeddedSchema = startEmbedded

// CompareRows checks that the fast row builder and libovsdb's mapper build
// the same rows for every object of s.
func CompareRows(c *Client, s topology.State) error {
	for o := range s.Objects() {
		m, err := toRow(o)
		if err != nil {
			return err
		}
		a, err := c.fastRow(m, nil)
		if err != nil {
			return err
		}
		b, err := c.row(m, nil)
		if err != nil {
			return err
		}
		for k, v := range b {
			if v == false { // the mapper keeps false booleans; both mean the default
				delete(b, k)
			}
		}
		if !sameJSON(a, b) {
			return fmt.Errorf("%s: fast row %v, mapper row %v", topology.Render(o), a, b)
		}
		cols := updatable(o.Kind())
		a, err = c.fastRow(m, cols)
		if err != nil {
			return err
		}
		b, err = c.row(m, cols)
		if err != nil {
			return err
		}
		if !sameJSON(a, b) {
			return fmt.Errorf("%s columns %v: fast row %v, mapper row %v", topology.Render(o), cols, a, b)
		}
	}
	return nil
}

// sameJSON compares rows by their JSON with sets and maps in a canonical
// order.
func sameJSON(a, b ovsdb.Row) bool {
	norm := func(r ovsdb.Row) map[string]any {
		out := map[string]any{}
		for k, v := range r {
			j, err := json.Marshal(v)
			if err != nil {
				return nil
			}
			var x any
			if err := json.Unmarshal(j, &x); err != nil {
				return nil
			}
			if l, ok := x.([]any); ok && len(l) == 2 && (l[0] == "set" || l[0] == "map") {
				elems := l[1].([]any)
				sort.Slice(elems, func(i, j int) bool { return fmt.Sprint(elems[i]) < fmt.Sprint(elems[j]) })
				if l[0] == "set" && len(elems) == 1 {
					x = elems[0]
				}
			}
			out[k] = x
		}
		return out
	}
	na, nb := norm(a), norm(b)
	return na != nil && reflect.DeepEqual(na, nb)
}
