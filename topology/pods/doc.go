// Package pods plans what attaches pods to their networks: per network a
// pod uses, its logical switch port on the network's switch (the node's
// switch for Layer3, the network's switch for Layer2 and Localnet, a remote
// port for a Layer2 pod of another zone) and the k8s.ovn.org/pod-networks
// annotation entry, with its routes, exactly as the reference writes them.
//
// The ports belong to ControllerPods, with the network and the pod's node
// as owner: a network's topology Sync never touches them, and a node's pods
// are one partition, so that PlanNode's State, made partial for its node
// (topology.Emitter.Partial), is what a pods controller diffs when a pod on
// that node comes or goes — the cost follows the pods of that node, not of
// the cluster; Changes goes further: one pod's change set alone, applied
// directly, whatever the number of pods (BenchmarkPodChanges).
//
// Addresses come from the caller's allocators (ipam.PodIPAllocator,
// ipam.ClaimAllocator for persistent IPs); a pod whose networks overlap
// (pod or join subnets) is refused with both networks named, as the seed
// asks ("refuse to CNI ADD a pod with conflicts").
//
// Seed 000's routing table of a pod on the default network, a Layer3
// primary and a Layer2 secondary network is reproduced but for one line:
// the seed routes the secondary network's join subnet (100.66.0.0/16)
// through it, but secondary networks have no join subnet (DESIGN, the
// reference), so no such route is planned.
//
// A primary Layer2 pod's IPv6 link-local gateway is the MAC of the port
// that answers for the gateway: the transit router's, derived from the
// gateway address, or on a node still on the legacy topology
// (Input.Layer2, Input.LegacyNodes, as in topology.Input) the gateway
// router's, derived from its join address. Every name PlanPod writes is
// refused with a control character (topology.CheckNames), and Secondaries
// checks names as Kubernetes and the kernel would.
//
// Source hands out a pod's addresses on a network, from the pool or from
// its persistent-IP claim, and ReleasePod takes back exactly a departed
// pod's addresses (a claim keeps its own). ChoosePrimary is seed 002's
// choice among a namespace's primary networks: the one the
// k8s.ovn.org/requested-primary-udn annotation names, else the first that
// is not exhausted. Secondaries reads the k8s.v1.cni.cncf.io/networks
// annotation (comma or JSON form) into the NADs, interfaces, static
// addresses, MACs and IPAM claims a pod requests. Services are package
// services' business.
//
// The package is pure and safe for concurrent use.
package pods
