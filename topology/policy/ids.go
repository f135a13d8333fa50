package policy

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/udnkit/udnkit/internal/names"
	"github.com/udnkit/udnkit/topology"
)

// The reference's external_ids keys on the rows it writes for network
// policy (libovsdb/ops/db_object_ids.go, db_object_types.go). Every row
// carries owner-type, its type's keys and k8s.ovn.org/id, the id
// "<controller>:<owner-type>:<values in key order>" whose hash names its
// port group or address set.
const (
	IDOwnerType          = "k8s.ovn.org/owner-type"
	IDName               = "k8s.ovn.org/name"
	IDPrimary            = "k8s.ovn.org/id"
	IDDirection          = "direction"
	IDGressIndex         = "gress-index"
	IDPortPolicyProtocol = "port-policy-protocol"
	IDIPBlockIndex       = "ip-block-index"
	IDType               = "type"
	IDIP                 = "ip"
	IDIPFamily           = "ip-family"
)

// More owner types of the reference.
const (
	ownerNetpolDefault = "NetpolDefault"
	ownerNetpolNode    = "NetpolNode"
	ownerMcastCluster  = "MulticastCluster"
	ownerMcastNS       = "MulticastNS"
	ownerUDNIsolation  = "UDNIsolation"
)

// refIDs returns a row's reference external_ids: owner-type, the type's
// keys and values (kv, in the type's key order) and k8s.ovn.org/id under
// the reference's controller ctrl; and the id itself.
func refIDs(ctrl, ownerType string, kv ...string) (topology.Options, string) {
	var id strings.Builder
	id.WriteString(ctrl)
	id.WriteByte(':')
	id.WriteString(ownerType)
	for i := 1; i < len(kv); i += 2 {
		id.WriteByte(':')
		id.WriteString(kv[i])
	}
	all := append([]string{IDOwnerType, ownerType, IDPrimary, id.String()}, kv...)
	return topology.NewOptions(all...), id.String()
}

// netIDs is refIDs under a user-defined network's reference controller.
func netIDs(network, ownerType string, kv ...string) topology.Options {
	ids, _ := refIDs(ReferenceController(network), ownerType, kv...)
	return ids
}

// MeterName is the meter every policy ACL names, the reference's; the
// policy controller plans the Meter when a namespace logs.
const MeterName = "acl-logging"

// DefaultACLLoggingRate is the meter's rate in packets per second when
// Input.ACLLoggingRate is 0 (the reference's acl-logging-rate-limit).
const DefaultACLLoggingRate = 20

// AnnotationMulticast, "true" on a namespace, enables multicast among its
// pods (Namespace.Multicast), the reference's annotation.
const AnnotationMulticast = "k8s.ovn.org/multicast-enabled"

// AnnotationACLLogging is the namespace annotation that asks for ACL
// logging: {"deny": "<severity>", "allow": "<severity>"}.
const AnnotationACLLogging = "k8s.ovn.org/acl-logging"

// ACLLogging is a namespace's ACL logging: the severity its default-deny
// drops log at (Deny) and the one its policies' rule ACLs log at (Allow);
// "" does not log.
type ACLLogging struct {
	Deny, Allow topology.ACLSeverity
}

// Logs reports whether either direction logs.
func (l ACLLogging) Logs() bool { return l.Deny != "" || l.Allow != "" }

// ParseACLLogging reads the k8s.ovn.org/acl-logging annotation as the
// reference does: "" and "{}" log nothing; JSON that does not parse logs
// nothing and is an error; a severity that is not alert, warning, notice,
// info or debug disables that key alone and is an error naming it (the
// other key keeps its value). Errors wrap ErrInvalid.
func ParseACLLogging(annotation string) (ACLLogging, error) {
	if annotation == "" || annotation == "{}" {
		return ACLLogging{}, nil
	}
	var raw struct {
		Deny  string `json:"deny"`
		Allow string `json:"allow"`
	}
	if err := json.Unmarshal([]byte(annotation), &raw); err != nil {
		return ACLLogging{}, fmt.Errorf("annotations[%s]: %w: %s is not a JSON object of deny and allow severities: %v",
			AnnotationACLLogging, ErrInvalid, names.Quote(annotation), err)
	}
	var out ACLLogging
	var errs []error
	for _, f := range []struct {
		key string
		raw string
		to  *topology.ACLSeverity
	}{{"deny", raw.Deny, &out.Deny}, {"allow", raw.Allow, &out.Allow}} {
		if s := topology.ACLSeverity(f.raw); s.Valid() {
			*f.to = s
		} else {
			errs = append(errs, fmt.Errorf("annotations[%s].%s: %w: %s is not a severity (alert, warning, notice, info, debug): %s logging disabled",
				AnnotationACLLogging, f.key, ErrInvalid, names.Quote(f.raw), f.key))
		}
	}
	return out, errors.Join(errs...)
}
