package ovnnb

import (
	"fmt"

	"github.com/ovn-kubernetes/libovsdb/ovsdb"

	"github.com/udnkit/udnkit/internal/nbrow"
	"github.com/udnkit/udnkit/topology"
)

// StartEmbeddedSchema starts an embedded server with a given schema (older
// or altered schemas in tests).
var StartEmbeddedSchema = startEmbedded

// CompareRows checks that the fast row builder and libovsdb's mapper build
// the same rows for every object of s.
func CompareRows(c *Client, s topology.State) error {
	for o := range s.Objects() {
		m, err := nbrow.ToRow(o, nil)
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

// sameJSON compares rows column by column in the monitor's canonical
// notation (sets and maps sorted, one-element sets as their element).
func sameJSON(a, b ovsdb.Row) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		w, ok := b[k]
		if !ok {
			return false
		}
		x, err1 := canonical(v, nil)
		y, err2 := canonical(w, nil)
		if err1 != nil || err2 != nil || x != y {
			return false
		}
	}
	return true
}
