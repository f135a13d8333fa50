package udnkit

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/netip"
	"slices"
	"strconv"
	"strings"

	"github.com/udnkit/udnkit/connect"
	"github.com/udnkit/udnkit/internal/names"
	"github.com/udnkit/udnkit/ipam"
	"github.com/udnkit/udnkit/netconf/udn"
	"github.com/udnkit/udnkit/topology"
)

// The annotations the Cluster writes and reads back, in the reference
// implementation's names and formats.
const (
	// AnnotationNodeID is a Node's node ID ("2").
	AnnotationNodeID = "k8s.ovn.org/node-id"
	// AnnotationNodeSubnets is a Node's host subnets per network:
	// {"default":["10.244.1.0/24"],"ns1_udn1":["10.100.2.0/24"]} (a single
	// string instead of a list is read too).
	AnnotationNodeSubnets = "k8s.ovn.org/node-subnets"
	// AnnotationNetworkIDs is the legacy per-node map of network IDs
	// ({"ns1_udn1":"2"}), read only where a NAD lacks AnnotationNetworkID.
	AnnotationNetworkIDs = "k8s.ovn.org/network-ids"
	// AnnotationNetworkID and AnnotationNetworkName are a NAD's network
	// ID and network name.
	AnnotationNetworkID   = "k8s.ovn.org/network-id"
	AnnotationNetworkName = "k8s.ovn.org/network-name"
	// AnnotationTunnelKeys are a primary Layer2 network's tunnel keys, on
	// its NADs: [16711685,16715779].
	AnnotationTunnelKeys = "k8s.ovn.org/tunnel-keys"
)

// Object is a Kubernetes object's identity and annotations, as a
// controller reads them from the API server or writes them back.
type Object struct {
	// Namespace is empty for cluster-scoped objects (Nodes, CNCs).
	Namespace, Name string
	Annotations     map[string]string
}

// Key returns "<namespace>/<name>", or the name of a cluster-scoped object.
func (o Object) Key() string {
	if o.Namespace == "" {
		return o.Name
	}
	return o.Namespace + "/" + o.Name
}

// Stored is what a cluster stores of the Cluster's allocations: the Nodes,
// the NetworkAttachmentDefinitions, the ClusterNetworkConnects and the
// EgressIPs (their k8s.ovn.org/egressip-mark) with their annotations
// (other annotations are ignored).
type Stored struct {
	Nodes, NADs, Connects, EgressIPs []Object
}

// stored is what Restore read, held until EndRestore.
type stored struct {
	nodeIDs     map[string]int
	hostSubnets map[string]map[string][]netip.Prefix // node, network
	networkIDs  map[string]int
	tunnelKeys  map[string][]int
	connects    map[string]connect.Allocation
	source      map[string]string // "network-id/<n>", "node-id/<n>", ... → the object that stored it
}

// Restore reads what a cluster stores (the annotations a Cluster wrote, or
// the reference implementation's) so that the networks, nodes and
// connects added next get the IDs, host subnets, tunnel keys and connect
// subnets they had. Call it on a new Cluster before adding anything; the
// order of the objects does not matter. IDs and keys are held from now on;
// EndRestore frees those of objects that were not added again (deleted
// while no controller ran). An annotation that conflicts with another (one
// network ID for two networks, say) is refused with an error wrapping
// ipam.ErrConflict that names both objects; a malformed one with an error
// naming the object and annotation.
func (s *Cluster) Restore(st Stored) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.networks) > 0 || len(s.connects) > 0 {
		return fmt.Errorf("restore: %w: networks or connects were added already", topology.ErrInvalid)
	}
	r := &stored{nodeIDs: map[string]int{}, hostSubnets: map[string]map[string][]netip.Prefix{},
		networkIDs: map[string]int{}, tunnelKeys: map[string][]int{}, connects: map[string]connect.Allocation{},
		source: map[string]string{}}
	sorted := func(objs []Object) []Object {
		out := slices.Clone(objs)
		slices.SortFunc(out, func(a, b Object) int { return strings.Compare(a.Key(), b.Key()) })
		return out
	}
	claim := func(what, by string) error {
		if other, ok := r.source[what]; ok && other != by {
			return fmt.Errorf("%s: %w: stored by both %s and %s", what, ipam.ErrConflict, other, by)
		}
		r.source[what] = by
		return nil
	}
	legacyIDs := map[string]int{}
	defaults := map[string][]netip.Prefix{}
	for _, o := range sorted(st.Nodes) {
		who := "Node " + o.Name
		if v, ok := o.Annotations[AnnotationNodeID]; ok {
			id, err := strconv.Atoi(v)
			if err != nil || id < ipam.MinNodeID || id > ipam.MaxNodeID {
				return fmt.Errorf("%s: annotation %s: %w: %q is not a node ID (%d..%d)", who, AnnotationNodeID, topology.ErrInvalid, names.Cut(v), ipam.MinNodeID, ipam.MaxNodeID)
			}
			if err := claim("node ID "+v, who); err != nil {
				return err
			}
			r.nodeIDs[o.Name] = id
		}
		if v, ok := o.Annotations[AnnotationNodeSubnets]; ok {
			subs, err := ParseNodeSubnets(v)
			if err != nil {
				return fmt.Errorf("%s: annotation %s: %w", who, AnnotationNodeSubnets, err)
			}
			if d, ok := subs["default"]; ok {
				defaults[o.Name] = d
				delete(subs, "default")
			}
			r.hostSubnets[o.Name] = subs
		}
		if v, ok := o.Annotations[AnnotationNetworkIDs]; ok {
			var m map[string]string
			if err := json.Unmarshal([]byte(v), &m); err != nil {
				return fmt.Errorf("%s: annotation %s: %w: %v", who, AnnotationNetworkIDs, topology.ErrInvalid, err)
			}
			for net, sid := range m {
				if id, err := strconv.Atoi(sid); err == nil && id > 0 {
					legacyIDs[net] = id
				}
			}
		}
	}
	for _, o := range sorted(st.NADs) {
		who := "NetworkAttachmentDefinition " + o.Key()
		name, ok := o.Annotations[AnnotationNetworkName]
		if !ok {
			continue
		}
		if v, ok := o.Annotations[AnnotationNetworkID]; ok {
			id, err := strconv.Atoi(v)
			if err != nil || id < 1 || id > ipam.MaxNetworkID {
				return fmt.Errorf("%s: annotation %s: %w: %q is not a network ID (1..%d)", who, AnnotationNetworkID, topology.ErrInvalid, names.Cut(v), ipam.MaxNetworkID)
			}
			if held, ok := r.networkIDs[name]; ok && held != id {
				return fmt.Errorf("network %q: %w: network ID %d stored by %s, %d by %s", name, ipam.ErrConflict, held, r.source["network "+name], id, who)
			}
			// One ID for two networks is refused when the IDs are reserved
			// below, naming both NADs.
			r.networkIDs[name] = id
			if _, ok := r.source["network "+name]; !ok {
				r.source["network "+name] = who
			}
		}
		if v, ok := o.Annotations[AnnotationTunnelKeys]; ok {
			var keys []int
			if err := json.Unmarshal([]byte(v), &keys); err != nil || len(keys) == 0 {
				return fmt.Errorf("%s: annotation %s: %w: %q is not a list of tunnel keys", who, AnnotationTunnelKeys, topology.ErrInvalid, names.Cut(v))
			}
			if held, ok := r.tunnelKeys[name]; ok && !slices.Equal(held, keys) {
				return fmt.Errorf("network %q: %w: tunnel keys %v stored by %s, %v by %s", name, ipam.ErrConflict, held, r.source["keys "+name], keys, who)
			}
			r.tunnelKeys[name] = keys
			r.source["keys "+name] = who
		}
	}
	for net, id := range legacyIDs {
		if _, ok := r.networkIDs[net]; !ok {
			r.networkIDs[net] = id
			r.source["network "+net] = "the legacy " + AnnotationNetworkIDs + " of a Node"
		}
	}
	for _, o := range sorted(st.Connects) {
		al, err := connect.ParseAnnotations(o.Annotations)
		if err != nil {
			return fmt.Errorf("%s %s: %w", connect.Kind, o.Name, err)
		}
		r.connects[o.Name] = al
	}
	// Hold the IDs and keys now, so that nothing added before its owner
	// takes them.
	for _, node := range slices.Sorted(maps.Keys(r.nodeIDs)) {
		if err := s.nodeIDs.Reserve(node, r.nodeIDs[node]); err != nil {
			return fmt.Errorf("Node %s: annotation %s: %w", node, AnnotationNodeID, err)
		}
	}
	for _, net := range slices.Sorted(maps.Keys(r.networkIDs)) {
		id := r.networkIDs[net]
		if owner, ok := s.ids.Owner(id); ok && owner != net {
			return fmt.Errorf("network ID %d: %w: stored for network %q by %s and for network %q by %s",
				id, ipam.ErrConflict, owner, r.source["network "+owner], net, r.source["network "+net])
		}
		if err := s.ids.Reserve(net, id); err != nil {
			return fmt.Errorf("network %q (%s): %w", net, r.source["network "+net], err)
		}
	}
	for _, net := range slices.Sorted(maps.Keys(r.tunnelKeys)) {
		if err := s.keys.Reserve(net, r.tunnelKeys[net]...); err != nil {
			return fmt.Errorf("network %q (%s): annotation %s: %w", net, r.source["keys "+net], AnnotationTunnelKeys, err)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(r.connects)) {
		if k := r.connects[name].TunnelKey; k != 0 {
			if err := s.keys.Reserve(connect.TunnelKeyOwner(name), k); err != nil {
				return fmt.Errorf("%s %s: annotation %s: %w", connect.Kind, name, connect.AnnotationTunnelKey, err)
			}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(s.nodes)) { // nodes given to New
		nd := s.nodes[name]
		if id, ok := r.nodeIDs[name]; ok && id != nd.ID {
			return fmt.Errorf("Node %s: annotation %s: %w: stored %d, the node was added with %d", name, AnnotationNodeID, ipam.ErrConflict, id, nd.ID)
		}
	}
	if err := s.restoreEgress(st.EgressIPs); err != nil {
		return err
	}
	s.stored = r
	s.defaultSubnets = defaults
	return nil
}

// EndRestore ends what Restore began: the IDs, keys and subnets stored for
// networks, nodes and connects that were not added since are freed, and
// their names returned (sorted, as "Node x", "network y", "ClusterNetworkConnect z").
func (s *Cluster) EndRestore() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.stored
	if r == nil {
		return nil
	}
	s.stored = nil
	var freed []string
	for node := range r.nodeIDs {
		if _, ok := s.nodes[node]; !ok {
			s.nodeIDs.Release(node)
			freed = append(freed, "Node "+node)
		}
	}
	for net := range r.networkIDs {
		if _, ok := s.networks[net]; !ok {
			s.ids.Release(net)
			s.keys.Release(net)
			freed = append(freed, "network "+net)
		}
	}
	for net := range r.tunnelKeys {
		if _, ok := s.networks[net]; !ok {
			s.keys.Release(net)
		}
	}
	for name := range r.connects {
		if _, ok := s.connects[name]; !ok {
			s.keys.Release(connect.TunnelKeyOwner(name))
			freed = append(freed, connect.Kind+" "+name)
		}
	}
	freed = append(freed, s.endRestoreEgress()...)
	slices.Sort(freed)
	return slices.Compact(freed)
}

// Annotations returns what the cluster should store of the Cluster's
// allocations: per Node its ID and host subnets, per NAD (a UDN's, and a
// CUDN's in each namespace it serves) its network's ID, name and (primary
// Layer2) tunnel keys, per accepted connect its tunnel key and subnets.
// A node's node-subnets value keeps the default network's entry Restore
// read (another controller's), so writing it back loses nothing. Objects
// are sorted by key; Restore reads them back.
func (s *Cluster) Annotations() Stored {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out Stored
	for _, nd := range s.nodeList(false) {
		ann := map[string]string{AnnotationNodeID: strconv.Itoa(nd.ID)}
		subs := map[string][]netip.Prefix{}
		if d, ok := s.defaultSubnets[nd.Name]; ok {
			subs["default"] = d
		}
		for name, nw := range s.networks {
			if sub, ok := nw.hostSubnets[nd.Name]; ok {
				subs[name] = sub
			}
		}
		if len(subs) > 0 {
			ann[AnnotationNodeSubnets] = FormatNodeSubnets(subs)
		}
		out.Nodes = append(out.Nodes, Object{Name: nd.Name, Annotations: ann})
	}
	for _, name := range slices.Sorted(maps.Keys(s.networks)) {
		nw := s.networks[name]
		ann := map[string]string{AnnotationNetworkName: name, AnnotationNetworkID: strconv.Itoa(nw.n.ID)}
		if nw.n.Topology == udn.TopologyLayer2 && nw.n.IsPrimary() && len(nw.tunnelKeys) > 0 {
			b, _ := json.Marshal(nw.tunnelKeys)
			ann[AnnotationTunnelKeys] = string(b)
		}
		for _, key := range nadKeys(nw) {
			ns, n, _ := strings.Cut(key, "/")
			out.NADs = append(out.NADs, Object{Namespace: ns, Name: n, Annotations: maps.Clone(ann)})
		}
	}
	slices.SortFunc(out.NADs, func(a, b Object) int { return strings.Compare(a.Key(), b.Key()) })
	for _, name := range slices.Sorted(maps.Keys(s.connects)) {
		if cn := s.connects[name]; cn.alloc != nil {
			out.Connects = append(out.Connects, Object{Name: name, Annotations: cn.allocation.Annotations(s.cfg.Profile)})
		}
	}
	out.EgressIPs = s.egressAnnotations()
	return out
}

// nadKeys returns the keys of a network's NADs: a UDN's own, a CUDN's in
// each namespace it serves, those a network added from NADs names.
func nadKeys(nw *network) []string {
	switch {
	case nw.udn != "":
		return []string{nw.udn}
	case nw.cudn != nil:
		out := make([]string, len(nw.namespaces))
		for i, ns := range nw.namespaces {
			out[i] = ns + "/" + nw.cudn.Name
		}
		return out
	}
	return slices.Clone(nw.n.NADs) // a network added from its NADs
}

// ParseNodeSubnets reads a k8s.ovn.org/node-subnets value: network name to
// subnets, each a list or a single string.
func ParseNodeSubnets(v string) (map[string][]netip.Prefix, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal([]byte(v), &raw); err != nil {
		return nil, fmt.Errorf("%w: %v", topology.ErrInvalid, err)
	}
	out := make(map[string][]netip.Prefix, len(raw))
	for net, r := range raw {
		var list []string
		if err := json.Unmarshal(r, &list); err != nil {
			var one string
			if err := json.Unmarshal(r, &one); err != nil {
				return nil, fmt.Errorf("network %q: %w: neither a subnet nor a list of subnets", names.Cut(net), topology.ErrInvalid)
			}
			list = []string{one}
		}
		for _, c := range list {
			p, err := netip.ParsePrefix(c)
			if err != nil {
				return nil, fmt.Errorf("network %q: %w: %q is not a subnet", names.Cut(net), topology.ErrInvalid, names.Cut(c))
			}
			out[net] = append(out[net], p.Masked())
		}
	}
	return out, nil
}

// FormatNodeSubnets writes a k8s.ovn.org/node-subnets value (lists, keys
// sorted).
func FormatNodeSubnets(subs map[string][]netip.Prefix) string {
	m := make(map[string][]string, len(subs))
	for net, ps := range subs {
		for _, p := range ps {
			m[net] = append(m[net], p.String())
		}
	}
	b, _ := json.Marshal(m)
	return string(b)
}

// checkName refuses a name no Kubernetes object can have: empty, or
// holding what OVSDB and the kernel refuse (names.ControlError: control
// characters, DEL, invalid UTF-8).
func checkName(name string) error {
	if name == "" {
		return fmt.Errorf("name: %w: empty", topology.ErrInvalid)
	}
	if msg := names.ControlError(name); msg != "" {
		return fmt.Errorf("name %s: %w: %s", names.Quote(name), topology.ErrInvalid, msg)
	}
	return nil
}
