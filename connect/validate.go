package connect

import (
	"net/netip"
	"slices"
	"strings"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/udnkit/udnkit/internal/kubename"
	"github.com/udnkit/udnkit/ipam"
)

// Limits of the API (the seed's kubebuilder markers).
const (
	MaxNetworkSelectors = 5
	MaxConnectSubnets   = 2
	MaxConnectivity     = 2
	MaxCIDRLength       = 43
)

// Messages of the seed's CEL rules, as the API server reports them.
const (
	msgOnlyUDNs          = "Only ClusterUserDefinedNetworks or PrimaryUserDefinedNetworks can be selected"
	msgFamilies          = "When 2 CIDRs are set, they must be from different IP families"
	msgNetworkAddress    = "CIDR must be a valid network address"
	msgPrefixLonger      = "networkPrefix must be smaller than CIDR subnet"
	msgPrefixIPv4        = "networkPrefix must < 32 for ipv4 CIDR"
	msgDuplicateConnType = "connectivityEnabled cannot contain duplicate values"
	msgImmutable         = "connectSubnets is immutable"
)

// Validate checks c as the API server would with the seed's CRD: every
// kubebuilder marker and CEL rule of ClusterNetworkConnect. What needs the
// cluster (overlaps with networks, other connects, exhaustion) is Accept's.
func Validate(c *ClusterNetworkConnect) (out field.ErrorList) {
	defer func() { kubename.Bound(out) }()
	if c == nil {
		return field.ErrorList{field.Required(field.NewPath(Kind), "nil object")}
	}
	var errs field.ErrorList
	if c.Name == "" {
		errs = append(errs, field.Required(field.NewPath("metadata", "name"), ""))
	} else {
		for _, msg := range kubename.IsDNS1123Subdomain(c.Name) {
			errs = append(errs, field.Invalid(field.NewPath("metadata", "name"), c.Name, msg))
		}
	}
	if c.Namespace != "" {
		errs = append(errs, field.Invalid(field.NewPath("metadata", "namespace"), c.Namespace, "a ClusterNetworkConnect is cluster-scoped"))
	}
	spec := field.NewPath("spec")
	errs = append(errs, validateSelectors(c.Spec.NetworkSelectors, spec.Child("networkSelectors"))...)
	errs = append(errs, validateConnectSubnets(c.Spec.ConnectSubnets, spec.Child("connectSubnets"))...)
	errs = append(errs, validateConnectivity(c.Spec.ConnectivityEnabled, spec.Child("connectivityEnabled"))...)
	// status.status is an enum in the seed's CRD.
	if s := c.Status.Status; s != "" && s != Success && s != Failure {
		errs = append(errs, field.NotSupported(field.NewPath("status", "status"), s, []string{string(Success), string(Failure)}))
	}
	return errs
}

// ValidateUpdate checks an update from old to c: c must be valid and its
// connectSubnets unchanged.
func ValidateUpdate(old, c *ClusterNetworkConnect) field.ErrorList {
	errs := Validate(c)
	if old != nil && c != nil && !apiequality.Semantic.DeepEqual(old.Spec.ConnectSubnets, c.Spec.ConnectSubnets) {
		errs = append(errs, field.Invalid(field.NewPath("spec", "connectSubnets"), c.Spec.ConnectSubnets, msgImmutable))
	}
	return errs
}

var selectionTypes = []string{string(DefaultNetwork), string(ClusterUserDefinedNetworks), string(PrimaryUserDefinedNetworks),
	string(SecondaryUserDefinedNetworks), string(NetworkAttachmentDefinitions)}

func validateSelectors(sels []NetworkSelector, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	switch {
	case len(sels) == 0:
		return field.ErrorList{field.Required(path, "at least one network selector is required")}
	case len(sels) > MaxNetworkSelectors:
		errs = append(errs, field.TooMany(path, len(sels), MaxNetworkSelectors))
	}
	seen := map[NetworkSelectionType]bool{}
	other := false
	for i, s := range sels {
		at := path.Index(i)
		t := s.NetworkSelectionType
		typePath := at.Child("networkSelectionType")
		switch {
		case t == "":
			errs = append(errs, field.Required(typePath, ""))
		case !slices.Contains(selectionTypes, string(t)):
			errs = append(errs, field.NotSupported(typePath, t, selectionTypes))
		case seen[t]:
			errs = append(errs, field.Duplicate(typePath, t))
		}
		seen[t] = true
		if t != ClusterUserDefinedNetworks && t != PrimaryUserDefinedNetworks {
			other = true
		}
		// The union's members must agree with its discriminator.
		for _, m := range []struct {
			typ   NetworkSelectionType
			field string
			set   bool
		}{
			{ClusterUserDefinedNetworks, "clusterUserDefinedNetworkSelector", s.ClusterUserDefinedNetworkSelector != nil},
			{PrimaryUserDefinedNetworks, "primaryUserDefinedNetworkSelector", s.PrimaryUserDefinedNetworkSelector != nil},
			{SecondaryUserDefinedNetworks, "secondaryUserDefinedNetworkSelector", s.SecondaryUserDefinedNetworkSelector != nil},
			{NetworkAttachmentDefinitions, "networkAttachmentDefinitionSelector", s.NetworkAttachmentDefinitionSelector != nil},
		} {
			if t != "" && m.set != (t == m.typ) {
				errs = append(errs, field.Invalid(at, t, "Inconsistent selector: both networkSelectionType "+string(m.typ)+
					" and "+m.field+" have to be set or neither"))
			}
		}
		if x := s.ClusterUserDefinedNetworkSelector; x != nil {
			errs = append(errs, validateLabelSelector(&x.NetworkSelector, at.Child("clusterUserDefinedNetworkSelector", "networkSelector"))...)
		}
		if x := s.PrimaryUserDefinedNetworkSelector; x != nil {
			errs = append(errs, validateLabelSelector(&x.NamespaceSelector, at.Child("primaryUserDefinedNetworkSelector", "namespaceSelector"))...)
		}
	}
	if other {
		errs = append(errs, field.Invalid(field.NewPath("spec"), "networkSelectors", msgOnlyUDNs))
	}
	return errs
}

func validateLabelSelector(s *metav1.LabelSelector, path *field.Path) field.ErrorList {
	if _, err := kubename.SelectorAsSelector(s); err != nil {
		return field.ErrorList{field.Invalid(path, s.String(), err.Error())}
	}
	return nil
}

// ParseCIDR parses a connect subnet's CIDR, which must be a network address
// of at most MaxCIDRLength characters.
func ParseCIDR(c CIDR) (netip.Prefix, bool) {
	if len(c) > MaxCIDRLength || strings.TrimSpace(string(c)) != string(c) {
		return netip.Prefix{}, false
	}
	p, err := netip.ParsePrefix(string(c))
	if err != nil || p.Masked() != p || p.Addr().Zone() != "" {
		return netip.Prefix{}, false
	}
	return p, true
}

func validateConnectSubnets(subnets []ConnectSubnet, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	switch {
	case len(subnets) == 0:
		return field.ErrorList{field.Required(path, "at least one connect subnet is required")}
	case len(subnets) > MaxConnectSubnets:
		errs = append(errs, field.TooMany(path, len(subnets), MaxConnectSubnets))
	}
	var parsed []netip.Prefix
	for i, s := range subnets {
		at := path.Index(i)
		if len(s.CIDR) > MaxCIDRLength {
			errs = append(errs, field.TooLong(at.Child("cidr"), "", MaxCIDRLength))
		}
		p, ok := ParseCIDR(s.CIDR)
		if !ok {
			errs = append(errs, field.Invalid(at.Child("cidr"), s.CIDR, msgNetworkAddress))
		}
		np := at.Child("networkPrefix")
		switch {
		case s.NetworkPrefix < 1:
			errs = append(errs, field.Invalid(np, s.NetworkPrefix, "should be greater than or equal to 1"))
		case s.NetworkPrefix > 127:
			errs = append(errs, field.Invalid(np, s.NetworkPrefix, "should be less than or equal to 127"))
		}
		if !ok {
			continue
		}
		parsed = append(parsed, p)
		if r, ok := reservedOverlap(p); ok {
			errs = append(errs, field.Invalid(at.Child("cidr"), s.CIDR, "must not overlap "+r.prefix.String()+" ("+r.what+")"))
		}
		if int(s.NetworkPrefix) <= p.Bits() {
			errs = append(errs, field.Invalid(at, s.NetworkPrefix, msgPrefixLonger))
		}
		if p.Addr().Is4() && s.NetworkPrefix >= 32 {
			errs = append(errs, field.Invalid(at, s.NetworkPrefix, msgPrefixIPv4))
		}
	}
	if len(subnets) == 2 && len(parsed) == 2 && parsed[0].Addr().Is4() == parsed[1].Addr().Is4() {
		errs = append(errs, field.Invalid(path, subnets, msgFamilies))
	}
	return errs
}

// reservedRange is a range a connect subnet may not take, and what it is.
type reservedRange struct {
	prefix netip.Prefix
	what   string
}

// reserved are the ranges a connect subnet may not take: special-purpose
// addresses no router port can use (this network, loopback, link-local,
// multicast, the reserved class E, IPv4-compatible and IPv4-mapped) and
// the default network's join subnets, which every node's gateway router
// already routes.
var reserved = func() []reservedRange {
	var out []reservedRange
	for _, r := range [][2]string{{"0.0.0.0/8", "this network"}, {"127.0.0.0/8", "loopback"}, {"169.254.0.0/16", "link-local"},
		{"224.0.0.0/4", "multicast"}, {"240.0.0.0/4", "reserved"}, {"::/96", "unspecified, loopback and IPv4-compatible"},
		{"::ffff:0:0/96", "IPv4-mapped"}, {"fe80::/10", "link-local"}, {"ff00::/8", "multicast"}} {
		out = append(out, reservedRange{netip.MustParsePrefix(r[0]), r[1]})
	}
	for _, p := range ipam.DefaultNetworkJoinSubnets() {
		out = append(out, reservedRange{p, "the default network's join subnet"})
	}
	return out
}()

// reservedOverlap returns the reserved range p overlaps, if any.
func reservedOverlap(p netip.Prefix) (reservedRange, bool) {
	for _, r := range reserved {
		if r.prefix.Overlaps(p) {
			return r, true
		}
	}
	return reservedRange{}, false
}

var connectivityTypes = []string{string(PodNetwork), string(ClusterIPServiceNetwork)}

func validateConnectivity(types []ConnectivityType, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	switch {
	case len(types) == 0:
		return field.ErrorList{field.Required(path, "at least one connectivity type is required")}
	case len(types) > MaxConnectivity:
		errs = append(errs, field.TooMany(path, len(types), MaxConnectivity))
	}
	dup := false
	for i, t := range types {
		if !slices.Contains(connectivityTypes, string(t)) {
			errs = append(errs, field.NotSupported(path.Index(i), t, connectivityTypes))
		}
		dup = dup || slices.Index(types, t) != i
	}
	if dup {
		errs = append(errs, field.Invalid(path, types, msgDuplicateConnType))
	}
	return errs
}

// Has reports whether c enables connectivity type t.
func (s *ClusterNetworkConnectSpec) Has(t ConnectivityType) bool {
	return slices.Contains(s.ConnectivityEnabled, t)
}
