package udnkit

import (
	"cmp"
	"fmt"
	"maps"
	"net/netip"
	"slices"
	"strings"

	"github.com/udnkit/udnkit/internal/sdkerr"
	"github.com/udnkit/udnkit/ipam"
	"github.com/udnkit/udnkit/netconf"
	"github.com/udnkit/udnkit/netconf/udn"
	"github.com/udnkit/udnkit/topology"
	"github.com/udnkit/udnkit/topology/pods"
	"github.com/udnkit/udnkit/topology/policy"
)

// podEntry is one pod and what was allocated for it.
type podEntry struct {
	pod    pods.Pod
	labels map[string]string
	ports  []policy.ContainerPort
	atts   []pods.Attachment
	// openPorts are its k8s.ovn.org/open-default-ports.
	openPorts []policy.OpenPort
}

// poolKey names an address pool: a Layer3 network's node, or a Layer2 or
// Localnet network (node "").
type poolKey struct{ network, node string }

// ErrUnknownNode is returned for a pod on a node the Cluster does not hold.
var ErrUnknownNode = sdkerr.New(sdkerr.NotFound, "unknown node")

// SetPod attaches a pod to its networks: its namespace's primary network
// (seed 002's choice among several: pods.ChoosePrimary) and the secondary
// networks its k8s.v1.cni.cncf.io/networks annotation requests, with
// addresses (and, on Layer2, a port tunnel key) from the Cluster's pools.
// A pod whose k8s.ovn.org/pod-networks annotation is set keeps what it
// records (a restart). A pod already held keeps its attachments. The
// pod-networks value to write back is PodAnnotation's; the rows are in
// Plan, and PlanEvent of the Event gives just this pod's. Host-networked
// pods have no attachment: do not add them. A pod on a network no longer
// held loses that attachment.
func (s *Cluster) SetPod(p Pod) (Event, error) {
	pod, annotations := p.Pod, p.Annotations
	if err := checkName(pod.Namespace); err != nil {
		return Event{}, fmt.Errorf("pod: namespace: %w", err)
	}
	if err := checkName(pod.Name); err != nil {
		return Event{}, fmt.Errorf("pod %s: name: %w", pod.Namespace, err)
	}
	key := pod.Namespace + "/" + pod.Name
	open, err := openPorts(key, annotations)
	if err != nil {
		return Event{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if held, ok := s.pods[key]; ok && held.pod == pod {
		// Its networks stay; its labels and ports may change.
		next := &podEntry{pod: pod, labels: maps.Clone(p.Labels), ports: slices.Clone(p.Ports), atts: held.atts, openPorts: open}
		s.pods[key] = next
		return Event{Kind: EventPodSet, Pod: key, Namespace: pod.Namespace, podBefore: held}, nil
	}
	if _, ok := s.nodes[pod.Node]; !ok { // before letting the pod held go: refused, no Event, nothing changes
		return Event{}, fmt.Errorf("pod %s: node %q: %w", key, pod.Node, ErrUnknownNode)
	}
	before := s.pods[key]
	if before != nil {
		s.releasePod(before)
		delete(s.pods, key)
	}
	entry := &podEntry{pod: pod, labels: maps.Clone(p.Labels), ports: slices.Clone(p.Ports), openPorts: open}
	if recorded, ok := annotations[netconf.AnnotationPodNetworks]; ok {
		err = s.restorePod(entry, recorded)
	} else {
		err = s.attachPod(entry, annotations)
	}
	if err == nil { // what is set must plan: the planner refuses overlapping networks
		nd := s.nodes[pod.Node]
		_, err = s.planPod(entry, nd.InZone(), s.allNodesFor(entry))
	}
	if err != nil {
		s.releasePod(entry)
		return Event{}, err
	}
	s.pods[key] = entry
	return Event{Kind: EventPodSet, Pod: key, Namespace: pod.Namespace, podBefore: before}, nil
}

// RemovePod releases a pod's addresses and tunnel keys.
func (s *Cluster) RemovePod(namespace, name string) Event {
	key := namespace + "/" + name
	s.mu.Lock()
	defer s.mu.Unlock()
	entry, ok := s.pods[key]
	if !ok {
		return Event{}
	}
	s.releasePod(entry)
	delete(s.pods, key)
	return Event{Kind: EventPodRemoved, Pod: key, Namespace: namespace, podBefore: entry}
}

// PodAnnotation returns the k8s.ovn.org/pod-networks value of a pod held,
// the reference's format, for the pods controller to write.
func (s *Cluster) PodAnnotation(namespace, name string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	entry, ok := s.pods[namespace+"/"+name]
	if !ok {
		return "", fmt.Errorf("pod %s/%s: %w: not held", namespace, name, ErrUnknownPod)
	}
	nd := s.nodes[entry.pod.Node]
	zone := nd.InZone()
	planned, err := s.planPod(entry, zone, s.allNodesFor(entry))
	if err != nil {
		return "", err
	}
	return planned.Annotation.Marshal()
}

// ErrUnknownPod is returned by PodAnnotation for a pod never set.
var ErrUnknownPod = sdkerr.New(sdkerr.NotFound, "unknown pod")

// allNodesFor returns the nodes a pod's annotation is planned with: the
// ready ones and the pod's own.
func (s *Cluster) allNodesFor(entry *podEntry) []topology.Node {
	nodes := s.nodeList(true)
	if !slices.ContainsFunc(nodes, func(n topology.Node) bool { return n.Name == entry.pod.Node }) {
		nodes = append(nodes, s.nodes[entry.pod.Node])
	}
	return nodes
}

// attachPod chooses a new pod's networks and allocates its addresses.
func (s *Cluster) attachPod(entry *podEntry, annotations map[string]string) error {
	pod := entry.pod
	key := pod.Namespace + "/" + pod.Name
	var primaries []pods.Primary
	for _, nw := range s.networkList() {
		if nw.n.IsPrimary() && slices.Contains(nw.namespaces, pod.Namespace) {
			src, err := s.source(nw, pod.Node)
			if err != nil {
				return fmt.Errorf("pod %s: %w", key, err)
			}
			primaries = append(primaries, pods.Primary{Network: nw.n, NAD: nadKey(nw, pod.Namespace), Source: src})
		}
	}
	primary, ips, err := pods.ChoosePrimary(pod, annotations, primaries)
	if err != nil {
		return err
	}
	if primary != nil {
		nw := s.networks[primary.Network.Name]
		if err := s.attach(entry, nw, primary.NAD, netconf.PodRolePrimary, ips, nil); err != nil {
			return err
		}
	}
	sel, err := pods.Secondaries(pod, annotations)
	if err != nil {
		return err
	}
	for _, want := range sel {
		nw := s.networkOfNAD(want.NAD)
		if nw == nil {
			return fmt.Errorf("pod %s: NAD %s: %w: no network of the Cluster has it", key, want.NAD, ErrUnknownNetwork)
		}
		if nw.n.IsPrimary() {
			return fmt.Errorf("pod %s: NAD %s: %w: network %q is a primary network, not a secondary one", key, want.NAD, topology.ErrInvalid, nw.n.Name)
		}
		src, err := s.source(nw, pod.Node)
		if err != nil {
			return fmt.Errorf("pod %s: %w", key, err)
		}
		ips := want.IPs
		if len(ips) > 0 {
			addrs := make([]netip.Addr, len(ips))
			for i, p := range ips {
				addrs[i] = p.Addr()
			}
			if err := src.Pool.AllocateIPs(addrs...); err != nil {
				return fmt.Errorf("pod %s: NAD %s: static addresses: %w", key, want.NAD, err)
			}
		} else if ips, err = src.Allocate(); err != nil {
			return fmt.Errorf("pod %s: NAD %s: %w", key, want.NAD, err)
		}
		if err := s.attach(entry, nw, want.NAD, netconf.PodRoleSecondary, ips, want.MAC); err != nil {
			return err
		}
	}
	return nil
}

// restorePod takes back what a pod's pod-networks annotation records.
func (s *Cluster) restorePod(entry *podEntry, recorded string) error {
	key := entry.pod.Namespace + "/" + entry.pod.Name
	ann, err := netconf.ParsePodNetworks(recorded)
	if err != nil {
		return fmt.Errorf("pod %s: annotation %s: %w", key, netconf.AnnotationPodNetworks, err)
	}
	for _, nad := range slices.Sorted(maps.Keys(ann)) {
		pn := ann[nad]
		nw := s.networkOfNAD(nad)
		if nw == nil {
			continue // the default network's, or a network not held: not the Cluster's
		}
		src, err := s.source(nw, entry.pod.Node)
		if err != nil {
			return fmt.Errorf("pod %s: %w", key, err)
		}
		addrs := make([]netip.Addr, len(pn.IPs))
		for i, p := range pn.IPs {
			addrs[i] = p.Addr()
		}
		if err := src.Pool.AllocateIPs(addrs...); err != nil {
			return fmt.Errorf("pod %s: annotation %s: network %q: %w", key, netconf.AnnotationPodNetworks, nw.n.Name, err)
		}
		role := pn.Role
		if role == "" {
			role = netconf.PodRoleSecondary
		}
		if err := s.attachKeyed(entry, nw, nad, role, pn.IPs, pn.MAC, pn.TunnelID); err != nil {
			return err
		}
	}
	return nil
}

// attach records one attachment, with a new tunnel key on Layer2.
func (s *Cluster) attach(entry *podEntry, nw *network, nad string, role netconf.PodRole, ips []netip.Prefix, mac []byte) error {
	return s.attachKeyed(entry, nw, nad, role, ips, mac, 0)
}

// attachKeyed records one attachment; on Layer2 the port's tunnel key is
// reserved when given, allocated otherwise.
func (s *Cluster) attachKeyed(entry *podEntry, nw *network, nad string, role netconf.PodRole, ips []netip.Prefix, mac []byte, tunnelID int) error {
	key := entry.pod.Namespace + "/" + entry.pod.Name
	a := pods.Attachment{Network: nw.n, NAD: nad, Role: role, IPs: slices.Clone(ips), MAC: slices.Clone(mac)}
	if nw.subnets != nil {
		a.HostSubnets = slices.Clone(nw.hostSubnets[entry.pod.Node])
	}
	if nw.n.Topology == udn.TopologyLayer2 {
		ids := s.podKeys(nw)
		var err error
		if tunnelID != 0 {
			err = ids.Reserve(key, tunnelID)
		} else {
			tunnelID, err = ids.Allocate(key)
		}
		if err != nil {
			return fmt.Errorf("pod %s: network %q: port tunnel key: %w", key, nw.n.Name, err)
		}
		a.TunnelID = tunnelID
	}
	entry.atts = append(entry.atts, a)
	return nil
}

// podKeys returns a Layer2 network's allocator of pod port tunnel keys.
func (s *Cluster) podKeys(nw *network) *portKeys {
	ids, ok := s.portKeys[nw.n.Name]
	if !ok {
		ids = newPortKeys()
		s.portKeys[nw.n.Name] = ids
	}
	return ids
}

// Pod port tunnel keys of a Layer2 network. OVN's largest port key is
// 32767; the reference hands out 1.. (0 never). New keys start above
// ipam.MaxNodeID: northd gives the switch's ports that request no key the
// lowest free keys (a pod requesting one of them is refused with a
// warning), and the legacy Layer2 topology keys remote ports by node ID.
// Keys the reference handed out below are restored as they are.
const (
	firstPortKey = ipam.MaxNodeID + 1
	lastPortKey  = 32767
)

// portKeys is one Layer2 network's pod port tunnel keys.
type portKeys struct {
	ids *ipam.IDAllocator // firstPortKey..lastPortKey
	low map[int]string    // restored keys below firstPortKey, and their pods
	own map[string]int    // pod → its low key
}

func newPortKeys() *portKeys {
	ids, _ := ipam.NewIDAllocator("pod port tunnel key", firstPortKey, lastPortKey)
	return &portKeys{ids: ids, low: map[int]string{}, own: map[string]int{}}
}

func (k *portKeys) Allocate(owner string) (int, error) { return k.ids.Allocate(owner) }

func (k *portKeys) Reserve(owner string, key int) error {
	switch {
	case key >= firstPortKey:
		return k.ids.Reserve(owner, key)
	case key < 1:
		return fmt.Errorf("%w: %d is not a port tunnel key (1..%d)", ipam.ErrOutOfRange, key, lastPortKey)
	}
	if other, ok := k.low[key]; ok && other != owner {
		return fmt.Errorf("%w: key %d is pod %s's", ipam.ErrConflict, key, other)
	}
	k.low[key], k.own[owner] = owner, key
	return nil
}

func (k *portKeys) Release(owner string) {
	k.ids.Release(owner)
	if key, ok := k.own[owner]; ok {
		delete(k.low, key)
		delete(k.own, owner)
	}
}

// releasePod gives back a pod's addresses and keys.
func (s *Cluster) releasePod(entry *podEntry) {
	key := entry.pod.Namespace + "/" + entry.pod.Name
	for _, a := range entry.atts {
		nw, ok := s.networks[a.Network.Name]
		if !ok {
			continue
		}
		if pool := s.pools[s.poolOf(nw, entry.pod.Node)]; pool != nil {
			for _, p := range a.IPs {
				_ = pool.Release(p.Addr())
			}
		}
		if ids, ok := s.portKeys[nw.n.Name]; ok {
			ids.Release(key)
		}
	}
}

func (s *Cluster) poolOf(nw *network, node string) poolKey {
	if nw.n.Topology == udn.TopologyLayer3 {
		return poolKey{nw.n.Name, node}
	}
	return poolKey{network: nw.n.Name}
}

// source returns the pool a pod on node takes its addresses on nw from.
func (s *Cluster) source(nw *network, node string) (pods.Source, error) {
	k := s.poolOf(nw, node)
	if pool, ok := s.pools[k]; ok {
		return pods.Source{Pool: pool}, nil
	}
	subnets := make([]netip.Prefix, 0, len(nw.n.Subnets))
	if nw.n.Topology == udn.TopologyLayer3 {
		hs, ok := nw.hostSubnets[node]
		if !ok {
			return pods.Source{}, fmt.Errorf("network %q: node %q: %w: no host subnet", nw.n.Name, node, ErrUnknownNode)
		}
		subnets = append(subnets, hs...)
	} else {
		for _, sub := range nw.n.Subnets {
			subnets = append(subnets, sub.CIDR)
		}
	}
	var exclude []netip.Prefix
	for _, x := range nw.n.ExcludeSubnets {
		if slices.ContainsFunc(subnets, func(p netip.Prefix) bool { return p.Overlaps(x) }) {
			exclude = append(exclude, x)
		}
	}
	pool, err := ipam.NewPodIPAllocator(subnets, exclude)
	if err != nil {
		return pods.Source{}, fmt.Errorf("network %q: pod addresses: %w", nw.n.Name, err)
	}
	s.pools[k] = pool
	return pods.Source{Pool: pool}, nil
}

// networkList returns the networks sorted by ID.
func (s *Cluster) networkList() []*network {
	out := slices.Collect(maps.Values(s.networks))
	slices.SortFunc(out, func(a, b *network) int { return cmp.Compare(a.n.ID, b.n.ID) })
	return out
}

// networkOfNAD returns the network of a NAD key, or nil.
func (s *Cluster) networkOfNAD(nad string) *network {
	for _, nw := range s.networkList() {
		if slices.Contains(nadKeys(nw), nad) {
			return nw
		}
	}
	return nil
}

// nadKey returns a network's NAD key in a namespace.
func nadKey(nw *network, namespace string) string {
	for _, k := range nadKeys(nw) {
		if ns, _, _ := strings.Cut(k, "/"); ns == namespace {
			return k
		}
	}
	return namespace + "/" + nw.n.Name
}

// planPod plans a pod's ports in a zone.
func (s *Cluster) planPod(entry *podEntry, zone string, nodes []topology.Node) (pods.Planned, error) {
	return pods.PlanPod(pods.Input{Pod: entry.pod, Attachments: entry.atts, Nodes: nodes, Zone: zone,
		ServiceCIDRs: s.cfg.DefaultNetwork.ServiceCIDRs, ClusterSubnets: s.cfg.DefaultNetwork.PodSubnets})
}

// podPorts returns the ports of the pods in a zone (of node and network,
// when not ""), as a State that speaks for the pods controller's rows of
// every network (of network, when not "").
func (s *Cluster) podPorts(zone, node, network string, nodes []topology.Node) (topology.State, error) {
	var b topology.Builder
	for name := range s.networks {
		if network == "" || name == network {
			b.OwnFor(pods.ControllerPods, name)
		}
	}
	ready := map[string]bool{}
	for _, nd := range nodes {
		ready[nd.Name] = true
	}
	for _, key := range slices.Sorted(maps.Keys(s.pods)) {
		entry := s.pods[key]
		if !ready[entry.pod.Node] || node != "" && entry.pod.Node != node || len(entry.atts) == 0 {
			continue
		}
		if network != "" && !slices.ContainsFunc(entry.atts, func(a pods.Attachment) bool { return a.Network.Name == network }) {
			continue // none of its ports is of network: not planned for nothing
		}
		planned, err := s.planPod(entry, zone, nodes)
		if err != nil {
			return topology.State{}, err
		}
		for _, p := range planned.Ports {
			if network == "" || p.Owner.Network == network {
				b.Add(p)
			}
		}
	}
	return b.State()
}

// podEvent gives the changes of one pod's ports in a zone.
func (s *Cluster) podEvent(zone string, ev Event, nodes []topology.Node) (topology.Changes, error) {
	ready := map[string]bool{}
	for _, nd := range nodes {
		ready[nd.Name] = true
	}
	ports := func(entry *podEntry) ([]topology.SwitchPort, error) {
		if entry == nil || !ready[entry.pod.Node] || len(entry.atts) == 0 {
			return nil, nil
		}
		planned, err := s.planPod(entry, zone, nodes)
		return planned.Ports, err
	}
	before, err := ports(ev.podBefore)
	if err != nil {
		return nil, err
	}
	after, err := ports(s.pods[ev.Pod])
	if err != nil {
		return nil, err
	}
	return topology.ObjectChanges(before, after)
}

// dropNetworkFromPods removes a network's attachments from every pod (the
// network is gone) and frees its pools.
func (s *Cluster) dropNetworkFromPods(name string) {
	for _, entry := range s.pods {
		entry.atts = slices.DeleteFunc(entry.atts, func(a pods.Attachment) bool { return a.Network.Name == name })
	}
	for k := range s.pools {
		if k.network == name {
			delete(s.pools, k)
		}
	}
	delete(s.portKeys, name)
}
