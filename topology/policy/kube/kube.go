package kube

import (
	"fmt"
	"net/netip"
	"slices"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/udnkit/udnkit/internal/sdkerr"
	"github.com/udnkit/udnkit/netconf"
	"github.com/udnkit/udnkit/topology/pods"
	"github.com/udnkit/udnkit/topology/policy"
)

// AnnotationStateless, "true" on a NetworkPolicy, asks for stateless ACLs
// (the reference honours it when the cluster enables stateless policies;
// the caller decides).
const AnnotationStateless = "k8s.ovn.org/acl-stateless"

// ErrPolicy is wrapped by the errors of reading a NetworkPolicy or a pod.
var ErrPolicy = sdkerr.New(sdkerr.Invalid, "invalid network policy object")

// PolicyFrom reads a NetworkPolicy. It refuses what the planner cannot
// represent (a protocol other than TCP, UDP and SCTP, a CIDR that does not
// parse, an unknown selector operator), naming the field; the planner's
// policy.Validate checks the rest.
func PolicyFrom(np *networkingv1.NetworkPolicy) (policy.Policy, error) {
	out := policy.Policy{Namespace: np.Namespace, Name: np.Name, Stateless: np.Annotations[AnnotationStateless] == "true"}
	fail := func(path string, format string, args ...any) (policy.Policy, error) {
		return policy.Policy{}, fmt.Errorf("networkpolicy %s/%s: %s: %w: %s", np.Namespace, np.Name, path, ErrPolicy, fmt.Sprintf(format, args...))
	}
	var err error
	out.PodSelector, err = selectorFrom(&np.Spec.PodSelector)
	if err != nil {
		return fail("spec.podSelector", "%v", err)
	}
	for i, r := range np.Spec.Ingress {
		rule, path, err := ruleFrom(r.From, r.Ports, fmt.Sprintf("spec.ingress[%d]", i), "from")
		if err != nil {
			return fail(path, "%v", err)
		}
		out.Ingress = append(out.Ingress, rule)
	}
	for i, r := range np.Spec.Egress {
		rule, path, err := ruleFrom(r.To, r.Ports, fmt.Sprintf("spec.egress[%d]", i), "to")
		if err != nil {
			return fail(path, "%v", err)
		}
		out.Egress = append(out.Egress, rule)
	}
	for i, t := range np.Spec.PolicyTypes {
		switch t {
		case networkingv1.PolicyTypeIngress:
			out.PolicyTypes = append(out.PolicyTypes, policy.Ingress)
		case networkingv1.PolicyTypeEgress:
			out.PolicyTypes = append(out.PolicyTypes, policy.Egress)
		default:
			return fail(fmt.Sprintf("spec.policyTypes[%d]", i), "%q is not Ingress or Egress", t)
		}
	}
	return out, nil
}

func ruleFrom(peers []networkingv1.NetworkPolicyPeer, ports []networkingv1.NetworkPolicyPort, path, peersField string) (policy.Rule, string, error) {
	var r policy.Rule
	for i, p := range peers {
		pp := fmt.Sprintf("%s.%s[%d]", path, peersField, i)
		var peer policy.Peer
		if p.PodSelector != nil {
			s, err := selectorFrom(p.PodSelector)
			if err != nil {
				return r, pp + ".podSelector", err
			}
			peer.PodSelector = &s
		}
		if p.NamespaceSelector != nil {
			s, err := selectorFrom(p.NamespaceSelector)
			if err != nil {
				return r, pp + ".namespaceSelector", err
			}
			peer.NamespaceSelector = &s
		}
		if b := p.IPBlock; b != nil {
			cidr, err := netip.ParsePrefix(b.CIDR)
			if err != nil {
				return r, pp + ".ipBlock.cidr", err
			}
			blk := &policy.IPBlock{CIDR: cidr}
			for j, e := range b.Except {
				ex, err := netip.ParsePrefix(e)
				if err != nil {
					return r, fmt.Sprintf("%s.ipBlock.except[%d]", pp, j), err
				}
				blk.Except = append(blk.Except, ex)
			}
			peer.IPBlock = blk
		}
		r.Peers = append(r.Peers, peer)
	}
	for i, p := range ports {
		pp := fmt.Sprintf("%s.ports[%d]", path, i)
		var port policy.Port
		proto, err := protocolFrom(p.Protocol)
		if err != nil {
			return r, pp + ".protocol", err
		}
		port.Protocol = proto
		if p.Port != nil {
			switch p.Port.Type {
			case intstr.Int:
				port.Number = p.Port.IntVal
			case intstr.String:
				port.Name = p.Port.StrVal
			}
		}
		if p.EndPort != nil {
			port.EndPort = *p.EndPort
		}
		r.Ports = append(r.Ports, port)
	}
	return r, "", nil
}

func protocolFrom(p *corev1.Protocol) (policy.Protocol, error) {
	if p == nil {
		return policy.TCP, nil
	}
	switch *p {
	case corev1.ProtocolTCP:
		return policy.TCP, nil
	case corev1.ProtocolUDP:
		return policy.UDP, nil
	case corev1.ProtocolSCTP:
		return policy.SCTP, nil
	}
	return 0, fmt.Errorf("%q is not TCP, UDP or SCTP", *p)
}

func selectorFrom(s *metav1.LabelSelector) (policy.Selector, error) {
	var out policy.Selector
	if len(s.MatchLabels) > 0 {
		out.MatchLabels = policy.Labels{}
		for k, v := range s.MatchLabels {
			out.MatchLabels[k] = v
		}
	}
	for i, e := range s.MatchExpressions {
		op := policy.Operator(e.Operator)
		switch op {
		case policy.OpIn, policy.OpNotIn, policy.OpExists, policy.OpDoesNotExist:
		default:
			return policy.Selector{}, fmt.Errorf("matchExpressions[%d].operator: %q is not In, NotIn, Exists or DoesNotExist", i, e.Operator)
		}
		out.MatchExpressions = append(out.MatchExpressions, policy.Requirement{Key: e.Key, Operator: op, Values: slices.Clone(e.Values)})
	}
	return out, nil
}

// AnnotationMulticast, "true" on a Namespace, enables multicast among its
// pods (the reference's annotation).
const AnnotationMulticast = policy.AnnotationMulticast

// NamespaceFrom reads a namespace's labels (the API server sets
// kubernetes.io/metadata.name on every namespace), multicast switch and
// ACL logging (k8s.ovn.org/acl-logging, policy.ParseACLLogging). An
// annotation that does not parse logs what parsed, as the reference does,
// and is returned as the error, naming the namespace.
func NamespaceFrom(ns *corev1.Namespace) (policy.Namespace, error) {
	labels := policy.Labels{}
	for k, v := range ns.Labels {
		labels[k] = v
	}
	logging, err := policy.ParseACLLogging(ns.Annotations[policy.AnnotationACLLogging])
	if err != nil {
		err = fmt.Errorf("namespace %s: %w", ns.Name, err)
	}
	return policy.Namespace{Name: ns.Name, Labels: labels, Multicast: ns.Annotations[AnnotationMulticast] == "true", Logging: logging}, err
}

// PodFrom reads a pod: its labels, its containers' named ports and, from
// its k8s.ovn.org/pod-networks annotation, its attachments to the
// user-defined networks networks names (NAD key to network name; the
// default network and NADs not listed are left out). A host-network pod, a
// pod not yet annotated or one that has finished has no attachment: it is
// no peer and in no port group. ok is false when the pod has no attachment.
func PodFrom(pod *corev1.Pod, networks map[string]string) (p policy.Pod, ok bool, err error) {
	p = policy.Pod{Namespace: pod.Namespace, Name: pod.Name, Node: pod.Spec.NodeName, Labels: policy.Labels{}}
	for k, v := range pod.Labels {
		p.Labels[k] = v
	}
	for _, c := range pod.Spec.Containers {
		for _, cp := range c.Ports {
			if cp.Name == "" {
				continue
			}
			proto, err := protocolFrom(&cp.Protocol)
			if cp.Protocol == "" {
				proto, err = policy.TCP, nil
			}
			if err != nil {
				return policy.Pod{}, false, fmt.Errorf("pod %s/%s: container %s port %s: %w: %v", pod.Namespace, pod.Name, c.Name, cp.Name, ErrPolicy, err)
			}
			p.Ports = append(p.Ports, policy.ContainerPort{Name: cp.Name, Protocol: proto, Number: cp.ContainerPort})
		}
	}
	if pod.Spec.HostNetwork || pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed {
		return p, false, nil
	}
	raw, found := pod.Annotations[netconf.AnnotationPodNetworks]
	if !found {
		return p, false, nil
	}
	ann, err := netconf.ParsePodNetworks(raw)
	if err != nil {
		return policy.Pod{}, false, fmt.Errorf("pod %s/%s: annotations[%s]: %w", pod.Namespace, pod.Name, netconf.AnnotationPodNetworks, err)
	}
	if d, ok := ann[netconf.DefaultNetworkKey]; ok && d.Role == netconf.PodRoleInfrastructureLocked {
		// Its primary network is a user-defined one: its port on the
		// default network (the reference's "<namespace>_<name>") is
		// isolated, but for its open default ports.
		p.DefaultPort = pods.PortName(pod.Namespace, pod.Name, "")
		if raw, ok := pod.Annotations[policy.AnnotationOpenPorts]; ok {
			if p.OpenPorts, err = policy.ParseOpenPorts(raw); err != nil {
				return policy.Pod{}, false, fmt.Errorf("pod %s/%s: %w", pod.Namespace, pod.Name, err)
			}
		}
	}
	nads := make([]string, 0, len(ann))
	for nad := range ann {
		nads = append(nads, nad)
	}
	slices.Sort(nads)
	for _, nad := range nads {
		network, listed := networks[nad]
		if !listed {
			continue
		}
		a := policy.Attachment{Network: network, Port: pods.PortName(pod.Namespace, pod.Name, nad)}
		for _, ip := range ann[nad].IPs {
			a.IPs = append(a.IPs, ip.Addr())
		}
		p.Networks = append(p.Networks, a)
	}
	return p, len(p.Networks) > 0, nil
}
