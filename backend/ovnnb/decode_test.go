package ovnnb

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/ovn-kubernetes/libovsdb/model"
	"github.com/ovn-kubernetes/libovsdb/ovsdb"
)

// libovsdbRead is the select Observe sent before decodeSelect: through the
// libovsdb client, decoded into generic rows and then models.
func libovsdbRead(t testing.TB, c *Client) map[string]map[string]model.Model {
	t.Helper()
	ops := selectOps()
	res, err := c.ovs.Transact(context.Background(), ops...)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]map[string]model.Model{}
	for i, tb := range snapshotTables {
		out[tb] = map[string]model.Model{}
		for j := range res[i].Rows {
			u := res[i].Rows[j]["_uuid"].(ovsdb.UUID).GoUUID
			m, err := model.CreateModel(c.dbModel, tb, &res[i].Rows[j], u)
			if err != nil {
				t.Fatal(err)
			}
			out[tb][u] = m
		}
	}
	return out
}

// decodeSelect reads every row as libovsdb's decoding does: the same rows,
// each with the same values.
func TestDecodeSelectMatchesLibovsdb(t *testing.T) {
	ctx := context.Background()
	c, _ := monDial(t, startEmbeddedT(t), false)
	if _, _, err := c.Sync(ctx, monMerge(t, monTwoNetworks(t, 3), monSeed004(t, 3))); err != nil {
		t.Fatal(err)
	}
	want := libovsdbRead(t, c)
	got, err := c.read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, tb := range snapshotTables {
		if len(got.rows[tb]) != len(want[tb]) {
			t.Errorf("%s: %d rows, want %d", tb, len(got.rows[tb]), len(want[tb]))
		}
		for u, w := range want[tb] {
			n++
			if g, ok := got.rows[tb][u]; !ok || !sameModel(g, w) {
				t.Errorf("%s row %s:\n got %+v\nwant %+v", tb, u, g, w)
			}
		}
	}
	if n < 100 {
		t.Fatalf("only %d rows compared", n)
	}
}

// decodeSelect on malformed or mistyped replies: an error, never a panic,
// and never a row without its UUID.
func TestDecodeSelectErrors(t *testing.T) {
	c, _ := monDial(t, startEmbeddedT(t), false)
	tables := []string{"Logical_Switch"}
	for _, raw := range []string{
		``, `[`, `[{"rows":[{"name":"a"}]}]`, `[{"rows":[{"_uuid":["uuid","u"],"name":7}]}]`,
		`[{"rows":[{"_uuid":["uuid","u"],"ports":["set",[["uuid","a"],"b"]]}]}]`,
		`[{"rows":[{"_uuid":["uuid","u"],"external_ids":["set",[]]}]}]`,
		`[{"rows":[{"_uuid":["uuid","u"],"copp":["set",[["uuid","a"],["uuid","b"]]]}]}]`,
		`[{"error":"syntax error","details":"bad"}]`, `[{"rows":[]},{"rows":[]}]`, `[]`,
		`[{"rows":[{"_uuid":["uuid","u"],"name":"unterminated}]}]`,
	} {
		if rows, err := c.decodeSelect([]byte(raw), tables); err == nil {
			t.Errorf("%s: no error, rows %v", raw, rows)
		}
	}
	rows, err := c.decodeSelect([]byte(`[{"rows":[{"_uuid":["uuid","u"],"name":"a\u00e9\"","unknown":{"x":[1,2.5,true,null]},`+
		`"other_config":["map",[["k","v"]]],"ports":["uuid","p"],"copp":["set",[]]}]}]`), tables)
	if err != nil {
		t.Fatal(err)
	}
	sw := rows[0]["u"]
	b, _ := json.Marshal(sw)
	if want := `{"UUID":"u","ACLs":null,"Copp":null,"DNSRecords":null,"ExternalIDs":null,"ForwardingGroups":null,"LoadBalancer":null,"LoadBalancerGroup":null,"Name":"aé\"","OtherConfig":{"k":"v"},"Ports":["p"],"QOSRules":null}`; string(b) != want {
		t.Fatalf("decoded %s\nwant    %s", b, want)
	}
}

// FuzzDecodeSelect: any reply decodes to rows or an error, never a panic;
// every row decoded carries its UUID.
func FuzzDecodeSelect(f *testing.F) {
	e, err := StartEmbedded()
	if err != nil {
		f.Fatal(err)
	}
	defer e.Close()
	c, err := Dial(context.Background(), e.Config())
	if err != nil {
		f.Fatal(err)
	}
	defer c.Close()
	for _, s := range []string{
		`[{"rows":[{"_uuid":["uuid","u"],"name":"a","other_config":["map",[["k","v"]]],"ports":["set",[["uuid","p"]]]}]}]`,
		`[{"rows":[]}]`, `[{"error":"e"}]`, `[{"rows":[{"_uuid":["uuid","u"],"copp":["set",[]],"name":"\ud83d\ude00\\"}]}]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		rows, err := c.decodeSelect(raw, []string{"Logical_Switch"})
		if err != nil {
			return
		}
		for u, m := range rows[0] {
			if u == "" || rowUUID(m) != u {
				t.Fatalf("row %q decoded with UUID %q", u, rowUUID(m))
			}
		}
	})
}

func rowUUID(m model.Model) string {
	b, _ := json.Marshal(m)
	var x struct{ UUID string }
	_ = json.Unmarshal(b, &x)
	return x.UUID
}
