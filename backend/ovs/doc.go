// Package ovs applies a node's gateway-bridge flows (package flows) to Open
// vSwitch with ovs-ofctl, with the node-side contract of package backend
// (backend.NodeApplier[[]flows.Flow, flows.Changes, Result]): Observe reads
// the bridge's flows of flows.Cookie, those Open vSwitch holds as a
// desired flow (compared as Open vSwitch normalises both, with ovs-ofctl
// diff-flows) spelled as the plan spells them, so that flows.Diff lists
// real differences only; Apply writes flows.Changes in one bundle
// (ovs-ofctl --bundle, atomic), strict deletes first; Sync does both.
// Flows of other cookies are never deleted or modified; applying the same
// flows twice changes nothing.
//
// The adapter runs ovs-ofctl through a RunFunc, the shape of
// go-openvswitch's ovs.ExecFunc with standard input added, so the caller
// decides how (directly, through sudo, inside a container). The flows are
// go-openvswitch values (flows.Flow.OVS) as much as text, but two parts of
// that library's client cannot serve here, and the adapter speaks to
// ovs-ofctl itself:
//
//   - its flow parser (behind DumpFlows) skips the match fields it does not
//     know, reg1 and pkt_mark among them, so a dispatch flow would read back
//     as a catch-all and never diff right (TestLibraryParserDropsFields
//     holds that, and fails the day the library keeps them);
//   - its bundle transaction deletes only non-strictly: deleting the
//     service-CIDR flow that way also deletes every cluster-IP flow under
//     it, and deleting a port's drop flow its NORMAL flow. The adapter's
//     bundle deletes strictly (delete_strict), then adds.
//
// A Bridge is safe for concurrent use; Sync and Apply calls are serialised.
//
// Errors carry their class (package udnkit's ErrInvalid, …): a Config or
// flows that do not validate are invalid; an ovs-ofctl run that fails, and
// output the adapter cannot read, wrap ErrOfctl (refused); a flow file that
// cannot be written is unavailable.
package ovs
