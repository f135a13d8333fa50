package ovnnb

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"unicode/utf8"

	"github.com/ovn-kubernetes/libovsdb/model"
)

// decodeSelect parses the result of a transact of selects (a JSON array
// with one {"rows":[...]} per select, tables[i] the i-th's table) straight
// into models, one map (UUID → row) per select, without libovsdb's
// generic rows: with it, decoding took most of an unmonitored Observe.
// Columns the models lack are skipped; a column of a type the model
// cannot hold is an error naming the table, row and column. A select the
// server refused is an error carrying the server's message.
func (c *Client) decodeSelect(raw []byte, tables []string) ([]map[string]model.Model, error) {
	d := &rowDecoder{b: raw}
	out := make([]map[string]model.Model, 0, len(tables))
	if err := d.expect('['); err != nil {
		return nil, err
	}
	for i := 0; ; i++ {
		if d.peek() == ']' {
			d.i++
			break
		}
		if i > 0 {
			if err := d.expect(','); err != nil {
				return nil, err
			}
		}
		if i >= len(tables) {
			return nil, fmt.Errorf("%d results for %d selects", i+1, len(tables))
		}
		rows, err := c.decodeResult(d, tables[i])
		if err != nil {
			return nil, fmt.Errorf("select on %s: %w", tables[i], err)
		}
		out = append(out, rows)
	}
	if len(out) != len(tables) {
		return nil, fmt.Errorf("%d results for %d selects", len(out), len(tables))
	}
	return out, nil
}

// decodeResult parses one operation result of a select on table.
func (c *Client) decodeResult(d *rowDecoder, table string) (map[string]model.Model, error) {
	proto, ok := tables[table]
	if !ok {
		return nil, fmt.Errorf("table %s is not the adapter's", table)
	}
	typ := reflect.TypeOf(proto).Elem()
	l := c.layouts[reflect.TypeOf(proto)]
	uuidField, _ := typ.FieldByName("UUID")
	rows := map[string]model.Model{}
	var failure string
	err := d.object(func(key string) error {
		switch key {
		case "rows":
			return d.array(func() error {
				v := reflect.New(typ)
				e := v.Elem()
				u := ""
				err := d.object(func(col string) error {
					if col == "_uuid" {
						var err error
						u, err = d.uuid()
						return err
					}
					i, ok := l.index[col]
					if !ok {
						return d.skip()
					}
					if err := d.value(e.Field(l.cols[i].field), l.cols[i].uuid); err != nil {
						return fmt.Errorf("column %s: %w", col, err)
					}
					return nil
				})
				if err != nil {
					if u != "" {
						return fmt.Errorf("row %s: %w", u, err)
					}
					return err
				}
				if u == "" {
					return errors.New("a row without _uuid")
				}
				e.FieldByIndex(uuidField.Index).SetString(u)
				rows[u] = v.Interface().(model.Model)
				return nil
			})
		case "error", "details":
			if d.peek() == 'n' {
				return d.skip()
			}
			s, err := d.str()
			if failure != "" {
				failure += ": "
			}
			failure += s
			return err
		default:
			return d.skip()
		}
	})
	if err != nil {
		return nil, err
	}
	if failure != "" {
		return nil, fmt.Errorf("%w: %s", ErrTransaction, failure)
	}
	return rows, nil
}

// rowDecoder is a cursor over OVSDB JSON (RFC 7047 notation: atoms,
// ["uuid",u], ["set",[...]], ["map",[[k,v]...]]).
type rowDecoder struct {
	b []byte
	i int
}

var errSyntax = errors.New("malformed JSON")

func (d *rowDecoder) ws() {
	for d.i < len(d.b) {
		switch d.b[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

func (d *rowDecoder) peek() byte {
	d.ws()
	if d.i < len(d.b) {
		return d.b[d.i]
	}
	return 0
}

func (d *rowDecoder) expect(c byte) error {
	if d.peek() != c {
		return fmt.Errorf("%w at byte %d: want %q", errSyntax, d.i, c)
	}
	d.i++
	return nil
}

// object calls member for each key of an object, the cursor on its value.
func (d *rowDecoder) object(member func(key string) error) error {
	if err := d.expect('{'); err != nil {
		return err
	}
	if d.peek() == '}' {
		d.i++
		return nil
	}
	for {
		k, err := d.str()
		if err != nil {
			return err
		}
		if err := d.expect(':'); err != nil {
			return err
		}
		if err := member(k); err != nil {
			return err
		}
		switch d.peek() {
		case ',':
			d.i++
		case '}':
			d.i++
			return nil
		default:
			return fmt.Errorf("%w at byte %d: want , or }", errSyntax, d.i)
		}
	}
}

// array calls elem for each element of an array.
func (d *rowDecoder) array(elem func() error) error {
	if err := d.expect('['); err != nil {
		return err
	}
	if d.peek() == ']' {
		d.i++
		return nil
	}
	for {
		if err := elem(); err != nil {
			return err
		}
		switch d.peek() {
		case ',':
			d.i++
		case ']':
			d.i++
			return nil
		default:
			return fmt.Errorf("%w at byte %d: want , or ]", errSyntax, d.i)
		}
	}
}

// str parses a JSON string.
func (d *rowDecoder) str() (string, error) {
	if d.peek() != '"' {
		return "", fmt.Errorf("%w at byte %d: want a string", errSyntax, d.i)
	}
	start := d.i
	d.i++
	plain := true
	for d.i < len(d.b) {
		switch c := d.b[d.i]; {
		case c == '"':
			d.i++
			if s := d.b[start+1 : d.i-1]; plain && utf8.Valid(s) {
				return string(s), nil
			}
			var s string
			if err := json.Unmarshal(d.b[start:d.i], &s); err != nil {
				return "", fmt.Errorf("%w at byte %d: %v", errSyntax, start, err)
			}
			return s, nil
		case c == '\\':
			plain = false
			d.i += 2
		case c < 0x20:
			return "", fmt.Errorf("%w at byte %d: control character in a string", errSyntax, d.i)
		default:
			d.i++
		}
	}
	return "", fmt.Errorf("%w: unterminated string", errSyntax)
}

// uuid parses ["uuid","U"].
func (d *rowDecoder) uuid() (string, error) {
	if err := d.expect('['); err != nil {
		return "", err
	}
	tag, err := d.str()
	if err != nil {
		return "", err
	}
	if tag != "uuid" {
		return "", fmt.Errorf("%w at byte %d: want a uuid, got %q", errSyntax, d.i, tag)
	}
	if err := d.expect(','); err != nil {
		return "", err
	}
	u, err := d.str()
	if err != nil {
		return "", err
	}
	return u, d.expect(']')
}

// number returns the bytes of a JSON number.
func (d *rowDecoder) number() ([]byte, error) {
	d.ws()
	start := d.i
	for d.i < len(d.b) {
		c := d.b[d.i]
		if c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E' {
			d.i++
			continue
		}
		break
	}
	if d.i == start {
		return nil, fmt.Errorf("%w at byte %d: want a number", errSyntax, d.i)
	}
	return d.b[start:d.i], nil
}

// literal consumes word (true, false, null).
func (d *rowDecoder) literal(word string) bool {
	d.ws()
	if len(d.b)-d.i >= len(word) && string(d.b[d.i:d.i+len(word)]) == word {
		d.i += len(word)
		return true
	}
	return false
}

// skip consumes any JSON value.
func (d *rowDecoder) skip() error {
	switch c := d.peek(); {
	case c == '{':
		return d.object(func(string) error { return d.skip() })
	case c == '[':
		return d.array(d.skip)
	case c == '"':
		_, err := d.str()
		return err
	case d.literal("true"), d.literal("false"), d.literal("null"):
		return nil
	default:
		_, err := d.number()
		return err
	}
}

// atom parses one atom into v (a string, integer, real or boolean kind).
func (d *rowDecoder) atom(v reflect.Value, isUUID bool) error {
	switch v.Kind() {
	case reflect.String:
		var s string
		var err error
		if isUUID {
			s, err = d.uuid()
		} else {
			s, err = d.str()
		}
		if err != nil {
			return err
		}
		v.SetString(s)
	case reflect.Int, reflect.Int64, reflect.Int32:
		n, err := d.number()
		if err != nil {
			return err
		}
		x, err := strconv.ParseInt(string(n), 10, 64)
		if err != nil {
			// A real where an integer is wanted, or out of range.
			return fmt.Errorf("%w: %v", errSyntax, err)
		}
		v.SetInt(x)
	case reflect.Float64:
		n, err := d.number()
		if err != nil {
			return err
		}
		x, err := strconv.ParseFloat(string(n), 64)
		if err != nil {
			return fmt.Errorf("%w: %v", errSyntax, err)
		}
		v.SetFloat(x)
	case reflect.Bool:
		switch {
		case d.literal("true"):
			v.SetBool(true)
		case d.literal("false"):
			v.SetBool(false)
		default:
			return fmt.Errorf("%w at byte %d: want a boolean", errSyntax, d.i)
		}
	default:
		return fmt.Errorf("cannot hold an atom in a %s", v.Type())
	}
	return nil
}

// tagged reports whether the value at the cursor is ["tag", ...] and, if
// so, consumes `["tag",`.
func (d *rowDecoder) tagged(tag string) bool {
	if d.peek() != '[' {
		return false
	}
	save := d.i
	d.i++
	if s, err := d.str(); err == nil && s == tag && d.peek() == ',' {
		d.i++
		return true
	}
	d.i = save
	return false
}

// value parses a column's value into field v: an atom, an optional atom
// (pointer), a set (slice) or a map.
func (d *rowDecoder) value(v reflect.Value, isUUID bool) error {
	switch v.Kind() {
	case reflect.Pointer:
		if d.tagged("set") {
			n := 0
			err := d.array(func() error {
				n++
				if n > 1 {
					return errors.New("more than one element in an optional value")
				}
				p := reflect.New(v.Type().Elem())
				if err := d.atom(p.Elem(), isUUID); err != nil {
					return err
				}
				v.Set(p)
				return nil
			})
			if err != nil {
				return err
			}
			return d.expect(']')
		}
		p := reflect.New(v.Type().Elem())
		if err := d.atom(p.Elem(), isUUID); err != nil {
			return err
		}
		v.Set(p)
		return nil
	case reflect.Slice:
		elem := v.Type().Elem()
		if d.tagged("set") {
			s := reflect.MakeSlice(v.Type(), 0, 4)
			err := d.array(func() error {
				e := reflect.New(elem).Elem()
				if err := d.atom(e, isUUID); err != nil {
					return err
				}
				s = reflect.Append(s, e)
				return nil
			})
			if err != nil {
				return err
			}
			v.Set(s)
			return d.expect(']')
		}
		e := reflect.New(elem).Elem()
		if err := d.atom(e, isUUID); err != nil {
			return err
		}
		s := reflect.MakeSlice(v.Type(), 1, 1)
		s.Index(0).Set(e)
		v.Set(s)
		return nil
	case reflect.Map:
		if !d.tagged("map") {
			return fmt.Errorf("%w at byte %d: want a map", errSyntax, d.i)
		}
		m := reflect.MakeMap(v.Type())
		kt, vt := v.Type().Key(), v.Type().Elem()
		err := d.array(func() error {
			if err := d.expect('['); err != nil {
				return err
			}
			k := reflect.New(kt).Elem()
			if err := d.atom(k, false); err != nil {
				return err
			}
			if err := d.expect(','); err != nil {
				return err
			}
			x := reflect.New(vt).Elem()
			if err := d.atom(x, false); err != nil {
				return err
			}
			m.SetMapIndex(k, x)
			return d.expect(']')
		})
		if err != nil {
			return err
		}
		v.Set(m)
		return d.expect(']')
	default:
		return d.atom(v, isUUID)
	}
}
