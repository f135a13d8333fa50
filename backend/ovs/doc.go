// Package ovs applies a node's gateway-bridge flows (package flows) to Open
// vSwitch with ovs-ofctl: it reads the bridge's flows of flows.Cookie,
// compares them with the desired ones as Open vSwitch itself normalises
// both (ovs-ofctl diff-flows), and writes the difference in one bundle
// (ovs-ofctl --bundle), strict deletes first. Flows of other cookies are
// never deleted or modified; applying the same flows twice changes nothing.
//
// The adapter runs ovs-ofctl through a RunFunc, the shape of
// go-openvswitch's ovs.ExecFunc with standard input added, so the caller
// decides how (directly, through sudo, inside a container). It does not
// use go-openvswitch's flow parser for what it reads back: that parser
// drops matches it does not know (reg1, pkt_mark), which would turn a
// dispatch flow into a catch-all.
//
// A Bridge is safe for concurrent use; Sync calls are serialised.
package ovs
