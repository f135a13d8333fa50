package netconf

import (
	"fmt"
	"slices"
	"strings"

	nadv1 "github.com/k8snetworkplumbingwg/network-attachment-definition-client/pkg/apis/k8s.cni.cncf.io/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/udnkit/udnkit/internal/condition"
	"github.com/udnkit/udnkit/internal/names"
	"github.com/udnkit/udnkit/internal/sdkerr"
)

// Condition reasons of udn.ProfileReference: the reference
// implementation's UDN controller (clustermanager/userdefinednetwork/
// controller.go) writes a single NetworkCreated condition with these
// reasons (ReasonNADDeleted is shared with the seeds profile).
const (
	ReasonNADCreated   = "NetworkAttachmentDefinitionCreated"
	ReasonSyncError    = "SyncError"
	ReasonNADSyncError = "NetworkAttachmentDefinitionSyncError"
)

// LabelPrimaryUDN is the namespace label a namespace needs to get a primary
// user-defined network.
const LabelPrimaryUDN = "k8s.ovn.org/primary-user-defined-network"

// Fixed messages of the reference's NetworkCreated condition.
const (
	MessageNADCreated     = "NetworkAttachmentDefinition has been created"
	messageCUDNNADCreated = "NetworkAttachmentDefinition has been created in following namespaces: [%s]"
	messageCUDNNADDeleted = "NetworkAttachmentDefinition are being deleted: %v"
)

// UDNNetworkCreatedCondition returns the NetworkCreated condition the
// reference implementation writes on a UserDefinedNetwork
// (newNetworkCreatedCondition): True, NetworkAttachmentDefinitionCreated;
// False, NetworkAttachmentDefinitionDeleted when nad is being deleted;
// False, SyncError with syncErr's text when the sync failed (that wins).
// nad may be nil. LastTransitionTime is now; use SetCondition to keep the
// existing one when the status does not change.
func UDNNetworkCreatedCondition(nad *nadv1.NetworkAttachmentDefinition, syncErr error, now metav1.Time) metav1.Condition {
	c := metav1.Condition{Type: ConditionNetworkCreated, Status: metav1.ConditionTrue, Reason: ReasonNADCreated,
		Message: MessageNADCreated, LastTransitionTime: now}
	if nad != nil && !nad.DeletionTimestamp.IsZero() {
		c.Status, c.Reason, c.Message = metav1.ConditionFalse, ReasonNADDeleted, MessageNADDeleted
	}
	if syncErr != nil {
		c.Status, c.Reason, c.Message = metav1.ConditionFalse, ReasonSyncError, capMessage(syncErr.Error())
	}
	return c
}

// CUDNNetworkCreatedCondition returns the NetworkCreated condition the
// reference implementation writes on a ClusterUserDefinedNetwork
// (newClusterNetworkCreatedCondition): True, NetworkAttachmentDefinition-
// Created, listing the namespaces of nads ("[blue, red]"); False,
// NetworkAttachmentDefinitionDeleted listing the "<namespace>/<name>" of
// the NADs being deleted; False, NetworkAttachmentDefinitionSyncError with
// syncErr's text when the sync failed (that wins). The reference lists the
// NADs in its lister's order; here they are sorted, which is the order its
// tests show.
func CUDNNetworkCreatedCondition(nads []*nadv1.NetworkAttachmentDefinition, syncErr error, now metav1.Time) metav1.Condition {
	var namespaces, deleted []string
	for _, nad := range nads {
		namespaces = append(namespaces, nad.Namespace)
		if nad.DeletionTimestamp != nil {
			deleted = append(deleted, nad.Namespace+"/"+nad.Name)
		}
	}
	slices.Sort(namespaces)
	slices.Sort(deleted)
	c := metav1.Condition{Type: ConditionNetworkCreated, Status: metav1.ConditionTrue, Reason: ReasonNADCreated,
		Message: capMessage(fmt.Sprintf(messageCUDNNADCreated, strings.Join(namespaces, ", "))), LastTransitionTime: now}
	if len(deleted) > 0 {
		c.Status, c.Reason, c.Message = metav1.ConditionFalse, ReasonNADDeleted, capMessage(fmt.Sprintf(messageCUDNNADDeleted, deleted))
	}
	if syncErr != nil {
		c.Status, c.Reason, c.Message = metav1.ConditionFalse, ReasonNADSyncError, capMessage(syncErr.Error())
	}
	return c
}

// SetCondition returns conds with c put in place of the condition of its
// type (appended when there is none), as apimachinery's
// meta.SetStatusCondition does: LastTransitionTime changes only when the
// status does. conds is not modified.
func SetCondition(conds []metav1.Condition, c metav1.Condition) []metav1.Condition {
	s := condition.NewSet(conds, c.LastTransitionTime, c.ObservedGeneration)
	s.Put(c.Type, c.Status, c.Reason, c.Message)
	return s.Conds
}

// Sync errors whose text the reference's conditions carry, for a caller
// that reports udnkit's decisions under udn.ProfileReference.

// ForeignNADError is the reference's error for a NAD of the wanted name
// that the UDN/CUDN does not own (nadKey "<namespace>/<name>").
func ForeignNADError(nadKey string) error {
	return sdkerr.With(sdkerr.Conflict, names.Errorf("foreign NetworkAttachmentDefinition with the desired name already exist [%s]", nadKey))
}

// PrimaryNetworkExistsError is the reference's error for a second primary
// network in namespace, whose primary NAD is nadName.
func PrimaryNetworkExistsError(namespace, nadName string) error {
	return sdkerr.With(sdkerr.Conflict, names.Errorf("primary network already exist in namespace %q: %q", namespace, nadName))
}

// MissingPrimaryLabelError is the reference's error for a primary network
// wanted in a namespace without the label
// k8s.ovn.org/primary-user-defined-network.
func MissingPrimaryLabelError(namespace string) error {
	return sdkerr.With(sdkerr.Invalid, names.Errorf("invalid primary network state for namespace %q: a valid primary user defined network or network attachment definition "+
		"custom resource, and required namespace label %q must both be present", namespace, LabelPrimaryUDN))
}
