package manifest

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	nadv1 "github.com/k8snetworkplumbingwg/network-attachment-definition-client/pkg/apis/k8s.cni.cncf.io/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/udnkit/udnkit/connect"
	"github.com/udnkit/udnkit/netconf"
	"github.com/udnkit/udnkit/netconf/podnetwork"
	egressipkube "github.com/udnkit/udnkit/topology/egressip/kube"
	egressqoskube "github.com/udnkit/udnkit/topology/egressqos/kube"
	"github.com/udnkit/udnkit/topology/policy"
	policykube "github.com/udnkit/udnkit/topology/policy/kube"
)

// Kinds the Set holds.
const (
	KindNode      = "Node"
	KindNamespace = "Namespace"
	KindNAD       = "NetworkAttachmentDefinition"
	KindPod       = "Pod"
	KindService   = "Service"
	KindSlice     = "EndpointSlice"
	// KindNetworkPolicy is networking.k8s.io/v1 NetworkPolicy.
	KindNetworkPolicy = "NetworkPolicy"
)

// Set is a stream's objects by kind, each list sorted by key. Objects of
// other kinds are counted in Ignored.
type Set struct {
	Nodes                 []*corev1.Node
	Namespaces            []*corev1.Namespace
	NADs                  []*nadv1.NetworkAttachmentDefinition
	UDNs                  []*netconf.UserDefinedNetwork
	CUDNs                 []*netconf.ClusterUserDefinedNetwork
	Connects              []*connect.ClusterNetworkConnect
	PodNetworks           []*podnetwork.PodNetwork
	PodNetworkAttachments []*podnetwork.PodNetworkAttachment
	Pods                  []*corev1.Pod
	Services              []*corev1.Service
	EndpointSlices        []*discoveryv1.EndpointSlice
	NetworkPolicies       []*networkingv1.NetworkPolicy
	EgressIPs             []*egressipkube.EgressIP
	EgressQoSes           []*egressqoskube.EgressQoS
	// Ignored counts the objects of kinds the Set does not hold, by kind.
	Ignored map[string]int

	objects map[string]read // "Kind key" → the object read
}

// crdPaths rewrites the fields of errs, of a spec written in the
// reference CRD's form, to that form's (netconf.CRDFieldPath).
func crdPaths(errs field.ErrorList, t netconf.Topology, cudn bool) {
	for _, e := range errs {
		e.Field = netconf.CRDFieldPath(e.Field, t, cudn)
	}
}

// read is an object as read, and its place in the stream.
type read struct {
	Object
	pos int
}

// Source returns where the object of kind and key was read ("" if it was
// not).
func (s *Set) Source(kind, key string) string { return s.objects[kind+" "+key].Source }

// Decode sorts objs into a Set with the SDK's decoders (which refuse
// unknown fields of the SDK's own kinds; Nodes, Namespaces and NADs are read
// as Kubernetes reads them). It returns every object that decodes and one
// error per object that does not, or that repeats an earlier one's kind and
// key, in the stream's order; each error names the object's source, kind
// and key.
func Decode(objs []Object) (*Set, []error) {
	s := &Set{Ignored: map[string]int{}, objects: map[string]read{}}
	var errs []error
	for i, o := range objs {
		id := o.Kind + " " + o.Key()
		if prev, dup := s.objects[id]; dup {
			errs = append(errs, fmt.Errorf("%s: %s %s: %w: also in %s", o.Source, o.Kind, o.Key(), ErrRead, prev.Source))
			continue
		}
		if err := s.add(o); err != nil {
			errs = append(errs, fmt.Errorf("%s: %s %s: %w", o.Source, o.Kind, o.Key(), err))
			continue
		}
		s.objects[id] = read{o, i}
	}
	s.sort()
	return s, errs
}

func (s *Set) add(o Object) error {
	switch o.Kind {
	case KindNode:
		var n corev1.Node
		if err := json.Unmarshal(o.JSON, &n); err != nil {
			return err
		}
		s.Nodes = append(s.Nodes, &n)
	case KindNamespace:
		var n corev1.Namespace
		if err := json.Unmarshal(o.JSON, &n); err != nil {
			return err
		}
		s.Namespaces = append(s.Namespaces, &n)
	case KindNAD:
		var n nadv1.NetworkAttachmentDefinition
		if err := json.Unmarshal(o.JSON, &n); err != nil {
			return err
		}
		s.NADs = append(s.NADs, &n)
	case netconf.KindUDN:
		u, err := netconf.DecodeUDN(o.JSON)
		if err != nil {
			return err
		}
		s.UDNs = append(s.UDNs, u)
	case netconf.KindCUDN:
		c, err := netconf.DecodeCUDN(o.JSON)
		if err != nil {
			return err
		}
		s.CUDNs = append(s.CUDNs, c)
	case connect.Kind:
		c, err := connect.Decode(o.JSON)
		if err != nil {
			return err
		}
		s.Connects = append(s.Connects, c)
	case podnetwork.KindPodNetwork:
		pn, err := podnetwork.DecodePodNetwork(o.JSON)
		if err != nil {
			return err
		}
		s.PodNetworks = append(s.PodNetworks, pn)
	case podnetwork.KindPodNetworkAttachment:
		pna, err := podnetwork.DecodePodNetworkAttachment(o.JSON)
		if err != nil {
			return err
		}
		s.PodNetworkAttachments = append(s.PodNetworkAttachments, pna)
	case KindPod:
		var p corev1.Pod
		if err := json.Unmarshal(o.JSON, &p); err != nil {
			return err
		}
		s.Pods = append(s.Pods, &p)
	case KindService:
		var svc corev1.Service
		if err := json.Unmarshal(o.JSON, &svc); err != nil {
			return err
		}
		s.Services = append(s.Services, &svc)
	case KindSlice:
		var sl discoveryv1.EndpointSlice
		if err := json.Unmarshal(o.JSON, &sl); err != nil {
			return err
		}
		s.EndpointSlices = append(s.EndpointSlices, &sl)
	case KindNetworkPolicy:
		var np networkingv1.NetworkPolicy
		if err := json.Unmarshal(o.JSON, &np); err != nil {
			return err
		}
		s.NetworkPolicies = append(s.NetworkPolicies, &np)
	case KindEgressIP:
		return s.addEgressIP(o)
	case KindEgressQoS:
		return s.addEgressQoS(o)
	default:
		s.Ignored[o.Kind]++
	}
	return nil
}

func (s *Set) sort() {
	byKey := func(ns, name string) string {
		if ns == "" {
			return name
		}
		return ns + "/" + name
	}
	slices.SortFunc(s.Nodes, func(a, b *corev1.Node) int { return cmp.Compare(a.Name, b.Name) })
	slices.SortFunc(s.Namespaces, func(a, b *corev1.Namespace) int { return cmp.Compare(a.Name, b.Name) })
	slices.SortFunc(s.NADs, func(a, b *nadv1.NetworkAttachmentDefinition) int {
		return cmp.Compare(byKey(a.Namespace, a.Name), byKey(b.Namespace, b.Name))
	})
	slices.SortFunc(s.UDNs, func(a, b *netconf.UserDefinedNetwork) int {
		return cmp.Compare(byKey(a.Namespace, a.Name), byKey(b.Namespace, b.Name))
	})
	slices.SortFunc(s.CUDNs, func(a, b *netconf.ClusterUserDefinedNetwork) int { return cmp.Compare(a.Name, b.Name) })
	slices.SortFunc(s.Connects, func(a, b *connect.ClusterNetworkConnect) int { return cmp.Compare(a.Name, b.Name) })
	slices.SortFunc(s.PodNetworks, func(a, b *podnetwork.PodNetwork) int {
		return cmp.Compare(byKey(a.Namespace, a.Name), byKey(b.Namespace, b.Name))
	})
	slices.SortFunc(s.Pods, func(a, b *corev1.Pod) int {
		return cmp.Compare(byKey(a.Namespace, a.Name), byKey(b.Namespace, b.Name))
	})
	slices.SortFunc(s.Services, func(a, b *corev1.Service) int {
		return cmp.Compare(byKey(a.Namespace, a.Name), byKey(b.Namespace, b.Name))
	})
	slices.SortFunc(s.NetworkPolicies, func(a, b *networkingv1.NetworkPolicy) int {
		return cmp.Compare(byKey(a.Namespace, a.Name), byKey(b.Namespace, b.Name))
	})
	slices.SortFunc(s.EndpointSlices, func(a, b *discoveryv1.EndpointSlice) int {
		return cmp.Compare(byKey(a.Namespace, a.Name), byKey(b.Namespace, b.Name))
	})
	slices.SortFunc(s.PodNetworkAttachments, func(a, b *podnetwork.PodNetworkAttachment) int {
		return cmp.Compare(byKey(a.Namespace, a.Name), byKey(b.Namespace, b.Name))
	})
	s.sortEgress()
}

// IgnoredKinds returns the ignored kinds with their counts, as
// "2 Pod, 1 Service", sorted by kind.
func (s *Set) IgnoredKinds() []string {
	var out []string
	for _, k := range slices.Sorted(maps.Keys(s.Ignored)) {
		out = append(out, fmt.Sprintf("%d %s", s.Ignored[k], k))
	}
	return out
}

// Invalid is one object that does not validate, as the API server would
// refuse it.
type Invalid struct {
	// Source is where the object was read (Object.Source).
	Source string
	// Err is what kubectl prints: `UserDefinedNetwork.k8s.ovn.org "x" is
	// invalid: spec.subnets[0]: Invalid value: ...` (an *apierrors.StatusError).
	Err error

	pos int // in the stream, for sorting
}

func (e Invalid) Error() string { return e.Source + ": " + e.Err.Error() }
func (e Invalid) Unwrap() error { return e.Err }

// Validate validates every object of the kinds the SDK has validators for
// — UserDefinedNetworks, ClusterUserDefinedNetworks, ClusterNetworkConnects,
// PodNetworks, PodNetworkAttachments, NetworkPolicies, EgressIPs, EgressQoSes, the NetConf of
// OVN-managed NADs and the reference's annotations on Nodes — and returns one Invalid per object that
// fails, sorted by source.
func (s *Set) Validate() []Invalid {
	var out []Invalid
	add := func(group, kind, ns, name string, errs field.ErrorList) {
		if len(errs) == 0 {
			return
		}
		key := name
		if ns != "" {
			key = ns + "/" + name
		}
		r := s.objects[kind+" "+key]
		out = append(out, Invalid{Source: r.Source, pos: r.pos,
			Err: apierrors.NewInvalid(schema.GroupKind{Group: group, Kind: kind}, name, errs)})
	}
	for _, u := range s.UDNs {
		errs := netconf.ValidateUDN(u)
		if netconf.IsCRDForm(s.objects[netconf.KindUDN+" "+u.Namespace+"/"+u.Name].JSON, false) {
			crdPaths(errs, u.Spec.Topology, false)
		}
		add(groupOf(u.APIVersion, "k8s.ovn.org"), netconf.KindUDN, u.Namespace, u.Name, errs)
	}
	for _, c := range s.CUDNs {
		errs := netconf.ValidateCUDN(c)
		if c.Spec.Template != nil && netconf.IsCRDForm(s.objects[netconf.KindCUDN+" "+c.Name].JSON, true) {
			crdPaths(errs, c.Spec.Template.Spec.Topology, true)
		}
		add(groupOf(c.APIVersion, "k8s.ovn.org"), netconf.KindCUDN, "", c.Name, errs)
	}
	for _, c := range s.Connects {
		add(connect.Group, connect.Kind, "", c.Name, connect.Validate(c))
	}
	for _, pn := range s.PodNetworks {
		add(groupOf(pn.APIVersion, ""), podnetwork.KindPodNetwork, pn.Namespace, pn.Name, podnetwork.ValidatePodNetwork(pn))
	}
	for _, pna := range s.PodNetworkAttachments {
		add(groupOf(pna.APIVersion, ""), podnetwork.KindPodNetworkAttachment, pna.Namespace, pna.Name,
			podnetwork.ValidatePodNetworkAttachment(pna))
	}
	for _, nad := range s.NADs {
		if _, err := netconf.ParseNAD(nad); err != nil && !ignoredNAD(err) {
			add(podnetwork.NADGroup, KindNAD, nad.Namespace, nad.Name,
				field.ErrorList{field.Invalid(field.NewPath("spec", "config"), field.OmitValueType{}, err.Error())})
		}
	}
	for _, np := range s.NetworkPolicies {
		p, err := policykube.PolicyFrom(np)
		errs := policy.Validate(&p)
		if err != nil {
			errs = field.ErrorList{policyReadError(np, err)}
		}
		add("networking.k8s.io", KindNetworkPolicy, np.Namespace, np.Name, errs)
	}
	s.validateEgress(add)
	for _, n := range s.Nodes {
		if _, err := NodeOf(n); err != nil {
			var ae *AnnotationError
			if errors.As(err, &ae) {
				add("", KindNode, "", n.Name, field.ErrorList{field.Invalid(
					field.NewPath("metadata", "annotations").Key(ae.Annotation), ae.Value, ae.Err.Error())})
			}
		}
	}
	slices.SortStableFunc(out, func(a, b Invalid) int { return cmp.Compare(a.pos, b.pos) })
	return out
}

// policyReadError is what policykube.PolicyFrom refused, at the field
// its message names ("networkpolicy NS/NAME: PATH: ...").
func policyReadError(np *networkingv1.NetworkPolicy, err error) *field.Error {
	msg := strings.TrimPrefix(err.Error(), "networkpolicy "+np.Namespace+"/"+np.Name+": ")
	path, detail, ok := strings.Cut(msg, ": ")
	if !ok || !strings.HasPrefix(path, "spec.") {
		path, detail = "spec", err.Error()
	}
	detail = strings.TrimPrefix(detail, policykube.ErrPolicy.Error()+": ")
	return &field.Error{Type: field.ErrorTypeInvalid, Field: path, BadValue: field.OmitValueType{}, Detail: detail}
}

// ignoredNAD reports whether a NAD's parse error means the NAD is not
// udnkit's to read: another plugin's, or the default network's.
func ignoredNAD(err error) bool {
	return errors.Is(err, netconf.ErrNotOVNManaged) || errors.Is(err, netconf.ErrDefaultNetworkNAD)
}

// groupOf returns the group of apiVersion, or def when it has none.
func groupOf(apiVersion, def string) string {
	for i := range len(apiVersion) {
		if apiVersion[i] == '/' {
			return apiVersion[:i]
		}
	}
	return def
}
