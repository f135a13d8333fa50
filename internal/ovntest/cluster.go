package ovntest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// ClusterSize is the number of members StartCluster runs: the smallest
// cluster that survives losing one.
const ClusterSize = 3

// Cluster is a real OVN whose Northbound database is a three-member RAFT
// cluster: three ovsdb-server processes, each with its own database file,
// client port and RAFT port, a standalone Southbound ovsdb-server and an
// ovn-northd that reads all three members. The embedded Env's NBTCP is the
// comma-separated list of the running members' endpoints (Kill and
// Restart keep it so: do not call them while another goroutine uses it),
// which Env.Rows, Env.Shell and Env.Tool use. ovn-nbctl given several
// endpoints gives up when the first it reaches is a follower, so
// Cluster.NBCtl and Cluster.Sync find the leader and talk to it alone.
type Cluster struct {
	Env
	// Members are the NB members, in the order they joined; Members[0]
	// created the cluster.
	Members []*Member
	sb      *daemon
	northd  *daemon
}

// Member is one NB server of a Cluster.
type Member struct {
	// Index is the member's position in Cluster.Members.
	Index int
	// Endpoint is the member's client endpoint, "tcp:127.0.0.1:PORT".
	Endpoint string
	// Raft is the member's RAFT address, "tcp:127.0.0.1:PORT".
	Raft string
	db   *daemon
}

// daemon is one process of the root filesystem, started detached with a
// pid file, a log file and a control socket under the cluster's directory.
type daemon struct {
	c    *Cluster
	name string   // file stem: nb1, sb, northd
	argv []string // without the --detach, pid, log and unixctl options
}

func (d *daemon) in(suffix string) string {
	return "/tmp/" + filepath.Base(d.c.Dir) + "/" + d.name + suffix
}

func (d *daemon) host(suffix string) string { return filepath.Join(d.c.Dir, d.name+suffix) }

func (d *daemon) start(ctx context.Context) error {
	argv := append([]string{d.argv[0], "--detach", "--no-chdir", "--pidfile=" + d.in(".pid"),
		"--log-file=" + d.in(".log"), "--unixctl=" + d.in(".ctl")}, d.argv[1:]...)
	if _, err := Chroot(ctx, d.c.Root, nil, "", argv...); err != nil {
		return fmt.Errorf("starting %s: %w", d.name, err)
	}
	return nil
}

// pid returns the daemon's process id, 0 when it does not run.
func (d *daemon) pid() int {
	b, err := os.ReadFile(d.host(".pid"))
	if err != nil {
		return 0
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || !alive(pid) {
		return 0
	}
	return pid
}

// alive reports whether pid runs and is not a zombie.
func alive(pid int) bool {
	st, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	_, rest, _ := strings.Cut(string(st), ") ")
	return !strings.HasPrefix(rest, "Z")
}

// stop sends sig and waits for the process to end: up to 15 seconds (a
// loaded machine), then it sends SIGKILL and waits 5 more.
func (d *daemon) stop(sig syscall.Signal) error {
	pid := d.pid()
	if pid == 0 {
		return nil
	}
	for _, step := range []struct {
		sig  syscall.Signal
		wait int
	}{{sig, 750}, {syscall.SIGKILL, 250}} {
		if err := syscall.Kill(pid, step.sig); err != nil {
			return fmt.Errorf("kill %s (pid %d): %w", d.name, pid, err)
		}
		for range step.wait {
			if !alive(pid) {
				_ = os.Remove(d.host(".pid"))
				return nil
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	return fmt.Errorf("%s (pid %d) still runs after signal %d and SIGKILL", d.name, pid, sig)
}

// freePorts returns n TCP ports of 127.0.0.1 that were free a moment ago.
func freePorts(n int) ([]int, error) {
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	var ports []int
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// StartCluster starts a fresh clustered NB (see Cluster) in a directory
// under the root filesystem's /tmp and stops it when tb ends, failing tb on
// any unexpected northd warning as Start does. It skips tb (fails it under
// CI=true) when OVN is unavailable.
func StartCluster(tb testing.TB) *Cluster {
	tb.Helper()
	script, root, err := Available()
	if err != nil {
		Skip(tb, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c, err := StartClusterIn(ctx, script, root)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if bad, err := c.UnexpectedNorthd(); err != nil {
			tb.Errorf("reading the northd log: %v", err)
		} else {
			for _, l := range bad {
				tb.Errorf("northd: %s", l)
			}
		}
		if err := c.Stop(); err != nil {
			tb.Error(err)
		}
		if !tb.Failed() {
			os.RemoveAll(c.Dir)
		} else {
			tb.Logf("OVN cluster kept in %s", c.Dir)
		}
	})
	return c
}

// expectedCluster are the northd warnings a member's death causes: northd
// loses its NB connection and reconnects to another member.
var expectedCluster = []string{
	`\|reconnect\|WARN\|tcp:127\.0\.0\.1:[0-9]+: connection dropped`,
	`\|reconnect\|WARN\|tcp:127\.0\.0\.1:[0-9]+: connection attempt failed`,
	`\|ovsdb_cs\|WARN\|`,
	`\|jsonrpc\|WARN\|tcp:127\.0\.0\.1:[0-9]+: (receive|send) error`,
	`\|stream_tcp\|WARN\|`,
}

// StartClusterIn starts a clustered NB with the given script and root
// filesystem (see Available) in a new directory under root's /tmp. Stop it
// with Cluster.Stop; remove Cluster.Dir afterwards.
func StartClusterIn(ctx context.Context, script, root string) (*Cluster, error) {
	dir, err := os.MkdirTemp(filepath.Join(root, "tmp"), "udnkit-raft-")
	if err != nil {
		return nil, err
	}
	c := &Cluster{Env: Env{Dir: dir, Root: root, script: script}}
	for _, re := range expectedCluster {
		c.AllowNorthd(regexp.MustCompile(re))
	}
	if err := c.start(ctx); err != nil {
		_ = c.Stop()
		os.RemoveAll(dir)
		return nil, err
	}
	return c, nil
}

func (c *Cluster) start(ctx context.Context) error {
	ports, err := freePorts(2*ClusterSize + 1)
	if err != nil {
		return err
	}
	const schema = "/usr/share/ovn/ovn-nb.ovsschema"
	var eps []string
	for i := range ClusterSize {
		m := &Member{
			Index:    i,
			Endpoint: fmt.Sprintf("tcp:127.0.0.1:%d", ports[2*i]),
			Raft:     fmt.Sprintf("tcp:127.0.0.1:%d", ports[2*i+1]),
		}
		m.db = &daemon{c: c, name: fmt.Sprintf("nb%d", i+1)}
		m.db.argv = []string{"ovsdb-server", fmt.Sprintf("--remote=ptcp:%d:127.0.0.1", ports[2*i]), m.db.in(".db")}
		create := []string{"ovsdb-tool", "create-cluster", m.db.in(".db"), schema, m.Raft}
		if i > 0 {
			create = []string{"ovsdb-tool", "join-cluster", m.db.in(".db"), "OVN_Northbound", m.Raft, c.Members[0].Raft}
		}
		if _, err := Chroot(ctx, c.Root, nil, "", create...); err != nil {
			return err
		}
		if err := m.db.start(ctx); err != nil {
			return err
		}
		c.Members = append(c.Members, m)
		eps = append(eps, m.Endpoint)
	}
	c.NBTCP = strings.Join(eps, ",")
	c.sb = &daemon{c: c, name: "sb"}
	sbPort := ports[2*ClusterSize]
	c.sb.argv = []string{"ovsdb-server", fmt.Sprintf("--remote=ptcp:%d:127.0.0.1", sbPort), c.sb.in(".db")}
	if _, err := Chroot(ctx, c.Root, nil, "", "ovsdb-tool", "create", c.sb.in(".db"), "/usr/share/ovn/ovn-sb.ovsschema"); err != nil {
		return err
	}
	if err := c.sb.start(ctx); err != nil {
		return err
	}
	c.SBTCP = fmt.Sprintf("tcp:127.0.0.1:%d", sbPort)
	// Every member must have joined before northd or a client relies on
	// the cluster.
	for _, m := range c.Members {
		if err := c.waitMember(ctx, m); err != nil {
			return err
		}
	}
	// Three members and northd on a loaded machine: northd's default 5 s
	// inactivity probe disconnects (and logs an error) for a member that
	// is only busy.
	if _, err := c.NBCtl(ctx, "--no-wait", "init", "--", "set", "NB_Global", ".", "options:northd_probe_interval=60000"); err != nil {
		return err
	}
	c.northd = &daemon{c: c, name: "northd"}
	c.northd.argv = []string{"ovn-northd", "--ovnnb-db=" + c.NBTCP, "--ovnsb-db=" + c.SBTCP}
	if err := c.northd.start(ctx); err != nil {
		return err
	}
	c.NorthdLog = c.northd.host(".log")
	return c.Sync(ctx)
}

// waitMember waits until m reports a role and a leader.
func (c *Cluster) waitMember(ctx context.Context, m *Member) error {
	var last error
	for {
		st, err := c.Status(ctx, m.Index)
		if err == nil && (st.Role == "leader" || st.Role == "follower") && st.Leader != "unknown" && st.Leader != "" {
			return nil
		}
		last = err
		if err == nil {
			last = fmt.Errorf("role %q, leader %q", st.Role, st.Leader)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("NB member %d (%s) did not join the cluster: %v: %w", m.Index+1, m.Endpoint, last, ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// NBCtl runs ovn-nbctl against the current leader and returns its output.
// A run that could not connect ("database connection failed": nothing was
// sent; a member that has just lost or won leadership drops its clients)
// is run again, within ctx.
func (c *Cluster) NBCtl(ctx context.Context, args ...string) (string, error) {
	for {
		i, err := c.Leader(ctx)
		if err != nil {
			return "", err
		}
		out, err := Chroot(ctx, c.Root, []string{"OVN_SB_DB=" + c.SBTCP}, "",
			append([]string{"ovn-nbctl", "--db=" + c.Members[i].Endpoint}, args...)...)
		if err == nil || !strings.Contains(err.Error(), "database connection failed") || ctx.Err() != nil {
			return out, err
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// Sync waits until ovn-northd has compiled the current NB contents into SB.
func (c *Cluster) Sync(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	_, err := c.NBCtl(ctx, "--wait=sb", "sync")
	return err
}

// MemberStatus is what a member's cluster/status says of it.
type MemberStatus struct {
	// Role is "leader", "follower" or "candidate".
	Role string
	// Term is the RAFT term the member is in.
	Term int
	// Leader is the server ID of the leader, "self", or "unknown".
	Leader string
	// Text is the whole cluster/status output.
	Text string
}

// Status runs cluster/status on member i.
func (c *Cluster) Status(ctx context.Context, i int) (MemberStatus, error) {
	m := c.Members[i]
	out, err := Chroot(ctx, c.Root, nil, "", "ovs-appctl", "-t", m.db.in(".ctl"), "cluster/status", "OVN_Northbound")
	if err != nil {
		return MemberStatus{}, fmt.Errorf("NB member %d: %w", i+1, err)
	}
	st := MemberStatus{Text: out}
	for l := range strings.SplitSeq(out, "\n") {
		k, v, ok := strings.Cut(l, ":")
		if !ok {
			continue
		}
		v = strings.TrimSpace(v)
		switch k {
		case "Role":
			st.Role = v
		case "Term":
			st.Term, _ = strconv.Atoi(v)
		case "Leader":
			st.Leader = v
		}
	}
	if st.Role == "" {
		return st, fmt.Errorf("NB member %d: cluster/status has no Role line: %s", i+1, out)
	}
	return st, nil
}

// Leader returns the index of the member that reports itself leader,
// waiting within ctx for an election to end.
func (c *Cluster) Leader(ctx context.Context) (int, error) {
	for {
		for i := range c.Members {
			if !c.Running(i) {
				continue
			}
			if st, err := c.Status(ctx, i); err == nil && st.Role == "leader" {
				return i, nil
			}
		}
		select {
		case <-ctx.Done():
			return -1, fmt.Errorf("no NB member is leader: %w", ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// Pid returns member i's process id, 0 when it does not run.
func (c *Cluster) Pid(i int) int { return c.Members[i].db.pid() }

// Running reports whether member i's process runs.
func (c *Cluster) Running(i int) bool { return c.Pid(i) != 0 }

// Kill kills member i with SIGKILL (no clean shutdown) and waits until it
// is gone. Its database file stays for Restart.
func (c *Cluster) Kill(i int) error {
	err := c.Members[i].db.stop(syscall.SIGKILL)
	c.setNBTCP()
	return err
}

// setNBTCP sets NBTCP to the running members' endpoints.
func (c *Cluster) setNBTCP() {
	var eps []string
	for i, m := range c.Members {
		if c.Running(i) {
			eps = append(eps, m.Endpoint)
		}
	}
	c.NBTCP = strings.Join(eps, ",")
}

// Restart starts a killed member i again on its ports with its database
// file, and waits until it has rejoined (knows the leader).
func (c *Cluster) Restart(ctx context.Context, i int) error {
	m := c.Members[i]
	if c.Running(i) {
		return fmt.Errorf("NB member %d (pid %d) still runs", i+1, c.Pid(i))
	}
	if err := m.db.start(ctx); err != nil {
		return err
	}
	c.setNBTCP()
	return c.waitMember(ctx, m)
}

// Stop stops northd, the SB server and every member (SIGTERM). It is safe
// to call twice.
func (c *Cluster) Stop() error {
	var errs []error
	ds := []*daemon{c.northd, c.sb}
	for _, m := range c.Members {
		ds = append(ds, m.db)
	}
	for _, d := range ds {
		if d != nil {
			errs = append(errs, d.stop(syscall.SIGTERM))
		}
	}
	return errors.Join(errs...)
}

// MemberRSS returns member i's resident memory in bytes (VmRSS), 0 when it
// does not run. A large transaction being read and parsed shows as growth
// (rchar does not: ovsdb-server reads its sockets with recv).
func (c *Cluster) MemberRSS(i int) int64 {
	return procField(c.Pid(i), "status", "VmRSS:") * 1024
}

// procField returns the first number after key in /proc/pid/file.
func procField(pid int, file, key string) int64 {
	if pid == 0 {
		return 0
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/%s", pid, file))
	if err != nil {
		return 0
	}
	for l := range strings.SplitSeq(string(b), "\n") {
		if rest, ok := strings.CutPrefix(l, key); ok {
			f := strings.Fields(rest)
			if len(f) > 0 {
				n, _ := strconv.ParseInt(f[0], 10, 64)
				return n
			}
		}
	}
	return 0
}

// Endpoints returns the members' client endpoints, in member order.
func (c *Cluster) Endpoints() []string {
	return slices.Collect(func(yield func(string) bool) {
		for _, m := range c.Members {
			if !yield(m.Endpoint) {
				return
			}
		}
	})
}

// DBFile returns the host path of member i's database file.
func (c *Cluster) DBFile(i int) string { return c.Members[i].db.host(".db") }

// Log returns the host path of member i's log file.
func (c *Cluster) Log(i int) string { return c.Members[i].db.host(".log") }
