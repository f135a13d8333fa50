package pods

import (
	"errors"
	"maps"
	"net/netip"
	"slices"
	"strings"

	"github.com/udnkit/udnkit/internal/names"
	"github.com/udnkit/udnkit/internal/sdkerr"
	"github.com/udnkit/udnkit/ipam"
	"github.com/udnkit/udnkit/netconf"
	"github.com/udnkit/udnkit/netconf/udn"
)

// AnnotationRequestedPrimaryUDN names, at a pod's creation, the primary
// network it wants among its namespace's (seed 002).
const AnnotationRequestedPrimaryUDN = "k8s.ovn.org/requested-primary-udn"

// ErrNoPrimary: no primary network of the namespace can take the pod (the
// requested one does not exist, or every one is exhausted).
var ErrNoPrimary = sdkerr.New(sdkerr.NotFound, "no primary network for the pod")

// Source is where a pod's addresses on one network come from: a pool (the
// node's allocator on a Layer3 network, the network's on Layer2 and
// Localnet) or, for a pod with a persistent-IP claim (a VM's), the claim.
type Source struct {
	Pool *ipam.PodIPAllocator
	// Claims and Claim: a pod with a claim (Claim not zero) takes the
	// claim's addresses, the same after every restart or migration.
	Claims *ipam.ClaimAllocator
	Claim  ipam.ClaimKey
}

func (s Source) claimed() bool { return s.Claim != (ipam.ClaimKey{}) }

// Allocate returns addresses for a pod: the claim's, or new ones from the
// pool. An exhausted pool's error wraps ipam.ErrExhausted.
func (s Source) Allocate() ([]netip.Prefix, error) {
	if s.claimed() {
		if s.Claims == nil {
			return nil, names.Errorf("claim %s: %w: no claim allocator", s.Claim, ErrInvalid)
		}
		return s.Claims.Allocate(s.Claim)
	}
	if s.Pool == nil {
		return nil, names.Errorf("%w: no address pool", ErrInvalid)
	}
	return s.Pool.Allocate()
}

// Release takes back ips, a pod's addresses on the network, when the pod
// goes: they return to the pool, unless they are its claim's, which keeps
// them until the claim itself is deleted (ipam.ClaimAllocator.Release).
func (s Source) Release(ips []netip.Prefix) error {
	if s.claimed() {
		return nil
	}
	if s.Pool == nil {
		return names.Errorf("%w: no address pool", ErrInvalid)
	}
	addrs := make([]netip.Addr, len(ips))
	for i, p := range ips {
		addrs[i] = p.Addr()
	}
	return s.Pool.Release(addrs...)
}

// ReleasePod takes back the addresses of a pod that goes, read from its
// pod-networks annotation: each network's from the source sources holds
// under the same key ("default" or "<namespace>/<nad>"). Networks without
// a source keep theirs (another controller's).
func ReleasePod(ann netconf.PodNetworks, sources map[string]Source) error {
	var errs []error
	for _, key := range slices.Sorted(maps.Keys(ann)) {
		src, ok := sources[key]
		if !ok {
			continue
		}
		if err := src.Release(ann[key].IPs); err != nil {
			errs = append(errs, names.Errorf("network %s: %w", key, err))
		}
	}
	return errors.Join(errs...)
}

// Primary is a primary network a pod may use, with its NAD key and where
// the pod's addresses on it come from.
type Primary struct {
	Network *udn.Network
	// NAD is the network's NAD in the pod's namespace ("<ns>/<name>").
	NAD    string
	Source Source
}

// names reports whether value names p: the UDN's or CUDN's name, or its
// NAD key.
func (p *Primary) names(value, namespace string) bool {
	if value == p.NAD || namespace+"/"+value == p.NAD {
		return true
	}
	return value == p.NAD[strings.LastIndexByte(p.NAD, '/')+1:]
}

// ChoosePrimary picks a new pod's primary network among its namespace's
// (seed 002) and allocates its addresses there. With the
// requested-primary-udn annotation, the network it names (UDN or CUDN name,
// or NAD key) or an error wrapping ErrNoPrimary; without, the first of
// primaries, in the caller's order, whose addresses are not exhausted. A
// namespace without a primary network (primaries empty) leaves the pod on
// the default network: nil, whatever the annotation. The annotation is read
// at creation only: a pod that exists keeps the network of its pod-networks
// annotation (the caller does not choose again).
func ChoosePrimary(pod Pod, annotations map[string]string, primaries []Primary) (*Primary, []netip.Prefix, error) {
	if len(primaries) == 0 {
		return nil, nil, nil
	}
	if want, ok := annotations[AnnotationRequestedPrimaryUDN]; ok {
		i := slices.IndexFunc(primaries, func(p Primary) bool { return p.names(want, pod.Namespace) })
		if i < 0 {
			return nil, nil, names.Errorf("pod %s/%s: annotation %s %q: %w: the namespace's primary networks are %v",
				pod.Namespace, pod.Name, AnnotationRequestedPrimaryUDN, want, ErrNoPrimary, nadKeys(primaries))
		}
		ips, err := primaries[i].Source.Allocate()
		if err != nil {
			return nil, nil, names.Errorf("pod %s/%s: network %s: %w", pod.Namespace, pod.Name, primaries[i].NAD, err)
		}
		return &primaries[i], ips, nil
	}
	for i := range primaries {
		ips, err := primaries[i].Source.Allocate()
		if errors.Is(err, ipam.ErrExhausted) {
			continue
		}
		if err != nil {
			return nil, nil, names.Errorf("pod %s/%s: network %s: %w", pod.Namespace, pod.Name, primaries[i].NAD, err)
		}
		return &primaries[i], ips, nil
	}
	return nil, nil, names.Errorf("pod %s/%s: %w: every primary network is exhausted (%v): %w",
		pod.Namespace, pod.Name, ErrNoPrimary, nadKeys(primaries), ipam.ErrExhausted)
}

func nadKeys(ps []Primary) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.NAD
	}
	return out
}
