package controller

import (
	"context"
	"errors"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/udnkit/udnkit"
	"github.com/udnkit/udnkit/topology/egressip"
	egressipkube "github.com/udnkit/udnkit/topology/egressip/kube"
	egressqoskube "github.com/udnkit/udnkit/topology/egressqos/kube"
)

// The keys of fed and refused for the egress kinds: an EgressIP by name,
// an EgressQoS by namespace/name, and a node's egress-assignable label by
// node name.
const (
	keyEgressIP   = egressipkube.Kind
	keyEgressQoS  = egressqoskube.Kind
	keyEgressNode = "EgressNode"
)

// feedEgress hands the Cluster the nodes' k8s.ovn.org/egress-assignable
// labels, the EgressIPs and the EgressQoSes named "default" that changed,
// after the workloads of the same pass, and marks what it saw in seen.
// An EgressIP is fed again when its spec changes (not its status or mark,
// which the controller writes); its first feed carries its mark
// annotation and status items, so that a restarted controller keeps both.
func (r *reconciler) feedEgress(w *world, seen map[string]bool) {
	for i := range w.nodes {
		n := &w.nodes[i]
		if _, ok := n.Labels[egressip.LabelEgressAssignable]; !ok {
			continue // removed below if it had the label
		}
		key := keyEgressNode + " " + n.Name
		seen[key] = true
		if _, ok := r.fed[key]; ok {
			continue
		}
		ev, err := r.cluster.SetEgressAssignable(n.Name, true)
		if err != nil {
			r.refuse(key, err)
			continue
		}
		delete(r.refused, key)
		r.fed[key] = "assignable"
		r.event(ev)
	}
	for i := range w.eips {
		e := &w.eips[i]
		key := keyEgressIP + " " + e.Name
		seen[key] = true
		fp := fingerprint(e.UID, e.Spec)
		if r.fed[key] == fp {
			continue
		}
		eip, err := egressipkube.EgressIPFrom(e)
		var ev udnkit.Event
		if err == nil {
			ev, err = r.cluster.SetEgressIP(eip)
		}
		if err != nil {
			r.refuse(key, err)
			r.fed[key] = fp // refused until it changes
			continue
		}
		delete(r.refused, key)
		r.fed[key] = fp
		r.event(ev)
	}
	for i := range w.qoses {
		q := &w.qoses[i]
		key := keyEgressQoS + " " + q.Namespace + "/" + q.Name
		fp := fingerprint(q.UID, q.Spec)
		eq, ok, err := egressqoskube.EgressQoSFrom(q)
		if !ok {
			continue // not named "default": ignored, as the reference does
		}
		seen[key] = true
		if r.fed[key] == fp {
			continue
		}
		var ev udnkit.Event
		if err == nil {
			ev, err = r.cluster.SetEgressQoS(eq)
		}
		r.fed[key] = fp
		if err != nil {
			// Refused until it changes; its status condition says why. An
			// earlier valid one of the namespace is forgotten.
			r.refuse(key, err)
			r.event(r.cluster.RemoveEgressQoS(q.Namespace))
			continue
		}
		delete(r.refused, key)
		r.event(ev)
	}
}

// removeEgress forgets an EgressIP, an EgressQoS or a node's
// egress-assignable label no longer seen.
func (r *reconciler) removeEgress(kind, name string) (udnkit.Event, bool) {
	switch kind {
	case keyEgressIP:
		return r.cluster.RemoveEgressIP(name), true
	case keyEgressQoS:
		ns, _, _ := strings.Cut(name, "/")
		return r.cluster.RemoveEgressQoS(ns), true
	case keyEgressNode:
		ev, err := r.cluster.SetEgressAssignable(name, false)
		return ev, err == nil
	}
	return udnkit.Event{}, false
}

// writeEgressStatuses writes, through the status subresource and again on
// conflicts, each EgressIP's status.items (Cluster.EgressIPStatus) and
// each EgressQoS's Ready-In-Zone-<zone> condition and summary: False with
// the refusal, True once the zone's NB holds its rows.
func (r *reconciler) writeEgressStatuses(ctx context.Context, w *world) error {
	var errs []error
	for i := range w.eips {
		e := &w.eips[i]
		st, ok := r.cluster.EgressIPStatus(e.Name)
		if !ok {
			continue
		}
		status := egressipkube.StatusFrom(egressip.Status{EgressIP: e.Name, Items: st.Items})
		if slices.Equal(status.Items, e.Status.Items) { // nil and empty alike
			continue
		}
		errs = append(errs, r.updateStatus(ctx, &egressipkube.EgressIP{}, client.ObjectKeyFromObject(e), func(o client.Object) {
			o.(*egressipkube.EgressIP).Status = status
		}))
	}
	for i := range w.qoses {
		q := &w.qoses[i]
		key := keyEgressQoS + " " + q.Namespace + "/" + q.Name
		if _, fed := r.fed[key]; !fed {
			continue
		}
		var cond metav1.Condition
		if err, refused := r.refused[key]; refused {
			cond = egressqoskube.Condition(r.cfg.Zone, q.Generation, err)
		} else if r.cfg.NB != nil && r.planned && r.nbErr == nil && r.cluster.EgressQoSPlanned(q.Namespace, r.cfg.Zone) {
			cond = egressqoskube.Condition(r.cfg.Zone, q.Generation, nil)
		} else {
			continue // not in the NB yet
		}
		conds := slices.Clone(q.Status.Conditions)
		meta.SetStatusCondition(&conds, withTime(cond, r.now()))
		slices.SortFunc(conds, func(a, b metav1.Condition) int { return strings.Compare(a.Type, b.Type) })
		status := egressqoskube.EgressQoSStatus{Status: egressqoskube.Summary(conds), Conditions: conds}
		if equality.Semantic.DeepEqual(status, q.Status) {
			continue
		}
		errs = append(errs, r.updateStatus(ctx, &egressqoskube.EgressQoS{}, client.ObjectKeyFromObject(q), func(o client.Object) {
			o.(*egressqoskube.EgressQoS).Status = status
		}))
	}
	return errors.Join(errs...)
}
