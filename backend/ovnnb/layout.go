package ovnnb

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"unicode/utf8"

	"github.com/ovn-kubernetes/libovsdb/model"
	"github.com/ovn-kubernetes/libovsdb/ovsdb"

	"github.com/udnkit/udnkit/topology"
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

// fastRow builds the OVSDB row of m like Client.row, from its layout: single
// string, integer and boolean atoms as plain Go values, everything else
// (sets, maps, UUIDs) already encoded as JSON (json.RawMessage), so that
// large change sets are encoded once, without reflection over libovsdb's
// notation types.
func (c *Client) fastRow(m model.Model, columns []string) (ovsdb.Row, error) {
	return c.encodeRow(m, columns, nil)
}

// idsCache holds the external_ids maps of the owners of one plan, each
// encoded once: rows of one owner share the map.
type idsCache struct {
	maps    map[topology.Owner]map[string]string
	encoded map[uintptr]json.RawMessage // by map identity
}

func newIDsCache() *idsCache {
	return &idsCache{maps: map[topology.Owner]map[string]string{}, encoded: map[uintptr]json.RawMessage{}}
}

func (k *idsCache) ids(o topology.Owner) map[string]string {
	if m, ok := k.maps[o]; ok {
		return m
	}
	m := ownerIDs(o)
	k.maps[o] = m
	k.encoded[reflect.ValueOf(m).Pointer()] = nil
	return m
}

// encodeRow is fastRow, with external_ids maps from ids encoded once when
// ids is not nil.
func (c *Client) encodeRow(m model.Model, columns []string, ids *idsCache) (ovsdb.Row, error) {
	l, ok := c.layouts[reflect.TypeOf(m)]
	if !ok {
		return c.row(m, columns)
	}
	v := reflect.ValueOf(m).Elem()
	// Every value of the row is encoded into one buffer; each column
	// holds a capacity-clipped slice of it.
	buf := make([]byte, 0, 512)
	if columns != nil {
		out := make(ovsdb.Row, len(columns))
		for _, name := range columns {
			i, ok := l.index[name]
			if !ok {
				return nil, fmt.Errorf("%w: table %s has no column %s", ErrSchema, l.table, name)
			}
			f := v.Field(l.cols[i].field)
			if x, ok := atomValue(f, l.cols[i].uuid); ok {
				out[name] = x
				continue
			}
			start := len(buf)
			buf = appendValue(buf, f, l.cols[i].uuid)
			out[name] = json.RawMessage(buf[start:len(buf):len(buf)])
		}
		return out, nil
	}
	out := make(ovsdb.Row, 8)
	for _, cf := range l.cols {
		f := v.Field(cf.field)
		if f.IsZero() || ((f.Kind() == reflect.Slice || f.Kind() == reflect.Map) && f.Len() == 0) {
			continue
		}
		if x, ok := atomValue(f, cf.uuid); ok {
			out[cf.name] = x
			continue
		}
		if ids != nil && cf.name == "external_ids" {
			// Only maps the cache made (and keeps alive) are known by
			// their address.
			if enc, ok := ids.encoded[f.Pointer()]; ok {
				if enc == nil {
					enc = json.RawMessage(appendValue(nil, f, false))
					ids.encoded[f.Pointer()] = enc
				}
				out[cf.name] = enc
				continue
			}
		}
		start := len(buf)
		buf = appendValue(buf, f, cf.uuid)
		out[cf.name] = json.RawMessage(buf[start:len(buf):len(buf)])
	}
	return out, nil
}

// atomValue returns the value of a field holding one string, integer or
// boolean atom (not a UUID) as a plain Go value, which encodes to JSON more
// cheaply than a json.RawMessage; ok is false for anything else.
func atomValue(f reflect.Value, uuid bool) (any, bool) {
	if uuid {
		return nil, false
	}
	switch f.Kind() {
	case reflect.Pointer:
		if f.IsNil() {
			return nil, false
		}
		f = f.Elem()
	case reflect.Slice:
		if f.Len() != 1 {
			return nil, false
		}
		f = f.Index(0)
	}
	switch f.Kind() {
	case reflect.String:
		return f.String(), true
	case reflect.Int:
		return int(f.Int()), true
	case reflect.Bool:
		return f.Bool(), true
	}
	return nil, false
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
		if mm, ok := f.Interface().(map[string]string); ok {
			return appendStringMap(b, mm)
		}
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
			b = appendAtom(b, f.MapIndex(reflect.ValueOf(k).Convert(f.Type().Key())), false) // a string or an integer
			b = append(b, ']')
		}
		return append(b, "]]"...)
	}
	return appendAtom(b, f, uuid)
}

// appendStringMap appends m as an OVSDB map with sorted keys.
func appendStringMap(b []byte, m map[string]string) []byte {
	var scratch [16]string
	keys := scratch[:0]
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	b = append(b, `["map",[`...)
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '[')
		b = appendString(b, k)
		b = append(b, ',')
		b = appendString(b, m[k])
		b = append(b, ']')
	}
	return append(b, "]]"...)
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
