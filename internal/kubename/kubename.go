// Package kubename holds the Kubernetes name rules netconf and
// netconf/podnetwork share: object metadata and references to objects by
// name (DNS-1123), with apimachinery's messages.
package kubename

import (
	"encoding/json"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/udnkit/udnkit/internal/names"
)

// ValidateObjectName checks a reference to an object by name: required
// (detail says why) and a DNS-1123 subdomain.
func ValidateObjectName(name string, path *field.Path, required string) field.ErrorList {
	if name == "" {
		return field.ErrorList{field.Required(path, required)}
	}
	var errs field.ErrorList
	for _, msg := range IsDNS1123Subdomain(name) {
		errs = append(errs, field.Invalid(path, name, msg))
	}
	return errs
}

// ValidateMeta checks the metadata of an object of kind: a name that is a
// DNS-1123 subdomain; for a namespaced object a namespace that is a
// DNS-1123 label (namespaceRequired says why it is needed), for a
// cluster-scoped one no namespace.
func ValidateMeta(m *metav1.ObjectMeta, kind string, namespaced bool, namespaceRequired string) field.ErrorList {
	meta := field.NewPath("metadata")
	errs := ValidateObjectName(m.Name, meta.Child("name"), "the "+kind+" needs a name")
	switch {
	case namespaced && m.Namespace == "":
		errs = append(errs, field.Required(meta.Child("namespace"), namespaceRequired))
	case namespaced:
		for _, msg := range IsDNS1123Label(m.Namespace) {
			errs = append(errs, field.Invalid(meta.Child("namespace"), m.Namespace, msg))
		}
	case m.Namespace != "":
		errs = append(errs, field.Forbidden(meta.Child("namespace"), "a "+kind+" is cluster-scoped"))
	}
	return errs
}

// NamespacedNameErrors says what is wrong with namespace/name as the key
// of a namespaced object: the namespace must be a DNS-1123 label, the name
// a DNS-1123 subdomain. Each message starts "namespace: " or "name: ".
func NamespacedNameErrors(namespace, name string) []string {
	var msgs []string
	for _, msg := range IsDNS1123Label(namespace) {
		msgs = append(msgs, "namespace: "+msg)
	}
	for _, msg := range IsDNS1123Subdomain(name) {
		msgs = append(msgs, "name: "+msg)
	}
	return msgs
}

// Bound returns errs with every message bounded (in place: the errors
// are the caller's): a BadValue whose text is longer than names.MaxQuoted
// bytes replaced by its cut text (names.Cut), a field path and a detail cut
// to names.MaxDetail bytes, so that an error never echoes megabytes of its
// input.
func Bound(errs field.ErrorList) field.ErrorList {
	for _, e := range errs {
		if e == nil {
			continue
		}
		switch v := e.BadValue.(type) {
		case string:
			e.BadValue = names.Cut(v)
		case nil, int, int32, int64, float32, float64, bool, field.OmitValueType:
		default:
			// As field.Error renders it: JSON, else String, else %#v.
			var text string
			if jb, err := json.Marshal(v); err == nil {
				text = string(jb)
			} else if s, ok := v.(fmt.Stringer); ok {
				text = s.String()
			} else {
				text = fmt.Sprintf("%#v", v)
			}
			if len(text) > names.MaxQuoted {
				e.BadValue = names.Cut(text)
			}
		}
		e.Field = names.Cap(e.Field)
		e.Detail = names.Cap(e.Detail)
	}
	return errs
}

// IsDNS1123Subdomain is validation.IsDNS1123Subdomain that reports only
// the length of a name over 253 bytes, without running the pattern over
// megabytes.
func IsDNS1123Subdomain(s string) []string {
	if len(s) > validation.DNS1123SubdomainMaxLength {
		return []string{validation.MaxLenError(validation.DNS1123SubdomainMaxLength)}
	}
	return validation.IsDNS1123Subdomain(s)
}

// IsDNS1123Label is validation.IsDNS1123Label that reports only the length
// of a label over 63 bytes.
func IsDNS1123Label(s string) []string {
	if len(s) > validation.DNS1123LabelMaxLength {
		return []string{validation.MaxLenError(validation.DNS1123LabelMaxLength)}
	}
	return validation.IsDNS1123Label(s)
}

// Label key and value bounds: a qualified name is a DNS subdomain prefix,
// '/', and a 63-byte name; a value is at most 63 bytes.
const (
	maxLabelKey   = validation.DNS1123SubdomainMaxLength + 1 + validation.LabelValueMaxLength
	maxLabelValue = validation.LabelValueMaxLength
)

// SelectorAsSelector is metav1.LabelSelectorAsSelector that refuses an
// over-long key or value by its length first (the patterns would run over
// all of it), naming a bounded prefix.
func SelectorAsSelector(s *metav1.LabelSelector) (labels.Selector, error) {
	if s != nil {
		check := func(k string, vs ...string) error {
			if len(k) > maxLabelKey {
				return fmt.Errorf("key %s: %s", names.Quote(k), validation.MaxLenError(maxLabelKey))
			}
			for _, v := range vs {
				if len(v) > maxLabelValue {
					return fmt.Errorf("key %s: value %s: %s", names.Quote(k), names.Quote(v), validation.MaxLenError(maxLabelValue))
				}
			}
			return nil
		}
		for k, v := range s.MatchLabels {
			if err := check(k, v); err != nil {
				return nil, err
			}
		}
		for _, r := range s.MatchExpressions {
			if err := check(r.Key, r.Values...); err != nil {
				return nil, err
			}
		}
	}
	return metav1.LabelSelectorAsSelector(s)
}
