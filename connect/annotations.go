package connect

import (
	"cmp"
	"encoding/json"
	"maps"
	"net/netip"
	"slices"
	"strconv"
	"strings"

	ucnames "github.com/udnkit/udnkit/internal/names"
	"github.com/udnkit/udnkit/internal/sdkerr"
	"github.com/udnkit/udnkit/ipam"
	"github.com/udnkit/udnkit/netconf/udn"
)

// Annotations on a ClusterNetworkConnect that persist what the cluster
// manager allocated, so that a restarted controller restores it.
const (
	// AnnotationNetworkSubnets holds the connect subnets per network (the
	// seed's name).
	AnnotationNetworkSubnets = "k8s.ovn.org/network-subnets"
	// AnnotationNetworkConnectSubnet is the reference's name for the same
	// annotation, written under udn.ProfileReference.
	AnnotationNetworkConnectSubnet = "k8s.ovn.org/network-connect-subnet"
	// AnnotationTunnelKey holds the connect router's tunnel key.
	AnnotationTunnelKey = "k8s.ovn.org/connect-router-tunnel-key"
)

// ErrAnnotation is wrapped by the errors of parsing an annotation.
var ErrAnnotation = sdkerr.New(sdkerr.Invalid, "invalid annotation")

// SubnetsAnnotation returns the name of the subnets annotation the profile
// writes.
func SubnetsAnnotation(p udn.Profile) string {
	if p == udn.ProfileReference {
		return AnnotationNetworkConnectSubnet
	}
	return AnnotationNetworkSubnets
}

// NetworkKey identifies a connected network in the annotation:
// "layer3_<id>" or "layer2_<id>".
type NetworkKey struct {
	Topology  ipam.ConnectTopology
	NetworkID int
}

// KeyOf returns the annotation key of n.
func KeyOf(n *udn.Network) NetworkKey {
	t := ipam.ConnectLayer3
	if n.Topology != udn.TopologyLayer3 {
		t = ipam.ConnectLayer2
	}
	return NetworkKey{Topology: t, NetworkID: n.ID}
}

// String returns "layer3_<id>" or "layer2_<id>".
func (k NetworkKey) String() string {
	return strings.ToLower(k.Topology.String()) + "_" + strconv.Itoa(k.NetworkID)
}

// ParseNetworkKey parses "layer3_<id>" or "layer2_<id>".
func ParseNetworkKey(s string) (NetworkKey, error) {
	topo, id, ok := strings.Cut(s, "_")
	n, err := strconv.Atoi(id)
	if !ok || err != nil || n < 1 || n > ipam.MaxNetworkID || strconv.Itoa(n) != id {
		return NetworkKey{}, ucnames.Errorf("network key %q: %w: want layer3_<id> or layer2_<id> with an id in 1..%d", s, ErrAnnotation, ipam.MaxNetworkID)
	}
	switch topo {
	case "layer3":
		return NetworkKey{ipam.ConnectLayer3, n}, nil
	case "layer2":
		return NetworkKey{ipam.ConnectLayer2, n}, nil
	}
	return NetworkKey{}, ucnames.Errorf("network key %q: %w: topology %q, want layer3 or layer2", s, ErrAnnotation, topo)
}

func compareKeys(a, b NetworkKey) int {
	return cmp.Or(cmp.Compare(a.Topology, b.Topology), cmp.Compare(a.NetworkID, b.NetworkID))
}

// Allocation is what the cluster manager allocates for one
// ClusterNetworkConnect: the connect router's tunnel key and each
// network's connect subnets (a block per Layer3 network, a pair per Layer2
// network), one per family.
type Allocation struct {
	TunnelKey int
	Subnets   map[NetworkKey][]netip.Prefix
}

type familySubnets struct {
	IPv4 string `json:"ipv4,omitempty"`
	IPv6 string `json:"ipv6,omitempty"`
}

// Annotations returns a's annotations under the profile's names, the
// subnets one as compact JSON with sorted keys.
func (a Allocation) Annotations(p udn.Profile) map[string]string {
	m := make(map[string]familySubnets, len(a.Subnets))
	for k, ps := range a.Subnets {
		var f familySubnets
		for _, s := range ps {
			if s.Addr().Is4() {
				f.IPv4 = s.String()
			} else {
				f.IPv6 = s.String()
			}
		}
		m[k.String()] = f
	}
	b, _ := json.Marshal(m) // map keys are sorted by encoding/json
	return map[string]string{SubnetsAnnotation(p): string(b), AnnotationTunnelKey: strconv.Itoa(a.TunnelKey)}
}

// ParseAnnotations reads an Allocation back from a ClusterNetworkConnect's
// annotations, under either name of the subnets annotation. Missing
// annotations give an empty Allocation; malformed ones an error wrapping
// ErrAnnotation that names the annotation.
func ParseAnnotations(annotations map[string]string) (Allocation, error) {
	var a Allocation
	if v, ok := annotations[AnnotationTunnelKey]; ok {
		k, err := strconv.Atoi(v)
		if err != nil || k < ipam.DynamicTunnelKeyFirst || k > ipam.DynamicTunnelKeyLast || strconv.Itoa(k) != v {
			return Allocation{}, ucnames.Errorf("%s %q: %w: want a tunnel key in %d..%d", AnnotationTunnelKey, v, ErrAnnotation,
				ipam.DynamicTunnelKeyFirst, ipam.DynamicTunnelKeyLast)
		}
		a.TunnelKey = k
	}
	name := AnnotationNetworkSubnets
	v, ok := annotations[name]
	if !ok {
		name = AnnotationNetworkConnectSubnet
		v, ok = annotations[name]
	}
	if !ok {
		return a, nil
	}
	var m map[string]familySubnets
	if err := json.Unmarshal([]byte(v), &m); err != nil {
		return Allocation{}, ucnames.Errorf("%s: %w: %v", name, ErrAnnotation, err)
	}
	a.Subnets = make(map[NetworkKey][]netip.Prefix, len(m))
	for _, ks := range slices.Sorted(maps.Keys(m)) {
		k, err := ParseNetworkKey(ks)
		if err != nil {
			return Allocation{}, ucnames.Errorf("%s: %w", name, err)
		}
		var ps []netip.Prefix
		for _, f := range []struct {
			s  string
			v4 bool
		}{{m[ks].IPv4, true}, {m[ks].IPv6, false}} {
			if f.s == "" {
				continue
			}
			p, err := netip.ParsePrefix(f.s)
			if err != nil || p.Masked() != p || p.Addr().Is4() != f.v4 {
				return Allocation{}, ucnames.Errorf("%s: %s: %w: %q is not a network address of its family", name, ks, ErrAnnotation, f.s)
			}
			ps = append(ps, p)
		}
		if len(ps) == 0 {
			return Allocation{}, ucnames.Errorf("%s: %s: %w: no subnet", name, ks, ErrAnnotation)
		}
		a.Subnets[k] = ps
	}
	return a, nil
}

// Allocator allocates one ClusterNetworkConnect's tunnel key and subnets;
// restore a restarted one from ParseAnnotations with Restore.
type Allocator struct {
	name    string
	subnets *ipam.ConnectSubnetAllocator
	keys    *ipam.TunnelKeyAllocator
	held    map[NetworkKey][]netip.Prefix
}

// NewAllocator returns the allocator of c, drawing its tunnel key from the
// cluster-wide keys (shared with Layer2 networks).
func NewAllocator(c *ClusterNetworkConnect, keys *ipam.TunnelKeyAllocator) (*Allocator, error) {
	subnets, err := ipam.NewConnectSubnetAllocator(c.Name, connectSubnets(c))
	if err != nil {
		return nil, ucnames.Errorf("%s %q: spec.connectSubnets: %w", Kind, c.Name, err)
	}
	return &Allocator{name: c.Name, subnets: subnets, keys: keys, held: map[NetworkKey][]netip.Prefix{}}, nil
}

// TunnelKeyOwner is the owner of a connect router's key in the shared
// tunnel-key allocator.
func TunnelKeyOwner(cnc string) string { return "connect-router/" + cnc }

// Restore records a previously written allocation.
func (a *Allocator) Restore(al Allocation) error {
	if al.TunnelKey != 0 {
		if err := a.keys.Reserve(TunnelKeyOwner(a.name), al.TunnelKey); err != nil {
			return ucnames.Errorf("%s %q: %s: %w", Kind, a.name, AnnotationTunnelKey, err)
		}
	}
	for _, k := range slices.SortedFunc(maps.Keys(al.Subnets), compareKeys) {
		if err := a.subnets.Restore(k.NetworkID, k.Topology, al.Subnets[k]...); err != nil {
			return ucnames.Errorf("%s %q: %s: %w", Kind, a.name, k, err)
		}
		a.held[k] = slices.Clone(al.Subnets[k])
	}
	return nil
}

// Allocate returns the allocation for exactly the networks given: it
// allocates what new networks need and releases what networks no longer
// selected hold. On error nothing changes for the networks that failed.
func (a *Allocator) Allocate(nets []*udn.Network) (Allocation, error) {
	keys, err := a.keys.Allocate(TunnelKeyOwner(a.name), ipam.ConnectRouterTunnelKeys)
	if err != nil {
		return Allocation{}, ucnames.Errorf("%s %q: tunnel key: %w", Kind, a.name, err)
	}
	want := map[NetworkKey]bool{}
	for _, n := range nets {
		want[KeyOf(n)] = true
	}
	for k := range a.held {
		if !want[k] {
			a.subnets.Release(k.NetworkID)
			delete(a.held, k)
		}
	}
	for _, k := range slices.SortedFunc(maps.Keys(want), compareKeys) {
		if _, ok := a.held[k]; ok {
			continue
		}
		got, err := a.subnets.Allocate(k.NetworkID, k.Topology)
		if err != nil {
			return Allocation{}, ucnames.Errorf("%s %q: network %s: %w", Kind, a.name, k, err)
		}
		a.held[k] = got
	}
	out := Allocation{TunnelKey: keys[0], Subnets: make(map[NetworkKey][]netip.Prefix, len(a.held))}
	for k, v := range a.held {
		out.Subnets[k] = slices.Clone(v)
	}
	return out, nil
}

// Release frees everything the connect holds (on its deletion).
func (a *Allocator) Release() {
	for k := range a.held {
		a.subnets.Release(k.NetworkID)
	}
	clear(a.held)
	a.keys.Release(TunnelKeyOwner(a.name))
}
