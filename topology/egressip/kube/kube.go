package kube

import (
	"encoding/json"
	"fmt"
	"net/netip"
	"slices"

	"github.com/udnkit/udnkit/topology/egressip"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"
)

// Node annotations the assignment reads, as the reference spells them.
const (
	// AnnotationPrimaryIfAddr is the node's primary interface addresses:
	// {"ipv4":"172.18.0.3/16","ipv6":"fc00::3/64"}.
	AnnotationPrimaryIfAddr = "k8s.ovn.org/node-primary-ifaddr"
	// AnnotationHostCIDRs is every address of the node: ["172.18.0.3/16"].
	AnnotationHostCIDRs = "k8s.ovn.org/host-cidrs"
)

// MaxEgressIPs bounds spec.egressIPs (a guard, far above any real use).
const MaxEgressIPs = 256

// Decode decodes an EgressIP from YAML or JSON.
func Decode(data []byte) (*EgressIP, error) {
	var e EgressIP
	if err := yaml.UnmarshalStrict(data, &e); err != nil {
		return nil, fmt.Errorf("egressip: %w: %v", egressip.ErrInvalid, err)
	}
	if e.Kind != "" && e.Kind != Kind || e.APIVersion != "" && e.APIVersion != Group+"/"+Version {
		return nil, fmt.Errorf("egressip %q: %w: apiVersion %q kind %q, want %s/%s %s", e.Name, egressip.ErrInvalid, e.APIVersion, e.Kind, Group, Version, Kind)
	}
	return &e, nil
}

// EgressIPFrom returns the planners' EgressIP of e: its addresses, its
// selectors, its mark (annotation k8s.ovn.org/egressip-mark; 0 when
// absent) and its status items. Errors name the field (a field.ErrorList
// aggregated), each wrapping egressip.ErrInvalid.
func EgressIPFrom(e *EgressIP) (egressip.EgressIP, error) {
	out := egressip.EgressIP{Name: e.Name}
	var errs field.ErrorList
	if e.Name == "" {
		errs = append(errs, field.Required(field.NewPath("metadata", "name"), ""))
	}
	ips := field.NewPath("spec", "egressIPs")
	if len(e.Spec.EgressIPs) > MaxEgressIPs {
		errs = append(errs, field.TooMany(ips, len(e.Spec.EgressIPs), MaxEgressIPs))
	} else {
		for i, s := range e.Spec.EgressIPs {
			a, err := netip.ParseAddr(s)
			switch {
			case err != nil || a.Zone() != "" || a.Is4In6():
				errs = append(errs, field.Invalid(ips.Index(i), s, "not an IP address"))
			case slices.Contains(out.IPs, a):
				errs = append(errs, field.Duplicate(ips.Index(i), s))
			case !a.IsGlobalUnicast():
				errs = append(errs, field.Invalid(ips.Index(i), s, "not a unicast address"))
			default:
				out.IPs = append(out.IPs, a)
			}
		}
	}
	var err field.ErrorList
	out.NamespaceSelector, err = SelectorFrom(&e.Spec.NamespaceSelector, field.NewPath("spec", "namespaceSelector"))
	errs = append(errs, err...)
	out.PodSelector, err = SelectorFrom(&e.Spec.PodSelector, field.NewPath("spec", "podSelector"))
	errs = append(errs, err...)
	if v, ok := e.Annotations[egressip.AnnotationMark]; ok {
		m, perr := egressip.ParseMark(v)
		if perr != nil {
			errs = append(errs, field.Invalid(field.NewPath("metadata", "annotations").Key(egressip.AnnotationMark), v, perr.Error()))
		}
		out.Mark = m
	}
	items := field.NewPath("status", "items")
	for i, it := range e.Status.Items {
		a, perr := netip.ParseAddr(it.EgressIP)
		if perr != nil || a.Zone() != "" {
			errs = append(errs, field.Invalid(items.Index(i).Child("egressIP"), it.EgressIP, "not an IP address"))
			continue
		}
		if it.Node == "" {
			errs = append(errs, field.Required(items.Index(i).Child("node"), ""))
			continue
		}
		out.Status = append(out.Status, egressip.Assignment{Node: it.Node, IP: a})
	}
	if len(errs) > 0 {
		return egressip.EgressIP{}, fmt.Errorf("egressip %q: %w: %w", e.Name, egressip.ErrInvalid, errs.ToAggregate())
	}
	return out, nil
}

// SelectorFrom converts a label selector; an empty one selects everything,
// as metav1.LabelSelectorAsSelector makes it.
func SelectorFrom(s *metav1.LabelSelector, path *field.Path) (egressip.Selector, field.ErrorList) {
	var out egressip.Selector
	var errs field.ErrorList
	keys := make([]string, 0, len(s.MatchLabels))
	for k := range s.MatchLabels {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		out.Requirements = append(out.Requirements, egressip.Requirement{Key: k, Op: egressip.OpIn, Values: []string{s.MatchLabels[k]}})
	}
	for i, r := range s.MatchExpressions {
		p := path.Child("matchExpressions").Index(i)
		var op egressip.Operator
		switch r.Operator {
		case metav1.LabelSelectorOpIn:
			op = egressip.OpIn
		case metav1.LabelSelectorOpNotIn:
			op = egressip.OpNotIn
		case metav1.LabelSelectorOpExists:
			op = egressip.OpExists
		case metav1.LabelSelectorOpDoesNotExist:
			op = egressip.OpDoesNotExist
		default:
			errs = append(errs, field.NotSupported(p.Child("operator"), r.Operator, []string{"In", "NotIn", "Exists", "DoesNotExist"}))
			continue
		}
		if r.Key == "" {
			errs = append(errs, field.Required(p.Child("key"), ""))
			continue
		}
		if (op == egressip.OpIn || op == egressip.OpNotIn) != (len(r.Values) > 0) {
			errs = append(errs, field.Invalid(p.Child("values"), r.Values, "In and NotIn need values, Exists and DoesNotExist none"))
			continue
		}
		out.Requirements = append(out.Requirements, egressip.Requirement{Key: r.Key, Op: op, Values: slices.Clone(r.Values)})
	}
	if len(errs) > 0 {
		return egressip.Selector{}, errs
	}
	return out, nil
}

// LabelsFrom returns m as Labels.
func LabelsFrom(m map[string]string) egressip.Labels {
	kv := make([]string, 0, 2*len(m))
	for k, v := range m {
		kv = append(kv, k, v)
	}
	return egressip.NewLabels(kv...)
}

// NodeFrom returns the assignment's view of node: the egress-assignable
// label, the Ready condition, the primary interface addresses
// (AnnotationPrimaryIfAddr) and every host address (AnnotationHostCIDRs and
// the InternalIP and ExternalIP addresses of its status).
func NodeFrom(node *corev1.Node) (egressip.Node, error) {
	out := egressip.Node{Name: node.Name}
	_, out.Assignable = node.Labels[egressip.LabelEgressAssignable]
	for _, c := range node.Status.Conditions {
		if c.Type == corev1.NodeReady {
			out.Ready = c.Status == corev1.ConditionTrue
		}
	}
	ann := field.NewPath("metadata", "annotations")
	if v, ok := node.Annotations[AnnotationPrimaryIfAddr]; ok {
		var m struct {
			IPv4 string `json:"ipv4"`
			IPv6 string `json:"ipv6"`
		}
		if err := json.Unmarshal([]byte(v), &m); err != nil {
			return egressip.Node{}, fmt.Errorf("node %q: %s: %w: %v", node.Name, ann.Key(AnnotationPrimaryIfAddr), egressip.ErrInvalid, err)
		}
		for _, s := range []struct {
			v   string
			is4 bool
		}{{m.IPv4, true}, {m.IPv6, false}} {
			if s.v == "" {
				continue
			}
			p, err := netip.ParsePrefix(s.v)
			if err != nil || p.Addr().Is4() != s.is4 || p.Addr().Zone() != "" {
				return egressip.Node{}, fmt.Errorf("node %q: %s: %w: %.64q is not an %s interface address", node.Name, ann.Key(AnnotationPrimaryIfAddr), egressip.ErrInvalid, s.v, family(s.is4))
			}
			out.Subnets = append(out.Subnets, p)
			out.HostIPs = append(out.HostIPs, p.Addr())
		}
	}
	if v, ok := node.Annotations[AnnotationHostCIDRs]; ok {
		var list []string
		if err := json.Unmarshal([]byte(v), &list); err != nil {
			return egressip.Node{}, fmt.Errorf("node %q: %s: %w: %v", node.Name, ann.Key(AnnotationHostCIDRs), egressip.ErrInvalid, err)
		}
		for i, s := range list {
			p, err := netip.ParsePrefix(s)
			if err != nil || p.Addr().Zone() != "" {
				return egressip.Node{}, fmt.Errorf("node %q: %s[%d]: %w: %.64q is not a CIDR", node.Name, ann.Key(AnnotationHostCIDRs), i, egressip.ErrInvalid, s)
			}
			out.HostIPs = append(out.HostIPs, p.Addr())
		}
	}
	for _, a := range node.Status.Addresses {
		if a.Type != corev1.NodeInternalIP && a.Type != corev1.NodeExternalIP {
			continue
		}
		if ip, err := netip.ParseAddr(a.Address); err == nil {
			out.HostIPs = append(out.HostIPs, ip)
		}
	}
	slices.SortFunc(out.HostIPs, netip.Addr.Compare)
	out.HostIPs = slices.Compact(out.HostIPs)
	return out, nil
}

func family(is4 bool) string {
	if is4 {
		return "IPv4"
	}
	return "IPv6"
}

// StatusFrom returns the EgressIP status that records s; its items are
// never nil.
func StatusFrom(s egressip.Status) EgressIPStatus {
	items := make([]EgressIPStatusItem, 0, len(s.Items))
	for _, a := range s.Items {
		items = append(items, EgressIPStatusItem{Node: a.Node, EgressIP: a.IP.String()})
	}
	return EgressIPStatus{Items: items}
}

// StatusPatch returns the merge patch of an EgressIP's status subresource
// that records s (StatusFrom).
func StatusPatch(s egressip.Status) []byte {
	b, _ := json.Marshal(map[string]any{"status": StatusFrom(s)})
	return b
}

// MarkPatch returns the merge patch that records an EgressIP's mark.
func MarkPatch(mark int) []byte {
	b, _ := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": map[string]string{egressip.AnnotationMark: egressip.FormatMark(mark)}}})
	return b
}
