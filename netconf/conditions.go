package netconf

import (
	"strconv"

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

// conditionSet accumulates conditions on top of a copy of the existing
// ones (condition.Set) and writes the seeds' NetworkCreated and
// NetworkReady conditions.
type conditionSet struct{ condition.Set }

func newConditionSet(existing []metav1.Condition, now metav1.Time, generation int64) *conditionSet {
	return &conditionSet{*condition.NewSet(existing, now, generation)}
}

func (s *conditionSet) ovn(state OVNNetworkState) {
	switch state {
	case OVNNetworkPending:
		s.Put(ConditionNetworkCreated, metav1.ConditionFalse, ReasonOVNNetworkPending, MessageOVNNetworkPending)
	case OVNNetworkCreated:
		s.Put(ConditionNetworkCreated, metav1.ConditionTrue, ReasonOVNNetworkCreated, MessageOVNNetworkCreated)
	}
}

// failed marks both conditions False: the network cannot be realised.
func (s *conditionSet) failed(reason, message string) {
	s.Put(ConditionNetworkCreated, metav1.ConditionFalse, reason, message)
	s.Put(ConditionNetworkReady, metav1.ConditionFalse, reason, message)
}

// result returns the conditions sorted by type.
func (s *conditionSet) result() []metav1.Condition { return s.Sorted() }
