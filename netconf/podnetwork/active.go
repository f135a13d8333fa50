package podnetwork

import (
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/udnkit/udnkit/internal/kubename"
)

// Lookup finds the objects a pod's networks name. Implementations return
// nil for an object that does not exist; they must not change what they
// return while a call uses them.
type Lookup interface {
	PodNetwork(name string) *PodNetwork
	PodNetworkAttachment(namespace, name string) *PodNetworkAttachment
}

// Objects is a Lookup over lists held in memory. The zero value finds
// nothing. It is not copied: do not change it while a call uses it.
type Objects struct {
	PodNetworks           []*PodNetwork
	PodNetworkAttachments []*PodNetworkAttachment
}

// PodNetwork returns the PodNetwork called name, or nil.
func (o Objects) PodNetwork(name string) *PodNetwork {
	for _, pn := range o.PodNetworks {
		if pn != nil && pn.Name == name {
			return pn
		}
	}
	return nil
}

// PodNetworkAttachment returns the PodNetworkAttachment namespace/name, or nil.
func (o Objects) PodNetworkAttachment(namespace, name string) *PodNetworkAttachment {
	for _, pna := range o.PodNetworkAttachments {
		if pna != nil && pna.Namespace == namespace && pna.Name == name {
			return pna
		}
	}
	return nil
}

var _ Lookup = Objects{}

// IsReady reports whether conds hold Ready=True.
func IsReady(conds []metav1.Condition) bool {
	return meta.IsStatusConditionTrue(conds, ConditionReady)
}

// notReadyDetail says why an object is not Ready, from its Ready condition.
func notReadyDetail(kind, name string, conds []metav1.Condition) string {
	c := meta.FindStatusCondition(conds, ConditionReady)
	if c == nil {
		return kind + " " + name + " is not Ready yet (no Ready condition); the pod stays Pending"
	}
	d := kind + " " + name + " is not Ready (" + c.Reason
	if c.Message != "" {
		d += ": " + c.Message
	}
	return d + "); the pod stays Pending"
}

// ValidatePodActive runs the KEP's active checks, those that need other
// objects: every PodNetwork and PodNetworkAttachment (in the pod's
// namespace) a network names exists and is Ready, and a
// PodNetworkAttachment's PodNetwork is not also attached by another of the
// pod's networks. Run ValidatePod first; networks it refuses are skipped
// here only when they name nothing.
func ValidatePodActive(p *PodNetworks, objects Lookup) (out field.ErrorList) {
	defer func() { kubename.Bound(out) }()
	if p == nil {
		return field.ErrorList{field.Required(field.NewPath("metadata"), "pod is nil")}
	}
	var errs field.ErrorList
	networks := field.NewPath("spec", "networks")
	attachedBy := map[string]int{} // PodNetwork name -> first network attaching it
	var viaPNA []int
	for i, n := range p.Networks {
		at := networks.Index(i)
		switch {
		case n.PodNetworkName != "":
			path := at.Child("podNetworkName")
			if _, dup := attachedBy[n.PodNetworkName]; !dup {
				attachedBy[n.PodNetworkName] = i
			}
			pn := objects.PodNetwork(n.PodNetworkName)
			switch {
			case pn == nil:
				errs = append(errs, field.NotFound(path, n.PodNetworkName))
			case !IsReady(pn.Status.Conditions):
				errs = append(errs, field.Invalid(path, n.PodNetworkName, notReadyDetail(KindPodNetwork, pn.Name, pn.Status.Conditions)))
			}
		case n.PodNetworkAttachmentName != "":
			viaPNA = append(viaPNA, i)
		}
	}
	// Attachments after direct references, so that a PodNetwork named
	// directly is reported against the attachment whatever the order.
	for _, i := range viaPNA {
		n := p.Networks[i]
		path := networks.Index(i).Child("podNetworkAttachmentName")
		pna := objects.PodNetworkAttachment(p.Namespace, n.PodNetworkAttachmentName)
		if pna == nil {
			errs = append(errs, field.NotFound(path, p.Namespace+"/"+n.PodNetworkAttachmentName))
			continue
		}
		if !IsReady(pna.Status.Conditions) {
			errs = append(errs, field.Invalid(path, n.PodNetworkAttachmentName, notReadyDetail(KindPodNetworkAttachment, pna.Namespace+"/"+pna.Name, pna.Status.Conditions)))
		}
		if j, dup := attachedBy[pna.Spec.PodNetworkName]; dup {
			errs = append(errs, field.Invalid(path, n.PodNetworkAttachmentName,
				"its PodNetwork "+pna.Spec.PodNetworkName+" is already attached by "+networks.Index(j).String()+": a pod references a PodNetwork once"))
		} else {
			attachedBy[pna.Spec.PodNetworkName] = i
		}
	}
	return errs
}
