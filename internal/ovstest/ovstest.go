// Package ovstest runs a real Open vSwitch (ovsdb-server and ovs-vswitchd
// from the OVN root filesystem ovntest uses) for tests: the userspace
// switch with dummy netdevs, so no kernel module or device is needed, and
// ofproto/trace referees what the flows do. Like ovntest, it skips a test
// when the root filesystem is missing and fails it under CI=true.
package ovstest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/udnkit/udnkit/internal/ovntest"
)

// Env is a running Open vSwitch.
type Env struct {
	// Root is the root filesystem the daemons run in.
	Root string
	// Dir is the run directory as the host sees it (under Root); In is the
	// same directory inside Root.
	Dir, In string
}

// Start starts Open vSwitch for tb and stops it when tb ends.
func Start(tb testing.TB) *Env {
	tb.Helper()
	_, root, err := ovntest.Available()
	if err != nil {
		ovntest.Skip(tb, err)
	}
	if _, err := os.Lstat(filepath.Join(root, "usr/sbin/ovs-vswitchd")); err != nil {
		ovntest.Skip(tb, fmt.Errorf("no ovs-vswitchd in the OVN root filesystem (scripts/ovn-env prepare installs openvswitch-switch): %w", err))
	}
	dir, err := os.MkdirTemp(filepath.Join(root, "tmp"), "udnkit-ovs-")
	if err != nil {
		tb.Fatal(err)
	}
	e := &Env{Root: root, Dir: dir, In: "/tmp/" + filepath.Base(dir)}
	tb.Cleanup(func() {
		e.Stop()
		if !tb.Failed() {
			os.RemoveAll(dir)
		} else {
			tb.Logf("Open vSwitch environment kept in %s", dir)
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	d := e.In
	script := fmt.Sprintf(`set -e
ovsdb-tool create %[1]s/conf.db /usr/share/openvswitch/vswitch.ovsschema
ovsdb-server --detach --no-chdir --pidfile=%[1]s/ovsdb.pid --log-file=%[1]s/ovsdb.log --unixctl=%[1]s/ovsdb.ctl --remote=punix:%[1]s/db.sock %[1]s/conf.db
ovs-vsctl --no-wait init
ovs-vswitchd --detach --no-chdir --pidfile=%[1]s/vswitchd.pid --log-file=%[1]s/vswitchd.log --unixctl=%[1]s/vswitchd.ctl --enable-dummy=override --disable-system unix:%[1]s/db.sock
`, d)
	if out, err := e.run(ctx, script, "sh"); err != nil {
		tb.Fatalf("starting Open vSwitch: %v\n%s", err, out)
	}
	return e
}

// Stop stops the daemons.
func (e *Env) Stop() {
	for _, p := range []string{"vswitchd", "ovsdb"} {
		b, err := os.ReadFile(filepath.Join(e.Dir, p+".pid"))
		if err != nil {
			continue
		}
		if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
			_ = syscall.Kill(pid, syscall.SIGTERM)
		}
	}
}

func (e *Env) run(ctx context.Context, stdin string, argv ...string) (string, error) {
	return ovntest.Chroot(ctx, e.Root, e.env(), stdin, argv...)
}

func (e *Env) env() []string {
	return []string{"OVS_RUNDIR=" + e.In, "OVS_DBDIR=" + e.In, "OVS_LOGDIR=" + e.In}
}

// Vsctl runs ovs-vsctl.
func (e *Env) Vsctl(ctx context.Context, args ...string) (string, error) {
	return e.run(ctx, "", append([]string{"ovs-vsctl", "--db=unix:" + e.In + "/db.sock"}, args...)...)
}

// Ofctl runs ovs-ofctl (OVS_RUNDIR set, so a bridge name reaches the
// bridge); stdin feeds "-" arguments.
func (e *Env) Ofctl(ctx context.Context, stdin string, args ...string) (string, error) {
	return e.run(ctx, stdin, append([]string{"ovs-ofctl"}, args...)...)
}

// Trace runs ofproto/trace of flow on bridge, with options such as
// "--ct-next", "trk,est" after it.
func (e *Env) Trace(ctx context.Context, bridge, flow string, opts ...string) (string, error) {
	return e.run(ctx, "", append([]string{"ovs-appctl", "-t", e.In + "/vswitchd.ctl", "ofproto/trace", bridge, flow}, opts...)...)
}

// OFPort returns the OpenFlow port number of the interface called name.
func (e *Env) OFPort(ctx context.Context, name string) (int, error) {
	out, err := e.Vsctl(ctx, "get", "Interface", name, "ofport")
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(strings.TrimSpace(out))
}

// GatewayBridge creates the bridge (dummy datapath, MAC mac) with an uplink
// port and, for each name in patches, a patch port to br-int (created
// too), and returns every port's OpenFlow number by name.
func (e *Env) GatewayBridge(ctx context.Context, bridge, mac, uplink string, patches ...string) (map[string]int, error) {
	args := []string{"add-br", bridge, "--", "set", "bridge", bridge, "datapath_type=dummy", "other_config:hwaddr=" + mac,
		"--", "add-port", bridge, uplink, "--", "--may-exist", "add-br", "br-int", "--", "set", "bridge", "br-int", "datapath_type=dummy"}
	for _, p := range patches {
		peer := p + "-peer"
		args = append(args, "--", "add-port", bridge, p, "--", "set", "interface", p, "type=patch", "options:peer="+peer,
			"--", "add-port", "br-int", peer, "--", "set", "interface", peer, "type=patch", "options:peer="+p)
	}
	if out, err := e.Vsctl(ctx, args...); err != nil {
		return nil, fmt.Errorf("%w: %s", err, out)
	}
	ports := map[string]int{}
	for _, name := range append([]string{uplink}, patches...) {
		n, err := e.OFPort(ctx, name)
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("ofport of %s: %d %v", name, n, err)
		}
		ports[name] = n
	}
	return ports, nil
}

// RunOfctl runs ovs-ofctl with this Env's sockets and stdin: the shape
// backend/ovs takes (its exit status stays reachable with errors.As).
func (e *Env) RunOfctl(ctx context.Context, stdin []byte, args ...string) ([]byte, error) {
	out, err := e.run(ctx, string(stdin), append([]string{"ovs-ofctl"}, args...)...)
	return []byte(out), err
}
