// Package kernel applies a node's vrf plan to the Linux kernel through
// netlink: VRF devices and their tables, the management ports' addresses,
// MTU and VRF, the routes of protocol 85 in the plan's tables and the ip
// rules at priority 2000 that look them up. Routes of other protocols or
// tables and other rules are never touched; applying the same plan twice
// changes nothing. A kernel without VRF devices (CONFIG_NET_VRF) fails
// the apply with a *NotSupportedError before anything else changed. The
// nftables part of the plan is not applied yet (vrf.State.NFT renders it
// for nft -f).
//
// Tests run in a fresh network namespace of the host kernel (routes,
// tables, rules, dummy links); VRF devices need a kernel that has them.
package kernel
