package ovntest

import (
	"context"
	"fmt"
	"hash/fnv"
	"net/netip"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/udnkit/udnkit/netconf"
)

// Netns is a network namespace code runs in: a Host or a Pod.
type Netns interface {
	// In runs fn on a thread in the namespace.
	In(fn func() error) error
	// String names the namespace's owner in errors.
	String() string
}

var (
	_ Netns = (*Host)(nil)
	_ Netns = (*Pod)(nil)
)

// PodSpec is a pod as a CNI plugin wires it: a logical switch port and
// what the pod's k8s.ovn.org/pod-networks annotation records for it.
type PodSpec struct {
	// Name is short (1 to 12 of a-z, 0-9 and -) and unique on its host:
	// it names the pod's namespace and its veth's host end.
	Name string
	// Port is the logical switch port (the OVS interface's
	// external_ids:iface-id).
	Port string
	// IfaceIDVer is the pod's UID, which the port's options:iface-id-ver
	// holds: ovn-controller binds only a matching interface.
	IfaceIDVer string
	// Network is the pod's entry of its pod-networks annotation: the
	// addresses, MAC, gateways and routes eth0 gets.
	Network netconf.PodNetwork
	// MTU is eth0's MTU; 0 means 1400, the networks' default.
	MTU int
}

// Pod is a pod of a Host: a network namespace whose eth0 is one end of a
// veth pair; the other end, in the host's namespace, is a port of br-int
// bound to the pod's logical switch port.
type Pod struct {
	// Name is PodSpec.Name.
	Name string
	// NetNS is the pod's network namespace (ip netns).
	NetNS string
	// Addr is the pod's first address.
	Addr netip.Addr
	host *Host
	dev  string // the veth's end in the host's namespace
}

var podName = regexp.MustCompile(`^[a-z0-9-]{1,12}$`)

// AddPod creates the pod's namespace, wires eth0 as the annotation says
// (MAC, addresses, default route through the first gateway, routes) and
// plugs the veth's other end into br-int with the pod's iface-id and
// iface-id-ver. It returns once the zone's SB records the port bound to
// this host's chassis and the NB reports it up. Host.Stop deletes it.
func (h *Host) AddPod(ctx context.Context, spec PodSpec) (*Pod, error) {
	if !podName.MatchString(spec.Name) {
		return nil, fmt.Errorf("pod %q: name: want 1 to 12 of a-z, 0-9 and -", spec.Name)
	}
	pn := spec.Network
	if len(pn.IPs) == 0 || len(pn.MAC) != 6 {
		return nil, fmt.Errorf("pod %s: network: want an address and a 6-byte MAC, have %v and %v", spec.Name, pn.IPs, pn.MAC)
	}
	if spec.Port == "" {
		return nil, fmt.Errorf("pod %s: port: empty", spec.Name)
	}
	mtu := spec.MTU
	if mtu == 0 {
		mtu = 1400
	}
	// The host end's name: the host's suffix and a hash of the pod's name
	// (15 bytes at most; a cut name would collide for two pods sharing a
	// prefix).
	name := fnv.New32a()
	name.Write([]byte(spec.Name))
	p := &Pod{Name: spec.Name, NetNS: h.NetNS + "-" + spec.Name, Addr: pn.IPs[0].Addr(), host: h,
		dev: fmt.Sprintf("v%s%08x", h.NetNS[len(h.NetNS)-6:], name.Sum32())}
	if out, err := exec.CommandContext(ctx, "ip", "netns", "add", p.NetNS).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("pod %s: ip netns add %s: %v: %s", spec.Name, p.NetNS, err, out)
	}
	h.pods = append(h.pods, p)
	steps := [][]string{
		{"link", "add", "name", p.dev, "netns", h.NetNS, "mtu", strconv.Itoa(mtu), "type", "veth",
			"peer", "name", "eth0", "netns", p.NetNS},
		{"-n", p.NetNS, "link", "set", "lo", "up"},
		{"-n", p.NetNS, "link", "set", "eth0", "address", pn.MAC.String(), "mtu", strconv.Itoa(mtu), "up"},
	}
	for _, ip := range pn.IPs {
		steps = append(steps, []string{"-n", p.NetNS, "addr", "add", ip.String(), "dev", "eth0"})
	}
	for _, gw := range pn.Gateways {
		steps = append(steps, []string{"-n", p.NetNS, "route", "add", "default", "via", gw.String(), "dev", "eth0"})
	}
	for _, r := range pn.Routes {
		via := []string{"-n", p.NetNS, "route", "add", r.Dest.String(), "dev", "eth0"}
		if r.NextHop.IsValid() {
			via = append(via, "via", r.NextHop.String())
		}
		steps = append(steps, via)
	}
	steps = append(steps, []string{"-n", h.NetNS, "link", "set", p.dev, "up"})
	for _, args := range steps {
		if out, err := exec.CommandContext(ctx, "ip", args...).CombinedOutput(); err != nil {
			return p, fmt.Errorf("pod %s: ip %s: %v: %s", spec.Name, strings.Join(args, " "), err, out)
		}
	}
	// The kernel leaves TCP and UDP checksums to the device (veth offload);
	// the userspace datapath reads the packets from the host's end as they
	// are and sends them on with the checksum unfilled, so the pod fills it.
	if err := p.In(func() error { return noTxChecksum("eth0") }); err != nil {
		return p, fmt.Errorf("pod %s: %w", spec.Name, err)
	}
	if _, err := h.VSCtl(ctx, "add-port", "br-int", p.dev, "--", "set", "Interface", p.dev,
		"external_ids:iface-id="+spec.Port, "external_ids:iface-id-ver="+spec.IfaceIDVer); err != nil {
		return p, fmt.Errorf("pod %s: %w", spec.Name, err)
	}
	wait, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if _, err := h.env.NBCtl(wait, "--timeout=30", "wait-until", "Logical_Switch_Port", spec.Port, "up=true"); err != nil {
		return p, fmt.Errorf("pod %s: port %s never came up on chassis %s: %w", spec.Name, spec.Port, h.Name, err)
	}
	return p, nil
}

// String returns the pod's name.
func (p *Pod) String() string { return "pod " + p.Name }

// In runs fn on a thread in the pod's network namespace.
func (p *Pod) In(fn func() error) error { return inNetns(p.NetNS, fn) }

// delete removes the pod's namespace (and with it the veth pair).
func (p *Pod) delete() error {
	out, err := exec.Command("ip", "netns", "del", p.NetNS).CombinedOutput()
	if err != nil && !strings.Contains(string(out), "No such file") {
		return fmt.Errorf("ip netns del %s: %v: %s", p.NetNS, err, out)
	}
	return nil
}
