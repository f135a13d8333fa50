package ovnnb

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"unicode/utf8"

	"github.com/ovn-kubernetes/libovsdb/model"
	"github.com/ovn-kubernetes/libovsdb/ovsdb"
)

// layout maps one model type's fields to its table's columns, computed once
// per connection so that building rows costs no schema lookups.
type layout struct {
	table string
	cols  []colField
	index map[string]int
}

type colField struct {
	name  string
	field int
	uuid  bool // the column's atoms are UUIDs
}

// layouts builds the layouts of the adapter's tables for schema.
func layouts(schema ovsdb.DatabaseSchema) (map[reflect.Type]*layout, error) {
	out := map[reflect.Type]*layout{}
	for table, m := range tables {
		ts, ok := schema.Tables[table]
		if !ok {
			return nil, fmt.Errorf("%w: the server has no table %s", ErrSchema, table)
		}
		t := reflect.TypeOf(m).Elem()
		l := &layout{table: table, index: map[string]int{}}
		for i := 0; i < t.NumField(); i++ {
			name := t.Field(i).Tag.Get("ovsdb")
			if name == "" || name == "_uuid" {
				continue
			}
			cs := ts.Column(name)
			if cs == nil {
				return nil, fmt.Errorf("%w: table %s has no column %s", ErrSchema, table, name)
			}
			isUUID := cs.Type == ovsdb.TypeUUID ||
				((cs.Type == ovsdb.TypeSet) && cs.TypeObj != nil && cs.TypeObj.Key != nil && cs.TypeObj.Key.Type == ovsdb.TypeUUID)
			l.index[name] = len(l.cols)
			l.cols = append(l.cols, colField{name: name, field: i, uuid: isUUID})
		}
		out[reflect.TypeOf(m)] = l
	}
	return out, nil
}

// fastRow builds the OVSDB row of m like Client.row, from its layout, with
// every value already encoded as JSON (json.RawMessage): large change sets
// are encoded once, without reflection over libovsdb's notation types.
func (c *Client) fastRow(m model.Model, columns []string) (ovsdb.Row, error) {
	l, ok := c.layouts[reflect.TypeOf(m)]
	if !ok {
		return c.row(m, columns)
	}
	v := reflect.ValueOf(m).Elem()
	out := make(ovsdb.Row, 8)
	if columns != nil {
		for _, name := range columns {
			i, ok := l.index[name]
			if !ok {
				return nil, fmt.Errorf("%w: table %s has no column %s", ErrSchema, l.table, name)
			}
			out[name] = json.RawMessage(appendValue(nil, v.Field(l.cols[i].field), l.cols[i].uuid))
		}
		return out, nil
	}
	for _, cf := range l.cols {
		f := v.Field(cf.field)
		if f.IsZero() || ((f.Kind() == reflect.Slice || f.Kind() == reflect.Map) && f.Len() == 0) {
			continue
		}
		out[cf.name] = json.RawMessage(appendValue(nil, f, cf.uuid))
	}
	return out, nil
}

// isUUID reports whether s is a UUID rather than a named UUID.
func isUUID(s string) bool {
	return len(s) == 36 && s[8] == '-' && s[13] == '-' && s[18] == '-' && s[23] == '-'
}

func appendAtom(b []byte, f reflect.Value, uuid bool) []byte {
	switch f.Kind() {
	case reflect.String:
		if uuid {
			s := f.String()
			if isUUID(s) {
				b = append(b, `["uuid",`...)
			} else {
				b = append(b, `["named-uuid",`...)
			}
			b = appendString(b, s)
			return append(b, ']')
		}
		return appendString(b, f.String())
	case reflect.Int:
		return strconv.AppendInt(b, f.Int(), 10)
	case reflect.Bool:
		return strconv.AppendBool(b, f.Bool())
	case reflect.Float64:
		return strconv.AppendFloat(b, f.Float(), 'g', -1, 64)
	}
	panic(fmt.Sprintf("ovnnb: atom of kind %s", f.Kind()))
}

// appendValue appends a model field in OVSDB JSON notation: atoms as
// atoms, optional values and slices as sets (one element bare), maps as
// maps with sorted keys.
func appendValue(b []byte, f reflect.Value, uuid bool) []byte {
	switch f.Kind() {
	case reflect.Pointer:
		if f.IsNil() {
			return append(b, `["set",[]]`...)
		}
		return appendAtom(b, f.Elem(), uuid)
	case reflect.Slice:
		if f.Len() == 1 {
			return appendAtom(b, f.Index(0), uuid)
		}
		b = append(b, `["set",[`...)
		for i := 0; i < f.Len(); i++ {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendAtom(b, f.Index(i), uuid)
		}
		return append(b, "]]"...)
	case reflect.Map:
		keys := make([]string, 0, f.Len())
		it := f.MapRange()
		for it.Next() {
			keys = append(keys, it.Key().String())
		}
		sort.Strings(keys)
		b = append(b, `["map",[`...)
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, '[')
			b = appendString(b, k)
			b = append(b, ',')
			b = appendString(b, f.MapIndex(reflect.ValueOf(k).Convert(f.Type().Key())).String())
			b = append(b, ']')
		}
		return append(b, "]]"...)
	}
	return appendAtom(b, f, uuid)
}

// appendString appends s as a JSON string.
func appendString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\t':
				b = append(b, '\\', 't')
			case '\r':
				b = append(b, '\\', 'r')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i++
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
