// Package flows plans the OpenFlow flows of a node's gateway bridge (br-ex)
// for user-defined networks: pure data in, sorted flows out, and a Diff
// between what a bridge holds and what it should. Every flow carries Cookie
// (0xdeff105); flows of other cookies are never planned, diffed or touched.
// backend/ovs applies them.
//
// Per primary network n (ID id) on the node:
//   - egress: from n's patch port, sourced from n's gateway-router
//     masquerade IP, committed in conntrack zone 64000 with nat to the node
//     IP and ct_mark 3+id, out of the uplink (the default network: ct_mark
//     1, no nat);
//   - replies: table 1 sends established and related traffic by ct_mark to
//     the network's patch port (1: the default network, 2: the host);
//   - host to services: the seed's per-cluster-IP dispatch, table 0
//     "nw_dst=<cluster IP>" sets reg1 to 3+id and commits in zone 64001 with
//     nat to the host masquerade IP, table 2 "reg1=<3+id>" sets the network
//     gateway router's MAC and outputs to its patch port; and the
//     reference's, table 2 "pkt_mark=0x1000+id" (priority 250, the mark
//     nftables puts on NodePort and external-IP traffic) to the patch port,
//     with a drop of the network's management-port masquerade source
//     (priority 200) so that one network's pods cannot reach another's
//     services through the host;
//   - the service CIDRs are dropped from every patch port (priority 115) but
//     their replies to the masquerade subnet are un-NATed (priority 500), and
//     the shared flows of tables 0 to 5 as the reference writes them.
//
// Both families are planned ("ip"/"nw_src" and "ipv6"/"ipv6_src"). Nothing
// crosses between networks: a flow that takes one network's traffic
// outputs only to that network's patch port, the uplink or the host (a
// property test holds that), and ofproto/trace proves it on a real bridge.
//
// # Where the seed and the reference part ways
//
//   - Egress conntrack: the seed (000, "Pod Egress") SNATs in zone 64005,
//     then in zone 0 with mark 5, then recommits in zone 64000 with mark 1;
//     its numbers are illustrative. The reference commits once in zone
//     64000 with nat to the node IP and ct_mark 3+id; that is planned.
//   - Host to ClusterIP: the seed's per-cluster-IP reg1 flows are planned
//     (DESIGN's decision), at priority 501 so that they win over the
//     service-CIDR flow of priority 500 they refine, with reg1 = 3+id; the
//     reference has no such flows and dispatches only marked NodePort and
//     external-IP traffic by pkt_mark, which is planned too.
//   - Flows name ports by OpenFlow number (Port.OFPort): ovs-ofctl does not
//     take the long patch-port names in flows.
//
// A Flow is text in ovs-ofctl syntax (String, Text: stable, sorted, what
// golden files hold) and, through OVS, a go-openvswitch ovs.Flow value
// whose text Open vSwitch installs as the same flow (matches it has no
// type for, reg1 and pkt_mark, are ovs.FieldMatch).
//
// Script renders flows as the ovs-ofctl add-flow commands of a bridge, every
// word shell-quoted: a dry run safe to run whatever the bridge is called.
//
// Plan refuses (ErrInvalid, naming the field) what a bridge cannot hold
// consistently: a bridge name Linux refuses, two ports (uplink, default
// patch, the networks' patch ports) with one OpenFlow number or name, a
// port numbered or named as the bridge's own LOCAL port, a multicast or
// zero MAC, two node addresses of a family, duplicate network IDs or names,
// a network with no family, a cluster IP outside the service CIDRs, of a
// family its network lacks, or on two networks, and control characters in
// names. Duplicate patch ports would break the no-crossing property above.
//
// Plan is pure and safe for concurrent use.
package flows
