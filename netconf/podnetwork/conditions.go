package podnetwork

import (
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/udnkit/udnkit/internal/condition"
)

// Condition types of PodNetwork and PodNetworkAttachment status.
const (
	// ConditionReady: pods may attach. The controller computes it.
	ConditionReady = "Ready"
	// ConditionParamsReady: the objects in parametersRefs are ready. The
	// implementation owning them sets it; its reasons are its own.
	ConditionParamsReady = "ParamsReady"
)

// Reasons of the Ready condition.
const (
	// ReasonReady is Ready=True's reason (the KEP names none).
	ReasonReady = "Ready"
	// ReasonParamsNotReady: parametersRefs is set and ParamsReady is
	// missing or not True.
	ReasonParamsNotReady = "ParamsNotReady"
	// ReasonAdministrativelyDisabled: the PodNetwork's spec.enabled is false.
	ReasonAdministrativelyDisabled = "AdministrativelyDisabled"
	// ReasonPodNetworkNotReady: a PodNetworkAttachment's PodNetwork is
	// missing or not Ready.
	ReasonPodNetworkNotReady = "PodNetworkNotReady"
)

// ParamsVerdict is an implementation's verdict on the objects in
// parametersRefs, written as the ParamsReady condition.
type ParamsVerdict struct {
	Ready bool
	// Reason is the implementation's (CamelCase); empty gives
	// "ParamsReady" or "ParamsNotReady".
	Reason, Message string
}

// ConditionsInput is what the conditions depend on besides the object.
type ConditionsInput struct {
	// Now stamps LastTransitionTime of a condition whose status changes.
	Now metav1.Time
	// Params, when set, is written as ParamsReady (the caller is the
	// implementation owning parametersRefs); when nil, the object's
	// ParamsReady condition is read and kept.
	Params *ParamsVerdict
}

// PodNetworkConditions returns pn's status conditions: its other
// conditions, ParamsReady (from in.Params) and Ready — False with
// AdministrativelyDisabled when spec.enabled is false, else False with
// ParamsNotReady when parametersRefs is set and ParamsReady is not True,
// else True. Sorted by type, at most MaxConditions, observedGeneration pn's.
func PodNetworkConditions(pn *PodNetwork, in ConditionsInput) []metav1.Condition {
	s := newConditionSet(pn.Status.Conditions, in.Now, pn.Generation)
	paramsOK, paramsMsg := s.params(len(pn.Spec.ParametersRefs) > 0, in.Params)
	switch {
	case !pn.Spec.IsEnabled():
		s.Put(ConditionReady, metav1.ConditionFalse, ReasonAdministrativelyDisabled, "PodNetwork "+pn.Name+" is disabled (spec.enabled is false); no new pods can attach")
	case !paramsOK:
		s.Put(ConditionReady, metav1.ConditionFalse, ReasonParamsNotReady, paramsMsg)
	default:
		s.Put(ConditionReady, metav1.ConditionTrue, ReasonReady, "PodNetwork "+pn.Name+" is ready; pods can attach")
	}
	return s.result()
}

// PodNetworkAttachmentConditions returns pna's status conditions like
// PodNetworkConditions; Ready is False with ParamsNotReady when its
// parametersRefs are not ready, else False with PodNetworkNotReady when
// podNetwork (its spec.podNetworkName; nil when missing) is not Ready, else
// True.
func PodNetworkAttachmentConditions(pna *PodNetworkAttachment, podNetwork *PodNetwork, in ConditionsInput) []metav1.Condition {
	s := newConditionSet(pna.Status.Conditions, in.Now, pna.Generation)
	paramsOK, paramsMsg := s.params(len(pna.Spec.ParametersRefs) > 0, in.Params)
	switch {
	case !paramsOK:
		s.Put(ConditionReady, metav1.ConditionFalse, ReasonParamsNotReady, paramsMsg)
	case podNetwork == nil:
		s.Put(ConditionReady, metav1.ConditionFalse, ReasonPodNetworkNotReady, "PodNetwork "+pna.Spec.PodNetworkName+" not found")
	case !IsReady(podNetwork.Status.Conditions):
		s.Put(ConditionReady, metav1.ConditionFalse, ReasonPodNetworkNotReady, notReadyDetail(KindPodNetwork, podNetwork.Name, podNetwork.Status.Conditions))
	default:
		s.Put(ConditionReady, metav1.ConditionTrue, ReasonReady, "PodNetworkAttachment "+pna.Namespace+"/"+pna.Name+" and PodNetwork "+podNetwork.Name+" are ready; pods can attach")
	}
	return s.result()
}

// conditionSet accumulates conditions on top of a copy of the existing
// ones (condition.Set) and writes ParamsReady.
type conditionSet struct{ condition.Set }

func newConditionSet(existing []metav1.Condition, now metav1.Time, generation int64) *conditionSet {
	return &conditionSet{*condition.NewSet(existing, now, generation)}
}

// params writes ParamsReady from v when given and says whether the
// parameters are ready: always when there are none (the KEP: ParamsNotReady
// only with parametersRefs), else when ParamsReady is True.
func (s *conditionSet) params(hasRefs bool, v *ParamsVerdict) (bool, string) {
	if v != nil && hasRefs {
		st, reason := metav1.ConditionFalse, ReasonParamsNotReady
		if v.Ready {
			st, reason = metav1.ConditionTrue, ConditionParamsReady
		}
		if v.Reason != "" {
			reason = v.Reason
		}
		s.Put(ConditionParamsReady, st, reason, v.Message)
	}
	if !hasRefs {
		return true, ""
	}
	c := meta.FindStatusCondition(s.Conds, ConditionParamsReady)
	switch {
	case c == nil:
		return false, "parametersRefs are set and ParamsReady is not reported yet"
	case c.Status != metav1.ConditionTrue:
		msg := "ParamsReady is " + string(c.Status) + " (" + c.Reason
		if c.Message != "" {
			msg += ": " + c.Message
		}
		return false, msg + ")"
	}
	return true, ""
}

// result sorts the conditions by type, Ready and ParamsReady first when
// more than MaxConditions must be cut.
func (s *conditionSet) result() []metav1.Condition {
	conds := s.Sorted()
	if len(conds) <= MaxConditions {
		return conds
	}
	ours := func(c metav1.Condition) bool { return c.Type == ConditionReady || c.Type == ConditionParamsReady }
	kept := slices.DeleteFunc(slices.Clone(conds), func(c metav1.Condition) bool { return !ours(c) })
	for _, c := range conds {
		if len(kept) < MaxConditions && !ours(c) {
			kept = append(kept, c)
		}
	}
	slices.SortFunc(kept, func(a, b metav1.Condition) int { return strings.Compare(a.Type, b.Type) })
	return kept
}
