package ovntest

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestCluster: the three members elect one leader; killing it elects
// another among the two left, ovn-nbctl keeps writing through the list of
// endpoints, and the killed member restarted on its ports rejoins as a
// follower holding what was written meanwhile.
func TestCluster(t *testing.T) {
	c := StartCluster(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	lead, err := c.Leader(ctx)
	if err != nil {
		t.Fatal(err)
	}
	roles := map[string]int{}
	for i := range c.Members {
		st, err := c.Status(ctx, i)
		if err != nil {
			t.Fatal(err)
		}
		roles[st.Role]++
	}
	if roles["leader"] != 1 || roles["follower"] != 2 {
		t.Fatalf("roles %v, want one leader and two followers", roles)
	}
	if _, err := c.NBCtl(ctx, "ls-add", "before"); err != nil {
		t.Fatal(err)
	}
	if err := c.Kill(lead); err != nil {
		t.Fatal(err)
	}
	if c.Running(lead) {
		t.Fatalf("member %d still runs after Kill", lead+1)
	}
	next, err := c.Leader(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if next == lead {
		t.Fatalf("the killed member %d is leader", lead+1)
	}
	if _, err := c.NBCtl(ctx, "ls-add", "after"); err != nil {
		t.Fatal(err)
	}
	if err := c.Restart(ctx, lead); err != nil {
		t.Fatal(err)
	}
	st, err := c.Status(ctx, lead)
	if err != nil {
		t.Fatal(err)
	}
	if st.Role != "follower" {
		t.Fatalf("restarted member %d is %s, want follower:\n%s", lead+1, st.Role, st.Text)
	}
	// The restarted member alone (not the leader) catches up with both
	// switches.
	var got string
	for {
		out, err := Chroot(ctx, c.Root, nil, "", "ovn-nbctl", "--no-leader-only", "--db="+c.Members[lead].Endpoint,
			"--bare", "--columns=name", "list", "Logical_Switch")
		if err != nil {
			t.Fatal(err)
		}
		if got = strings.Join(strings.Fields(out), " "); got == "after before" || got == "before after" {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("the restarted member holds switches %q, want before and after", got)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err := c.Sync(ctx); err != nil {
		t.Fatal(err)
	}
}
