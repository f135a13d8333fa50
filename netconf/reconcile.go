package netconf

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/netip"
	"reflect"
	"slices"
	"strings"

	nadv1 "github.com/k8snetworkplumbingwg/network-attachment-definition-client/pkg/apis/k8s.cni.cncf.io/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"

	"github.com/udnkit/udnkit/internal/kubename"
	"github.com/udnkit/udnkit/internal/names"
	"github.com/udnkit/udnkit/internal/sdkerr"
	"github.com/udnkit/udnkit/netconf/udn"
)

// NADOp is what to do with one NAD.
type NADOp int

// NAD operations.
const (
	// NADKeep: the NAD is ours and current; nothing to do.
	NADKeep NADOp = iota
	// NADCreate: create NADAction.NAD.
	NADCreate
	// NADUpdate: write NADAction.NAD (the observed object, reconciled).
	NADUpdate
	// NADSkip: a NAD we do not own (or must not create); leave it alone.
	NADSkip
	// NADDelete: write NADAction.NAD (the observed object without the
	// protection finalizer), then delete it.
	NADDelete
)

// String returns the operation's name.
func (o NADOp) String() string {
	switch o {
	case NADKeep:
		return "Keep"
	case NADCreate:
		return "Create"
	case NADUpdate:
		return "Update"
	case NADSkip:
		return "Skip"
	case NADDelete:
		return "Delete"
	}
	return fmt.Sprintf("NADOp(%d)", int(o))
}

// FinalizerOp is what to do with the protection finalizer of the UDN/CUDN itself.
type FinalizerOp int

// Finalizer operations.
const (
	FinalizerKeep FinalizerOp = iota
	FinalizerAdd
	FinalizerRemove
)

// String returns the operation's name.
func (o FinalizerOp) String() string {
	switch o {
	case FinalizerKeep:
		return "Keep"
	case FinalizerAdd:
		return "Add"
	case FinalizerRemove:
		return "Remove"
	}
	return fmt.Sprintf("FinalizerOp(%d)", int(o))
}

// NADAction is one decision about the NAD Namespace/Name.
type NADAction struct {
	Op        NADOp
	Namespace string
	Name      string
	// NAD is the object to write for Create, Update and Delete; nil otherwise.
	NAD *nadv1.NetworkAttachmentDefinition
	// Reason says why, for Skip, Delete and Update.
	Reason string
}

// Namespace is what reconciliation needs to know about a namespace.
type Namespace struct {
	Name   string
	Labels map[string]string
	// Annotations are the namespace's annotations; reconciliation reads
	// none, the network policy planning reads k8s.ovn.org/acl-logging and
	// k8s.ovn.org/multicast-enabled.
	Annotations map[string]string
}

// UDNInput is everything ReconcileUDN looks at.
type UDNInput struct {
	UDN *UserDefinedNetwork
	// NADs observed in the UDN's namespace (others are ignored).
	NADs []*nadv1.NetworkAttachmentDefinition
	// PodsUsing lists the pods attached to the network.
	PodsUsing  []types.NamespacedName
	OVNNetwork OVNNetworkState
	// MultiplePrimary applies the multiple-primary-networks rules (see
	// the package documentation) instead of one primary network per namespace.
	MultiplePrimary bool
	// Peers are the other UserDefinedNetworks of the cluster: a UDN whose
	// OVN names would be another's (x-y and x.y in one namespace) is
	// refused unless it is the older of the two.
	Peers []PeerNetwork
	// Now stamps condition transitions.
	Now metav1.Time
	// Render selects the format of the desired NAD and, under
	// udn.ProfileReference, the status: the reference's single
	// NetworkCreated condition (see UDNNetworkCreatedCondition) in place
	// of NetworkCreated and NetworkReady.
	Render RenderOptions
}

// PeerNetwork is another network of the cluster, for name collisions:
// Object is "<namespace>/<name>" of a UDN or the name of a CUDN, Network its
// OVN network name.
type PeerNetwork struct {
	Object, Network string
	Created         metav1.Time
}

// prefixCollision reports, for the network called network of object
// (created at created), the older peer whose OVN name prefix is the same
// (NetworkPrefix maps '-' and '/' to '.', so "x-y" and "x.y" collide): the
// older network keeps the names, creation time then object name deciding.
func prefixCollision(object, network string, created metav1.Time, peers []PeerNetwork) (string, bool) {
	prefix := NetworkPrefix(network)
	for _, p := range peers {
		if p.Object == object || NetworkPrefix(p.Network) != prefix {
			continue
		}
		older := p.Created.Before(&created) || p.Created.Equal(&created) && p.Object < object
		if older {
			return fmt.Sprintf("network %q of %s has the OVN names of network %q of %s (prefix %q), which is older: rename one of them",
				network, object, p.Network, p.Object, prefix), true
		}
	}
	return "", false
}

func cudnPeers(others []PeerCUDN) []PeerNetwork {
	out := make([]PeerNetwork, 0, len(others))
	for _, o := range others {
		if o.CUDN != nil {
			out = append(out, PeerNetwork{Object: o.CUDN.Name, Network: CUDNNetworkName(o.CUDN.Name), Created: o.CUDN.CreationTimestamp})
		}
	}
	return out
}

// UDNDecision is the outcome of ReconcileUDN.
type UDNDecision struct {
	// Network is nil when the spec is invalid or the UDN is being deleted.
	Network *Network
	// Actions, sorted by namespace and name.
	Actions   []NADAction
	Finalizer FinalizerOp
	Status    UserDefinedNetworkStatus
}

// CUDNInput is everything ReconcileCUDN looks at.
type CUDNInput struct {
	CUDN *ClusterUserDefinedNetwork
	// NetworkID is the allocated network ID (0 = not yet allocated).
	NetworkID int
	// Namespaces are all namespaces of the cluster; the CUDN's and the
	// other CUDNs' selectors are evaluated against them.
	Namespaces []Namespace
	// NADs observed in any namespace.
	NADs []*nadv1.NetworkAttachmentDefinition
	// Others are the other CUDNs of the cluster.
	Others     []PeerCUDN
	PodsUsing  []types.NamespacedName
	OVNNetwork OVNNetworkState
	// MultiplePrimary: as in UDNInput.
	MultiplePrimary bool
	Now             metav1.Time
	// Render: as in UDNInput (the status: see CUDNNetworkCreatedCondition).
	Render RenderOptions
}

// PeerCUDN is another CUDN and its network ID (0 if not allocated).
type PeerCUDN struct {
	CUDN      *ClusterUserDefinedNetwork
	NetworkID int
}

// CUDNDecision is the outcome of ReconcileCUDN.
type CUDNDecision struct {
	Network   *Network
	Actions   []NADAction
	Finalizer FinalizerOp
	Status    ClusterUserDefinedNetworkStatus
}

// ErrBadInput reports reconcile input that no cluster can produce (a nil
// object, an object without UID).
var ErrBadInput = sdkerr.New(sdkerr.Invalid, "netconf: bad reconcile input")

// ReconcileUDN decides the NAD actions and status for a UserDefinedNetwork.
// It is pure: same input, same decision.
func ReconcileUDN(in UDNInput) (*UDNDecision, error) {
	d, err := reconcileUDN(in)
	if err != nil || in.Render.Profile != udn.ProfileReference {
		return d, err
	}
	d.Status.Conditions = referenceConditions(in.UDN.Status.Conditions, d.Status.Conditions, func(ready *metav1.Condition) metav1.Condition {
		switch {
		case ready.Status == metav1.ConditionTrue:
			return UDNNetworkCreatedCondition(nil, nil, in.Now)
		case ready.Reason == ReasonNADDeleted:
			return UDNNetworkCreatedCondition(&nadv1.NetworkAttachmentDefinition{ObjectMeta: metav1.ObjectMeta{DeletionTimestamp: &in.Now}}, nil, in.Now)
		}
		return UDNNetworkCreatedCondition(nil, errors.New(ready.Message), in.Now)
	})
	return d, nil
}

// referenceConditions returns existing with the reference's NetworkCreated
// condition, which ref derives from the seeds' NetworkReady condition in
// seeds, sorted by type; existing when seeds has none (nothing decided).
func referenceConditions(existing, seeds []metav1.Condition, ref func(ready *metav1.Condition) metav1.Condition) []metav1.Condition {
	i := slices.IndexFunc(seeds, func(c metav1.Condition) bool { return c.Type == ConditionNetworkReady })
	if i < 0 {
		return slices.Clone(existing)
	}
	out := SetCondition(existing, ref(&seeds[i]))
	slices.SortFunc(out, func(a, b metav1.Condition) int { return strings.Compare(a.Type, b.Type) })
	return out
}

func reconcileUDN(in UDNInput) (*UDNDecision, error) {
	u := in.UDN
	if u == nil || u.UID == "" {
		return nil, names.Errorf("%w: UserDefinedNetwork is nil or has no UID", ErrBadInput)
	}
	conds := newConditionSet(u.Status.Conditions, in.Now, u.Generation)
	d := &UDNDecision{}
	var nads []*nadv1.NetworkAttachmentDefinition
	for _, nad := range in.NADs {
		if nad != nil && nad.Namespace == u.Namespace {
			nads = append(nads, nad)
		}
	}
	uid := string(u.UID)
	owned := ownedNADs(nads, u.Name, uid)

	if u.DeletionTimestamp != nil {
		if !slices.Contains(u.Finalizers, FinalizerProtection) {
			d.Status = UserDefinedNetworkStatus{Conditions: conds.result()}
			return d, nil
		}
		d.Actions, d.Finalizer = teardown(owned, in.PodsUsing, conds)
		d.Status = UserDefinedNetworkStatus{Conditions: conds.result()}
		return d, nil
	}
	if !slices.Contains(u.Finalizers, FinalizerProtection) {
		d.Finalizer = FinalizerAdd
	}
	n, errs := udnNetwork(u)
	if len(errs) > 0 {
		conds.failed(ReasonInvalidSpec, errorsMessage(errs))
		d.Actions = keepAll(owned)
		d.Status = UserDefinedNetworkStatus{Conditions: conds.result()}
		return d, nil
	}
	if other, ok := prefixCollision(u.Namespace+"/"+u.Name, UDNNetworkName(u.Namespace, u.Name), u.CreationTimestamp, in.Peers); ok {
		conds.failed(ReasonNetworkNameConflict, other)
		d.Actions = keepAll(owned)
		d.Status = UserDefinedNetworkStatus{Conditions: conds.result()}
		return d, nil
	}
	r, err := in.Render.renderUDN(u, n)
	if err != nil {
		return nil, err
	}
	d.Network = r.Network
	pol := primaryPolicy{multiple: in.MultiplePrimary, kind: KindUDN, reference: in.Render.Profile == udn.ProfileReference}
	out := evalNamespace(u.Namespace, u.Name, uid, r.NADs[0], r.Network, nads, nil, in.PodsUsing, pol)
	d.Actions = []NADAction{out.action}
	switch {
	case out.issue == "":
		conds.Put(ConditionNetworkReady, metav1.ConditionTrue, ReasonNADReady, MessageNADReady)
	case out.missing:
		conds.Put(ConditionNetworkReady, metav1.ConditionFalse, ReasonNADNotExist, out.issue)
	default:
		conds.Put(ConditionNetworkReady, metav1.ConditionFalse, ReasonPrimaryNetworkConflict, out.issue)
	}
	conds.ovn(in.OVNNetwork)
	d.Status = UserDefinedNetworkStatus{Conditions: conds.result()}
	return d, nil
}

// ReconcileCUDN decides the NAD actions and status for a
// ClusterUserDefinedNetwork. When two primary CUDNs want the same
// namespace, or the same VRF name, the older one (creation time, then
// name) keeps it. It is pure: same input, same decision.
func ReconcileCUDN(in CUDNInput) (*CUDNDecision, error) {
	d, err := reconcileCUDN(in)
	if err != nil || in.Render.Profile != udn.ProfileReference {
		return d, err
	}
	d.Status.Conditions = referenceConditions(in.CUDN.Status.Conditions, d.Status.Conditions, func(ready *metav1.Condition) metav1.Condition {
		var nads []*nadv1.NetworkAttachmentDefinition
		switch {
		case ready.Status == metav1.ConditionTrue:
			for _, ns := range d.Status.ActiveNamespaces {
				nads = append(nads, &nadv1.NetworkAttachmentDefinition{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: in.CUDN.Name}})
			}
			return CUDNNetworkCreatedCondition(nads, nil, in.Now)
		case ready.Reason == ReasonNADDeleted:
			for _, a := range d.Actions {
				if a.Op == NADDelete {
					nads = append(nads, &nadv1.NetworkAttachmentDefinition{ObjectMeta: metav1.ObjectMeta{Namespace: a.Namespace, Name: a.Name, DeletionTimestamp: &in.Now}})
				}
			}
			return CUDNNetworkCreatedCondition(nads, nil, in.Now)
		}
		return CUDNNetworkCreatedCondition(nil, errors.New(ready.Message), in.Now)
	})
	return d, nil
}

func reconcileCUDN(in CUDNInput) (*CUDNDecision, error) {
	c := in.CUDN
	if c == nil || c.UID == "" {
		return nil, names.Errorf("%w: ClusterUserDefinedNetwork is nil or has no UID", ErrBadInput)
	}
	conds := newConditionSet(c.Status.Conditions, in.Now, c.Generation)
	d := &CUDNDecision{}
	uid := string(c.UID)
	owned := ownedNADs(in.NADs, c.Name, uid) // any namespace
	status := func() ClusterUserDefinedNetworkStatus {
		return ClusterUserDefinedNetworkStatus{ActiveNamespaces: d.Status.ActiveNamespaces, Conditions: conds.result()}
	}

	if c.DeletionTimestamp != nil {
		if slices.Contains(c.Finalizers, FinalizerProtection) {
			d.Actions, d.Finalizer = teardown(owned, in.PodsUsing, conds)
		}
		// While pods hold the deletion back the network stays where its NADs are.
		for _, a := range d.Actions {
			if a.Op == NADKeep {
				d.Status.ActiveNamespaces = append(d.Status.ActiveNamespaces, a.Namespace)
			}
		}
		d.Status = status()
		return d, nil
	}
	if !slices.Contains(c.Finalizers, FinalizerProtection) {
		d.Finalizer = FinalizerAdd
	}
	fail := func(reason, msg string) (*CUDNDecision, error) {
		conds.failed(reason, msg)
		d.Actions = keepAll(owned)
		d.Status = status()
		return d, nil
	}
	n, errs := cudnNetwork(c)
	if len(errs) > 0 {
		return fail(ReasonInvalidSpec, errorsMessage(errs))
	}
	if other, ok := prefixCollision(c.Name, CUDNNetworkName(c.Name), c.CreationTimestamp, cudnPeers(in.Others)); ok {
		return fail(ReasonNetworkNameConflict, other)
	}
	if _, err := CUDNVRFName(c, in.NetworkID); errors.Is(err, ErrNetworkIDRequired) {
		return fail(ReasonNetworkIDNotAllocated, fmt.Sprintf(
			"network ID not allocated yet: the name is longer than %d characters, so the VRF name is generated from the network ID", MaxVRFNameLen))
	}
	selected, err := SelectNamespaces(c, in.Namespaces)
	if err != nil {
		return fail(ReasonInvalidSpec, err.Error())
	}
	if n, err = withNetworkID(c, n, in.NetworkID); err != nil {
		return fail(ReasonInvalidSpec, err.Error())
	}
	r, err := in.Render.renderCUDN(c, n, selected)
	if err != nil {
		return fail(ReasonInvalidSpec, err.Error())
	}
	d.Network = n

	// Older primary CUDNs win VRF names and namespaces.
	blockers := map[string][]string{} // namespace -> older primary CUDN names selecting it
	if n.IsPrimary() {
		for _, p := range olderPrimaryPeers(c, in.Others) {
			o := p.CUDN
			if vrf, err := CUDNVRFName(o, p.NetworkID); err == nil && vrf == n.VRF {
				return fail(ReasonVRFConflict, fmt.Sprintf("VRF name %q is already used by ClusterUserDefinedNetwork %q", vrf, o.Name))
			}
			nss, err := SelectNamespaces(o, in.Namespaces)
			if err != nil {
				continue
			}
			shared := intersect(selected, nss)
			if in.MultiplePrimary && len(shared) > 0 {
				if !sameSelector(&o.Spec.NamespaceSelector, &c.Spec.NamespaceSelector) {
					return fail(ReasonPrimaryNetworkConflict, fmt.Sprintf(
						"primary ClusterUserDefinedNetwork %q already serves namespaces [%s]; a second primary network must have the same namespaceSelector",
						o.Name, strings.Join(shared, " ")))
				}
				if on, errs := cudnNetwork(o); len(errs) == 0 && overlaps(n.SubnetPrefixes(), on.SubnetPrefixes()) {
					return fail(ReasonPrimaryNetworkConflict, fmt.Sprintf(
						"subnets overlap those of primary ClusterUserDefinedNetwork %q in namespaces [%s]", o.Name, strings.Join(shared, " ")))
				}
				continue
			}
			for _, ns := range shared {
				blockers[ns] = append(blockers[ns], o.Name)
			}
		}
	}
	pol := primaryPolicy{multiple: in.MultiplePrimary, kind: KindCUDN, reference: in.Render.Profile == udn.ProfileReference}

	byNS := map[string][]*nadv1.NetworkAttachmentDefinition{}
	for _, nad := range in.NADs {
		if nad != nil {
			byNS[nad.Namespace] = append(byNS[nad.Namespace], nad)
		}
	}
	var missing, conflicts []string
	for i, ns := range selected {
		out := evalNamespace(ns, c.Name, uid, r.NADs[i], n, byNS[ns], blockers[ns], in.PodsUsing, pol)
		d.Actions = append(d.Actions, out.action)
		switch {
		case out.issue == "":
			d.Status.ActiveNamespaces = append(d.Status.ActiveNamespaces, ns)
		case out.missing:
			missing = append(missing, ns+": "+out.issue)
		default:
			conflicts = append(conflicts, ns+": "+out.issue)
		}
	}
	// Our NADs in namespaces no longer selected go, unless pods still use them.
	for _, nad := range owned {
		if slices.Contains(selected, nad.Namespace) {
			continue
		}
		if pods := podsIn(in.PodsUsing, nad.Namespace); len(pods) > 0 {
			d.Actions = append(d.Actions, NADAction{Op: NADKeep, Namespace: nad.Namespace, Name: nad.Name})
			conflicts = append(conflicts, nad.Namespace+": no longer selected, but the network is in use by pods "+podList(pods))
			continue
		}
		d.Actions = append(d.Actions, NADAction{Op: NADDelete, Namespace: nad.Namespace, Name: nad.Name,
			NAD: withoutFinalizer(nad), Reason: "namespace no longer selected"})
	}
	sortActions(d.Actions)
	switch {
	case len(missing) > 0:
		conds.Put(ConditionNetworkReady, metav1.ConditionFalse, ReasonNADNotExist,
			messageNotProvisioned+": ["+strings.Join(append(missing, conflicts...), ", ")+"]")
	case len(conflicts) > 0:
		conds.Put(ConditionNetworkReady, metav1.ConditionFalse, ReasonPrimaryNetworkConflict,
			"Conflicts in namespaces: ["+strings.Join(conflicts, ", ")+"]")
	default:
		conds.Put(ConditionNetworkReady, metav1.ConditionTrue, ReasonNADReady, MessageNADReady)
	}
	conds.ovn(in.OVNNetwork)
	d.Status = status()
	return d, nil
}

// SelectNamespaces returns, sorted, the names of the namespaces c's
// selector picks. A namespace without the kubernetes.io/metadata.name label
// is matched as if it had it (the API server always sets it).
func SelectNamespaces(c *ClusterUserDefinedNetwork, namespaces []Namespace) ([]string, error) {
	sel, err := kubename.SelectorAsSelector(&c.Spec.NamespaceSelector)
	if err != nil {
		return nil, names.Errorf("%w: %s %q: spec.namespaceSelector: %w", ErrInvalidSpec, KindCUDN, c.Name, err)
	}
	var out []string
	for _, ns := range namespaces {
		set := labels.Set{}
		for k, v := range ns.Labels {
			set[k] = v
		}
		if _, ok := set[metadataNameLabel]; !ok {
			set[metadataNameLabel] = ns.Name
		}
		if sel.Matches(set) {
			out = append(out, ns.Name)
		}
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

const metadataNameLabel = "kubernetes.io/metadata.name"

// olderThan reports whether a was created before b (name breaks ties).
// sameSelector reports whether a and b select the same namespaces as
// selectors: the same requirements, in any order, with values in any order
// (labels.Selector's canonical form); one that does not convert is no
// selector's equal.
func sameSelector(a, b *metav1.LabelSelector) bool {
	sa, err := kubename.SelectorAsSelector(a)
	if err != nil {
		return false
	}
	sb, err := kubename.SelectorAsSelector(b)
	if err != nil {
		return false
	}
	return sa.String() == sb.String()
}

func olderThan(a, b *ClusterUserDefinedNetwork) bool {
	if !a.CreationTimestamp.Equal(&b.CreationTimestamp) {
		return a.CreationTimestamp.Before(&b.CreationTimestamp)
	}
	return a.Name < b.Name
}

// nsOutcome is the decision for one target namespace.
type nsOutcome struct {
	action NADAction
	// issue is why the network is not ready in the namespace ("" if ready).
	issue string
	// missing: our NAD is not (and will not be) in place.
	missing bool
}

// evalNamespace decides the NAD of the network in namespace ns. nads are
// the NADs observed there; blockers name older primary CUDNs selecting ns.
func evalNamespace(ns, name, uid string, desired *nadv1.NetworkAttachmentDefinition, n *Network,
	nads []*nadv1.NetworkAttachmentDefinition, blockers []string, podsUsing []types.NamespacedName, pol primaryPolicy) nsOutcome {
	var ours *nadv1.NetworkAttachmentDefinition
	var primaries []string
	for _, nad := range nads {
		switch {
		case nad.Name == name:
			ours = nad
		case n.IsPrimary() && isPrimaryNAD(nad) && !IsControlledBy(nad, uid):
			if issue, ok := pol.coexist(n, nad); !ok {
				primaries = append(primaries, issue)
			}
		}
	}
	slices.Sort(primaries)
	key := "'" + ns + "/" + name + "'"
	act := NADAction{Namespace: ns, Name: name}
	switch {
	case ours != nil && !IsControlledBy(ours, uid):
		act.Op, act.Reason = NADSkip, "foreign NetworkAttachmentDefinition"
		return nsOutcome{action: act, missing: true,
			issue: "foreign NetworkAttachmentDefinition with the desired name already exist: " + key}
	case ours == nil && len(primaries) > 0:
		act.Op, act.Reason = NADSkip, "primary network already exists"
		return nsOutcome{action: act, missing: true,
			issue: "primary network already exist: " + strings.Join(primaries, ", ")}
	case ours == nil && len(blockers) > 0:
		act.Op, act.Reason = NADSkip, "primary network already exists"
		return nsOutcome{action: act, missing: true,
			issue: "primary network already exist: ClusterUserDefinedNetwork '" + strings.Join(blockers, "', '") + "' selects the namespace"}
	case ours == nil:
		act.Op, act.NAD = NADCreate, desired
		return nsOutcome{action: act}
	case ours.DeletionTimestamp != nil:
		if pods := podsIn(podsUsing, ns); len(pods) > 0 {
			act.Op = NADKeep
			return nsOutcome{action: act, missing: true,
				issue: "NetworkAttachmentDefinition " + key + " is being deleted but the network is in use by pods " + podList(pods)}
		}
		act.Op, act.NAD, act.Reason = NADDelete, withoutFinalizer(ours), "deleted by someone else; recreated once gone"
		return nsOutcome{action: act, missing: true,
			issue: "NetworkAttachmentDefinition " + key + " is being deleted; it is recreated once gone"}
	}
	reconcile := reconcileNAD
	if pol.reference {
		reconcile = reconcileNADReference
	}
	if upd := reconcile(ours, desired); upd != nil {
		act.Op, act.NAD, act.Reason = NADUpdate, upd, "does not match the desired NetworkAttachmentDefinition"
	} else {
		act.Op = NADKeep
	}
	if len(primaries) > 0 {
		return nsOutcome{action: act,
			issue: "conflicting primary network NetworkAttachmentDefinition: " + strings.Join(primaries, ", ")}
	}
	return nsOutcome{action: act}
}

// reconcileNAD returns observed brought to desired (label, finalizer,
// config), or nil when observed already matches.
func reconcileNAD(observed, desired *nadv1.NetworkAttachmentDefinition) *nadv1.NetworkAttachmentDefinition {
	_, labelled := observed.Labels[LabelUserDefinedNetwork]
	finalized := slices.Contains(observed.Finalizers, FinalizerProtection)
	if labelled && finalized && sameConfig(observed.Spec.Config, desired.Spec.Config) {
		return nil
	}
	upd := observed.DeepCopy()
	if upd.Labels == nil {
		upd.Labels = map[string]string{}
	}
	upd.Labels[LabelUserDefinedNetwork] = ""
	if !finalized {
		upd.Finalizers = append(upd.Finalizers, FinalizerProtection)
	}
	upd.Spec.Config = desired.Spec.Config
	return upd
}

// reconcileNADReference is reconcileNAD as the reference's updateNAD
// (controller_helper.go) does it: the config byte for byte, the labels
// exactly the desired ones, the annotations the desired ones plus the
// observed k8s.ovn.org ones (network name and ID the reference's cluster
// manager writes); the finalizer ensured. It returns nil when observed
// already matches.
func reconcileNADReference(observed, desired *nadv1.NetworkAttachmentDefinition) *nadv1.NetworkAttachmentDefinition {
	annotations := maps.Clone(desired.Annotations)
	for k, v := range observed.Annotations {
		if strings.HasPrefix(k, ovnK8sPrefix) {
			if annotations == nil {
				annotations = map[string]string{}
			}
			annotations[k] = v
		}
	}
	finalized := slices.Contains(observed.Finalizers, FinalizerProtection)
	if finalized && observed.Spec.Config == desired.Spec.Config && maps.Equal(observed.Labels, desired.Labels) &&
		maps.Equal(observed.Annotations, annotations) {
		return nil
	}
	upd := observed.DeepCopy()
	upd.Labels = maps.Clone(desired.Labels)
	upd.Annotations = annotations
	if !finalized {
		upd.Finalizers = append(upd.Finalizers, FinalizerProtection)
	}
	upd.Spec.Config = desired.Spec.Config
	return upd
}

// sameConfig compares two NetConf JSON documents by content: key order
// and blanks do not matter, any other difference (an extra key too) does.
func sameConfig(a, b string) bool {
	if a == b {
		return true
	}
	var ma, mb map[string]any
	if json.Unmarshal([]byte(a), &ma) != nil || json.Unmarshal([]byte(b), &mb) != nil {
		return false
	}
	return reflect.DeepEqual(ma, mb)
}

// isPrimaryNAD reports whether nad carries an OVN primary network
// (role "primary", or the early "primaryNetwork": true).
func isPrimaryNAD(nad *nadv1.NetworkAttachmentDefinition) bool {
	var probe struct {
		Type           string `json:"type"`
		Role           string `json:"role"`
		PrimaryNetwork any    `json:"primaryNetwork"`
	}
	if json.Unmarshal([]byte(nad.Spec.Config), &probe) != nil || probe.Type != CNIType {
		return false
	}
	switch v := probe.PrimaryNetwork.(type) {
	case bool:
		if v {
			return true
		}
	case string:
		if strings.EqualFold(v, "true") {
			return true
		}
	}
	return strings.EqualFold(probe.Role, "primary")
}

// ownedNADs returns the NADs named name that the object with uid controls.
func ownedNADs(nads []*nadv1.NetworkAttachmentDefinition, name, uid string) []*nadv1.NetworkAttachmentDefinition {
	var out []*nadv1.NetworkAttachmentDefinition
	for _, nad := range nads {
		if nad != nil && nad.Name == name && IsControlledBy(nad, uid) {
			out = append(out, nad)
		}
	}
	return out
}

// keepAll returns a Keep action for each NAD, sorted.
func keepAll(nads []*nadv1.NetworkAttachmentDefinition) []NADAction {
	var acts []NADAction
	for _, nad := range nads {
		acts = append(acts, NADAction{Op: NADKeep, Namespace: nad.Namespace, Name: nad.Name})
	}
	sortActions(acts)
	return acts
}

// teardown decides the owned NADs of a network being deleted: kept while
// pods use it, else released and deleted; the object's finalizer goes last.
func teardown(owned []*nadv1.NetworkAttachmentDefinition, podsUsing []types.NamespacedName,
	conds *conditionSet) ([]NADAction, FinalizerOp) {
	var pods []types.NamespacedName
	for _, nad := range owned {
		pods = append(pods, podsIn(podsUsing, nad.Namespace)...)
	}
	if len(pods) > 0 {
		conds.Put(ConditionNetworkReady, metav1.ConditionFalse, ReasonNetworkInUse,
			"NetworkAttachmentDefinition cannot be deleted: the network is in use by pods "+podList(pods))
		return keepAll(owned), FinalizerKeep
	}
	var acts []NADAction
	for _, nad := range owned {
		acts = append(acts, NADAction{Op: NADDelete, Namespace: nad.Namespace, Name: nad.Name,
			NAD: withoutFinalizer(nad), Reason: "network deleted"})
	}
	sortActions(acts)
	conds.Put(ConditionNetworkReady, metav1.ConditionFalse, ReasonNADDeleted, MessageNADDeleted)
	return acts, FinalizerRemove
}

func withoutFinalizer(nad *nadv1.NetworkAttachmentDefinition) *nadv1.NetworkAttachmentDefinition {
	c := nad.DeepCopy()
	c.Finalizers = slices.DeleteFunc(c.Finalizers, func(f string) bool { return f == FinalizerProtection })
	if len(c.Finalizers) == 0 {
		c.Finalizers = nil
	}
	return c
}

func podsIn(pods []types.NamespacedName, ns string) []types.NamespacedName {
	var out []types.NamespacedName
	for _, p := range pods {
		if p.Namespace == ns {
			out = append(out, p)
		}
	}
	return out
}

// podList renders pods sorted, at most five, as "[ns/a ns/b ... and 3 more]".
func podList(pods []types.NamespacedName) string {
	names := make([]string, len(pods))
	for i, p := range pods {
		names[i] = p.String()
	}
	slices.Sort(names)
	names = slices.Compact(names)
	const maxShown = 5
	if len(names) > maxShown {
		more := len(names) - maxShown
		names = append(names[:maxShown], fmt.Sprintf("and %d more", more))
	}
	return "[" + strings.Join(names, " ") + "]"
}

func sortActions(a []NADAction) {
	slices.SortFunc(a, func(x, y NADAction) int {
		return cmp.Or(strings.Compare(x.Namespace, y.Namespace), strings.Compare(x.Name, y.Name))
	})
}

// primaryPolicy decides whether another primary NAD may share a namespace
// with a primary network of kind (KindUDN or KindCUDN).
type primaryPolicy struct {
	multiple bool
	kind     string
	// reference: bring NADs to the desired one as the reference does
	// (see reconcileNADReference).
	reference bool
}

// coexist reports whether n may share its namespace with the primary
// network of nad; when not, issue names nad and says why.
func (p primaryPolicy) coexist(n *Network, nad *nadv1.NetworkAttachmentDefinition) (issue string, ok bool) {
	key := "'" + nad.Namespace + "/" + nad.Name + "'"
	if !p.multiple {
		return key, false
	}
	switch kind := controllerKind(nad); {
	case kind == "":
		return key + " (not managed by a UserDefinedNetwork or ClusterUserDefinedNetwork)", false
	case kind != p.kind:
		return key + " (a " + kind + "; primary UserDefinedNetworks and ClusterUserDefinedNetworks cannot share a namespace)", false
	}
	other, err := NetworkFromNAD(nad)
	if err != nil {
		return key + " (its NetConf does not parse)", false
	}
	if overlaps(n.SubnetPrefixes(), other.SubnetPrefixes()) {
		return key + " (its subnets overlap)", false
	}
	return "", true
}

// controllerKind returns the kind of nad's controller when it is a UDN or CUDN.
func controllerKind(nad *nadv1.NetworkAttachmentDefinition) string {
	for _, ref := range nad.OwnerReferences {
		if ref.Controller != nil && *ref.Controller && strings.HasPrefix(ref.APIVersion, "k8s.ovn.org/") &&
			(ref.Kind == KindUDN || ref.Kind == KindCUDN) {
			return ref.Kind
		}
	}
	return ""
}

// overlaps reports whether a prefix of a overlaps one of b.
func overlaps(a, b []netip.Prefix) bool {
	return slices.ContainsFunc(a, func(p netip.Prefix) bool { return overlapsAny(p, b) })
}

// olderPrimaryPeers returns the other primary CUDNs older than c, oldest first.
func olderPrimaryPeers(c *ClusterUserDefinedNetwork, others []PeerCUDN) []PeerCUDN {
	var out []PeerCUDN
	for _, p := range others {
		o := p.CUDN
		if o == nil || o.UID == c.UID || o.Name == c.Name || !olderThan(o, c) ||
			o.Spec.Template == nil || o.Spec.Template.Spec.Role != RolePrimary {
			continue
		}
		out = append(out, p)
	}
	slices.SortStableFunc(out, func(a, b PeerCUDN) int {
		switch {
		case olderThan(a.CUDN, b.CUDN):
			return -1
		case olderThan(b.CUDN, a.CUDN):
			return 1
		}
		return 0
	})
	return out
}

// intersect returns the names in both sorted lists, sorted.
func intersect(a, b []string) []string {
	var out []string
	for _, s := range a {
		if _, found := slices.BinarySearch(b, s); found {
			out = append(out, s)
		}
	}
	return out
}
