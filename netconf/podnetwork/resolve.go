package podnetwork

import (
	"slices"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/udnkit/udnkit/internal/kubename"
	"github.com/udnkit/udnkit/netconf"
)

// The parametersRef that points a PodNetwork (or PodNetworkAttachment) at
// a NetworkAttachmentDefinition, the object OVN-Kubernetes consumes. The
// KEP's examples write the resource ("network-attachment-definitions");
// the Kind spelling is accepted too.
const (
	NADGroup    = "k8s.cni.cncf.io"
	NADResource = "network-attachment-definitions"
	NADKind     = "NetworkAttachmentDefinition"
)

// IsNADRef reports whether r points at a NetworkAttachmentDefinition.
func IsNADRef(r ParametersRef) bool {
	return r.Group == NADGroup && (r.Kind == NADResource || r.Kind == NADKind)
}

// Attachment is one of a pod's networks resolved for OVN-Kubernetes.
type Attachment struct {
	// Index is the network's position in spec.networks.
	Index int
	// PodNetwork is the PodNetwork attached: the one named, or the
	// PodNetworkAttachment's.
	PodNetwork string
	// PodNetworkAttachment is the attachment named, "" for a PodNetwork
	// named directly.
	PodNetworkAttachment string
	InterfaceName        string
	IsDefaultGW4         bool
	IsDefaultGW6         bool
	// NADs are the NAD keys ("<namespace>/<name>", sorted) the network
	// resolves to, or [netconf.DefaultNetworkKey] for the cluster default
	// network; the keys of netconf.PodNetworks.
	NADs []string
}

// Resolve maps a pod's networks (after SetPodDefaults) onto the NADs
// OVN-Kubernetes attaches: a network's NADs are the NAD parametersRefs of
// its PodNetworkAttachment when it has any, else of its PodNetwork; a
// reference without namespace means the pod's namespace (where OVN-K puts
// a CUDN's NADs). The "default" PodNetwork without NAD references is the
// cluster default network (netconf.DefaultNetworkKey). A missing object
// (a PodNetworkAttachment, or the PodNetwork named or attached), another
// PodNetwork without NAD references, or a NAD reference that is
// not a valid object name is an error at the network's path. Readiness is
// not checked (ValidatePodActive does). Attachments are in spec order.
func Resolve(p *PodNetworks, objects Lookup) (_ []Attachment, bounded field.ErrorList) {
	defer func() { kubename.Bound(bounded) }()
	if p == nil {
		return nil, field.ErrorList{field.Required(field.NewPath("metadata"), "pod is nil")}
	}
	var errs field.ErrorList
	var out []Attachment
	networks := field.NewPath("spec", "networks")
	for i, n := range p.Networks {
		at := networks.Index(i)
		a := Attachment{Index: i, InterfaceName: n.InterfaceName, IsDefaultGW4: n.IsDefaultGW4, IsDefaultGW6: n.IsDefaultGW6}
		var refs []ParametersRef
		var path *field.Path
		var refsOf string
		switch {
		case n.PodNetworkAttachmentName != "":
			path = at.Child("podNetworkAttachmentName")
			pna := objects.PodNetworkAttachment(p.Namespace, n.PodNetworkAttachmentName)
			if pna == nil {
				errs = append(errs, field.NotFound(path, p.Namespace+"/"+n.PodNetworkAttachmentName))
				continue
			}
			a.PodNetworkAttachment, a.PodNetwork = pna.Name, pna.Spec.PodNetworkName
			refs, refsOf = pna.Spec.ParametersRefs, KindPodNetworkAttachment+" "+pna.Namespace+"/"+pna.Name
			if !slices.ContainsFunc(refs, IsNADRef) {
				refs = nil
			}
		case n.PodNetworkName != "":
			path = at.Child("podNetworkName")
			a.PodNetwork = n.PodNetworkName
		default:
			errs = append(errs, field.Required(at.Child("podNetworkName"), "set exactly one of podNetworkName and podNetworkAttachmentName"))
			continue
		}
		pn := objects.PodNetwork(a.PodNetwork)
		if pn == nil {
			errs = append(errs, field.NotFound(path, a.PodNetwork))
			continue
		}
		if refs == nil {
			refs, refsOf = pn.Spec.ParametersRefs, KindPodNetwork+" "+pn.Name
		}
		nadErrs := len(errs)
		for _, r := range refs {
			if !IsNADRef(r) {
				continue
			}
			ns := r.Namespace
			if ns == "" {
				ns = p.Namespace
			}
			for _, msg := range kubename.NamespacedNameErrors(ns, r.Name) {
				errs = append(errs, field.Invalid(path, ns+"/"+r.Name, refsOf+" names a NAD that cannot exist: "+msg))
			}
			a.NADs = append(a.NADs, ns+"/"+r.Name)
		}
		if len(errs) > nadErrs {
			continue
		}
		if len(a.NADs) == 0 {
			if a.PodNetwork != DefaultPodNetworkName {
				errs = append(errs, field.Invalid(path, a.PodNetwork, refsOf+" has no parametersRefs of group "+NADGroup+", kind "+NADResource+": OVN-Kubernetes has no network to attach"))
				continue
			}
			a.NADs = []string{netconf.DefaultNetworkKey}
		}
		slices.Sort(a.NADs)
		a.NADs = slices.Compact(a.NADs)
		out = append(out, a)
	}
	return out, errs
}

// NADKeys returns the NAD keys of attachments, sorted and without repeats.
func NADKeys(attachments []Attachment) []string {
	var keys []string
	for _, a := range attachments {
		keys = append(keys, a.NADs...)
	}
	slices.Sort(keys)
	return slices.Compact(keys)
}

// PodIPs returns the KEP's status.podIPs of a pod from its pod-networks
// annotation: for each attachment, in order, the first address of each IP
// family found on its NADs (the KEP allows one per family per PodNetwork),
// named after the attachment's PodNetwork and interface. NADs missing from
// the annotation are skipped.
func PodIPs(attachments []Attachment, annotation netconf.PodNetworks) []PodIP {
	var out []PodIP
	for _, a := range attachments {
		var have4, have6 bool
		for _, key := range a.NADs {
			for _, pr := range annotation[key].IPs {
				addr := pr.Addr().Unmap()
				if addr.Is4() && have4 || !addr.Is4() && have6 {
					continue
				}
				have4, have6 = have4 || addr.Is4(), have6 || !addr.Is4()
				out = append(out, PodIP{IP: addr.String(), PodNetworkName: a.PodNetwork, InterfaceName: a.InterfaceName})
			}
		}
	}
	return out
}
