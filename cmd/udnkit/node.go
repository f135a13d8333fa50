package main

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/udnkit/udnkit"
	"github.com/udnkit/udnkit/flows"
	"github.com/udnkit/udnkit/netconf/udn"
)

// Node formats of plan: a node's kernel and gateway-bridge plans.
var nodeFormats = []string{"ip", "nft", "ofctl"}

// Defaults of the node-local flags: the gateway bridge's uplink is eth0 at
// OpenFlow port 1, the default network's patch port 2, and the primary
// networks' patch ports follow from 3 in network-name order.
const (
	defaultUplink      = "eth0:1"
	defaultPatchOFPort = 2
)

// nodeFlags are what only a node knows, as flags of plan.
type nodeFlags struct {
	uplink        string
	defaultPatch  int
	patches       []string
	kubeletCgroup string
}

func (f *nodeFlags) register(c *cobra.Command) {
	fl := c.Flags()
	fl.StringVar(&f.uplink, "uplink", defaultUplink, "-o ofctl: the gateway bridge's physical port and its OpenFlow number, NAME:OFPORT")
	fl.IntVar(&f.defaultPatch, "default-patch-ofport", defaultPatchOFPort, "-o ofctl: the OpenFlow number of the default network's patch port to br-int")
	fl.StringArrayVar(&f.patches, "patch-ofport", nil, "-o ofctl: NETWORK=OFPORT, the OpenFlow number of a primary network's patch port (repeatable);\nthe networks not given are numbered from the default patch port's number + 1 in network-name order")
	fl.StringVar(&f.kubeletCgroup, "kubelet-cgroup", "", "-o ip|nft: the kubelet's cgroup v2 path (kubelet.slice/kubelet.service); empty leaves kubelet probes of the networks' pods blocked (the plan warns)")
}

// nodePrimaries returns the networks PlanNode plans a patch port for: the
// primary networks but Localnet ones, by name.
func nodePrimaries(c *udnkit.Cluster) []string {
	var out []string
	for _, name := range c.Names() {
		n, ok := c.Network(name)
		if ok && n.IsPrimary() && n.Topology != udn.TopologyLocalnet {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// local returns the NodeLocal the flags give for the Cluster c.
func (f *nodeFlags) local(c *udnkit.Cluster) (udnkit.NodeLocal, error) {
	var l udnkit.NodeLocal
	name, port, ok := strings.Cut(f.uplink, ":")
	n, err := strconv.Atoi(port)
	if !ok || name == "" || err != nil || n <= 0 {
		return l, fmt.Errorf("--uplink: %q is not NAME:OFPORT with OFPORT a positive number", f.uplink)
	}
	l.Uplink = flows.Port{Name: name, OFPort: n}
	if f.defaultPatch <= 0 {
		return l, fmt.Errorf("--default-patch-ofport: %d is not a positive OpenFlow port number", f.defaultPatch)
	}
	l.DefaultPatchOFPort = f.defaultPatch
	l.KubeletCgroup = f.kubeletCgroup
	nets := nodePrimaries(c)
	l.PatchOFPorts = make(map[string]int, len(nets))
	used := map[int]string{l.Uplink.OFPort: "--uplink", l.DefaultPatchOFPort: "--default-patch-ofport"}
	if l.Uplink.OFPort == l.DefaultPatchOFPort {
		return l, fmt.Errorf("--default-patch-ofport: OpenFlow port %d is the uplink's too", l.DefaultPatchOFPort)
	}
	for _, p := range f.patches {
		i := strings.LastIndex(p, "=")
		if i < 0 {
			return l, fmt.Errorf("--patch-ofport: %q is not NETWORK=OFPORT", p)
		}
		net, port := p[:i], p[i+1:]
		n, err := strconv.Atoi(port)
		if err != nil || n <= 0 {
			return l, fmt.Errorf("--patch-ofport %s: %q is not a positive OpenFlow port number", net, port)
		}
		if !slices.Contains(nets, net) {
			return l, fmt.Errorf("--patch-ofport %s: not a primary network of the manifests (they are: %s)", net, orNone(strings.Join(nets, ", ")))
		}
		if _, dup := l.PatchOFPorts[net]; dup {
			return l, fmt.Errorf("--patch-ofport %s: given twice", net)
		}
		if other, taken := used[n]; taken {
			return l, fmt.Errorf("--patch-ofport %s: OpenFlow port %d is %s's too", net, n, other)
		}
		used[n] = "--patch-ofport " + net
		l.PatchOFPorts[net] = n
	}
	next := l.DefaultPatchOFPort + 1
	for _, net := range nets {
		if _, ok := l.PatchOFPorts[net]; ok {
			continue
		}
		for used[next] != "" {
			next++
		}
		used[next] = net
		l.PatchOFPorts[net] = next
	}
	return l, nil
}

// writeNodePlans writes the node plans of zones (a zone is its node) in
// format: ip (the kernel plan's ip commands), nft (its nftables ruleset,
// for nft -f) or ofctl (the gateway bridge's ovs-ofctl add-flow
// commands). The kernel plan's warnings are comments of ip, and go to
// errOut for nft and ofctl.
func writeNodePlans(w, errOut io.Writer, format string, c *udnkit.Cluster, local udnkit.NodeLocal, zs []string, all bool) error {
	for i, z := range zs {
		p, err := c.PlanNode(z, local)
		if err != nil {
			return err
		}
		if all {
			if i > 0 {
				fmt.Fprintln(w)
			}
			fmt.Fprintf(w, "# node %s\n", z)
		}
		var text string
		switch format {
		case "ip":
			text = p.Kernel.IPScript()
		case "nft":
			text = p.Kernel.NFT.String()
		case "ofctl":
			text = flows.Script(p.Bridge, p.Flows)
		}
		if _, err := io.WriteString(w, text); err != nil {
			return err
		}
		if format != "ip" {
			for _, wn := range p.Kernel.Warnings {
				fmt.Fprintf(errOut, "warning: node %s: %s: %s\n", z, wn.Reason, wn.Message)
			}
		}
	}
	return nil
}
