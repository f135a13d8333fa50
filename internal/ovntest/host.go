package ovntest

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// Host is a node of a zone: a network namespace in which Open vSwitch runs
// with the userspace (netdev) datapath, and an ovn-controller registered as
// chassis Name in the zone's Southbound database. The OVS database server
// and ovn-controller run in the host's (the test's) network namespace, so
// they reach the zone's databases on 127.0.0.1; only ovs-vswitchd runs in
// the namespace, where its bridges, taps and tunnels live.
type Host struct {
	// Name is the chassis name (the node's name) and the OVS system-id.
	Name string
	// NetNS is the network namespace's name (ip netns).
	NetNS string
	// Dir holds the OVS database, sockets, logs and pid files.
	Dir string
	env *Env
	ds  []*daemon
	// peers share an Underlay with this host; quiet is when the first of
	// them stopped: its end of the veth pair went away, which ovs-vswitchd
	// logs as errors, so Errors ignores what follows.
	peers   []*Host
	quiet   time.Time
	pods    []*Pod
	allowed []*regexp.Regexp
}

// StartHost starts a Host named name for env's zone, its tunnels
// (Geneve) sourced from encapIP (an address the caller puts on the host's
// underlay), and stops it when tb ends. Any warning or error in the logs
// of ovs-vswitchd or ovn-controller but the few a correct host logs
// (Errors) fails tb.
func StartHost(tb testing.TB, env *Env, name, encapIP string) *Host {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	h, err := startHost(ctx, env, name, encapIP)
	if h != nil {
		tb.Cleanup(func() {
			for _, l := range h.Errors() {
				tb.Errorf("host %s: %s", name, l)
			}
			if err := h.Stop(); err != nil {
				tb.Error(err)
			}
			if !tb.Failed() {
				os.RemoveAll(h.Dir)
			} else {
				tb.Logf("host %s kept in %s", name, h.Dir)
			}
		})
	}
	if err != nil {
		tb.Fatal(err)
	}
	return h
}

var netnsName = regexp.MustCompile(`^[a-z0-9-]{1,30}$`)

func startHost(ctx context.Context, env *Env, name, encapIP string) (*Host, error) {
	if !netnsName.MatchString(name) {
		return nil, fmt.Errorf("host name %q: want 1 to 30 of a-z, 0-9 and -", name)
	}
	dir, err := os.MkdirTemp(filepath.Join(env.Root, "tmp"), "udnkit-host-")
	if err != nil {
		return nil, err
	}
	h := &Host{Name: name, NetNS: "udnkit-" + filepath.Base(dir)[len("udnkit-host-"):] + "-" + name, Dir: dir, env: env}
	if out, err := exec.CommandContext(ctx, "ip", "netns", "add", h.NetNS).CombinedOutput(); err != nil {
		return h, fmt.Errorf("ip netns add %s: %v: %s", h.NetNS, err, out)
	}
	if err := h.IP(ctx, "link", "set", "lo", "up"); err != nil {
		return h, err
	}
	in := "/tmp/" + filepath.Base(dir)
	c := &Cluster{Env: *env}
	c.Dir = dir
	db := &daemon{c: c, name: "ovsdb", argv: []string{"ovsdb-server", "--remote=punix:" + in + "/db.sock", in + "/conf.db"}}
	if _, err := Chroot(ctx, env.Root, nil, "", "ovsdb-tool", "create", in+"/conf.db", "/usr/share/openvswitch/vswitch.ovsschema"); err != nil {
		return h, err
	}
	if err := db.start(ctx); err != nil {
		return h, err
	}
	h.ds = append(h.ds, db)
	vsctl := []string{"ovs-vsctl", "--db=unix:" + in + "/db.sock", "--no-wait"}
	if _, err := Chroot(ctx, env.Root, nil, "", append(vsctl, "init", "--", "set", "Open_vSwitch", ".",
		"external_ids:system-id="+name, "external_ids:hostname="+name,
		"external_ids:ovn-remote="+env.SBTCP, "external_ids:ovn-encap-type=geneve",
		"external_ids:ovn-encap-ip="+encapIP, "external_ids:ovn-bridge-datapath-type=netdev",
		// As OVN-Kubernetes sets on every node of an interconnect
		// cluster: ovn-controller builds tunnels to remote chassis
		// (other_config:is-remote) only from an is-interconn chassis.
		"external_ids:ovn-is-interconn=true")...); err != nil {
		return h, err
	}
	// ovs-vswitchd in the namespace, with the host's /dev (the netdev
	// datapath opens /dev/net/tun) in a mount namespace of its own.
	vs := &daemon{c: c, name: "vswitchd"}
	script := fmt.Sprintf(`mount --make-rprivate / && mount --bind /dev %[1]s/dev && exec chroot %[1]s env OVS_RUNDIR=%[2]s ovs-vswitchd --detach --no-chdir --pidfile=%[2]s/vswitchd.pid --log-file=%[2]s/vswitchd.log --unixctl=%[2]s/vswitchd.ctl --disable-system unix:%[2]s/db.sock`, env.Root, in)
	if out, err := exec.CommandContext(ctx, "ip", "netns", "exec", h.NetNS, "unshare", "-m", "sh", "-c", script).CombinedOutput(); err != nil {
		return h, fmt.Errorf("starting ovs-vswitchd in %s: %v: %s", h.NetNS, err, out)
	}
	h.ds = append(h.ds, vs)
	ctl := &daemon{c: c, name: "controller", argv: []string{"ovn-controller", "unix:" + in + "/db.sock"}}
	if _, err := Chroot(ctx, env.Root, []string{"OVS_RUNDIR=" + in}, "", append([]string{ctl.argv[0], "--detach", "--no-chdir",
		"--pidfile=" + ctl.in(".pid"), "--log-file=" + ctl.in(".log"), "--unixctl=" + ctl.in(".ctl")}, ctl.argv[1:]...)...); err != nil {
		return h, fmt.Errorf("starting ovn-controller: %w", err)
	}
	h.ds = append(h.ds, ctl)
	for {
		out, err := env.SBCtl(ctx, "--bare", "--columns=name", "find", "Chassis", "name="+name)
		if err == nil && strings.TrimSpace(out) == name {
			break
		}
		select {
		case <-ctx.Done():
			return h, fmt.Errorf("chassis %s never registered in the zone's SB: %v", name, ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
	// ovn-controller made br-int; wait until vswitchd has it in the
	// namespace.
	for h.IP(ctx, "link", "show", "br-int") != nil {
		select {
		case <-ctx.Done():
			return h, fmt.Errorf("host %s: no br-int in %s", name, h.NetNS)
		case <-time.After(100 * time.Millisecond):
		}
	}
	return h, nil
}

// IP runs ip(8) in the host's namespace.
func (h *Host) IP(ctx context.Context, args ...string) error {
	out, err := exec.CommandContext(ctx, "ip", append([]string{"-n", h.NetNS}, args...)...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("ip -n %s %s: %v: %s", h.NetNS, strings.Join(args, " "), err, out)
	}
	return nil
}

// VSCtl runs ovs-vsctl against the host's OVS database.
func (h *Host) VSCtl(ctx context.Context, args ...string) (string, error) {
	in := "/tmp/" + filepath.Base(h.Dir)
	return Chroot(ctx, h.env.Root, nil, "", append([]string{"ovs-vsctl", "--db=unix:" + in + "/db.sock"}, args...)...)
}

// expectedHost are the warnings ovs-vswitchd and ovn-controller log on a
// correct host.
var expectedHost = []*regexp.Regexp{
	// ovn-controller starts before ovs-vswitchd has made br-int.
	regexp.MustCompile(`\|rconn\|WARN\|unix:[^ ]*/br-int\.mgmt: connection failed \(No such file or directory\)$`),
	// ovn-controller meets a remote port before the tunnel to its chassis,
	// which it creates in the same pass, has an OpenFlow port; the next pass
	// finds it. (A chassis that is wrong for the port gets its tunnel too:
	// the packet tests catch a wrong binding, not this line.)
	regexp.MustCompile(`\|physical\|WARN\|Failed to locate tunnel to reach main chassis [^ ]+ for port [^ ]+\.$`),
	// No hardware representors here.
	regexp.MustCompile(`\|vif_plug_provider\|WARN\|failed to initialize representor VIF plug provider class`),
	// The machine was slow.
	regexp.MustCompile(`\|timeval\|WARN\|`),
	// Host.Stop stops them.
	regexp.MustCompile(`\|fatal_signal(\([a-z0-9]+\))?\|WARN\|terminating with signal 15`),
}

// Revalidate waits until ovs-vswitchd has checked every flow its
// datapath cached against the current OpenFlow tables (ovs-appctl
// revalidator/wait): until then a packet may still take a path that
// ovn-controller has already removed.
func (h *Host) Revalidate(ctx context.Context) error {
	in := "/tmp/" + filepath.Base(h.Dir)
	if _, err := Chroot(ctx, h.env.Root, nil, "", "ovs-appctl", "-t", in+"/vswitchd.ctl", "revalidator/wait"); err != nil {
		return fmt.Errorf("host %s: %w", h.Name, err)
	}
	return nil
}

// AllowLog lets the warnings or errors of ovs-vswitchd and ovn-controller
// matching re pass the check StartHost makes when the test ends (a test
// that plans something wrong on purpose says here what it expects).
func (h *Host) AllowLog(re *regexp.Regexp) { h.allowed = append(h.allowed, re) }

// Errors returns the WARN, ERR and EMER lines of ovs-vswitchd's and
// ovn-controller's logs that a correct host does not log and AllowLog did
// not allow, up to when an Underlay peer stopped.
func (h *Host) Errors() []string {
	expected := append(slices.Clip(expectedHost), h.allowed...)
	var out []string
	for _, n := range []string{"vswitchd", "controller"} {
		b, _ := os.ReadFile(filepath.Join(h.Dir, n+".log"))
	lines:
		for l := range strings.SplitSeq(string(b), "\n") {
			if !strings.Contains(l, "|WARN|") && !strings.Contains(l, "|ERR|") && !strings.Contains(l, "|EMER|") {
				continue
			}
			for _, re := range expected {
				if re.MatchString(l) {
					continue lines
				}
			}
			if ts, _, ok := strings.Cut(l, "|"); ok && !h.quiet.IsZero() {
				if at, err := time.Parse("2006-01-02T15:04:05.000Z", ts); err == nil && !at.Before(h.quiet.Truncate(time.Millisecond)) {
					continue
				}
			}
			out = append(out, n+": "+l)
		}
	}
	return out
}

// Stop stops ovn-controller, ovs-vswitchd and the OVS database and deletes
// the pods and the namespace. It is safe to call twice.
func (h *Host) Stop() error {
	for _, p := range h.peers {
		if p.quiet.IsZero() {
			p.quiet = time.Now().UTC()
		}
	}
	var errs []error
	for i := len(h.ds) - 1; i >= 0; i-- {
		errs = append(errs, h.ds[i].stop(syscall.SIGTERM))
	}
	h.ds = nil
	for _, p := range h.pods {
		errs = append(errs, p.delete())
	}
	h.pods = nil
	if out, err := exec.Command("ip", "netns", "del", h.NetNS).CombinedOutput(); err != nil && !strings.Contains(string(out), "No such file") {
		errs = append(errs, fmt.Errorf("ip netns del %s: %v: %s", h.NetNS, err, out))
	}
	return errors.Join(errs...)
}

// Underlay joins hosts a and b by a veth pair, each end a port of a netdev
// bridge br-phy in its host whose kernel interface holds the host's
// address (aIP and bIP, CIDR notation, one subnet): ovs-vswitchd routes
// and resolves the Geneve tunnels' outer packets there (userspace
// tunnelling).
func Underlay(ctx context.Context, a, b *Host, aIP, bIP string) error {
	// Unique names while both ends are still in the test's namespace.
	va, vb := "u"+a.NetNS[len(a.NetNS)-8:], "u"+b.NetNS[len(b.NetNS)-8:]
	if va == vb {
		vb += "b"
	}
	if out, err := exec.CommandContext(ctx, "ip", "link", "add", va, "type", "veth", "peer", "name", vb).CombinedOutput(); err != nil {
		return fmt.Errorf("ip link add %s: %v: %s", va, err, out)
	}
	a.peers, b.peers = append(a.peers, b), append(b.peers, a)
	ends := []struct {
		h       *Host
		dev, ip string
	}{{a, va, aIP}, {b, vb, bIP}}
	// Both ends up before OVS reads either: a port whose peer is down
	// makes ovs-vswitchd log an error.
	for _, x := range ends {
		if out, err := exec.CommandContext(ctx, "ip", "link", "set", x.dev, "netns", x.h.NetNS).CombinedOutput(); err != nil {
			return fmt.Errorf("ip link set %s netns %s: %v: %s", x.dev, x.h.NetNS, err, out)
		}
		if err := x.h.IP(ctx, "link", "set", x.dev, "up"); err != nil {
			return err
		}
	}
	for _, x := range ends {
		for {
			out, err := exec.CommandContext(ctx, "ip", "-n", x.h.NetNS, "-br", "link", "show", "dev", x.dev).CombinedOutput()
			if f := strings.Fields(string(out)); err == nil && len(f) > 1 && f[1] == "UP" {
				break
			}
			select {
			case <-ctx.Done():
				return fmt.Errorf("%s in %s never came up: %s", x.dev, x.h.NetNS, out)
			case <-time.After(20 * time.Millisecond):
			}
		}
	}
	for _, x := range ends {
		if _, err := x.h.VSCtl(ctx, "--may-exist", "add-br", "br-phy", "--", "set", "bridge", "br-phy", "datapath_type=netdev",
			"--", "add-port", "br-phy", x.dev); err != nil {
			return err
		}
		for _, args := range [][]string{{"addr", "add", x.ip, "dev", "br-phy"}, {"link", "set", "br-phy", "up"}} {
			if err := x.h.IP(ctx, args...); err != nil {
				return err
			}
		}
	}
	return nil
}

// Exec runs argv (a host program, e.g. ping) in the host's namespace.
func (h *Host) Exec(ctx context.Context, argv ...string) (string, error) {
	out, err := exec.CommandContext(ctx, "ip", append([]string{"netns", "exec", h.NetNS}, argv...)...).CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("%s in %s: %v: %s", strings.Join(argv, " "), h.NetNS, err, out)
	}
	return string(out), nil
}

// String returns "host NAME".
func (h *Host) String() string { return "host " + h.Name }

// In runs fn on a thread that is in the host's network namespace: the
// sockets fn opens (net.Listen, net.Dial) live there.
func (h *Host) In(fn func() error) error { return inNetns(h.NetNS, fn) }

// inNetns runs fn on a thread in the named network namespace (ip netns).
func inNetns(name string, fn func() error) error {
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		orig, err := os.Open(fmt.Sprintf("/proc/self/task/%d/ns/net", syscall.Gettid()))
		if err != nil {
			runtime.UnlockOSThread()
			errc <- err
			return
		}
		defer orig.Close()
		ns, err := os.Open("/var/run/netns/" + name)
		if err != nil {
			runtime.UnlockOSThread()
			errc <- err
			return
		}
		defer ns.Close()
		if err := setns(ns); err != nil {
			runtime.UnlockOSThread()
			errc <- fmt.Errorf("setns %s: %w", name, err)
			return
		}
		ferr := fn()
		if err := setns(orig); err != nil {
			// The thread stays locked and dies with this goroutine.
			errc <- errors.Join(ferr, fmt.Errorf("setns back from %s: %w", name, err))
			return
		}
		runtime.UnlockOSThread()
		errc <- ferr
	}()
	return <-errc
}

func setns(f *os.File) error {
	return unix.Setns(int(f.Fd()), unix.CLONE_NEWNET)
}

// TCPCheck listens on addr in server's namespace, connects to it from
// client's, and checks that a line goes there and back.
func TCPCheck(ctx context.Context, server Netns, addr string, client Netns) error {
	var l net.Listener
	if err := server.In(func() (err error) {
		l, err = net.Listen("tcp", net.JoinHostPort(addr, "0"))
		return err
	}); err != nil {
		return err
	}
	defer l.Close()
	go func() {
		conn, err := l.Accept()
		if err != nil {
			return
		}
		defer conn.Close()
		_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
		line, _ := bufio.NewReader(conn).ReadString('\n')
		_, _ = conn.Write([]byte("echo " + line))
	}()
	return client.In(func() error {
		d := net.Dialer{Timeout: 10 * time.Second}
		conn, err := d.DialContext(ctx, "tcp", l.Addr().String())
		if err != nil {
			return fmt.Errorf("from %s to %s: %w", client, l.Addr(), err)
		}
		defer conn.Close()
		_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
		if _, err := conn.Write([]byte("hello\n")); err != nil {
			return err
		}
		got, err := bufio.NewReader(conn).ReadString('\n')
		if err != nil || got != "echo hello\n" {
			return fmt.Errorf("from %s to %s: read %q, %v", client, l.Addr(), got, err)
		}
		return nil
	})
}
