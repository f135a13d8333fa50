package policy

import (
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/udnkit/udnkit/internal/kubename"
	"github.com/udnkit/udnkit/internal/names"
	"github.com/udnkit/udnkit/internal/sdkerr"
)

// ErrInvalid is wrapped by every error about the input.
var ErrInvalid = sdkerr.New(sdkerr.Invalid, "invalid network policy input")

// Validate checks a policy as the API server and the planner need it:
// names, selectors (operators, values), peers (one kind each, ipBlock
// prefixes with excepts inside the CIDR and of its family), ports (numbers
// 1-65535, endPort only after a number and not below it, names not with
// numbers), policy types. The paths are the NetworkPolicy's field paths.
func Validate(p *Policy) field.ErrorList {
	var errs field.ErrorList
	errs = append(errs, kubename.ValidateMeta(&metav1.ObjectMeta{Namespace: p.Namespace, Name: p.Name}, "NetworkPolicy", true, "a NetworkPolicy is namespaced")...)
	spec := field.NewPath("spec")
	errs = append(errs, validateSelector(spec.Child("podSelector"), &p.PodSelector)...)
	for i, r := range p.Ingress {
		errs = append(errs, validateRule(spec.Child("ingress").Index(i), "from", r)...)
	}
	for i, r := range p.Egress {
		errs = append(errs, validateRule(spec.Child("egress").Index(i), "to", r)...)
	}
	seen := map[PolicyType]bool{}
	for i, t := range p.PolicyTypes {
		path := spec.Child("policyTypes").Index(i)
		switch {
		case t != Ingress && t != Egress:
			errs = append(errs, field.NotSupported(path, t.String(), []string{"Ingress", "Egress"}))
		case seen[t]:
			errs = append(errs, field.Duplicate(path, t.String()))
		}
		seen[t] = true
	}
	return errs
}

func validateRule(path *field.Path, peersField string, r Rule) field.ErrorList {
	var errs field.ErrorList
	for i, p := range r.Peers {
		pp := path.Child(peersField).Index(i)
		switch {
		case p.IPBlock != nil && (p.PodSelector != nil || p.NamespaceSelector != nil):
			errs = append(errs, field.Forbidden(pp, "may not specify both ipBlock and another peer"))
		case p.IPBlock == nil && p.PodSelector == nil && p.NamespaceSelector == nil:
			errs = append(errs, field.Required(pp, "must specify a peer"))
		}
		if p.PodSelector != nil {
			errs = append(errs, validateSelector(pp.Child("podSelector"), p.PodSelector)...)
		}
		if p.NamespaceSelector != nil {
			errs = append(errs, validateSelector(pp.Child("namespaceSelector"), p.NamespaceSelector)...)
		}
		if p.IPBlock != nil {
			errs = append(errs, validateIPBlock(pp.Child("ipBlock"), p.IPBlock)...)
		}
	}
	for i, p := range r.Ports {
		errs = append(errs, validatePort(path.Child("ports").Index(i), p)...)
	}
	return errs
}

func validateIPBlock(path *field.Path, b *IPBlock) field.ErrorList {
	var errs field.ErrorList
	if !b.CIDR.IsValid() {
		return append(errs, field.Required(path.Child("cidr"), "a CIDR"))
	}
	cidr := b.CIDR.Masked()
	for i, e := range b.Except {
		ep := path.Child("except").Index(i)
		switch {
		case !e.IsValid():
			errs = append(errs, field.Invalid(ep, e.String(), "not a CIDR"))
		case e.Addr().Is4() != cidr.Addr().Is4():
			errs = append(errs, field.Invalid(ep, e.String(), "must be of the CIDR's family"))
		case e.Bits() < cidr.Bits() || !cidr.Contains(e.Addr()):
			errs = append(errs, field.Invalid(ep, e.String(), "must be strictly within the CIDR "+b.CIDR.String()))
		}
	}
	return errs
}

func validatePort(path *field.Path, p Port) field.ErrorList {
	var errs field.ErrorList
	if p.Protocol > SCTP {
		errs = append(errs, field.NotSupported(path.Child("protocol"), p.Protocol.String(), []string{"TCP", "UDP", "SCTP"}))
	}
	if p.Name != "" {
		if p.Number != 0 {
			errs = append(errs, field.Invalid(path.Child("port"), p.Name, "a port is a number or a name, not both"))
		}
		if msg := portNameError(p.Name); msg != "" {
			errs = append(errs, field.Invalid(path.Child("port"), p.Name, msg))
		}
		if p.EndPort != 0 {
			errs = append(errs, field.Forbidden(path.Child("endPort"), "may not be set with a named port"))
		}
		return errs
	}
	if p.Number < 0 || p.Number > 65535 {
		errs = append(errs, field.Invalid(path.Child("port"), p.Number, "must be between 1 and 65535"))
	}
	if p.EndPort != 0 {
		switch {
		case p.Number == 0:
			errs = append(errs, field.Required(path.Child("port"), "when endPort is set"))
		case p.EndPort < p.Number || p.EndPort > 65535:
			errs = append(errs, field.Invalid(path.Child("endPort"), p.EndPort, fmt.Sprintf("must be between port %d and 65535", p.Number)))
		}
	}
	return errs
}

// portNameError is Kubernetes' IANA service name rule: 1-15 lower-case
// letters, digits and '-', at least one letter, no leading, trailing or
// doubled '-'.
func portNameError(s string) string {
	if len(s) > 15 {
		return "must be no more than 15 characters"
	}
	letter := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z':
			letter = true
		case c >= '0' && c <= '9':
		case c == '-':
			if i == 0 || i == len(s)-1 || s[i-1] == '-' {
				return "'-' may not start, end or repeat"
			}
		default:
			return "may contain only lower-case letters, digits and '-'"
		}
	}
	if !letter {
		return "must contain at least one letter"
	}
	return ""
}

func validateSelector(path *field.Path, s *Selector) field.ErrorList {
	var errs field.ErrorList
	for k, v := range s.MatchLabels {
		errs = append(errs, keyErrors(path.Child("matchLabels").Key(k), k)...)
		errs = append(errs, valueErrors(path.Child("matchLabels").Key(k), v)...)
	}
	for i, r := range s.MatchExpressions {
		rp := path.Child("matchExpressions").Index(i)
		errs = append(errs, keyErrors(rp.Child("key"), r.Key)...)
		switch r.Operator {
		case OpIn, OpNotIn:
			if len(r.Values) == 0 {
				errs = append(errs, field.Required(rp.Child("values"), "for operator "+string(r.Operator)))
			}
		case OpExists, OpDoesNotExist:
			if len(r.Values) > 0 {
				errs = append(errs, field.Forbidden(rp.Child("values"), "must be empty for operator "+string(r.Operator)))
			}
		default:
			errs = append(errs, field.NotSupported(rp.Child("operator"), string(r.Operator), []string{"In", "NotIn", "Exists", "DoesNotExist"}))
		}
		for j, v := range r.Values {
			errs = append(errs, valueErrors(rp.Child("values").Index(j), v)...)
		}
	}
	return errs
}

// validateInput checks what New needs beyond each policy: known networks,
// unique names, pods' attachments on known networks with addresses of the
// network's families.
func validateInput(in *Input) error {
	nets := map[string]bool{}
	for i, n := range in.Networks {
		if n.Network == nil || n.Network.Name == "" {
			return fmt.Errorf("networks[%d]: network: %w: required", i, ErrInvalid)
		}
		if nets[n.Network.Name] {
			return fmt.Errorf("network %q: %w: listed twice", n.Network.Name, ErrInvalid)
		}
		nets[n.Network.Name] = true
	}
	seen := map[string]bool{}
	for i := range in.Policies {
		p := &in.Policies[i]
		if errs := Validate(p); len(errs) > 0 {
			return fmt.Errorf("networkpolicy %s/%s: %w: %v", p.Namespace, p.Name, ErrInvalid, errs.ToAggregate())
		}
		k := p.Namespace + "/" + p.Name
		if seen[k] {
			return fmt.Errorf("networkpolicy %s: %w: listed twice", k, ErrInvalid)
		}
		seen[k] = true
	}
	clear(seen)
	for i := range in.Pods {
		p := &in.Pods[i]
		if err := validatePod(p); err != nil {
			return err
		}
		k := p.Namespace + "/" + p.Name
		if seen[k] {
			return fmt.Errorf("pod %s: %w: listed twice", k, ErrInvalid)
		}
		seen[k] = true
	}
	for i := range in.Namespaces {
		if err := validateNamespace(&in.Namespaces[i]); err != nil {
			return err
		}
	}
	if in.ACLLoggingRate < 0 {
		return fmt.Errorf("acl logging rate: %w: %d is negative", ErrInvalid, in.ACLLoggingRate)
	}
	if dn := in.DefaultNetwork; dn != nil {
		for i, ip := range dn.ManagementIPs {
			if !ip.IsValid() {
				return fmt.Errorf("default network: managementIPs[%d]: %w: not an address", i, ErrInvalid)
			}
		}
	}
	return nil
}

// validateNamespace checks a namespace's logging severities.
func validateNamespace(ns *Namespace) error {
	if !ns.Logging.Deny.Valid() || !ns.Logging.Allow.Valid() {
		return fmt.Errorf("namespace %s: logging: %w: severities %s and %s: each alert, warning, notice, info, debug or empty",
			ns.Name, ErrInvalid, names.Quote(string(ns.Logging.Deny)), names.Quote(string(ns.Logging.Allow)))
	}
	return nil
}

func validatePod(p *Pod) error {
	if msgs := kubename.NamespacedNameErrors(p.Namespace, p.Name); len(msgs) > 0 {
		return fmt.Errorf("pod %s/%s: %w: %s", p.Namespace, p.Name, ErrInvalid, msgs[0])
	}
	for i, a := range p.Networks {
		if a.Network == "" || a.Port == "" {
			return fmt.Errorf("pod %s/%s: networks[%d]: %w: network and port are required", p.Namespace, p.Name, i, ErrInvalid)
		}
		for j, ip := range a.IPs {
			if !ip.IsValid() {
				return fmt.Errorf("pod %s/%s: networks[%d].ips[%d]: %w: not an address", p.Namespace, p.Name, i, j, ErrInvalid)
			}
		}
	}
	if i := strings.IndexAny(p.DefaultPort, "\"\\"); i >= 0 || names.Control(p.DefaultPort) >= 0 {
		return fmt.Errorf("pod %s/%s: defaultPort: %w: %s holds a quote, a backslash or a control character", p.Namespace, p.Name, ErrInvalid, names.Quote(p.DefaultPort))
	}
	for i, op := range p.OpenPorts {
		if !op.valid() {
			return fmt.Errorf("pod %s/%s: openPorts[%d]: %w: protocol %s port %d (tcp, udp or sctp with a port 0-65535, or icmp without)",
				p.Namespace, p.Name, i, ErrInvalid, names.Quote(op.Protocol), op.Port)
		}
	}
	if len(p.OpenPorts) > 0 && p.DefaultPort == "" {
		return fmt.Errorf("pod %s/%s: openPorts: %w: open default ports need the pod's defaultPort", p.Namespace, p.Name, ErrInvalid)
	}
	for i, cp := range p.Ports {
		if cp.Name == "" {
			continue
		}
		if cp.Number < 1 || cp.Number > 65535 || cp.Protocol > SCTP {
			return fmt.Errorf("pod %s/%s: ports[%d] %q: %w: number %d, protocol %s", p.Namespace, p.Name, i, cp.Name, ErrInvalid, cp.Number, cp.Protocol)
		}
	}
	return nil
}

// keyErrors checks a label key (a qualified name).
func keyErrors(path *field.Path, key string) field.ErrorList {
	var errs field.ErrorList
	for _, msg := range validation.IsQualifiedName(key) {
		errs = append(errs, field.Invalid(path, key, msg))
	}
	return errs
}

// valueErrors checks a label value.
func valueErrors(path *field.Path, value string) field.ErrorList {
	var errs field.ErrorList
	for _, msg := range validation.IsValidLabelValue(value) {
		errs = append(errs, field.Invalid(path, value, msg))
	}
	return errs
}
