// Package kernel applies a node's vrf plan to the Linux kernel, with the
// node-side contract of package backend
// (backend.NodeApplier[vrf.State, vrf.Changes, Result]): Observe reads what
// a plan names, Apply writes vrf.Changes, Sync does both.
//
// Through netlink: VRF devices and their tables, the management ports'
// addresses, MTU and VRF, the routes of protocol 85 in the plan's tables
// and the ip rules at priority 2000 that look them up; the egress IPs on
// the gateway bridge (vrf.State.Bridge: no other device's addresses are
// read), addresses of protocol 85 (IFA_PROTO, as the
// reference marks its own; spoken on a route netlink socket of the
// adapter's, in Config.NetNSFd's namespace, since the netlink library's
// addresses carry no protocol), an address of another protocol at a
// planned one refused as another owner's. Routes of other protocols or
// tables, other rules and addresses are never touched. A kernel without
// VRF devices (CONFIG_NET_VRF) fails the apply with a *NotSupportedError
// before anything else changed.
//
// Through google/nftables, in one batch (one Flush) per Apply: the SDK's
// sets and verdict maps of table inet ovn-kubernetes (element by element),
// the udn-isolation, udn-service-* and udn-mark-0x<mark> chains (rewritten
// only when their rules differ; a marking chain no longer planned is
// deleted when it holds only the SDK's marking rule, recognised by its
// comment: a chain of that name anyone else wrote stays). Rules are built from the plan's typed values
// (vrf.NFTRule) directly, never parsed from text; each carries a comment
// (nft user data, at most 128 bytes: its nft text, the cgroup ID a cgroup
// match was resolved to, a digest when cut) by which Observe recognises
// it, so a kubelet restart that changes the kubelet cgroup's ID rewrites
// the chain. Nothing else of the table is touched. Set and map comments
// are written; google/nftables v0.3.0 has no chain comments, and reads a
// verdict map's key type back wrong (Observe takes the planned one).
//
// Sync and Apply refuse a state or changes that do not validate
// (vrf.State.Validate, vrf.Changes.Validate: reserved or shared routing
// tables, two default routes of a family, device names Linux refuses,
// nftables strings that could end early) before they touch the kernel.
//
// Errors carry their class (package udnkit's ErrInvalid, …): a Config,
// plan or changes the adapter cannot express are invalid; what the kernel
// refuses (netlink, nftables) is refused; a management port, master or
// cgroup that is not there is not found (ErrMissingLink for the port); a
// link of another type where a VRF is planned, or a set whose elements do
// not fit its planned key, is a conflict; a kernel without VRF devices is
// not supported (ErrNotSupported).
//
// Tests run in a fresh network namespace of the host kernel (routes,
// tables, rules, veth links, nftables, cgroup matches); VRF devices in a
// QEMU guest with a kernel that has them (TestVRFInQEMU).
package kernel
