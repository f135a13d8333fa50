package main

import (
	"fmt"
	"go/ast"
	"strconv"
	"strings"
	"testing"
)

// FuzzDirective: any directive line and field tag either makes a kind with
// a table, an id from 1 to 255 and a positive order, which the canonical
// spelling of the directive parses back to, or an error naming the type;
// never a panic.
func FuzzDirective(f *testing.F) {
	for _, s := range [][2]string{
		{"table=Meter id=14 order=5", "name,key"},
		{"table=QoS id=13 order=130 name=qos", ",parent=Switch.qos_rules"},
		{"table=X id=0 order=1", "a,key=false"},
		{"table=X id=256 order=-1", "a,label="},
		{"id=1 order=1", ",attach=Router."},
		{"table=X id=1 id=2 order=1 name=", "x,ref=Y,ip,q,required"},
		{"table=X id=+7 order=0x10", ""},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, line, tag string) {
		if strings.ContainsAny(line, "\n\r") {
			return // one comment line
		}
		doc := &ast.CommentGroup{List: []*ast.Comment{{Text: "// X is a kind."}, {Text: "//udnkit:kind " + line}}}
		st := &ast.StructType{Fields: &ast.FieldList{List: []*ast.Field{
			{Names: []*ast.Ident{{Name: "Owner"}}, Type: &ast.Ident{Name: "Owner"}},
			{Names: []*ast.Ident{{Name: "F"}}, Type: &ast.Ident{Name: "int"}, Tag: &ast.BasicLit{Value: strconv.Quote(`nb:"` + tag + `"`)}},
		}}}
		k, err := directive(doc, "X", st)
		if err != nil {
			if !strings.Contains(err.Error(), "X") {
				t.Fatalf("error %q does not name the type", err)
			}
			return
		}
		if k == nil || k.table == "" || k.id < 1 || k.id > 255 || k.order < 1 || k.typ != "X" || len(k.fields) != 2 {
			t.Fatalf("directive %q made %+v", line, k)
		}
		canon := fmt.Sprintf("table=%s id=%d order=%d name=%s", k.table, k.id, k.order, k.name)
		doc.List[1].Text = "//udnkit:kind " + canon
		back, err := directive(doc, "X", st)
		if strings.ContainsAny(k.table+k.name, " \t=") {
			return // a value with a separator does not spell back
		}
		if err != nil || back.table != k.table || back.id != k.id || back.order != k.order || back.name != k.name {
			t.Fatalf("%q parsed as %+v; its canonical %q as %+v, %v", line, k, canon, back, err)
		}
	})
}
