package ovs

import (
	"strings"
	"testing"
)

func TestParseDumped(t *testing.T) {
	f, err := parseDumped("cookie=0xdeff105, table=2, priority=300,reg1=0x4 actions=mod_dl_dst:02:42:ac:12:00:05,output:4")
	if err != nil || f.Table != 2 || f.Priority != 300 || f.Match != "reg1=0x4" || f.Actions != "mod_dl_dst:02:42:ac:12:00:05,output:4" {
		t.Fatalf("%+v %v", f, err)
	}
	f, err = parseDumped("cookie=0xdeff105, priority=100,ip,in_port=3 actions=ct(commit,zone=64000,exec(set_field:0x4->ct_mark)),output:1")
	if err != nil || f.Table != 0 || f.Match != "ip,in_port=3" || !strings.HasPrefix(f.Actions, "ct(commit") {
		t.Fatalf("%+v %v", f, err)
	}
	if _, err := parseDumped("cookie=0xdeff105, priority=1"); err == nil {
		t.Error("a flow without actions parsed")
	}
}

func FuzzParseDumped(f *testing.F) {
	f.Add("cookie=0xdeff105, table=2, priority=300,reg1=0x4 actions=drop")
	f.Fuzz(func(t *testing.T, l string) {
		fl, err := parseDumped(l)
		if err != nil {
			return
		}
		if !strings.Contains(l, " actions="+fl.Actions) {
			t.Fatalf("actions %q not from %q", fl.Actions, l)
		}
	})
}
