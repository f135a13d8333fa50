// Package vrf plans the node's half of primary user-defined networks as
// pure, deterministic data: per network its VRF device and routing table,
// its management port (ovn-k8s-mp<id>) enslaved to the VRF with the node
// subnet's second address, the VRF's routes (protocol 85) and the ip rules
// at priority 2000 that steer marked traffic into it; and the nftables
// table inet ovn-kubernetes: the udn-isolation output chain that keeps host
// processes away from the default-network addresses of pods whose primary
// network is user-defined (open ports, ICMP and the kubelet's probes
// excepted), and the udn-service-mark chains and maps that mark a
// network's NodePort and external-IP traffic with its packet mark
// (0x1000+id); and the node's egress IPs on the gateway bridge (Addresses:
// full length, protocol 85, as the reference puts them there). Diff
// compares two plans element by element, so that adding or removing a
// network, a pod or an egress IP changes only its own objects. The script
// adds an address with `proto 85`, which an iproute2 older than the
// kernel's address protocols (Debian 12's 6.1) refuses.
//
// The nftables plan is typed values (NFT: sets with typed keys and
// elements, chains, rules as NFTRule structs); NFT.String renders it as
// nft syntax and backend/kernel turns it into netlink expressions without
// parsing text. State.Script renders a plan as the ip and nft commands
// that would create it on an empty node: a dry run to read, and safe to
// run whatever the names hold: every word of the ip commands is
// shell-quoted, and the nft text quotes only cgroup paths, device names
// and comments that cannot end an nft string (comments are sanitised and
// bounded to MaxComment bytes, keeping what the object is).
//
// Plan refuses (ErrInvalid, naming the field) what the kernel cannot hold
// consistently: reserved (0, 253-255) or shared routing tables, two
// gateways of one family, a host subnet outside the network, an MTU
// outside 0..udn.MaxMTU, one NodePort or external IP on two networks, a
// Localnet or secondary network, device names Linux refuses, control
// characters in any name, cgroup paths nft strings cannot hold. State.Validate
// checks a state (a plan, or one built by hand) the same way; backend/kernel
// calls it before it writes.
//
// # Where the seed and the reference part ways
//
//   - VRF name: the seed's rule (the CUDN's vrf field, else its name when it
//     fits in 15 characters, else udn-<id>-vrf); the reference says
//     mp<id>-udn-vrf where the CUDN name does not fit and for every
//     namespaced UDN. Names over 15 characters are refused.
//   - Routing table: 1000+id by default (Network.Table overrides it), known
//     at plan time; the reference uses the management port's ifindex + 1000.
//   - Routes: the seed says the VRF clones the main table; the reference
//     installs a fixed set, planned here: the service CIDRs via the dummy
//     next hop (masquerade .4) from the host masquerade IP (.2), the
//     default route via the node's gateway, the management port's
//     masquerade /32, the ETP-local masquerade /32 via the node subnet's
//     gateway, every cluster subnet (Layer3) via that gateway, and an
//     unreachable default at metric 4278198272. Cloning a table that
//     changes under the plan would not be deterministic.
//   - Host isolation: the seed shows iptables rules dropping the whole
//     cluster CIDR; the reference's nftables sets of pod addresses are
//     planned. Without a kubelet cgroup (cgroup v1, no kubelet.service) the
//     kubelet rule is left out and Plan returns the warning
//     UDNKubeletProbesNotSupported instead of failing. The seed's service
//     access of host-networked pods of UDN namespaces (which the reference
//     lacks) is planned in nftables rather than the seed's iptables: per pod
//     cgroup, its allowed cluster IPs accepted and the service CIDRs dropped,
//     ahead of the other isolation rules.
//   - Comments: the reference's set, map and chain comments are planned
//     and rendered. google/nftables v0.3.0 writes set and map comments but
//     has no chain comments, so backend/kernel's chains carry none; Diff
//     compares neither. A network name too long for a 128-byte comment is
//     cut, with "...", before ": UDN packet marking".
//
// Plan and Diff are pure and safe for concurrent use; errors wrap
// ErrInvalid (or an ipam sentinel) and name the network and field.
package vrf
