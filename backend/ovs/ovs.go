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

	"github.com/udnkit/udnkit/backend"
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
	if strings.HasPrefix(cfg.Bridge, "-") {
		return nil, sdkerr.Errorf(sdkerr.Invalid, "ovs: bridge %q starts with '-', which ovs-ofctl reads as an option", cfg.Bridge)
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

var _ backend.NodeApplier[[]flows.Flow, flows.Changes, Result] = (*Bridge)(nil)

// Observe returns the bridge's flows of flows.Cookie, sorted as flows.Plan
// sorts. A flow Open vSwitch holds exactly as one of scope's (the same
// flow once both are normalised, as ovs-ofctl diff-flows compares them)
// is returned as scope spells it, so that flows.Diff(observed, scope)
// lists only real differences; the others are returned as Open vSwitch
// prints them. Two ovs-ofctl runs (one for an empty scope).
func (b *Bridge) Observe(ctx context.Context, scope []flows.Flow) ([]flows.Flow, error) {
	// Every bridge flow, as diff-flows prints it: "-" lines against nothing.
	out, err := b.diff(ctx, b.cfg.Bridge, "/dev/null")
	if err != nil {
		return nil, err
	}
	planned := map[string]flows.Flow{}
	if len(scope) > 0 {
		// The scope's flows normalised the same way, each under a cookie
		// that is its index + 1, to tell them apart.
		var text strings.Builder
		for i, f := range scope {
			text.WriteString("cookie=0x" + strconv.FormatInt(int64(i+1), 16) + "," + f.Key() + ",actions=" + f.Actions + "\n")
		}
		file, cleanup, err := b.writeFile("udnkit-scope-*.txt", text.String())
		if err != nil {
			return nil, err
		}
		defer cleanup()
		norm, err := b.diff(ctx, "/dev/null", file)
		if err != nil {
			return nil, err
		}
		for _, l := range norm {
			key, cookie, ok := withoutCookie(l[1:])
			i, err := strconv.ParseUint(strings.TrimPrefix(cookie, "0x"), 16, 32)
			if !ok || err != nil || i < 1 || int(i) > len(scope) {
				return nil, fmt.Errorf("ovs: bridge %s: %w: diff-flows printed %q", b.cfg.Bridge, ErrOfctl, l)
			}
			planned[key] = scope[i-1]
		}
	}
	var fs []flows.Flow
	for _, l := range out {
		key, cookie, ok := withoutCookie(l[1:])
		if !ok || cookie != cookieHex {
			continue // another cookie's flow: not ours
		}
		if f, ok := planned[key]; ok {
			fs = append(fs, f)
			continue
		}
		f, err := parseDiffed(l[1:])
		if err != nil {
			return nil, fmt.Errorf("ovs: bridge %s: %w: %w", b.cfg.Bridge, ErrOfctl, err)
		}
		fs = append(fs, f)
	}
	flows.Sort(fs)
	return fs, nil
}

// diff runs ovs-ofctl diff-flows a b and returns its lines ("-" only in a,
// "+" only in b).
func (b *Bridge) diff(ctx context.Context, x, y string) ([]string, error) {
	out, err := b.cfg.Run(ctx, nil, "-O", ofVersion, "diff-flows", x, y)
	var exit interface{ ExitCode() int }                                // *exec.ExitError, or a stand-in's
	if err != nil && !(errors.As(err, &exit) && exit.ExitCode() == 2) { // 2: the flows differ
		return nil, fmt.Errorf("ovs: bridge %s: %w: diff-flows: %v", b.cfg.Bridge, ErrOfctl, err)
	}
	var lines []string
	for _, l := range strings.Split(string(out), "\n") {
		if len(l) > 1 && (l[0] == '-' || l[0] == '+') {
			lines = append(lines, l)
		}
	}
	return lines, nil
}

// writeFile writes text to a new file in Config.Dir and returns its path
// as ovs-ofctl sees it.
func (b *Bridge) writeFile(pattern, text string) (string, func(), error) {
	f, err := os.CreateTemp(b.cfg.Dir, pattern)
	if err != nil {
		return "", nil, sdkerr.Errorf(sdkerr.Unavailable, "ovs: bridge %s: %w", b.cfg.Bridge, err)
	}
	cleanup := func() { os.Remove(f.Name()) }
	if _, err := f.WriteString(text); err != nil {
		f.Close()
		cleanup()
		return "", nil, sdkerr.Errorf(sdkerr.Unavailable, "ovs: bridge %s: %w", b.cfg.Bridge, err)
	}
	if err := f.Close(); err != nil {
		cleanup()
		return "", nil, sdkerr.Errorf(sdkerr.Unavailable, "ovs: bridge %s: %w", b.cfg.Bridge, err)
	}
	return filepath.Join(b.cfg.DirForOfctl, filepath.Base(f.Name())), cleanup, nil
}

// withoutCookie splits a diff-flows line ("table=2 priority=300,reg1=0x4
// cookie=0x5 actions=drop") into the line without its cookie and the
// cookie.
func withoutCookie(l string) (key, cookie string, ok bool) {
	i := strings.Index(l, " cookie=")
	if i < 0 {
		return "", "", false
	}
	rest := l[i+len(" cookie="):]
	j := strings.IndexByte(rest, ' ')
	if j < 0 {
		return "", "", false
	}
	return l[:i] + rest[j:], rest[:j], true
}

// parseDiffed reads a diff-flows line (without its sign):
// "table=2 priority=300,reg1=0x4 cookie=0xdeff105 actions=...".
func parseDiffed(l string) (flows.Flow, error) {
	var f flows.Flow
	key, _, ok := withoutCookie(l)
	if !ok {
		return f, fmt.Errorf("flow %q: no cookie", l)
	}
	head, actions, ok := strings.Cut(key, " actions=")
	if !ok {
		return f, fmt.Errorf("flow %q: no actions", l)
	}
	f.Actions = actions
	if t, rest, ok := strings.Cut(head, " "); ok && strings.HasPrefix(t, "table=") {
		n, err := strconv.Atoi(strings.TrimPrefix(t, "table="))
		if err != nil {
			return f, fmt.Errorf("flow %q: %v", l, err)
		}
		f.Table, head = n, rest
	}
	prio, match, _ := strings.Cut(head, ",")
	if !strings.HasPrefix(prio, "priority=") {
		return f, fmt.Errorf("flow %q: no priority", l)
	}
	n, err := strconv.Atoi(strings.TrimPrefix(prio, "priority="))
	if err != nil {
		return f, fmt.Errorf("flow %q: %v", l, err)
	}
	f.Priority, f.Match = n, match
	return f, nil
}

var cookieHex = "0x" + strconv.FormatUint(flows.Cookie, 16)

const cookieMatch = "cookie=0xdeff105/-1"

// ofVersion is the OpenFlow version ovs-ofctl speaks: 1.4 has bundles, and
// from 1.2 on both sides of diff-flows print set_field actions alike (1.0
// prints the switch's as load and mod_dl_dst).
const ofVersion = "OpenFlow14"

// Result says what an Apply or Sync wrote.
type Result struct {
	// Added are the flows added or whose actions were replaced; Deleted
	// the flows of flows.Cookie removed.
	Added, Deleted int
}

// Sync makes the bridge's flows of flows.Cookie exactly desired (which
// must all be flows.Cookie's, as flows.Plan returns them): Observe with
// desired as scope, flows.Diff, Apply. Flows of other cookies are never
// touched; applying the same flows twice changes nothing.
func (b *Bridge) Sync(ctx context.Context, desired []flows.Flow) (flows.Changes, Result, error) {
	for _, f := range desired {
		if err := f.Validate(); err != nil {
			return flows.Changes{}, Result{}, fmt.Errorf("ovs: bridge %s: %w", b.cfg.Bridge, err)
		}
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	observed, err := b.Observe(ctx, desired)
	if err != nil {
		return flows.Changes{}, Result{}, err
	}
	changes := flows.Diff(observed, desired)
	res, err := b.apply(ctx, changes)
	return changes, res, err
}

// Apply writes changes (from flows.Diff against what Observe returned) in
// one bundle (ovs-ofctl --bundle, atomic): strict deletes of Delete first,
// then Add (adding a flow of an existing table, priority and match
// replaces its actions). An empty change set runs nothing; one that does
// not validate (flows.Changes.Validate: a flow that could carry a command
// of its own) runs nothing and fails.
func (b *Bridge) Apply(ctx context.Context, changes flows.Changes) (Result, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.apply(ctx, changes)
}

func (b *Bridge) apply(ctx context.Context, c flows.Changes) (Result, error) {
	if c.Len() == 0 {
		return Result{}, nil
	}
	if err := c.Validate(); err != nil {
		return Result{}, fmt.Errorf("ovs: bridge %s: %w", b.cfg.Bridge, err)
	}
	var bundle strings.Builder
	for _, f := range c.Delete {
		bundle.WriteString("delete_strict " + cookieMatch + "," + f.Key() + "\n")
	}
	for _, f := range c.Add {
		bundle.WriteString("add " + f.String() + "\n")
	}
	file, cleanup, err := b.writeFile("udnkit-bundle-*.txt", bundle.String())
	if err != nil {
		return Result{}, err
	}
	defer cleanup()
	if _, err := b.run(ctx, "-O", ofVersion, "--bundle", "add-flows", b.cfg.Bridge, file); err != nil {
		return Result{}, err
	}
	return Result{Added: len(c.Add), Deleted: len(c.Delete)}, nil
}
