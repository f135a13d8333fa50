package ovntest

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// Columns that ovn-northd or ovn-controller write into NB rows; Canonical
// leaves them out so that two databases fed the same way compare equal.
var northdColumns = map[string]bool{"up": true, "dynamic_addresses": true, "status": true, "tag": true}

// NBTables are the tables udnkit writes.
var NBTables = []string{"Address_Set", "Load_Balancer", "Load_Balancer_Group", "Logical_Switch", "Logical_Router",
	"Logical_Switch_Port", "Logical_Router_Port", "Port_Group", "Logical_Router_Static_Route",
	"Logical_Router_Policy", "NAT", "ACL", "Gateway_Chassis"}

// Rows returns every row of the given NB tables, keyed by table then UUID,
// as decoded OVSDB JSON.
func (e *Env) Rows(ctx context.Context, tables ...string) (map[string]map[string]map[string]any, error) {
	ops := []any{"OVN_Northbound"}
	for _, t := range tables {
		ops = append(ops, map[string]any{"op": "select", "table": t, "where": []any{}})
	}
	q, err := json.Marshal(ops)
	if err != nil {
		return nil, err
	}
	out, err := e.Tool(ctx, "ovsdb-client", "transact", e.NBTCP, string(q))
	if err != nil {
		return nil, err
	}
	var res []struct {
		Rows  []map[string]any `json:"rows"`
		Error string           `json:"error"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		return nil, fmt.Errorf("ovsdb-client output: %w", err)
	}
	all := map[string]map[string]map[string]any{}
	for i, t := range tables {
		if i >= len(res) || res[i].Error != "" {
			return nil, fmt.Errorf("select %s: %v", t, res)
		}
		all[t] = map[string]map[string]any{}
		for _, r := range res[i].Rows {
			u, _ := r["_uuid"].([]any)
			if len(u) != 2 {
				return nil, fmt.Errorf("select %s: row without _uuid", t)
			}
			all[t][u[1].(string)] = r
		}
	}
	return all, nil
}

// Canonical returns the contents of the NB tables udnkit writes as sorted
// text in which every UUID is replaced by the contents of the row it names:
// two databases with the same rows give the same text whatever their UUIDs.
// Columns that northd writes are left out.
func (e *Env) Canonical(ctx context.Context) (string, error) {
	all, err := e.Rows(ctx, NBTables...)
	if err != nil {
		return "", err
	}
	return CanonicalText(all), nil
}

// CanonicalText is Canonical over rows already read.
func CanonicalText(all map[string]map[string]map[string]any) string {
	where := map[string]string{}
	for t, rows := range all {
		for u := range rows {
			where[u] = t
		}
	}
	memo := map[string]string{}
	var row func(u string) string
	var val func(v any) string
	val = func(v any) string {
		switch x := v.(type) {
		case []any:
			if len(x) == 2 {
				if tag, ok := x[0].(string); ok {
					switch tag {
					case "uuid", "named-uuid":
						return row(x[1].(string))
					case "set":
						elems := x[1].([]any)
						s := make([]string, len(elems))
						for i, e := range elems {
							s[i] = val(e)
						}
						slices.Sort(s)
						return "[" + strings.Join(s, ",") + "]"
					case "map":
						pairs := x[1].([]any)
						s := make([]string, len(pairs))
						for i, p := range pairs {
							kv := p.([]any)
							s[i] = val(kv[0]) + "=" + val(kv[1])
						}
						slices.Sort(s)
						return "{" + strings.Join(s, ",") + "}"
					}
				}
			}
		}
		b, _ := json.Marshal(v)
		return string(b)
	}
	row = func(u string) string {
		if s, ok := memo[u]; ok {
			return s
		}
		t, ok := where[u]
		if !ok {
			return "<" + u + ">"
		}
		r := all[t][u]
		cols := make([]string, 0, len(r))
		for c := range r {
			if c == "_uuid" || c == "_version" || northdColumns[c] {
				continue
			}
			s := val(r[c])
			if s == "[]" || s == "{}" || s == `""` {
				continue
			}
			cols = append(cols, c+":"+s)
		}
		slices.Sort(cols)
		s := t + "(" + strings.Join(cols, " ") + ")"
		memo[u] = s
		return s
	}
	var lines []string
	for t, rows := range all {
		for u := range rows {
			lines = append(lines, t+" "+row(u))
		}
	}
	slices.Sort(lines)
	return strings.Join(lines, "\n") + "\n"
}
