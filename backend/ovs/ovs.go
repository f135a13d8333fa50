package ovs

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/udnkit/udnkit/flows"
	"github.com/udnkit/udnkit/internal/sdkerr"
)

// RunFunc runs ovs-ofctl with args and stdin and returns its standard
// output; an exit status other than 0 is an error with an ExitCode() int
// method (an *exec.ExitError, wrapped or not).
type RunFunc func(ctx context.Context, stdin []byte, args ...string) ([]byte, error)

// Config configures a Bridge.
type Config struct {
	// Bridge is the bridge's name ("breth0").
	Bridge string
	// Run runs ovs-ofctl; nil runs the ovs-ofctl on PATH.
	Run RunFunc
	// Dir is a directory for the flow files ovs-ofctl reads (default
	// os.TempDir()); DirForOfctl is the same directory as ovs-ofctl sees
	// it, when it runs in another root (default Dir).
	Dir, DirForOfctl string
}

// Bridge is one gateway bridge.
type Bridge struct {
	cfg Config
	mu  sync.Mutex
}

// ErrOfctl is wrapped by the errors of ovs-ofctl runs.
var ErrOfctl = sdkerr.New(sdkerr.Refused, "ovs-ofctl failed")

// New returns the adapter of cfg.Bridge.
func New(cfg Config) (*Bridge, error) {
	if cfg.Bridge == "" {
		return nil, sdkerr.Errorf(sdkerr.Invalid, "ovs: bridge: required")
	}
	if cfg.Run == nil {
		cfg.Run = runOfctl
	}
	if cfg.Dir == "" {
		cfg.Dir = os.TempDir()
	}
	if cfg.DirForOfctl == "" {
		cfg.DirForOfctl = cfg.Dir
	}
	return &Bridge{cfg: cfg}, nil
}

func runOfctl(ctx context.Context, stdin []byte, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "ovs-ofctl", args...)
	cmd.Stdin = bytes.NewReader(stdin)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return out, fmt.Errorf("%w: %s", err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}

func (b *Bridge) run(ctx context.Context, args ...string) ([]byte, error) {
	out, err := b.cfg.Run(ctx, nil, args...)
	if err != nil {
		return out, fmt.Errorf("ovs: bridge %s: %w: ovs-ofctl %s: %v", b.cfg.Bridge, ErrOfctl, strings.Join(args, " "), err)
	}
	return out, nil
}

// Observe returns the bridge's flows of flows.Cookie as Open vSwitch prints
// them (its normalised match and actions), sorted as flows.Plan sorts.
func (b *Bridge) Observe(ctx context.Context) ([]flows.Flow, error) {
	out, err := b.run(ctx, "-O", ofVersion, "dump-flows", "--no-stats", b.cfg.Bridge, cookieMatch)
	if err != nil {
		return nil, err
	}
	var fs []flows.Flow
	for _, l := range strings.Split(string(out), "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "NXST_FLOW") || strings.HasPrefix(l, "OFPST_FLOW") {
			continue
		}
		f, err := parseDumped(l)
		if err != nil {
			return nil, fmt.Errorf("ovs: bridge %s: %w", b.cfg.Bridge, err)
		}
		fs = append(fs, f)
	}
	flows.Sort(fs)
	return fs, nil
}

const cookieMatch = "cookie=0xdeff105/-1"

// ofVersion is the OpenFlow version ovs-ofctl speaks: 1.4 has bundles, and
// from 1.2 on both sides of diff-flows print set_field actions alike (1.0
// prints the switch's as load and mod_dl_dst).
const ofVersion = "OpenFlow14"

// parseDumped reads a dump-flows --no-stats line:
// "cookie=0xdeff105, table=2, priority=300,reg1=0x4 actions=...".
func parseDumped(l string) (flows.Flow, error) {
	var f flows.Flow
	head, actions, ok := strings.Cut(l, " actions=")
	if !ok {
		return f, fmt.Errorf("flow %q: %w: no actions", l, ErrOfctl)
	}
	f.Actions = actions
	var match []string
	for _, field := range strings.FieldsFunc(head, func(r rune) bool { return r == ',' || r == ' ' }) {
		k, v, _ := strings.Cut(field, "=")
		switch k {
		case "cookie":
		case "table":
			f.Table, _ = strconv.Atoi(v)
		case "priority":
			f.Priority, _ = strconv.Atoi(v)
		default:
			match = append(match, field)
		}
	}
	f.Match = strings.Join(match, ",")
	return f, nil
}

// Result says what a Sync wrote.
type Result struct {
	// Added are the flows added or whose actions were replaced; Deleted
	// the flows of flows.Cookie removed.
	Added, Deleted int
}

// Sync makes the bridge's flows of flows.Cookie exactly desired (which
// must all be flows.Cookie's, as flows.Plan returns them), in one bundle.
func (b *Bridge) Sync(ctx context.Context, desired []flows.Flow) (Result, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	want, err := os.CreateTemp(b.cfg.Dir, "udnkit-flows-*.txt")
	if err != nil {
		return Result{}, sdkerr.Errorf(sdkerr.Unavailable, "ovs: bridge %s: %w", b.cfg.Bridge, err)
	}
	defer os.Remove(want.Name())
	if _, err := want.WriteString(flows.Text(desired)); err != nil {
		want.Close()
		return Result{}, sdkerr.Errorf(sdkerr.Unavailable, "ovs: bridge %s: %w", b.cfg.Bridge, err)
	}
	want.Close()
	out, err := b.cfg.Run(ctx, nil, "-O", ofVersion, "diff-flows", b.cfg.Bridge, filepath.Join(b.cfg.DirForOfctl, filepath.Base(want.Name())))
	var exit interface{ ExitCode() int }                                // *exec.ExitError, or a stand-in's
	if err != nil && !(errors.As(err, &exit) && exit.ExitCode() == 2) { // 2: the flows differ
		return Result{}, fmt.Errorf("ovs: bridge %s: %w: diff-flows: %v", b.cfg.Bridge, ErrOfctl, err)
	}
	var bundle bytes.Buffer
	var res Result
	cookie := "cookie=0x" + strconv.FormatUint(flows.Cookie, 16)
	ours := func(l string) bool {
		i := strings.Index(l, cookie)
		return len(l) > 1 && i >= 0 && (i+len(cookie) == len(l) || l[i+len(cookie)] == ' ' || l[i+len(cookie)] == ',')
	}
	for _, l := range strings.Split(string(out), "\n") {
		if !ours(l) {
			continue // the other cookies' flows, and the default one, are not ours
		}
		if l[0] == '-' {
			match, _, _ := strings.Cut(l[1:], " actions=")
			bundle.WriteString("delete_strict " + strings.Replace(match, cookie, cookieMatch, 1) + "\n")
			res.Deleted++
		}
	}
	// Adds after the deletes, so that a flow whose actions changed is
	// deleted and added again within the bundle.
	for _, l := range strings.Split(string(out), "\n") {
		if ours(l) && l[0] == '+' {
			bundle.WriteString("add " + l[1:] + "\n")
			res.Added++
		}
	}
	if bundle.Len() == 0 {
		return res, nil
	}
	file, err := os.CreateTemp(b.cfg.Dir, "udnkit-bundle-*.txt")
	if err != nil {
		return Result{}, sdkerr.Errorf(sdkerr.Unavailable, "ovs: bridge %s: %w", b.cfg.Bridge, err)
	}
	defer os.Remove(file.Name())
	if _, err := file.Write(bundle.Bytes()); err != nil {
		file.Close()
		return Result{}, sdkerr.Errorf(sdkerr.Unavailable, "ovs: bridge %s: %w", b.cfg.Bridge, err)
	}
	file.Close()
	if _, err := b.run(ctx, "-O", ofVersion, "--bundle", "add-flows", b.cfg.Bridge, filepath.Join(b.cfg.DirForOfctl, filepath.Base(file.Name()))); err != nil {
		return Result{}, err
	}
	return res, nil
}
