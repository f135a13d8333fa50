package manifest

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	nadv1 "github.com/k8snetworkplumbingwg/network-attachment-definition-client/pkg/apis/k8s.cni.cncf.io/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"

	"github.com/udnkit/udnkit"
	"github.com/udnkit/udnkit/connect"
	"github.com/udnkit/udnkit/internal/sdkerr"
	"github.com/udnkit/udnkit/netconf"
	podkube "github.com/udnkit/udnkit/topology/pods/kube"
	policykube "github.com/udnkit/udnkit/topology/policy/kube"
	svckube "github.com/udnkit/udnkit/topology/services/kube"
)

// Loaded is a Cluster built from a Set, and what building it found.
type Loaded struct {
	Cluster *udnkit.Cluster
	// Allocated lists what the Set's objects did not store and the
	// Cluster allocated, one line each (Nodes, NADs, connects, EgressIPs
	// by key, then pods):
	// "NetworkAttachmentDefinition demo/db-network: k8s.ovn.org/network-id=1".
	Allocated []string
	// Notes lists what was left out and why (NADs of other plugins, nodes
	// not ready, connects not accepted, egress IPs no node takes, EgressQoS
	// not named "default", stored allocations nothing holds any more),
	// sorted.
	Notes []string
}

// Load builds a Cluster of cfg from s the way a restarting controller
// does: Restore with the Nodes', NADs', ClusterNetworkConnects' and
// EgressIPs' annotations, then the namespaces, the nodes (NodeOf; egress
// nodes by their k8s.ovn.org/egress-assignable label), the
// UserDefinedNetworks, the ClusterUserDefinedNetworks, the NADs no UDN or
// CUDN renders (NetworkFromNAD), the connects, the pods, the
// NetworkPolicies, the EgressIPs and EgressQoSes and the Services, then
// EndRestore. What the
// objects did not store is allocated and listed in Loaded.Allocated. An
// object the Cluster refuses is an error naming it.
func Load(s *Set, cfg udnkit.Config) (*Loaded, error) {
	cfg.Nodes = nil
	c, err := udnkit.New(cfg)
	if err != nil {
		return nil, err
	}
	stored := s.Stored()
	if err := c.Restore(stored); err != nil {
		return nil, fmt.Errorf("restore: %w", err)
	}
	l := &Loaded{Cluster: c}
	// The Cluster's Annotations name the NADs of UDNs and CUDNs; those of
	// networks added from a NAD are added here.
	var fromNADs []udnkit.Object
	for _, ns := range s.Namespaces {
		if _, err := c.SetNamespace(netconf.Namespace{Name: ns.Name, Labels: ns.Labels}); err != nil {
			return nil, fmt.Errorf("%s: Namespace %s: %w", s.Source(KindNamespace, ns.Name), ns.Name, err)
		}
	}
	for _, n := range s.Nodes {
		nd, err := NodeOf(n)
		if err == nil {
			err = c.AddNode(nd)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", s.Source(KindNode, n.Name), err)
		}
	}
	if err := s.loadEgressNodes(c); err != nil {
		return nil, err
	}
	for _, u := range s.UDNs {
		if _, err := c.AddUDN(u); err != nil {
			return nil, fmt.Errorf("%s: %s %s/%s: %w", s.Source(netconf.KindUDN, u.Namespace+"/"+u.Name), netconf.KindUDN, u.Namespace, u.Name, err)
		}
	}
	for _, cu := range s.CUDNs {
		if _, err := c.AddCUDN(cu); err != nil {
			return nil, fmt.Errorf("%s: %s %s: %w", s.Source(netconf.KindCUDN, cu.Name), netconf.KindCUDN, cu.Name, err)
		}
	}
	for _, nad := range s.NADs {
		if rendered(nad) {
			continue
		}
		key := nad.Namespace + "/" + nad.Name
		n, err := netconf.NetworkFromNAD(nad)
		if ignoredNAD(err) {
			l.Notes = append(l.Notes, fmt.Sprintf("%s %s: not an OVN-Kubernetes user-defined network: skipped", KindNAD, key))
			continue
		}
		if err == nil {
			n, err = c.Add(n)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %s %s: %w", s.Source(KindNAD, key), KindNAD, key, err)
		}
		fromNADs = append(fromNADs, udnkit.Object{Namespace: nad.Namespace, Name: nad.Name, Annotations: map[string]string{
			udnkit.AnnotationNetworkName: n.Name, udnkit.AnnotationNetworkID: strconv.Itoa(n.ID)}})
	}
	for _, cn := range s.Connects {
		acc, _, err := c.SetConnect(cn)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", s.Source(connect.Kind, cn.Name), err)
		}
		if !acc.Accepted() {
			l.Notes = append(l.Notes, fmt.Sprintf("%s %s: not accepted (%s): %s", connect.Kind, cn.Name, acc.Condition.Reason, acc.Condition.Message))
		}
	}
	for _, p := range s.Pods {
		kp, err := podkube.PodFrom(p)
		if errors.Is(err, podkube.ErrNotAttached) {
			continue // host-networked, unscheduled or completed: no port
		}
		if err == nil {
			_, err = c.SetPod(udnkit.Pod{Pod: kp.Pod, Annotations: kp.Annotations, Labels: kp.Labels, Ports: kp.Ports})
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %s %s/%s: %w", s.Source(KindPod, p.Namespace+"/"+p.Name), KindPod, p.Namespace, p.Name, err)
		}
		if v, err := c.PodAnnotation(p.Namespace, p.Name); err == nil && v != "" && v != p.Annotations[netconf.AnnotationPodNetworks] {
			l.Allocated = append(l.Allocated, fmt.Sprintf("%s %s/%s: %s=%s", KindPod, p.Namespace, p.Name, netconf.AnnotationPodNetworks, v))
		}
	}
	for _, np := range s.NetworkPolicies {
		key := np.Namespace + "/" + np.Name
		p, err := policykube.PolicyFrom(np)
		if err == nil {
			_, err = c.SetNetworkPolicy(p)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %s %s: %w", s.Source(KindNetworkPolicy, key), KindNetworkPolicy, key, err)
		}
	}
	notes, err := s.loadEgress(c)
	if err != nil {
		return nil, err
	}
	l.Notes = append(l.Notes, notes...)
	for _, svc := range s.Services {
		key := svc.Namespace + "/" + svc.Name
		sls := s.mirroredSlices(svc)
		out, ok, err := svckube.ServiceFrom(svc, sls)
		if err != nil {
			return nil, fmt.Errorf("%s: %s %s: %w", s.Source(KindService, key), KindService, key, err)
		}
		if !ok {
			continue // no cluster IP: no load balancer
		}
		if len(sls) == 0 && len(svc.Spec.Selector) > 0 {
			l.Notes = append(l.Notes, fmt.Sprintf("%s %s: no EndpointSlice mirrored onto a user-defined network: planned without endpoints", KindService, key))
		}
		if _, err := c.SetService(out); err != nil {
			return nil, fmt.Errorf("%s: %s %s: %w", s.Source(KindService, key), KindService, key, err)
		}
	}
	for _, freed := range c.EndRestore() {
		l.Notes = append(l.Notes, fmt.Sprintf("%s: stored allocations freed: no object holds them any more", freed))
	}
	for _, nr := range c.NotReady() {
		l.Notes = append(l.Notes, fmt.Sprintf("Node %s: not ready, planned nowhere: %s", nr.Node, nr.Reason))
	}
	want := c.Annotations()
	for _, o := range fromNADs {
		if !slices.ContainsFunc(want.NADs, func(w udnkit.Object) bool { return w.Key() == o.Key() }) {
			want.NADs = append(want.NADs, o)
		}
	}
	slices.SortFunc(want.NADs, func(a, b udnkit.Object) int { return strings.Compare(a.Key(), b.Key()) })
	l.Allocated = append(allocated(stored, want), l.Allocated...)
	slices.Sort(l.Notes)
	return l, nil
}

// rendered reports whether a NAD is one a UDN or CUDN renders (the Cluster
// adds those networks from the UDN or CUDN itself).
func rendered(nad *nadv1.NetworkAttachmentDefinition) bool {
	if _, ok := nad.Labels[netconf.LabelUserDefinedNetwork]; ok {
		return true
	}
	for _, ref := range nad.OwnerReferences {
		if ref.Kind == netconf.KindUDN || ref.Kind == netconf.KindCUDN {
			return true
		}
	}
	return false
}

// mirroredSlices returns the EndpointSlices the reference's mirror
// controller wrote for svc onto user-defined networks (the default
// network's own slices hold the default network's addresses).
func (s *Set) mirroredSlices(svc *corev1.Service) []*discoveryv1.EndpointSlice {
	var out []*discoveryv1.EndpointSlice
	for _, sl := range s.EndpointSlices {
		if sl.Namespace == svc.Namespace && sl.Labels[svckube.LabelServiceName] == svc.Name &&
			sl.Labels[discoveryv1.LabelManagedBy] == svckube.EndpointSliceMirrorController {
			out = append(out, sl)
		}
	}
	return out
}

// Stored returns the annotations of the Set's Nodes, NADs,
// ClusterNetworkConnects and EgressIPs, what udnkit.Cluster.Restore reads.
func (s *Set) Stored() udnkit.Stored {
	var st udnkit.Stored
	for _, n := range s.Nodes {
		st.Nodes = append(st.Nodes, udnkit.Object{Name: n.Name, Annotations: maps.Clone(n.Annotations)})
	}
	for _, n := range s.NADs {
		st.NADs = append(st.NADs, udnkit.Object{Namespace: n.Namespace, Name: n.Name, Annotations: maps.Clone(n.Annotations)})
	}
	for _, c := range s.Connects {
		st.Connects = append(st.Connects, udnkit.Object{Name: c.Name, Annotations: maps.Clone(c.Annotations)})
	}
	st.EgressIPs = s.storedEgressIPs()
	return st
}

// allocated lists the annotations of want that have lost their value or
// never had one, as "<Kind> <key>: <annotation>=<value>": Nodes, NADs,
// connects, then EgressIPs, each sorted by key and annotation.
func allocated(have, want udnkit.Stored) []string {
	var out []string
	for _, group := range []struct {
		kind       string
		have, want []udnkit.Object
	}{{KindNode, have.Nodes, want.Nodes}, {KindNAD, have.NADs, want.NADs}, {connect.Kind, have.Connects, want.Connects},
		{KindEgressIP, have.EgressIPs, want.EgressIPs}} {
		held := map[string]map[string]string{}
		for _, o := range group.have {
			held[o.Key()] = o.Annotations
		}
		for _, o := range group.want {
			for _, k := range slices.Sorted(maps.Keys(o.Annotations)) {
				v := o.Annotations[k]
				if k == udnkit.AnnotationNodeSubnets {
					v = newSubnets(held[o.Key()][k], v)
					if v == "" {
						continue
					}
				} else if held[o.Key()][k] == v {
					continue
				}
				out = append(out, fmt.Sprintf("%s %s: %s=%s", group.kind, o.Key(), k, v))
			}
		}
	}
	return out
}

// newSubnets returns the networks of a node-subnets value want whose
// subnets have holds otherwise (or lacks), as a node-subnets value, or ""
// when there are none. The entries of networks want lacks ("default", the
// default network's) do not count.
func newSubnets(have, want string) string {
	w, err := udnkit.ParseNodeSubnets(want)
	if err != nil {
		return want
	}
	h, _ := udnkit.ParseNodeSubnets(have) // malformed: Restore refused it already
	for net, subs := range w {
		if slices.Equal(h[net], subs) {
			delete(w, net)
		}
	}
	if len(w) == 0 {
		return ""
	}
	return udnkit.FormatNodeSubnets(w)
}

// ErrNoZone is returned by Zones for a Cluster without a ready node.
var ErrNoZone = sdkerr.New(sdkerr.Unavailable, "no ready node: nothing to plan")

// Zones returns the zones of the Cluster's ready nodes, sorted, or
// ErrNoZone.
func Zones(c *udnkit.Cluster) ([]string, error) {
	notReady := map[string]bool{}
	for _, nr := range c.NotReady() {
		notReady[nr.Node] = true
	}
	var out []string
	for _, nd := range c.Nodes() {
		if !notReady[nd.Name] {
			out = append(out, nd.InZone())
		}
	}
	if len(out) == 0 {
		return nil, ErrNoZone
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}
