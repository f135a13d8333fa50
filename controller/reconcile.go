package controller

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync/atomic"

	nadv1 "github.com/k8snetworkplumbingwg/network-attachment-definition-client/pkg/apis/k8s.cni.cncf.io/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/udnkit/udnkit"
	"github.com/udnkit/udnkit/connect"
	"github.com/udnkit/udnkit/netconf"
	"github.com/udnkit/udnkit/topology"
	"github.com/udnkit/udnkit/topology/egressip"
	egressipkube "github.com/udnkit/udnkit/topology/egressip/kube"
	"github.com/udnkit/udnkit/topology/egressqos"
	egressqoskube "github.com/udnkit/udnkit/topology/egressqos/kube"
	"github.com/udnkit/udnkit/topology/pods"
	"github.com/udnkit/udnkit/topology/policy"
	"github.com/udnkit/udnkit/topology/services"
)

// reconciler holds the Cluster and what it was last fed. Reconcile runs
// one at a time (one request key), so it needs no lock of its own.
type reconciler struct {
	cfg     Config
	c       client.Client
	cluster *udnkit.Cluster

	restored bool
	planned  bool               // the zone was Planned and Synced: events apply
	replan   bool               // an event could not be planned: plan the zone
	pending  []topology.Changes // the pass's events' changes, in order
	fed      map[string]string  // "<kind> <key>" → fingerprint of what was fed
	refused  map[string]error   // "<kind> <key>" → why the Cluster refused it
	nbErr    error              // the last NB write's error, for statuses
	passes   atomic.Int64       // Reconcile calls, for tests
	syncs    atomic.Int64       // whole-zone Syncs (Plan), for tests
	applies  atomic.Int64       // event Applies that had changes, for tests
}

func newReconciler(cfg Config, c client.Client, cluster *udnkit.Cluster) *reconciler {
	return &reconciler{cfg: cfg, c: c, cluster: cluster, fed: map[string]string{}, refused: map[string]error{}}
}

// world is what the cache holds of the watched kinds.
type world struct {
	nodes      []corev1.Node
	namespaces []corev1.Namespace
	udns       []netconf.UserDefinedNetwork
	cudns      []netconf.ClusterUserDefinedNetwork
	nads       []nadv1.NetworkAttachmentDefinition
	cncs       []connect.ClusterNetworkConnect
	pods       []corev1.Pod
	services   []corev1.Service
	slices     []discoveryv1.EndpointSlice
	policies   []networkingv1.NetworkPolicy
	eips       []egressipkube.EgressIP
	qoses      []egressqoskube.EgressQoS
}

func (r *reconciler) list(ctx context.Context) (*world, error) {
	var (
		w     world
		nodes corev1.NodeList
		nss   corev1.NamespaceList
		udns  netconf.UserDefinedNetworkList
		cudns netconf.ClusterUserDefinedNetworkList
		nads  nadv1.NetworkAttachmentDefinitionList
		cncs  connect.ClusterNetworkConnectList
		pods  corev1.PodList
		svcs  corev1.ServiceList
		sls   discoveryv1.EndpointSliceList
		nps   networkingv1.NetworkPolicyList
		eips  egressipkube.EgressIPList
		qoses egressqoskube.EgressQoSList
	)
	for _, l := range []client.ObjectList{&nodes, &nss, &udns, &cudns, &nads, &cncs, &pods, &svcs, &sls, &nps, &eips, &qoses} {
		if err := r.c.List(ctx, l); err != nil {
			return nil, fmt.Errorf("list %T: %w", l, err)
		}
	}
	w.nodes, w.namespaces, w.udns, w.cudns, w.nads, w.cncs = nodes.Items, nss.Items, udns.Items, cudns.Items, nads.Items, cncs.Items
	slices.SortFunc(w.nodes, func(a, b corev1.Node) int { return strings.Compare(a.Name, b.Name) })
	slices.SortFunc(w.namespaces, func(a, b corev1.Namespace) int { return strings.Compare(a.Name, b.Name) })
	slices.SortFunc(w.udns, func(a, b netconf.UserDefinedNetwork) int {
		return strings.Compare(a.Namespace+"/"+a.Name, b.Namespace+"/"+b.Name)
	})
	slices.SortFunc(w.cudns, func(a, b netconf.ClusterUserDefinedNetwork) int { return strings.Compare(a.Name, b.Name) })
	slices.SortFunc(w.nads, func(a, b nadv1.NetworkAttachmentDefinition) int {
		return strings.Compare(a.Namespace+"/"+a.Name, b.Namespace+"/"+b.Name)
	})
	slices.SortFunc(w.cncs, func(a, b connect.ClusterNetworkConnect) int { return strings.Compare(a.Name, b.Name) })
	w.pods, w.services, w.slices, w.policies = pods.Items, svcs.Items, sls.Items, nps.Items
	byKey := func(a, b metav1.Object) int {
		return strings.Compare(a.GetNamespace()+"/"+a.GetName(), b.GetNamespace()+"/"+b.GetName())
	}
	slices.SortFunc(w.pods, func(a, b corev1.Pod) int { return byKey(&a, &b) })
	slices.SortFunc(w.services, func(a, b corev1.Service) int { return byKey(&a, &b) })
	slices.SortFunc(w.slices, func(a, b discoveryv1.EndpointSlice) int { return byKey(&a, &b) })
	slices.SortFunc(w.policies, func(a, b networkingv1.NetworkPolicy) int { return byKey(&a, &b) })
	w.eips, w.qoses = eips.Items, qoses.Items
	slices.SortFunc(w.eips, func(a, b egressipkube.EgressIP) int { return byKey(&a, &b) })
	slices.SortFunc(w.qoses, func(a, b egressqoskube.EgressQoS) int { return byKey(&a, &b) })
	return &w, nil
}

// Reconcile makes the cluster's stored state and the zone's NB what the
// watched objects ask for. It is level-triggered: every pass reads
// everything from the cache and writes only what differs.
func (r *reconciler) Reconcile(ctx context.Context, _ reconcile.Request) (reconcile.Result, error) {
	r.passes.Add(1)
	w, err := r.list(ctx)
	if err != nil {
		return reconcile.Result{}, err
	}
	if !r.restored {
		if err := r.restore(w); err != nil {
			return reconcile.Result{}, err
		}
	}
	r.feed(w)
	if !r.restored {
		if freed := r.cluster.EndRestore(); len(freed) > 0 {
			r.cfg.Logger.Info("freed the allocations of objects deleted while no controller ran", "objects", freed)
		}
		r.restored = true
	}
	var errs []error
	errs = append(errs, r.writeNetworks(ctx, w))
	if r.cfg.hook != nil {
		r.cfg.hook(ctx, "nads")
	}
	errs = append(errs, r.writeAnnotations(ctx, w))
	// Pods' addresses are recorded before their ports reach the NB: a
	// controller killed in between leaves no port whose address or tunnel
	// key the next one does not restore (and could give another pod).
	if err := r.writePodAnnotations(ctx, w); err != nil {
		r.pending, r.replan = nil, true
		r.nbErr = err
	} else {
		r.nbErr = r.syncNB(ctx)
	}
	errs = append(errs, r.nbErr)
	errs = append(errs, r.writeStatuses(ctx, w))
	errs = append(errs, r.writeEgressStatuses(ctx, w))
	return reconcile.Result{}, errors.Join(errs...)
}

// restore hands the Cluster the annotations of Nodes, NADs, CNCs and
// EgressIPs.
func (r *reconciler) restore(w *world) error {
	var st udnkit.Stored
	for _, n := range w.nodes {
		st.Nodes = append(st.Nodes, udnkit.Object{Name: n.Name, Annotations: n.Annotations})
	}
	for _, n := range w.nads {
		st.NADs = append(st.NADs, udnkit.Object{Namespace: n.Namespace, Name: n.Name, Annotations: n.Annotations})
	}
	for _, c := range w.cncs {
		st.Connects = append(st.Connects, udnkit.Object{Name: c.Name, Annotations: c.Annotations})
	}
	for _, e := range w.eips {
		st.EgressIPs = append(st.EgressIPs, udnkit.Object{Name: e.Name, Annotations: e.Annotations})
	}
	if err := r.cluster.Restore(st); err != nil {
		return fmt.Errorf("restore: %w", err)
	}
	return nil
}

// feed hands the Cluster what changed since the last pass, nodes first,
// then namespaces, networks, connects, pods, Services, policies and the
// egress kinds; removals of what is gone last. Each event is planned as it comes
// (event).
func (r *reconciler) feed(w *world) {
	seen := map[string]bool{}
	set := func(key, fp string, do func() (udnkit.Event, error)) {
		seen[key] = true
		if r.fed[key] == fp {
			return
		}
		ev, err := do()
		if err != nil {
			r.refused[key] = err
			r.cfg.Logger.Info("refused", "object", key, "error", err.Error())
		} else {
			delete(r.refused, key)
			r.event(ev)
		}
		r.fed[key] = fp
	}
	for i := range w.nodes {
		n := &w.nodes[i]
		nd, err := NodeFromObject(n)
		key := "Node " + n.Name
		if err != nil {
			seen[key] = true
			r.refused[key] = err
			continue
		}
		set(key, fmt.Sprint(nd), func() (udnkit.Event, error) { return r.cluster.SetNode(nd) })
	}
	for _, ns := range w.namespaces {
		n := netconf.Namespace{Name: ns.Name, Labels: ns.Labels, Annotations: udnkit.NamespaceAnnotations(ns.Annotations)}
		set("Namespace "+ns.Name, fmt.Sprint(n.Labels, n.Annotations), func() (udnkit.Event, error) { return r.cluster.SetNamespace(n) })
	}
	for i := range w.udns {
		u := &w.udns[i]
		if u.DeletionTimestamp != nil {
			continue
		}
		set("UserDefinedNetwork "+u.Namespace+"/"+u.Name, fingerprint(u.UID, u.Spec), func() (udnkit.Event, error) {
			_, ev, err := r.cluster.SetUDN(u)
			return ev, err
		})
	}
	for i := range w.cudns {
		c := &w.cudns[i]
		if c.DeletionTimestamp != nil {
			continue
		}
		set("ClusterUserDefinedNetwork "+c.Name, fingerprint(c.UID, c.Spec), func() (udnkit.Event, error) {
			_, ev, err := r.cluster.SetCUDN(c)
			return ev, err
		})
	}
	for i := range w.cncs {
		c := &w.cncs[i]
		if c.DeletionTimestamp != nil {
			continue
		}
		set(connect.Kind+" "+c.Name, fingerprint(c.UID, c.Spec), func() (udnkit.Event, error) {
			_, ev, err := r.cluster.SetConnect(c)
			return ev, err
		})
	}
	r.feedWorkloads(w, seen)
	r.feedEgress(w, seen)
	for _, key := range slices.Sorted(maps.Keys(r.fed)) {
		if seen[key] {
			continue
		}
		delete(r.fed, key)
		_, wasRefused := r.refused[key]
		delete(r.refused, key)
		kind, name, _ := strings.Cut(key, " ")
		var ev udnkit.Event
		switch kind {
		case "Node":
			ev = r.cluster.RemoveNode(name)
		case "UserDefinedNetwork":
			if wasRefused {
				continue
			}
			ns, n, _ := strings.Cut(name, "/")
			ev = r.cluster.Remove(netconf.UDNNetworkName(ns, n))
		case "ClusterUserDefinedNetwork":
			if wasRefused {
				continue
			}
			ev = r.cluster.Remove(netconf.CUDNNetworkName(name))
		case connect.Kind:
			ev = r.cluster.RemoveConnect(name)
		default:
			var ok bool
			if ev, ok = r.removeWorkload(kind, name); !ok {
				if ev, ok = r.removeEgress(kind, name); !ok {
					continue
				}
			}
		}
		r.event(ev)
	}
	for key := range r.refused {
		if !seen[key] {
			delete(r.refused, key) // a refused pod that is gone
		}
	}
}

// fingerprint identifies what the Cluster was fed of an object.
func fingerprint(uid types.UID, spec any) string {
	b, _ := json.Marshal(spec)
	return string(uid) + " " + string(b)
}

// ovnState says whether a network's rows are in the zone's NB.
func (r *reconciler) ovnState(network string) netconf.OVNNetworkState {
	if _, ok := r.cluster.Network(network); !ok || r.cfg.NB == nil {
		return netconf.OVNNetworkUnknown
	}
	if r.planned && r.nbErr == nil {
		return netconf.OVNNetworkCreated
	}
	return netconf.OVNNetworkPending
}

// writeNetworks writes the NADs and finalizers ReconcileUDN and
// ReconcileCUDN decide (statuses come last, in writeStatuses).
func (r *reconciler) writeNetworks(ctx context.Context, w *world) error {
	var errs []error
	nads := nadPointers(w.nads)
	for i := range w.udns {
		u := &w.udns[i]
		d, err := netconf.ReconcileUDN(netconf.UDNInput{UDN: u, NADs: nads, Now: r.now(), Render: r.render()})
		if err != nil {
			errs = append(errs, fmt.Errorf("UserDefinedNetwork %s/%s: %w", u.Namespace, u.Name, err))
			continue
		}
		errs = append(errs, r.apply(ctx, u, d.Actions, d.Finalizer))
	}
	namespaces := make([]netconf.Namespace, len(w.namespaces))
	for i, ns := range w.namespaces {
		namespaces[i] = netconf.Namespace{Name: ns.Name, Labels: ns.Labels}
	}
	for i := range w.cudns {
		c := &w.cudns[i]
		d, err := netconf.ReconcileCUDN(r.cudnInput(c, w, namespaces, nads))
		if err != nil {
			errs = append(errs, fmt.Errorf("ClusterUserDefinedNetwork %s: %w", c.Name, err))
			continue
		}
		errs = append(errs, r.apply(ctx, c, d.Actions, d.Finalizer))
	}
	return errors.Join(errs...)
}

func (r *reconciler) render() netconf.RenderOptions {
	return netconf.RenderOptions{Profile: r.cluster.Profile()}
}

func (r *reconciler) cudnInput(c *netconf.ClusterUserDefinedNetwork, w *world, namespaces []netconf.Namespace, nads []*nadv1.NetworkAttachmentDefinition) netconf.CUDNInput {
	id := func(name string) int {
		if n, ok := r.cluster.Network(netconf.CUDNNetworkName(name)); ok {
			return n.ID
		}
		return 0
	}
	in := netconf.CUDNInput{CUDN: c, NetworkID: id(c.Name), Namespaces: namespaces, NADs: nads,
		Now: r.now(), Render: r.render(), OVNNetwork: r.ovnState(netconf.CUDNNetworkName(c.Name))}
	for j := range w.cudns {
		if o := &w.cudns[j]; o.Name != c.Name {
			in.Others = append(in.Others, netconf.PeerCUDN{CUDN: o, NetworkID: id(o.Name)})
		}
	}
	return in
}

func nadPointers(nads []nadv1.NetworkAttachmentDefinition) []*nadv1.NetworkAttachmentDefinition {
	out := make([]*nadv1.NetworkAttachmentDefinition, len(nads))
	for i := range nads {
		out[i] = &nads[i]
	}
	return out
}

// apply carries out NAD actions and a finalizer operation on owner.
func (r *reconciler) apply(ctx context.Context, owner client.Object, actions []netconf.NADAction, fin netconf.FinalizerOp) error {
	var errs []error
	stored := r.cluster.Annotations()
	for _, a := range actions {
		switch a.Op {
		case netconf.NADCreate:
			nad := a.NAD.DeepCopy()
			for _, o := range stored.NADs {
				if o.Namespace == nad.Namespace && o.Name == nad.Name {
					if nad.Annotations == nil {
						nad.Annotations = map[string]string{}
					}
					maps.Copy(nad.Annotations, o.Annotations)
				}
			}
			if err := r.c.Create(ctx, nad); err != nil && !apierrors.IsAlreadyExists(err) {
				errs = append(errs, fmt.Errorf("create NetworkAttachmentDefinition %s/%s: %w", a.Namespace, a.Name, err))
			}
		case netconf.NADUpdate:
			if err := r.c.Update(ctx, a.NAD.DeepCopy()); err != nil {
				errs = append(errs, fmt.Errorf("update NetworkAttachmentDefinition %s/%s: %w", a.Namespace, a.Name, err))
			}
		case netconf.NADDelete:
			nad := a.NAD.DeepCopy()
			if err := r.c.Update(ctx, nad); err != nil && !apierrors.IsNotFound(err) {
				errs = append(errs, fmt.Errorf("release NetworkAttachmentDefinition %s/%s: %w", a.Namespace, a.Name, err))
				continue
			}
			if err := r.c.Delete(ctx, nad); err != nil && !apierrors.IsNotFound(err) {
				errs = append(errs, fmt.Errorf("delete NetworkAttachmentDefinition %s/%s: %w", a.Namespace, a.Name, err))
			}
		}
	}
	if fin == netconf.FinalizerKeep || len(errs) > 0 {
		return errors.Join(errs...)
	}
	obj := owner.DeepCopyObject().(client.Object)
	base := obj.DeepCopyObject().(client.Object)
	if fin == netconf.FinalizerAdd {
		controllerutil.AddFinalizer(obj, netconf.FinalizerProtection)
	} else {
		controllerutil.RemoveFinalizer(obj, netconf.FinalizerProtection)
	}
	if err := r.c.Patch(ctx, obj, client.MergeFromWithOptions(base, client.MergeFromWithOptimisticLock{})); err != nil && !apierrors.IsNotFound(err) {
		errs = append(errs, fmt.Errorf("%s %s: finalizer: %w", owner.GetObjectKind().GroupVersionKind().Kind, client.ObjectKeyFromObject(owner), err))
	}
	return errors.Join(errs...)
}

// writeAnnotations merge-patches every allocation annotation the Cluster
// returns onto its Node, NAD, CNC or EgressIP (its mark) where it differs. Objects not in the
// cache yet are patched on a later pass.
func (r *reconciler) writeAnnotations(ctx context.Context, w *world) error {
	st := r.cluster.Annotations()
	have := map[string]map[string]string{}
	for _, n := range w.nodes {
		have["Node "+n.Name] = n.Annotations
	}
	for _, n := range w.nads {
		have["NAD "+n.Namespace+"/"+n.Name] = n.Annotations
	}
	for _, c := range w.cncs {
		have["CNC "+c.Name] = c.Annotations
	}
	for _, e := range w.eips {
		have["EgressIP "+e.Name] = e.Annotations
	}
	var errs []error
	patch := func(key string, obj client.Object, want map[string]string) {
		cur, ok := have[key]
		if !ok {
			return
		}
		diff := map[string]string{}
		for k, v := range want {
			if cur[k] != v {
				diff[k] = v
			}
		}
		if len(diff) == 0 {
			return
		}
		body, _ := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": diff}})
		if err := r.c.Patch(ctx, obj, client.RawPatch(types.MergePatchType, body)); err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, fmt.Errorf("%s: annotations: %w", key, err))
		}
	}
	for _, o := range st.Nodes {
		patch("Node "+o.Name, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: o.Name}}, o.Annotations)
	}
	for _, o := range st.NADs {
		patch("NAD "+o.Namespace+"/"+o.Name, &nadv1.NetworkAttachmentDefinition{ObjectMeta: metav1.ObjectMeta{Namespace: o.Namespace, Name: o.Name}}, o.Annotations)
	}
	for _, o := range st.Connects {
		patch("CNC "+o.Name, &connect.ClusterNetworkConnect{ObjectMeta: metav1.ObjectMeta{Name: o.Name}}, o.Annotations)
	}
	for _, o := range st.EgressIPs {
		patch("EgressIP "+o.Name, &egressipkube.EgressIP{ObjectMeta: metav1.ObjectMeta{Name: o.Name}}, o.Annotations)
	}
	return errors.Join(errs...)
}

// event plans the changes of ev at once, right after the call that
// returned it (a later call's changes may build on its rows), and queues
// them for syncNB. Before the zone's first Sync, or once an event could
// not be planned, syncNB plans the whole zone instead.
func (r *reconciler) event(ev udnkit.Event) {
	if r.cfg.NB == nil || !r.planned || r.replan {
		return
	}
	changes, err := r.cluster.PlanEvent(r.cfg.Zone, ev)
	if err != nil {
		r.cfg.Logger.Info("event not planned: planning the zone again", "event", ev.Kind.String(), "error", err.Error())
		r.replan, r.pending = true, nil
		return
	}
	if len(changes) > 0 {
		r.pending = append(r.pending, changes)
	}
	if len(r.pending) > maxPassEvents {
		// A burst (a thousand UDNs created at once): each event's plan and
		// Apply costs about what one whole-zone Plan and Sync costs, so
		// the pass plans the zone once instead.
		r.cfg.Logger.V(1).Info("many events in one pass: planning the zone", "events", len(r.pending))
		r.replan, r.pending = true, nil
	}
}

// maxPassEvents is the most event change sets a pass applies one by one;
// past it the pass plans and Syncs the whole zone (BENCHMARKS.md, the
// controller at 1,000 UDNs).
const maxPassEvents = 32

// syncNB makes the zone's NB hold the Cluster's plan: Plan and Sync the
// first time (and after a failed write or plan), then only the changes of
// the pass's events, in order.
func (r *reconciler) syncNB(ctx context.Context) error {
	nb := r.cfg.NB
	pending, replan := r.pending, r.replan
	r.pending, r.replan = nil, false
	if nb == nil {
		return nil
	}
	if r.planned && !replan {
		for _, changes := range pending {
			r.applies.Add(1)
			if _, err := nb.Apply(ctx, changes); err != nil {
				r.cfg.Logger.Info("event not applied: planning the zone again", "error", err.Error())
				r.planned = false
				break
			}
		}
		if r.planned {
			return nil
		}
	}
	r.planned = false // until the Sync below succeeds
	st, err := r.cluster.Plan(r.cfg.Zone)
	if errors.Is(err, udnkit.ErrZoneNotReady) {
		return nil // the local node is not ready: its update requeues
	}
	if err != nil {
		return fmt.Errorf("plan zone %s: %w", r.cfg.Zone, err)
	}
	// The NB may hold rows the Cluster no longer plans (networks, connects,
	// links deleted while no controller ran, or while events could not be
	// applied): Sync speaks for what it plans only, so the scopes of the
	// Cluster's controllers that the plan does not speak for are removed
	// after it, the topology's last (other controllers' rows hang off its
	// routers and switches, and the adapter deletes no row with another's
	// members).
	observed, err := nb.Observe(ctx)
	if err != nil {
		return fmt.Errorf("observe zone %s: %w", r.cfg.Zone, err)
	}
	r.syncs.Add(1)
	if _, _, err := nb.Sync(ctx, st); err != nil {
		return fmt.Errorf("sync zone %s: %w", r.cfg.Zone, err)
	}
	for _, group := range [][]topology.Controller{clusterControllers, {topology.ControllerTopology}} {
		var stale []topology.State
		for _, c := range group {
			for _, scope := range observed.Scope(c) {
				if !st.SpeaksFor(c, scope) {
					stale = append(stale, topology.RemovalFor(c, scope))
				}
			}
		}
		if len(stale) == 0 {
			continue
		}
		removal, err := topology.State{}.Merge(stale...)
		if err == nil {
			_, _, err = nb.Sync(ctx, removal)
		}
		if err != nil {
			return fmt.Errorf("sync zone %s: remove rows no longer planned: %w", r.cfg.Zone, err)
		}
	}
	r.planned = true
	return nil
}

// clusterControllers are the controllers besides the topology whose rows
// the Cluster plans: a scope of theirs the zone's plan does not speak for
// is stale.
var clusterControllers = []topology.Controller{connect.ControllerConnect, connect.ControllerPrimaryLinks,
	services.ControllerServices, pods.ControllerPods, policy.Controller, egressip.Controller, egressqos.Controller}

// writeStatuses writes the UDN, CUDN and CNC statuses that differ, through
// the status subresource, retrying on conflicts.
func (r *reconciler) writeStatuses(ctx context.Context, w *world) error {
	var errs []error
	nads := nadPointers(w.nads)
	for i := range w.udns {
		u := &w.udns[i]
		network := netconf.UDNNetworkName(u.Namespace, u.Name)
		d, err := netconf.ReconcileUDN(netconf.UDNInput{UDN: u, NADs: nads, Now: r.now(), Render: r.render(), OVNNetwork: r.ovnState(network)})
		if err != nil {
			continue // reported by writeNetworks
		}
		status := d.Status
		status.Conditions = r.refusal("UserDefinedNetwork "+u.Namespace+"/"+u.Name, status.Conditions, u.Generation)
		if equality.Semantic.DeepEqual(status, u.Status) {
			continue
		}
		errs = append(errs, r.updateStatus(ctx, &netconf.UserDefinedNetwork{}, client.ObjectKeyFromObject(u), func(o client.Object) {
			o.(*netconf.UserDefinedNetwork).Status = status
		}))
	}
	namespaces := make([]netconf.Namespace, len(w.namespaces))
	for i, ns := range w.namespaces {
		namespaces[i] = netconf.Namespace{Name: ns.Name, Labels: ns.Labels}
	}
	for i := range w.cudns {
		c := &w.cudns[i]
		d, err := netconf.ReconcileCUDN(r.cudnInput(c, w, namespaces, nads))
		if err != nil {
			continue
		}
		status := d.Status
		status.Conditions = r.refusal("ClusterUserDefinedNetwork "+c.Name, status.Conditions, c.Generation)
		if equality.Semantic.DeepEqual(status, c.Status) {
			continue
		}
		errs = append(errs, r.updateStatus(ctx, &netconf.ClusterUserDefinedNetwork{}, client.ObjectKeyFromObject(c), func(o client.Object) {
			o.(*netconf.ClusterUserDefinedNetwork).Status = status
		}))
	}
	for i := range w.cncs {
		c := &w.cncs[i]
		acc, _, ok := r.cluster.Connect(c.Name)
		if !ok {
			continue
		}
		conds := slices.Clone(c.Status.Conditions)
		meta.SetStatusCondition(&conds, withTime(acc.Condition, r.now()))
		if acc.Condition.Status == metav1.ConditionTrue && r.cfg.NB != nil {
			meta.SetStatusCondition(&conds, withTime(connect.ZoneCondition(c, r.cfg.Zone, r.nbErr), r.now()))
		}
		slices.SortFunc(conds, func(a, b metav1.Condition) int { return strings.Compare(a.Type, b.Type) })
		status := connect.ClusterNetworkConnectStatus{Status: connect.Summary(conds), Conditions: conds}
		if equality.Semantic.DeepEqual(status, c.Status) {
			continue
		}
		errs = append(errs, r.updateStatus(ctx, &connect.ClusterNetworkConnect{}, client.ObjectKeyFromObject(c), func(o client.Object) {
			o.(*connect.ClusterNetworkConnect).Status = status
		}))
	}
	return errors.Join(errs...)
}

// refusal adds the Cluster's refusal of an object that netconf's
// validation admitted (a network that overlaps the default network, an
// exhausted ID) as its NetworkCreated condition.
func (r *reconciler) refusal(key string, conds []metav1.Condition, gen int64) []metav1.Condition {
	err, ok := r.refused[key]
	if !ok {
		return conds
	}
	for _, c := range conds {
		if c.Reason == netconf.ReasonInvalidSpec {
			return conds // netconf's message names the field already
		}
	}
	out := slices.Clone(conds)
	meta.SetStatusCondition(&out, metav1.Condition{Type: netconf.ConditionNetworkCreated, Status: metav1.ConditionFalse,
		Reason: netconf.ReasonInvalidSpec, Message: err.Error(), ObservedGeneration: gen, LastTransitionTime: r.now()})
	slices.SortFunc(out, func(a, b metav1.Condition) int { return strings.Compare(a.Type, b.Type) })
	return out
}

func withTime(c metav1.Condition, now metav1.Time) metav1.Condition {
	if c.LastTransitionTime.IsZero() {
		c.LastTransitionTime = now
	}
	return c
}

// updateStatus reads the object, sets its status and writes it through the
// status subresource, again on a conflict.
func (r *reconciler) updateStatus(ctx context.Context, obj client.Object, key client.ObjectKey, set func(client.Object)) error {
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if err := r.c.Get(ctx, key, obj); err != nil {
			return err
		}
		set(obj)
		return r.c.Status().Update(ctx, obj)
	})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("%T %s: status: %w", obj, key, err)
	}
	return nil
}
