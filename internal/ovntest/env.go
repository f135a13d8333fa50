package ovntest

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"github.com/udnkit/udnkit/internal/sdkerr"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// ErrUnavailable reports that real OVN cannot run on this machine.
var ErrUnavailable = sdkerr.New(sdkerr.Unavailable, "real OVN unavailable")

// Env is a running real OVN: NB and SB ovsdb-server and ovn-northd.
type Env struct {
	// Dir holds the databases, sockets, logs and pid files.
	Dir string
	// Root is the OVN root filesystem.
	Root string
	// NB and SB are the host endpoints of the databases, in OVSDB
	// connection syntax: "unix:DIR/nb.sock" and "tcp:127.0.0.1:PORT".
	NBUnix, NBTCP, SBUnix, SBTCP string
	// NorthdLog is the path of ovn-northd's log file.
	NorthdLog string

	script         string
	allowed        []*regexp.Regexp
	requireChassis bool
}

// unknownChassis is the warning of a port bound to a chassis the SB does
// not hold.
var unknownChassis = regexp.MustCompile(`Unknown chassis '[^']+' set in options:requested-chassis on (LSP|LRP) '[^']+'\.`)

// expectedNorthd are the northd warnings a correct plan still causes.
var expectedNorthd = []*regexp.Regexp{
	// No ovn-controller or ovn-ic runs here to register the chassis a plan
	// binds ports to; ovn-trace follows the ports all the same (unless
	// RequireChassis).
	unknownChassis,
	// The machine was slow, not the plan.
	regexp.MustCompile(`\|timeval\|WARN\|`),
	// Env.Stop stops northd.
	regexp.MustCompile(`\|fatal_signal(\([a-z0-9]+\))?\|WARN\|terminating with signal 15`),
}

// AllowNorthd lets the warnings or errors matching re pass the check Start
// makes when the test ends (a test that plans what the reference
// implementation writes, warnings included, says so here).
func (e *Env) AllowNorthd(re *regexp.Regexp) { e.allowed = append(e.allowed, re) }

// RequireChassis makes northd's warning about a port bound to a chassis
// the SB does not hold unexpected: for a zone whose chassis, local and
// remote, are all registered (StartZones).
func (e *Env) RequireChassis() { e.requireChassis = true }

// UnexpectedNorthd returns the northd warnings and errors that neither a
// correct plan causes nor AllowNorthd allowed.
func (e *Env) UnexpectedNorthd() ([]string, error) {
	lines, err := e.northdLog("|WARN|", "|ERR|", "|EMER|")
	if err != nil {
		return nil, err
	}
	expected := slices.Clone(expectedNorthd)
	if e.requireChassis {
		expected = slices.DeleteFunc(expected, func(re *regexp.Regexp) bool { return re == unknownChassis })
	}
	expected = append(expected, e.allowed...)
	var out []string
	for _, l := range lines {
		ok := false
		for _, re := range expected {
			ok = ok || re.MatchString(l)
		}
		if !ok {
			out = append(out, l)
		}
	}
	return out, nil
}

// Script returns the path of scripts/ovn-env, found by walking up from the
// working directory to the module root.
func Script() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if b, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil &&
			bytes.Contains(b, []byte("module github.com/udnkit/udnkit\n")) {
			p := filepath.Join(dir, "scripts", "ovn-env")
			if _, err := os.Stat(p); err != nil {
				return "", fmt.Errorf("%w: %v", ErrUnavailable, err)
			}
			return p, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("%w: module root with scripts/ovn-env not found above the working directory", ErrUnavailable)
		}
		dir = parent
	}
}

// Available reports whether real OVN can run here, with the root filesystem
// path, or an error wrapping ErrUnavailable that says what to do.
func Available() (script, root string, err error) {
	script, err = Script()
	if err != nil {
		return "", "", err
	}
	if os.Geteuid() != 0 {
		return "", "", fmt.Errorf("%w: needs root (chroot and mount namespaces)", ErrUnavailable)
	}
	for _, tool := range []string{"chroot", "unshare", "mount"} {
		if _, err := exec.LookPath(tool); err != nil {
			return "", "", fmt.Errorf("%w: %s not found (install util-linux and coreutils)", ErrUnavailable, tool)
		}
	}
	out, err := exec.Command(script, "root").CombinedOutput()
	if err != nil {
		return "", "", fmt.Errorf("%w: %s (prepare needs root, debootstrap and a Debian mirror in the apt sources)",
			ErrUnavailable, strings.TrimSpace(string(out)))
	}
	return script, strings.TrimSpace(string(out)), nil
}

// Skip skips tb, or fails it when CI=true, because real OVN is unavailable.
func Skip(tb testing.TB, err error) {
	tb.Helper()
	if os.Getenv("CI") == "true" {
		tb.Fatalf("CI=true and %v", err)
		return
	}
	tb.Skipf("skipping: %v", err)
}

// Start starts a fresh real OVN in a temporary directory and stops it when
// tb ends. It skips tb (fails it under CI=true) when OVN is unavailable.
func Start(tb testing.TB) *Env {
	tb.Helper()
	script, root, err := Available()
	if err != nil {
		Skip(tb, err)
	}
	dir, err := os.MkdirTemp("", "udnkit-ovn-")
	if err != nil {
		tb.Fatal(err)
	}
	e, err := StartIn(script, root, dir)
	if err != nil {
		os.RemoveAll(dir)
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		// Any northd warning or error about what the test wrote (a tunnel
		// key, an address, an option) fails it.
		if bad, err := e.UnexpectedNorthd(); err != nil {
			tb.Errorf("reading the northd log: %v", err)
		} else {
			for _, l := range bad {
				tb.Errorf("northd: %s", l)
			}
		}
		if err := e.Stop(); err != nil {
			tb.Error(err)
		}
		if !tb.Failed() {
			os.RemoveAll(dir)
		} else {
			tb.Logf("OVN environment kept in %s", dir)
		}
	})
	return e
}

// StartIn starts a fresh real OVN in dir with the given script and root
// filesystem (see Available). Stop it with Env.Stop.
func StartIn(script, root, dir string) (*Env, error) {
	out, err := exec.Command(script, "start", dir).CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("ovn-env start %s: %v: %s", dir, err, out)
	}
	e := &Env{Dir: dir, Root: root, script: script}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), "=")
		if !ok {
			continue
		}
		switch k {
		case "NB_UNIX":
			e.NBUnix = "unix:" + v
		case "NB_TCP":
			e.NBTCP = v
		case "SB_UNIX":
			e.SBUnix = "unix:" + v
		case "SB_TCP":
			e.SBTCP = v
		case "NORTHD_LOG":
			e.NorthdLog = v
		}
	}
	if e.NBTCP == "" || e.SBTCP == "" || e.NBUnix == "" {
		_ = e.Stop()
		return nil, fmt.Errorf("ovn-env start %s printed no endpoints: %s", dir, out)
	}
	return e, nil
}

// Stop stops the daemons. It is safe to call twice.
func (e *Env) Stop() error {
	out, err := exec.Command(e.script, "stop", e.Dir).CombinedOutput()
	if err != nil {
		return fmt.Errorf("ovn-env stop %s: %v: %s", e.Dir, err, out)
	}
	return nil
}

// run executes argv inside the root filesystem with stdin.
func (e *Env) run(ctx context.Context, stdin string, argv ...string) (string, error) {
	return Chroot(ctx, e.Root, []string{"OVN_NB_DB=" + e.NBTCP, "OVN_SB_DB=" + e.SBTCP}, stdin, argv...)
}

// Chroot runs argv inside the root filesystem root with env added to a
// minimal PATH and stdin on its standard input, and returns its standard
// output; an error carries its standard error.
func Chroot(ctx context.Context, root string, env []string, stdin string, argv ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "chroot", append([]string{root}, argv...)...)
	cmd.Env = append([]string{"PATH=/usr/sbin:/usr/bin:/sbin:/bin"}, env...)
	cmd.Stdin = strings.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.String(), fmt.Errorf("%s: %w: %s", strings.Join(argv, " "), err, strings.TrimSpace(stderr.String()))
	}
	return stdout.String(), nil
}

// NBCtl runs ovn-nbctl against the NB database and returns its output.
func (e *Env) NBCtl(ctx context.Context, args ...string) (string, error) {
	return e.run(ctx, "", append([]string{"ovn-nbctl", "--db=" + e.NBTCP}, args...)...)
}

// SBCtl runs ovn-sbctl against the SB database and returns its output.
func (e *Env) SBCtl(ctx context.Context, args ...string) (string, error) {
	return e.run(ctx, "", append([]string{"ovn-sbctl", "--db=" + e.SBTCP}, args...)...)
}

// Trace runs ovn-trace against the SB database and returns its output.
func (e *Env) Trace(ctx context.Context, args ...string) (string, error) {
	return e.run(ctx, "", append([]string{"ovn-trace", "--db=" + e.SBTCP}, args...)...)
}

// Shell runs a POSIX shell script inside the root filesystem with OVN_NB_DB
// and OVN_SB_DB set, so plain ovn-nbctl and ovn-sbctl reach this Env.
func (e *Env) Shell(ctx context.Context, script string) (string, error) {
	return e.run(ctx, script, "sh", "-e")
}

// Tool runs any program of the root filesystem (e.g. ovsdb-client) with the
// same environment as Shell.
func (e *Env) Tool(ctx context.Context, argv ...string) (string, error) {
	return e.run(ctx, "", argv...)
}

// Sync waits until ovn-northd has compiled the current NB contents into SB.
func (e *Env) Sync(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	_, err := e.NBCtl(ctx, "--wait=sb", "sync")
	return err
}

// NorthdErrors returns the lines of ovn-northd's log at level ERR or EMER.
func (e *Env) NorthdErrors() ([]string, error) { return e.northdLog("|ERR|", "|EMER|") }

// NorthdWarnings returns the lines of ovn-northd's log at level WARN.
func (e *Env) NorthdWarnings() ([]string, error) { return e.northdLog("|WARN|") }

func (e *Env) northdLog(levels ...string) ([]string, error) {
	b, err := os.ReadFile(e.NorthdLog)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		for _, lv := range levels {
			if strings.Contains(l, lv) {
				out = append(out, l)
				break
			}
		}
	}
	return out, nil
}

// Server is one more ovsdb-server run inside the root filesystem (see
// ServeSchema).
type Server struct {
	// Endpoint is the server's TCP endpoint, "tcp:127.0.0.1:PORT".
	Endpoint string
	env      *Env
	dir, in  string
	port     string
	raft     string
}

// ServeSchema starts one more ovsdb-server, inside the root filesystem,
// serving an empty database with the given schema (JSON): a server with an
// older or altered schema, or (clustered) a one-member raft cluster whose
// _Server database reports it leader. Stop it with Server.Stop.
func (e *Env) ServeSchema(ctx context.Context, schema []byte, clustered bool) (*Server, error) {
	dir, err := os.MkdirTemp(filepath.Join(e.Root, "tmp"), "udnkit-schema-")
	if err != nil {
		return nil, err
	}
	s := &Server{env: e, dir: dir, in: "/tmp/" + filepath.Base(dir), port: "0"}
	if err := os.WriteFile(filepath.Join(dir, "schema.json"), schema, 0o644); err != nil {
		s.Stop()
		return nil, err
	}
	create := fmt.Sprintf("ovsdb-tool create %[1]s/db %[1]s/schema.json", s.in)
	if clustered {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			s.Stop()
			return nil, err
		}
		s.raft = l.Addr().String()
		l.Close()
		create = fmt.Sprintf("ovsdb-tool create-cluster %[1]s/db %[1]s/schema.json tcp:%[2]s", s.in, s.raft)
	}
	if out, err := e.Shell(ctx, create); err != nil {
		s.Stop()
		return nil, fmt.Errorf("%w: %s", err, out)
	}
	if err := s.start(ctx); err != nil {
		s.Stop()
		return nil, err
	}
	return s, nil
}

func (s *Server) start(ctx context.Context) error {
	_ = os.Remove(filepath.Join(s.dir, "db.log"))
	if out, err := s.env.Shell(ctx, fmt.Sprintf(`ovsdb-server --detach --no-chdir --pidfile=%[1]s/db.pid --log-file=%[1]s/db.log --unixctl=%[1]s/db.ctl --remote=ptcp:%[2]s:127.0.0.1 %[1]s/db 2>/dev/null`, s.in, s.port)); err != nil {
		return fmt.Errorf("%w: %s", err, out)
	}
	for i := 0; i < 250; i++ {
		b, _ := os.ReadFile(filepath.Join(s.dir, "db.log"))
		if _, rest, ok := strings.Cut(string(b), "listening on port "); ok {
			port, _, _ := strings.Cut(rest, "\n")
			s.port = strings.TrimSpace(port)
			s.Endpoint = "tcp:127.0.0.1:" + s.port
			return nil
		}
		if s.port != "0" && strings.Contains(string(b), "ptcp:"+s.port) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if s.port != "0" {
		// A restart on a fixed port logs no "listening on port" line.
		s.Endpoint = "tcp:127.0.0.1:" + s.port
		return nil
	}
	return fmt.Errorf("ovsdb-server in %s did not report its port", s.dir)
}

func (s *Server) kill() {
	b, err := os.ReadFile(filepath.Join(s.dir, "db.pid"))
	if err != nil {
		return
	}
	pid := strings.TrimSpace(string(b))
	_ = exec.Command("kill", pid).Run()
	for i := 0; i < 100; i++ {
		st, err := os.ReadFile("/proc/" + pid + "/stat")
		if err != nil || strings.Contains(string(st), ") Z ") {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	_ = os.Remove(filepath.Join(s.dir, "db.pid"))
}

// Restart stops the server and starts it again on the same port with the
// same database.
func (s *Server) Restart(ctx context.Context) error {
	s.kill()
	return s.start(ctx)
}

// Kill stops the server, keeping its database for Start.
func (s *Server) Kill() { s.kill() }

// Start starts a killed server again on the same port.
func (s *Server) Start(ctx context.Context) error { return s.start(ctx) }

// Stop stops the server and removes its files.
func (s *Server) Stop() {
	s.kill()
	os.RemoveAll(s.dir)
}
