package controller

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/udnkit/udnkit"
	"github.com/udnkit/udnkit/netconf"
	podkube "github.com/udnkit/udnkit/topology/pods/kube"
	policykube "github.com/udnkit/udnkit/topology/policy/kube"
	svckube "github.com/udnkit/udnkit/topology/services/kube"
)

// The keys of fed and refused for the workload kinds.
const (
	keyPod     = "Pod"
	keyService = "Service"
	keyPolicy  = "NetworkPolicy"
)

// feedWorkloads hands the Cluster the pods, Services (with their
// EndpointSlices mirrored onto the namespace's primary networks) and
// NetworkPolicies that changed, after the networks and connects of the
// same pass, and marks what it saw in seen. Pods that carry a
// k8s.ovn.org/pod-networks annotation are set before the new ones, so a
// new pod never takes an address a recorded one holds.
func (r *reconciler) feedWorkloads(w *world, seen map[string]bool) {
	primaries := r.primaryNADs()
	nsLabels := map[string]map[string]string{}
	for _, ns := range w.namespaces {
		nsLabels[ns.Name] = ns.Labels
	}

	recorded, fresh := []int{}, []int{}
	for i := range w.pods {
		if _, ok := w.pods[i].Annotations[netconf.AnnotationPodNetworks]; ok {
			recorded = append(recorded, i)
		} else {
			fresh = append(fresh, i)
		}
	}
	for _, i := range append(recorded, fresh...) {
		p := &w.pods[i]
		key := keyPod + " " + p.Namespace + "/" + p.Name
		kp, err := podkube.PodFrom(p)
		if errors.Is(err, podkube.ErrNotAttached) {
			continue // host-networked, unscheduled or done: removed below if it was set
		}
		if err != nil {
			seen[key] = true
			r.refuse(key, err)
			continue
		}
		if _, needs := nsLabels[p.Namespace][netconf.LabelPrimaryUDN]; needs && len(primaries[p.Namespace]) == 0 {
			// Its primary network is not held yet: the pod waits for it
			// (set now, it would get the default network only).
			if _, ok := r.fed[key]; ok {
				seen[key] = true
			}
			continue
		}
		seen[key] = true
		fp := podFingerprint(kp)
		if r.fed[key] == fp {
			continue
		}
		ev, err := r.cluster.SetPod(udnkit.Pod{Pod: kp.Pod, Annotations: kp.Annotations, Labels: kp.Labels, Ports: kp.Ports})
		if err != nil {
			r.refuse(key, err) // not fed: tried again on the next pass
			continue
		}
		delete(r.refused, key)
		r.fed[key] = fp
		r.event(ev)
	}

	pods := map[string]*corev1.Pod{}
	for i := range w.pods {
		pods[w.pods[i].Namespace+"/"+w.pods[i].Name] = &w.pods[i]
	}
	// Each Service's slices, found once instead of scanning every slice
	// per Service on every pass.
	slicesOf := map[string][]discoveryv1.EndpointSlice{}
	for _, sl := range w.slices {
		if svc, ok := sl.Labels[discoveryv1.LabelServiceName]; ok {
			slicesOf[sl.Namespace+"/"+svc] = append(slicesOf[sl.Namespace+"/"+svc], sl)
		}
	}
	for i := range w.services {
		svc := &w.services[i]
		key := keyService + " " + svc.Namespace + "/" + svc.Name
		out, ok, err := svckube.ServiceFrom(svc, r.mirror(svc, slicesOf[svc.Namespace+"/"+svc.Name], primaries[svc.Namespace], pods))
		if err != nil {
			seen[key] = true
			r.refuse(key, err)
			continue
		}
		if !ok {
			continue // no cluster IP: no load balancer (removed below if it had one)
		}
		seen[key] = true
		b, _ := json.Marshal(out)
		if r.fed[key] == string(b) {
			continue
		}
		ev, err := r.cluster.SetService(out)
		if err != nil {
			r.refuse(key, err)
			continue
		}
		delete(r.refused, key)
		r.fed[key] = string(b)
		r.event(ev)
	}

	for i := range w.policies {
		np := &w.policies[i]
		key := keyPolicy + " " + np.Namespace + "/" + np.Name
		seen[key] = true
		fp := fingerprint(np.UID, struct {
			Spec      networkingv1.NetworkPolicySpec
			Stateless string
		}{np.Spec, np.Annotations[policykube.AnnotationStateless]})
		if r.fed[key] == fp {
			continue
		}
		p, err := policykube.PolicyFrom(np)
		var ev udnkit.Event
		if err == nil {
			ev, err = r.cluster.SetNetworkPolicy(p)
		}
		if err != nil {
			r.refuse(key, err)
			r.fed[key] = fp // a policy is refused until it changes
			continue
		}
		delete(r.refused, key)
		r.fed[key] = fp
		r.event(ev)
	}
}

// removeWorkload forgets a pod, Service or NetworkPolicy no longer seen.
func (r *reconciler) removeWorkload(kind, name string) (udnkit.Event, bool) {
	ns, n, _ := strings.Cut(name, "/")
	switch kind {
	case keyPod:
		return r.cluster.RemovePod(ns, n), true
	case keyService:
		return r.cluster.RemoveService(ns, n), true
	case keyPolicy:
		return r.cluster.RemoveNetworkPolicy(ns, n), true
	}
	return udnkit.Event{}, false
}

func (r *reconciler) refuse(key string, err error) {
	if prev, ok := r.refused[key]; !ok || prev.Error() != err.Error() {
		r.cfg.Logger.Info("refused", "object", key, "error", err.Error())
	}
	r.refused[key] = err
}

// podFingerprint identifies what the Cluster is fed of a pod, without its
// pod-networks annotation: the controller writes that one itself.
func podFingerprint(kp podkube.Pod) string {
	ann := map[string]string{}
	for k, v := range kp.Annotations {
		if k != netconf.AnnotationPodNetworks {
			ann[k] = v
		}
	}
	b, _ := json.Marshal(struct {
		Pod    any
		Ann    map[string]string
		Labels map[string]string
		Ports  any
	}{kp.Pod, ann, kp.Labels, kp.Ports})
	return string(b)
}

// nadRef is a NAD key and its network's name.
type nadRef struct{ nad, network string }

// primaryNADs returns, by namespace, the NADs of the primary networks the
// Cluster holds there, sorted by NAD key.
func (r *reconciler) primaryNADs() map[string][]nadRef {
	out := map[string][]nadRef{}
	for _, name := range r.cluster.Names() {
		n, ok := r.cluster.Network(name)
		if !ok || !n.IsPrimary() {
			continue
		}
		for _, nad := range n.NADs {
			ns, _, _ := strings.Cut(nad, "/")
			out[ns] = append(out[ns], nadRef{nad, n.Name})
		}
	}
	for _, v := range out {
		slices.SortFunc(v, func(a, b nadRef) int { return strings.Compare(a.nad, b.nad) })
	}
	return out
}

// mirror returns svc's EndpointSlices on its namespace's primary networks
// (nads): each default-network slice of the Service mirrored onto each
// network as the reference's mirror controller does, its pod endpoints
// holding the pods' addresses on that network. Endpoints of pods without
// an address there yet (not set, or on no such network) are left out; a
// later pass adds them. The mirrors are not written to the API server.
// all holds the slices labelled with svc's name, in its namespace.
func (r *reconciler) mirror(svc *corev1.Service, all []discoveryv1.EndpointSlice, nads []nadRef, pods map[string]*corev1.Pod) []*discoveryv1.EndpointSlice {
	if len(nads) == 0 {
		return nil
	}
	annotated := map[string]*corev1.Pod{} // pods with the annotation the Cluster holds
	get := func(namespace, name string) (*corev1.Pod, error) {
		k := namespace + "/" + name
		if p, ok := annotated[k]; ok {
			return p, nil
		}
		p, ok := pods[k]
		if !ok {
			return nil, apierrors.NewNotFound(corev1.Resource("pods"), k)
		}
		if !p.Spec.HostNetwork {
			v, err := r.cluster.PodAnnotation(namespace, name)
			if err != nil {
				return nil, err
			}
			p = p.DeepCopy()
			p.Annotations = podkube.Annotated(p, v)
		}
		annotated[k] = p
		return p, nil
	}
	var out []*discoveryv1.EndpointSlice
	for i := range all {
		src := &all[i]
		if src.Labels[discoveryv1.LabelManagedBy] == svckube.EndpointSliceMirrorController {
			continue
		}
		for _, nad := range nads {
			kept := src.DeepCopy()
			kept.Endpoints = slices.DeleteFunc(kept.Endpoints, func(e discoveryv1.Endpoint) bool {
				return e.TargetRef == nil || e.TargetRef.Kind != "Pod" || !reachable(get, e.TargetRef, nad.nad, src.AddressType)
			})
			m, err := svckube.MirrorEndpointSlice(kept, nil, nad.network, nad.nad, get)
			if err != nil {
				r.cfg.Logger.Info("endpoint slice not mirrored", "slice", src.Namespace+"/"+src.Name, "nad", nad.nad, "error", err.Error())
				continue
			}
			out = append(out, m)
		}
	}
	return out
}

// reachable reports whether the pod ref names has an address of the
// family on nad (or is host-networked).
func reachable(get svckube.PodGetter, ref *corev1.ObjectReference, nad string, family discoveryv1.AddressType) bool {
	p, err := get(ref.Namespace, ref.Name)
	if err != nil {
		return false
	}
	if p.Spec.HostNetwork {
		return true
	}
	pn, err := netconf.ParsePodNetworks(p.Annotations[netconf.AnnotationPodNetworks])
	if err != nil {
		return false
	}
	for _, ip := range pn[nad].IPs {
		if ip.Addr().Is6() == (family == discoveryv1.AddressTypeIPv6) {
			return true
		}
	}
	return false
}

// writePodAnnotations merge-patches the k8s.ovn.org/pod-networks
// annotation of every pod the Cluster holds where it differs.
func (r *reconciler) writePodAnnotations(ctx context.Context, w *world) error {
	var errs []error
	for i := range w.pods {
		p := &w.pods[i]
		if _, fed := r.fed[keyPod+" "+p.Namespace+"/"+p.Name]; !fed {
			continue
		}
		v, err := r.cluster.PodAnnotation(p.Namespace, p.Name)
		if err != nil || v == p.Annotations[netconf.AnnotationPodNetworks] {
			continue
		}
		if pn, _ := netconf.ParsePodNetworks(v); len(pn) == 0 {
			continue // on the default network only: not the Cluster's to record
		}
		body, err := podkube.AnnotationPatch(v)
		if err == nil {
			err = r.c.Patch(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: p.Namespace, Name: p.Name}}, client.RawPatch(types.MergePatchType, body))
		}
		if err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, fmt.Errorf("Pod %s/%s: annotation %s: %w", p.Namespace, p.Name, netconf.AnnotationPodNetworks, err))
		}
	}
	return errors.Join(errs...)
}
