package kube

import (
	"fmt"
	"net/netip"
	"strings"

	egressipkube "github.com/udnkit/udnkit/topology/egressip/kube"
	"github.com/udnkit/udnkit/topology/egressqos"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"
)

// Group, version and kind of the EgressQoS custom resource.
const (
	Group    = "k8s.ovn.org"
	Version  = "v1"
	Kind     = "EgressQoS"
	ListKind = "EgressQoSList"
)

// EgressQoS is the k8s.ovn.org/v1 EgressQoS custom resource (namespaced;
// only the one named "default" is acted on). The kubebuilder markers give
// its CRD (package crds); the CEL rules repeat EgressQoSFrom's checks with
// its messages.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:path=egressqoses,singular=egressqos
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Status",type=string,JSONPath=".status.status"
type EgressQoS struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              EgressQoSSpec `json:"spec"`
	// +optional
	Status EgressQoSStatus `json:"status,omitempty"`
}

// EgressQoSSpec is an EgressQoS's spec.
type EgressQoSSpec struct {
	// Egress are the rules, the first matching one marking the traffic.
	// +kubebuilder:validation:MaxItems=1000
	Egress []EgressQoSRule `json:"egress"`
}

// EgressQoSRule is one rule.
type EgressQoSRule struct {
	// DSCP is the value the matching traffic is marked with.
	// +kubebuilder:validation:XValidation:rule="self >= 0 && self <= 63",message="must be in 0..63"
	DSCP int `json:"dscp"`
	// DstCIDR limits the rule to traffic to this CIDR; all traffic when
	// unset.
	// +optional
	// +kubebuilder:validation:MaxLength=43
	// +kubebuilder:validation:XValidation:rule="isCIDR(self) && cidr(self) == cidr(self).masked()",message="not a CIDR without host bits"
	DstCIDR *string `json:"dstCIDR,omitempty"`
	// PodSelector limits the rule to the namespace's pods it selects; all
	// of them when unset.
	// +optional
	PodSelector *metav1.LabelSelector `json:"podSelector,omitempty"`
}

// EgressQoSStatus is an EgressQoS's status: the cluster manager's summary
// and each zone's condition.
type EgressQoSStatus struct {
	// Status is MessageApplied or MessageFailed (Summary).
	// +optional
	Status string `json:"status,omitempty"`
	// Conditions are the zones' Ready-In-Zone-<zone> conditions.
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// EgressQoSList is a list of EgressQoSes.
//
// +kubebuilder:object:root=true
type EgressQoSList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []EgressQoS `json:"items"`
}

// Condition reasons and messages, as the reference writes them.
const (
	MessageApplied       = "EgressQoS Rules applied"
	MessageFailed        = "EgressQoS Rules not correctly applied"
	ReasonSetupSucceeded = "SetupSucceeded"
	ReasonSetupFailed    = "SetupFailed"
)

// Decode decodes an EgressQoS from YAML or JSON.
func Decode(data []byte) (*EgressQoS, error) {
	var q EgressQoS
	if err := yaml.UnmarshalStrict(data, &q); err != nil {
		return nil, fmt.Errorf("egressqos: %w: %v", egressqos.ErrInvalid, err)
	}
	if q.Kind != "" && q.Kind != Kind || q.APIVersion != "" && q.APIVersion != Group+"/"+Version {
		return nil, fmt.Errorf("egressqos %s/%s: %w: apiVersion %q kind %q, want %s/%s %s", q.Namespace, q.Name, egressqos.ErrInvalid, q.APIVersion, q.Kind, Group, Version, Kind)
	}
	return &q, nil
}

// EgressQoSFrom returns the planner's EgressQoS of q; ok is false for an
// EgressQoS not named "default", which the reference ignores. Errors name
// the field and wrap egressqos.ErrInvalid.
func EgressQoSFrom(q *EgressQoS) (out egressqos.EgressQoS, ok bool, err error) {
	if q.Name != egressqos.Name {
		return egressqos.EgressQoS{}, false, nil
	}
	out.Namespace = q.Namespace
	var errs field.ErrorList
	if q.Namespace == "" {
		errs = append(errs, field.Required(field.NewPath("metadata", "namespace"), ""))
	}
	rules := field.NewPath("spec", "egress")
	if len(q.Spec.Egress) > egressqos.MaxRules {
		errs = append(errs, field.TooMany(rules, len(q.Spec.Egress), egressqos.MaxRules))
	} else {
		for i, r := range q.Spec.Egress {
			p := rules.Index(i)
			rule := egressqos.Rule{DSCP: r.DSCP}
			if r.DSCP < 0 || r.DSCP > egressqos.MaxDSCP {
				errs = append(errs, field.Invalid(p.Child("dscp"), r.DSCP, "must be in 0..63"))
			}
			if r.DstCIDR != nil {
				c, perr := netip.ParsePrefix(*r.DstCIDR)
				if perr != nil || c.Addr().Zone() != "" || c != c.Masked() {
					errs = append(errs, field.Invalid(p.Child("dstCIDR"), *r.DstCIDR, "not a CIDR without host bits"))
				}
				rule.DstCIDR = c
			}
			if r.PodSelector != nil {
				s, serrs := egressipkube.SelectorFrom(r.PodSelector, p.Child("podSelector"))
				errs = append(errs, serrs...)
				rule.PodSelector = &s
			}
			out.Rules = append(out.Rules, rule)
		}
	}
	if len(errs) > 0 {
		return egressqos.EgressQoS{}, true, fmt.Errorf("egressqos %s/%s: %w: %w", q.Namespace, q.Name, egressqos.ErrInvalid, errs.ToAggregate())
	}
	return out, true, nil
}

// Condition returns the zone's status condition, as the reference's zone
// controller writes it (server-side apply, field manager = the zone):
// "Ready-In-Zone-<zone>", True with SetupSucceeded, or False with
// SetupFailed and the error.
func Condition(zone string, generation int64, err error) metav1.Condition {
	c := metav1.Condition{Type: "Ready-In-Zone-" + zone, ObservedGeneration: generation,
		Status: metav1.ConditionTrue, Reason: ReasonSetupSucceeded, Message: MessageApplied}
	if err != nil {
		c.Status, c.Reason, c.Message = metav1.ConditionFalse, ReasonSetupFailed, MessageFailed+": "+err.Error()
	}
	return c
}

// Summary returns status.status as the reference's cluster manager sets
// it from the zones' conditions: MessageFailed when a zone failed,
// MessageApplied otherwise ("" when no zone has reported).
func Summary(conditions []metav1.Condition) string {
	if len(conditions) == 0 {
		return ""
	}
	for _, c := range conditions {
		if strings.Contains(c.Message, MessageFailed) {
			return MessageFailed
		}
	}
	return MessageApplied
}
