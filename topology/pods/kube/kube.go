package kube

import (
	"encoding/json"
	"fmt"
	"maps"

	corev1 "k8s.io/api/core/v1"

	"github.com/udnkit/udnkit/internal/sdkerr"
	"github.com/udnkit/udnkit/netconf"
	"github.com/udnkit/udnkit/topology/pods"
	"github.com/udnkit/udnkit/topology/policy"
	policykube "github.com/udnkit/udnkit/topology/policy/kube"
)

// ErrNotAttached is returned by PodFrom for a pod the SDK does not attach:
// host-networked, not scheduled yet, or done (Succeeded or Failed).
var ErrNotAttached = sdkerr.New(sdkerr.NotFound, "pod is not attached to networks")

// Pod is a pod as the planners read it: who and where it is, the
// annotations that choose its networks (k8s.v1.cni.cncf.io/networks,
// k8s.ovn.org/requested-primary-udn) or record them
// (k8s.ovn.org/pod-networks), and what network policies select it by: its
// labels and its containers' named ports. Its fields are udnkit.Pod's.
type Pod struct {
	pods.Pod
	Annotations map[string]string
	Labels      map[string]string
	Ports       []policy.ContainerPort
}

// PodFrom reads a Pod. A pod that gets no ports (host-networked,
// unscheduled, completed) is refused with an error wrapping
// ErrNotAttached; a pod without name, namespace or UID with
// pods.ErrInvalid.
func PodFrom(p *corev1.Pod) (Pod, error) {
	if p == nil {
		return Pod{}, fmt.Errorf("%w: pod is nil", pods.ErrInvalid)
	}
	key := p.Namespace + "/" + p.Name
	switch {
	case p.Name == "" || p.Namespace == "":
		return Pod{}, fmt.Errorf("pod %q: metadata: %w: name and namespace are required", key, pods.ErrInvalid)
	case p.UID == "":
		return Pod{}, fmt.Errorf("pod %s: metadata.uid: %w: empty", key, pods.ErrInvalid)
	case p.Spec.HostNetwork:
		return Pod{}, fmt.Errorf("pod %s: spec.hostNetwork: %w", key, ErrNotAttached)
	case p.Spec.NodeName == "":
		return Pod{}, fmt.Errorf("pod %s: spec.nodeName: %w: not scheduled", key, ErrNotAttached)
	case p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed:
		return Pod{}, fmt.Errorf("pod %s: status.phase %s: %w", key, p.Status.Phase, ErrNotAttached)
	}
	out := Pod{Pod: pods.Pod{Namespace: p.Namespace, Name: p.Name, UID: string(p.UID), Node: p.Spec.NodeName}}
	pp, _, err := policykube.PodFrom(p, nil) // its labels and named ports, as policies read them
	if err != nil {
		return Pod{}, fmt.Errorf("pod %s: %w: %w", key, pods.ErrInvalid, err)
	}
	out.Labels, out.Ports = maps.Clone(map[string]string(pp.Labels)), pp.Ports
	if len(p.Annotations) > 0 {
		out.Annotations = make(map[string]string, 3)
		for _, k := range []string{pods.AnnotationNetworks, pods.AnnotationRequestedPrimaryUDN, netconf.AnnotationPodNetworks} {
			if v, ok := p.Annotations[k]; ok {
				out.Annotations[k] = v
			}
		}
	}
	return out, nil
}

// AnnotationPatch returns the JSON merge patch that sets a pod's
// k8s.ovn.org/pod-networks annotation to value (from
// udnkit.Cluster.PodAnnotation or netconf.PodNetworks.Marshal), touching
// no other annotation.
func AnnotationPatch(value string) ([]byte, error) {
	if _, err := netconf.ParsePodNetworks(value); err != nil {
		return nil, fmt.Errorf("annotation %s: %w", netconf.AnnotationPodNetworks, err)
	}
	return json.Marshal(map[string]any{"metadata": map[string]any{"annotations": map[string]string{netconf.AnnotationPodNetworks: value}}})
}

// Annotated returns p's annotations with the pod-networks value set, for
// a caller that updates the whole object.
func Annotated(p *corev1.Pod, value string) map[string]string {
	out := maps.Clone(p.Annotations)
	if out == nil {
		out = map[string]string{}
	}
	out[netconf.AnnotationPodNetworks] = value
	return out
}
