package podnetwork

import (
	"fmt"
	"net/netip"
	"strconv"

	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/udnkit/udnkit/internal/kubename"
	"github.com/udnkit/udnkit/internal/names"
	"github.com/udnkit/udnkit/internal/netdev"
)

// Bounds from the KEP's API.
const (
	// MaxProviderLen is the longest spec.provider.
	MaxProviderLen = 253
	// MaxConditions is the most status conditions an object may carry.
	MaxConditions = 5
	// MaxInterfaceNameLen is the longest Linux interface name (IFNAMSIZ-1).
	MaxInterfaceNameLen = netdev.MaxName
	// MaxParametersRefs is the most parametersRefs an object may carry, and
	// MaxRefFieldLen the longest group, kind and name of one: bounds the
	// KEP does not set, which the CRD needs to price its CEL rules.
	MaxParametersRefs = 16
	MaxRefFieldLen    = 253
)

// ValidatePodNetwork checks a PodNetwork: metadata (a name, no namespace),
// provider, parametersRefs and the number of conditions.
func ValidatePodNetwork(pn *PodNetwork) (out field.ErrorList) {
	defer func() { kubename.Bound(out) }()
	if pn == nil {
		return field.ErrorList{field.Required(field.NewPath("metadata"), "PodNetwork is nil")}
	}
	errs := kubename.ValidateMeta(&pn.ObjectMeta, KindPodNetwork, false, "")
	spec := field.NewPath("spec")
	if p := pn.Spec.Provider; p != "" {
		if len(p) > MaxProviderLen {
			errs = append(errs, field.TooLong(spec.Child("provider"), "", MaxProviderLen))
		} else if msg := tokenError(p); msg != "" {
			errs = append(errs, field.Invalid(spec.Child("provider"), p, msg))
		}
	}
	errs = append(errs, validateRefs(pn.Spec.ParametersRefs, spec.Child("parametersRefs"))...)
	errs = append(errs, validateConditions(pn.Status.Conditions, field.NewPath("status", "conditions"))...)
	return errs
}

// ValidatePodNetworkAttachment checks a PodNetworkAttachment: metadata (a
// name and a namespace), podNetworkName, parametersRefs and the number of
// conditions.
func ValidatePodNetworkAttachment(pna *PodNetworkAttachment) (out field.ErrorList) {
	defer func() { kubename.Bound(out) }()
	if pna == nil {
		return field.ErrorList{field.Required(field.NewPath("metadata"), "PodNetworkAttachment is nil")}
	}
	errs := kubename.ValidateMeta(&pna.ObjectMeta, KindPodNetworkAttachment, true, "a "+KindPodNetworkAttachment+" lives in the namespace of its pods")
	spec := field.NewPath("spec")
	errs = append(errs, kubename.ValidateObjectName(pna.Spec.PodNetworkName, spec.Child("podNetworkName"), "the PodNetwork to attach to is required")...)
	errs = append(errs, validateRefs(pna.Spec.ParametersRefs, spec.Child("parametersRefs"))...)
	errs = append(errs, validateConditions(pna.Status.Conditions, field.NewPath("status", "conditions"))...)
	return errs
}

// ValidatePodNetworkUpdate checks an update of old to pn: pn must be valid
// and only spec.enabled may change.
func ValidatePodNetworkUpdate(old, pn *PodNetwork) field.ErrorList {
	errs := ValidatePodNetwork(pn)
	if old == nil || pn == nil {
		return errs
	}
	spec := field.NewPath("spec")
	if old.Spec.Provider != pn.Spec.Provider {
		errs = append(errs, field.Forbidden(spec.Child("provider"), "immutable: only spec.enabled of a PodNetwork may change"))
	}
	if !equality.Semantic.DeepEqual(old.Spec.ParametersRefs, pn.Spec.ParametersRefs) {
		errs = append(errs, field.Forbidden(spec.Child("parametersRefs"), "immutable: only spec.enabled of a PodNetwork may change"))
	}
	return errs
}

// ValidatePodNetworkAttachmentUpdate checks an update of old to pna: pna
// must be valid and its spec unchanged.
func ValidatePodNetworkAttachmentUpdate(old, pna *PodNetworkAttachment) field.ErrorList {
	errs := ValidatePodNetworkAttachment(pna)
	if old != nil && pna != nil && !equality.Semantic.DeepEqual(old.Spec, pna.Spec) {
		errs = append(errs, field.Forbidden(field.NewPath("spec"), "a PodNetworkAttachment is immutable; delete and recreate it"))
	}
	return errs
}

// ValidatePod runs the KEP's static checks on a pod (after SetPodDefaults):
// each network names exactly one PodNetwork or PodNetworkAttachment; a
// PodNetwork or PodNetworkAttachment is listed once; one network at most
// holds each default gateway; interface names are valid and unique;
// networks are forbidden with hostNetwork and required without it; and
// status.podIPs hold valid addresses, one per family per PodNetwork.
func ValidatePod(p *PodNetworks) (out field.ErrorList) {
	defer func() { kubename.Bound(out) }()
	if p == nil {
		return field.ErrorList{field.Required(field.NewPath("metadata"), "pod is nil")}
	}
	var errs field.ErrorList
	networks := field.NewPath("spec", "networks")
	switch {
	case p.HostNetwork && len(p.Networks) > 0:
		return field.ErrorList{field.Forbidden(networks, "may not be set when spec.hostNetwork is true")}
	case !p.HostNetwork && len(p.Networks) == 0:
		errs = append(errs, field.Required(networks, "a pod must be attached to at least one PodNetwork (SetPodDefaults attaches it to \"default\")"))
	}
	byNetwork := map[string]int{}
	byAttachment := map[string]int{}
	byInterface := map[string]int{}
	gw4, gw6 := -1, -1
	for i, n := range p.Networks {
		at := networks.Index(i)
		switch {
		case n.PodNetworkName == "" && n.PodNetworkAttachmentName == "":
			errs = append(errs, field.Required(at.Child("podNetworkName"), "set exactly one of podNetworkName and podNetworkAttachmentName"))
		case n.PodNetworkName != "" && n.PodNetworkAttachmentName != "":
			errs = append(errs, field.Forbidden(at.Child("podNetworkAttachmentName"), "may not be set with podNetworkName: set exactly one of them"))
		case n.PodNetworkName != "":
			errs = append(errs, kubename.ValidateObjectName(n.PodNetworkName, at.Child("podNetworkName"), "")...)
			if j, ok := byNetwork[n.PodNetworkName]; ok {
				e := field.Duplicate(at.Child("podNetworkName"), n.PodNetworkName)
				e.Detail = "PodNetwork already attached by " + networks.Index(j).String() + ": a pod references a PodNetwork once"
				errs = append(errs, e)
			} else {
				byNetwork[n.PodNetworkName] = i
			}
		default:
			errs = append(errs, kubename.ValidateObjectName(n.PodNetworkAttachmentName, at.Child("podNetworkAttachmentName"), "")...)
			if j, ok := byAttachment[n.PodNetworkAttachmentName]; ok {
				e := field.Duplicate(at.Child("podNetworkAttachmentName"), n.PodNetworkAttachmentName)
				e.Detail = "PodNetworkAttachment already attached by " + networks.Index(j).String()
				errs = append(errs, e)
			} else {
				byAttachment[n.PodNetworkAttachmentName] = i
			}
		}
		if n.InterfaceName != "" {
			ifn := at.Child("interfaceName")
			if msg := interfaceNameError(n.InterfaceName); msg != "" {
				errs = append(errs, field.Invalid(ifn, n.InterfaceName, msg))
			} else if j, ok := byInterface[n.InterfaceName]; ok {
				e := field.Duplicate(ifn, n.InterfaceName)
				e.Detail = "interface name already used by " + networks.Index(j).String()
				errs = append(errs, e)
			} else {
				byInterface[n.InterfaceName] = i
			}
		}
		if n.IsDefaultGW4 {
			if gw4 >= 0 {
				errs = append(errs, field.Invalid(at.Child("isDefaultGW4"), true,
					"only one network may hold the IPv4 default gateway; "+networks.Index(gw4).String()+" does"))
			} else {
				gw4 = i
			}
		}
		if n.IsDefaultGW6 {
			if gw6 >= 0 {
				errs = append(errs, field.Invalid(at.Child("isDefaultGW6"), true,
					"only one network may hold the IPv6 default gateway; "+networks.Index(gw6).String()+" does"))
			} else {
				gw6 = i
			}
		}
	}
	errs = append(errs, validatePodIPs(p.PodIPs, field.NewPath("status", "podIPs"))...)
	return errs
}

// validatePodIPs: each IP parses, names its PodNetwork, and a PodNetwork
// has one address per family.
func validatePodIPs(ips []PodIP, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	type famKey struct {
		network string
		v6      bool
	}
	seen := map[famKey]int{}
	for i, ip := range ips {
		at := path.Index(i)
		a, err := netip.ParseAddr(ip.IP)
		if err != nil || a.Zone() != "" {
			errs = append(errs, field.Invalid(at.Child("ip"), ip.IP, "must be an IPv4 or IPv6 address"))
			continue
		}
		if ip.InterfaceName != "" {
			if msg := interfaceNameError(ip.InterfaceName); msg != "" {
				errs = append(errs, field.Invalid(at.Child("interfaceName"), ip.InterfaceName, msg))
			}
		}
		if ip.PodNetworkName == "" {
			continue // a pod's plain status.podIPs: no network named
		}
		errs = append(errs, kubename.ValidateObjectName(ip.PodNetworkName, at.Child("podNetwork"), "")...)
		k := famKey{ip.PodNetworkName, !a.Unmap().Is4()}
		if j, ok := seen[k]; ok {
			e := field.Duplicate(at.Child("ip"), ip.IP)
			family := "IPv4"
			if k.v6 {
				family = "IPv6"
			}
			e.Detail = fmt.Sprintf("PodNetwork %q already has an %s address at %s: one per family per PodNetwork", ip.PodNetworkName, family, path.Index(j))
			errs = append(errs, e)
		} else {
			seen[k] = i
		}
	}
	return errs
}

// interfaceNameError applies the Linux rules (the kernel's dev_valid_name
// and IFNAMSIZ): 1..15 bytes, not "." or "..", and printable ASCII without
// '/', ':' or blanks. The KEP also names Windows rules; they are not
// checked (OVN-Kubernetes pods run Linux). Returns "" for a valid name.
func interfaceNameError(name string) string {
	if len(name) > MaxInterfaceNameLen {
		return "must be at most " + strconv.Itoa(MaxInterfaceNameLen) + " bytes (a Linux interface name)"
	}
	return names.NetdevError(name, "a Linux interface name")
}

// tokenError refuses blanks and control characters in a URL-like value.
func tokenError(s string) string {
	if names.UnsafeByte(s) >= 0 {
		return "must not contain blanks or control characters (a URL-like name such as foo.io/bar)"
	}
	return ""
}

// validateRefs: group, kind and name are required, the namespace (when
// set) is a namespace name, and a reference appears once.
func validateRefs(refs []ParametersRef, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(refs) > MaxParametersRefs {
		errs = append(errs, field.TooMany(path, len(refs), MaxParametersRefs))
	}
	seen := map[ParametersRef]int{}
	for i, r := range refs {
		at := path.Index(i)
		for _, f := range []struct{ name, value string }{{"group", r.Group}, {"kind", r.Kind}, {"name", r.Name}} {
			if len(f.value) > MaxRefFieldLen {
				errs = append(errs, field.TooLong(at.Child(f.name), "", MaxRefFieldLen))
			} else if f.value == "" {
				errs = append(errs, field.Required(at.Child(f.name), "parametersRefs need group, kind and name"))
			} else if msg := tokenError(f.value); msg != "" {
				errs = append(errs, field.Invalid(at.Child(f.name), f.value, msg))
			}
		}
		if r.Namespace != "" {
			for _, msg := range kubename.IsDNS1123Label(r.Namespace) {
				errs = append(errs, field.Invalid(at.Child("namespace"), r.Namespace, msg))
			}
		}
		if j, ok := seen[r]; ok {
			e := field.Duplicate(at, r.Group+"/"+r.Kind+" "+r.Namespace+"/"+r.Name)
			e.Detail = "same reference as " + path.Index(j).String()
			errs = append(errs, e)
		} else {
			seen[r] = i
		}
	}
	return errs
}

// validateConditions: at most MaxConditions, one per type.
func validateConditions(conds []metav1.Condition, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(conds) > MaxConditions {
		errs = append(errs, field.TooMany(path, len(conds), MaxConditions))
	}
	seen := map[string]bool{}
	for i, c := range conds {
		if seen[c.Type] {
			errs = append(errs, field.Duplicate(path.Index(i).Child("type"), c.Type))
		}
		seen[c.Type] = true
	}
	return errs
}
