package netconf

import (
	"errors"
	"testing"
	"time"

	nadv1 "github.com/k8snetworkplumbingwg/network-attachment-definition-client/pkg/apis/k8s.cni.cncf.io/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func refNAD(ns, name string, deleting bool) *nadv1.NetworkAttachmentDefinition {
	nad := &nadv1.NetworkAttachmentDefinition{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	if deleting {
		t := metav1.NewTime(time.Unix(1, 0))
		nad.DeletionTimestamp = &t
	}
	return nad
}

// TestReferenceConditions ports the NetworkCreated conditions expected by
// go-controller/pkg/clustermanager/userdefinednetwork/controller_test.go
// (OVN-Kubernetes 8871cd9c), each case naming its It(...), with the sync
// error the controller hit; the deletion cases follow controller.go
// newNetworkCreatedCondition / newClusterNetworkCreatedCondition. The
// reference's "should NOT fail when required namespace label is missing
// for secondary network" is left out: the label is the caller's to check,
// and its condition is the "should create NAD successfully" one.
func TestReferenceConditions(t *testing.T) {
	now := metav1.NewTime(time.Unix(100, 0))
	renderErr := errors.New("render error")
	for _, tc := range []struct {
		name                    string
		got                     metav1.Condition
		status, reason, message string
	}{
		{"UDN: should create NAD successfully", UDNNetworkCreatedCondition(refNAD("test", "test", false), nil, now),
			"True", "NetworkAttachmentDefinitionCreated", "NetworkAttachmentDefinition has been created"},
		{"UDN: should fail when required namespace label is missing for primary network",
			UDNNetworkCreatedCondition(nil, MissingPrimaryLabelError("test"), now), "False", "SyncError",
			"invalid primary network state for namespace \"test\": a valid primary user defined network or network attachment definition custom resource, and required namespace label \"k8s.ovn.org/primary-user-defined-network\" must both be present"},
		{"UDN: should fail when NAD render fail",
			UDNNetworkCreatedCondition(nil, errors.New("failed to generate NetworkAttachmentDefinition: "+renderErr.Error()), now), "False", "SyncError",
			"failed to generate NetworkAttachmentDefinition: render error"},
		{"UDN: should fail when NAD create fail",
			UDNNetworkCreatedCondition(nil, errors.New("failed to create NetworkAttachmentDefinition: create NAD error"), now), "False", "SyncError",
			"failed to create NetworkAttachmentDefinition: create NAD error"},
		{"UDN: should fail when foreign NAD exist", UDNNetworkCreatedCondition(refNAD("test", "test", false), ForeignNADError("test/test"), now),
			"False", "SyncError", "foreign NetworkAttachmentDefinition with the desired name already exist [test/test]"},
		{"UDN: should reconcile mutated NAD", UDNNetworkCreatedCondition(refNAD("test", "test", false), nil, now),
			"True", "NetworkAttachmentDefinitionCreated", "NetworkAttachmentDefinition has been created"},
		{"UDN: given primary UDN, should fail when primary NAD already exist",
			UDNNetworkCreatedCondition(nil, PrimaryNetworkExistsError("test", "primary-net-1"), now), "False", "SyncError",
			`primary network already exist in namespace "test": "primary-net-1"`},
		{"UDN: should fail when add finalizer to UDN fails",
			UDNNetworkCreatedCondition(nil, errors.New("failed to add finalizer to UserDefinedNetwork: oops"), now), "False", "SyncError",
			"failed to add finalizer to UserDefinedNetwork: oops"},
		{"UDN: NAD being deleted (controller.go newNetworkCreatedCondition)", UDNNetworkCreatedCondition(refNAD("test", "test", true), nil, now),
			"False", "NetworkAttachmentDefinitionDeleted", "NetworkAttachmentDefinition is being deleted"},
		{"CUDN: should create NAD according to spec in each namespace that applies to namespace selector",
			CUDNNetworkCreatedCondition([]*nadv1.NetworkAttachmentDefinition{refNAD("red", "x", false), refNAD("blue", "x", false)}, nil, now),
			"True", "NetworkAttachmentDefinitionCreated", "NetworkAttachmentDefinition has been created in following namespaces: [blue, red]"},
		{"CUDN: should report an error when spec.uplinks is set but the Uplink feature is disabled",
			CUDNNetworkCreatedCondition(nil, errors.New("spec.uplinks is set but the Uplink feature is disabled, ignoring this CUDN"), now),
			"False", "NetworkAttachmentDefinitionSyncError", "spec.uplinks is set but the Uplink feature is disabled, ignoring this CUDN"},
		{"CUDN: when CR selector has selection added, should create NAD in matching namespaces",
			CUDNNetworkCreatedCondition([]*nadv1.NetworkAttachmentDefinition{refNAD("yellow", "x", false), refNAD("black", "x", false),
				refNAD("green", "x", false), refNAD("gray", "x", false)}, nil, now),
			"True", "NetworkAttachmentDefinitionCreated", "NetworkAttachmentDefinition has been created in following namespaces: [black, gray, green, yellow]"},
		{"CUDN: when CR selector has selection removed, should delete stale NADs in previously matching namespaces",
			CUDNNetworkCreatedCondition(nil, nil, now),
			"True", "NetworkAttachmentDefinitionCreated", "NetworkAttachmentDefinition has been created in following namespaces: []"},
		{"CUDN: when new namespace is created without required UDN label, it should not create NAD",
			CUDNNetworkCreatedCondition([]*nadv1.NetworkAttachmentDefinition{refNAD("green", "x", false)}, MissingPrimaryLabelError("black"), now),
			"False", "NetworkAttachmentDefinitionSyncError",
			"invalid primary network state for namespace \"black\": a valid primary user defined network or network attachment definition custom resource, and required namespace label \"k8s.ovn.org/primary-user-defined-network\" must both be present"},
		{"CUDN: when existing namespace is labeled with matching label, should create NAD in newly labeled matching namespaces",
			CUDNNetworkCreatedCondition([]*nadv1.NetworkAttachmentDefinition{refNAD("red", "x", false), refNAD("blue", "x", false),
				refNAD("yellow", "x", false), refNAD("green", "x", false)}, nil, now),
			"True", "NetworkAttachmentDefinitionCreated", "NetworkAttachmentDefinition has been created in following namespaces: [blue, green, red, yellow]"},
		{"CUDN: NADs being deleted (controller.go newClusterNetworkCreatedCondition)",
			CUDNNetworkCreatedCondition([]*nadv1.NetworkAttachmentDefinition{refNAD("red", "x", true), refNAD("blue", "x", true), refNAD("green", "x", false)}, nil, now),
			"False", "NetworkAttachmentDefinitionDeleted", "NetworkAttachmentDefinition are being deleted: [blue/x red/x]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := metav1.Condition{Type: "NetworkCreated", Status: metav1.ConditionStatus(tc.status), Reason: tc.reason, Message: tc.message, LastTransitionTime: now}
			if tc.got != want {
				t.Errorf("got  %+v\nwant %+v", tc.got, want)
			}
		})
	}
}

// TestSetCondition: meta.SetStatusCondition's rule, which the reference
// applies to its NetworkCreated condition.
func TestSetCondition(t *testing.T) {
	t0, t1 := metav1.NewTime(time.Unix(1, 0)), metav1.NewTime(time.Unix(2, 0))
	conds := SetCondition(nil, UDNNetworkCreatedCondition(nil, nil, t0))
	same := SetCondition(conds, UDNNetworkCreatedCondition(nil, nil, t1))
	if len(same) != 1 || same[0].LastTransitionTime != t0 {
		t.Errorf("unchanged status moved the transition time: %+v", same)
	}
	failed := SetCondition(same, UDNNetworkCreatedCondition(nil, errors.New("x"), t1))
	if len(failed) != 1 || failed[0].LastTransitionTime != t1 || failed[0].Reason != ReasonSyncError || same[0].Reason != ReasonNADCreated {
		t.Errorf("changed status: %+v (input %+v)", failed, same)
	}
}
