package netconf

import (
	"slices"
	"strconv"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/udnkit/udnkit/internal/condition"
)

// Condition types published on UDN and CUDN status.
const (
	// ConditionNetworkCreated: the OVN network exists (when the caller
	// knows, see OVNNetworkState) or cannot exist (invalid spec, VRF
	// conflict, no network ID).
	ConditionNetworkCreated = "NetworkCreated"
	// ConditionNetworkReady: the NADs exist in every target namespace.
	ConditionNetworkReady = "NetworkReady"
)

// Condition reasons.
const (
	ReasonNADReady               = "NetworkAttachmentDefinitionReady"
	ReasonNADNotExist            = "NetworkAttachmentDefinitionNotExist"
	ReasonNADDeleted             = "NetworkAttachmentDefinitionDeleted"
	ReasonPrimaryNetworkConflict = "PrimaryNetworkConflict"
	ReasonNetworkNameConflict    = "NetworkNameConflict"
	ReasonInvalidSpec            = "InvalidSpec"
	ReasonVRFConflict            = "VRFConflict"
	ReasonNetworkIDNotAllocated  = "NetworkIDNotAllocated"
	ReasonNetworkInUse           = "NetworkInUse"
	ReasonOVNNetworkCreated      = "OVNNetworkCreated"
	ReasonOVNNetworkPending      = "OVNNetworkPending"
)

// Condition messages with fixed text.
const (
	MessageNADReady          = "NetworkAttachmentDefinition has been created"
	MessageNADDeleted        = "NetworkAttachmentDefinition is being deleted"
	MessageOVNNetworkCreated = "OVN network has been created"
	MessageOVNNetworkPending = "OVN network has not been created yet"
	messageNotProvisioned    = "Not all desired namespaces provisioned with NetworkAttachmentDefinition"
)

// OVNNetworkState is what the caller knows about the OVN side of a network;
// it drives the NetworkCreated condition.
type OVNNetworkState int

// OVN network states. With OVNNetworkUnknown an existing NetworkCreated
// condition is left as it is.
const (
	OVNNetworkUnknown OVNNetworkState = iota
	OVNNetworkPending
	OVNNetworkCreated
)

// String returns the state's name.
func (s OVNNetworkState) String() string {
	switch s {
	case OVNNetworkUnknown:
		return "Unknown"
	case OVNNetworkPending:
		return "Pending"
	case OVNNetworkCreated:
		return "Created"
	}
	return "OVNNetworkState(" + strconv.Itoa(int(s)) + ")"
}

// conditionSet accumulates conditions on top of a copy of the existing ones.
type conditionSet struct {
	conds      []metav1.Condition
	now        metav1.Time
	generation int64
}

func newConditionSet(existing []metav1.Condition, now metav1.Time, generation int64) *conditionSet {
	return &conditionSet{conds: slices.Clone(existing), now: now, generation: generation}
}

// set puts a condition of type t, keeping LastTransitionTime when the
// status did not change.
func (s *conditionSet) set(t string, status metav1.ConditionStatus, reason, message string) {
	s.conds = condition.Put(s.conds, metav1.Condition{Type: t, Status: status, Reason: reason, Message: capMessage(message),
		ObservedGeneration: s.generation, LastTransitionTime: s.now})
}

func (s *conditionSet) ovn(state OVNNetworkState) {
	switch state {
	case OVNNetworkPending:
		s.set(ConditionNetworkCreated, metav1.ConditionFalse, ReasonOVNNetworkPending, MessageOVNNetworkPending)
	case OVNNetworkCreated:
		s.set(ConditionNetworkCreated, metav1.ConditionTrue, ReasonOVNNetworkCreated, MessageOVNNetworkCreated)
	}
}

// failed marks both conditions False: the network cannot be realised.
func (s *conditionSet) failed(reason, message string) {
	s.set(ConditionNetworkCreated, metav1.ConditionFalse, reason, message)
	s.set(ConditionNetworkReady, metav1.ConditionFalse, reason, message)
}

// result returns the conditions sorted by type.
func (s *conditionSet) result() []metav1.Condition {
	slices.SortFunc(s.conds, func(a, b metav1.Condition) int { return strings.Compare(a.Type, b.Type) })
	if len(s.conds) == 0 {
		return nil
	}
	return s.conds
}
