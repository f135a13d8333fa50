package netconf

import (
	"fmt"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/udnkit/udnkit/internal/kubename"
	"github.com/udnkit/udnkit/internal/names"
	"github.com/udnkit/udnkit/internal/netdev"
	"github.com/udnkit/udnkit/ipam"
	"github.com/udnkit/udnkit/netconf/udn"
)

// MTU bounds. 1280 is the IPv6 minimum link MTU.
const (
	MinMTU     = 576
	MinMTUIPv6 = 1280
	MaxMTU     = udn.MaxMTU
)

// MaxVRFNameLen is the longest VRF device name the kernel accepts (IFNAMSIZ-1).
const MaxVRFNameLen = netdev.MaxName

// MaxPhysicalNetworkNameLen is the longest physicalNetworkName the
// reference CRD accepts.
const MaxPhysicalNetworkNameLen = 253

// MaxVLANID is the largest 802.1Q VLAN ID.
const MaxVLANID = 4094

// specInput is a network description in either of its two spellings (a
// UDN/CUDN spec or NetConf JSON), reduced to what the rules look at.
type specInput struct {
	topology    Topology
	role        Role
	mtu         int64
	subnets     []string
	exclude     []string
	join        []string
	transit     []string
	mode        IPAMMode
	lifecycle   IPAMLifecycle
	vrf         string
	localnetSet bool
	physnet     string
	vlan        int
	// fromNetConf: NetConf input rather than a UDN/CUDN spec. A NetConf
	// may hold a join subnet of an IP family the network lacks (the
	// reference renders both families for every primary network) and join
	// subnets on a secondary network (unused; a spec may not: the CRD's
	// rule), up to MaxLayer3NetConfSubnets Layer3 subnets (a spec two, the
	// CRD's bound), and a Localnet without physicalNetworkName (a spec
	// needs it).
	fromNetConf bool
}

// MaxLayer3NetConfSubnets bounds the subnets of a Layer3 NetConf.
const MaxLayer3NetConfSubnets = 64

// specPaths are the field paths the rules report against.
type specPaths struct {
	topology, role, mtu, subnets, exclude, join, transit *field.Path
	mode, lifecycle, vrf, localnet, physnet, vlan        *field.Path
}

func specPathsAt(spec *field.Path) specPaths {
	return specPaths{
		topology:  spec.Child("topology"),
		role:      spec.Child("role"),
		mtu:       spec.Child("mtu"),
		subnets:   spec.Child("subnets"),
		exclude:   spec.Child("excludeSubnets"),
		join:      spec.Child("joinSubnets"),
		transit:   spec.Child("transitSubnets"), // never set from a spec
		mode:      spec.Child("ipam", "mode"),
		lifecycle: spec.Child("ipam", "lifecycle"),
		localnet:  spec.Child("localnet"),
		physnet:   spec.Child("localnet", "physicalNetworkName"),
		vlan:      spec.Child("localnet", "vlanID"),
	}
}

func specInputOf(s *UserDefinedNetworkSpec) specInput {
	in := specInput{
		topology:    s.Topology,
		role:        s.Role,
		mtu:         int64(s.MTU),
		subnets:     s.Subnets,
		exclude:     s.ExcludeSubnets,
		join:        s.JoinSubnets,
		mode:        s.ipamMode(),
		lifecycle:   s.ipamLifecycle(),
		localnetSet: s.Localnet != nil,
	}
	if s.Localnet != nil {
		in.physnet = s.Localnet.PhysicalNetworkName
		in.vlan = s.Localnet.VLANID
	}
	return in
}

// buildNetwork applies every per-network rule to in and returns the
// normalised network (Name, ID and NADs unset). The network is meaningful
// only when the error list is empty.
func buildNetwork(in specInput, p specPaths) (*Network, field.ErrorList) {
	var errs field.ErrorList
	n := &Network{Topology: in.topology, Role: in.role, MTU: int(in.mtu)}

	switch {
	case in.topology == "":
		errs = append(errs, field.Required(p.topology, "must be one of Layer2, Layer3, Localnet"))
	case !in.topology.Valid():
		errs = append(errs, field.NotSupported(p.topology, in.topology, []Topology{TopologyLayer2, TopologyLayer3, TopologyLocalnet}))
	}
	switch {
	case in.role == "":
		errs = append(errs, field.Required(p.role, "must be one of Primary, Secondary"))
	case !in.role.Valid():
		errs = append(errs, field.NotSupported(p.role, in.role, []Role{RolePrimary, RoleSecondary}))
	}
	primary := in.role == RolePrimary
	if in.topology == TopologyLocalnet && primary {
		errs = append(errs, field.Invalid(p.role, in.role, "Localnet topology is not supported for primary networks; use Secondary"))
	}

	// IPAM mode and lifecycle.
	mode := in.mode
	if mode == "" {
		mode = IPAMEnabled
	}
	if mode != IPAMEnabled && mode != IPAMDisabled {
		errs = append(errs, field.NotSupported(p.mode, mode, []IPAMMode{IPAMEnabled, IPAMDisabled}))
	}
	switch in.lifecycle {
	case "":
	case IPAMPersistent:
		if in.topology == TopologyLayer3 {
			errs = append(errs, field.Invalid(p.lifecycle, in.lifecycle, "Persistent is supported for Layer2 and Localnet topologies only"))
		}
		if mode == IPAMDisabled {
			errs = append(errs, field.Invalid(p.lifecycle, in.lifecycle, "Persistent requires IPAM: ipam.mode Enabled with subnets"))
		}
		n.PersistentIPs = true
	default:
		errs = append(errs, field.NotSupported(p.lifecycle, in.lifecycle, []IPAMLifecycle{IPAMPersistent}))
	}
	if mode == IPAMDisabled {
		if in.topology == TopologyLayer3 {
			errs = append(errs, field.Invalid(p.mode, mode, "Disabled is supported for Layer2 and Localnet topologies only"))
		}
		if primary {
			errs = append(errs, field.Invalid(p.mode, mode, "Disabled is supported for Secondary networks only"))
		}
		if len(in.subnets) > 0 {
			errs = append(errs, field.Forbidden(p.subnets, "must be omitted when ipam.mode is Disabled"))
		}
		n.IPAMDisabled = true
	} else if len(in.subnets) == 0 {
		switch {
		case in.topology == TopologyLayer3:
			errs = append(errs, field.Required(p.subnets, "Layer3 topology requires subnets"))
		case primary:
			errs = append(errs, field.Required(p.subnets, "primary networks require subnets"))
		default:
			errs = append(errs, field.Required(p.subnets, "required when ipam.mode is Enabled (the default); set ipam.mode to Disabled for a secondary network without IPAM"))
		}
	}

	// Pod subnets: one per IP family, but for Layer3, whose cluster
	// subnets may be several of one family (the reference's NetInfo takes
	// a list; a spec holds two at most, its CRD's bound).
	maxSubnets := 2
	if in.fromNetConf && in.topology == TopologyLayer3 {
		maxSubnets = MaxLayer3NetConfSubnets
	}
	if len(in.subnets) > maxSubnets {
		errs = append(errs, field.TooMany(p.subnets, len(in.subnets), maxSubnets))
	}
	var families []bool   // IP families of the subnets, each once, in order (true = IPv6)
	var subIdx []int      // index in in.subnets of the first subnet of each family
	var podIdx []int      // index in in.subnets of each parsed subnet
	var firstOf [2]Subnet // the first subnet of each family (HostPrefix 0: none yet)
	for i, s := range in.subnets {
		sn, detail := parseSubnet(s, in.topology)
		if detail != "" {
			errs = append(errs, field.Invalid(p.subnets.Index(i), s, detail))
			continue
		}
		v6 := sn.CIDR.Addr().Is6()
		if in.topology == TopologyLayer3 {
			if f := &firstOf[b2i(v6)]; f.HostPrefix == 0 {
				*f = sn
			} else if msg := hostSubnetMismatch(*f, sn, in.subnets[subIdx[slices.Index(families, v6)]], s, in.fromNetConf); msg != "" {
				errs = append(errs, field.Invalid(p.subnets.Index(i), s, msg))
			}
		}
		if slices.Contains(families, v6) {
			if in.topology != TopologyLayer3 || !in.fromNetConf {
				errs = append(errs, field.Invalid(p.subnets.Index(i), s, "at most one subnet per IP family; another "+family(v6)+" subnet is already listed"))
				continue
			}
			if j := slices.IndexFunc(n.Subnets, func(o Subnet) bool { return o.CIDR.Overlaps(sn.CIDR) }); j >= 0 {
				errs = append(errs, field.Invalid(p.subnets.Index(i), s, "overlaps the network's subnet "+n.Subnets[j].CIDR.String()))
				continue
			}
		} else {
			families = append(families, v6)
			subIdx = append(subIdx, i)
		}
		podIdx = append(podIdx, i)
		n.Subnets = append(n.Subnets, sn)
	}
	pods := n.SubnetPrefixes()
	if in.topology != TopologyLocalnet {
		for k, sub := range pods {
			if m := masqueradeSubnet(sub.Addr().Is6()); sub.Overlaps(m) {
				errs = append(errs, field.Invalid(p.subnets.Index(podIdx[k]), in.subnets[podIdx[k]],
					fmt.Sprintf("overlaps the masquerade subnet %s, which the node uses for its services", m)))
			}
		}
	}
	if primary && in.topology == TopologyLayer2 {
		// The planner gives the network's gateway and management port the
		// subnet's first two host addresses.
		for k, sub := range pods {
			if _, err := ipam.GatewayIP(sub); err != nil {
				errs = append(errs, field.Invalid(p.subnets.Index(podIdx[k]), in.subnets[podIdx[k]], "too small for a primary Layer2 network: no address for its gateway"))
			} else if _, err := ipam.ManagementIP(sub); err != nil {
				errs = append(errs, field.Invalid(p.subnets.Index(podIdx[k]), in.subnets[podIdx[k]], "too small for a primary Layer2 network: no address for its management port"))
			}
		}
	}
	if primary {
		for k, sub := range pods {
			if dj := defaultNetworkJoin(sub.Addr().Is6()); sub.Overlaps(dj) {
				errs = append(errs, field.Invalid(p.subnets.Index(podIdx[k]), in.subnets[podIdx[k]],
					fmt.Sprintf("overlaps the default network's join subnet %s, which pods of a primary network route to the cluster default network", dj)))
			}
		}
	}
	hasV6 := slices.Contains(families, true)

	if in.mtu != 0 {
		switch {
		case in.mtu < MinMTU || in.mtu > MaxMTU:
			errs = append(errs, field.Invalid(p.mtu, in.mtu, fmt.Sprintf("must be between %d and %d", MinMTU, MaxMTU)))
		case hasV6 && in.mtu < MinMTUIPv6:
			errs = append(errs, field.Invalid(p.mtu, in.mtu, fmt.Sprintf("must be at least %d for a network with an IPv6 subnet", MinMTUIPv6)))
		}
	}

	var exIdx []int // index in in.exclude of each of n.ExcludeSubnets
	for i, s := range in.exclude {
		ex, detail := parseCIDR(s)
		if detail != "" {
			errs = append(errs, field.Invalid(p.exclude.Index(i), s, detail))
			continue
		}
		if !slices.ContainsFunc(pods, func(sub netip.Prefix) bool { return sub.Bits() <= ex.Bits() && sub.Contains(ex.Addr()) }) {
			errs = append(errs, field.Invalid(p.exclude.Index(i), s, fmt.Sprintf("must be inside one of %s %v", p.subnets, prefixStrings(pods))))
			continue
		}
		n.ExcludeSubnets = append(n.ExcludeSubnets, ex)
		exIdx = append(exIdx, i)
	}

	// Every subnet must hold a pod: the pool reserves the network, gateway
	// and management addresses (and IPv4 broadcast), excludeSubnets the
	// rest. A Layer3 network's pods live in its host subnets.
	if !n.IPAMDisabled {
		for k, sub := range pods {
			pool, what := sub, "the subnet"
			if in.topology == TopologyLayer3 {
				pool, what = netip.PrefixFrom(sub.Addr(), n.Subnets[k].HostPrefix), "a host subnet /"+strconv.Itoa(n.Subnets[k].HostPrefix)
			}
			if !holdsPod(pool, n.ExcludeSubnets) {
				errs = append(errs, field.Invalid(p.subnets.Index(podIdx[k]), in.subnets[podIdx[k]],
					what+" holds no pod address: the network, gateway and management port addresses"+broadcast(pool)+" and excludeSubnets take all of it"))
			}
		}
		// Every node of a Layer3 network gets a host subnet: the ones
		// excludeSubnets touch (beside each subnet's first, checked above)
		// must hold a pod too.
		if in.topology == TopologyLayer3 {
			for j, ex := range n.ExcludeSubnets {
				k := slices.IndexFunc(n.Subnets, func(s Subnet) bool { return s.CIDR.Contains(ex.Addr()) })
				if k < 0 {
					continue
				}
				hp := n.Subnets[k].HostPrefix
				host, _ := ex.Addr().Prefix(hp)
				if host == netip.PrefixFrom(n.Subnets[k].CIDR.Addr(), hp) {
					continue
				}
				if ex.Bits() <= hp || !holdsPod(host, n.ExcludeSubnets) {
					errs = append(errs, field.Invalid(p.exclude.Index(exIdx[j]), in.exclude[exIdx[j]],
						fmt.Sprintf("leaves no pod address in the host subnet %s a node may be given (the network, gateway and management port addresses%s and excludeSubnets take all of it); exclude less than a whole /%d", host, broadcast(host), hp)))
				}
			}
		}
	}

	// Join subnets: checked always, used by primary networks only.
	if !primary && len(in.join) > 0 && !in.fromNetConf {
		errs = append(errs, field.Forbidden(p.join, "JoinSubnets is only supported for Primary network"))
	}
	joins, jerrs := parseFamilyList(in.join, p.join, "join subnets")
	errs = append(errs, jerrs...)
	if primary {
		fams := families
		if in.fromNetConf {
			fams = nil
		}
		for i, j := range joins {
			if j.IsValid() {
				errs = append(errs, checkInternal(j, in.join[i], p.join.Index(i), fams, pods, nil)...)
				if _, err := ipam.JoinGatewayRouterIP(j, ipam.MinNodeID); err != nil {
					errs = append(errs, field.Invalid(p.join.Index(i), in.join[i], "too small: no address for a node's gateway router beside the cluster router"))
				}
			}
		}
	}
	if primary && len(jerrs) == 0 && len(pods) > 0 {
		n.JoinSubnets = make([]netip.Prefix, len(families))
		for k, v6 := range families {
			if i := famIndex(joins, v6); i >= 0 {
				n.JoinSubnets[k] = joins[i]
				continue
			}
			def := defaultJoin(v6)
			n.JoinSubnets[k] = def
			if overlapsAny(def, pods) {
				errs = append(errs, field.Invalid(p.subnets.Index(subIdx[k]), in.subnets[subIdx[k]],
					fmt.Sprintf("overlaps the default join subnet %s; choose another subnet or set %s", def, p.join)))
			}
		}
	}

	// Transit subnets: NetConf input only; defaulted for every primary network.
	if len(in.transit) > 0 && (!primary || in.topology != TopologyLayer2) {
		errs = append(errs, field.Forbidden(p.transit, "only valid for primary Layer2 networks"))
	}
	transits, terrs := parseFamilyList(in.transit, p.transit, "transit subnets")
	errs = append(errs, terrs...)
	if primary && len(terrs) == 0 && len(jerrs) == 0 && len(pods) > 0 { // n.JoinSubnets is set
		for i, t := range transits {
			if t.IsValid() {
				errs = append(errs, checkInternal(t, in.transit[i], p.transit.Index(i), families, pods, n.JoinSubnets)...)
			}
		}
		n.TransitSubnets = make([]netip.Prefix, len(families))
		for k, v6 := range families {
			if i := famIndex(transits, v6); i >= 0 {
				n.TransitSubnets[k] = transits[i]
				continue
			}
			avoid := append(slices.Clone(pods), n.JoinSubnets...)
			avoid = append(avoid, defaultNetworkJoin(v6))
			t, ok := pickTransit(v6, avoid)
			if !ok {
				errs = append(errs, field.Invalid(p.subnets.Index(subIdx[k]), in.subnets[subIdx[k]], "leaves no free "+family(v6)+" transit subnet"))
			}
			n.TransitSubnets[k] = t
		}
	}

	// A secondary Layer3 network's transit switch takes the default
	// transit subnet, moved the same way (the planner does it).
	if !primary && in.topology == TopologyLayer3 && len(terrs) == 0 {
		for k, v6 := range families { // subIdx[k] is the family's first subnet
			if _, ok := pickTransit(v6, pods); !ok {
				errs = append(errs, field.Invalid(p.subnets.Index(subIdx[k]), in.subnets[subIdx[k]], "leaves no free "+family(v6)+" transit subnet"))
			}
		}
	}

	if in.vrf != "" {
		if !primary {
			errs = append(errs, field.Invalid(p.vrf, in.vrf, "a VRF is only used by primary networks"))
		}
		errs = append(errs, validateVRFName(in.vrf, p.vrf)...)
		n.VRF = in.vrf
	}

	if in.topology == TopologyLocalnet {
		switch {
		case in.physnet == "" && !in.fromNetConf:
			errs = append(errs, field.Required(p.physnet, "Localnet networks need the name of the bridge mapping that wires them to the underlay"))
		case len(in.physnet) > MaxPhysicalNetworkNameLen:
			errs = append(errs, field.TooLong(p.physnet, in.physnet, MaxPhysicalNetworkNameLen))
		case !utf8.ValidString(in.physnet) ||
			strings.ContainsFunc(in.physnet, func(r rune) bool { return r == ',' || r == ':' || unicode.IsSpace(r) || !unicode.IsPrint(r) }):
			errs = append(errs, field.Invalid(p.physnet, in.physnet, "must be printable UTF-8, without commas, colons or blanks (it is a bridge-mappings key)"))
		}
		if in.vlan < 0 || in.vlan > MaxVLANID {
			errs = append(errs, field.Invalid(p.vlan, in.vlan, fmt.Sprintf("must be between 1 and %d, or 0 for untagged", MaxVLANID)))
		}
		n.PhysicalNetworkName, n.VLANID = in.physnet, in.vlan
	} else {
		switch {
		case in.localnetSet:
			errs = append(errs, field.Forbidden(p.localnet, "only valid for the Localnet topology"))
		default:
			if in.physnet != "" {
				errs = append(errs, field.Forbidden(p.physnet, "only valid for the Localnet topology"))
			}
			if in.vlan != 0 {
				errs = append(errs, field.Forbidden(p.vlan, "only valid for the Localnet topology"))
			}
		}
	}
	return n, errs
}

// HostSubnetMismatchMessage is the reference's message (its CRD's CEL rule
// on Layer3 subnets) for two subnets of one IP family whose hostSubnet
// differs: its per-node subnets must all have one length.
const HostSubnetMismatchMessage = "Subnets from the same IP family must use the same hostSubnet value"

// hostSubnetMismatch checks sn, a Layer3 subnet written raw, against first,
// the first subnet of its family written rawFirst: a spec follows the
// reference's CRD (both without a host prefix, or both with the same
// one), a NetConf its parser (the same host prefix, defaults filled). It
// returns the message, or "".
func hostSubnetMismatch(first, sn Subnet, rawFirst, raw string, fromNetConf bool) string {
	has, hasFirst := strings.Count(raw, "/") == 2, strings.Count(rawFirst, "/") == 2
	if sn.HostPrefix == first.HostPrefix && (fromNetConf || has == hasFirst) {
		return ""
	}
	written := func(s Subnet, has bool) string {
		if has {
			return "/" + strconv.Itoa(s.HostPrefix)
		}
		return "none (the default /" + strconv.Itoa(s.HostPrefix) + ")"
	}
	return fmt.Sprintf("%s: this subnet's is %s, %s's is %s", HostSubnetMismatchMessage,
		written(sn, has), names.Quote(rawFirst), written(first, hasFirst))
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// parseFamilyList parses a join/transit list: 1 or 2 CIDRs, one per family.
// The result has the list's length; unparsable entries are zero.
func parseFamilyList(list []string, p *field.Path, what string) ([]netip.Prefix, field.ErrorList) {
	var errs field.ErrorList
	if len(list) > 2 {
		errs = append(errs, field.TooMany(p, len(list), 2))
	}
	out := make([]netip.Prefix, len(list))
	var seen []bool
	for i, s := range list {
		pr, detail := parseCIDR(s)
		if detail != "" {
			errs = append(errs, field.Invalid(p.Index(i), s, detail))
			continue
		}
		v6 := pr.Addr().Is6()
		if slices.Contains(seen, v6) {
			errs = append(errs, field.Invalid(p.Index(i), s, "at most one of the "+what+" per IP family"))
			continue
		}
		seen = append(seen, v6)
		out[i] = pr
	}
	return out, errs
}

// famIndex returns the index of the valid prefix of the family in list, or -1.
func famIndex(list []netip.Prefix, v6 bool) int {
	for i, p := range list {
		if p.IsValid() && p.Addr().Is6() == v6 {
			return i
		}
	}
	return -1
}

// checkInternal checks a join or transit subnet: its family is one the
// network has (when its subnets parsed), and it overlaps neither the default network's join subnet,
// the pod subnets nor the extra prefixes.
func checkInternal(pr netip.Prefix, raw string, p *field.Path, families []bool, pods, extra []netip.Prefix) field.ErrorList {
	var errs field.ErrorList
	v6 := pr.Addr().Is6()
	if len(families) > 0 && !slices.Contains(families, v6) {
		return append(errs, field.Invalid(p, raw, "the network has no "+family(v6)+" subnet"))
	}
	if dj := defaultNetworkJoin(v6); pr.Overlaps(dj) {
		errs = append(errs, field.Invalid(p, raw, fmt.Sprintf("overlaps the default network's join subnet %s", dj)))
	}
	if m := masqueradeSubnet(v6); pr.Overlaps(m) {
		errs = append(errs, field.Invalid(p, raw, fmt.Sprintf("overlaps the masquerade subnet %s", m)))
	}
	for _, s := range pods {
		if pr.Overlaps(s) {
			errs = append(errs, field.Invalid(p, raw, fmt.Sprintf("overlaps the network's pod subnet %s", s)))
		}
	}
	for _, s := range extra {
		if pr.Overlaps(s) {
			errs = append(errs, field.Invalid(p, raw, fmt.Sprintf("overlaps the network's join subnet %s", s)))
		}
	}
	return errs
}

// holdsPod reports whether a pool over sub, less exclude, has an address
// for a pod.
func holdsPod(sub netip.Prefix, exclude []netip.Prefix) bool {
	if !sub.IsValid() {
		return true // refused elsewhere
	}
	excluded := false
	for _, e := range exclude {
		if e.Bits() <= sub.Bits() && e.Contains(sub.Addr()) {
			return false
		}
		excluded = excluded || e.Overlaps(sub)
	}
	if !excluded {
		// The pool reserves three addresses and the IPv4 broadcast: a pod
		// fits in an IPv4 /29 or an IPv6 /126 and anything shorter.
		if sub.Addr().Is4() {
			return sub.Bits() <= 29
		}
		return sub.Bits() <= 126
	}
	pool, err := ipam.NewIPPool(sub, exclude...)
	if err != nil {
		return false
	}
	_, err = pool.Allocate()
	return err == nil
}

func broadcast(p netip.Prefix) string {
	if p.Addr().Is4() {
		return ", the broadcast address"
	}
	return ""
}

// validateVRFName checks a VRF device name: at most 15 characters, and a
// name the kernel accepts for a network device.
func validateVRFName(name string, p *field.Path) field.ErrorList {
	if len(name) > MaxVRFNameLen {
		return field.ErrorList{field.TooLong(p, name, MaxVRFNameLen)}
	}
	if msg := names.NetdevError(name, "a network device name"); msg != "" {
		return field.ErrorList{field.Invalid(p, name, msg)}
	}
	return nil
}

// ValidateUDN checks a UserDefinedNetwork: metadata and every spec rule.
func ValidateUDN(u *UserDefinedNetwork) field.ErrorList {
	_, errs := udnNetwork(u)
	return errs
}

func udnNetwork(u *UserDefinedNetwork) (_ *Network, out field.ErrorList) {
	defer func() { kubename.Bound(out) }()
	if u == nil {
		return nil, field.ErrorList{field.Required(field.NewPath("metadata"), "UserDefinedNetwork is nil")}
	}
	errs := kubename.ValidateMeta(&u.ObjectMeta, KindUDN, true, "a UserDefinedNetwork lives in the namespace it serves")
	spec := field.NewPath("spec")
	errs = append(errs, validateLegacyLifecycle(&u.Spec, spec)...)
	n, serrs := buildNetwork(specInputOf(&u.Spec), specPathsFor(&u.Spec, spec))
	errs = append(errs, serrs...)
	n.Name = UDNNetworkName(u.Namespace, u.Name)
	n.NADs = []string{u.Namespace + "/" + u.Name}
	return n, errs
}

// specPathsFor points the lifecycle path at the field the user wrote.
func specPathsFor(s *UserDefinedNetworkSpec, at *field.Path) specPaths {
	p := specPathsAt(at)
	if (s.IPAM == nil || s.IPAM.Lifecycle == "") && s.IPAMLifecycle != "" {
		p.lifecycle = at.Child("ipamLifecycle")
	}
	return p
}

func validateLegacyLifecycle(s *UserDefinedNetworkSpec, at *field.Path) field.ErrorList {
	if s.IPAMLifecycle != "" && s.IPAM != nil && s.IPAM.Lifecycle != "" && s.IPAM.Lifecycle != s.IPAMLifecycle {
		return field.ErrorList{field.Invalid(at.Child("ipamLifecycle"), s.IPAMLifecycle,
			fmt.Sprintf("conflicts with %s %q; set only %s", at.Child("ipam", "lifecycle"), s.IPAM.Lifecycle, at.Child("ipam", "lifecycle")))}
	}
	return nil
}

// ValidateCUDN checks a ClusterUserDefinedNetwork: metadata, selector, VRF
// and every rule of its template. The generated VRF name needs the network
// ID, so it is not checked here (see NetworkFromCUDN).
func ValidateCUDN(c *ClusterUserDefinedNetwork) field.ErrorList {
	_, errs := cudnNetwork(c)
	return errs
}

func cudnNetwork(c *ClusterUserDefinedNetwork) (_ *Network, out field.ErrorList) {
	defer func() { kubename.Bound(out) }()
	if c == nil {
		return nil, field.ErrorList{field.Required(field.NewPath("metadata"), "ClusterUserDefinedNetwork is nil")}
	}
	errs := kubename.ValidateMeta(&c.ObjectMeta, KindCUDN, false, "")
	spec := field.NewPath("spec")
	sel := &c.Spec.NamespaceSelector
	if len(sel.MatchLabels) == 0 && len(sel.MatchExpressions) == 0 {
		errs = append(errs, field.Required(spec.Child("namespaceSelector"),
			"must select namespaces (matchLabels or matchExpressions); an empty selector would put every namespace on the network"))
	} else if _, err := kubename.SelectorAsSelector(sel); err != nil {
		errs = append(errs, field.Invalid(spec.Child("namespaceSelector"), sel.String(), err.Error()))
	}
	if c.Spec.Template == nil {
		errs = append(errs, field.Required(spec.Child("template"), "the network template is required"))
		return &Network{Name: CUDNNetworkName(c.Name)}, errs
	}
	tspec := spec.Child("template", "spec")
	ts := &c.Spec.Template.Spec
	errs = append(errs, validateLegacyLifecycle(ts, tspec)...)
	in := specInputOf(ts)
	in.vrf = c.Spec.VRF
	p := specPathsFor(ts, tspec)
	p.vrf = spec.Child("vrf")
	n, serrs := buildNetwork(in, p)
	errs = append(errs, serrs...)
	n.Name = CUDNNetworkName(c.Name)
	return n, errs
}

// ValidateUDNUpdate checks an update of old to u: u must be valid and its
// spec unchanged (the spec is immutable: pods attached to the network
// would otherwise silently run on a stale definition).
func ValidateUDNUpdate(old, u *UserDefinedNetwork) field.ErrorList {
	errs := ValidateUDN(u)
	if old != nil && u != nil && !equality.Semantic.DeepEqual(old.Spec, u.Spec) {
		errs = append(errs, field.Forbidden(field.NewPath("spec"), "Spec is immutable; delete and recreate the UserDefinedNetwork to change it"))
	}
	return errs
}

// ValidateCUDNUpdate checks an update of old to c: c must be valid and its
// template and VRF unchanged. The namespace selector may change.
func ValidateCUDNUpdate(old, c *ClusterUserDefinedNetwork) field.ErrorList {
	errs := ValidateCUDN(c)
	if old == nil || c == nil {
		return errs
	}
	spec := field.NewPath("spec")
	if !equality.Semantic.DeepEqual(old.Spec.Template, c.Spec.Template) {
		errs = append(errs, field.Forbidden(spec.Child("template"), "the network template is immutable; create a new ClusterUserDefinedNetwork instead"))
	}
	if old.Spec.VRF != c.Spec.VRF {
		errs = append(errs, field.Forbidden(spec.Child("vrf"), "vrf is immutable"))
	}
	return errs
}
