package flows

import (
	"fmt"
	"net"
	"net/netip"
	"slices"
	"strconv"
	"strings"

	"github.com/udnkit/udnkit/internal/netdev"
	"github.com/udnkit/udnkit/ipam"
)

// MaxOFPort is the largest OpenFlow port number of a physical or patch
// port (OFPP_MAX); LOCAL, the bridge's own port, is 0xfffe.
const MaxOFPort = 0xff00

func invalid(field, format string, args ...any) error {
	return fmt.Errorf("%s: %w: %s", field, ErrInvalid, fmt.Sprintf(format, args...))
}

// unicastMAC reports a 6-byte MAC that is neither multicast nor zero.
func unicastMAC(m net.HardwareAddr) bool {
	return len(m) == 6 && m[0]&1 == 0 && !slices.Equal(m, net.HardwareAddr{0, 0, 0, 0, 0, 0})
}

func unicast(a netip.Addr) bool {
	return a.IsValid() && !a.IsUnspecified() && !a.IsMulticast() && !a.Is4In6() && a.Zone() == ""
}

// validateInput refuses what the bridge could not hold consistently: every
// error names the field.
func validateInput(in Input) error {
	nd := in.Node
	if nd.Bridge == "" {
		return invalid("node.bridge", "required")
	}
	if err := netdev.Check(nd.Bridge); err != nil {
		return invalid("node.bridge", "%v", err)
	}
	if strings.HasPrefix(nd.Bridge, "-") {
		// A valid device name, but ovs-ofctl (Script, backend/ovs) would
		// read it as an option.
		return invalid("node.bridge", "%s starts with '-', which ovs-ofctl reads as an option", netdev.Bounded(nd.Bridge))
	}
	if !unicastMAC(nd.MAC) {
		return invalid("node.mac", "%s is not a 6-byte unicast MAC", boundedMAC(nd.MAC))
	}
	fams := map[bool]bool{}
	for i, ip := range nd.IPs {
		if !unicast(ip) {
			return invalid(fmt.Sprintf("node.ips[%d]", i), "%s is not a unicast address", ip)
		}
		if fams[ip.Is4()] {
			return invalid(fmt.Sprintf("node.ips[%d]", i), "%s: a second address of its family", ip)
		}
		fams[ip.Is4()] = true
	}
	if len(nd.IPs) == 0 {
		return invalid("node.ips", "none")
	}
	// Every port of the bridge is one port: its number and name appear once,
	// and neither is the bridge's own (LOCAL).
	ofports, names := map[int]string{}, map[string]string{}
	port := func(field string, p Port) error {
		if p.OFPort < 1 || p.OFPort > MaxOFPort {
			return invalid(field+".ofport", "%d is not in 1..%d (LOCAL is the bridge's own port)", p.OFPort, MaxOFPort)
		}
		if err := netdev.CheckText(p.Name); err != nil {
			return invalid(field+".name", "%v", err)
		}
		if p.Name == nd.Bridge {
			return invalid(field+".name", "%s is the bridge's own port (LOCAL)", netdev.Bounded(p.Name))
		}
		if other, ok := ofports[p.OFPort]; ok {
			return invalid(field+".ofport", "%d is %s's too", p.OFPort, other)
		}
		ofports[p.OFPort] = field
		if p.Name != "" {
			if other, ok := names[p.Name]; ok {
				return invalid(field+".name", "%s is %s's too", netdev.Bounded(p.Name), other)
			}
			names[p.Name] = field
		}
		return nil
	}
	if err := port("node.physical", nd.Physical); err != nil {
		return err
	}
	if err := port("node.defaultPatch", nd.DefaultPatch); err != nil {
		return err
	}
	for i, p := range in.Cluster.ServiceCIDRs {
		if !p.IsValid() || p.Addr().Is4In6() || p != p.Masked() {
			return invalid(fmt.Sprintf("cluster.serviceCIDRs[%d]", i), "%s is not a masked prefix", p)
		}
	}
	for i, p := range in.Cluster.MasqueradeSubnets {
		if !p.IsValid() || p.Addr().Is4In6() || p != p.Masked() {
			return invalid(fmt.Sprintf("cluster.masqueradeSubnets[%d]", i), "%s is not a masked prefix", p)
		}
	}
	n := 0
	for _, nw := range in.Networks {
		n += len(nw.ClusterIPs)
	}
	ids, netNames, clusterIPs := make(map[int]int, len(in.Networks)), make(map[string]int, len(in.Networks)), make(map[netip.Addr]int, n)
	for i, n := range in.Networks {
		if n.Name == "" {
			return invalid(fmt.Sprintf("networks[%d].name", i), "required")
		}
		if err := netdev.CheckText(n.Name); err != nil {
			return invalid(fmt.Sprintf("networks[%d].name", i), "%v", err)
		}
		// Field paths are formatted only for an error: Plan runs this for
		// every network and cluster IP.
		f := func() string { return fmt.Sprintf("network %s (networks[%d])", netdev.Bounded(n.Name), i) }
		switch {
		case n.ID < 1 || n.ID > ipam.MaxNetworkID:
			return invalid(f()+".id", "%d is not in 1..%d", n.ID, ipam.MaxNetworkID)
		case !unicastMAC(n.GatewayMAC):
			return invalid(f()+".gatewayMAC", "%s is not a 6-byte unicast MAC", boundedMAC(n.GatewayMAC))
		case !n.IPv4 && !n.IPv6:
			return invalid(f()+".ipv4", "a network has IPv4, IPv6 or both")
		}
		if j, ok := ids[n.ID]; ok {
			return invalid(f()+".id", "%d is networks[%d]'s too", n.ID, j)
		}
		ids[n.ID] = i
		if j, ok := netNames[n.Name]; ok {
			return invalid(f()+".name", "networks[%d] has the same name", j)
		}
		netNames[n.Name] = i
		if err := port(f()+".patch", n.Patch); err != nil {
			return err
		}
		for j, c := range n.ClusterIPs {
			cf := func() string { return fmt.Sprintf("%s.clusterIPs[%d]", f(), j) }
			switch {
			case !unicast(c):
				return invalid(cf(), "%s is not a unicast address", c)
			case c.Is4() && !n.IPv4 || c.Is6() && !n.IPv6:
				return invalid(cf(), "%s is of a family the network does not have", c)
			case len(in.Cluster.ServiceCIDRs) > 0 && !slices.ContainsFunc(in.Cluster.ServiceCIDRs, func(p netip.Prefix) bool { return p.Contains(c) }):
				return invalid(cf(), "%s is outside the service CIDRs %v", c, in.Cluster.ServiceCIDRs)
			}
			if k, ok := clusterIPs[c]; ok && k != i {
				return invalid(cf(), "%s is networks[%d]'s cluster IP too", c, k)
			}
			clusterIPs[c] = i
		}
	}
	return nil
}

// Validate reports whether f can be written to a bridge as the SDK's
// flow: table 0..254, priority 0..65535, actions, and a match and actions
// of printable ASCII without blanks that set no cookie, table or priority
// of their own (a newline in a flow written to a bundle file would be a
// command of its own). Plan's flows are valid; backend/ovs checks again
// before it writes.
func (f Flow) Validate() error {
	switch {
	case f.Table < 0 || f.Table > 254:
		return invalid("flow "+netdev.Bounded(f.Key()), "table %d is not in 0..254", f.Table)
	case f.Priority < 0 || f.Priority > 0xffff:
		return invalid("flow "+netdev.Bounded(f.Key()), "priority %d is not in 0..65535", f.Priority)
	case f.Actions == "":
		return invalid("flow "+netdev.Bounded(f.Key()), "no actions")
	}
	for _, p := range [2]struct{ what, s string }{{"match", f.Match}, {"actions", f.Actions}} {
		for i := 0; i < len(p.s); i++ {
			if c := p.s[i]; c <= ' ' || c >= 0x7f {
				return invalid("flow table="+strconv.Itoa(f.Table)+",priority="+strconv.Itoa(f.Priority)+" "+p.what,
					"%s holds %q at byte %d", netdev.Bounded(p.s), c, i)
			}
		}
	}
	for rest := f.Match; rest != ""; {
		var m string
		m, rest, _ = strings.Cut(rest, ",")
		k, _, _ := strings.Cut(m, "=")
		if k == "cookie" || k == "table" || k == "priority" || k == "actions" {
			return invalid("flow "+netdev.Bounded(f.Key())+" match", "sets %s", k)
		}
	}
	return nil
}

// Validate checks every flow of c (Flow.Validate).
func (c Changes) Validate() error {
	for _, fs := range [][]Flow{c.Add, c.Delete} {
		for _, f := range fs {
			if err := f.Validate(); err != nil {
				return err
			}
		}
	}
	return nil
}

// boundedMAC formats a MAC of any length for an error message.
func boundedMAC(m net.HardwareAddr) string {
	if len(m) > 20 {
		return fmt.Sprintf("a %d-byte address", len(m))
	}
	return fmt.Sprintf("%q", m.String())
}
