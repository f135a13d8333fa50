package ovs

import (
	"context"
	"errors"
	"strings"
	"testing"

	libovs "github.com/digitalocean/go-openvswitch/ovs"

	"github.com/udnkit/udnkit/flows"
)

func TestParseDiffed(t *testing.T) {
	f, err := parseDiffed("table=2 priority=300,reg1=0x4 cookie=0xdeff105 actions=mod_dl_dst:02:42:ac:12:00:05,output:4")
	if err != nil || f.Table != 2 || f.Priority != 300 || f.Match != "reg1=0x4" || f.Actions != "mod_dl_dst:02:42:ac:12:00:05,output:4" {
		t.Fatalf("%+v %v", f, err)
	}
	f, err = parseDiffed("priority=100,ip,in_port=3 cookie=0xdeff105 actions=ct(commit,zone=64000,exec(set_field:0x4->ct_mark)),output:1")
	if err != nil || f.Table != 0 || f.Match != "ip,in_port=3" || !strings.HasPrefix(f.Actions, "ct(commit") {
		t.Fatalf("%+v %v", f, err)
	}
	f, err = parseDiffed("table=3 priority=0 cookie=0xdeff105 actions=drop")
	if err != nil || f.Table != 3 || f.Priority != 0 || f.Match != "" {
		t.Fatalf("%+v %v", f, err)
	}
	for _, bad := range []string{"priority=1 cookie=0xdeff105", "priority=1 actions=drop", "table=x priority=1 cookie=0x1 actions=drop", "ip cookie=0x1 actions=drop"} {
		if _, err := parseDiffed(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
	key, cookie, ok := withoutCookie("table=2 priority=300,reg1=0x4 cookie=0x5 actions=drop")
	if !ok || cookie != "0x5" || key != "table=2 priority=300,reg1=0x4 actions=drop" {
		t.Errorf("withoutCookie: %q %q %v", key, cookie, ok)
	}
}

func FuzzParseDiffed(f *testing.F) {
	f.Add("table=2 priority=300,reg1=0x4 cookie=0xdeff105 actions=drop")
	f.Fuzz(func(t *testing.T, l string) {
		fl, err := parseDiffed(l)
		if err != nil {
			return
		}
		if !strings.Contains(l, " actions="+fl.Actions) || !strings.Contains(l, "priority=") {
			t.Fatalf("%+v not from %q", fl, l)
		}
	})
}

// TestLibraryParserDropsFields records why Observe reads the bridge
// itself: go-openvswitch's flow parser (ovs.Flow.UnmarshalText, behind
// its client's DumpFlows) skips the match fields it does not know, so a
// dispatch flow on reg1 or pkt_mark would read back as a catch-all and
// never diff right. The day it keeps them, this test fails and the client
// can read the bridge.
func TestLibraryParserDropsFields(t *testing.T) {
	for _, l := range []string{
		"table=2 priority=300,reg1=0x4 cookie=0xdeff105 actions=output:4",
		"table=2 priority=250,ip,pkt_mark=0x1001 cookie=0xdeff105 actions=output:4",
	} {
		var f libovs.Flow
		dumped := "cookie=0xdeff105, " + strings.Replace(strings.Replace(l, " cookie=0xdeff105", "", 1), "table=2 ", "table=2, ", 1)
		if err := f.UnmarshalText([]byte(dumped)); err != nil {
			t.Fatalf("%s: %v", dumped, err)
		}
		if len(f.Matches) != 0 {
			t.Errorf("go-openvswitch now keeps the matches of %q (%d): reading the bridge through its client is possible", dumped, len(f.Matches))
		}
		ours, err := parseDiffed(l)
		if err != nil || !strings.Contains(ours.Match, "=0x") {
			t.Errorf("parseDiffed(%q) = %+v, %v", l, ours, err)
		}
	}
}

// TestRefusesInjectedFlows: a flow whose match or actions would add a
// command of its own to the bundle file, or set another cookie, is refused
// before ovs-ofctl runs.
func TestRefusesInjectedFlows(t *testing.T) {
	br, err := New(Config{Bridge: "breth0", Dir: t.TempDir(), Run: func(_ context.Context, _ []byte, args ...string) ([]byte, error) {
		t.Errorf("ovs-ofctl ran: %v", args)
		return nil, nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []flows.Flow{
		{Table: 0, Priority: 1, Match: "ip", Actions: "drop\ndelete cookie=0x1234/-1"},
		{Table: 0, Priority: 1, Match: "ip\ndelete", Actions: "drop"},
		{Table: 0, Priority: 1, Match: "ip,cookie=0x1234", Actions: "drop"},
		{Table: 255, Priority: 1, Match: "ip", Actions: "drop"},
		{Table: 0, Priority: 70000, Match: "ip", Actions: "drop"},
		{Table: 0, Priority: 1, Match: "ip", Actions: ""},
	} {
		if _, err := br.Apply(context.Background(), flows.Changes{Add: []flows.Flow{f}}); !errors.Is(err, flows.ErrInvalid) {
			t.Errorf("Apply(%q): %v", f, err)
		}
		if _, _, err := br.Sync(context.Background(), []flows.Flow{f}); !errors.Is(err, flows.ErrInvalid) {
			t.Errorf("Sync(%q): %v", f, err)
		}
	}
}

// TestNewRefusesOptionLikeBridges: ovs-ofctl would read a bridge named
// "--strict" as an option.
func TestNewRefusesOptionLikeBridges(t *testing.T) {
	for _, bridge := range []string{"", "-x", "--strict"} {
		if _, err := New(Config{Bridge: bridge}); err == nil {
			t.Errorf("New accepted bridge %q", bridge)
		}
	}
	if _, err := New(Config{Bridge: "br-ex"}); err != nil {
		t.Errorf("br-ex: %v", err)
	}
}
