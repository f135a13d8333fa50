package kube

import (
	"net/netip"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/udnkit/udnkit/internal/names"
	"github.com/udnkit/udnkit/internal/sdkerr"
	"github.com/udnkit/udnkit/netconf"
	"github.com/udnkit/udnkit/topology/services"
)

// Labels of a mirrored EndpointSlice, as the reference writes them.
const (
	// EndpointSliceMirrorController is the managed-by label's value.
	EndpointSliceMirrorController = "endpointslice-mirror-controller.k8s.ovn.org"
	LabelSourceEndpointSlice      = "k8s.ovn.org/source-endpointslice"
	LabelSourceEndpointSliceVer   = "k8s.ovn.org/source-endpointslice-version"
	LabelEndpointSliceNetwork     = "k8s.ovn.org/endpointslice-network"
	// LabelServiceName names the Service of a mirrored slice (the default
	// network's slices carry discoveryv1.LabelServiceName instead).
	LabelServiceName = "k8s.ovn.org/service-name"
)

// DefaultAffinitySeconds is Kubernetes' ClientIP affinity timeout when the
// Service sets none.
const DefaultAffinitySeconds = 10800

// ErrService is wrapped by the errors of reading a Service or an
// EndpointSlice.
var ErrService = sdkerr.New(sdkerr.Invalid, "invalid service")

// ServiceFrom reads a Service for the services planner with slices, the
// EndpointSlices of the network it is planned on. ok is false for a
// Service without cluster IPs (ExternalName, headless): it gets no load
// balancer. FQDN slices are skipped.
func ServiceFrom(svc *corev1.Service, slices []*discoveryv1.EndpointSlice) (out services.Service, ok bool, err error) {
	where := "service " + svc.Namespace + "/" + svc.Name
	sp := &svc.Spec
	if sp.Type == corev1.ServiceTypeExternalName {
		return out, false, nil
	}
	out = services.Service{Namespace: svc.Namespace, Name: svc.Name, PublishNotReadyAddresses: sp.PublishNotReadyAddresses}
	ips := sp.ClusterIPs
	if len(ips) == 0 && sp.ClusterIP != "" {
		ips = []string{sp.ClusterIP}
	}
	if sp.ClusterIP != "" && len(ips) > 0 && ips[0] != sp.ClusterIP {
		return out, false, names.Errorf("%s: spec.clusterIP: %w: %q contradicts spec.clusterIPs[0] %q", where, ErrService, sp.ClusterIP, ips[0])
	}
	if len(ips) > 2 {
		return out, false, names.Errorf("%s: spec.clusterIPs: %w: %d addresses, at most one per family", where, ErrService, len(ips))
	}
	for i, s := range ips {
		if s == corev1.ClusterIPNone || s == "" {
			continue
		}
		a, err := netip.ParseAddr(s)
		if err != nil {
			return out, false, names.Errorf("%s: spec.clusterIPs[%d]: %w: %v", where, i, ErrService, err)
		}
		if a.Is4In6() || a.Zone() != "" {
			return out, false, names.Errorf("%s: spec.clusterIPs[%d]: %w: %s is not a plain IPv4 or IPv6 address", where, i, ErrService, s)
		}
		if len(out.ClusterIPs) > 0 && out.ClusterIPs[0].Is4() == a.Is4() {
			return out, false, names.Errorf("%s: spec.clusterIPs[%d]: %w: a second address of its family", where, i, ErrService)
		}
		out.ClusterIPs = append(out.ClusterIPs, a)
	}
	if len(out.ClusterIPs) == 0 {
		return out, false, nil
	}
	for i, s := range sp.ExternalIPs {
		a, err := netip.ParseAddr(s)
		if err != nil {
			return out, false, names.Errorf("%s: spec.externalIPs[%d]: %w: %v", where, i, ErrService, err)
		}
		out.ExternalIPs = append(out.ExternalIPs, a)
	}
	if sp.Type == corev1.ServiceTypeLoadBalancer {
		for i, ing := range svc.Status.LoadBalancer.Ingress {
			if ing.IP == "" {
				continue
			}
			a, err := netip.ParseAddr(ing.IP)
			if err != nil {
				return out, false, names.Errorf("%s: status.loadBalancer.ingress[%d].ip: %w: %v", where, i, ErrService, err)
			}
			out.LoadBalancerIPs = append(out.LoadBalancerIPs, a)
		}
	}
	for i, p := range sp.Ports {
		if p.Port < 1 || p.Port > 65535 || p.NodePort < 0 || p.NodePort > 65535 {
			return out, false, names.Errorf("%s: spec.ports[%d]: %w: port %d, nodePort %d", where, i, ErrService, p.Port, p.NodePort)
		}
		proto := p.Protocol
		if proto == "" {
			proto = corev1.ProtocolTCP
		}
		out.Ports = append(out.Ports, services.Port{Name: p.Name, Protocol: services.Protocol(proto), Port: uint16(p.Port),
			NodePort: uint16(p.NodePort)})
	}
	external := sp.Type == corev1.ServiceTypeNodePort || sp.Type == corev1.ServiceTypeLoadBalancer
	out.ExternalTrafficLocal = external && sp.ExternalTrafficPolicy == corev1.ServiceExternalTrafficPolicyLocal
	out.InternalTrafficLocal = sp.InternalTrafficPolicy != nil && *sp.InternalTrafficPolicy == corev1.ServiceInternalTrafficPolicyLocal
	if sp.SessionAffinity == corev1.ServiceAffinityClientIP {
		out.AffinitySeconds = DefaultAffinitySeconds
		if c := sp.SessionAffinityConfig; c != nil && c.ClientIP != nil && c.ClientIP.TimeoutSeconds != nil {
			out.AffinitySeconds = *c.ClientIP.TimeoutSeconds
		}
	}
	for _, sl := range slices {
		s, ok, err := EndpointSliceFrom(sl)
		if err != nil {
			return out, false, names.Errorf("%s: %w", where, err)
		}
		if ok {
			out.Slices = append(out.Slices, s)
		}
	}
	return out, true, nil
}

// EndpointSliceFrom reads an EndpointSlice; ok is false for an FQDN one.
func EndpointSliceFrom(sl *discoveryv1.EndpointSlice) (out services.EndpointSlice, ok bool, err error) {
	if sl.AddressType != discoveryv1.AddressTypeIPv4 && sl.AddressType != discoveryv1.AddressTypeIPv6 {
		return out, false, nil
	}
	where := "endpointslice " + sl.Namespace + "/" + sl.Name
	for _, p := range sl.Ports {
		if p.Port == nil || *p.Port < 1 || *p.Port > 65535 {
			continue // a port without a number matches no Service port
		}
		ep := services.EndpointPort{Protocol: services.ProtocolTCP, Port: uint16(*p.Port)}
		if p.Name != nil {
			ep.Name = *p.Name
		}
		if p.Protocol != nil {
			ep.Protocol = services.Protocol(*p.Protocol)
		}
		out.Ports = append(out.Ports, ep)
	}
	for i, e := range sl.Endpoints {
		ep := services.Endpoint{Ready: e.Conditions.Ready, Serving: e.Conditions.Serving, Terminating: e.Conditions.Terminating}
		if e.NodeName != nil {
			ep.Node = *e.NodeName
		}
		for j, s := range e.Addresses {
			a, err := netip.ParseAddr(s)
			if err != nil {
				return out, false, names.Errorf("%s: endpoints[%d].addresses[%d]: %w: %v", where, i, j, ErrService, err)
			}
			ep.Addresses = append(ep.Addresses, a)
		}
		out.Endpoints = append(out.Endpoints, ep)
	}
	return out, true, nil
}

// PodGetter returns a pod by namespace and name (a lister's Get).
type PodGetter func(namespace, name string) (*corev1.Pod, error)

// MirrorEndpointSlice returns the EndpointSlice of a primary user-defined
// network that mirrors src, a default-network EndpointSlice of a Service in
// one of the network's namespaces, as the reference's mirror controller
// writes it: the same ports and address type, each pod endpoint with the
// pod's address on the network (from its pod-networks annotation under
// nad, "<namespace>/<name>"; a host-networked pod keeps its own), and the
// labels that name the source slice, its version, the network and the
// Service. current is the mirror written before (nil: a new one, named
// through GenerateName "<network>-<source name>").
//
// The mirror shares no memory with src or current.
//
// Endpoints that are not pods are left out (the reference leaves an empty
// endpoint in their place).
func MirrorEndpointSlice(src, current *discoveryv1.EndpointSlice, network, nad string, pods PodGetter) (*discoveryv1.EndpointSlice, error) {
	out := &discoveryv1.EndpointSlice{}
	if current != nil {
		out = current.DeepCopy()
	} else {
		out.Namespace = src.Namespace
		out.OwnerReferences = (&metav1.ObjectMeta{OwnerReferences: src.OwnerReferences}).DeepCopy().OwnerReferences
	}
	if out.Labels == nil {
		out.Labels = map[string]string{}
	}
	out.AddressType = src.AddressType
	out.Ports = (&discoveryv1.EndpointSlice{Ports: src.Ports}).DeepCopy().Ports
	out.Labels[discoveryv1.LabelManagedBy] = EndpointSliceMirrorController
	out.Labels[LabelSourceEndpointSlice] = src.Name
	out.Labels[LabelSourceEndpointSliceVer] = src.ResourceVersion
	out.Labels[LabelEndpointSliceNetwork] = network
	out.Labels[LabelServiceName] = src.Labels[discoveryv1.LabelServiceName]
	if out.Name == "" {
		gen := src.GenerateName
		if gen == "" {
			gen = src.Name
		}
		out.GenerateName = gen
		if g := network + "-" + gen; len(apivalidation.NameIsDNSSubdomain(g, true)) == 0 {
			out.GenerateName = g
		}
	}
	v6 := src.AddressType == discoveryv1.AddressTypeIPv6
	out.Endpoints = make([]discoveryv1.Endpoint, 0, len(src.Endpoints))
	for i, e := range src.Endpoints {
		if e.TargetRef == nil || e.TargetRef.Kind != "Pod" {
			continue
		}
		ip, err := podIP(pods, e.TargetRef.Namespace, e.TargetRef.Name, nad, v6)
		if err != nil {
			return nil, names.Errorf("endpointslice %s/%s: endpoints[%d]: %w", src.Namespace, src.Name, i, err)
		}
		m := *e.DeepCopy()
		m.Addresses = []string{ip.String()}
		out.Endpoints = append(out.Endpoints, m)
	}
	return out, nil
}

// podIP returns the pod's first address of the family on nad, or for a
// host-networked pod its own first one.
func podIP(pods PodGetter, namespace, name, nad string, v6 bool) (netip.Addr, error) {
	pod, err := pods(namespace, name)
	if err != nil {
		return netip.Addr{}, names.Errorf("pod %s/%s: %w", namespace, name, err)
	}
	if pod.Spec.HostNetwork {
		for _, p := range pod.Status.PodIPs {
			if a, err := netip.ParseAddr(p.IP); err == nil && a.Is6() == v6 {
				return a, nil
			}
		}
		return netip.Addr{}, names.Errorf("pod %s/%s: %w: no host address of the family", namespace, name, ErrService)
	}
	pn, err := netconf.ParsePodNetworks(pod.Annotations[netconf.AnnotationPodNetworks])
	if err != nil {
		return netip.Addr{}, names.Errorf("pod %s/%s: %w", namespace, name, err)
	}
	n, ok := pn[nad]
	if !ok {
		return netip.Addr{}, names.Errorf("pod %s/%s: %w: no address on %s", namespace, name, ErrService, nad)
	}
	for _, p := range n.IPs {
		if p.Addr().Is6() == v6 {
			return p.Addr(), nil
		}
	}
	return netip.Addr{}, names.Errorf("pod %s/%s: %w: no address of the family on %s", namespace, name, ErrService, nad)
}
