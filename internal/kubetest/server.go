package kubetest

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/udnkit/udnkit/internal/sdkerr"
)

// Versions the binaries are built at (scripts/kube-env).
const (
	KubeVersion = "v1.37.2"
	EtcdVersion = "v3.7.0"
)

// ErrUnavailable reports that the API server cannot run on this machine.
var ErrUnavailable = sdkerr.New(sdkerr.Unavailable, "kube-apiserver unavailable")

// readyTimeout bounds the wait for /readyz: about 15 s on an idle
// two-core machine, much longer while other builds run.
const readyTimeout = 4 * time.Minute

// Server is a running etcd and kube-apiserver.
type Server struct {
	// Config reaches the API server as a member of system:masters.
	Config *rest.Config
	// Dir holds etcd's data, the certificates, keys, token file and logs
	// (etcd.log, kube-apiserver.log).
	Dir string

	etcd, apiserver *proc
}

// proc is a started process and the channel closed once it has exited.
type proc struct {
	cmd  *exec.Cmd
	done chan struct{}
}

// BinDir returns the directory holding etcd and kube-apiserver:
// $UDNKIT_KUBE_BIN, else ${XDG_CACHE_HOME:-$HOME/.cache}/udnkit/kube-bin,
// as scripts/kube-env has it.
func BinDir() string {
	if d := os.Getenv("UDNKIT_KUBE_BIN"); d != "" {
		return d
	}
	cache := os.Getenv("XDG_CACHE_HOME")
	if cache == "" {
		home, _ := os.UserHomeDir()
		cache = filepath.Join(home, ".cache")
	}
	return filepath.Join(cache, "udnkit", "kube-bin")
}

// Available reports whether the API server can run here, and if not, why.
func Available() error {
	if os.Geteuid() != 0 {
		return fmt.Errorf("%w: needs root, as the other real-environment tests (run the tests as root after scripts/kube-env prepare)", ErrUnavailable)
	}
	dir := BinDir()
	want := "kube-apiserver " + KubeVersion + " etcd " + EtcdVersion
	v, err := os.ReadFile(filepath.Join(dir, "VERSION"))
	if err != nil || strings.TrimSpace(string(v)) != want {
		return fmt.Errorf("%w: %s has no %s: run scripts/kube-env prepare", ErrUnavailable, dir, want)
	}
	for _, b := range []string{"etcd", "kube-apiserver"} {
		if _, err := exec.LookPath(filepath.Join(dir, b)); err != nil {
			return fmt.Errorf("%w: %v: run scripts/kube-env prepare", ErrUnavailable, err)
		}
	}
	return nil
}

// Start starts etcd and kube-apiserver for the test and stops them when it
// ends. It skips (or, with CI=true, fails) the test when they cannot run.
func Start(tb testing.TB) *Server {
	tb.Helper()
	if err := Available(); err != nil {
		if os.Getenv("CI") == "true" {
			tb.Fatalf("kubetest: %v", err)
		}
		tb.Skipf("kubetest: %v", err)
	}
	s, err := start(tb.TempDir())
	if s != nil {
		tb.Cleanup(s.Stop)
	}
	if err != nil {
		tb.Fatalf("kubetest: %v", err)
	}
	return s
}

func start(dir string) (*Server, error) {
	bin := BinDir()
	s := &Server{Dir: dir}
	ports, err := freePorts(3)
	if err != nil {
		return nil, err
	}
	etcdURL := "http://127.0.0.1:" + strconv.Itoa(ports[0])
	s.etcd, err = run(dir, "etcd.log", filepath.Join(bin, "etcd"),
		"--name=kubetest", "--data-dir="+filepath.Join(dir, "etcd"),
		"--listen-client-urls="+etcdURL, "--advertise-client-urls="+etcdURL,
		"--listen-peer-urls=http://127.0.0.1:"+strconv.Itoa(ports[1]),
		"--initial-advertise-peer-urls=http://127.0.0.1:"+strconv.Itoa(ports[1]),
		"--initial-cluster=kubetest=http://127.0.0.1:"+strconv.Itoa(ports[1]),
		"--unsafe-no-fsync", "--log-level=warn")
	if err != nil {
		return s, err
	}
	token, err := writeCredentials(dir)
	if err != nil {
		return s, err
	}
	port := strconv.Itoa(ports[2])
	s.apiserver, err = run(dir, "kube-apiserver.log", filepath.Join(bin, "kube-apiserver"),
		"--etcd-servers="+etcdURL,
		"--service-cluster-ip-range=10.96.0.0/16",
		"--cert-dir="+filepath.Join(dir, "certs"),
		"--secure-port="+port, "--bind-address=127.0.0.1",
		"--service-account-issuer=https://kubernetes.default.svc",
		"--service-account-key-file="+filepath.Join(dir, "sa.pub"),
		"--service-account-signing-key-file="+filepath.Join(dir, "sa.key"),
		"--authorization-mode=RBAC",
		"--token-auth-file="+filepath.Join(dir, "tokens.csv"),
		"--enable-priority-and-fairness=false",
		"--v=1")
	if err != nil {
		return s, err
	}
	s.Config = &rest.Config{
		Host:            "https://127.0.0.1:" + port,
		BearerToken:     token,
		TLSClientConfig: rest.TLSClientConfig{Insecure: true},
		QPS:             1000,
		Burst:           2000,
	}
	return s, s.waitReady()
}

// waitReady polls /readyz until it answers "ok", a process exits or
// readyTimeout passes.
func (s *Server) waitReady() error {
	cs, err := kubernetes.NewForConfig(s.Config)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), readyTimeout)
	defer cancel()
	var last error
	for {
		for _, p := range []*proc{s.etcd, s.apiserver} {
			select {
			case <-p.done:
				name := filepath.Base(p.cmd.Path)
				return fmt.Errorf("%s exited before /readyz (%v): %s", name, p.cmd.ProcessState, s.logTail(name+".log"))
			default:
			}
		}
		body, err := cs.Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(ctx)
		if err == nil && string(body) == "ok" {
			return nil
		}
		last = err
		select {
		case <-ctx.Done():
			return fmt.Errorf("/readyz not ok after %v (last error %v): %s", readyTimeout, last, s.logTail("kube-apiserver.log"))
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// Stop stops kube-apiserver, then etcd. It is safe to call twice.
func (s *Server) Stop() {
	for _, p := range []*proc{s.apiserver, s.etcd} {
		if p == nil {
			continue
		}
		_ = p.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-p.done:
		case <-time.After(20 * time.Second):
			_ = p.cmd.Process.Kill()
			<-p.done
		}
	}
}

// logTail returns the last lines of a log in s.Dir, for error messages.
func (s *Server) logTail(name string) string {
	b, err := os.ReadFile(filepath.Join(s.Dir, name))
	if err != nil {
		return name + ": " + err.Error()
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) > 15 {
		lines = lines[len(lines)-15:]
	}
	return name + ":\n" + strings.Join(lines, "\n")
}

// run starts a binary with its output in dir/log.
func run(dir, log, bin string, args ...string) (*proc, error) {
	f, err := os.Create(filepath.Join(dir, log))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	c := exec.Command(bin, args...)
	c.Dir = dir
	c.Stdout, c.Stderr = f, f
	c.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := c.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", filepath.Base(bin), err)
	}
	p := &proc{cmd: c, done: make(chan struct{})}
	go func() { _ = c.Wait(); close(p.done) }()
	return p, nil
}

// writeCredentials writes the token file (one system:masters token, which
// it returns) and the service-account key pair.
func writeCredentials(dir string) (string, error) {
	raw := make([]byte, 16)
	if _, err := rand.Read(raw); err != nil {
		return "", err
	}
	token := hex.EncodeToString(raw)
	if err := os.WriteFile(filepath.Join(dir, "tokens.csv"), []byte(token+",admin,admin,system:masters\n"), 0o600); err != nil {
		return "", err
	}
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return "", err
	}
	pub, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	if err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(dir, "sa.key"), pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)}), 0o600); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(dir, "sa.pub"), pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pub}), 0o644); err != nil {
		return "", err
	}
	return token, os.MkdirAll(filepath.Join(dir, "certs"), 0o700)
}

// freePorts returns n distinct free TCP ports on 127.0.0.1.
func freePorts(n int) ([]int, error) {
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	var out []int
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		ls = append(ls, l)
		out = append(out, l.Addr().(*net.TCPAddr).Port)
	}
	return out, nil
}

// CPU returns the processor time (user and system) etcd and kube-apiserver
// have used so far, read from /proc; zero for a process that has exited.
func (s *Server) CPU() time.Duration {
	var total time.Duration
	for _, p := range []*proc{s.etcd, s.apiserver} {
		if p == nil {
			continue
		}
		total += procCPU(p.cmd.Process.Pid)
	}
	return total
}

// procCPU reads utime and stime (fields 14 and 15, in clock ticks of 1/100
// s on Linux) of /proc/<pid>/stat.
func procCPU(pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// The command name (field 2) may hold blanks: count from its ')'.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 13 {
		return 0
	}
	var ticks int64
	for _, v := range f[11:13] {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return 0
		}
		ticks += n
	}
	return time.Duration(ticks) * 10 * time.Millisecond
}
