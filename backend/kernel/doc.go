// Package kernel applies a node's vrf plan to the Linux kernel through
// netlink: VRF devices and their tables, the management ports' addresses,
// MTU and VRF, the routes of protocol 85 in the plan's tables and the ip
// rules at priority 2000 that look them up. Routes of other protocols or
// tables and other rules are never touched; applying the same plan twice
// changes nothing. A kernel without VRF devices (CONFIG_NET_VRF) fails
// the apply with a *NotSupportedError before anything else changed.
//
// ApplyIsolation applies the host-isolation part of the nftables plan with
// google/nftables in one batch: the udn-open-ports, udn-open-ports-icmp and
// udn-pod-default-ips sets element by element, and the udn-isolation
// output chain, rewritten only when its rules differ (each rule carries its
// planned text as its comment); nothing else of table inet ovn-kubernetes
// is touched. ApplyServiceMarking applies the rest: the udn-mark-0x<mark>
// chains, the NodePort and external-IP verdict maps (element by element)
// and the udn-service-mark, udn-service-prerouting and udn-service-output
// chains; marking chains of networks no longer planned are deleted.
//
// Tests run in a fresh network namespace of the host kernel (routes,
// tables, rules, dummy links); VRF devices need a kernel that has them.
package kernel
