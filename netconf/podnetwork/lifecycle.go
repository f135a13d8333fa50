package podnetwork

import (
	"slices"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"

	"github.com/udnkit/udnkit/netconf"
)

// Finalizer protects a PodNetwork or PodNetworkAttachment in use from
// deletion. The KEP names no finalizer; this is udnkit's.
const Finalizer = "podnetwork.k8s.io/in-use-protection"

// Phase is a lifecycle phase of the KEP.
type Phase int

// Phases. A PodNetworkAttachment is never Disabled.
const (
	// PhaseCreated: no Ready condition yet.
	PhaseCreated Phase = iota
	// PhaseNotReady: Ready is not True; pods referencing it stay Pending.
	PhaseNotReady
	// PhaseReady: Ready is True; pods can attach.
	PhaseReady
	// PhaseInUse: Ready and used by a pod (or, for a PodNetwork, a
	// PodNetworkAttachment); deletion is blocked.
	PhaseInUse
	// PhaseDisabled: the PodNetwork's spec.enabled is false.
	PhaseDisabled
)

// String returns the KEP's name of the phase.
func (p Phase) String() string {
	switch p {
	case PhaseCreated:
		return "Created"
	case PhaseNotReady:
		return "NotReady"
	case PhaseReady:
		return "Ready"
	case PhaseInUse:
		return "InUse"
	case PhaseDisabled:
		return "Disabled"
	}
	return "Phase(" + strconv.Itoa(int(p)) + ")"
}

// PodNetworkPhase returns pn's phase: Disabled when spec.enabled is false,
// else from its Ready condition, InUse when Ready and inUse.
func PodNetworkPhase(pn *PodNetwork, inUse bool) Phase {
	if !pn.Spec.IsEnabled() {
		return PhaseDisabled
	}
	return readyPhase(meta.FindStatusCondition(pn.Status.Conditions, ConditionReady) != nil,
		IsReady(pn.Status.Conditions), inUse)
}

// PodNetworkAttachmentPhase returns pna's phase like PodNetworkPhase.
func PodNetworkAttachmentPhase(pna *PodNetworkAttachment, inUse bool) Phase {
	return readyPhase(meta.FindStatusCondition(pna.Status.Conditions, ConditionReady) != nil,
		IsReady(pna.Status.Conditions), inUse)
}

func readyPhase(hasReady, ready, inUse bool) Phase {
	switch {
	case !hasReady:
		return PhaseCreated
	case !ready:
		return PhaseNotReady
	case inUse:
		return PhaseInUse
	}
	return PhaseReady
}

// Users are the objects using a PodNetwork or PodNetworkAttachment, as
// sorted "<namespace>/<name>" keys.
type Users struct {
	Pods                  []string
	PodNetworkAttachments []string
}

// InUse reports whether anything uses the object.
func (u Users) InUse() bool { return len(u.Pods) > 0 || len(u.PodNetworkAttachments) > 0 }

// terminal reports a pod that no longer uses its networks.
func terminal(p *PodNetworks) bool {
	return p.Phase == corev1.PodSucceeded || p.Phase == corev1.PodFailed
}

// PodNetworkUsers returns the pods naming PodNetwork name directly and the
// PodNetworkAttachments referencing it. Succeeded and Failed pods do not
// count; a pod attached through a PodNetworkAttachment counts for the
// attachment (PodNetworkAttachmentUsers), which counts here.
func PodNetworkUsers(name string, pods []PodNetworks, attachments []*PodNetworkAttachment) Users {
	var u Users
	for i := range pods {
		p := &pods[i]
		if terminal(p) {
			continue
		}
		if slices.ContainsFunc(p.Networks, func(n Network) bool { return n.PodNetworkName == name }) {
			u.Pods = append(u.Pods, p.Key())
		}
	}
	for _, pna := range attachments {
		if pna != nil && pna.Spec.PodNetworkName == name {
			u.PodNetworkAttachments = append(u.PodNetworkAttachments, pna.Namespace+"/"+pna.Name)
		}
	}
	return u.sorted()
}

// PodNetworkAttachmentUsers returns the pods of namespace naming the
// PodNetworkAttachment name; Succeeded and Failed pods do not count.
func PodNetworkAttachmentUsers(namespace, name string, pods []PodNetworks) Users {
	var u Users
	for i := range pods {
		p := &pods[i]
		if terminal(p) || p.Namespace != namespace {
			continue
		}
		if slices.ContainsFunc(p.Networks, func(n Network) bool { return n.PodNetworkAttachmentName == name }) {
			u.Pods = append(u.Pods, p.Key())
		}
	}
	return u.sorted()
}

func (u Users) sorted() Users {
	slices.Sort(u.Pods)
	u.Pods = slices.Compact(u.Pods)
	slices.Sort(u.PodNetworkAttachments)
	u.PodNetworkAttachments = slices.Compact(u.PodNetworkAttachments)
	return u
}

// Finalize decides what to do with Finalizer, as netconf does for UDNs:
// add it to a live object that lacks it (so that a first user is
// protected at once), remove it from a deleted object nothing uses, else
// keep it. deleting is whether the deletionTimestamp is set, hasFinalizer
// whether the object carries Finalizer.
func Finalize(deleting, hasFinalizer bool, users Users) netconf.FinalizerOp {
	switch {
	case deleting && hasFinalizer && !users.InUse():
		return netconf.FinalizerRemove
	case !deleting && !hasFinalizer:
		return netconf.FinalizerAdd
	}
	return netconf.FinalizerKeep
}

// DeletionBlocked reports whether deleting the object must wait: it is in use.
func DeletionBlocked(users Users) bool { return users.InUse() }
